// SPDX-License-Identifier: MIT
// clforge::mpi under mpirun -np 1..4: every distributed result against the single-device result
// of the whole array (rank's own device) and a plain C++ reference, on random data, at sizes
// 0, 1, fewer elements than ranks, uneven blocks and a few thousand. Every rank checks; the
// failures of all ranks decide the exit code of every rank.
#include <clforge/clforge.hpp>
#include <clforge/mpi.hpp>

#include <mpi.h>

#include "mpi_test.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace cf = clforge;
namespace cm = clforge::mpi;

struct minloc {
  cl_int value;
  cl_int index;
};
CLFORGE_DECLARE_TYPE(minloc, "minloc")
// An affine map x -> a * x + b (mod 2^32); composition does not commute.
struct affine {
  cl_uint a;
  cl_uint b;
};
CLFORGE_DECLARE_TYPE(affine, "affine")

namespace {

using mpi_test::rank;
using mpi_test::ranks;

// Sizes: empty, one, fewer than ranks, uneven blocks, more than a reduction chunk.
std::vector<std::size_t> sizes() {
  return {0,
          1,
          static_cast<std::size_t>(ranks > 1 ? ranks - 1 : 2),
          7,
          static_cast<std::size_t>(4 * ranks + 3),
          1025,
          70001};
}

// The same random data on every rank (seeded by the size), so every rank can compute the
// single-device and C++ references of the whole array.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed, int lo, int hi) {
  std::mt19937 rng(seed * 7919u + static_cast<std::uint32_t>(n));
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

using mpi_test::everywhere;

template <class T>
cm::distributed_array<T> scattered(const cf::queue& q, const std::vector<T>& host) {
  return mpi_test::scattered(q, host, ranks - 1);  // a root other than 0 where there are several
}

void test_layout_and_round_trip(const cf::queue& q) {
  for (std::size_t n : sizes()) {
    const auto host = random_values<cl_int>(n, 1, -1000, 1000);
    auto x = scattered(q, host);
    CHECK(x.size() == n, "n=%zu", n);
    std::size_t total = 0, smallest = n, largest = 0;
    for (int r = 0; r < ranks; ++r) {
      total += x.layout().count(r);
      smallest = std::min(smallest, x.layout().count(r));
      largest = std::max(largest, x.layout().count(r));
      if (r > 0)
        CHECK(x.layout().offset(r) == x.layout().offset(r - 1) + x.layout().count(r - 1), "n=%zu",
              n);
    }
    CHECK(total == n && largest - smallest <= 1, "n=%zu blocks %zu..%zu", n, smallest, largest);
    std::vector<cl_int> block = x.local().to_host(q);
    CHECK(std::equal(block.begin(), block.end(), host.begin() + x.local_offset()), "n=%zu", n);
    std::vector<cl_int> back = x.gather_to(0);
    if (rank == 0)
      CHECK(back == host, "gather n=%zu", n);
    else
      CHECK(back.empty(), "gather n=%zu", n);
  }
}

void test_builtin_reductions(const cf::queue& q) {
  for (std::size_t n : sizes()) {
    const auto host = random_values<cl_int>(n, 2, -1000000, 1000000);
    auto x = scattered(q, host);
    auto whole = cf::array<cl_int>::from_host(q, host);
    const long long ref = std::accumulate(host.begin(), host.end(), 0LL);
    const cl_long s = cm::sum<cl_long>(q, x);
    CHECK(s == ref && s == cf::sum<cl_long>(q, whole), "sum n=%zu: %lld vs %lld", n, (long long)s,
          ref);
    const cl_int s32 = cm::sum(q, x);
    CHECK(s32 == cf::sum(q, whole), "sum<int> n=%zu", n);
    // Sums that wrap (as on the device), and unsigned ones: the ranks' partials are combined
    // on the host.
    {
      std::vector<cl_int> big(n);
      std::vector<cl_uint> ubig(n);
      cl_uint wrapped = 0;
      for (std::size_t k = 0; k < n; ++k) {
        big[k] = static_cast<cl_int>(2147483000 - static_cast<cl_int>(k % 977));
        ubig[k] = 4294967000u - static_cast<cl_uint>(k % 991);
        wrapped += static_cast<cl_uint>(big[k]);
      }
      auto xb = scattered(q, big);
      auto xu = scattered(q, ubig);
      const cl_uint uref = std::accumulate(ubig.begin(), ubig.end(), cl_uint(0));
      CHECK(cm::sum(q, xb) == static_cast<cl_int>(wrapped), "wrapping sum<int> n=%zu", n);
      CHECK(cm::sum(q, xu) == uref, "wrapping sum<uint> n=%zu", n);
      CHECK(cm::dot(q, xu, xu) == cf::dot(q, cf::array<cl_uint>::from_host(q, ubig),
                                          cf::array<cl_uint>::from_host(q, ubig)),
            "dot<uint> n=%zu", n);
      if (n > 0) {
        CHECK(cm::max(q, xu) == *std::max_element(ubig.begin(), ubig.end()), "max<uint> n=%zu", n);
        CHECK(cm::min(q, xb) == *std::min_element(big.begin(), big.end()), "min<int> n=%zu", n);
      }
    }
    if (n > 0) {
      CHECK(cm::min(q, x) == *std::min_element(host.begin(), host.end()), "min n=%zu", n);
      CHECK(cm::max(q, x) == *std::max_element(host.begin(), host.end()), "max n=%zu", n);
      CHECK(cm::min(q, x) == cf::min(q, whole), "min vs device n=%zu", n);
    } else {
      bool threw = false;
      try {
        cm::min(q, x);
      } catch (const cf::error& e) {
        threw = std::string(e.what()).find("empty") != std::string::npos;
      }
      CHECK(threw, "min of an empty array throws");
    }
    // dot in float: a tolerance against a double reference (summation order differs).
    std::vector<float> xf(host.begin(), host.end()), yf(n);
    for (std::size_t k = 0; k < n; ++k) yf[k] = static_cast<float>((k % 13) - 6) * 0.25f;
    auto dx = scattered(q, xf), dy = scattered(q, yf);
    double dref = 0, mag = 0;
    for (std::size_t k = 0; k < n; ++k)
      dref += double(xf[k]) * yf[k], mag += std::fabs(double(xf[k]) * yf[k]);
    const float d = cm::dot(q, dx, dy);
    CHECK(std::fabs(d - dref) <= 1e-5 * mag + 1e-6, "dot n=%zu: %g vs %g", n, d, dref);
  }
}

void test_struct_reduction(const cf::queue& q) {
  // Position of the smallest value (first one on ties): a struct result, global indices passed
  // as the block's offset.
  const std::string preamble = "typedef struct { int value; int index; } minloc;";
  cf::reduction_options o;
  o.preamble = preamble;
  const std::string reduce =
      "(a.value < b.value || (a.value == b.value && a.index < b.index)) ? a : b";
  cm::reduction_kernel<minloc> argmin(MPI_COMM_WORLD, q.ctx(), "global const int* x, int first",
                                      "(minloc){x[i], (int)i + first}", reduce,
                                      "(minloc){0x7fffffff, 0x7fffffff}", o);
  cf::reduction_kernel<minloc> whole_argmin(q.ctx(), "global const int* x, int first",
                                            "(minloc){x[i], (int)i + first}", reduce,
                                            "(minloc){0x7fffffff, 0x7fffffff}", o);
  for (std::size_t n : sizes()) {
    const auto host = random_values<cl_int>(n, 3, -50, 50);  // many ties
    auto x = scattered(q, host);
    const minloc got = argmin(q, x, static_cast<cl_int>(x.local_offset()));
    auto whole = cf::array<cl_int>::from_host(q, host);
    const minloc single = whole_argmin(q, whole, 0);
    if (n == 0) {
      CHECK(got.value == 0x7fffffff && got.index == 0x7fffffff, "argmin of nothing is neutral");
      continue;
    }
    const auto it = std::min_element(host.begin(), host.end());
    CHECK(got.value == *it && got.index == it - host.begin(), "argmin n=%zu: (%d, %d) vs (%d, %d)",
          n, got.value, got.index, *it, int(it - host.begin()));
    CHECK(got.value == single.value && got.index == single.index, "argmin vs device n=%zu", n);
  }
}

void test_scans(const cf::queue& q) {
  for (std::size_t n : sizes()) {
    const auto host = random_values<cl_int>(n, 4, -100, 100);
    auto x = scattered(q, host);
    cm::distributed_array<cl_int> y(q, MPI_COMM_WORLD, n);
    std::vector<cl_int> ref(n);
    std::inclusive_scan(host.begin(), host.end(), ref.begin());
    cm::inclusive_scan(q, x, y);
    CHECK(everywhere(y) == ref, "inclusive_scan n=%zu", n);
    std::exclusive_scan(host.begin(), host.end(), ref.begin(), 0);
    cm::exclusive_scan(q, x, y);
    CHECK(everywhere(y) == ref, "exclusive_scan n=%zu", n);
    // max-scan in place, against the single-device scan of the whole array.
    auto whole = cf::array<cl_int>::from_host(q, host);
    cf::inclusive_scan(q, whole, whole, "max(a, b)", "INT_MIN");
    cm::inclusive_scan(q, x, x, "max(a, b)", "INT_MIN");
    CHECK(everywhere(x) == whole.to_host(q), "in-place max scan n=%zu", n);
  }
}

affine compose(affine l, affine r) {  // first l, then r
  return {l.a * r.a, r.a * l.b + r.b};
}

void test_noncommutative_scan(const cf::queue& q) {
  // Composition of affine maps in index order: wrong wherever ranks' carries join on the wrong
  // side. The output statement also uses prev_item and last_item (the global total).
  cf::scan_options o;
  o.preamble = "typedef struct { uint a; uint b; } affine;";
  const std::string op = "(affine){a.a * b.a, b.a * a.b + b.b}";
  const std::string args =
      "global const affine* f, global affine* y, global affine* p, global affine* t";
  const std::string out = "y[i] = item; p[i] = prev_item; t[i] = last_item;";
  for (auto kind : {cf::scan_kind::inclusive, cf::scan_kind::exclusive}) {
    cm::scan_kernel<affine> chain(MPI_COMM_WORLD, q.ctx(), args, "f[i]", op, "(affine){1u, 0u}",
                                  out, kind, o);
    cf::scan_kernel<affine> whole_chain(q.ctx(), args, "f[i]", op, "(affine){1u, 0u}", out, kind,
                                        o);
    for (std::size_t n : sizes()) {
      std::mt19937 rng(static_cast<std::uint32_t>(n) + 99);
      std::vector<affine> host(n);
      for (auto& f : host) f = {static_cast<cl_uint>(rng() | 1u), static_cast<cl_uint>(rng())};
      auto f = scattered(q, host);
      cm::distributed_array<affine> y(q, MPI_COMM_WORLD, n), p(q, MPI_COMM_WORLD, n),
          t(q, MPI_COMM_WORLD, n);
      chain(q, f, y, p, t);
      std::vector<affine> incl(n), excl(n);
      affine acc{1u, 0u};
      for (std::size_t k = 0; k < n; ++k) {
        excl[k] = acc;
        acc = compose(acc, host[k]);
        incl[k] = acc;
      }
      auto same = [](const std::vector<affine>& a, const std::vector<affine>& b) {
        return a.size() == b.size() &&
               std::equal(a.begin(), a.end(), b.begin(),
                          [](affine u, affine v) { return u.a == v.a && u.b == v.b; });
      };
      const auto& want = kind == cf::scan_kind::inclusive ? incl : excl;
      CHECK(same(everywhere(y), want), "affine scan item n=%zu kind=%d", n, int(kind));
      CHECK(same(everywhere(p), excl), "affine scan prev_item n=%zu", n);
      CHECK(same(everywhere(t), std::vector<affine>(n, acc)), "affine scan last_item n=%zu", n);
      if (n > 0) {
        auto wf = cf::array<affine>::from_host(q, host);
        cf::array<affine> wy(q, n), wp(q, n), wt(q, n);
        whole_chain(q, wf, wy, wp, wt);
        CHECK(same(everywhere(y), wy.to_host(q)), "affine scan vs device n=%zu", n);
      }
    }
  }
}

void test_copy_if(const cf::queue& q) {
  for (std::size_t n : sizes()) {
    const auto host = random_values<cl_int>(n, 5, -100, 100);
    auto x = scattered(q, host);
    for (const std::string pred : {"x % 3 == 0", "(i % 7) == 2 || x < -90"}) {
      cm::distributed_array<cl_int> out(q, MPI_COMM_WORLD, n);
      out.local().fill(q, -12345);
      const std::size_t count = cm::copy_if(q, x, out, pred);
      std::vector<cl_int> ref;
      for (std::size_t k = 0; k < n; ++k)
        if (pred[0] == 'x' ? host[k] % 3 == 0 : (k % 7 == 2 || host[k] < -90))
          ref.push_back(host[k]);
      CHECK(count == ref.size(), "copy_if count n=%zu pred=%s: %zu vs %zu", n, pred.c_str(), count,
            ref.size());
      std::vector<cl_int> got = everywhere(out);
      CHECK(std::equal(ref.begin(), ref.end(), got.begin()), "copy_if order n=%zu pred=%s", n,
            pred.c_str());
      CHECK(std::all_of(got.begin() + std::min(count, n), got.end(),
                        [](cl_int v) { return v == -12345; }),
            "copy_if leaves the rest n=%zu", n);
      auto whole = cf::array<cl_int>::from_host(q, host);
      cf::array<cl_int> wout(q, n);
      if (n > 0) CHECK(cf::copy_if(q, whole, wout, pred) == count, "copy_if vs device n=%zu", n);
    }
  }
}

void test_polygon_rows(const cf::queue& q) {
  cf::polygon_mask masker(q.ctx());
  const std::size_t width = 53;
  for (std::size_t height : {std::size_t(1), std::size_t(ranks > 1 ? ranks - 1 : 2),
                             std::size_t(61), std::size_t(200)}) {
    // Float vertices (moving them up to a block's first row is mostly not exact) and integer
    // ones (always exact).
    std::vector<cf::point2f> star =
        cf::random_star_polygon(23, std::max(width, height), 7 + height);
    std::vector<cf::point2f> square = {
        {3, 1}, {40, 2}, {35, float(height) - 1}, {5, float(height) / 2}};
    for (const auto& poly : {star, square}) {
      auto image = cm::distributed_array<cl_uchar>::rows(q, MPI_COMM_WORLD, width, height);
      cm::mask_into(q, masker, poly, image, width, height, cl_uchar(1));
      const auto ref = cf::polygon_mask_reference(poly, width, height);
      CHECK(everywhere(image) == ref, "mask height=%zu", height);
      cf::array<cl_uchar> whole(q, width * height);
      masker.mask_into(q, poly, whole, width, height, cl_uchar(1));
      CHECK(whole.to_host(q) == ref, "single-device mask height=%zu", height);
    }
    if (height == 61) {
      // Vertices just below row 0 with many fraction bits: moving them up to first row 31, 21 or
      // 16 (the blocks of 2, 3 and 4 ranks) is not exact in float and changes a pixel; the
      // scratch-image path must give the whole image's pixels.
      const std::vector<std::vector<cf::point2f>> near_edges = {
          {{0x1.705c82p+5f, 0x1.22ea2ap-7f},  // differs in rows 31..60 moved up by 31
           {0x1.05eb12p+3f, 0x1.e7c98p+5f},
           {0x1.756ep+3f, 0x1.e927b6p+5f}},
          {{0x1.122f9cp+5f, 0x1.0c8aeep-7f},  // rows 21..40 moved up by 21
           {0x1.296f62p+5f, 0x1.e97fc6p+5f},
           {0x1.8cbe06p+5f, 0x1.eb7b4ap+5f}},
          {{0x1.d7c27ep+3f, 0x1.d16b7p-12f},  // rows 16..30 moved up by 16
           {0x1.8f8636p+5f, 0x1.e50a4p+5f},
           {0x1.20f876p+5f, 0x1.ebf7fp+5f}}};
      for (const auto& poly : near_edges) {
        auto image = cm::distributed_array<cl_uchar>::rows(q, MPI_COMM_WORLD, width, height);
        cm::mask_into(q, masker, poly, image, width, height, cl_uchar(1));
        CHECK(everywhere(image) == cf::polygon_mask_reference(poly, width, height),
              "near-edge mask height=%zu", height);
      }
    }
    auto labels = cm::distributed_array<cl_uint>::rows(q, MPI_COMM_WORLD, width, height);
    cm::labels_into(q, masker, {star, square}, labels, width, height);
    CHECK(everywhere(labels) == cf::polygon_labels_reference({star, square}, width, height),
          "labels height=%zu", height);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return mpi_test::run_tests(argc, argv, "clforge::mpi tests",
                             {{"layout_and_round_trip", test_layout_and_round_trip},
                              {"builtin_reductions", test_builtin_reductions},
                              {"struct_reduction", test_struct_reduction},
                              {"scans", test_scans},
                              {"noncommutative_scan", test_noncommutative_scan},
                              {"copy_if", test_copy_if},
                              {"polygon_rows", test_polygon_rows}});
}
