// SPDX-License-Identifier: MIT
// Complex numbers: arrays of clforge::complex in expressions and sums against std::complex, and
// the OpenCL header in a user's snippet.
#include <gtest/gtest.h>

#include <clforge/clforge.hpp>

#include <cmath>
#include <complex>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "shared_device.hpp"

namespace cf = clforge;
using clforge_test::ctx;
using clforge_test::q;

namespace {
template <class F>
std::vector<std::complex<F>> random_complex(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(-2, 2);
  std::vector<std::complex<F>> v(n);
  for (auto& z : v) z = {static_cast<F>(d(gen)), static_cast<F>(d(gen))};
  return v;
}
template <class F>
void expect_close(std::complex<F> device, std::complex<double> expect, double rel, std::size_t i) {
  const double scale = 1 + std::abs(expect);
  ASSERT_NEAR(device.real(), expect.real(), rel * scale) << i;
  ASSERT_NEAR(device.imag(), expect.imag(), rel * scale) << i;
}
}  // namespace

static_assert(sizeof(cf::complex<float>) == 8 && alignof(cf::complex<float>) == 4);
static_assert(sizeof(cf::complex<double>) == 16);

TEST(Complex, ArithmeticAndFunctionsAgainstStdComplex) {
  for (std::size_t n : {0, 1, 1023, 1025}) {
    auto ha = random_complex<float>(n, 1), hb = random_complex<float>(n, 2);
    std::vector<float> hr(n);
    for (std::size_t i = 0; i < n; ++i) hr[i] = 0.5f + float(i % 7);
    auto a = cf::array<cf::complex<float>>::from_host(q(), ha);
    auto b = cf::array<cf::complex<float>>::from_host(q(), hb);
    auto r = cf::array<float>::from_host(q(), hr);
    const cf::complex<float> s(0.5f, -1.5f);
    // + - * / with complex arrays, real arrays and complex and real scalars; unary -
    auto e1 = cf::eval(q(), (a + b) * s - a / b + r * a - 2.0f + (-b) / r);
    static_assert(std::is_same_v<decltype(e1)::value_type, cf::complex<float>>);
    auto h1 = e1.to_host(q());
    for (std::size_t i = 0; i < n; ++i) {
      std::complex<double> A = ha[i], B = hb[i], S = s;
      expect_close(h1[i], (A + B) * S - A / B + double(hr[i]) * A - 2.0 + (-B) / double(hr[i]),
                   2e-5, i);
    }
    // exp log sqrt pow conj
    auto e2 = cf::eval(q(), cf::exp(a) + cf::log(b) * cf::sqrt(a) + cf::pow(a, b) - cf::conj(b));
    auto h2 = e2.to_host(q());
    for (std::size_t i = 0; i < n; ++i) {
      std::complex<double> A = ha[i], B = hb[i];
      expect_close(h2[i], std::exp(A) + std::log(B) * std::sqrt(A) + std::pow(A, B) - std::conj(B),
                   1e-4, i);
    }
    // abs arg real imag (real results)
    auto e3 = cf::eval(q(), cf::abs(a) * 1000.0f + cf::arg(b) * 10.0f + cf::real(a) - cf::imag(b));
    static_assert(std::is_same_v<decltype(e3)::value_type, float>);
    auto h3 = e3.to_host(q());
    for (std::size_t i = 0; i < n; ++i) {
      std::complex<double> A = ha[i], B = hb[i];
      ASSERT_NEAR(h3[i], std::abs(A) * 1000 + std::arg(B) * 10 + A.real() - B.imag(), 2e-3) << i;
    }
    // sum of a complex array and of a complex expression
    std::complex<double> sa = 0, sab = 0;
    for (std::size_t i = 0; i < n; ++i) {
      sa += std::complex<double>(ha[i]);
      sab += std::complex<double>(ha[i]) * std::complex<double>(hb[i]);
    }
    expect_close(cf::sum(q(), a), sa, 1e-5 * (1 + n), 0);
    expect_close(cf::dot(q(), a, b), sab, 1e-5 * (1 + n), 0);
  }
}

TEST(Complex, DoublePrecisionAndCasts) {
  if (!ctx().info().has_fp64) GTEST_SKIP() << "the device has no fp64";
  const std::size_t n = 1000;
  auto ha = random_complex<double>(n, 3);
  auto hf = random_complex<float>(n, 4);
  auto a = cf::array<cf::complex<double>>::from_host(q(), ha);
  auto f = cf::array<cf::complex<float>>::from_host(q(), hf);
  // complex<float> op complex<double> is complex<double>; cast narrows back
  auto w = cf::eval(q(), a * f + cf::cast<cf::complex<double>>(f) / 3.0);
  static_assert(std::is_same_v<decltype(w)::value_type, cf::complex<double>>);
  auto hw = w.to_host(q());
  for (std::size_t i = 0; i < n; ++i) {
    std::complex<double> F = hf[i];
    expect_close(hw[i], ha[i] * F + F / 3.0, 1e-12, i);
  }
  auto narrow = cf::eval(q(), cf::cast<cf::complex<float>>(a));
  auto hn = narrow.to_host(q());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hn[i], std::complex<float>(ha[i]));
}

TEST(Complex, HeaderInUserSnippets) {
  cf::kernel_options options;
  options.preamble = cf::complex_header();
  cf::elementwise_kernel k(ctx(), "global const cfloat_t* a, global cfloat_t* out",
                           "out[i] = cfloat_div(cfloat_mul(a[i], a[i]), cfloat_new(0.0f, 2.0f))",
                           options);
  auto ha = random_complex<float>(100, 5);
  auto a = cf::array<cf::complex<float>>::from_host(q(), ha);
  cf::array<cf::complex<float>> out(q(), 100);
  k(q(), a, out);
  auto h = out.to_host(q());
  for (std::size_t i = 0; i < 100; ++i) {
    std::complex<double> A = ha[i];
    expect_close(h[i], A * A / std::complex<double>(0, 2), 1e-5, i);
  }
}

// ---- special values: C99 Annex G on the device, as std::complex gives on the host -----------

namespace {

// The reals the special-value tests combine: zeros of both signs, ordinary values, values near
// the ends of the range, infinities and NaN.
template <class F>
std::vector<F> special_reals() {
  using lim = std::numeric_limits<F>;
  return {F(0),
          F(-0.0),
          F(1),
          F(-1),
          F(3.5),
          F(-0.25),
          lim::min() * 4,
          lim::max() / 2,
          -lim::max() / 2,
          lim::infinity(),
          -lim::infinity(),
          lim::quiet_NaN()};
}
// Every complex number with both parts from special_reals.
template <class F>
std::vector<std::complex<F>> special_complex() {
  std::vector<std::complex<F>> out;
  for (F x : special_reals<F>())
    for (F y : special_reals<F>()) out.emplace_back(x, y);
  return out;
}

// A device part against the host's: NaN against NaN, an infinity or a zero of the same sign,
// finite values within `tolerance` times the host result's modulus. `any_sign`: Annex G leaves
// the sign unspecified (zeros and infinities of either sign match).
template <class F>
bool part_matches(F device, F host, double modulus, double tolerance, bool any_sign) {
  if (std::isnan(host) || std::isnan(device)) return std::isnan(host) && std::isnan(device);
  if (std::isinf(host) || std::isinf(device))
    return device == host || (any_sign && std::isinf(host) && std::isinf(device));
  if (host == 0 && device == 0) return any_sign || std::signbit(host) == std::signbit(device);
  return std::abs(double(device) - double(host)) <= tolerance * modulus;
}

template <class F>
std::string show(std::complex<F> z) {
  std::ostringstream s;
  s.precision(std::numeric_limits<F>::max_digits10);
  s << "(" << z.real() << ", " << z.imag() << ")";
  return s.str();
}

// Compares results element by element; reports the first mismatches with their operands.
// `any_sign(i, imag)`: the sign of that part of result i is left open (see part_matches).
template <class F, class Operands>
void expect_parts_match(const char* what, const std::vector<std::complex<F>>& device,
                        const std::vector<std::complex<F>>& host, Operands operands,
                        double tolerance,
                        const std::function<bool(std::size_t, bool)>& any_sign = {}) {
  ASSERT_EQ(device.size(), host.size());
  std::size_t wrong = 0;
  std::string first;
  for (std::size_t i = 0; i < host.size(); ++i) {
    // Finite parts within tolerance of the modulus (of the part where the modulus overflows).
    const double modulus = std::abs(std::complex<double>(host[i]));
    auto scale = [&](F part) { return std::isfinite(modulus) ? modulus : std::abs(double(part)); };
    const bool free_re = any_sign && any_sign(i, false);
    const bool free_im = any_sign && any_sign(i, true);
    const bool re =
        part_matches(device[i].real(), host[i].real(), scale(host[i].real()), tolerance, free_re);
    const bool im =
        part_matches(device[i].imag(), host[i].imag(), scale(host[i].imag()), tolerance, free_im);
    // Annex G: a value with an infinite part is an infinity whatever its other part. Where both
    // are infinities with the same infinite part and either has a NaN as its other part, the
    // other parts are not compared: the device's infinite / finite division gives (inf, NaN)
    // for (8.98e307 + i inf) / (8.9e-308i), the host (inf, -inf) (8.98e307 / 8.9e-308 i
    // overflows beside the infinite part).
    const bool nan_beside_infinity =
        (re && std::isinf(host[i].real()) &&
         (std::isnan(host[i].imag()) || std::isnan(device[i].imag()))) ||
        (im && std::isinf(host[i].imag()) &&
         (std::isnan(host[i].real()) || std::isnan(device[i].real())));
    if ((re && im) || nan_beside_infinity) continue;
    if (++wrong <= 8)
      first += std::string("\n  ") + what + " " + operands(i) + ": device " + show(device[i]) +
               ", std::complex " + show(host[i]);
  }
  EXPECT_EQ(wrong, 0u) << wrong << " of " << host.size() << " differ, first:" << first;
}

template <class F>
double tolerance_of() {
  return std::is_same_v<F, float> ? 4e-6 : 1e-14;
}

// Every pair of special values (without a zero second operand where `no_zero_b`), then 4099
// random pairs of ordinary size.
template <class F>
void operand_pairs(std::vector<std::complex<F>>& a, std::vector<std::complex<F>>& b, bool no_zero_b,
                   unsigned seed) {
  const std::vector<std::complex<F>> values = special_complex<F>();
  for (std::complex<F> x : values)
    for (std::complex<F> y : values)
      if (!no_zero_b || y != std::complex<F>(0, 0)) a.push_back(x), b.push_back(y);
  const auto ra = random_complex<F>(4099, seed), rb = random_complex<F>(4099, seed + 1);
  a.insert(a.end(), ra.begin(), ra.end());
  b.insert(b.end(), rb.begin(), rb.end());
}

template <class F>
void check_special_arithmetic() {
  using C = std::complex<F>;
  std::vector<C> ha, hb;
  operand_pairs(ha, hb, false, 11);
  auto a = cf::array<C>::from_host(q(), ha);
  auto b = cf::array<C>::from_host(q(), hb);
  const auto pair = [&](std::size_t i) { return show(ha[i]) + ", " + show(hb[i]); };
  std::vector<C> want(ha.size());
  // The sign of a zero part of a quotient of a finite value is the formula's (an underflowed
  // or cancelled part, or zero over infinity): hosts differ there too (x86-64's float division
  // computes Annex G's formula in double, its double one Smith's). The infinities Annex G
  // recovers (nonzero / zero, infinite / finite) have their signs checked.
  const auto finite = [](C z) { return std::isfinite(z.real()) && std::isfinite(z.imag()); };
  const auto finite_quotient = [&](std::size_t i, bool) {
    return finite(ha[i]) && hb[i] != C(0, 0);
  };
  // The quotient in long double, rounded: std::complex<double>'s division on x86-64 (Smith's
  // method, scaled) loses what overflows in its scaling ((8.99e307 + 8.99e307i) / (0 - 0.25i)
  // is NaN + iNaN there); long double's range holds every quotient of two doubles.
  using wide = std::complex<long double>;
  for (std::size_t i = 0; i < ha.size(); ++i) want[i] = C(wide(ha[i]) / wide(hb[i]));
  expect_parts_match<F>("a / b", cf::eval(q(), a / b).to_host(q()), want, pair, tolerance_of<F>(),
                        finite_quotient);
  for (std::size_t i = 0; i < ha.size(); ++i) want[i] = ha[i] * hb[i];
  expect_parts_match<F>("a * b", cf::eval(q(), a * b).to_host(q()), want, pair, tolerance_of<F>());
  for (std::size_t i = 0; i < ha.size(); ++i) want[i] = ha[i] + hb[i];
  expect_parts_match<F>("a + b", cf::eval(q(), a + b).to_host(q()), want, pair, 0);
  for (std::size_t i = 0; i < ha.size(); ++i) want[i] = ha[i] - hb[i];
  expect_parts_match<F>("a - b", cf::eval(q(), a - b).to_host(q()), want, pair, 0);

  // With a real operand: std::complex works on the parts (no imaginary zero is made up),
  // except real / complex, a complex division.
  std::vector<F> hr;
  for (std::size_t i = 0; i < ha.size(); ++i) hr.push_back(hb[i].real());
  auto r = cf::array<F>::from_host(q(), hr);
  const auto with_real = [&](std::size_t i) { return show(ha[i]) + ", " + show(C(hr[i], 0)); };
  for (std::size_t i = 0; i < ha.size(); ++i) want[i] = ha[i] * hr[i];
  expect_parts_match<F>("a * r", cf::eval(q(), a * r).to_host(q()), want, with_real, 0);
  for (std::size_t i = 0; i < ha.size(); ++i) want[i] = hr[i] * ha[i];
  expect_parts_match<F>("r * a", cf::eval(q(), r * a).to_host(q()), want, with_real, 0);
  // A real division each: OpenCL allows float division 2.5 ulp, and NVIDIA's is further off
  // where the divisor's reciprocal is subnormal (3.5 / 1.7e38: 6 ulp).
  for (std::size_t i = 0; i < ha.size(); ++i) want[i] = ha[i] / hr[i];
  expect_parts_match<F>("a / r", cf::eval(q(), a / r).to_host(q()), want, with_real,
                        tolerance_of<F>());
  for (std::size_t i = 0; i < ha.size(); ++i) want[i] = C((long double)hr[i] / wide(ha[i]));
  expect_parts_match<F>(
      "r / a", cf::eval(q(), r / a).to_host(q()), want, with_real, tolerance_of<F>(),
      [&](std::size_t i, bool) { return std::isfinite(hr[i]) && ha[i] != C(0, 0); });
  for (std::size_t i = 0; i < ha.size(); ++i) want[i] = ha[i] + hr[i];
  expect_parts_match<F>("a + r", cf::eval(q(), a + r).to_host(q()), want, with_real, 0);
  for (std::size_t i = 0; i < ha.size(); ++i) want[i] = hr[i] - ha[i];
  expect_parts_match<F>("r - a", cf::eval(q(), r - a).to_host(q()), want, with_real, 0);
  for (std::size_t i = 0; i < ha.size(); ++i) want[i] = ha[i] - hr[i];
  expect_parts_match<F>("a - r", cf::eval(q(), a - r).to_host(q()), want, with_real, 0);
}

// Annex G leaves these signs open: cexp(-inf + i inf or NaN) is +-0 +- i0, cexp(+inf + i inf or
// NaN) is +-inf + i NaN, csqrt(-inf + i NaN) is NaN +- i inf.
template <class F>
bool exp_sign_free(std::complex<F> z) {
  return std::isinf(z.real()) && !std::isfinite(z.imag());
}
template <class F>
bool sqrt_sign_free(std::complex<F> z, bool imag) {
  return imag && std::isinf(z.real()) && std::isnan(z.imag());
}

template <class F>
void check_special_functions() {
  using C = std::complex<F>;
  std::vector<C> hz = special_complex<F>();
  const std::vector<C> random = random_complex<F>(4099, 13);
  hz.insert(hz.end(), random.begin(), random.end());
  // Large and small moduli, where a plain formula overflows or underflows.
  for (F big : {std::numeric_limits<F>::max() / 3, F(std::is_same_v<F, float> ? 88.9 : 709.9)})
    for (F y : {F(0.5), F(1.5), F(-3)}) hz.emplace_back(big, y), hz.emplace_back(y, big);
  auto z = cf::array<C>::from_host(q(), hz);
  const auto one = [&](std::size_t i) { return show(hz[i]); };
  std::vector<C> want(hz.size());
  for (std::size_t i = 0; i < hz.size(); ++i) want[i] = std::exp(hz[i]);
  // exp's error grows with |imag| (the argument of cis) and where exp(real) is split in two.
  expect_parts_match<F>("exp", cf::eval(q(), cf::exp(z)).to_host(q()), want, one,
                        tolerance_of<F>() * 8,
                        [&](std::size_t i, bool) { return exp_sign_free(hz[i]); });
  for (std::size_t i = 0; i < hz.size(); ++i) want[i] = std::log(hz[i]);
  expect_parts_match<F>("log", cf::eval(q(), cf::log(z)).to_host(q()), want, one,
                        tolerance_of<F>() * 4);
  for (std::size_t i = 0; i < hz.size(); ++i) want[i] = std::sqrt(hz[i]);
  expect_parts_match<F>("sqrt", cf::eval(q(), cf::sqrt(z)).to_host(q()), want, one,
                        tolerance_of<F>(),
                        [&](std::size_t i, bool imag) { return sqrt_sign_free(hz[i], imag); });
  for (std::size_t i = 0; i < hz.size(); ++i) want[i] = std::conj(hz[i]);
  expect_parts_match<F>("conj", cf::eval(q(), cf::conj(z)).to_host(q()), want, one, 0);
  for (std::size_t i = 0; i < hz.size(); ++i) want[i] = -hz[i];
  expect_parts_match<F>("-z", cf::eval(q(), -z).to_host(q()), want, one, 0);
  // abs and arg: real results, compared as complex numbers with a zero imaginary part.
  for (std::size_t i = 0; i < hz.size(); ++i) want[i] = C(std::abs(hz[i]), 0);
  expect_parts_match<F>("abs", cf::eval(q(), cf::cast<C>(cf::abs(z))).to_host(q()), want, one,
                        tolerance_of<F>());
  for (std::size_t i = 0; i < hz.size(); ++i) want[i] = C(std::arg(hz[i]), 0);
  expect_parts_match<F>("arg", cf::eval(q(), cf::cast<C>(cf::arg(z))).to_host(q()), want, one,
                        tolerance_of<F>());
}

template <class F>
void check_special_pow() {
  using C = std::complex<F>;
  const std::vector<C> values = special_complex<F>();
  std::vector<C> ha, hb;
  operand_pairs(ha, hb, true, 14);  // pow(a, 0): see below
  // Where |Im(b log a)| is large the result's angle is lost in the rounding of b log a (one ulp
  // of 2e38 is 2e31 radians): such pairs compare two logs' last bits, not pow. They are left
  // out; the tolerance below holds up to |Im(b log a)| = limit.
  {
    const double eps = std::numeric_limits<F>::epsilon();
    const double limit = (std::is_same_v<F, float> ? 2e-3 : 1e-11) / (8 * eps);
    std::vector<C> keep_a, keep_b;
    for (std::size_t i = 0; i < ha.size(); ++i) {
      using wide = std::complex<long double>;
      const long double angle = (wide(hb[i]) * std::log(wide(ha[i]))).imag();
      if (std::isfinite(angle) && std::fabs(angle) > limit) continue;
      keep_a.push_back(ha[i]), keep_b.push_back(hb[i]);
    }
    ha.swap(keep_a), hb.swap(keep_b);
  }
  auto a = cf::array<C>::from_host(q(), ha);
  auto b = cf::array<C>::from_host(q(), hb);
  std::vector<C> want(ha.size());
  for (std::size_t i = 0; i < ha.size(); ++i) want[i] = std::pow(ha[i], hb[i]);
  const auto pair = [&](std::size_t i) { return show(ha[i]) + ", " + show(hb[i]); };
  // exp(b log a): the error of log a grows by |b log a| in the result. Annex G gives cpow no
  // special values of its own: the signs of zeros and infinities come from NaNs inside
  // b * log(a) (whose signs differ between processors), so they are left open.
  expect_parts_match<F>("pow", cf::eval(q(), cf::pow(a, b)).to_host(q()), want, pair,
                        std::is_same_v<F, float> ? 2e-3 : 1e-11,
                        [](std::size_t, bool) { return true; });
  // The one documented difference: pow(a, 0) is 1 for every a (as real pow and Python's
  // complex power give), where the host's cpow gives NaN for a zero, infinite or NaN a.
  std::vector<C> all = values;
  auto base = cf::array<C>::from_host(q(), all);
  auto zero = cf::array<C>::from_host(q(), std::vector<C>(all.size(), C(F(0), F(-0.0))));
  const std::vector<C> got = cf::eval(q(), cf::pow(base, zero)).to_host(q());
  for (std::size_t i = 0; i < all.size(); ++i)
    EXPECT_TRUE(got[i] == C(1, 0) && !std::signbit(got[i].imag())) << show(all[i]);
  EXPECT_TRUE(std::isnan(std::pow(all[0], C(0, 0)).real()))
      << "the host's pow(0, 0) is no longer NaN: update the documented difference";
}

}  // namespace

TEST(Complex, ReportedDivisionsByZeroAndInfinity) {
  const float inf = std::numeric_limits<float>::infinity();
  auto a = cf::array<cf::complex<float>>::from_host(
      q(), std::vector<cf::complex<float>>{{1, 1}, {1, 0}});
  auto b = cf::array<cf::complex<float>>::from_host(
      q(), std::vector<cf::complex<float>>{{0, 0}, {inf, inf}});
  const auto got = cf::eval(q(), a / b).to_host(q());
  EXPECT_TRUE(got[0].real() == inf && got[0].imag() == inf) << show(got[0]);
  EXPECT_TRUE(got[1].real() == 0 && !std::signbit(got[1].real()) && got[1].imag() == 0 &&
              std::signbit(got[1].imag()))
      << show(got[1]);
}

TEST(Complex, SpecialValuesInArithmeticFollowAnnexG) {
  check_special_arithmetic<float>();
  if (!ctx().info().has_fp64) GTEST_SKIP() << "the device has no fp64";
  check_special_arithmetic<double>();
}

TEST(Complex, SpecialValuesInFunctionsFollowAnnexG) {
  check_special_functions<float>();
  if (!ctx().info().has_fp64) GTEST_SKIP() << "the device has no fp64";
  check_special_functions<double>();
}

TEST(Complex, PowIsExpOfLogTimesTheExponent) {
  check_special_pow<float>();
  if (!ctx().info().has_fp64) GTEST_SKIP() << "the device has no fp64";
  check_special_pow<double>();
}
