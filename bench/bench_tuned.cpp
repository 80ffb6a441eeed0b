// SPDX-License-Identifier: MIT
// Autotuned policies against the tuning tables, side by side in one run. Jobs tuned_saxpy,
// tuned_sum, tuned_scan_int32, tuned_mask_v24 (a 24-vertex polygon on a sqrt(n) x sqrt(n)
// image), tuned_sort_uint32 (the copy of the unsorted keys in, then the sort) and
// tuned_histogram_256: the workloads of clforge-tune, each with three implementations of the
// same template:
//   clforge  the policy in effect for the harness's context: the table, the results
//            clforge-tune stored (docs/tuning.md) and CLFORGE_TUNE, e.g. after
//            `CLFORGE_TUNE=table=generic clforge-tune --template all`, run with
//            CLFORGE_TUNE=table=generic to see what the tuner recovered from the generic table;
//   table    a context of its own on the device's table, stored results off (the defaults);
//   generic  a context of its own on the generic table, stored results off.
// The harness's side-by-side report gives time(table) / time(clforge), >1: the tuned run faster.
#include <chrono>
#include <cmath>
#include <memory>

#include "harness.hpp"

namespace clforge_bench {
namespace {

struct setup {
  cf::context ctx;
  cf::queue q;
};

// The harness's context, or one of its own with `table` and stored results off.
std::shared_ptr<setup> setup_for(const std::string& table) {
  if (table.empty()) return std::make_shared<setup>(setup{ctx(), queue()});
  cf::context own(ctx().device());
  cf::tuning::set(own, "table", table);
  cf::tuning::set(own, "tuned", "off");
  return std::make_shared<setup>(setup{own, cf::queue(own)});
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

run_fn saxpy_case(std::size_t n, const std::string& table) {
  auto s = setup_for(table);
  auto x =
      std::make_shared<cf::array<float>>(cf::array<float>::from_host(s->q, random_floats(n, 1)));
  auto y =
      std::make_shared<cf::array<float>>(cf::array<float>::from_host(s->q, random_floats(n, 2)));
  cf::kernel_options o;
  o.name = "tuned_saxpy";
  auto k = std::make_shared<cf::elementwise_kernel>(
      s->ctx, "const float a, global const float* x, global float* y", "y[i] = a * x[i] + y[i]", o);
  return [s, x, y, k] { return device_seconds((*k)(s->q, 2.0f, *x, *y)); };
}

run_fn sum_case(std::size_t n, const std::string& table) {
  auto s = setup_for(table);
  auto x =
      std::make_shared<cf::array<float>>(cf::array<float>::from_host(s->q, random_floats(n, 3)));
  cf::reduction_options o;
  o.name = "tuned_sum";
  auto k = std::make_shared<cf::reduction_kernel<float>>(s->ctx, "global const float* x", "x[i]",
                                                         "a + b", "0.0f", o);
  return [s, x, k] {
    const auto t0 = std::chrono::steady_clock::now();
    volatile float r = (*k)(s->q, *x);
    (void)r;
    return seconds_since(t0);
  };
}

run_fn scan_case(std::size_t n, const std::string& table) {
  auto s = setup_for(table);
  cf::scan_options o;
  o.name = "tuned_scan";
  auto k = std::make_shared<cf::scan_kernel<cl_int>>(
      s->ctx, "global const int* in, global int* out", "in[i]", "a + b", "0", "out[i] = item",
      cf::scan_kind::inclusive, o);
  auto in =
      std::make_shared<cf::array<cl_int>>(cf::array<cl_int>::from_host(s->q, random_ints(n, 42)));
  auto out = std::make_shared<cf::array<cl_int>>(s->q, n);
  return [s, k, in, out] {
    auto e = k->launch(s->q, *in, *out);
    return device_seconds(e.first, e.last);
  };
}

run_fn mask_case(std::size_t n, const std::string& table) {
  auto s = setup_for(table);
  const std::size_t side =
      static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(n))));
  auto masker = std::make_shared<cf::polygon_mask>(s->ctx);
  auto poly = std::make_shared<std::vector<cf::point2f>>(cf::random_star_polygon(24, side, 7));
  auto image = std::make_shared<cf::array<std::uint8_t>>(s->q, side * side);
  return [=] { return device_seconds(masker->mask_into(s->q, *poly, *image, side, side)); };
}

run_fn sort_case(std::size_t n, const std::string& table) {
  auto s = setup_for(table);
  std::vector<cl_uint> host(n);
  const std::vector<std::int32_t> ints = random_ints(n, 43, 0, 2147483647);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<cl_uint>(ints[i]);
  auto unsorted = std::make_shared<cf::array<cl_uint>>(cf::array<cl_uint>::from_host(s->q, host));
  auto keys = std::make_shared<cf::array<cl_uint>>(s->q, n);
  return [s, unsorted, keys] {
    const cf::event first = unsorted->copy_to(s->q, *keys);
    return device_seconds(first, cf::sort(s->q, *keys));
  };
}

run_fn histogram_case(std::size_t n, const std::string& table) {
  auto s = setup_for(table);
  auto x = std::make_shared<cf::array<float>>(
      cf::array<float>::from_host(s->q, random_floats(n, 44, 0.0f, 1.0f)));
  auto counts = std::make_shared<cf::array<cl_uint>>(s->q, 256);
  return [s, x, counts] {
    return device_seconds(histogram_kernel_only(s->q, *counts, *x, 256, 0.0f, 1.0f));
  };
}

void register_cases() {
  const std::pair<const char*, const char*> impls[] = {
      {"clforge", ""}, {"table", "auto"}, {"generic", "generic"}};
  for (const auto& [impl, table] : impls) {
    const std::string t = table;
    add_case({"tuned_saxpy", impl, 12.0, [t](std::size_t n) { return saxpy_case(n, t); }});
    add_case({"tuned_sum", impl, 4.0, [t](std::size_t n) { return sum_case(n, t); }});
    add_case({"tuned_scan_int32", impl, 8.0, [t](std::size_t n) { return scan_case(n, t); }});
    add_case({"tuned_mask_v24", impl, 1.0, [t](std::size_t n) { return mask_case(n, t); }});
    add_case({"tuned_sort_uint32", impl, 4.0, [t](std::size_t n) { return sort_case(n, t); }});
    add_case(
        {"tuned_histogram_256", impl, 4.0, [t](std::size_t n) { return histogram_case(n, t); }});
  }
}

}  // namespace
CLFORGE_BENCH_REGISTER(register_cases);
}  // namespace clforge_bench
