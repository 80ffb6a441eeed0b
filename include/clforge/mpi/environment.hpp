// SPDX-License-Identifier: MIT
// clforge::mpi's set-up for a rank: its device (context_for_rank) and what its exchanges cost.
#pragma once

#include <cstdint>

#include "clforge/context.hpp"
#include "clforge/mpi/c_api.hpp"

namespace clforge::mpi {

// ---- device per rank ----------------------------------------------------------------------

/// This rank's index among the ranks of `comm` on the same node (MPI_COMM_TYPE_SHARED).
/// Collective.
CLFORGE_MPI_API int node_local_rank(MPI_Comm comm);

/// A context for this rank: CLFORGE_DEVICE when set (every rank takes that device); otherwise
/// GPU number node_local_rank % (GPUs on the node), in clforge::list_devices order; with no GPU,
/// the default device (the first device). Collective: a rank that cannot make its context makes
/// every rank throw.
CLFORGE_MPI_API context context_for_rank(MPI_Comm comm);

// ---- how data crosses ranks ----------------------------------------------------------------

/// How the exchanges (sort, copy_if, halos, the mesh loops) move data between ranks.
enum class transport {
  /// Where every rank of the communicator runs on one node, through a shared-memory window
  /// (each rank copies what it sends off its device into its segment; each receiver copies its
  /// part from there onto its device); otherwise MPI messages staged in pinned host memory.
  automatic,
  /// Always MPI messages (to compare, or where an MPI's shared-memory windows misbehave).
  messages,
};
/// Sets how this process's later exchanges move data. Ranks that differ take messages: an
/// exchange uses the shared-memory window only where every rank chose `automatic`.
CLFORGE_MPI_API void set_transport(transport t);
CLFORGE_MPI_API transport current_transport();

// ---- what the exchanges cost ----------------------------------------------------------------

/// Time this process spent inside MPI calls made by clforge::mpi (the exchanges and the
/// agreements before them, waiting for slower ranks included), how many calls, and the bytes
/// this rank sent. For benchmarks: the rest of a call's time is local (device and host staging).
struct exchange_stats {
  double seconds = 0;            ///< Wall time inside MPI calls.
  std::uint64_t calls = 0;       ///< Number of MPI calls.
  std::uint64_t bytes_sent = 0;  ///< Bytes this rank sent.
};
CLFORGE_MPI_API exchange_stats stats();
CLFORGE_MPI_API void reset_stats();

}  // namespace clforge::mpi
