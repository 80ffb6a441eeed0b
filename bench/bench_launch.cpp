// Launch overhead: host time per launch of an empty kernel through clforge's queue::launch
// versus the raw clEnqueueNDRangeKernel (with the same event), pipelined (one finish per
// batch) and synchronous (a finish after every launch). n = launches per run.
#include "harness.hpp"

#include <chrono>

namespace clforge_bench {
namespace {
const char* kEmptyKernel = "kernel void empty(ulong n, global float* y, float a) {}\n";

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

run_fn launches(std::size_t count, bool raw, bool finish_each) {
  cf::kernel k = ctx().build(kEmptyKernel).kernel("empty");
  auto y = std::make_shared<cf::array<float>>(queue(), 256);
  return [=] {
    cf::queue& q = queue();
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < count; ++i) {
      if (raw) {
        // What a hand-written host program does: set each argument, enqueue with an event.
        cl_kernel handle = k.cl()();
        cl_ulong n = 256;
        cl_mem mem = y->get();
        float a = 2.0f;
        clSetKernelArg(handle, 0, sizeof n, &n);
        clSetKernelArg(handle, 1, sizeof mem, &mem);
        clSetKernelArg(handle, 2, sizeof a, &a);
        size_t global = 256, local = k.state().device_is_cpu ? 256 : 256;
        cl_event e = nullptr;
        clEnqueueNDRangeKernel(q.get(), handle, 1, nullptr, &global, &local, 0, nullptr, &e);
        clReleaseEvent(e);
      } else {
        q.launch(k, cf::ndrange(256).with_local(256), cl_ulong(256), *y, 2.0f);
      }
      if (finish_each) q.finish();
    }
    q.finish();
    return seconds_since(t0);
  };
}

void register_cases() {
  const std::vector<std::size_t> counts = {1000};
  for (bool finish_each : {false, true}) {
    std::string job = finish_each ? "launch_sync" : "launch_pipelined";
    add_case({job, "clforge", 0.0, [=](std::size_t n) { return launches(n, false, finish_each); },
              counts});
    add_case({job, "handwritten", 0.0,
              [=](std::size_t n) { return launches(n, true, finish_each); }, counts});
  }
}
}  // namespace
CLFORGE_BENCH_REGISTER(register_cases);
}  // namespace clforge_bench
