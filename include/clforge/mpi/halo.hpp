// SPDX-License-Identifier: MIT
// The halo exchange under clforge::mpi's fields (and any layer whose ranks trade regions of
// device buffers with a few neighbours): a list of pieces, each a byte range of a device buffer
// sent to or received from one rank. Internal: distributed_field builds its plan from its slab
// geometry; a layer over unstructured meshes builds one from its send and receive lists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "clforge/mpi/c_api.hpp"
#include "clforge/mpi/collective.hpp"
#include "clforge/queue.hpp"

namespace clforge::mpi {
/// @cond INTERNAL
namespace detail {

/// `bytes` bytes at byte `offset` of `buffer`, sent to or received from rank `peer`. The pieces
/// between two ranks travel as one message per direction, in the order of `key`: the sender's
/// piece and the receiver's piece with the same key are the same data (same size). Keys are
/// unique per peer and direction. A peer equal to the own rank is a device copy (periodic ends
/// on one rank).
struct halo_piece {
  int peer = 0;
  std::uint64_t key = 0;
  cl_mem buffer = nullptr;
  std::size_t offset = 0;
  std::size_t bytes = 0;
};

/// What one rank sends and receives in one exchange. Regions received must not overlap the
/// regions sent.
struct halo_plan {
  std::vector<halo_piece> sends, receives;
};

/// Exchanges the pieces of the plan that `build` makes (called inside the first step, so a bad
/// plan or argument on any rank makes every rank throw): device reads into pinned (mapped) host
/// staging, one MPI message per neighbour and direction, device writes; returns when the data
/// is in place. `info` names the call and is what the ranks agree on. Collective on `comm`.
CLFORGE_MPI_API void exchange_halos(const queue& q, MPI_Comm comm, const call_info& info,
                                    const std::function<void(halo_plan&)>& build);

}  // namespace detail
/// @endcond
}  // namespace clforge::mpi
