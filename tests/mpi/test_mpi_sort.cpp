// SPDX-License-Identifier: MIT
// clforge::mpi::sort, sort_by_key and histogram under mpirun -np 1..4, against std::stable_sort
// and plain counts of the whole array (every rank holds the same random data): every key type,
// both directions, duplicates, all-equal keys, NaN and signed zeros, sizes 0, 1, fewer elements
// than ranks (empty ranks) and a few thousand. Then calls whose ranks disagree (types, lengths)
// or whose arguments are wrong on every rank: the same clforge::error on every rank, no hang.
#include <clforge/clforge.hpp>
#include <clforge/mpi.hpp>

#include <mpi.h>

#include "mpi_test.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace cf = clforge;
namespace cm = clforge::mpi;

namespace {

using mpi_test::rank;
using mpi_test::ranks;

std::vector<std::size_t> sizes() {
  return {0, 1, static_cast<std::size_t>(ranks > 1 ? ranks - 1 : 2), 7, 1025, 20001};
}

// Random keys over a range of `distinct` values (few: many duplicates), the same on every rank.
template <class K>
std::vector<K> random_keys(std::size_t n, std::uint32_t seed, int distinct) {
  std::mt19937_64 rng(seed * 7919u + n);
  std::vector<K> v(n);
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<K>) {
      x = distinct > 0
              ? static_cast<K>(std::uniform_int_distribution<int>(-distinct, distinct)(rng)) / K(4)
              : static_cast<K>(std::uniform_real_distribution<double>(-1e6, 1e6)(rng));
    } else {
      const std::uint64_t r = rng();
      x = distinct > 0 ? static_cast<K>(static_cast<std::int64_t>(r % distinct) - distinct / 2)
                       : static_cast<K>(r);
    }
  }
  return v;
}

using mpi_test::key_less;
using mpi_test::same_bits;

using mpi_test::everywhere;

template <class T>
cm::distributed_array<T> scattered(const cf::queue& q, const std::vector<T>& host) {
  return mpi_test::scattered(q, host, 0);
}

template <class K>
void sort_one_type(const cf::queue& q, const char* name) {
  for (std::size_t n : sizes()) {
    for (int distinct : {0, 5, 1}) {  // all different-ish, many duplicates, all equal
      std::vector<K> host = random_keys<K>(n, 17, distinct);
      if constexpr (std::is_floating_point_v<K>) {
        const K specials[] = {std::numeric_limits<K>::quiet_NaN(),
                              K(-0.0),
                              K(0.0),
                              std::numeric_limits<K>::infinity(),
                              -std::numeric_limits<K>::infinity(),
                              -std::numeric_limits<K>::quiet_NaN()};
        if (distinct != 1)
          for (std::size_t k = 0; k < n; k += 3) host[k] = specials[(k / 3) % 6];
      }
      for (cf::order dir : {cf::order::ascending, cf::order::descending}) {
        const bool desc = dir == cf::order::descending;
        // Reference: indices stably sorted by key, then keys and indices in that order.
        std::vector<std::uint32_t> index(n);
        for (std::size_t k = 0; k < n; ++k) index[k] = static_cast<std::uint32_t>(k);
        std::stable_sort(index.begin(), index.end(), [&](std::uint32_t a, std::uint32_t b) {
          return desc ? key_less(host[b], host[a]) : key_less(host[a], host[b]);
        });
        std::vector<K> want(n);
        for (std::size_t k = 0; k < n; ++k) want[k] = host[index[k]];
        const std::string what = std::string(name) + " n=" + std::to_string(n) +
                                 " distinct=" + std::to_string(distinct) +
                                 (desc ? " descending" : " ascending");

        cm::distributed_array<K> keys = scattered(q, host);
        cm::sort(q, keys, dir);
        CHECK(keys.local_size() == keys.layout().count(rank), "block length kept %s", what.c_str());
        CHECK(same_bits(everywhere(keys), want), "sort %s", what.c_str());

        std::vector<std::uint32_t> iota(n);
        for (std::size_t k = 0; k < n; ++k) iota[k] = static_cast<std::uint32_t>(k);
        cm::distributed_array<K> k2 = scattered(q, host);
        cm::distributed_array<std::uint32_t> v2 = scattered(q, iota);
        cm::sort_by_key(q, k2, v2, dir);
        CHECK(same_bits(everywhere(k2), want), "sort_by_key keys %s", what.c_str());
        CHECK(everywhere(v2) == index, "sort_by_key values (stable) %s", what.c_str());
      }
    }
  }
}

void test_sort(const cf::queue& q) {
  sort_one_type<std::uint8_t>(q, "uchar");
  sort_one_type<std::int8_t>(q, "char");
  sort_one_type<std::uint16_t>(q, "ushort");
  sort_one_type<std::int16_t>(q, "short");
  sort_one_type<std::uint32_t>(q, "uint");
  sort_one_type<std::int32_t>(q, "int");
  sort_one_type<std::uint64_t>(q, "ulong");
  sort_one_type<std::int64_t>(q, "long");
  sort_one_type<float>(q, "float");
  sort_one_type<double>(q, "double");
}

// 16-byte values move with their keys.
void test_sort_wide_values(const cf::queue& q) {
  const std::size_t n = 3001;
  std::vector<std::int32_t> host = random_keys<std::int32_t>(n, 5, 40);
  std::vector<cl_uint4> values(n);
  for (std::size_t k = 0; k < n; ++k) {
    const cl_uint u = static_cast<cl_uint>(k);
    values[k] = cl_uint4{{u, ~u, u * 3u, static_cast<cl_uint>(host[k])}};
  }
  std::vector<std::size_t> index(n);
  for (std::size_t k = 0; k < n; ++k) index[k] = k;
  std::stable_sort(index.begin(), index.end(),
                   [&](std::size_t a, std::size_t b) { return host[a] < host[b]; });
  std::vector<cl_uint4> want(n);
  for (std::size_t k = 0; k < n; ++k) want[k] = values[index[k]];
  cm::distributed_array<std::int32_t> keys = scattered(q, host);
  cm::distributed_array<cl_uint4> vals = scattered(q, values);
  cm::sort_by_key(q, keys, vals);
  CHECK(same_bits(everywhere(vals), want), "sort_by_key 16-byte values");
}

void test_histogram(const cf::queue& q) {
  for (std::size_t n : sizes()) {
    std::vector<float> host(n);
    std::mt19937 rng(static_cast<std::uint32_t>(n));
    std::uniform_real_distribution<float> d(-1.5f, 11.5f);
    for (auto& x : host) x = d(rng);
    for (std::size_t k = 0; k < n; k += 11) host[k] = k % 2 ? 10.0f : std::nanf("");  // hi, NaN
    const std::size_t bins = 13;
    cm::distributed_array<float> x = scattered(q, host);
    const std::vector<cl_uint> got = cm::histogram(q, x, bins, 0.0f, 10.0f).to_host(q);
    // clforge::histogram of the whole array on this rank's device: the same bins and edges.
    const std::vector<cl_uint> whole =
        cf::histogram(q, cf::array<float>::from_host(q, host), bins, 0.0f, 10.0f).to_host(q);
    CHECK(got == whole, "histogram vs device n=%zu", n);
    std::uint64_t counted = 0, in_range = 0;
    for (cl_uint c : got) counted += c;
    for (float v : host) in_range += v >= 0.0f && v <= 10.0f;
    CHECK(counted == in_range, "histogram total n=%zu", n);
  }
}

void test_commutes(const cf::queue&) {
  for (const char* op :
       {"a + b", "b+a", "(a * b)", "min(a, b)", "max(b,a)", "fmax(a, b)", "a|b", "a ^ b", "a & b"})
    CHECK(cm::detail::commutes(op), "commutes: %s", op);
  for (const char* op : {"a - b", "b", "a", "2 * a + b", "compose(a, b)", "a + b + 1"})
    CHECK(!cm::detail::commutes(op), "does not commute: %s", op);
}

// The exchanges' staging areas: mapped memory that works, grown on demand; a second lease of a
// held area gets ordinary memory.
void test_staging(const cf::queue& q) {
  for (std::size_t bytes : {std::size_t(16), std::size_t(1) << 20, std::size_t(3) << 20}) {
    cm::detail::staging_lease lease(q, bytes);
    CHECK(lease.pinned(), "staging area of %zu bytes is mapped memory", bytes);
    std::memset(lease.data(), 0x5a, bytes);
    cf::array<unsigned char> a(q, bytes);
    a.write(q, static_cast<const unsigned char*>(lease.data()), 0, bytes);
    std::vector<unsigned char> back = a.to_host(q);
    CHECK(std::all_of(back.begin(), back.end(), [](unsigned char c) { return c == 0x5a; }),
          "staging area round trip");
    cm::detail::staging_lease second(q, 64);
    CHECK(!second.pinned() && second.data() != nullptr, "a held area gives ordinary memory");
  }
  cm::detail::staging_lease none(q, 0);
  CHECK(none.data() == nullptr, "a lease of 0 bytes");
}

using mpi_test::expect_same_error;

void test_disagreement(const cf::queue& q) {
  cm::distributed_array<int> a(q, MPI_COMM_WORLD, 100);
  cm::distributed_array<int> b(q, MPI_COMM_WORLD, 99);
  cm::distributed_array<float> f(q, MPI_COMM_WORLD, 100);
  expect_same_error("sort_by_key lengths", [&] { cm::sort_by_key(q, a, b); },
                    {"the values have 99 elements, the keys 100"});
  expect_same_error("histogram bins", [&] { cm::histogram(q, f, 0, 0.0f, 1.0f); }, {"histogram"});
  if (ranks > 1) {
    // Rank 0 sorts ints, the others floats: the ranks disagree, every one says so.
    expect_same_error("sort types",
                      [&] {
                        if (rank == 0)
                          cm::sort(q, a);
                        else
                          cm::sort(q, f);
                      },
                      {"the ranks disagree"});
    // Rank 0 sorts descending.
    expect_same_error(
        "sort direction",
        [&] { cm::sort(q, a, rank == 0 ? cf::order::descending : cf::order::ascending); },
        {"the ranks disagree"});
    // Different lengths on rank 0.
    cm::distributed_array<int>& mine = a;
    expect_same_error("histogram lengths",
                      [&] {
                        if (rank == 0)
                          cm::histogram(q, f, 4, 0.0f, 1.0f);
                        else
                          cm::sort(q, mine);
                      },
                      {"the ranks disagree"});
  }
  // Still in step afterwards.
  std::vector<int> host = random_keys<int>(100, 3, 0), want = host;
  std::stable_sort(want.begin(), want.end());
  cm::distributed_array<int> c = scattered(q, host);
  cm::sort(q, c);
  CHECK(everywhere(c) == want, "sort after the errors");
}

}  // namespace

int main(int argc, char** argv) {
  return mpi_test::run_tests(argc, argv, nullptr,
                             {{"commutes", test_commutes},
                              {"sort", test_sort},
                              {"sort_wide_values", test_sort_wide_values},
                              {"staging", test_staging},
                              {"histogram", test_histogram},
                              {"disagreement", test_disagreement}});
}
