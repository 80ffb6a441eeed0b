// SPDX-License-Identifier: MIT
// clforge::mpi::block_layout: how a global length is split over the ranks. Nothing here talks
// to MPI.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace clforge::mpi {

// ---- layout ---------------------------------------------------------------------------------

/// A global length split over `ranks` in contiguous blocks of whole granules (granule 1 for
/// plain arrays, the row length for images split in row blocks): rank r holds granules
/// [r * q + min(r, e), ...) with q = G / ranks, e = G % ranks, so block sizes differ by at most
/// one granule and ranks past G hold nothing.
struct block_layout {
  std::size_t length = 0;   ///< Global number of elements.
  std::size_t granule = 1;  ///< Blocks hold whole multiples of this many elements.
  int ranks = 1;            ///< Number of ranks the length is split over.

  /// Global index of the first element of rank's block.
  std::size_t offset(int rank) const {
    const std::size_t units = length / granule, base = units / ranks_count(),
                      extra = units % ranks_count();
    const std::size_t r = static_cast<std::size_t>(rank);
    return (r * base + std::min(r, extra)) * granule;
  }
  /// Number of elements in rank's block.
  std::size_t count(int rank) const {
    const std::size_t units = length / granule, base = units / ranks_count(),
                      extra = units % ranks_count();
    return (base + (static_cast<std::size_t>(rank) < extra ? 1 : 0)) * granule;
  }
  /// ranks as a count (MPI numbers ranks with int).
  std::size_t ranks_count() const { return static_cast<std::size_t>(ranks); }
  /// Same length, granule and rank count.
  bool operator==(const block_layout& o) const {
    return length == o.length && granule == o.granule && ranks == o.ranks;
  }
};

/// @cond INTERNAL
namespace detail {
/// Every rank's block offset and count, as the exchanges take them.
inline void block_counts(const block_layout& l, std::vector<std::size_t>& offsets,
                         std::vector<std::size_t>& counts) {
  offsets.resize(l.ranks_count());
  counts.resize(l.ranks_count());
  for (int r = 0; r < l.ranks; ++r) {
    offsets[static_cast<std::size_t>(r)] = l.offset(r);
    counts[static_cast<std::size_t>(r)] = l.count(r);
  }
}
}  // namespace detail
/// @endcond

}  // namespace clforge::mpi
