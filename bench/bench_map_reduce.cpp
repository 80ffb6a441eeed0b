// SPDX-License-Identifier: MIT
// Map and reduce: saxpy (12 B/element: read x and y, write y) and sum (4 B/element), float32.
//   clforge      elementwise_kernel / clforge::sum, the shape clforge picks for the device
//   handwritten  plain OpenCL kernels written for the job (below), launched with the raw C API
//                (saxpy: one float per work-item; handwritten_vec4: one float4 per work-item)
//   openmp       an OpenMP loop on the host (CPU devices only: it competes for the same cores)
// saxpy is timed by the kernel's profiling event. sum is timed on the host clock from the
// first enqueue until the result is in host memory, for every impl alike; sum/clforge_device is
// clforge::sum with its result left on the device (the overload that returns an event), timed on
// the device clock from a marker enqueued before it to the end of its last command: the measure
// of peers timed by events around the call (bench/peer_reduce_scan.py: CUB's DeviceReduce).
// sum/clforge_device_last times the last command alone: for a reduction in one launch, the same
// span without the marker, whose profiling start OpenCL leaves to the driver.
//
// CLFORGE_BENCH_SHAPES="gpu;gpu,unroll=8;cpu" adds one "clforge:<shape>" impl per listed shape
// (kernel_shape::parse grammar), to compare shapes in one run; "saxpy:<shape>" or "sum:<shape>"
// adds it to that job only (e.g. "saxpy:gpu,vec=4;sum:gpu,vec=4,unroll=4").
// handwritten_vec4 (saxpy) is the one-item-per-float4 kernel: what 16-byte accesses give.
#include <chrono>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "harness.hpp"

#ifdef CLFORGE_BENCH_HAVE_OPENMP
#include <omp.h>
#endif

namespace clforge_bench {
namespace {

// ---- hand-written kernels --------------------------------------------------------------------
const char* kHandwritten = R"CLC(
// y = a * x + y, one work-item per element.
kernel void saxpy(const float a, global const float* x, global float* y, const ulong n)
{
  const size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}

// y = a * x + y with 16-byte accesses: one float4 per work-item (n4 = n / 4; the bench's n is
// a multiple of 4). The reference for what vector accesses give on GPUs.
kernel void saxpy_vec4(const float a, global const float4* x, global float4* y, const ulong n4)
{
  const size_t i = get_global_id(0);
  if (i < n4) y[i] = a * x[i] + y[i];
}

// Sum for GPUs, stage 1: a fixed number of groups; each work-item reads float4s in a grid-stride
// loop, then a tree in local memory. n is a multiple of 4 here.
kernel void sum_stage1(global const float4* x, const ulong n4, global float* partials,
                       local float* scratch)
{
  float s = 0.0f;
  for (size_t i = get_global_id(0); i < n4; i += get_global_size(0)) {
    const float4 v = x[i];
    s += (v.x + v.y) + (v.z + v.w);
  }
  const size_t lid = get_local_id(0);
  scratch[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t w = get_local_size(0) / 2; w > 0; w /= 2) {
    if (lid < w) scratch[lid] += scratch[lid + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partials[get_group_id(0)] = scratch[0];
}

// Sum for CPUs, stage 1: one work-item per element, work-item 0 adds the group's values.
kernel void sum_stage1_cpu(global const float* x, const ulong n, global float* partials,
                           local float* scratch)
{
  const size_t i = get_global_id(0), lid = get_local_id(0);
  scratch[lid] = i < n ? x[i] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    float s = 0.0f;
    for (size_t j = 0; j < get_local_size(0); ++j) s += scratch[j];
    partials[get_group_id(0)] = s;
  }
}

// Stage 2: one group adds the partials.
kernel void sum_stage2(global const float* partials, const ulong count, global float* result,
                       local float* scratch)
{
  const size_t lid = get_local_id(0);
  float s = 0.0f;
  for (size_t i = lid; i < count; i += get_local_size(0)) s += partials[i];
  scratch[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t w = get_local_size(0) / 2; w > 0; w /= 2) {
    if (lid < w) scratch[lid] += scratch[lid + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) result[0] = scratch[0];
}
)CLC";

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void check(cl_int code, const char* what) {
  if (code != CL_SUCCESS) throw cf::error(what, code);
}

struct saxpy_data {
  cf::array<float> x, y;
};
std::shared_ptr<saxpy_data> saxpy_inputs(std::size_t n) {
  auto d = std::make_shared<saxpy_data>();
  d->x = cf::array<float>::from_host(queue(), random_floats(n, 1));
  d->y = cf::array<float>::from_host(queue(), random_floats(n, 2));
  return d;
}

run_fn clforge_saxpy(std::size_t n, cf::kernel_shape shape) {
  auto d = saxpy_inputs(n);
  cf::kernel_options o;
  o.name = "saxpy";
  o.shape = shape;
  auto k = std::make_shared<cf::elementwise_kernel>(
      ctx(), "const float a, global const float* x, global float* y", "y[i] = a * x[i] + y[i]", o);
  return [d, k] { return device_seconds((*k)(queue(), 2.0f, d->x, d->y)); };
}

run_fn handwritten_saxpy(std::size_t n, bool vec4) {
  auto d = saxpy_inputs(n);
  cf::kernel k = ctx().build(kHandwritten).kernel(vec4 ? "saxpy_vec4" : "saxpy");
  if (vec4) n /= 4;
  return [d, k, n] {
    cl_kernel h = k.cl()();
    const float a = 2.0f;
    const cl_ulong count = n;
    cl_mem x = d->x.get(), y = d->y.get();
    check(clSetKernelArg(h, 0, sizeof a, &a), "clSetKernelArg");
    check(clSetKernelArg(h, 1, sizeof x, &x), "clSetKernelArg");
    check(clSetKernelArg(h, 2, sizeof y, &y), "clSetKernelArg");
    check(clSetKernelArg(h, 3, sizeof count, &count), "clSetKernelArg");
    const size_t local = device_is_cpu() ? 1024 : 256;
    const size_t global = (n + local - 1) / local * local;
    cl_event e = nullptr;
    check(clEnqueueNDRangeKernel(queue().get(), h, 1, nullptr, &global, &local, 0, nullptr, &e),
          "clEnqueueNDRangeKernel");
    return device_seconds(cf::event(cl::Event(e)));
  };
}

run_fn clforge_sum(std::size_t n, cf::kernel_shape shape, bool automatic) {
  auto x =
      std::make_shared<cf::array<float>>(cf::array<float>::from_host(queue(), random_floats(n, 3)));
  if (automatic) {
    return [x] {
      const auto t0 = std::chrono::steady_clock::now();
      volatile float s = cf::sum(queue(), *x);
      (void)s;
      return seconds_since(t0);
    };
  }
  cf::reduction_options o;
  o.name = "sum_variant";
  o.shape = shape;
  auto k = std::make_shared<cf::reduction_kernel<float>>(ctx(), "global const float* x", "x[i]",
                                                         "a + b", "0.0f", o);
  return [x, k] {
    const auto t0 = std::chrono::steady_clock::now();
    volatile float s = (*k)(queue(), *x);
    (void)s;
    return seconds_since(t0);
  };
}

// cf::sum's device-result form (the same built-in as the host-result row) on the device clock:
// from a marker enqueued before the call (with_marker) or from the start of the call's last
// command (a single-launch reduction's whole time: the marker's cross-check) to its end.
run_fn clforge_sum_device(std::size_t n, bool with_marker) {
  auto x =
      std::make_shared<cf::array<float>>(cf::array<float>::from_host(queue(), random_floats(n, 3)));
  auto result = std::make_shared<cf::array<float>>(queue(), 1);
  return [x, result, with_marker] {
    if (!with_marker) return device_seconds(cf::sum(queue(), *x, *result));
    cl_event m = nullptr;
    check(clEnqueueMarkerWithWaitList(queue().get(), 0, nullptr, &m),
          "clEnqueueMarkerWithWaitList");
    const cf::event before{cl::Event(m)};
    const cf::event last = cf::sum(queue(), *x, *result);
    return device_seconds(before, last);
  };
}

run_fn handwritten_sum(std::size_t n) {
  auto x =
      std::make_shared<cf::array<float>>(cf::array<float>::from_host(queue(), random_floats(n, 3)));
  const bool cpu = device_is_cpu();
  cf::program p = ctx().build(kHandwritten);
  cf::kernel stage1 = p.kernel(cpu ? "sum_stage1_cpu" : "sum_stage1");
  cf::kernel stage2 = p.kernel("sum_stage2");
  const size_t local = cpu ? 1024 : 256;
  const size_t groups = cpu ? (n + local - 1) / local : std::size_t(8) * ctx().info().compute_units;
  auto partials = std::make_shared<cf::array<float>>(queue(), groups);
  auto result = std::make_shared<cf::array<float>>(queue(), 1);
  return [=] {
    const auto t0 = std::chrono::steady_clock::now();
    cl_kernel h1 = stage1.cl()(), h2 = stage2.cl()();
    cl_mem xm = x->get(), pm = partials->get(), rm = result->get();
    const cl_ulong count = cpu ? n : n / 4, partial_count = groups;
    check(clSetKernelArg(h1, 0, sizeof xm, &xm), "clSetKernelArg");
    check(clSetKernelArg(h1, 1, sizeof count, &count), "clSetKernelArg");
    check(clSetKernelArg(h1, 2, sizeof pm, &pm), "clSetKernelArg");
    check(clSetKernelArg(h1, 3, local * sizeof(float), nullptr), "clSetKernelArg");
    const size_t global = groups * local;
    check(
        clEnqueueNDRangeKernel(queue().get(), h1, 1, nullptr, &global, &local, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
    check(clSetKernelArg(h2, 0, sizeof pm, &pm), "clSetKernelArg");
    check(clSetKernelArg(h2, 1, sizeof partial_count, &partial_count), "clSetKernelArg");
    check(clSetKernelArg(h2, 2, sizeof rm, &rm), "clSetKernelArg");
    check(clSetKernelArg(h2, 3, local * sizeof(float), nullptr), "clSetKernelArg");
    check(
        clEnqueueNDRangeKernel(queue().get(), h2, 1, nullptr, &local, &local, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
    float s = 0;
    check(clEnqueueReadBuffer(queue().get(), rm, CL_TRUE, 0, sizeof s, &s, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
    volatile float keep = s;
    (void)keep;
    return seconds_since(t0);
  };
}

#ifdef CLFORGE_BENCH_HAVE_OPENMP
run_fn openmp_saxpy(std::size_t n) {
  auto x = std::make_shared<std::vector<float>>(random_floats(n, 1));
  auto y = std::make_shared<std::vector<float>>(random_floats(n, 2));
  return [x, y, n] {
    const auto t0 = std::chrono::steady_clock::now();
    const float a = 2.0f;
    const float* xs = x->data();
    float* ys = y->data();
#pragma omp parallel for simd schedule(static)
    for (std::size_t i = 0; i < n; ++i) ys[i] = a * xs[i] + ys[i];
    return seconds_since(t0);
  };
}
run_fn openmp_sum(std::size_t n) {
  auto x = std::make_shared<std::vector<float>>(random_floats(n, 3));
  return [x, n] {
    const auto t0 = std::chrono::steady_clock::now();
    const float* xs = x->data();
    float s = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : s)
    for (std::size_t i = 0; i < n; ++i) s += xs[i];
    volatile float keep = s;
    (void)keep;
    return seconds_since(t0);
  };
}
#endif

void register_cases() {
  add_case({"saxpy", "clforge", 12.0,
            [](std::size_t n) { return clforge_saxpy(n, cf::kernel_shape{}); }});
  add_case(
      {"saxpy", "handwritten", 12.0, [](std::size_t n) { return handwritten_saxpy(n, false); }});
  add_case({"saxpy", "handwritten_vec4", 12.0,
            [](std::size_t n) { return handwritten_saxpy(n, true); }});
  add_case({"sum", "clforge", 4.0,
            [](std::size_t n) { return clforge_sum(n, cf::kernel_shape{}, true); }});
  add_case(
      {"sum", "clforge_device", 4.0, [](std::size_t n) { return clforge_sum_device(n, true); }});
  add_case({"sum", "clforge_device_last", 4.0,
            [](std::size_t n) { return clforge_sum_device(n, false); }});
  add_case({"sum", "handwritten", 4.0, handwritten_sum});
#ifdef CLFORGE_BENCH_HAVE_OPENMP
  add_case({"saxpy", "openmp", 12.0, openmp_saxpy, {}, true});
  add_case({"sum", "openmp", 4.0, openmp_sum, {}, true});
#endif
  // Shape variants for comparisons: CLFORGE_BENCH_SHAPES="gpu;gpu,unroll=8;cpu".
  if (const char* list = std::getenv("CLFORGE_BENCH_SHAPES")) {
    std::istringstream in(list);
    for (std::string text; std::getline(in, text, ';');) {
      if (text.empty()) continue;
      // "saxpy:<shape>" or "sum:<shape>" adds the variant to that job only
      std::string job;
      for (const char* j : {"saxpy:", "sum:"})
        if (text.rfind(j, 0) == 0) job = std::string(j, std::string(j).size() - 1);
      const std::string shape_text = job.empty() ? text : text.substr(job.size() + 1);
      const cf::kernel_shape shape = cf::kernel_shape::parse(shape_text);
      const std::string impl = "clforge:" + shape_text;
      if (job != "sum")
        add_case({"saxpy", impl, 12.0, [shape](std::size_t n) { return clforge_saxpy(n, shape); }});
      if (job != "saxpy")
        add_case(
            {"sum", impl, 4.0, [shape](std::size_t n) { return clforge_sum(n, shape, false); }});
    }
  }
}

}  // namespace
CLFORGE_BENCH_REGISTER(register_cases);
}  // namespace clforge_bench
