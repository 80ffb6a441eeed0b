// SPDX-License-Identifier: MIT
// Array expressions (clforge/array_expr.hpp) and views against host loops on random data.
#include <gtest/gtest.h>

#include <clforge/clforge.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "shared_device.hpp"

namespace cf = clforge;
using clforge_test::ctx;
using clforge_test::q;

namespace {

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed, double lo, double hi) {
  std::mt19937_64 gen(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>)
      x = static_cast<T>(std::uniform_real_distribution<double>(lo, hi)(gen));
    else
      x = static_cast<T>(std::uniform_int_distribution<long long>(static_cast<long long>(lo),
                                                                  static_cast<long long>(hi))(gen));
  }
  return v;
}

/// Programs the context built or fetched (compiles + disk + memory hits).
std::size_t programs_built() {
  cf::cache_stats s = ctx().program_cache_stats();
  return s.compiles + s.disk_hits + s.memory_hits;
}

/// |a - b| in units of the float spacing at b (the exact result's ulp).
double ulps(double device, double reference, bool single) {
  if (std::isnan(reference)) return std::isnan(device) ? 0 : 1e30;
  if (std::isinf(reference)) return device == reference ? 0 : 1e30;
  int exponent = 0;
  std::frexp(reference, &exponent);
  const int mantissa = single ? 24 : 53;
  const int min_exponent = single ? -125 : -1021;
  const double ulp = std::ldexp(1.0, std::max(exponent, min_exponent) - mantissa);
  return std::fabs(device - reference) / ulp;
}

const std::size_t kSizes[] = {0, 1, 1023, 1024, 1025};

}  // namespace

// Every arithmetic operator, comparison and logical operator on integers: exact, several sizes
// (0, 1, the CPU work-group size 1024 +- 1).
TEST(Expressions, IntegerOperatorsExact) {
  for (std::size_t n : kSizes) {
    auto hx = random_values<cl_int>(n, 1, -1000, 1000);
    auto hy = random_values<cl_int>(n, 2, 1, 50);
    auto x = cf::array<cl_int>::from_host(q(), hx);
    auto y = cf::array<cl_int>::from_host(q(), hy);
    cf::array<cl_int> z(q(), n);
    // one kernel per statement; each statement mixes several operators
    z = (x + y) * 3 - x / y + x % y - (-x);
    auto hz = z.to_host(q());
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(hz[i], (hx[i] + hy[i]) * 3 - hx[i] / hy[i] + hx[i] % hy[i] - (-hx[i])) << i;
    z = (x < y) + 2 * (x <= y) + 4 * (x > 7) + 8 * (x >= y) + 16 * (x == y) + 32 * (x != 3) +
        64 * ((x > 0) && (y > 10)) + 128 * ((x > 0) || (y > 10)) + 256 * !(x > 0);
    hz = z.to_host(q());
    for (std::size_t i = 0; i < n; ++i) {
      const int a = hx[i], b = hy[i];
      const int expect = (a < b) + 2 * (a <= b) + 4 * (a > 7) + 8 * (a >= b) + 16 * (a == b) +
                         32 * (a != 3) + 64 * ((a > 0) && (b > 10)) + 128 * ((a > 0) || (b > 10)) +
                         256 * !(a > 0);
      ASSERT_EQ(hz[i], expect) << i;
    }
  }
}

// C's usual arithmetic conversions: the result types on the host and the values on the device.
TEST(Expressions, MixedTypesFollowC) {
  const std::size_t n = 1000;
  auto hc = random_values<cl_char>(n, 3, -100, 100);
  auto hu = random_values<cl_uint>(n, 4, 0, 4000000000.0);
  auto hl = random_values<cl_long>(n, 5, -1e12, 1e12);
  auto hs = random_values<cl_ushort>(n, 6, 0, 65535);
  auto c = cf::array<cl_char>::from_host(q(), hc);
  auto u = cf::array<cl_uint>::from_host(q(), hu);
  auto l = cf::array<cl_long>::from_host(q(), hl);
  auto s = cf::array<cl_ushort>::from_host(q(), hs);

  static_assert(std::is_same_v<decltype(cf::eval(q(), c + c))::value_type, cl_int>);
  static_assert(std::is_same_v<decltype(cf::eval(q(), c * u))::value_type, cl_uint>);
  static_assert(std::is_same_v<decltype(cf::eval(q(), c * u + l))::value_type, cl_long>);
  static_assert(std::is_same_v<decltype(cf::eval(q(), s * 2.5f))::value_type, cl_float>);
  static_assert(std::is_same_v<decltype(cf::eval(q(), c < u))::value_type, cl_int>);

  // char * uint wraps in 32-bit unsigned arithmetic, then widens to long
  auto r = cf::eval(q(), c * u + l - s * 3 + 7u);
  auto hr = r.to_host(q());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hr[i], hc[i] * hu[i] + hl[i] - hs[i] * 3 + 7u) << i;

  // signed/unsigned comparison as in C: -1 < 1u is false
  auto cmp = cf::eval(q(), c < u);
  auto hcmp = cmp.to_host(q());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hcmp[i], hc[i] < hu[i] ? 1 : 0) << i;

  // float from integers and a float scalar; assigned into a double array (converted)
  cf::array<double> d(q(), n);
  if (ctx().info().has_fp64) {
    d = s * 2.5f + c;
    auto hd = d.to_host(q());
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hd[i], double(hs[i] * 2.5f + hc[i])) << i;
  }
  // float expression assigned into an int array: C's conversion (towards zero)
  cf::array<cl_int> k(q(), n);
  k = s * 0.5f - 100.25f;
  auto hk = k.to_host(q());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hk[i], static_cast<cl_int>(hs[i] * 0.5f - 100.25f));
}

// Floating arithmetic, where and cast. OpenCL rounds float + - * correctly but allows 2.5 ulp for
// a division (without -cl-fp32-correctly-rounded-divide-sqrt) and contracts a * b + c into a fused
// multiply-add by default (FP_CONTRACT): a few ulp of the host's result are accepted.
TEST(Expressions, FloatArithmeticWhereCast) {
  for (std::size_t n : kSizes) {
    auto hx = random_values<float>(n, 7, -10, 10);
    auto hy = random_values<float>(n, 8, 0.5, 4);
    auto x = cf::array<float>::from_host(q(), hx);
    auto y = cf::array<float>::from_host(q(), hy);
    cf::array<float> z(q(), n);
    z = cf::where(x > 0.0f, x * y, -x / y) + 0.5f;
    auto hz = z.to_host(q());
    for (std::size_t i = 0; i < n; ++i) {
      const float want = (hx[i] > 0.0f ? hx[i] * hy[i] : -hx[i] / hy[i]) + 0.5f;
      const float ulp = std::nextafter(std::fabs(want), INFINITY) - std::fabs(want);
      ASSERT_LE(std::fabs(hz[i] - want), 4 * ulp) << i << ": " << hz[i] << " vs " << want;
    }
    auto k = cf::eval(q(), cf::cast<cl_int>(x * 10.0f) % 7);
    static_assert(std::is_same_v<decltype(k)::value_type, cl_int>);
    auto hk = k.to_host(q());
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hk[i], static_cast<cl_int>(hx[i] * 10.0f) % 7);
  }
}

// Every math function against the host's double result, within the OpenCL ulp bounds for float
// (plus slack: PoCL may use its own implementations). One kernel per group of functions: a
// selector array picks the function per element through a chain of where().
TEST(Expressions, MathFunctionsWithinUlpBounds) {
  const std::size_t n = 4000;
  auto hx = random_values<float>(n, 9, -0.95, 0.95);
  auto hp = random_values<float>(n, 10, 0.05, 8);  // positive
  auto hsel = random_values<cl_int>(n, 11, 0, 11);
  auto x = cf::array<float>::from_host(q(), hx);
  auto p = cf::array<float>::from_host(q(), hp);
  auto sel = cf::array<cl_int>::from_host(q(), hsel);

  struct fn {
    double (*host)(double, double);
    double ulp_bound;
  };
  // group 1: functions of x in (-0.95, 0.95)
  auto g1 = cf::eval(
      q(),
      cf::where(
          sel == 0, cf::sin(x),
          cf::where(
              sel == 1, cf::cos(x),
              cf::where(
                  sel == 2, cf::tan(x),
                  cf::where(
                      sel == 3, cf::asin(x),
                      cf::where(
                          sel == 4, cf::acos(x),
                          cf::where(
                              sel == 5, cf::atan(x),
                              cf::where(
                                  sel == 6, cf::sinh(x),
                                  cf::where(sel == 7, cf::cosh(x),
                                            cf::where(sel == 8, cf::tanh(x),
                                                      cf::where(sel == 9, cf::asinh(x),
                                                                cf::where(sel == 10, cf::atanh(x),
                                                                          cf::erf(x)))))))))))));
  const fn f1[] = {{[](double a, double) { return std::sin(a); }, 4},
                   {[](double a, double) { return std::cos(a); }, 4},
                   {[](double a, double) { return std::tan(a); }, 5},
                   {[](double a, double) { return std::asin(a); }, 4},
                   {[](double a, double) { return std::acos(a); }, 4},
                   {[](double a, double) { return std::atan(a); }, 5},
                   {[](double a, double) { return std::sinh(a); }, 4},
                   {[](double a, double) { return std::cosh(a); }, 4},
                   {[](double a, double) { return std::tanh(a); }, 5},
                   {[](double a, double) { return std::asinh(a); }, 4},
                   {[](double a, double) { return std::atanh(a); }, 5},
                   {[](double a, double) { return std::erf(a); }, 16}};
  auto h1 = g1.to_host(q());
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_LE(ulps(h1[i], f1[hsel[i]].host(hx[i], 0), true), f1[hsel[i]].ulp_bound + 2)
        << "function " << hsel[i] << " of " << hx[i] << ": " << h1[i];

  // group 2: functions of p in (0.05, 8)
  auto g2 = cf::eval(
      q(),
      cf::where(
          sel == 0, cf::exp(p),
          cf::where(
              sel == 1, cf::exp2(p),
              cf::where(
                  sel == 2, cf::exp10(p),
                  cf::where(
                      sel == 3, cf::expm1(p),
                      cf::where(
                          sel == 4, cf::log(p),
                          cf::where(
                              sel == 5, cf::log2(p),
                              cf::where(
                                  sel == 6, cf::log10(p),
                                  cf::where(
                                      sel == 7, cf::log1p(p),
                                      cf::where(sel == 8, cf::sqrt(p),
                                                cf::where(sel == 9, cf::rsqrt(p),
                                                          cf::where(sel == 10, cf::cbrt(p),
                                                                    cf::acosh(p + 1.0f)))))))))))));
  const fn f2[] = {{[](double a, double) { return std::exp(a); }, 3},
                   {[](double a, double) { return std::exp2(a); }, 3},
                   {[](double a, double) { return std::pow(10.0, a); }, 3},
                   {[](double a, double) { return std::expm1(a); }, 3},
                   {[](double a, double) { return std::log(a); }, 3},
                   {[](double a, double) { return std::log2(a); }, 3},
                   {[](double a, double) { return std::log10(a); }, 3},
                   {[](double a, double) { return std::log1p(a); }, 2},
                   {[](double a, double) { return std::sqrt(a); }, 3},
                   {[](double a, double) { return 1.0 / std::sqrt(a); }, 2},
                   {[](double a, double) { return std::cbrt(a); }, 2},
                   {[](double a, double) { return std::acosh(double(float(a + 1.0f))); }, 4}};
  auto h2 = g2.to_host(q());
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_LE(ulps(h2[i], f2[hsel[i]].host(hp[i], 0), true), f2[hsel[i]].ulp_bound + 2)
        << "function " << hsel[i] << " of " << hp[i] << ": " << h2[i];

  // group 3: two-argument functions and exact ones
  auto g3 = cf::eval(
      q(),
      cf::where(
          sel == 0, cf::pow(p, x),
          cf::where(
              sel == 1, cf::fmin(x, p - 4.0f),
              cf::where(
                  sel == 2, cf::fmax(x, p - 4.0f),
                  cf::where(
                      sel == 3, cf::hypot(x, p),
                      cf::where(
                          sel == 4, cf::atan2(x, p - 4.0f),
                          cf::where(
                              sel == 5, cf::fmod(p, x + 2.0f),
                              cf::where(
                                  sel == 6, cf::copysign(p, x),
                                  cf::where(
                                      sel == 7, cf::fdim(p, 4.0f),
                                      cf::where(sel == 8, cf::floor(p * x),
                                                cf::where(sel == 9, cf::ceil(p * x),
                                                          cf::where(sel == 10, cf::fabs(x),
                                                                    cf::trunc(p * x)))))))))))));
  auto h3 = g3.to_host(q());
  for (std::size_t i = 0; i < n; ++i) {
    const float a = hx[i], b = hp[i];
    double expect = 0, bound = 0;
    switch (hsel[i]) {
      case 0:
        expect = std::pow(double(b), double(a)), bound = 16;
        break;
      case 1:
        expect = std::fmin(a, b - 4.0f);
        break;
      case 2:
        expect = std::fmax(a, b - 4.0f);
        break;
      case 3:
        expect = std::hypot(double(a), double(b)), bound = 4;
        break;
      case 4:
        expect = std::atan2(double(a), double(b - 4.0f)), bound = 6;
        break;
      case 5:
        expect = std::fmod(b, a + 2.0f);
        break;
      case 6:
        expect = std::copysign(b, a);
        break;
      case 7:
        expect = std::fdim(b, 4.0f);
        break;
      case 8:
        expect = std::floor(b * a);
        break;
      case 9:
        expect = std::ceil(b * a);
        break;
      case 10:
        expect = std::fabs(a);
        break;
      default:
        expect = std::trunc(b * a);
        break;
    }
    ASSERT_LE(ulps(h3[i], expect, true), bound + (bound > 0 ? 2 : 0))
        << "function " << hsel[i] << " of " << a << ", " << b << ": " << h3[i];
  }

  // round, rint, abs, sinpi, cospi, tanpi, exp (integer argument: computed in double), lgamma,
  // tgamma, erfc
  auto g4 = cf::eval<float>(
      q(),
      cf::where(
          sel == 0, cf::round(p * x),
          cf::where(
              sel == 1, cf::rint(p * x),
              cf::where(sel == 2, cf::abs(x),
                        cf::where(sel == 3, cf::sinpi(x),
                                  cf::where(sel == 4, cf::cospi(x),
                                            cf::where(sel == 5, cf::tanpi(x * 0.4f),
                                                      cf::where(sel == 6, cf::tgamma(p),
                                                                cf::where(sel == 7, cf::lgamma(p),
                                                                          cf::erfc(x))))))))));
  auto h4 = g4.to_host(q());
  const double pi = 3.14159265358979323846;
  for (std::size_t i = 0; i < n; ++i) {
    const float a = hx[i], b = hp[i];
    double expect = 0, bound = 0, abs_slack = 0;
    switch (hsel[i]) {
      case 0:
        expect = std::round(b * a);
        break;
      case 1:
        expect = std::nearbyint(b * a);
        break;
      case 2:
        expect = std::fabs(a);
        break;
      case 3:
        expect = std::sin(pi * a), bound = 4, abs_slack = 1e-7;
        break;
      case 4:
        expect = std::cos(pi * a), bound = 4, abs_slack = 1e-7;
        break;
      case 5:
        expect = std::tan(pi * double(a * 0.4f)), bound = 6, abs_slack = 1e-7;
        break;
      case 6:
        expect = std::tgamma(double(b)), bound = 16;
        break;
      case 7:
        expect = std::lgamma(double(b)), abs_slack = 4e-6, bound = 16;
        break;
      default:
        expect = std::erfc(double(a)), bound = 16;
        break;
    }
    if (std::fabs(h4[i] - expect) <= abs_slack) continue;
    ASSERT_LE(ulps(h4[i], expect, true), bound + (bound > 0 ? 2 : 0))
        << "function " << hsel[i] << " of " << a << ", " << b << ": " << h4[i];
  }
}

// Double precision and integer arguments to math functions (computed in double, as C does).
TEST(Expressions, DoubleMathAndIntegerArguments) {
  if (!ctx().info().has_fp64) GTEST_SKIP() << "the device has no fp64";
  const std::size_t n = 1025;
  auto hx = random_values<double>(n, 12, 0.1, 3);
  auto hk = random_values<cl_int>(n, 13, 1, 100);
  auto x = cf::array<double>::from_host(q(), hx);
  auto k = cf::array<cl_int>::from_host(q(), hk);
  auto r = cf::eval(q(), cf::sqrt(k) + cf::log(x) * cf::exp(x) - cf::pow(x, 2.5) / cf::sin(k));
  static_assert(std::is_same_v<decltype(r)::value_type, double>);
  auto hr = r.to_host(q());
  for (std::size_t i = 0; i < n; ++i) {
    const double expect = std::sqrt(double(hk[i])) + std::log(hx[i]) * std::exp(hx[i]) -
                          std::pow(hx[i], 2.5) / std::sin(double(hk[i]));
    ASSERT_NEAR(hr[i], expect, 1e-12 * (1 + std::fabs(expect))) << i;
  }
}

// y = f(y, x) reads y[i] before writing y[i]: safe. The result runs on y's home queue.
TEST(Expressions, SelfAssignmentAndHomeQueue) {
  const std::size_t n = 2049;
  auto hx = random_values<float>(n, 14, -1, 1);
  auto hy = random_values<float>(n, 15, -1, 1);
  auto x = cf::array<float>::from_host(q(), hx);
  auto y = cf::array<float>::from_host(q(), hy);
  ASSERT_TRUE(y.has_home_queue());
  y = 2.0f * x + y * y;
  auto r = y.to_host(q());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(r[i], 2.0f * hx[i] + hy[i] * hy[i]) << i;

  // an explicit queue (out of order where the device has one)
  auto other = clforge_test::out_of_order_queue(ctx());
  const cf::queue& q2 = other ? *other : q();
  cf::assign(q2, y, y - 1.0f).wait();
  r = y.to_host(q());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(r[i], 2.0f * hx[i] + hy[i] * hy[i] - 1.0f) << i;
}

// 30 operands in one statement: one program; a new scalar value builds nothing.
TEST(Expressions, DeepExpressionIsOneKernelAndScalarsDoNotRebuild) {
  const std::size_t n = 777;
  auto ha = random_values<float>(n, 16, -1, 1);
  auto hb = random_values<float>(n, 17, -1, 1);
  auto a = cf::array<float>::from_host(q(), ha);
  auto b = cf::array<float>::from_host(q(), hb);
  cf::array<float> y(q(), n);
  auto run = [&](float s) {
    // 30 operands: 20 array reads, 10 scalars
    y = ((a + b * s) * (a - b) + (a * s - b) * (b + a * 0.5f)) -
        ((a * b + s) * (a - s) + (b * a - 0.25f) * (b + s)) + (a * 2.0f + b) * (a - b * 3.0f) +
        (a + b) * (a * s + b * 0.75f);
  };
  auto host = [&](std::size_t i, float s) {
    const float av = ha[i], bv = hb[i];
    return ((av + bv * s) * (av - bv) + (av * s - bv) * (bv + av * 0.5f)) -
           ((av * bv + s) * (av - s) + (bv * av - 0.25f) * (bv + s)) +
           (av * 2.0f + bv) * (av - bv * 3.0f) + (av + bv) * (av * s + bv * 0.75f);
  };
  const std::size_t before = programs_built();
  run(1.5f);
  EXPECT_EQ(programs_built() - before, 1u) << "a 30-operand statement builds one program";
  auto r = y.to_host(q());
  for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(r[i], host(i, 1.5f), 1e-5f) << i;
  const cf::cache_stats stats_before = ctx().program_cache_stats();
  run(-7.25f);
  const cf::cache_stats stats_after = ctx().program_cache_stats();
  EXPECT_EQ(stats_after.compiles + stats_after.disk_hits + stats_after.memory_hits,
            stats_before.compiles + stats_before.disk_hits + stats_before.memory_hits)
      << "a new scalar value must not build or even look up a program";
  r = y.to_host(q());
  for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(r[i], host(i, -7.25f), 1e-4f) << i;
}

// Views: Python slice rules, negative steps, views of views, views as targets; in reductions.
TEST(Expressions, ViewsWithNegativeStepsCompose) {
  const std::size_t n = 1001;
  auto hx = random_values<cl_int>(n, 18, -1000, 1000);
  auto x = cf::array<cl_int>::from_host(q(), hx);
  auto rev = x.view(cf::slice_none, cf::slice_none, -1);  // x[::-1]
  EXPECT_EQ(rev.size(), n);
  auto sub = rev.view(3, -2, 3);  // x[::-1][3:-2:3]
  std::vector<cl_int> hrev(hx.rbegin(), hx.rend()), hsub;
  for (std::size_t i = 3; i + 2 < n; i += 3) hsub.push_back(hrev[i]);
  ASSERT_EQ(sub.size(), hsub.size());
  auto e = cf::eval(q(), sub * 2 + 1);
  auto he = e.to_host(q());
  for (std::size_t i = 0; i < hsub.size(); ++i) ASSERT_EQ(he[i], hsub[i] * 2 + 1) << i;
  // sum and max over a view
  long long expect_sum = 0;
  for (cl_int v : hsub) expect_sum += v;
  EXPECT_EQ(cf::sum<cl_long>(q(), sub), expect_sum);
  EXPECT_EQ(cf::max(q(), sub), *std::max_element(hsub.begin(), hsub.end()));
  // empty and out-of-range views follow Python
  EXPECT_EQ(x.view(5, 2).size(), 0u);
  EXPECT_EQ(x.view(-5, 100000).size(), 5u);
  EXPECT_EQ(x.view(100000, cf::slice_none, -2).size(), (n + 1) / 2);
  EXPECT_THROW(x.view(0, 10, 0), cf::error);
  // a view as the target: odd elements = -even elements
  auto y = cf::array<cl_int>::from_host(q(), hx);
  auto odd = y.view(1, cf::slice_none, 2);
  auto even = x.view(0, static_cast<std::int64_t>(odd.size()) * 2, 2);
  odd = -even;
  auto hy = y.to_host(q());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hy[i], i % 2 ? -hx[i - 1] : hx[i]) << i;
}

namespace {
// Python's base[start:stop:step] of a list of buffer indices (start and stop slice_none:
// omitted; the step is a number). Computed in 128 bits: no bound or step overflows.
std::vector<std::int64_t> python_slice(const std::vector<std::int64_t>& base, std::int64_t start,
                                       std::int64_t stop, std::int64_t step) {
  using wide = __int128;
  const wide len = static_cast<wide>(base.size());
  const wide lower = step < 0 ? -1 : 0, upper = step < 0 ? len - 1 : len;
  auto clamp = [&](std::int64_t v, wide omitted) {
    if (v == cf::slice_none) return omitted;
    wide b = v;
    if (b < 0) {
      b += len;
      if (b < lower) b = lower;
    } else if (b > upper) {
      b = upper;
    }
    return b;
  };
  const wide first = clamp(start, step < 0 ? upper : lower);
  const wide end = clamp(stop, step < 0 ? lower : upper);
  std::vector<std::int64_t> out;
  for (wide k = first; step > 0 ? k < end : k > end; k += step)
    out.push_back(base[static_cast<std::size_t>(k)]);
  return out;
}
}  // namespace

// Steps and bounds at the ends of int64 (INT64_MIN as a step is a step, not an omitted one):
// views and views of views select Python's elements, and read them.
TEST(Expressions, ViewsWithExtremeStepsAndBoundsFollowPython) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  // The reported case: an empty view, as x[0:10:-2**63] is in Python.
  auto ten = cf::array<cl_int>::from_host(q(), std::vector<cl_int>(10, 1));
  EXPECT_EQ(ten.view(0, 10, kMin).size(), 0u);
  EXPECT_EQ(ten.view(0, 10, -kMax).size(), 0u);
  EXPECT_EQ(ten.view(cf::slice_none, cf::slice_none, kMin).size(), 1u);
  const std::int64_t steps[] = {kMin, -kMax, kMin / 2, -11, -10, -9,       -3,  -1,
                                1,    2,     9,        10,  11,  kMax / 2, kMax};
  const std::int64_t bounds[] = {cf::slice_none, -kMax, -11, -10, -1, 0, 3, 9, 10, 11, kMax};
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(10)}) {
    auto hx = random_values<cl_int>(n, 21, -1000, 1000);
    auto x = cf::array<cl_int>::from_host(q(), hx);
    std::vector<std::int64_t> all(n);
    for (std::size_t k = 0; k < n; ++k) all[k] = std::int64_t(k);
    // The array itself and views of it, each with the buffer indices it shows.
    std::vector<std::pair<cf::array_view<cl_int>, std::vector<std::int64_t>>> bases = {
        {x.view(cf::slice_none, cf::slice_none), all},
        {x.view(cf::slice_none, cf::slice_none, -1),
         python_slice(all, cf::slice_none, cf::slice_none, -1)},
        {x.view(1, cf::slice_none, 2), python_slice(all, 1, cf::slice_none, 2)},
        {x.view(0, 10, kMin), python_slice(all, 0, 10, kMin)},
        {x.view(cf::slice_none, cf::slice_none, kMin),
         python_slice(all, cf::slice_none, cf::slice_none, kMin)}};
    int checked = 0;
    for (const auto& [base, base_indices] : bases) {
      ASSERT_EQ(base.size(), base_indices.size()) << "n=" << n;
      for (std::int64_t step : steps)
        for (std::int64_t start : bounds)
          for (std::int64_t stop : bounds) {
            SCOPED_TRACE(testing::Message() << "n=" << n << " base of " << base.size() << " ["
                                            << start << ":" << stop << ":" << step << "]");
            const std::vector<std::int64_t> want = python_slice(base_indices, start, stop, step);
            const cf::array_view<cl_int> v = base.view(start, stop, step);
            ASSERT_EQ(v.size(), want.size());
            if (want.empty()) continue;
            std::vector<cl_int> values;
            for (std::int64_t k : want) values.push_back(hx[std::size_t(k)]);
            // Element k of the view is buffer element first + k * step.
            for (std::size_t k = 0; k < want.size(); ++k)
              ASSERT_EQ(v.first() + std::int64_t(k) * v.step(), want[k]) << "k=" << k;
            ASSERT_EQ(cf::eval(q(), v * 1).to_host(q()), values);
            ++checked;
          }
    }
    if (n == 10) EXPECT_GT(checked, 1000);
  }
}

// Reductions of expressions: sum, dot, min, max, reduce; sizes 0, 1, tile +- 1.
TEST(Expressions, FusedReductions) {
  for (std::size_t n : kSizes) {
    auto hx = random_values<cl_int>(n, 19, -100, 100);
    auto hy = random_values<cl_int>(n, 20, -100, 100);
    auto x = cf::array<cl_int>::from_host(q(), hx);
    auto y = cf::array<cl_int>::from_host(q(), hy);
    long long s = 0, d = 0, prod_or = 0;
    long long mx = std::numeric_limits<long long>::min(),
              mn = std::numeric_limits<long long>::max();
    for (std::size_t i = 0; i < n; ++i) {
      s += hx[i] * hy[i] + 1;
      d += static_cast<long long>(hx[i]) * (hy[i] - 1);
      mx = std::max<long long>(mx, hx[i] - hy[i]);
      mn = std::min<long long>(mn, hx[i] + 3 * hy[i]);
      prod_or |= hx[i] & 0xff;
    }
    EXPECT_EQ(cf::sum(q(), x * y + 1), s) << n;
    EXPECT_EQ(cf::dot(q(), cf::cast<cl_long>(x), y - 1), d) << n;
    EXPECT_EQ(cf::reduce(q(), x % 256 + 256 * (x % 256 < 0), "a | b", "0"), prod_or) << n;
    if (n > 0) {
      EXPECT_EQ(cf::max(q(), x - y), mx) << n;
      EXPECT_EQ(cf::min(q(), x + 3 * y), mn) << n;
    } else {
      EXPECT_THROW(cf::max(q(), x - y), cf::error);
    }
  }
  // float: sum(x * y) against a double reference
  const std::size_t n = 100000;
  auto hx = random_values<float>(n, 21, -1, 1);
  auto hy = random_values<float>(n, 22, -1, 1);
  auto x = cf::array<float>::from_host(q(), hx);
  auto y = cf::array<float>::from_host(q(), hy);
  double ref = 0, mag = 0;
  float fmx = -INFINITY;
  for (std::size_t i = 0; i < n; ++i) {
    ref += double(hx[i]) * hy[i];
    mag += std::fabs(double(hx[i]) * hy[i]);
    fmx = std::max(fmx, std::fabs(hx[i] - hy[i]));
  }
  EXPECT_NEAR(cf::sum(q(), x * y), ref, 2e-6 * mag);
  EXPECT_EQ(cf::max(q(), cf::fabs(x - y)), fmx);
}

// Bad input is a clforge::error naming the problem.
TEST(Expressions, BadInputIsAClearError) {
  auto a = cf::array<float>::from_host(q(), std::vector<float>(10, 1.0f));
  auto b = cf::array<float>::from_host(q(), std::vector<float>(11, 1.0f));
  cf::array<float> y(q(), 10);
  try {
    y = a + b;
    FAIL() << "different lengths must throw";
  } catch (const cf::error& e) {
    EXPECT_NE(std::string(e.what()).find("different lengths"), std::string::npos) << e.what();
  }
  cf::array<float> z(q(), 11);
  EXPECT_THROW(z = a * 2.0f, cf::error);  // target length differs
  EXPECT_THROW(cf::sum(q(), a + b), cf::error);

  // an array of another context
  cf::context other = cf::context(ctx().device());
  cf::queue other_q(other);
  auto c = cf::array<float>::from_host(other_q, std::vector<float>(10, 2.0f));
  try {
    y = a + c;
    FAIL() << "two contexts must throw";
  } catch (const cf::error& e) {
    EXPECT_NE(std::string(e.what()).find("another context"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cf::assign(other_q, y, a * 2.0f), cf::error);

  // an array made on a context has no home queue for `=`
  cf::array<float> no_queue(ctx(), 10);
  try {
    no_queue = a * 2.0f;
    FAIL() << "no home queue must throw";
  } catch (const cf::error& e) {
    EXPECT_NE(std::string(e.what()).find("home queue"), std::string::npos) << e.what();
  }
  cf::assign(q(), no_queue, a * 2.0f);  // fine with a queue
  EXPECT_EQ(no_queue.to_host(q())[3], 2.0f);
}

// The kernel cache belongs to the context: a context used for expressions is released (its
// programs and kernels too) when the last handle goes.
TEST(Expressions, CacheIsReleasedWithTheContext) {
  std::weak_ptr<void> cache;
  {
    cf::context local(ctx().device());
    cf::queue lq(local);
    auto a = cf::array<float>::from_host(lq, std::vector<float>(5, 1.0f));
    auto s = cf::sum(lq, a * 3.0f);  // a cached reduction kernel holds a handle to the context
    EXPECT_EQ(s, 15.0f);
    a = a + 1.0f;
    cache = local.attachment("clforge.expressions", [] { return std::shared_ptr<void>(); });
    EXPECT_FALSE(cache.expired());
    // Nothing may still run when the process exits: PoCL builds a kernel on its device thread
    // at first launch, and a build racing the exit crashed inside LLVM under AddressSanitizer.
    lq.finish();
  }
  EXPECT_TRUE(cache.expired()) << "the expression cache outlived its context";
}
