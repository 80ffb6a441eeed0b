// SPDX-License-Identifier: MIT
// Sorting and histograms: clforge::sort / sort_by_key of uint32 keys (and uint32 values) and
// clforge::histogram of floats into 256 bins, against std::sort and an OpenMP LSD radix sort
// (8-bit digits, parallel: per pass a histogram per thread, a scan of the (digit, thread) table,
// a scatter per thread) and OpenMP histograms (per-thread counts, summed; one estimating the bin,
// one with numpy's exact bins as clforge::histogram counts them) on CPU devices.
//
// Bytes per element count the keys only (4 for sort, 8 for key-value: key and value), so the
// GB/s column divided by 4 or 8 is GKeys/s. Each timed run first restores the unsorted input
// outside the timed region; the sort itself is timed on the host clock around the call and a
// finish (clforge::sort returns only its last event).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

#include "harness.hpp"

#ifdef CLFORGE_BENCH_HAVE_OPENMP
#include <omp.h>
#endif

namespace clforge_bench {
namespace {

std::vector<cl_uint> random_keys(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<cl_uint> keys(n);
  for (cl_uint& k : keys) k = rng();
  return keys;
}

template <class Body>
double host_seconds(Body&& body) {
  const auto t0 = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

run_fn clforge_sort(std::size_t n, bool with_values,
                    cf::sort_algorithm algorithm = cf::sort_algorithm::automatic) {
  auto pristine = std::make_shared<cf::array<cl_uint>>(
      cf::array<cl_uint>::from_host(queue(), random_keys(n, 21)));
  auto keys = std::make_shared<cf::array<cl_uint>>(queue(), n);
  auto values = std::make_shared<cf::array<cl_uint>>(queue(), with_values ? n : 0);
  auto scratch = std::make_shared<cf::sort_scratch>();
  return [=] {
    pristine->copy_to(queue(), *keys);
    queue().finish();
    cf::sort_options o;
    o.scratch = scratch.get();
    o.algorithm = algorithm;
    return host_seconds([&] {
      if (with_values)
        cf::sort_by_key(queue(), *keys, *values, o);
      else
        cf::sort(queue(), *keys, o);
      queue().finish();
    });
  };
}

// CLFORGE_BENCH_SORT_TUNES="chunk_digit_bits=11;chunks_per_cu=8" adds one impl per setting
// ("clforge_chunk_digit_bits=11", ...) to the sort_uint32 job: each sorts on a clforge context of
// its own over the same OpenCL context, with tuning::set(ctx, "sort", setting), so one run
// compares policies side by side.
run_fn clforge_sort_tuned(std::size_t n, const std::string& setting) {
  auto own = std::make_shared<cf::context>(cf::context::wrap(ctx().cl()(), ctx().device()()));
  cf::tuning::set(*own, "sort", setting);
  auto q = std::make_shared<cf::queue>(*own);
  auto pristine =
      std::make_shared<cf::array<cl_uint>>(cf::array<cl_uint>::from_host(*q, random_keys(n, 21)));
  auto keys = std::make_shared<cf::array<cl_uint>>(*q, n);
  auto scratch = std::make_shared<cf::sort_scratch>();
  return [=] {
    pristine->copy_to(*q, *keys);
    q->finish();
    cf::sort_options o;
    o.scratch = scratch.get();
    return host_seconds([&] {
      cf::sort(*q, *keys, o);
      q->finish();
    });
  };
}

std::vector<std::string> sort_tunes() {
  std::vector<std::string> out;
  const char* env = std::getenv("CLFORGE_BENCH_SORT_TUNES");
  if (!env) return out;
  std::string list = env, item;
  std::size_t start = 0;
  for (std::size_t pos = 0; pos <= list.size(); ++pos)
    if (pos == list.size() || list[pos] == ';') {
      item = list.substr(start, pos - start);
      if (!item.empty()) out.push_back(item);
      start = pos + 1;
    }
  return out;
}

run_fn std_sort(std::size_t n) {
  auto pristine = std::make_shared<std::vector<cl_uint>>(random_keys(n, 21));
  auto keys = std::make_shared<std::vector<cl_uint>>(n);
  return [=] {
    *keys = *pristine;
    return host_seconds([&] { std::sort(keys->begin(), keys->end()); });
  };
}

run_fn clforge_histogram(std::size_t n) {
  auto x = std::make_shared<cf::array<float>>(
      cf::array<float>::from_host(queue(), random_floats(n, 31, -1.0f, 1.0f)));
  return [x] {
    return host_seconds([&] {
      cf::array<cl_uint> counts = cf::histogram(queue(), *x, 256, -1.0f, 1.0f);
      queue().finish();
    });
  };
}

// Where histogram_256_float's time goes, on the same data: the kernel of clforge::histogram alone
// into counts zeroed once (its event: "clforge_kernel"; host clock around it and a finish:
// "clforge_kernel_host"), and a kernel that only estimates the bin (no edge test for the values
// near a border, so not numpy's bins: "estimate_kernel"). clforge minus clforge_kernel_host is
// the call's own work (the counts array, its fill, the ordering after them); clforge_kernel_host
// minus clforge_kernel the wait for the queue; clforge_kernel minus estimate_kernel the exact bins.
enum class histogram_part { kernel, kernel_host, estimate };

run_fn clforge_histogram_part(std::size_t n, histogram_part part) {
  auto x = std::make_shared<cf::array<float>>(
      cf::array<float>::from_host(queue(), random_floats(n, 31, -1.0f, 1.0f)));
  auto counts = std::make_shared<cf::array<cl_uint>>(queue(), 256);
  counts->fill(queue(), 0);
  if (part == histogram_part::estimate) {
    auto k = std::make_shared<cf::histogram_kernel>(ctx(), "global const float* x",
                                                    "(int)((x[i] + 1.0f) * 128.0f)", 256);
    return [x, counts, k, n] { return device_seconds(k->accumulate(queue(), *counts, n, *x)); };
  }
  return [x, counts, part] {
    if (part == histogram_part::kernel)
      return device_seconds(histogram_kernel_only(queue(), *counts, *x, 256, -1.0f, 1.0f));
    return host_seconds([&] {
      histogram_kernel_only(queue(), *counts, *x, 256, -1.0f, 1.0f);
      queue().finish();
    });
  };
}

#ifdef CLFORGE_BENCH_HAVE_OPENMP
// LSD radix sort, 8-bit digits, keys (and values) ping-ponged between two buffers; 4 passes, so
// the result ends in the input buffers.
void openmp_radix_sort(cl_uint* keys, cl_uint* keys_tmp, cl_uint* values, cl_uint* values_tmp,
                       std::size_t n) {
  const int threads = omp_get_max_threads();
  std::vector<std::size_t> offsets(256 * static_cast<std::size_t>(threads));
  for (int pass = 0; pass < 4; ++pass) {
    const unsigned shift = 8u * static_cast<unsigned>(pass);
#pragma omp parallel num_threads(threads)
    {
      const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
      const std::size_t count = static_cast<std::size_t>(omp_get_num_threads());
      const std::size_t begin = n * t / count, end = n * (t + 1) / count;
      std::size_t hist[256] = {};
      for (std::size_t i = begin; i < end; ++i) ++hist[(keys[i] >> shift) & 255u];
      for (std::size_t d = 0; d < 256; ++d) offsets[d * count + t] = hist[d];
#pragma omp barrier
#pragma omp single
      {
        std::size_t running = 0;
        for (std::size_t k = 0; k < 256 * count; ++k) {
          const std::size_t c = offsets[k];
          offsets[k] = running;
          running += c;
        }
      }
      std::size_t next[256];
      for (std::size_t d = 0; d < 256; ++d) next[d] = offsets[d * count + t];
      for (std::size_t i = begin; i < end; ++i) {
        const std::size_t to = next[(keys[i] >> shift) & 255u]++;
        keys_tmp[to] = keys[i];
        if (values) values_tmp[to] = values[i];
      }
    }
    std::swap(keys, keys_tmp);
    std::swap(values, values_tmp);
  }
}

run_fn openmp_sort(std::size_t n, bool with_values) {
  auto pristine = std::make_shared<std::vector<cl_uint>>(random_keys(n, 21));
  auto keys = std::make_shared<std::vector<cl_uint>>(n);
  auto tmp = std::make_shared<std::vector<cl_uint>>(n);
  auto values = std::make_shared<std::vector<cl_uint>>(with_values ? n : 0);
  auto values_tmp = std::make_shared<std::vector<cl_uint>>(with_values ? n : 0);
  return [=] {
    *keys = *pristine;
    return host_seconds([&] {
      openmp_radix_sort(keys->data(), tmp->data(), with_values ? values->data() : nullptr,
                        with_values ? values_tmp->data() : nullptr, n);
    });
  };
}

// 256 bins of [-1, 1], per-thread counts summed. Exact: the same job as clforge::histogram,
// numpy's bins (the estimate, then moved by one where the value lies below its bin's edge or at
// the next; the edges np.linspace(-1, 1, 257) as numpy computes them, in double, then float).
// Otherwise the estimate only, as a plain loop would count.
template <bool Exact>
run_fn openmp_histogram(std::size_t n) {
  auto x = std::make_shared<std::vector<float>>(random_floats(n, 31, -1.0f, 1.0f));
  auto counts = std::make_shared<std::vector<cl_uint>>(256);
  auto edges = std::make_shared<std::vector<float>>(257);
  for (int k = 0; k < 256; ++k) {
    volatile double product = k * (2.0 / 256);  // rounded apart, as numpy does: no fma
    (*edges)[k] = static_cast<float>(product - 1.0);
  }
  (*edges)[256] = 1.0f;
  return [=] {
    return host_seconds([&] {
      const float lo = -1.0f, hi = 1.0f;
      const float scale = 256.0f / (hi - lo);
      const float* v = x->data();
      const float* e = edges->data();
      std::fill(counts->begin(), counts->end(), 0u);
#pragma omp parallel
      {
        cl_uint mine[256] = {};
#pragma omp for nowait
        for (std::size_t i = 0; i < n; ++i) {
          const float value = v[i];
          if (!(value >= lo && value <= hi)) continue;
          long b = static_cast<long>((value - lo) * scale);
          b = b < 256 ? b : 255;
          if constexpr (Exact) b = b - (value < e[b]) + (b != 255 && value >= e[b + 1]);
          ++mine[b];
        }
        for (int b = 0; b < 256; ++b) {
#pragma omp atomic
          (*counts)[b] += mine[b];
        }
      }
    });
  };
}
#endif

void register_cases() {
  add_case({"sort_uint32", "clforge", 4.0, [](std::size_t n) { return clforge_sort(n, false); }});
  add_case(
      {"sort_by_key_uint32", "clforge", 8.0, [](std::size_t n) { return clforge_sort(n, true); }});
  add_case({"histogram_256_float", "clforge", 4.0, clforge_histogram});
  for (const auto& [impl, part] : {std::pair{"clforge_kernel", histogram_part::kernel},
                                   std::pair{"clforge_kernel_host", histogram_part::kernel_host},
                                   std::pair{"estimate_kernel", histogram_part::estimate}})
    add_case({"histogram_256_float", impl, 4.0,
              [part = part](std::size_t n) { return clforge_histogram_part(n, part); }});
  // Both algorithms forced, whatever the device's default (compare them on one device).
  add_case({"sort_uint32", "clforge_onesweep", 4.0,
            [](std::size_t n) { return clforge_sort(n, false, cf::sort_algorithm::onesweep); }});
  add_case({"sort_uint32", "clforge_chunked", 4.0,
            [](std::size_t n) { return clforge_sort(n, false, cf::sort_algorithm::chunked); }});
  add_case({"sort_uint32", "std_sort", 4.0, std_sort, {}, true});
  for (const std::string& setting : sort_tunes())
    add_case({"sort_uint32", "clforge_" + setting, 4.0,
              [setting](std::size_t n) { return clforge_sort_tuned(n, setting); }});
#ifdef CLFORGE_BENCH_HAVE_OPENMP
  add_case({"sort_uint32",
            "openmp_radix",
            4.0,
            [](std::size_t n) { return openmp_sort(n, false); },
            {},
            true});
  add_case({"sort_by_key_uint32",
            "openmp_radix",
            8.0,
            [](std::size_t n) { return openmp_sort(n, true); },
            {},
            true});
  add_case({"histogram_256_float", "openmp", 4.0, openmp_histogram<false>, {}, true});
  add_case({"histogram_256_float", "openmp_exact", 4.0, openmp_histogram<true>, {}, true});
#endif
}

}  // namespace
CLFORGE_BENCH_REGISTER(register_cases);
}  // namespace clforge_bench
