// SPDX-License-Identifier: MIT
// The agreement protocol under every collective call of clforge::mpi (collective_step: every
// rank throws the same error or none does) and the MPI exchanges in elements. Internal: the
// distributed containers and algorithms are built on it; a new one uses collective_step for its
// local work and these exchanges between the steps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "clforge/context.hpp"
#include "clforge/mpi/c_api.hpp"
#include "clforge/queue.hpp"
#include "clforge/types.hpp"

namespace clforge::mpi {
/// @cond INTERNAL
namespace detail {

/// What the ranks agree on before an exchange: the operation with its types (`what`, also used
/// in messages), a fingerprint of everything else that must match (snippets, root, options) and
/// the global length.
struct call_info {
  std::string what;
  std::uint64_t fingerprint = 0;
  std::uint64_t length = 0;
  bool has_length = true;  // false for calls without an array (constructors)
};

/// FNV-1a over the parts (with separators), for call_info::fingerprint.
CLFORGE_MPI_API std::uint64_t fingerprint(std::initializer_list<std::string_view> parts);

/// Every rank passes its call_info and its local failure (nullptr: none). Throws the same
/// clforge::error on every rank when the infos differ or some rank failed.
CLFORGE_MPI_API void agree(MPI_Comm comm, const call_info& info, const std::string* failure);

/// Runs `local` (this rank's part), catching what it throws, then agree(): the one way the
/// functions below let an error out, so every rank throws or none does.
template <class F>
void collective_step(MPI_Comm comm, const call_info& info, F&& local) {
  std::string failure;
  bool failed = false;
  try {
    local();
  } catch (const std::exception& e) {
    failed = true;
    failure = e.what();
  } catch (...) {
    failed = true;
    failure = "unknown exception";
  }
  agree(comm, info, failed ? &failure : nullptr);
}

CLFORGE_MPI_API int comm_rank(MPI_Comm comm);
CLFORGE_MPI_API int comm_size(MPI_Comm comm);
/// The MPI exchanges, on elements of `element_size` bytes, counts and offsets in elements.
/// They throw clforge::error only for a failed MPI call (which the default MPI error handler
/// turns into an abort before that).
CLFORGE_MPI_API void allgather(MPI_Comm comm, const void* mine, void* all,
                               std::size_t element_size);
CLFORGE_MPI_API void scatterv(MPI_Comm comm, int root, const void* send,
                              const std::vector<std::size_t>& counts,
                              const std::vector<std::size_t>& offsets, void* recv,
                              std::size_t element_size);
CLFORGE_MPI_API void gatherv(MPI_Comm comm, int root, const void* send, std::size_t count,
                             void* recv, const std::vector<std::size_t>& counts,
                             const std::vector<std::size_t>& offsets, std::size_t element_size);
/// Adds an exchange made outside the functions above (point-to-point halos) to stats().
CLFORGE_MPI_API void record_exchange(double seconds, std::uint64_t calls, std::uint64_t bytes_sent);
/// values[k] = the sum over the ranks of their values[k], on every rank.
CLFORGE_MPI_API void allreduce_sum(MPI_Comm comm, std::uint64_t* values, std::size_t count);

/// Elements held in rank order (rank s holds `counts[s]` of them, after the ranks before)
/// moved to the contiguous blocks of a layout (block_layout offsets and counts, `ranks` of
/// them): what this rank sends to and receives from each rank, in elements, for detail::exchange.
struct to_blocks_plan {
  std::vector<std::size_t> send_counts, send_offsets, recv_counts, recv_offsets;
  std::size_t total = 0;     ///< elements over all ranks
  std::size_t received = 0;  ///< elements arriving in this rank's block (from its start)
};
CLFORGE_MPI_API to_blocks_plan plan_to_blocks(const std::vector<std::uint64_t>& counts,
                                              const std::vector<std::size_t>& block_offsets,
                                              const std::vector<std::size_t>& block_counts,
                                              int rank);

/// Host memory an exchange stages through on `q`: pinned where the driver gives it (a buffer
/// made with CL_MEM_ALLOC_HOST_PTR, mapped once, kept with the queue and grown as needed), so
/// that reads and writes of device arrays move straight between the device and the memory MPI
/// sends from. One area per queue (the halo exchange's messages, both directions); a lease holds
/// it until it ends, and a lease while another lease holds it (another thread on the queue) or
/// where it cannot be made gets ordinary memory. The kept area goes with the queue.
class CLFORGE_MPI_API staging_lease {
 public:
  staging_lease(const queue& q, std::size_t bytes);
  ~staging_lease();
  staging_lease(const staging_lease&) = delete;
  staging_lease& operator=(const staging_lease&) = delete;
  /// At least `bytes` bytes (nullptr for 0), valid while the lease lives.
  void* data() const { return data_; }
  /// Whether the memory is the queue's mapped area (not the ordinary fallback).
  bool pinned() const { return held_ != nullptr; }

 private:
  void* data_ = nullptr;
  std::shared_ptr<void> area_;  // keeps the held area alive
  void* held_ = nullptr;        // the held area (its lock), or null
  std::vector<unsigned char> fallback_;
};

/// Throws unless every count fits MPI's int counts.
CLFORGE_MPI_API void check_counts(const char* who, const std::vector<std::size_t>& counts);
/// Built objects kept per (context, key) with the context (detail::per_context), released with
/// it; `make` receives a handle that does not keep the context alive.
template <class K, class Make>
const K& cached_object(const context& ctx, const std::string& key, const Make& make) {
  return *std::static_pointer_cast<K>(clforge::detail::per_context(ctx, "clforge.mpi", key, [&] {
    return std::static_pointer_cast<void>(
        std::make_shared<K>(make(clforge::detail::weak_context(ctx))));
  }));
}

template <class T>
std::string type_tag() {
  return type_name<T>() + "/" + std::to_string(sizeof(T));
}

}  // namespace detail
/// @endcond
}  // namespace clforge::mpi
