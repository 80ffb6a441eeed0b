// SPDX-License-Identifier: MIT
// Complex numbers: arrays of clforge::complex in expressions and sums against std::complex, and
// the OpenCL header in a user's snippet.
#include <gtest/gtest.h>

#include <clforge/clforge.hpp>

#include <complex>
#include <random>
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
