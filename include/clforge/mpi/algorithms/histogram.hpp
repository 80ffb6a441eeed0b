// SPDX-License-Identifier: MIT
// Histograms across ranks: clforge::mpi::histogram (each rank counts its block with
// clforge::histogram, the counts are summed over the ranks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "clforge/array.hpp"
#include "clforge/error.hpp"
#include "clforge/mpi/collective.hpp"
#include "clforge/mpi/distributed_array.hpp"
#include "clforge/mpi/local.hpp"
#include "clforge/queue.hpp"

namespace clforge::mpi {

// ---- histogram ------------------------------------------------------------------------------

/// Counts of the global array x in `bins` equal-width bins over [lo, hi], with
/// clforge::histogram's bins and edge rule (numpy's): the same counts on every rank, in an
/// array on the rank's device. A count past 2^32 - 1 is an error (as the counts are cl_uint).
/// T is float or double. Collective.
template <class T>
array<cl_uint> histogram(const queue& q, const distributed_array<T>& x, std::size_t bins, T lo,
                         T hi) {
  const detail::call_info info{"histogram<" + type_name<T>() + ">",
                               detail::fingerprint({detail::type_tag<T>(), std::to_string(bins),
                                                    std::to_string(static_cast<double>(lo)),
                                                    std::to_string(static_cast<double>(hi))}),
                               x.size()};
  std::vector<std::uint64_t> counts;
  detail::collective_step(x.comm(), info, [&] {
    // The bins are checked on every rank, an empty block included.
    const std::vector<cl_uint> mine = local::histogram(q, x.local(), bins, lo, hi);
    counts.assign(mine.begin(), mine.end());
  });
  detail::allreduce_sum(x.comm(), counts.data(), counts.size());
  array<cl_uint> result;
  detail::collective_step(x.comm(), info, [&] {
    std::vector<cl_uint> global(counts.size());
    for (std::size_t b = 0; b < counts.size(); ++b) {
      if (counts[b] > std::numeric_limits<cl_uint>::max())
        throw error("clforge::mpi::histogram: bin " + std::to_string(b) + " counts " +
                    std::to_string(counts[b]) + " values, more than its 32-bit count holds");
      global[b] = static_cast<cl_uint>(counts[b]);
    }
    result = array<cl_uint>::from_host(q, global);
  });
  return result;
}

}  // namespace clforge::mpi
