// SPDX-License-Identifier: MIT
// Private to lib/mpi: the node window, a shared-memory window over the ranks of a communicator
// when they all run on one node. A rank copies what it sends off its device into its own
// segment; each receiver copies its part from there onto its own device. That is one copy each
// way over the bus instead of the copy off the device, MPI's transport and the copy back on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "clforge/detail/opencl.hpp"
#include "clforge/mpi/c_api.hpp"

namespace clforge::mpi::detail {

struct node_window_state;

/// A communicator's window, held by one exchange (released on destruction). Every rank's
/// segment has the same size; segment(r) is valid on every rank.
class node_lease {
 public:
  node_lease() = default;
  node_lease(node_lease&& other) noexcept : state_(other.state_) { other.state_ = nullptr; }
  node_lease& operator=(node_lease&& other) noexcept {
    std::swap(state_, other.state_);
    return *this;
  }
  node_lease(const node_lease&) = delete;
  ~node_lease();
  explicit operator bool() const { return state_ != nullptr; }
  unsigned char* segment(int rank) const;
  std::size_t segment_bytes() const;
  /// Orders this process's stores and the device's writes before the next synchronisation
  /// (MPI's unified memory model asks for it before other ranks load).
  void sync() const;

 private:
  friend node_lease lease_node_window(MPI_Comm, cl_context, std::size_t);
  explicit node_lease(node_window_state* s) : state_(s) {}
  node_window_state* state_ = nullptr;
};

/// The window of `comm` with segments of at least `bytes`, registered with `ctx` so that device
/// copies to and from it run at pinned-memory speed; an empty lease on every rank where the ranks
/// do not all share a node, any rank chose transport::messages, a window could not be made, or
/// an unfinished exchange holds it. Collective on `comm`, and every rank gets the same
/// answer: call it where every rank arrives (not inside a collective_step).
node_lease lease_node_window(MPI_Comm comm, cl_context ctx, std::size_t bytes);

}  // namespace clforge::mpi::detail
