// SPDX-License-Identifier: MIT
// The halo exchange under clforge::mpi's fields (and any layer whose ranks trade regions of
// device buffers with a few neighbours): a list of pieces, each a byte range of a device buffer
// sent to or received from one rank (the plan is internal: distributed_field builds its plan from
// its slab geometry; a layer over unstructured meshes builds one from its send and receive
// lists); and halo_exchange, an exchange under way, which the user finishes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "clforge/mpi/c_api.hpp"
#include "clforge/mpi/collective.hpp"
#include "clforge/queue.hpp"

namespace clforge::mpi {

class halo_exchange;
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

struct exchange_state;

/// Starts exchanging the pieces of the plan that `build` makes (called inside the first step, so
/// a bad plan or argument on any rank makes every rank throw): enqueues the device reads into
/// pinned (mapped) host staging and the own rank's device copies, and returns; the messages and
/// the writes happen in halo_exchange::finish. `info` names the call and is what the ranks agree
/// on. Collective on `comm`.
CLFORGE_MPI_API halo_exchange start_halo_exchange(const queue& q, MPI_Comm comm,
                                                  const call_info& info,
                                                  const std::function<void(halo_plan&)>& build);

}  // namespace detail
/// @endcond

/// A halo exchange under way (clforge::mpi::start_halo_exchange): the data to send is being
/// copied off the device; finish() sends and receives it and writes what arrives. Device work
/// enqueued between the start and finish() runs while the messages travel, as long as it writes
/// no row being sent and reads no ghost layer being received. Collective: every rank finishes
/// its exchanges in the same order. Dropping an unfinished exchange finishes it (errors then
/// stay unreported: call finish()). Move-only.
class CLFORGE_MPI_API halo_exchange {
 public:
  halo_exchange();
  /// Takes over the exchange; the moved-from object has none pending.
  halo_exchange(halo_exchange&&) noexcept;
  /// Finishes this object's pending exchange first (its errors unreported, as on dropping it),
  /// then takes over the other's.
  halo_exchange& operator=(halo_exchange&&) noexcept;
  halo_exchange(const halo_exchange&) = delete;
  halo_exchange& operator=(const halo_exchange&) = delete;
  ~halo_exchange();
  /// Sends and receives, writes the ghost layers, and returns when they are in place (nothing
  /// to do when already finished).
  void finish();
  /// True until finish().
  bool pending() const;

 private:
  friend halo_exchange detail::start_halo_exchange(const queue&, MPI_Comm, const detail::call_info&,
                                                   const std::function<void(detail::halo_plan&)>&);
  void complete_quietly() noexcept;
  std::unique_ptr<detail::exchange_state> state_;
};

}  // namespace clforge::mpi
