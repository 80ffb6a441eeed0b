// SPDX-License-Identifier: MIT
// Launch overhead: host time per launch of an empty kernel through clforge's queue::launch
// versus the raw clEnqueueNDRangeKernel (setting the same arguments, with an event), pipelined
// (one finish per batch) and synchronous (a finish after every launch).
//
// Why not two Google Benchmark cases: those run one after the other, and the host's and the
// driver's state drifts between them by more than the difference we look for (on the H100 two
// sequential runs put clforge 1.6 us behind and 1.9 us ahead of the raw call). Here the two
// alternate in short batches (ABBA order), and the report gives each side's median time per
// launch and the median of the paired differences, which drift does not move.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "harness.hpp"

namespace clforge_bench {
namespace {
const char* kEmptyKernel = "kernel void empty(ulong n, global float* y, float a) {}\n";

using clock_type = std::chrono::steady_clock;

struct launcher {
  cf::kernel k;
  cf::array<float> y;

  // `count` launches, each followed by a finish when `finish_each`; then one finish.
  // Returns host seconds per launch. raw_no_event: the raw call asking for no event (what an
  // event costs; clforge's launch returns one).
  double batch(bool raw, bool finish_each, int count, bool raw_no_event = false) {
    cf::queue& q = queue();
    const auto t0 = clock_type::now();
    for (int i = 0; i < count; ++i) {
      if (raw) {
        // What a hand-written host program does: set each argument, enqueue with an event.
        cl_kernel handle = k.cl()();
        const cl_ulong n = 256;
        const cl_mem mem = y.get();
        const float a = 2.0f;
        clSetKernelArg(handle, 0, sizeof n, &n);
        clSetKernelArg(handle, 1, sizeof mem, &mem);
        clSetKernelArg(handle, 2, sizeof a, &a);
        const size_t global = 256, local = 256;
        cl_event e = nullptr;
        clEnqueueNDRangeKernel(q.get(), handle, 1, nullptr, &global, &local, 0, nullptr,
                               raw_no_event ? nullptr : &e);
        if (e) clReleaseEvent(e);
      } else {
        q.launch(k, cf::ndrange(256).with_local(256), cl_ulong(256), y, 2.0f);
      }
      if (finish_each) q.finish();
    }
    q.finish();
    return std::chrono::duration<double>(clock_type::now() - t0).count() / count;
  }
};

report_table launch_overhead_report(bool quick) {
  launcher l{ctx().build(kEmptyKernel).kernel("empty"), cf::array<float>(queue(), 256)};
  report_table t;
  t.columns = {"mode",
               "launches per batch",
               "batch pairs",
               "raw µs/launch",
               "clforge µs/launch",
               "clforge − raw, median of pairs (µs)",
               "middle half of the differences (µs)",
               "raw without an event µs/launch"};
  for (bool finish_each : {false, true}) {
    const int per_batch = finish_each ? 50 : 200;
    // cheap (a batch is at most a few ms), and steadier than fewer; a smoke run needs fewer
    const int pairs = quick ? 20 : 100;
    progress(std::string("launch overhead: ") + (finish_each ? "synchronous" : "pipelined") + ", " +
             std::to_string(pairs) + " batch pairs");
    for (int w = 0; w < 4; ++w) {  // warm-up: driver paths, queue threads, clocks
      l.batch(true, finish_each, per_batch);
      l.batch(false, finish_each, per_batch);
    }
    std::vector<double> raw, ours, diff, no_event;
    for (int p = 0; p < pairs; ++p) {
      // ABBA: which side goes first alternates, so a trend within a pair cancels out
      const bool raw_first = p % 2 == 0;
      const double first = l.batch(raw_first, finish_each, per_batch);
      const double second = l.batch(!raw_first, finish_each, per_batch);
      const double r = raw_first ? first : second, c = raw_first ? second : first;
      raw.push_back(r * 1e6);
      ours.push_back(c * 1e6);
      diff.push_back((c - r) * 1e6);
      no_event.push_back(l.batch(true, finish_each, per_batch, true) * 1e6);
    }
    t.rows.push_back({finish_each ? "synchronous (finish each)" : "pipelined",
                      std::to_string(per_batch), std::to_string(pairs),
                      format("%.3f", median_of(raw)), format("%.3f", median_of(ours)),
                      format("%+.3f", median_of(diff)),
                      format("%+.3f", quantile_of(diff, 0.25)) + " … " +
                          format("%+.3f", quantile_of(diff, 0.75)),
                      format("%.3f", median_of(no_event))});
  }
  return t;
}

void register_reports() {
  add_report(
      {"Launch overhead: an empty kernel through clforge's queue::launch and through "
       "the raw clEnqueueNDRangeKernel, alternating batches",
       launch_overhead_report});
}
}  // namespace
CLFORGE_BENCH_REGISTER(register_reports);
}  // namespace clforge_bench
