// SPDX-License-Identifier: MIT
// reduction_kernel and sum/dot/min/max/minmax against plain C++ references on random data.
#include <gtest/gtest.h>

#include <algorithm>
#include <clforge/clforge.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "shared_device.hpp"

// Also checks that the tuning fields deprecated in 0.2 (kernel_options::shape,
// kernel_shape::parse, scan_options' tile and chunk fields) keep working until 0.3.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace cf = clforge;

struct argmax_t {
  cl_float value;
  cl_uint index;
};
CLFORGE_DECLARE_TYPE(argmax_t, "argmax_t")

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
    else if constexpr (std::is_signed_v<T>)
      x = static_cast<T>(static_cast<std::int64_t>(rng() % 200) - 100);
    else
      x = static_cast<T>(rng() % 250 + 1);
  }
  return v;
}

const std::size_t kSizes[] = {0, 1, 2, 3, 255, 256, 257, 1021, 4099, 65537, 1000003};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const cf::error& e) {
    return e.what();
  }
  return "";
}

cf::reduction_options with_shape(const std::string& name, cf::kernel_shape shape,
                                 bool compensated = false) {
  cf::reduction_options o;
  o.name = name;
  o.shape = shape;
  o.compensated = compensated;
  return o;
}

// Documented accuracy (reduction.hpp): the plain sum stays within a few thousand eps of
// sum|x| in the worst case; random data does far better. These are the test tolerances.
constexpr double kPlainTolerance = 2e-6;        // relative to sum|x|
constexpr double kCompensatedTolerance = 2e-7;  // relative to sum|x|

}  // namespace

TEST(reduction, float_sum_and_dot_at_every_size_in_both_shapes) {
  // cpu,local=64: the CPU shape with several work-items (contiguous slices) per group
  for (auto shape : {cf::kernel_shape::cpu(), cf::kernel_shape::gpu(),
                     cf::kernel_shape::parse("cpu,local=64,unroll=4")}) {
    const std::string s = shape.which == cf::kernel_shape::kind::gpu ? "gpu"
                          : shape.local_size                         ? "cpu64"
                                                                     : "cpu";
    cf::reduction_kernel<float> dot(ctx(), "global const float* x, global const float* y",
                                    "x[i] * y[i]", "a + b", "0.0f", with_shape("dot_" + s, shape));
    cf::reduction_kernel<float> kahan(ctx(), "global const float* x", "x[i]", "a + b", "0.0f",
                                      with_shape("kahan_" + s, shape, true));
    for (std::size_t n : kSizes) {
      auto hx = random_vector<float>(n, 11), hy = random_vector<float>(n, 12);
      auto x = cf::array<float>::from_host(q(), hx), y = cf::array<float>::from_host(q(), hy);
      double want = 0, magnitude = 0, want_sum = 0, sum_magnitude = 0;
      for (std::size_t i = 0; i < n; ++i) {
        want += double(hx[i]) * hy[i];
        magnitude += std::abs(double(hx[i]) * hy[i]);
        want_sum += hx[i];
        sum_magnitude += std::abs(double(hx[i]));
      }
      EXPECT_NEAR(dot(q(), x, y), want, kPlainTolerance * magnitude + 1e-30) << s << " n=" << n;
      EXPECT_NEAR(kahan(q(), x), want_sum, kCompensatedTolerance * sum_magnitude + 1e-30)
          << s << " n=" << n;
    }
  }
}

TEST(reduction, vector_loads_for_a_plain_load_map) {
  // gpu,vec=W: the map x[i] is read as W-wide vectors where the range allows it (step 1, start
  // a multiple of W), the scalar kernel otherwise. Sums (plain and compensated), a min, and
  // narrow integer types; slices at aligned and unaligned starts; grid=1 (groups take turns over
  // blocks) for the compensated sum and the min.
  auto slices = {cf::slice(cf::slice_none, cf::slice_none), cf::slice(1, cf::slice_none),
                 cf::slice(4, -3), cf::slice(16, -1), cf::slice(0, cf::slice_none, 2)};
  {
    cf::reduction_kernel<float> sum(ctx(), "global const float* x", "x[i]", "a + b", "0.0f",
                                    with_shape("vsum", cf::kernel_shape::parse("gpu,vec=4")));
    cf::reduction_kernel<float> kahan(
        ctx(), "global const float* x", "x[i]", "a + b", "0.0f",
        with_shape("vkahan", cf::kernel_shape::parse("gpu,local=64,unroll=2,vec=8,grid=1"), true));
    cf::reduction_kernel<float> single(
        ctx(), "global const float* x", "x[i]", "a + b", "0.0f",
        with_shape("vsingle", cf::kernel_shape::parse("gpu,local=64,vec=4,single=1")));
    cf::reduction_kernel<float> lowest(
        ctx(), "global const float* x", "x[i]", "fmin(a, b)", "INFINITY",
        with_shape("vmin", cf::kernel_shape::parse("gpu,vec=4,grid=1,single=1")));
    EXPECT_NE(sum.source().find("vsum_vec"), std::string::npos);
    for (std::size_t n : kSizes) {
      auto h = random_vector<float>(n, 21);
      auto x = cf::array<float>::from_host(q(), h);
      for (auto r : slices) {
        const std::size_t begin = std::min<std::size_t>(
            n, static_cast<std::size_t>(r.start < 0                 ? 0
                                        : r.start == cf::slice_none ? 0
                                                                    : r.start));
        std::size_t end = n;
        if (r.stop != cf::slice_none)
          end = r.stop < 0 ? (n > std::size_t(-r.stop) ? n + r.stop : 0)
                           : std::min<std::size_t>(n, r.stop);
        double want = 0, magnitude = 0;
        float want_min = INFINITY;
        for (std::size_t i = begin; i < end; i += r.step) {
          want += h[i];
          magnitude += std::abs(double(h[i]));
          want_min = std::min(want_min, h[i]);
        }
        EXPECT_NEAR(sum(q(), r, x), want, kPlainTolerance * magnitude + 1e-30) << "n=" << n;
        EXPECT_NEAR(kahan(q(), r, x), want, kCompensatedTolerance * magnitude + 1e-30) << "n=" << n;
        EXPECT_EQ(lowest(q(), r, x), want_min) << "n=" << n << " start " << r.start;
        EXPECT_NEAR(single(q(), r, x), want, kPlainTolerance * magnitude + 1e-30) << "n=" << n;
      }
    }
  }
  cf::reduction_kernel<cl_uchar> bytes(ctx(), "global const uchar* x", "x[i]", "a ^ b", "0",
                                       with_shape("vxor", cf::kernel_shape::parse("gpu,vec=16")));
  cf::reduction_kernel<cl_long> longs(ctx(), "global const long* x", "(x[i])", "a + b", "0",
                                      with_shape("vlong", cf::kernel_shape::parse("gpu,vec=2")));
  for (std::size_t n : {std::size_t(1), std::size_t(17), std::size_t(4099), std::size_t(65537)}) {
    auto hb = random_vector<cl_uchar>(n, 22);
    auto hl = random_vector<cl_long>(n, 23);
    auto b = cf::array<cl_uchar>::from_host(q(), hb);
    auto l = cf::array<cl_long>::from_host(q(), hl);
    cl_uchar want_b = 0;
    for (auto v : hb) want_b ^= v;
    EXPECT_EQ(bytes(q(), b), want_b) << n;
    EXPECT_EQ(longs(q(), l), std::accumulate(hl.begin(), hl.end(), cl_long(0))) << n;
  }
}

TEST(reduction, vector_loads_for_maps_that_read_several_arrays_at_i) {
  // gpu,vec=W: a map that reads every array only at index i (of any scalar type, with i, n and
  // scalars beside) takes the vector kernel, evaluated lane by lane; exact integer results.
  cf::reduction_kernel<cl_long> mixed(
      ctx(), "global const int* x, global const short* y, long k", "(long)x[i] * y[i] + k * i - n",
      "a + b", "0", with_shape("vmixed", cf::kernel_shape::parse("gpu,local=64,vec=4,grid=1")));
  cf::reduction_kernel<cl_long> chunks(
      ctx(), "global const int* x, global const short* y, long k", "(long)x[i] * y[i] + k * i - n",
      "a + b", "0", with_shape("vchunks", cf::kernel_shape::parse("gpu,local=64,unroll=2,vec=8")));
  // x[i + 1] is another index: the scalar kernel runs (still right).
  cf::reduction_kernel<cl_long> shifted(ctx(), "global const int* x, global const short* y",
                                        "(long)x[i] * y[i] - x[i + 1]", "a + b", "0",
                                        with_shape("vshift", cf::kernel_shape::parse("gpu,vec=4")));
  EXPECT_NE(mixed.source().find("#define CLFORGE_VECTOR_WIDTH 4 "), std::string::npos);
  EXPECT_NE(chunks.source().find("#define CLFORGE_VECTOR_WIDTH 8 "), std::string::npos);
  EXPECT_NE(shifted.source().find("#define CLFORGE_VECTOR_WIDTH 1 "), std::string::npos);
  // Maps that store into an array or take an element's address keep the scalar kernel too.
  for (const char* map : {"(x[i] <<= 1)", "(x[i] >>= 1)", "*(&x[i])", "(x[i] |= 1)"}) {
    cf::reduction_kernel<cl_long> k(
        ctx(), "global int* x", map, "a + b", "0",
        with_shape("keeps_scalar", cf::kernel_shape::parse("gpu,vec=4")));
    EXPECT_NE(k.source().find("#define CLFORGE_VECTOR_WIDTH 1 "), std::string::npos) << map;
  }
  {
    // ... and their stores land: x doubles in place, the sum is of the doubled values.
    std::vector<int> hx(1003);
    for (std::size_t j = 0; j < hx.size(); ++j) hx[j] = int(j % 97) - 40;
    auto x = cf::array<int>::from_host(q(), hx);
    cf::reduction_kernel<cl_long> twice(ctx(), "global int* x", "(x[i] <<= 1)", "a + b", "0",
                                        with_shape("vtwice", cf::kernel_shape::parse("gpu,vec=4")));
    cl_long want = 0;
    for (int& v : hx) want += (v *= 2);
    EXPECT_EQ(twice(q(), x), want);
    EXPECT_EQ(x.to_host(q()), hx);
  }
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(3), std::size_t(4),
                        std::size_t(5), std::size_t(7), std::size_t(8), std::size_t(9),
                        std::size_t(4095), std::size_t(4097), std::size_t(65539)}) {
    auto hx = random_vector<cl_int>(n + 1, 31);
    auto hy = random_vector<cl_short>(n + 1, 32);
    auto x = cf::array<cl_int>::from_host(q(), hx);
    auto y = cf::array<cl_short>::from_host(q(), hy);
    const cl_long k = 7;
    for (std::size_t start : {std::size_t(0), std::size_t(1), std::size_t(4)}) {
      if (start > n) continue;
      cl_long want = 0, want_shifted = 0;
      for (std::size_t i = start; i < n; ++i) {
        want += cl_long(hx[i]) * hy[i] + k * cl_long(i) - cl_long(n - start);  // n: the count
        want_shifted += cl_long(hx[i]) * hy[i] - hx[i + 1];
      }
      const auto r = cf::range(start, n);
      EXPECT_EQ(mixed(q(), r, x, y, k), want) << "n=" << n << " start " << start;
      EXPECT_EQ(chunks(q(), r, x, y, k), want) << "n=" << n << " start " << start;
      EXPECT_EQ(shifted(q(), r, x, y), want_shifted) << "n=" << n << " start " << start;
    }
  }
}

TEST(reduction, builtins_sum_and_minmax_for_every_scalar_type) {
  auto check = [](auto tag) {
    using T = decltype(tag);
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(257), std::size_t(100003)}) {
      auto h = random_vector<T>(n, 21 + static_cast<std::uint32_t>(n));
      auto x = cf::array<T>::from_host(q(), h);
      if constexpr (std::is_floating_point_v<T>) {
        double want = 0, magnitude = 0;
        for (T v : h) want += v, magnitude += std::abs(double(v));
        EXPECT_NEAR(cf::sum(q(), x), want, kPlainTolerance * magnitude + 1e-30) << n;
      } else {
        std::uint64_t want = 0;  // integer sums wrap like C++ unsigned arithmetic
        for (T v : h) want += static_cast<std::uint64_t>(v);
        EXPECT_EQ(cf::sum(q(), x), static_cast<T>(want)) << cf::type_name<T>() << " n=" << n;
      }
      if (n == 0) {
        EXPECT_THROW(cf::minmax(q(), x), cf::error);
        continue;
      }
      auto [lo, hi] = cf::minmax(q(), x);
      EXPECT_EQ(lo, *std::min_element(h.begin(), h.end())) << cf::type_name<T>() << " n=" << n;
      EXPECT_EQ(hi, *std::max_element(h.begin(), h.end())) << cf::type_name<T>() << " n=" << n;
    }
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

TEST(reduction, min_max_dot_and_wide_sums) {
  const std::size_t n = 65537;
  auto hi = random_vector<cl_int>(n, 31);
  auto xi = cf::array<cl_int>::from_host(q(), hi);
  EXPECT_EQ(cf::min(q(), xi), *std::min_element(hi.begin(), hi.end()));
  EXPECT_EQ(cf::max(q(), xi), *std::max_element(hi.begin(), hi.end()));
  std::int64_t dot = 0;
  for (auto v : hi) dot += std::int64_t(v) * v;
  EXPECT_EQ(cf::dot(q(), xi, xi), static_cast<cl_int>(dot));

  // uchar summed into ulong does not wrap
  std::vector<cl_uchar> bytes(n);
  std::uint64_t want = 0;
  for (std::size_t i = 0; i < n; ++i) want += bytes[i] = static_cast<cl_uchar>(255 - i % 7);
  auto xb = cf::array<cl_uchar>::from_host(q(), bytes);
  EXPECT_EQ(cf::sum<cl_ulong>(q(), xb), want);

  auto hf = random_vector<float>(n, 32);
  auto xf = cf::array<float>::from_host(q(), hf);
  EXPECT_EQ(cf::min(q(), xf), *std::min_element(hf.begin(), hf.end()));
  EXPECT_EQ(cf::max(q(), xf), *std::max_element(hf.begin(), hf.end()));
  double dwant = 0, mag = 0;
  for (float v : hf) dwant += double(v) * v, mag += double(v) * v;
  EXPECT_NEAR(cf::dot(q(), xf, xf), dwant, kPlainTolerance * mag);
  EXPECT_NEAR(cf::sum(q(), xf, cf::summation::compensated),
              std::accumulate(hf.begin(), hf.end(), 0.0), 1e-7 * mag);
}

TEST(reduction, min_max_infinity_and_nan_rules) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto run = [](std::vector<float> h) {
    auto x = cf::array<float>::from_host(q(), h);
    auto mm = cf::minmax(q(), x);
    return std::vector<float>{cf::min(q(), x), cf::max(q(), x), mm.first, mm.second};
  };
  // NaN is ignored
  std::vector<float> h = random_vector<float>(5000, 41);
  h[17] = nan;
  h[4000] = nan;
  auto r = run(h);
  h.erase(h.begin() + 4000);
  h.erase(h.begin() + 17);
  const float lo = *std::min_element(h.begin(), h.end()),
              hi = *std::max_element(h.begin(), h.end());
  EXPECT_EQ(r, (std::vector<float>{lo, hi, lo, hi}));
  // infinities are ordinary values
  h[100] = -inf;
  h[200] = inf;
  EXPECT_EQ(run(h), (std::vector<float>{-inf, inf, -inf, inf}));
  h.assign(3000, -inf);
  EXPECT_EQ(run(h), (std::vector<float>{-inf, -inf, -inf, -inf}));
  // only NaN: NaN
  for (float v : run(std::vector<float>(300, nan))) EXPECT_TRUE(std::isnan(v));
  // a single NaN among one value
  EXPECT_EQ(run({nan, 3.0f}), (std::vector<float>{3, 3, 3, 3}));
  // empty: an error on the host path
  cf::array<float> empty(q(), 0);
  EXPECT_NE(error_of([&] { cf::min(q(), empty); }).find("empty"), std::string::npos);
  EXPECT_THROW(cf::max(q(), empty), cf::error);
}

TEST(reduction, slices_with_steps) {
  cf::reduction_kernel<cl_long> k(ctx(), "global const int* x", "(long)x[i] * (long)(i + 1)",
                                  "a + b", "0", with_shape("weighted", {}));
  const std::size_t n = 100003;
  auto h = random_vector<cl_int>(n, 51);
  auto x = cf::array<cl_int>::from_host(q(), h);
  auto ref = [&](std::int64_t start, std::int64_t stop, std::int64_t step) {
    std::int64_t s = 0;
    for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
      s += std::int64_t(h[i]) * (i + 1);
    return s;
  };
  const std::int64_t len = n;
  EXPECT_EQ(k(q(), x), ref(0, len, 1));
  EXPECT_EQ(k(q(), cf::slice(1, -1, 2), x), ref(1, len - 1, 2));
  EXPECT_EQ(k(q(), cf::slice(7, cf::slice_none, 1000), x), ref(7, len, 1000));
  EXPECT_EQ(k(q(), cf::slice(cf::slice_none, cf::slice_none, -3), x), ref(len - 1, -1, -3));
  EXPECT_EQ(k(q(), cf::slice(-500, -100, 1), x), ref(len - 500, len - 100, 1));
  EXPECT_EQ(k(q(), cf::range(10, 20), x), ref(10, 20, 1));
  EXPECT_EQ(k(q(), cf::slice(50, 10, 1), x), 0);
}

TEST(reduction, struct_argmax) {
  cf::reduction_options o;
  o.name = "argmax";
  o.preamble =
      "typedef struct { float value; uint index; } argmax_t;\n"
      "inline argmax_t argmax_pick(argmax_t a, argmax_t b) {\n"
      "  // larger value wins, the smaller index on ties\n"
      "  if (a.value > b.value || (a.value == b.value && a.index < b.index)) return a;\n"
      "  return b;\n"
      "}";
  for (auto shape :
       {cf::kernel_shape::cpu(), cf::kernel_shape::gpu(), cf::kernel_shape::parse("gpu,single=1"),
        cf::kernel_shape::parse("cpu,local=64,unroll=4")}) {
    o.shape = shape;
    cf::reduction_kernel<argmax_t> argmax(ctx(), "global const float* x",
                                          "(argmax_t){x[i], (uint)i}", "argmax_pick(a, b)",
                                          "(argmax_t){-INFINITY, 0xffffffffu}", o);
    for (std::size_t n : {std::size_t(1), std::size_t(257), std::size_t(1000003)}) {
      auto h = random_vector<float>(n, 61);
      if (n > 300) h[n / 3] = h[n / 2] = 50.0f;  // a tie: the first wins
      auto x = cf::array<float>::from_host(q(), h);
      argmax_t got = argmax(q(), x);
      auto best = std::max_element(h.begin(), h.end());
      EXPECT_EQ(got.index, static_cast<cl_uint>(best - h.begin())) << "n=" << n;
      EXPECT_EQ(got.value, *best);
      // kept on the device
      cf::array<argmax_t> r = argmax.on_device(q(), x);
      EXPECT_EQ(r.to_host(q())[0].index, got.index);
    }
  }
}

TEST(reduction, results_stay_on_the_device_for_chains) {
  // mean-centre: sum on the device, then an elementwise kernel reads it, no host round trip
  const std::size_t n = 4099;
  auto h = random_vector<float>(n, 71);
  auto x = cf::array<float>::from_host(q(), h);
  cf::array<float> total(q(), 1);
  cf::sum(q(), x, total);
  cf::kernel_options o;
  o.name = "centre";
  o.check_array_lengths = false;  // total has one element
  cf::elementwise_kernel centre(ctx(), "global float* x, global const float* total",
                                "x[i] -= total[0] / n", o);
  centre(q(), x, total);
  double mean = std::accumulate(h.begin(), h.end(), 0.0) / n;
  auto got = x.to_host(q());
  for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(got[i], h[i] - mean, 1e-4);
  // a reduction_kernel result kept on the device feeds the next one
  cf::reduction_kernel<float> sq(ctx(), "global const float* x", "x[i] * x[i]", "a + b", "0.0f",
                                 with_shape("squares", {}));
  cf::array<float> r(q(), 1);
  sq.into(q(), r, x);
  double want = 0;
  for (float v : got) want += double(v) * v;
  EXPECT_NEAR(r.to_host(q())[0], want, 1e-5 * want);
}

TEST(reduction, two_to_the_28_ones_sum_exactly) {
  const std::uint64_t n = std::uint64_t(1) << 28;
  for (bool compensated : {false, true})
    for (auto shape : {cf::kernel_shape::cpu(), cf::kernel_shape::gpu(),
                       cf::kernel_shape::parse("gpu,single=1")}) {
      cf::reduction_kernel<float> ones(
          ctx(), "", "1.0f", "a + b", "0.0f",
          with_shape(std::string("ones") + (compensated ? "_k" : ""), shape, compensated));
      EXPECT_EQ(ones(q(), cf::range(0, n)), float(n)) << shape.describe() << compensated;
    }
}

TEST(reduction, kernels_are_cached_and_values_never_recompile) {
  auto h = random_vector<float>(1000, 81);
  auto x = cf::array<float>::from_host(q(), h);
  cf::sum(q(), x);
  cf::min(q(), x);
  auto before = ctx().program_cache_stats();
  for (int k = 0; k < 3; ++k) {
    cf::sum(q(), x);
    cf::min(q(), x);
  }
  auto after = ctx().program_cache_stats();
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.memory_hits, before.memory_hits);  // not even a cache lookup

  cf::reduction_kernel<float> scaled(ctx(), "float s, global const float* x", "s * x[i]", "a + b",
                                     "0.0f", with_shape("scaled", {}));
  auto built = ctx().program_cache_stats();
  for (float s : {1.0f, 2.0f, -3.0f}) EXPECT_NEAR(scaled(q(), s, x), s * cf::sum(q(), x), 1e-3);
  EXPECT_EQ(ctx().program_cache_stats().compiles, built.compiles);
}

TEST(reduction, bad_input_is_a_clear_error) {
  cf::reduction_kernel<float> dot(ctx(), "global const float* x, global const float* y",
                                  "x[i] * y[i]", "a + b", "0.0f", with_shape("dot_checked", {}));
  cf::array<float> x(q(), 100), y(q(), 100), shorter(q(), 99);
  x.fill(q(), 1.0f);
  y.fill(q(), 2.0f);
  std::string e = error_of([&] { dot(q(), x); });
  EXPECT_NE(e.find("takes 2 argument"), std::string::npos) << e;
  EXPECT_NE(e.find("dot_checked"), std::string::npos) << e;
  e = error_of([&] { dot(q(), x, 2.0f); });
  EXPECT_NE(e.find("argument 2 (y) expects array<float>"), std::string::npos) << e;
  e = error_of([&] { dot(q(), x, shorter); });
  EXPECT_NE(e.find("has 99 elements"), std::string::npos) << e;
  e = error_of([&] { cf::dot(q(), x, shorter); });
  EXPECT_NE(e.find("x has 100 elements, y 99"), std::string::npos) << e;
  cf::array<int> ints(q(), 100);
  e = error_of([&] { dot(q(), x, ints); });
  EXPECT_NE(e.find("got array<int>"), std::string::npos) << e;
  e = error_of([&] {
    cf::reduction_kernel<int>(ctx(), "global const int* x", "x[i]", "a + b", "0",
                              with_shape("int_kahan", {}, true));
  });
  EXPECT_NE(e.find("compensated"), std::string::npos) << e;

  e = error_of([&] {
    cf::reduction_kernel<float>(ctx(), "global const float* x", "x[i] * missing_scale", "a + b",
                                "0.0f", with_shape("broken_map", {}));
  });
  EXPECT_NE(e.find("clBuildProgram"), std::string::npos) << e;
  EXPECT_NE(e.find("missing_scale"), std::string::npos) << e;
  // The line marked as the error's is the user's map (spliced on a line of its own).
  const std::size_t marked = e.find(">>");
  ASSERT_NE(marked, std::string::npos) << e;
  EXPECT_NE(e.substr(marked, e.find('\n', marked) - marked).find("x[i] * missing_scale"),
            std::string::npos)
      << e;
}

TEST(reduction, out_of_order_queue_keeps_calls_apart) {
  // The pooled partials and the single-launch counter are reused by the next call; on an
  // out-of-order queue barriers around each call keep that safe. Many calls back to back,
  // default and single-launch shapes, results read at the end.
  auto made = clforge_test::out_of_order_queue(ctx());
  if (!made) GTEST_SKIP() << "the device has no out-of-order queues";
  cf::queue& ooo = *made;
  for (auto shape : {cf::kernel_shape{}, cf::kernel_shape::parse("gpu,local=64,single=1"),
                     cf::kernel_shape::parse("gpu,local=64,vec=4,grid=1,single=1")}) {
    cf::reduction_options o;
    o.name = "ooo_sum";
    o.shape = shape;
    cf::reduction_kernel<cl_long> sum(ctx(), "global const int* x", "x[i]", "a + b", "0", o);
    const std::size_t n = 100'003;
    std::vector<cf::array<cl_int>> inputs;
    std::vector<cl_long> want;
    for (std::uint32_t k = 0; k < 6; ++k) {
      auto h = random_vector<cl_int>(n, 300 + k);
      inputs.push_back(cf::array<cl_int>::from_host(q(), h));
      want.push_back(std::accumulate(h.begin(), h.end(), cl_long(0)));
    }
    q().finish();
    std::vector<cf::array<cl_long>> results;
    for (int j = 0; j < 6 * 8; ++j) results.emplace_back(q(), 1);
    q().finish();
    for (std::size_t j = 0; j < results.size(); ++j) sum.into(ooo, results[j], inputs[j % 6]);
    ooo.finish();
    for (std::size_t j = 0; j < results.size(); ++j)
      EXPECT_EQ(results[j].to_host(q())[0], want[j % 6]) << shape.describe() << " call " << j;
    // and host results, each call's read following its kernels
    for (std::size_t k = 0; k < 6; ++k) EXPECT_EQ(sum(ooo, inputs[k]), want[k]);
  }
}
