// SPDX-License-Identifier: MIT
// Array expressions and random numbers, float32:
//   expr_axpbypc   z = a*x + b*y + c (12 B/element: read x, y, write z)
//                  clforge: cf::assign(q, z, a * x + b * y + c), one fused generated kernel
//   expr_dot       sum(x * y) (8 B/element), result on the host
//                  clforge: cf::sum(q, x * y), the product fused into the reduction's map
//   philox_uniform uniform floats in [0, 1) from Philox4x32-10 (4 B/element written)
//                  clforge: cf::random::uniform(q, x, seed)
//   philox_normal  normal floats (mean 0, sd 1) from the same blocks, cf::random::normal
//                  (bench/peer_random_pyopencl.py times PyOpenCL's normal fill on the same device)
// references:
//   handwritten    plain OpenCL kernels written for the job (below), raw C API launches
//   openmp         an OpenMP loop on the host (CPU devices only), for philox the same
//                  generator and mapping as clforge::random (so the same numbers)
// Element-wise jobs are timed by the kernel's profiling event; expr_dot on the host clock from
// the first enqueue until the result is in host memory, for every impl alike.
#include <chrono>
#include <cstdint>
#include <memory>

#include "harness.hpp"

#ifdef CLFORGE_BENCH_HAVE_OPENMP
#include <omp.h>
#endif

namespace clforge_bench {
namespace {

const char* kHandwrittenExpressions = R"CLC(
kernel void axpbypc(const float a, global const float* x, const float b, global const float* y,
                    const float c, global float* z, const ulong n)
{
  const size_t i = get_global_id(0);
  if (i < n) z[i] = a * x[i] + b * y[i] + c;
}

// CPU: one work-item per contiguous chunk, 16 products at a time in a float16 accumulator.
kernel void dot_chunks(global const float* x, global const float* y, const ulong n,
                       const ulong chunk, global float* partials)
{
  const ulong g = get_global_id(0);
  const ulong begin = g * chunk, end = min(begin + chunk, n);
  float16 acc = (float16)(0.0f);
  ulong i = begin;
  for (; i + 16 <= end; i += 16) acc += vload16(0, x + i) * vload16(0, y + i);
  float s = 0.0f;
  for (; i < end; ++i) s += x[i] * y[i];
  const float8 h8 = acc.lo + acc.hi;
  const float4 h4 = h8.lo + h8.hi;
  partials[g] = s + (h4.x + h4.y) + (h4.z + h4.w);
}

// GPU: a fixed number of groups, float4 grid-stride loop, a tree in local memory.
kernel void dot_stage1(global const float4* x, global const float4* y, const ulong n4,
                       global float* partials, local float* scratch)
{
  float s = 0.0f;
  for (size_t i = get_global_id(0); i < n4; i += get_global_size(0)) {
    const float4 v = x[i] * y[i];
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

// One group adds the partials.
kernel void add_partials(global const float* partials, const ulong count, global float* result,
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
template <class T>
void set(cl_kernel k, cl_uint index, const T& value) {
  check(clSetKernelArg(k, index, sizeof(T), &value), "clSetKernelArg");
}

struct two_arrays {
  cf::array<float> x, y, z;
};
std::shared_ptr<two_arrays> inputs(std::size_t n, bool with_z) {
  auto d = std::make_shared<two_arrays>();
  d->x = cf::array<float>::from_host(queue(), random_floats(n, 11));
  d->y = cf::array<float>::from_host(queue(), random_floats(n, 12));
  if (with_z) d->z = cf::array<float>(queue(), n);
  return d;
}

run_fn clforge_axpbypc(std::size_t n) {
  auto d = inputs(n, true);
  return [d] {
    const float a = 2.0f, b = -0.5f, c = 0.25f;
    return device_seconds(cf::assign(queue(), d->z, a * d->x + b * d->y + c));
  };
}
run_fn handwritten_axpbypc(std::size_t n) {
  auto d = inputs(n, true);
  cf::kernel k = ctx().build(kHandwrittenExpressions).kernel("axpbypc");
  return [d, k, n] {
    cl_kernel h = k.cl()();
    set(h, 0, 2.0f);
    set(h, 1, d->x.get());
    set(h, 2, -0.5f);
    set(h, 3, d->y.get());
    set(h, 4, 0.25f);
    set(h, 5, d->z.get());
    set(h, 6, cl_ulong(n));
    const size_t local = device_is_cpu() ? 1024 : 256;
    const size_t global = (n + local - 1) / local * local;
    cl_event e = nullptr;
    check(clEnqueueNDRangeKernel(queue().get(), h, 1, nullptr, &global, &local, 0, nullptr, &e),
          "clEnqueueNDRangeKernel");
    return device_seconds(cf::event(cl::Event(e)));
  };
}

run_fn clforge_dot(std::size_t n) {
  auto d = inputs(n, false);
  return [d] {
    const auto t0 = std::chrono::steady_clock::now();
    volatile float s = cf::sum(queue(), d->x * d->y);
    (void)s;
    return seconds_since(t0);
  };
}
run_fn handwritten_dot(std::size_t n) {
  auto d = inputs(n, false);
  const bool cpu = device_is_cpu();
  cf::program p = ctx().build(kHandwrittenExpressions);
  cf::kernel stage1 = p.kernel(cpu ? "dot_chunks" : "dot_stage1");
  cf::kernel stage2 = p.kernel("add_partials");
  const std::size_t chunk = 65536;
  const std::size_t groups = cpu ? (n + chunk - 1) / chunk : 8 * ctx().info().compute_units;
  auto partials = std::make_shared<cf::array<float>>(queue(), groups);
  auto result = std::make_shared<cf::array<float>>(queue(), 1);
  return [=] {
    const auto t0 = std::chrono::steady_clock::now();
    cl_kernel h1 = stage1.cl()(), h2 = stage2.cl()();
    size_t global = 0, local = 0;
    if (cpu) {
      set(h1, 0, d->x.get());
      set(h1, 1, d->y.get());
      set(h1, 2, cl_ulong(n));
      set(h1, 3, cl_ulong(chunk));
      set(h1, 4, partials->get());
      global = groups;
      local = 1;
    } else {
      set(h1, 0, d->x.get());
      set(h1, 1, d->y.get());
      set(h1, 2, cl_ulong(n / 4));  // the bench's n is a multiple of 4
      set(h1, 3, partials->get());
      check(clSetKernelArg(h1, 4, 256 * sizeof(float), nullptr), "clSetKernelArg");
      local = 256;
      global = groups * local;
    }
    check(
        clEnqueueNDRangeKernel(queue().get(), h1, 1, nullptr, &global, &local, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
    const size_t local2 = cpu ? 64 : 256;
    set(h2, 0, partials->get());
    set(h2, 1, cl_ulong(groups));
    set(h2, 2, result->get());
    check(clSetKernelArg(h2, 3, local2 * sizeof(float), nullptr), "clSetKernelArg");
    check(clEnqueueNDRangeKernel(queue().get(), h2, 1, nullptr, &local2, &local2, 0, nullptr,
                                 nullptr),
          "clEnqueueNDRangeKernel");
    float s = 0;
    check(clEnqueueReadBuffer(queue().get(), result->get(), CL_TRUE, 0, sizeof s, &s, 0, nullptr,
                              nullptr),
          "clEnqueueReadBuffer");
    volatile float keep = s;
    (void)keep;
    return seconds_since(t0);
  };
}

run_fn clforge_philox(std::size_t n) {
  auto x = std::make_shared<cf::array<float>>(queue(), n);
  return [x] { return device_seconds(cf::random::uniform(queue(), *x, 2026)); };
}

run_fn clforge_philox_normal(std::size_t n) {
  auto x = std::make_shared<cf::array<float>>(queue(), n);
  return [x] { return device_seconds(cf::random::normal(queue(), *x, 2026)); };
}

#ifdef CLFORGE_BENCH_HAVE_OPENMP
run_fn openmp_axpbypc(std::size_t n) {
  auto x = std::make_shared<std::vector<float>>(random_floats(n, 11));
  auto y = std::make_shared<std::vector<float>>(random_floats(n, 12));
  auto z = std::make_shared<std::vector<float>>(n);
  return [x, y, z, n] {
    const auto t0 = std::chrono::steady_clock::now();
    const float a = 2.0f, b = -0.5f, c = 0.25f;
    const float *xs = x->data(), *ys = y->data();
    float* zs = z->data();
#pragma omp parallel for simd schedule(static)
    for (std::size_t i = 0; i < n; ++i) zs[i] = a * xs[i] + b * ys[i] + c;
    return seconds_since(t0);
  };
}
run_fn openmp_dot(std::size_t n) {
  auto x = std::make_shared<std::vector<float>>(random_floats(n, 11));
  auto y = std::make_shared<std::vector<float>>(random_floats(n, 12));
  return [x, y, n] {
    const auto t0 = std::chrono::steady_clock::now();
    const float *xs = x->data(), *ys = y->data();
    float s = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : s)
    for (std::size_t i = 0; i < n; ++i) s += xs[i] * ys[i];
    volatile float keep = s;
    (void)keep;
    return seconds_since(t0);
  };
}
// Philox4x32-10 with clforge::random's mapping (uniform floats in [0, 1)), one block of 4
// floats per iteration, written so the compiler can vectorize across blocks.
run_fn openmp_philox(std::size_t n) {
  auto out = std::make_shared<std::vector<float>>(n);
  return [out, n] {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t seed = 2026;
    float* o = out->data();
    const std::size_t blocks = n / 4;  // the bench's n is a multiple of 4
#pragma omp parallel for simd schedule(static)
    for (std::size_t b = 0; b < blocks; ++b) {
      std::uint32_t c0 = static_cast<std::uint32_t>(b), c1 = static_cast<std::uint32_t>(b >> 32),
                    c2 = 0, c3 = 0;
      std::uint32_t k0 = static_cast<std::uint32_t>(seed),
                    k1 = static_cast<std::uint32_t>(seed >> 32);
      for (int r = 0; r < 10; ++r) {
        const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c0;
        const std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * c2;
        const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1 ^ k0;
        const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3 ^ k1;
        c1 = static_cast<std::uint32_t>(p1);
        c3 = static_cast<std::uint32_t>(p0);
        c0 = n0;
        c2 = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
      }
      o[4 * b + 0] = static_cast<float>(c0 >> 8) * 0x1.0p-24f;
      o[4 * b + 1] = static_cast<float>(c1 >> 8) * 0x1.0p-24f;
      o[4 * b + 2] = static_cast<float>(c2 >> 8) * 0x1.0p-24f;
      o[4 * b + 3] = static_cast<float>(c3 >> 8) * 0x1.0p-24f;
    }
    return seconds_since(t0);
  };
}
#endif

void register_cases() {
  add_case({"expr_axpbypc", "clforge", 12.0, clforge_axpbypc});
  add_case({"expr_axpbypc", "handwritten", 12.0, handwritten_axpbypc});
  add_case({"expr_dot", "clforge", 8.0, clforge_dot});
  add_case({"expr_dot", "handwritten", 8.0, handwritten_dot});
  add_case({"philox_uniform", "clforge", 4.0, clforge_philox});
  add_case({"philox_normal", "clforge", 4.0, clforge_philox_normal});
#ifdef CLFORGE_BENCH_HAVE_OPENMP
  add_case({"expr_axpbypc", "openmp", 12.0, openmp_axpbypc, {}, true});
  add_case({"expr_dot", "openmp", 8.0, openmp_dot, {}, true});
  add_case({"philox_uniform", "openmp", 4.0, openmp_philox, {}, true});
#endif
}

}  // namespace
CLFORGE_BENCH_REGISTER(register_cases);
}  // namespace clforge_bench
