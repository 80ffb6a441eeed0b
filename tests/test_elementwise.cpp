// SPDX-License-Identifier: MIT
// elementwise_kernel against plain C++ loops on random data, on PoCL.
#include <gtest/gtest.h>

#include <clforge/clforge.hpp>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "shared_device.hpp"
#include "tune_env.hpp"

// Also checks that the tuning fields deprecated in 0.2 (kernel_options::shape,
// kernel_shape::parse, scan_options' tile and chunk fields) keep working until 0.3.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace cf = clforge;

namespace {

using clforge_test::ctx;
using clforge_test::q;

template <class T>
std::vector<T> random_vector(std::size_t n, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>)
      x = static_cast<T>(std::uniform_real_distribution<double>(-10, 10)(rng));
    else
      x = static_cast<T>(rng() % 100 + 1);  // small, nonzero, fits every integer type
  }
  return v;
}

const std::size_t kSizes[] = {0, 1, 2, 3, 255, 256, 257, 1021, 4099, 1000003};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const cf::error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(elementwise, saxpy_matches_reference_at_every_size) {
  cf::kernel_shape grid_stride = cf::kernel_shape::parse("gpu,local=64,groups_per_cu=2");
  cf::kernel_shape vec = cf::kernel_shape::parse("gpu,vec=4");
  cf::kernel_shape ilv = cf::kernel_shape::parse("gpu,local=64,ilv=4");
  cf::kernel_shape vload = cf::kernel_shape::parse("gpu,vload=4");
  for (auto shape :
       {cf::kernel_shape::cpu(), cf::kernel_shape::gpu(), grid_stride, vec, ilv, vload}) {
    cf::kernel_options o;
    o.name = "saxpy";
    o.shape = shape;
    cf::elementwise_kernel saxpy(ctx(), "float a, global const float* x, global float* y",
                                 "y[i] = a * x[i] + y[i]", o);
    for (std::size_t n : kSizes) {
      auto hx = random_vector<float>(n, 1), hy = random_vector<float>(n, 2);
      auto x = cf::array<float>::from_host(q(), hx);
      auto y = cf::array<float>::from_host(q(), hy);
      saxpy(q(), 2.5f, x, y);
      auto got = y.to_host(q());
      for (std::size_t i = 0; i < n; ++i) {
        float want = 2.5f * hx[i] + hy[i];
        ASSERT_NEAR(got[i], want, 1e-5f * (1 + std::abs(want)))
            << "shape " << saxpy.shape().describe() << " n=" << n << " i=" << i;
      }
    }
  }
}

TEST(elementwise, every_scalar_type) {
  // One kernel per type, a scalar argument of that type and n visible to the operation.
  auto check = [](auto tag) {
    using T = decltype(tag);
    const std::string t = cf::type_name<T>();
    cf::kernel_options o;
    o.name = "affine_" + t;
    cf::elementwise_kernel k(ctx(), t + " a, global const " + t + "* x, global " + t + "* y",
                             "y[i] = x[i] + a + (" + t + ")(n & 1)", o);
    const std::size_t n = 1021;
    auto hx = random_vector<T>(n, 3);
    auto x = cf::array<T>::from_host(q(), hx);
    cf::array<T> y(q(), n);
    k(q(), T(3), x, y);
    auto got = y.to_host(q());
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], static_cast<T>(hx[i] + T(3) + T(1))) << t << " i=" << i;
  };
  check(cl_char{});
  check(cl_uchar{});
  check(cl_short{});
  check(cl_ushort{});
  check(cl_int{});
  check(cl_uint{});
  check(cl_long{});
  check(cl_ulong{});
  check(cl_float{});
  if (ctx().info().has_fp64) check(cl_double{});
}

TEST(elementwise, double_without_fp64_is_a_clear_error) {
  if (ctx().info().has_fp64) GTEST_SKIP() << "device has fp64";
  std::string e = error_of([] { cf::elementwise_kernel(ctx(), "global double* y", "y[i] = 1"); });
  EXPECT_NE(e.find("double"), std::string::npos) << e;
}

TEST(elementwise, ranges_and_slices) {
  cf::kernel_options o;
  o.name = "mark";
  cf::elementwise_kernel mark(ctx(), "global int* y, int v", "y[i] += v", o);
  const std::size_t n = 1000;
  auto base = random_vector<int>(n, 4);
  struct c {
    cf::index_range r;
    std::vector<std::size_t> want;
  };
  auto python_slice = [&](std::int64_t start, std::int64_t stop, std::int64_t step) {
    // reference: Python's slice semantics, written out plainly
    std::int64_t len = n;
    auto fix = [&](std::int64_t v, bool is_start) {
      if (v == cf::slice_none) return step > 0 ? (is_start ? 0 : len) : (is_start ? len - 1 : -1);
      if (v < 0) v = std::max<std::int64_t>(v + len, step > 0 ? 0 : -1);
      return std::min<std::int64_t>(v, step > 0 ? len : len - 1);
    };
    std::vector<std::size_t> idx;
    for (std::int64_t i = fix(start, true); step > 0 ? i < fix(stop, false) : i > fix(stop, false);
         i += step)
      idx.push_back(static_cast<std::size_t>(i));
    return idx;
  };
  std::vector<c> cases = {
      {cf::range(10, 20), python_slice(10, 20, 1)},
      {cf::range(7), python_slice(0, 7, 1)},
      {cf::range(3, 900, 7), python_slice(3, 900, 7)},
      {cf::range(999, -1, -3), python_slice(999, cf::slice_none, -3)},
      {cf::slice(1, -1, 2), python_slice(1, -1, 2)},
      {cf::slice(-10, cf::slice_none, 1), python_slice(-10, cf::slice_none, 1)},
      {cf::slice(cf::slice_none, cf::slice_none, -1),
       python_slice(cf::slice_none, cf::slice_none, -1)},
      {cf::slice(-5, 2000, 3), python_slice(-5, 2000, 3)},
      {cf::slice(50, 10, 1), {}},
      {cf::slice(5000, 6000, 1), {}},
  };
  for (const auto& t : cases) {
    auto y = cf::array<int>::from_host(q(), base);
    mark(q(), t.r, y, 1000);
    auto got = y.to_host(q());
    std::vector<int> want = base;
    for (auto i : t.want) want[i] += 1000;
    ASSERT_EQ(got, want) << "range start " << t.r.start << " stop " << t.r.stop << " step "
                         << t.r.step;
  }
}

// Ranges and slices whose bounds or steps lie at the ends of int64: no arithmetic overflows,
// the indices are Python's, and a range past the arrays is a clear error.
TEST(elementwise, ranges_and_slices_at_the_ends_of_int64) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  cf::kernel_options o;
  o.name = "mark_extreme";
  cf::elementwise_kernel mark(ctx(), "global int* y, int v", "y[i] += v", o);
  const std::size_t n = 100;
  struct c {
    cf::index_range r;
    std::vector<std::size_t> want;
  };
  const std::vector<c> cases = {
      {cf::range(0, kMax, kMax), {0}},
      {cf::range(5, -1, kMin), {5}},
      {cf::range(99, -1, -kMax), {99}},
      {cf::range(7, 8, kMax), {7}},
      {cf::slice(0, kMax, kMax), {0}},
      {cf::slice(-kMax, kMax, kMax / 2), {0}},
      {cf::slice(kMax, -kMax, -kMax), {99}},
      {cf::slice(kMax, -kMax, kMin / 2), {99}},
      {cf::slice(3, kMax, kMax), {3}},
      {cf::slice(kMax, kMax, 1), {}},
      {cf::slice(-kMax, -kMax, -1), {}},
      {cf::slice(cf::slice_none, cf::slice_none, -kMax), {99}},
  };
  for (const auto& t : cases) {
    SCOPED_TRACE(testing::Message() << "start " << t.r.start << " stop " << t.r.stop << " step "
                                    << t.r.step << (t.r.is_slice ? " slice" : " range"));
    auto y = cf::array<int>::from_host(q(), std::vector<int>(n, 0));
    mark(q(), t.r, y, 1);
    std::vector<int> want(n, 0);
    for (std::size_t i : t.want) want[i] = 1;
    EXPECT_EQ(y.to_host(q()), want);
  }
  auto y = cf::array<int>::from_host(q(), std::vector<int>(n, 0));
  for (cf::index_range r : {cf::range(kMax, -1, -1), cf::range(0, kMax), cf::range(kMax - 1, kMax),
                            cf::range(kMax, kMax - 3, -1), cf::range(0, kMax, kMax / 2)})
    EXPECT_CLFORGE_ERROR(mark(q(), r, y, 1), {"mark_extreme", "100 elements"});
  EXPECT_EQ(y.to_host(q()), std::vector<int>(n, 0));
}

TEST(elementwise, gpu_variants_with_slices_and_the_index) {
  // vec (consecutive indices per work-item) and ilv (a group apart) over strided slices, with
  // an operation that uses i and n itself.
  for (const char* text : {"gpu,vec=8", "gpu,vec=2", "gpu,local=32,ilv=8", "gpu,ilv=2"}) {
    cf::kernel_options o;
    o.name = "variant";
    o.shape = cf::kernel_shape::parse(text);
    cf::elementwise_kernel k(ctx(), "global const int* x, global long* y",
                             "y[i] = x[i] * 3 + (long)i * 1000 + (long)n", o);
    for (std::size_t len : {std::size_t(1), std::size_t(37), std::size_t(5000)}) {
      auto hx = random_vector<int>(len, 5);
      auto x = cf::array<int>::from_host(q(), hx);
      for (auto r : {cf::slice(cf::slice_none, cf::slice_none, 1), cf::slice(1, -2, 3),
                     cf::slice(-1, cf::slice_none, -2)}) {
        std::vector<long long> want(len, -7);
        auto y = cf::array<cl_long>::from_host(q(), std::vector<cl_long>(len, -7));
        // Python slice semantics, as resolved by clforge
        std::vector<std::size_t> visited;
        const std::int64_t L = static_cast<std::int64_t>(len);
        auto norm = [&](std::int64_t v, std::int64_t omitted, std::int64_t lo, std::int64_t hi) {
          if (v == cf::slice_none) return omitted;
          if (v < 0) v = std::max(v + L, lo);
          return std::min(v, hi);
        };
        const std::int64_t lo = r.step > 0 ? 0 : -1, hi = r.step > 0 ? L : L - 1;
        const std::int64_t start = norm(r.start, r.step > 0 ? lo : hi, lo, hi);
        const std::int64_t stop = norm(r.stop, r.step > 0 ? hi : lo, lo, hi);
        for (std::int64_t i = start; r.step > 0 ? i < stop : i > stop; i += r.step)
          visited.push_back(static_cast<std::size_t>(i));
        for (std::size_t i : visited)
          want[i] = hx[i] * 3LL + static_cast<long long>(i) * 1000 + (long long)visited.size();
        k(q(), r, x, y);
        auto got = y.to_host(q());
        for (std::size_t i = 0; i < len; ++i)
          ASSERT_EQ(got[i], want[i]) << text << " len=" << len << " step=" << r.step << " i=" << i;
      }
    }
  }
}

TEST(elementwise, vectorized_operations_and_their_fallbacks) {
  auto make = [](const char* args, const char* op, unsigned width) {
    cf::kernel_options o;
    o.name = "vectorized";
    o.shape = cf::kernel_shape::parse("gpu,vload=" + std::to_string(width));
    return cf::elementwise_kernel(ctx(), args, op, o);
  };
  // qualifies: runs on vectors for step-1 calls starting at a multiple of the width
  auto saxpy = make("float a, global const float* x, global float* y", "y[i] = a * x[i] + y[i]", 4);
  EXPECT_EQ(saxpy.shape().vload, 4u);
  EXPECT_NE(saxpy.source().find("float4 clforge_v_x"), std::string::npos);
  const std::size_t n = 1003;
  auto hx = random_vector<float>(n, 31), hy = random_vector<float>(n, 32);
  auto x = cf::array<float>::from_host(q(), hx);
  for (auto r : {cf::slice(cf::slice_none, cf::slice_none), cf::slice(1, cf::slice_none),
                 cf::slice(8, -5), cf::slice(0, cf::slice_none, 2)}) {
    auto y = cf::array<float>::from_host(q(), hy);
    saxpy(q(), r, 1.5f, x, y);
    auto got = y.to_host(q());
    const std::size_t begin = r.start == cf::slice_none ? 0 : std::size_t(r.start);
    const std::size_t end = r.stop == cf::slice_none ? n : n + r.stop;
    for (std::size_t i = 0; i < n; ++i) {
      const bool visited = i >= begin && i < end && (i - begin) % r.step == 0;
      const float want = visited ? 1.5f * hx[i] + hy[i] : hy[i];
      ASSERT_NEAR(got[i], want, 1e-5f * (1 + std::abs(want))) << "start " << r.start << " i=" << i;
    }
  }
  // written array passed twice: the scalar kernel keeps statement order per index
  auto two = make("global float* x, global float* y, global float* z",
                  "y[i] = 2.0f * x[i]; z[i] = x[i] + 1.0f", 4);
  EXPECT_EQ(two.shape().vload, 4u);
  {
    auto a = cf::array<float>::from_host(q(), hx), z = cf::array<float>::from_host(q(), hy);
    two(q(), a, a, z);
    auto got_a = a.to_host(q()), got_z = z.to_host(q());
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got_a[i], 2.0f * hx[i]) << i;
      ASSERT_EQ(got_z[i], 2.0f * hx[i] + 1.0f) << i;
    }
  }
  // integers, width 8, write-only output
  auto ints = make("global const int* x, global int* y, int k", "y[i] = x[i] * 3 - k", 8);
  EXPECT_EQ(ints.shape().vload, 8u);
  {
    auto hi = random_vector<int>(n, 33);
    auto xi = cf::array<int>::from_host(q(), hi), yi = cf::array<int>(q(), n);
    ints(q(), xi, yi, 7);
    auto got = yi.to_host(q());
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], hi[i] * 3 - 7) << i;
  }
  // does not qualify (comparison, the index itself): the scalar kernels. fma of a scalar and
  // vectors may not compile as a vector form: then the scalar kernels, same results.
  EXPECT_EQ(
      make("global const float* x, global float* y", "y[i] = x[i] > 0 ? 1 : 0", 4).shape().vload,
      0u);
  EXPECT_EQ(make("global float* y", "y[i] = i", 4).shape().vload, 0u);
  auto fallback =
      make("float a, global const float* x, global float* y", "y[i] = fma(a, x[i], y[i])", 4);
  // (PoCL's compiler accepts this vector form; others fall back to the scalar kernels)
  {
    auto y = cf::array<float>::from_host(q(), hy);
    fallback(q(), 1.5f, x, y);
    auto got = y.to_host(q());
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_NEAR(got[i], std::fma(1.5f, hx[i], hy[i]), 1e-4f) << i;
  }
}

TEST(elementwise, preamble_struct_and_helper) {
  struct point {
    float x, y;
  };
  cf::kernel_options o;
  o.name = "norms";
  o.preamble =
      "typedef struct { float x, y; } point;\n"
      "inline float norm2(point p) { return p.x * p.x + p.y * p.y; }";
  cf::elementwise_kernel k(ctx(),
                           "global const float* px, global const float* py, global float* out",
                           "point p = {px[i], py[i]};\n  out[i] = norm2(p)", o);
  const std::size_t n = 257;
  auto hx = random_vector<float>(n, 5), hy = random_vector<float>(n, 6);
  auto x = cf::array<float>::from_host(q(), hx), y = cf::array<float>::from_host(q(), hy);
  cf::array<float> out(q(), n);
  k(q(), x, y, out).wait();
  auto got = out.to_host(q());
  for (std::size_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(got[i], hx[i] * hx[i] + hy[i] * hy[i]);
}

TEST(elementwise, construction_builds_once_and_values_never_recompile) {
  cf::kernel_options o;
  o.name = "fill_value";
  cf::elementwise_kernel fill(ctx(), "global float* y, float v", "y[i] = v", o);
  auto before = ctx().program_cache_stats();
  cf::elementwise_kernel again(ctx(), "global float* y, float v", "y[i] = v", o);
  auto after = ctx().program_cache_stats();
  EXPECT_EQ(after.compiles, before.compiles);
  cf::array<float> y(q(), 100);
  for (float v : {1.0f, 2.0f, 3.0f}) {
    again(q(), y, v);
    EXPECT_EQ(y.to_host(q())[99], v);
  }
  EXPECT_EQ(ctx().program_cache_stats().compiles, after.compiles);
}

TEST(elementwise, parameter_named_n_hides_the_count) {
  cf::elementwise_kernel k(ctx(), "global int* y, int n", "y[i] = n + (int)clforge_n");
  cf::array<int> y(q(), 10);
  k(q(), y, 5);
  EXPECT_EQ(y.to_host(q())[3], 15);
}

TEST(elementwise, bad_input_is_a_clear_error) {
  cf::kernel_options o;
  o.name = "axpy";
  cf::elementwise_kernel k(ctx(), "float a, global const float* x, global float* y",
                           "y[i] = a * x[i] + y[i]", o);
  cf::array<float> x(q(), 100), y(q(), 100), short_y(q(), 50);
  std::string e = error_of([&] { k(q(), 1.0f, x); });
  EXPECT_NE(e.find("takes 3 argument"), std::string::npos) << e;
  EXPECT_NE(e.find("axpy"), std::string::npos) << e;
  e = error_of([&] { k(q(), 1.0f, 2.0f, y); });
  EXPECT_NE(e.find("argument 2 (x)"), std::string::npos) << e;
  e = error_of([&] { k(q(), x, x, y); });
  EXPECT_NE(e.find("argument 1 (a)"), std::string::npos) << e;
  e = error_of([&] { k(q(), 1.0f, x, short_y); });
  EXPECT_NE(e.find("(y) has 50 elements"), std::string::npos) << e;
  e = error_of([&] { k(q(), cf::range(0, 101), 1.0f, x, y); });
  EXPECT_NE(e.find("has 100 elements"), std::string::npos) << e;
  e = error_of([&] { k(q(), cf::slice(0, 10, 0), 1.0f, x, y); });
  EXPECT_NE(e.find("step of 0"), std::string::npos) << e;
  e = error_of([&] { cf::elementwise_kernel(ctx(), "global float* i", "i[0] = 1"); });
  EXPECT_NE(e.find("\"i\" is reserved"), std::string::npos) << e;
  cf::kernel_options bad;
  bad.name = "bad name";
  e = error_of([&] { cf::elementwise_kernel(ctx(), "global float* y", "y[i] = 1", bad); });
  EXPECT_NE(e.find("not a C identifier"), std::string::npos) << e;
}

TEST(elementwise, a_snippet_that_does_not_compile_shows_log_and_line) {
  cf::kernel_options o;
  o.name = "broken";
  std::string e = error_of(
      [&] { cf::elementwise_kernel(ctx(), "global float* y", "y[i] = undefined_thing * 2", o); });
  EXPECT_NE(e.find("clBuildProgram"), std::string::npos) << e;
  EXPECT_NE(e.find("undefined_thing"), std::string::npos) << e;
  EXPECT_NE(e.find(">>"), std::string::npos) << e;  // the quoted source line
}

TEST(elementwise, shape_from_options_and_environment) {
  auto s = cf::kernel_shape::parse("gpu,local=128,unroll=4,groups_per_cu=3");
  EXPECT_EQ(s.which, cf::kernel_shape::kind::gpu);
  EXPECT_EQ(s.local_size, 128u);
  EXPECT_EQ(s.unroll, 4u);
  EXPECT_EQ(s.groups_per_cu, 3u);
  EXPECT_EQ(cf::kernel_shape::parse("cpu").which, cf::kernel_shape::kind::cpu);
  EXPECT_THROW(cf::kernel_shape::parse("gpu,warp=32"), cf::error);
  EXPECT_THROW(cf::kernel_shape::parse("fast"), cf::error);

  // automatic follows the device, CLFORGE_TUNE overrides it, explicit options override both
  cf::kernel_options o;
  o.name = "shape_probe";
  // (Every table's automatic shape is of the gpu kind; the CPU table's has 8-wide vectors.)
  const cf::kernel_shape automatic =
      cf::elementwise_kernel(ctx(), "global int* y", "y[i] = 1", o).shape();
  EXPECT_EQ(automatic.which, cf::kernel_shape::kind::gpu);
  if (cf::tuning::table(ctx()) == "cpu") {
    EXPECT_EQ(automatic.vload, 8u);
  }
  std::optional<clforge_test::tune_env> tune(std::in_place, "elementwise:kind=gpu,group=256");
  cf::elementwise_kernel from_env(ctx(), "global int* y", "y[i] = 2", o);
  o.shape = cf::kernel_shape::cpu();
  cf::elementwise_kernel explicit_cpu(ctx(), "global int* y", "y[i] = 3", o);
  tune.reset();
  EXPECT_EQ(from_env.shape().which, cf::kernel_shape::kind::gpu);
  EXPECT_NE(from_env.source().find("policy: kind=gpu,group=256,"), std::string::npos);
  EXPECT_EQ(explicit_cpu.shape().which, cf::kernel_shape::kind::cpu);
  cf::array<int> y(q(), 3000);
  from_env(q(), y);
  for (int v : y.to_host(q())) ASSERT_EQ(v, 2);
}
