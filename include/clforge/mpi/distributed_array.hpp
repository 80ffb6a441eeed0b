// SPDX-License-Identifier: MIT
// clforge::mpi::distributed_array: a global array in contiguous blocks over the ranks, each block
// a clforge::array on the rank's device; and how the algorithms find the distributed arguments
// among theirs (detail::layout_of, detail::local_argument).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "clforge/array.hpp"
#include "clforge/error.hpp"
#include "clforge/mpi/c_api.hpp"
#include "clforge/mpi/collective.hpp"
#include "clforge/mpi/halo.hpp"
#include "clforge/mpi/layout.hpp"
#include "clforge/queue.hpp"
#include "clforge/types.hpp"

namespace clforge::mpi {

// ---- distributed_array ----------------------------------------------------------------------

/// A global array of T in contiguous blocks over the ranks of a communicator (block_layout),
/// each block a clforge::array<T> on the rank's device, so every single-device template runs on
/// local() unchanged. Move-only, like array. The communicator must outlive the array.
template <class T>
class distributed_array {
 public:
  distributed_array() = default;
  /// `global_length` uninitialised elements; `granule` elements stay together (an image's row
  /// length for row blocks; global_length must be a multiple). Collective.
  distributed_array(const queue& q, MPI_Comm comm, std::size_t global_length,
                    std::size_t granule = 1)
      : q_(std::make_shared<queue>(q)), comm_(comm) {
    detail::call_info info{"distributed_array<" + type_name<T>() + ">",
                           detail::fingerprint({detail::type_tag<T>(), std::to_string(granule)}),
                           global_length};
    detail::collective_step(comm, info, [&] {
      rank_ = detail::comm_rank(comm);
      if (granule == 0) throw error("distributed_array: the granule must be at least 1");
      if (global_length % granule != 0)
        throw error("distributed_array: the length " + std::to_string(global_length) +
                    " is not a multiple of the granule " + std::to_string(granule));
      layout_ = block_layout{global_length, granule, detail::comm_size(comm)};
      local_ = array<T>(q, layout_.count(rank_));
    });
  }
  /// A width x height row-major image split in blocks of whole rows. Collective.
  static distributed_array rows(const queue& q, MPI_Comm comm, std::size_t width,
                                std::size_t height) {
    return distributed_array(q, comm, width * height, width == 0 ? 1 : width);
  }

  /// Root sends host[offset(r) .. offset(r) + count(r)) to rank r; host must hold size()
  /// elements on root and is not read elsewhere. Collective.
  void scatter_from(int root, const std::vector<T>& host) {
    const detail::call_info info = exchange_info("scatter_from", root);
    std::vector<std::size_t> counts, offsets;
    detail::collective_step(comm_, info, [&] {
      check_root("scatter_from", root);
      if (rank_ == root && host.size() != size())
        throw error("distributed_array::scatter_from: root " + std::to_string(root) + " passed " +
                    std::to_string(host.size()) + " elements for an array of " +
                    std::to_string(size()));
      block_counts(counts, offsets);
      detail::check_counts("distributed_array::scatter_from", counts);
    });
    std::vector<T> block(local_size());
    detail::scatterv(comm_, root, rank_ == root ? host.data() : nullptr, counts, offsets,
                     block.data(), sizeof(T));
    detail::collective_step(comm_, info, [&] {
      if (!block.empty()) local_.write(*q_, block.data(), 0, block.size());
    });
  }
  /// The whole array on root (size() elements); an empty vector on the other ranks. Collective.
  std::vector<T> gather_to(int root) const {
    const detail::call_info info = exchange_info("gather_to", root);
    std::vector<std::size_t> counts, offsets;
    std::vector<T> block(local_size());
    detail::collective_step(comm_, info, [&] {
      check_root("gather_to", root);
      block_counts(counts, offsets);
      detail::check_counts("distributed_array::gather_to", counts);
      if (!block.empty()) local_.read(*q_, block.data(), 0, block.size());
    });
    std::vector<T> all(rank_ == root ? size() : 0);
    detail::gatherv(comm_, root, block.data(), block.size(), all.data(), counts, offsets,
                    sizeof(T));
    return all;
  }

  /// This rank's block on its device.
  array<T>& local() { return local_; }
  /// This rank's block on its device (read only).
  const array<T>& local() const { return local_; }
  /// Global number of elements (all ranks).
  std::size_t size() const { return layout_.length; }
  /// Number of elements in this rank's block.
  std::size_t local_size() const { return local_.size(); }
  /// Global index of local()[0].
  std::size_t local_offset() const { return layout_.offset(rank_); }
  /// How the global elements are split over the ranks.
  const block_layout& layout() const { return layout_; }
  /// The communicator the array is distributed over.
  MPI_Comm comm() const { return comm_; }
  /// This process's rank in comm().
  int rank() const { return rank_; }
  /// The queue this rank's block lives on.
  const queue& q() const { return *q_; }

 private:
  detail::call_info exchange_info(const char* op, int root) const {
    return {std::string(op) + "<" + type_name<T>() + ">",
            detail::fingerprint(
                {detail::type_tag<T>(), std::to_string(root), std::to_string(layout_.granule)}),
            layout_.length};
  }
  void check_root(const char* op, int root) const {
    if (root < 0 || root >= layout_.ranks)
      throw error(std::string("distributed_array::") + op + ": root " + std::to_string(root) +
                  " is not a rank of the communicator (" + std::to_string(layout_.ranks) +
                  " ranks)");
  }
  void block_counts(std::vector<std::size_t>& counts, std::vector<std::size_t>& offsets) const {
    detail::block_counts(layout_, offsets, counts);
  }

  std::shared_ptr<queue> q_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  block_layout layout_;
  array<T> local_;
};

namespace detail {

template <class T>
struct is_distributed : std::false_type {};
template <class T>
struct is_distributed<distributed_array<T>> : std::true_type {};

/// A distributed_array argument becomes its local block; anything else passes unchanged.
template <class A>
const A& local_argument(const A& a) {
  return a;
}
template <class T>
const array<T>& local_argument(const distributed_array<T>& a) {
  return a.local();
}

/// The communicator and layout of the first distributed_array argument, and whether all the
/// distributed_array arguments share that layout.
struct argument_layout {
  bool found = false, consistent = true;
  MPI_Comm comm = MPI_COMM_NULL;
  block_layout layout;
  template <class A>
  void add(const A& a) {
    if constexpr (is_distributed<A>::value) {
      if (!found) {
        found = true;
        comm = a.comm();
        layout = a.layout();
      } else if (!(a.layout() == layout)) {
        consistent = false;
      }
    }
  }
};
template <class... Args>
argument_layout layout_of(const char* who, const Args&... args) {
  argument_layout l;
  (l.add(args), ...);
  if (!l.found)
    throw error(std::string("clforge::mpi::") + who +
                ": needs a distributed_array argument (its communicator and length)");
  return l;
}
CLFORGE_MPI_API void throw_inconsistent_layouts(const std::string& who);

/// Alltoallv between device arrays: this rank's src[send_offsets[d] ...) (send_counts[d]
/// elements) goes to rank d, which finds it at dst[recv_offsets[s] ...) for this rank s; with
/// `values` and `values_dst`, the values at the same places move with the keys in the same
/// message. The part a rank keeps is a device copy; the rest travels as the halo exchange's
/// pieces (halo.hpp: through the node window or as messages). Collective.
template <class K, class V = K>
void exchange(const queue& q, MPI_Comm comm, const call_info& info,
              const std::vector<std::size_t>& send_counts,
              const std::vector<std::size_t>& send_offsets,
              const std::vector<std::size_t>& recv_counts,
              const std::vector<std::size_t>& recv_offsets, const array<K>& src, array<K>& dst,
              const array<V>* values = nullptr, array<V>* values_dst = nullptr) {
  start_halo_exchange(q, comm, info, [&](halo_plan& plan) {
    const std::size_t ranks = send_counts.size();
    for (const auto* counts : {&send_offsets, &recv_offsets, &recv_counts})
      if (counts->size() != ranks)
        throw error(info.what + ": the exchange's counts and offsets differ in length");
    auto add = [&](std::vector<halo_piece>& to, int peer, std::uint64_t key, cl_mem buffer,
                   std::size_t element, std::size_t at, std::size_t count) {
      if (count > 0) to.push_back({peer, key, buffer, at * element, count * element});
    };
    for (std::size_t r = 0; r < ranks; ++r) {
      const int peer = static_cast<int>(r);
      clforge::detail::check_range("exchange (source)", send_offsets[r], send_counts[r],
                                   src.size());
      clforge::detail::check_range("exchange (destination)", recv_offsets[r], recv_counts[r],
                                   dst.size());
      add(plan.sends, peer, 0, src.get(), sizeof(K), send_offsets[r], send_counts[r]);
      add(plan.receives, peer, 0, dst.get(), sizeof(K), recv_offsets[r], recv_counts[r]);
      if (values) {
        add(plan.sends, peer, 1, values->get(), sizeof(V), send_offsets[r], send_counts[r]);
        add(plan.receives, peer, 1, values_dst->get(), sizeof(V), recv_offsets[r], recv_counts[r]);
      }
    }
  }).finish();
}

}  // namespace detail

}  // namespace clforge::mpi
