// SPDX-License-Identifier: MIT
// Scans: inclusive sum of int32 and float32 (8 bytes per element: one read, one write) and
// copy_if at 50% selectivity, against an OpenMP two-pass scan on CPU devices.
//
// copy_if_50 counts 6 bytes per element: every element is read once (4 bytes) and half of them
// are written (2 bytes on average); the 4-byte count read back is left out. The clforge time is
// the device time of the whole call (first to last command); the count's read-back is not in it.
//
// Look-back variants (GPUs): CLFORGE_TUNE="scan:items=32,group=256,layout=striped,..." sets the
// shape of the "clforge" cases (README: CLFORGE_TUNE).
// CLFORGE_BENCH_SCAN_TILES="40x256,40x256w32,40x256lp8" adds one impl per spec ("clforge_40x256",
// ...) to the int32 job, so one run compares them.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "harness.hpp"

#ifdef CLFORGE_BENCH_HAVE_OPENMP
#include <omp.h>
#endif

namespace clforge_bench {
namespace {

template <class T>
std::vector<T> inputs(std::size_t n) {
  if constexpr (std::is_same_v<T, float>)
    return random_floats(n, 42);
  else
    return random_ints(n, 42);
}

template <class T>
run_fn clforge_scan(std::size_t n, const std::string& tile = "", const char* op = "a + b") {
  const std::string type = cf::type_name<T>();
  cf::scan_options o;
  o.name = "inclusive_scan_bench";
  if (!tile.empty()) o.tile(tile);
  auto k = std::make_shared<cf::scan_kernel<T>>(
      ctx(), "global const " + type + "* in, global " + type + "* out", "in[i]", op, "0",
      "out[i] = item", cf::scan_kind::inclusive, o);
  auto in = std::make_shared<cf::array<T>>(cf::array<T>::from_host(queue(), inputs<T>(n)));
  auto out = std::make_shared<cf::array<T>>(queue(), n);
  return [k, in, out] {
    auto events = k->launch(queue(), *in, *out);
    return device_seconds(events.first, events.last);
  };
}

#ifdef CLFORGE_BENCH_HAVE_OPENMP
// The classic two-pass CPU scan: each thread sums its chunk, a serial scan of the chunk sums,
// each thread scans its chunk from its offset.
template <class T>
void openmp_scan(const T* in, T* out, std::size_t n) {
  std::vector<T> sums(static_cast<std::size_t>(omp_get_max_threads()) + 1, T(0));
#pragma omp parallel
  {
    const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t threads = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
    T sum = 0;
    for (std::size_t i = begin; i < end; ++i) sum += in[i];
    sums[t + 1] = sum;
#pragma omp barrier
#pragma omp single
    for (std::size_t k = 1; k <= threads; ++k) sums[k] += sums[k - 1];
    T acc = sums[t];
    for (std::size_t i = begin; i < end; ++i) {
      acc += in[i];
      out[i] = acc;
    }
  }
}

template <class T>
run_fn openmp_case(std::size_t n) {
  auto in = std::make_shared<std::vector<T>>(inputs<T>(n));
  auto out = std::make_shared<std::vector<T>>(n);
  return [in, out, n] {
    const auto t0 = std::chrono::steady_clock::now();
    openmp_scan(in->data(), out->data(), n);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
}

run_fn openmp_copy_if(std::size_t n) {
  auto in = std::make_shared<std::vector<std::int32_t>>(random_ints(n, 42));
  auto out = std::make_shared<std::vector<std::int32_t>>(n);
  return [in, out, n] {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::size_t> counts(static_cast<std::size_t>(omp_get_max_threads()) + 1, 0);
    const std::int32_t* src = in->data();
    std::int32_t* dst = out->data();
#pragma omp parallel
    {
      const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
      const std::size_t threads = static_cast<std::size_t>(omp_get_num_threads());
      const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
      std::size_t c = 0;
      for (std::size_t i = begin; i < end; ++i) c += src[i] >= 0;
      counts[t + 1] = c;
#pragma omp barrier
#pragma omp single
      for (std::size_t k = 1; k <= threads; ++k) counts[k] += counts[k - 1];
      // Branch-free: every element is stored at the next free slot, where a rejected one is
      // overwritten by the next kept one (a branch on the predicate is mispredicted at every
      // other element of this input and costs several times the loop). The run of rejected
      // elements at the end is not stored: its slot is the next thread's first.
      std::size_t stop = end;
      while (stop > begin && src[stop - 1] < 0) --stop;
      std::size_t at = counts[t];
      for (std::size_t i = begin; i < stop; ++i) {
        const std::int32_t v = src[i];
        dst[at] = v;
        at += v >= 0;
      }
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
}
#endif

run_fn clforge_copy_if(std::size_t n) {
  // Values in [-100, 100]: "x >= 0" keeps 101/201 of them, about 50%.
  auto in = std::make_shared<cf::array<std::int32_t>>(
      cf::array<std::int32_t>::from_host(queue(), random_ints(n, 42)));
  auto out = std::make_shared<cf::array<std::int32_t>>(queue(), n);
  auto count = std::make_shared<cf::array<cl_uint>>(queue(), 1);
  // The kernel copy_if uses (cached per context, type and predicate).
  const auto program =
      cf::detail::selection_kernel<std::int32_t, cl_uint>(ctx(), "copy_if", false, "x >= 0", "");
  return [program, in, out, count] {
    auto events = cf::detail::scan_call(program->scan, queue(), static_cast<std::size_t>(-1), *in,
                                        *out, *count);
    return device_seconds(events.first, events.last);
  };
}

std::vector<std::string> extra_tiles() {
  std::vector<std::string> out;
  const char* env = std::getenv("CLFORGE_BENCH_SCAN_TILES");
  if (!env) return out;
  std::stringstream list(env);
  std::string item;
  while (std::getline(list, item, ',')) out.push_back(item);
  return out;
}

void register_cases() {
  add_case({"inclusive_scan_int32", "clforge", 8.0,
            [](std::size_t n) { return clforge_scan<std::int32_t>(n); }});
  add_case({"inclusive_scan_float32", "clforge", 8.0,
            [](std::size_t n) { return clforge_scan<float>(n); }});
  // The same sum spelled so that it is not known to commute: each tile's aggregate is published
  // after its scan, not before (scan_options::commutative), for comparison with "clforge".
  add_case({"inclusive_scan_int32", "clforge_ordered", 8.0,
            [](std::size_t n) { return clforge_scan<std::int32_t>(n, "", "a + b + 0"); }});
  add_case({"copy_if_50", "clforge", 6.0, clforge_copy_if});
  for (const std::string& tile : extra_tiles()) {
    add_case({"inclusive_scan_int32", "clforge_" + tile, 8.0,
              [tile](std::size_t n) { return clforge_scan<std::int32_t>(n, tile); }});
  }
#ifdef CLFORGE_BENCH_HAVE_OPENMP
  add_case({"inclusive_scan_int32", "openmp", 8.0, openmp_case<std::int32_t>, {}, true});
  add_case({"inclusive_scan_float32", "openmp", 8.0, openmp_case<float>, {}, true});
  add_case({"copy_if_50", "openmp", 6.0, openmp_copy_if, {}, true});
#endif
}

}  // namespace
CLFORGE_BENCH_REGISTER(register_cases);
}  // namespace clforge_bench
