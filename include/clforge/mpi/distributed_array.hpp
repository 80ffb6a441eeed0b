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

/// MPI_Alltoallv between device arrays: this rank's src[send_offsets[d] ...) (send_counts[d]
/// elements) goes to rank d, which finds it at dst[recv_offsets[s] ...) for this rank s; with
/// `values` and `values_dst`, the values at the same places move with the keys in the same
/// message. The part a rank keeps is a device copy; only what leaves crosses the host, staged
/// in the queue's pinned areas (staging_lease). Collective: the local parts run as
/// collective_step steps of `info`.
template <class K, class V = K>
void exchange(const queue& q, MPI_Comm comm, const call_info& info,
              const std::vector<std::size_t>& send_counts,
              const std::vector<std::size_t>& send_offsets,
              const std::vector<std::size_t>& recv_counts,
              const std::vector<std::size_t>& recv_offsets, const array<K>& src, array<K>& dst,
              const array<V>* values = nullptr, array<V>* values_dst = nullptr) {
  const std::size_t ranks = send_counts.size(), me = static_cast<std::size_t>(comm_rank(comm));
  // One message per rank: its keys, then its values (element_bytes per element).
  const std::size_t element_bytes = sizeof(K) + (values ? sizeof(V) : 0);
  std::vector<std::size_t> out_counts = send_counts, in_counts = recv_counts, out_offsets(ranks, 0),
                           in_offsets(ranks, 0);
  out_counts[me] = in_counts[me] = 0;
  std::size_t out_total = 0, in_total = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    out_offsets[r] = out_total;
    out_total += out_counts[r];
    in_offsets[r] = in_total;
    in_total += in_counts[r];
  }
  std::unique_ptr<staging_lease> outgoing, incoming;
  auto at = [&](const std::unique_ptr<staging_lease>& area, std::size_t element) {
    return static_cast<unsigned char*>(area->data()) + element * element_bytes;
  };
  collective_step(comm, info, [&] {
    for (const auto* counts : {&out_offsets, &in_offsets, &out_counts, &in_counts})
      check_counts(info.what.c_str(), *counts);
    outgoing = std::make_unique<staging_lease>(q, 0, out_total * element_bytes);
    incoming = std::make_unique<staging_lease>(q, 1, in_total * element_bytes);
    for (std::size_t r = 0; r < ranks; ++r) {
      if (out_counts[r] == 0) continue;
      unsigned char* message = at(outgoing, out_offsets[r]);
      src.read(q, reinterpret_cast<K*>(message), send_offsets[r], out_counts[r]);
      if (values)
        values->read(q, reinterpret_cast<V*>(message + out_counts[r] * sizeof(K)), send_offsets[r],
                     out_counts[r]);
    }
    if (send_counts[me] > 0) {
      src.copy_to(q, dst, send_offsets[me], recv_offsets[me], send_counts[me]);
      if (values)
        values->copy_to(q, *values_dst, send_offsets[me], recv_offsets[me], send_counts[me]);
    }
  });
  alltoallv(comm, outgoing->data(), out_counts, out_offsets, incoming->data(), in_counts,
            in_offsets, element_bytes);
  collective_step(comm, info, [&] {
    for (std::size_t r = 0; r < ranks; ++r) {
      if (in_counts[r] == 0) continue;
      const unsigned char* message = at(incoming, in_offsets[r]);
      dst.write(q, reinterpret_cast<const K*>(message), recv_offsets[r], in_counts[r]);
      if (values)
        values_dst->write(q, reinterpret_cast<const V*>(message + in_counts[r] * sizeof(K)),
                          recv_offsets[r], in_counts[r]);
    }
  });
}

}  // namespace detail

}  // namespace clforge::mpi
