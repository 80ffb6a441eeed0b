// SPDX-License-Identifier: MIT
// Typed device arrays: round trips, async transfers, fill, sub-range copies, range checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>

#include <clforge/clforge.hpp>

namespace cf = clforge;

namespace {
struct fixture : ::testing::Test {
  cf::context ctx = cf::context::create_default();
  cf::queue q{ctx};
};

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(rng() % 251 + 1);
  return v;
}
}  // namespace

TEST_F(fixture, round_trips_at_odd_sizes) {
  for (std::size_t n : {0u, 1u, 3u, 255u, 1021u, 65537u, 1000003u}) {
    auto f = random_values<float>(n, 1);
    auto i = random_values<std::int64_t>(n, 2);
    auto u = random_values<std::uint8_t>(n, 3);
    EXPECT_EQ(cf::array<float>::from_host(q, f).to_host(q), f) << n;
    EXPECT_EQ(cf::array<std::int64_t>::from_host(q, i).to_host(q), i) << n;
    cf::array<std::uint8_t> du = cf::array<std::uint8_t>::from_host(q, u);
    EXPECT_EQ(du.size(), n);
    EXPECT_EQ(du.bytes(), n);
    EXPECT_EQ(du.empty(), n == 0);
    EXPECT_EQ(du.to_host(q), u) << n;
  }
}

TEST_F(fixture, async_transfers_and_sub_ranges) {
  const std::size_t n = 4099;
  auto host = random_values<int>(n, 4);
  cf::array<int> a(q, n);
  cf::event up = a.write_async(q, host.data(), 0, n);
  std::vector<int> middle(100);
  cf::event down = a.read_async(q, middle.data(), 2000, 100);
  down.wait();
  EXPECT_TRUE(std::equal(middle.begin(), middle.end(), host.begin() + 2000));
  (void)up;

  std::vector<int> patch = {-1, -2, -3};
  a.write(q, patch.data(), n - 3, 3);
  std::copy(patch.begin(), patch.end(), host.end() - 3);
  EXPECT_EQ(a.to_host(q), host);

  cf::array<int> b(q, 10);
  b.fill(q, 7);
  a.copy_to(q, b, 5, 2, 4);  // b[2..6) = a[5..9)
  std::vector<int> expect(10, 7);
  std::copy(host.begin() + 5, host.begin() + 9, expect.begin() + 2);
  EXPECT_EQ(b.to_host(q), expect);

  cf::array<int> c = a.clone(q);
  EXPECT_EQ(c.to_host(q), host);
}

TEST_F(fixture, fill_whole_and_part) {
  cf::array<double> a(q, 1001);
  a.fill(q, 2.5);
  a.fill(q, -1.0, 1000);
  a.fill(q, 9.0, 10, 5);
  std::vector<double> expect(1001, 2.5);
  expect[1000] = -1.0;
  std::fill(expect.begin() + 10, expect.begin() + 15, 9.0);
  EXPECT_EQ(a.to_host(q), expect);
}

TEST_F(fixture, ranges_past_the_end_are_errors) {
  cf::array<float> a(q, 10), b(q, 5);
  std::vector<float> host(20);
  EXPECT_THROW(a.read(q, host.data(), 5, 6), cf::error);
  EXPECT_THROW(a.write(q, host.data(), 11, 0), cf::error);
  EXPECT_THROW(a.fill(q, 1.0f, 8, 3), cf::error);
  EXPECT_THROW(a.copy_to(q, b, 0, 0, 6), cf::error);
  EXPECT_THROW(a.read(q, host.data(), 1, SIZE_MAX), cf::error);  // no overflow wrap-around
  try {
    a.read(q, host.data(), 5, 6);
  } catch (const cf::error& e) {
    EXPECT_NE(std::string(e.what()).find("outside an array of 10 elements"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(a.read(q, host.data(), 10, 0));
}

TEST_F(fixture, allocation_over_the_device_limit_is_a_clear_error) {
  const std::size_t too_many = ctx.info().max_alloc_bytes / sizeof(float) + 1;
  try {
    cf::array<float> a(q, too_many);
    FAIL() << "allocated past CL_DEVICE_MAX_MEM_ALLOC_SIZE";
  } catch (const cf::error& e) {
    EXPECT_NE(std::string(e.what()).find("CL_DEVICE_MAX_MEM_ALLOC_SIZE"), std::string::npos);
  }
  EXPECT_THROW(cf::array<double>(q, SIZE_MAX / 4), cf::error);  // count * size overflows
}
