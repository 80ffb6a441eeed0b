// SPDX-License-Identifier: MIT
// clforge-mpi-bench's jobs on distributed arrays of int32: sum, inclusive scan, sort (uint32
// keys), copy_if (x > 0, about 47% kept), each with a "blocks only" row: every rank's
// single-device template on its block alone, all ranks at once (the device work without the
// MPI layer's totals, carries and exchanges). Each job checks its result.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "mpi_bench.hpp"

namespace cf = clforge;
namespace cm = clforge::mpi;

namespace mpi_bench {

namespace {

bool all_ranks_ok(bool ok) {
  int mine = ok ? 0 : 1, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any == 0;
}

// Sorted across ranks: each block sorted and each block's first key not below the last key of
// the nearest non-empty block before it.
bool sorted_across_ranks(const cf::queue& q, const cm::distributed_array<cl_uint>& x) {
  const std::vector<cl_uint> block = x.local().to_host(q);
  bool ok = std::is_sorted(block.begin(), block.end());
  struct ends {
    cl_uint first, last, has;
  } mine{block.empty() ? 0 : block.front(), block.empty() ? 0 : block.back(),
         block.empty() ? 0u : 1u};
  std::vector<ends> all(static_cast<std::size_t>(x.layout().ranks));
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
  cl_uint previous = 0;
  bool seen = false;
  for (const ends& e : all) {
    if (!e.has) continue;
    if (seen && e.first < previous) ok = false;
    previous = e.last;
    seen = true;
  }
  return all_ranks_ok(ok);
}

}  // namespace

bool run_array_jobs(const cf::queue& q, const setup& s) {
  if (!s.wants("sum") && !s.wants("scan") && !s.wants("copy_if") && !s.wants("sort")) return true;
  const std::size_t n = s.elements();
  cm::distributed_array<cl_int> x(q, MPI_COMM_WORLD, n), y(q, MPI_COMM_WORLD, n);
  {
    // Each rank writes its own block (a scatter from one rank would only measure the scatter).
    // Values small enough that the sum stays exact in 64 bits.
    std::vector<cl_int> block(x.local_size());
    for (std::size_t k = 0; k < block.size(); ++k)
      block[k] = static_cast<cl_int>((x.local_offset() + k) % 17) - 8;
    if (!block.empty()) x.local().write(q, block.data(), 0, block.size());
  }
  long long expected = 0;
  std::size_t positive = 0;
  for (std::size_t k = 0; k < 17; ++k) {
    const std::size_t times = n / 17 + (k < n % 17 ? 1 : 0);
    expected += (static_cast<long long>(k) - 8) * static_cast<long long>(times);
    if (k > 8) positive += times;
  }
  bool ok = true;

  if (s.wants("sum")) {
    cl_long total = 0;
    report(s, "sum", measure(s, [&] { total = cm::sum<cl_long>(q, x); }), 4);
    report(s, "sum, blocks only", measure(s, [&] { (void)cf::sum<cl_long>(q, x.local()); }), 4);
    if (total != expected) {
      std::fprintf(stderr, "[rank %d] sum %lld, expected %lld\n", s.rank, (long long)total,
                   expected);
      ok = false;
    }
  }
  if (s.wants("scan")) {
    const auto scan = measure(s, [&] {
      cm::inclusive_scan(q, x, y);
      q.finish();  // the scan returns when enqueued; time it to completion
    });
    const auto blocks = measure(s, [&] {
      if (x.local_size() > 0) cf::inclusive_scan(q, x.local(), y.local());
      q.finish();
    });
    report(s, "scan", scan, 8);
    report(s, "scan, blocks only", blocks, 8);
    cm::inclusive_scan(q, x, y);  // the block scans overwrote y: again for the check
    const std::vector<cl_int> tail = y.gather_to(s.ranks - 1);
    if (s.rank == s.ranks - 1 && n > 0 && tail.back() != static_cast<cl_int>(expected)) {
      std::fprintf(stderr, "[rank %d] scan ends at %d, expected %lld\n", s.rank, tail.back(),
                   expected);
      ok = false;
    }
  }
  if (s.wants("copy_if")) {
    std::size_t kept = 0;
    report(s, "copy_if", measure(s, [&] { kept = cm::copy_if(q, x, y, "x > 0"); }), 6);
    report(s, "copy_if, blocks only",
           measure(s, [&] { (void)cf::copy_if(q, x.local(), y.local(), "x > 0"); }), 6);
    if (kept != positive) {
      std::fprintf(stderr, "[rank %d] copy_if kept %zu, expected %zu\n", s.rank, kept, positive);
      ok = false;
    }
  }
  if (s.wants("sort")) {
    // Random uint32 keys, made once; each repetition sorts a fresh copy (the copy not timed).
    cm::distributed_array<cl_uint> source(q, MPI_COMM_WORLD, n), keys(q, MPI_COMM_WORLD, n);
    {
      std::mt19937 rng(1234u + static_cast<unsigned>(s.rank));
      std::vector<cl_uint> block(source.local_size());
      for (auto& k : block) k = rng();
      if (!block.empty()) source.local().write(q, block.data(), 0, block.size());
    }
    auto refill = [&] {
      if (keys.local_size() > 0) source.local().copy_to(q, keys.local());
      q.finish();
    };
    report(s, "sort",
           measure(
               s,
               [&] {
                 cm::sort(q, keys);
                 q.finish();  // on one rank the sort returns when enqueued
               },
               refill),
           8);
    ok = sorted_across_ranks(q, keys) && ok;
    if (!ok) std::fprintf(stderr, "[rank %d] sort: not sorted across ranks\n", s.rank);
    report(s, "sort, blocks only",
           measure(
               s,
               [&] {
                 cf::sort(q, keys.local());
                 q.finish();
               },
               refill),
           8);
  }
  return all_ranks_ok(ok);
}

}  // namespace mpi_bench
