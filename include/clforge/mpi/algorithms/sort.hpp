// SPDX-License-Identifier: MIT
// Sorting across ranks: clforge::mpi::sort and sort_by_key, a sample sort on clforge::sort.
//
// Each rank sorts its block (clforge::sort, stable), picks regular samples of it, and the ranks
// choose splitters from everyone's samples; each rank sends the elements between two splitters
// to one rank (detail::exchange), which sorts what arrives (stable: the runs arrive in rank order)
// and the result moves to the array's blocks (a second, mostly neighbour-to-neighbour, exchange).
// Elements with equal keys are told apart by (rank, position in the rank's sorted block), which
// is their global input order: the sort is stable across ranks, and many equal keys still split
// evenly.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "clforge/array.hpp"
#include "clforge/error.hpp"
#include "clforge/mpi/collective.hpp"
#include "clforge/mpi/distributed_array.hpp"
#include "clforge/mpi/local.hpp"
#include "clforge/queue.hpp"

namespace clforge::mpi {

// ---- sort -----------------------------------------------------------------------------------

namespace detail {

/// An element of a rank's sorted block as the splitters compare it: the key's order bits (see
/// ordered_bits), the rank and the position in the rank's sorted block. A splitter is a sample;
/// `valid` 0 marks a sample slot a small rank leaves empty. `weight`: how many elements the
/// sample stands for.
struct sort_sample {
  std::uint64_t key = 0;
  std::uint64_t position = 0;
  std::int32_t rank = 0;
  std::int32_t valid = 0;
  double weight = 0;
};

/// Samples each rank contributes (at most; fewer when its block is smaller).
constexpr std::size_t sort_samples_per_rank = 256;

/// Every rank passes sort_samples_per_rank samples; returns ranks - 1 splitters, the same on
/// every rank: splitter k is the first sample with about k/ranks of `total` before it.
CLFORGE_MPI_API std::vector<sort_sample> choose_splitters(MPI_Comm comm,
                                                          const std::vector<sort_sample>& mine,
                                                          std::uint64_t total);

/// The order clforge::sort gives the keys, as unsigned 64-bit integers: unsigned keys as they
/// are, signed ones with the sign bit flipped, floating point in IEEE 754's total order with
/// -0.0 before +0.0 and every NaN equal and last; descending: the complement.
template <class K>
std::uint64_t ordered_bits(K k, bool descending) {
  std::uint64_t u;
  if constexpr (std::is_floating_point_v<K>) {
    using U = std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>;
    constexpr U sign = U(1) << (sizeof(K) * 8 - 1);
    U b;
    std::memcpy(&b, &k, sizeof b);
    u = std::isnan(k) ? U(~U(0)) : (b & sign) ? U(~b) : U(b | sign);
  } else if constexpr (std::is_signed_v<K>) {
    using U = std::make_unsigned_t<K>;
    u = static_cast<U>(static_cast<U>(k) ^ static_cast<U>(U(1) << (sizeof(K) * 8 - 1)));
  } else {
    u = static_cast<std::uint64_t>(k);
  }
  return descending ? ~u : u;
}

/// Whether element (key, rank, position) comes before splitter s.
inline bool before(std::uint64_t key, std::int32_t rank, std::uint64_t position,
                   const sort_sample& s) {
  if (key != s.key) return key < s.key;
  if (rank != s.rank) return rank < s.rank;
  return position < s.position;
}

/// The sample sort behind sort and sort_by_key; `values` null for keys only (V unused then).
template <class K, class V>
void sample_sort(const queue& q, distributed_array<K>& keys, distributed_array<V>* values,
                 order direction, const char* who) {
  const MPI_Comm comm = keys.comm();
  const int rank = keys.rank(), ranks = keys.layout().ranks;
  const std::size_t R = static_cast<std::size_t>(ranks), n = keys.local_size();
  const bool descending = direction == order::descending;
  const call_info info{
      std::string(who) + "<" + type_name<K>() + (values ? ", " + type_name<V>() : "") + ">",
      fingerprint({type_tag<K>(), values ? type_tag<V>() : "", descending ? "desc" : "asc",
                   values ? std::to_string(values->size()) : ""}),
      keys.size()};
  auto sort_on_device = [&](array<K>& k, array<V>* v) { local::sort(q, k, v, direction); };
  // The sorted block stays on the device: the samples come in one gather, the buckets' bounds
  // by a binary search reading single keys (a few dozen reads instead of the whole block).
  const std::size_t s = std::min(n, sort_samples_per_rank);
  std::vector<K> sample_keys;
  collective_step(comm, info, [&] {
    if (values && !(values->layout() == keys.layout()))
      throw error("clforge::mpi::" + std::string(who) + ": the values have " +
                  std::to_string(values->size()) + " elements, the keys " +
                  std::to_string(keys.size()) + " (one layout needed)");
    if (n == 0) return;
    sort_on_device(keys.local(), values ? &values->local() : nullptr);
    if (ranks == 1) return;
    std::vector<cl_ulong> positions(s);
    for (std::size_t j = 0; j < s; ++j) positions[j] = j * n / s;
    sample_keys = local::gather_to_host(q, keys.local(), positions);
  });
  if (ranks == 1) return;  // nothing to exchange

  // Regular samples of the sorted block, then the splitters every rank agrees on.
  std::vector<sort_sample> samples(sort_samples_per_rank);
  for (std::size_t j = 0; j < s; ++j)
    samples[j] = {ordered_bits(sample_keys[j], descending), j * n / s, rank, 1,
                  static_cast<double>(n) / static_cast<double>(s)};
  const std::vector<sort_sample> splitters = choose_splitters(comm, samples, keys.size());

  // Bucket b (to rank b): the elements from splitter b - 1 up to splitter b.
  std::vector<std::uint64_t> send(R, 0);
  collective_step(comm, info, [&] {
    std::size_t from = 0;
    for (std::size_t b = 0; b < R; ++b) {
      std::size_t to = n;
      if (b + 1 < R) {
        std::size_t lo = from, hi = n;  // first position not before splitter b
        while (lo < hi) {
          const std::size_t mid = lo + (hi - lo) / 2;
          K key;
          keys.local().read(q, &key, mid, 1);
          if (before(ordered_bits(key, descending), rank, mid, splitters[b]))
            lo = mid + 1;
          else
            hi = mid;
        }
        to = lo;
      }
      send[b] = to - from;
      from = to;
    }
  });
  std::vector<std::uint64_t> matrix(R * R);  // matrix[s * R + d]: rank s sends to d
  allgather(comm, send.data(), matrix.data(), R * sizeof(std::uint64_t));
  std::vector<std::size_t> send_counts(R), send_offsets(R), recv_counts(R), recv_offsets(R);
  std::size_t sent = 0, arriving = 0;
  for (std::size_t r = 0; r < R; ++r) {
    send_counts[r] = send[r];
    send_offsets[r] = sent;
    sent += send[r];
    recv_counts[r] = matrix[r * R + static_cast<std::size_t>(rank)];
    recv_offsets[r] = arriving;
    arriving += recv_counts[r];
  }
  array<K> bucket_keys;
  array<V> bucket_values;
  collective_step(comm, info, [&] {
    bucket_keys = array<K>(q, arriving);
    if (values) bucket_values = array<V>(q, arriving);
  });
  exchange(q, comm, info, send_counts, send_offsets, recv_counts, recv_offsets, keys.local(),
           bucket_keys, values ? &values->local() : nullptr, values ? &bucket_values : nullptr);

  // The runs arrived in rank order, so a stable sort of them is the global order.
  collective_step(comm, info, [&] {
    if (arriving > 1) sort_on_device(bucket_keys, values ? &bucket_values : nullptr);
  });

  // To the array's blocks: bucket b holds the global elements after the buckets before it.
  std::vector<std::uint64_t> bucket_sizes(R, 0);
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t d = 0; d < R; ++d) bucket_sizes[d] += matrix[r * R + d];
  std::vector<std::size_t> block_offsets, block_lengths;
  block_counts(keys.layout(), block_offsets, block_lengths);
  const to_blocks_plan plan = plan_to_blocks(bucket_sizes, block_offsets, block_lengths, rank);
  exchange(q, comm, info, plan.send_counts, plan.send_offsets, plan.recv_counts, plan.recv_offsets,
           bucket_keys, keys.local(), values ? &bucket_values : nullptr,
           values ? &values->local() : nullptr);
}

}  // namespace detail

/// Sorts the global array `keys` in place across ranks, stably: afterwards the ranks' blocks,
/// in rank order, hold the keys in order (each rank keeps its block's length). Keys: every type
/// clforge::sort takes, in its order (floating point: -0.0 before +0.0, NaNs last; descending
/// is the exact reverse); equal keys keep their global input order. Collective. On an error
/// (on any rank, and every rank throws it) the contents are unspecified.
template <class K>
void sort(const queue& q, distributed_array<K>& keys, order direction = order::ascending) {
  local::check_sort_key<K>();
  detail::sample_sort<K, K>(q, keys, nullptr, direction, "sort");
}

/// sort across ranks, permuting `values` (of the keys' layout) with the keys. Collective.
template <class K, class V>
void sort_by_key(const queue& q, distributed_array<K>& keys, distributed_array<V>& values,
                 order direction = order::ascending) {
  local::check_sort_key<K>();
  local::check_sort_value<V>();
  detail::sample_sort<K, V>(q, keys, &values, direction, "sort_by_key");
}

}  // namespace clforge::mpi
