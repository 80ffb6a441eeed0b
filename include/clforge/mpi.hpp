// SPDX-License-Identifier: MIT
// clforge::mpi: arrays split over MPI ranks, one device per rank, and the algorithms across them
// (reduce, scan, copy_if, polygon masks). Link clforge::mpi; start the program with mpirun.
//
//   MPI_Init(&argc, &argv);
//   cf::context ctx = cf::mpi::context_for_rank(MPI_COMM_WORLD);   // a GPU per rank on a node
//   cf::queue q(ctx);
//   cf::mpi::distributed_array<int> x(q, MPI_COMM_WORLD, n);       // contiguous blocks
//   x.scatter_from(0, host);                                         // host: n values on rank 0
//   long s = cf::mpi::sum<long>(q, x);                               // the same on every rank
//   cf::mpi::inclusive_scan(q, x, x);                                // global prefix sums
//   std::vector<int> all = x.gather_to(0);                           // rank 0 gets n values
//   cf::sum(q, x.local());                                           // any local template
//
// Every function here taking a distributed_array (and the constructors) is a collective call on
// the array's communicator: every rank calls it, in the same order, with arguments that agree
// (global lengths, types, snippets, root). Before every exchange the ranks agree on a small
// descriptor of the call and on whether each rank's local part succeeded; when they disagree, or
// any rank failed (an OpenCL error, a bad argument), every rank throws the same clforge::error
// naming the ranks and the difference, instead of hanging in mismatched exchanges. A call
// returns normally on every rank or throws on every rank. (A rank that never makes the call, or
// dies, still hangs the others: MPI offers no way around that.) Collective calls on one
// communicator must come from one thread at a time, as MPI requires.
//
// Data crosses MPI through host memory; docs/mpi.md says what each call sends and how a
// GPU-aware transport would plug in. Sorting across ranks is not here (there is no single-device
// sort yet).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "clforge/array.hpp"
#include "clforge/context.hpp"
#include "clforge/error.hpp"
#include "clforge/mpi/local.hpp"
#include "clforge/queue.hpp"
#include "clforge/types.hpp"

namespace clforge::mpi {

// ---- device per rank ----------------------------------------------------------------------

/// This rank's index among the ranks of `comm` on the same node (MPI_COMM_TYPE_SHARED).
/// Collective.
int node_local_rank(MPI_Comm comm);

/// A context for this rank: CLFORGE_DEVICE when set (every rank takes that device); otherwise
/// GPU number node_local_rank % (GPUs on the node), in clforge::list_devices order; with no GPU,
/// the default device (the first device). Collective: a rank that cannot make its context makes
/// every rank throw.
context context_for_rank(MPI_Comm comm);

// ---- what the exchanges cost ----------------------------------------------------------------

/// Time this process spent inside MPI calls made by clforge::mpi (the exchanges and the
/// agreements before them, waiting for slower ranks included), how many calls, and the bytes
/// this rank sent. For benchmarks: the rest of a call's time is local (device and host staging).
struct exchange_stats {
  double seconds = 0;            ///< Wall time inside MPI calls.
  std::uint64_t calls = 0;       ///< Number of MPI calls.
  std::uint64_t bytes_sent = 0;  ///< Bytes this rank sent.
};
exchange_stats stats();
void reset_stats();

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
    const std::size_t units = length / granule, base = units / ranks, extra = units % ranks;
    const std::size_t r = static_cast<std::size_t>(rank);
    return (r * base + std::min(r, extra)) * granule;
  }
  /// Number of elements in rank's block.
  std::size_t count(int rank) const {
    const std::size_t units = length / granule, base = units / ranks, extra = units % ranks;
    return (base + (static_cast<std::size_t>(rank) < extra ? 1 : 0)) * granule;
  }
  /// Same length, granule and rank count.
  bool operator==(const block_layout& o) const {
    return length == o.length && granule == o.granule && ranks == o.ranks;
  }
};

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
std::uint64_t fingerprint(std::initializer_list<std::string_view> parts);

/// Every rank passes its call_info and its local failure (nullptr: none). Throws the same
/// clforge::error on every rank when the infos differ or some rank failed.
void agree(MPI_Comm comm, const call_info& info, const std::string* failure);

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

int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);
/// The MPI exchanges, on elements of `element_size` bytes, counts and offsets in elements.
/// They throw clforge::error only for a failed MPI call (which the default MPI error handler
/// turns into an abort before that).
void allgather(MPI_Comm comm, const void* mine, void* all, std::size_t element_size);
void scatterv(MPI_Comm comm, int root, const void* send, const std::vector<std::size_t>& counts,
              const std::vector<std::size_t>& offsets, void* recv, std::size_t element_size);
void gatherv(MPI_Comm comm, int root, const void* send, std::size_t count, void* recv,
             const std::vector<std::size_t>& counts, const std::vector<std::size_t>& offsets,
             std::size_t element_size);
void alltoallv(MPI_Comm comm, const void* send, const std::vector<std::size_t>& send_counts,
               const std::vector<std::size_t>& send_offsets, void* recv,
               const std::vector<std::size_t>& recv_counts,
               const std::vector<std::size_t>& recv_offsets, std::size_t element_size);
/// Throws unless every count fits MPI's int counts.
void check_counts(const char* who, const std::vector<std::size_t>& counts);

/// `text` with every identifier `name` replaced by `replacement` (identifier boundaries; the
/// snippets are OpenCL C expressions and statements).
std::string replace_identifier(const std::string& text, const std::string& name,
                               const std::string& replacement);
bool uses_identifier(const std::string& text, const std::string& name);

/// The largest first row t <= first_row such that every vertex y - t is exact in float, so the
/// polygons moved up by t give the pixels of the whole image bit for bit.
std::size_t exact_row_shift(const std::vector<const std::vector<point2f>*>& polygons,
                            std::size_t first_row);

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
    counts.resize(layout_.ranks);
    offsets.resize(layout_.ranks);
    for (int r = 0; r < layout_.ranks; ++r) {
      counts[r] = layout_.count(r);
      offsets[r] = layout_.offset(r);
    }
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
void throw_inconsistent_layouts(const std::string& who);

/// Reduces one partial per rank: each rank's `partial()` (run in the first step), an allgather
/// of the partials, then `combine(array of the partials in rank order)` on each rank's device.
template <class T, class Partial, class Combine>
T reduce_over_ranks(MPI_Comm comm, const queue& q, const call_info& info, Partial&& partial,
                    Combine&& combine) {
  T mine{};
  collective_step(comm, info, [&] { mine = partial(); });
  std::vector<T> all(static_cast<std::size_t>(comm_size(comm)));
  allgather(comm, &mine, all.data(), sizeof(T));
  T result{};
  collective_step(comm, info, [&] {
    array<T> partials = array<T>::from_host(q, all);
    result = combine(partials);
  });
  return result;
}

}  // namespace detail

// ---- reductions -----------------------------------------------------------------------------

/// reduction_kernel<T> across ranks: the same snippets; each rank reduces its blocks on its
/// device, the ranks' partials are allgathered and reduced again on every device with the same
/// reduce snippet (so struct types and any associative operation work), in rank order. The
/// map's `i` and `n` are the rank's local index and block length. Every rank gets the result.
template <class T>
class reduction_kernel {
 public:
  /// Builds on every rank. Collective.
  reduction_kernel(MPI_Comm comm, const context& ctx, const std::string& arguments,
                   const std::string& map, const std::string& reduce, const std::string& neutral,
                   const reduction_options& options = {})
      : comm_(comm),
        what_("reduction_kernel<" + type_name<T>() + ">"),
        fingerprint_(detail::fingerprint({detail::type_tag<T>(), arguments, map, reduce, neutral,
                                          options.preamble, options.build_options,
                                          options.compensated ? "kahan" : "plain"})) {
    detail::collective_step(comm, {what_ + " construction", fingerprint_, 0, false}, [&] {
      local_ = local::reducer<T>(ctx, arguments, map, reduce, neutral, options);
      reduction_options combine_options = options;
      if (!combine_options.name.empty()) combine_options.name += "_ranks";
      combine_options.check_array_lengths = true;
      const std::string type = type_name<T>();
      combine_ = local::reducer<T>(ctx, "global const " + type + "* cfmpi_partials",
                                   "cfmpi_partials[i]", reduce, neutral, combine_options);
    });
  }

  /// Reduces over the blocks of the distributed_array arguments (which must share one layout;
  /// other arguments pass to every rank's kernel as they are). Collective.
  template <class... Args>
  T operator()(const queue& q, const Args&... args) const {
    detail::argument_layout l;
    std::uint64_t length = 0;
    try {
      l = detail::layout_of("reduction_kernel", args...);
      length = l.layout.length;
    } catch (const error&) {
      // No distributed argument: no communicator to agree on but the kernel's.
    }
    return detail::reduce_over_ranks<T>(
        comm_, q, {what_, fingerprint_, length},
        [&] {
          if (!l.found) detail::layout_of("reduction_kernel", args...);
          if (!l.consistent) detail::throw_inconsistent_layouts("reduction_kernel");
          return local_(q, detail::local_argument(args)...);
        },
        [&](const array<T>& partials) { return combine_(q, partials); });
  }

 private:
  MPI_Comm comm_;
  std::string what_;
  std::uint64_t fingerprint_;
  local::reducer<T> local_, combine_;
};

/// Sum of x over all ranks, in R (default T). Collective; the same value on every rank.
template <class R = void, class T>
clforge::detail::sum_result_t<R, T> sum(const queue& q, const distributed_array<T>& x) {
  using Out = clforge::detail::sum_result_t<R, T>;
  return detail::reduce_over_ranks<Out>(
      x.comm(), q,
      {"sum<" + type_name<Out>() + ">", detail::fingerprint({detail::type_tag<T>()}), x.size()},
      [&] { return local::sum<Out>(q, x.local()); },
      [&](const array<Out>& partials) { return local::sum<Out>(q, partials); });
}

/// Sum of x[i] * y[i] over all ranks (x and y of one layout). Collective.
template <class T>
T dot(const queue& q, const distributed_array<T>& x, const distributed_array<T>& y) {
  return detail::reduce_over_ranks<T>(
      x.comm(), q,
      {"dot<" + type_name<T>() + ">",
       detail::fingerprint({detail::type_tag<T>(), std::to_string(y.size())}), x.size()},
      [&] {
        if (!(x.layout() == y.layout()))
          throw error("clforge::mpi::dot: x has " + std::to_string(x.size()) + " elements, y " +
                      std::to_string(y.size()));
        return local::dot(q, x.local(), y.local());
      },
      [&](const array<T>& partials) { return local::sum<T>(q, partials); });
}

/// Smallest element over all ranks (NaN ignored, as clforge::min). Throws on every rank for an
/// empty array. Collective.
template <class T>
T min(const queue& q, const distributed_array<T>& x) {
  return detail::reduce_over_ranks<T>(
      x.comm(), q,
      {"min<" + type_name<T>() + ">", detail::fingerprint({detail::type_tag<T>()}), x.size()},
      [&] {
        if (x.size() == 0) throw error("clforge::mpi::min: the array is empty");
        return local::min_or_neutral(q, x.local());
      },
      [&](const array<T>& partials) { return local::min_or_neutral(q, partials); });
}

/// Largest element over all ranks (NaN ignored, as clforge::max). Collective.
template <class T>
T max(const queue& q, const distributed_array<T>& x) {
  return detail::reduce_over_ranks<T>(
      x.comm(), q,
      {"max<" + type_name<T>() + ">", detail::fingerprint({detail::type_tag<T>()}), x.size()},
      [&] {
        if (x.size() == 0) throw error("clforge::mpi::max: the array is empty");
        return local::max_or_neutral(q, x.local());
      },
      [&](const array<T>& partials) { return local::max_or_neutral(q, partials); });
}

// ---- scans ----------------------------------------------------------------------------------

namespace detail {

/// The three local kernels of a scan across ranks:
///   total   the rank's inclusive total (a scan that writes only its last value, so the order
///           of a non-commutative operation is kept);
///   carry   over the ranks' totals (rank order, empty ranks as neutral): this rank's carry-in
///           (the scan of the ranks before) and the global total;
///   main    the user's scan, its output statement seeing item = carry op item (likewise
///           prev_item) and last_item = the global total.
template <class T>
struct scan_parts {
  local::scanner<T> total, carry, main;
  bool uses_last_item;  // else the last rank's total is needed by nobody: it skips that pass
};

std::string scan_output_across_ranks(const std::string& type, const std::string& output);
scan_options scan_part_options(const scan_options& options, const std::string& suffix,
                               const std::string& type, const std::string& scan);

template <class T>
scan_parts<T> make_scan_parts(const context& ctx, const std::string& arguments,
                              const std::string& input, const std::string& scan,
                              const std::string& neutral, const std::string& output, scan_kind kind,
                              const scan_options& options) {
  if (!options.is_segment_start.empty())
    throw error("clforge::mpi::scan_kernel: segmented scans across ranks are not supported");
  const std::string type = type_name<T>();
  const scan_options base = scan_part_options(options, "", type, scan);
  return scan_parts<T>{
      local::scanner<T>(ctx, arguments + ", global " + type + "* cfmpi_total", input, scan, neutral,
                        "if (i == n - 1) cfmpi_total[0] = item;", scan_kind::inclusive,
                        scan_part_options(options, "_total", type, scan)),
      local::scanner<T>(ctx,
                        "global const " + type +
                            "* cfmpi_totals, global const uchar* "
                            "cfmpi_has, global " +
                            type + "* cfmpi_carry, ulong cfmpi_rank",
                        "cfmpi_has[i] ? cfmpi_totals[i] : (" + neutral + ")", scan, neutral,
                        "if (i == cfmpi_rank) cfmpi_carry[0] = prev_item; "
                        "if (i == n - 1) cfmpi_carry[1] = item;",
                        scan_kind::inclusive, scan_part_options(options, "_carry", type, scan)),
      local::scanner<T>(ctx, arguments + ", constant " + type + "* cfmpi_carry", input, scan,
                        neutral, scan_output_across_ranks(type, output), kind, base),
      uses_identifier(output, "last_item")};
}

/// A rank's total and whether it has one (an empty block has none: neutral).
template <class T>
struct rank_total {
  T value;
  std::uint8_t has;
};

template <class T, class... Args>
event scan_over_ranks(const queue& q, const call_info& info_without_length,
                      const scan_parts<T>* parts_or_null,
                      const std::shared_ptr<const scan_parts<T>>& (*get_parts)(const queue&,
                                                                               const void*),
                      const void* get_argument, const Args&... args) {
  argument_layout l = layout_of(info_without_length.what.c_str(), args...);
  call_info info = info_without_length;
  info.length = l.layout.length;
  const MPI_Comm comm = l.comm;
  const int rank = comm_rank(comm), ranks = comm_size(comm);
  const scan_parts<T>* parts = parts_or_null;
  std::shared_ptr<const scan_parts<T>> keep;
  rank_total<T> mine{};
  collective_step(comm, info, [&] {
    if (!l.consistent) throw_inconsistent_layouts(info.what);
    if (!parts) {
      keep = get_parts(q, get_argument);
      parts = keep.get();
    }
    const bool needed = rank < ranks - 1 || parts->uses_last_item;
    if (needed && l.layout.count(rank) > 0) {
      array<T> total(q, 1);
      parts->total(q, local_argument(args)..., total);
      total.read(q, &mine.value, 0, 1);
      mine.has = 1;
    }
  });
  std::vector<rank_total<T>> all(static_cast<std::size_t>(ranks));
  allgather(comm, &mine, all.data(), sizeof(rank_total<T>));
  event last;
  collective_step(comm, info, [&] {
    std::vector<T> totals(all.size());
    std::vector<cl_uchar> has(all.size());
    for (std::size_t r = 0; r < all.size(); ++r) {
      totals[r] = all[r].value;
      has[r] = all[r].has;
    }
    array<T> totals_d = array<T>::from_host(q, totals);
    array<cl_uchar> has_d = array<cl_uchar>::from_host(q, has);
    array<T> carry(q, 2);
    parts->carry(q, totals_d, has_d, carry, static_cast<cl_ulong>(rank));
    last = parts->main(q, local_argument(args)..., carry);
  });
  return last;
}

}  // namespace detail

/// scan_kernel<T> across ranks, with the same snippets. Each rank scans its blocks; its output
/// statement sees the global values: `item` and `prev_item` include every element of the ranks
/// before (combined in rank order, so operations that do not commute work), `last_item` is the
/// total over all ranks; `i` and `n` are the local index and block length. Segmented scans are
/// not supported across ranks. Costs two passes over the block (its total, then the scan).
template <class T>
class scan_kernel {
 public:
  /// Builds on every rank. Collective.
  scan_kernel(MPI_Comm comm, const context& ctx, const std::string& arguments,
              const std::string& input, const std::string& scan, const std::string& neutral,
              const std::string& output, scan_kind kind = scan_kind::inclusive,
              const scan_options& options = {})
      : what_("scan_kernel<" + type_name<T>() + ">"),
        fingerprint_(detail::fingerprint(
            {detail::type_tag<T>(), arguments, input, scan, neutral, output,
             kind == scan_kind::inclusive ? "inclusive" : "exclusive", options.preamble,
             options.build_options, options.is_segment_start})) {
    detail::collective_step(comm, {what_ + " construction", fingerprint_, 0, false}, [&] {
      parts_ = std::make_shared<const detail::scan_parts<T>>(
          detail::make_scan_parts<T>(ctx, arguments, input, scan, neutral, output, kind, options));
    });
  }
  /// Scans over the blocks of the distributed_array arguments (one layout). Collective. Returns
  /// the event of the rank's last kernel.
  template <class... Args>
  event operator()(const queue& q, const Args&... args) const {
    return detail::scan_over_ranks<T>(q, {what_, fingerprint_, 0}, parts_.get(), nullptr, nullptr,
                                      args...);
  }

 private:
  std::string what_;
  std::uint64_t fingerprint_;
  std::shared_ptr<const detail::scan_parts<T>> parts_;
};

namespace detail {
template <class T>
event simple_scan(const queue& q, const distributed_array<T>& in, distributed_array<T>& out,
                  const std::string& op, const std::string& neutral, scan_kind kind) {
  const char* name = kind == scan_kind::inclusive ? "inclusive_scan" : "exclusive_scan";
  struct spec {
    const std::string* op;
    const std::string* neutral;
    scan_kind kind;
    const char* name;
  } s{&op, &neutral, kind, name};
  auto get = [](const queue& q, const void* p) -> const std::shared_ptr<const scan_parts<T>>& {
    const spec& s = *static_cast<const spec*>(p);
    const std::string type = type_name<T>();
    const std::string key = std::string(s.name) + "|" + type + "|" + *s.op + "|" + *s.neutral;
    return cached_object<std::shared_ptr<const scan_parts<T>>>(q.ctx(), key, [&](const context& c) {
      scan_options o;
      o.name = std::string("mpi_") + s.name;
      return std::make_shared<const scan_parts<T>>(
          make_scan_parts<T>(c, "global const " + type + "* in, global " + type + "* out", "in[i]",
                             *s.op, *s.neutral, "out[i] = item", s.kind, o));
    });
  };
  return scan_over_ranks<T>(q,
                            {std::string(name) + "<" + type_name<T>() + ">",
                             fingerprint({type_tag<T>(), op, neutral}), 0},
                            nullptr, get, &s, in, out);
}
}  // namespace detail

/// out = the inclusive scan of in across ranks (op over a and b, neutral its identity); in and
/// out of one layout (out may be in). Collective.
template <class T>
event inclusive_scan(const queue& q, const distributed_array<T>& in, distributed_array<T>& out,
                     const std::string& op = "a + b", const std::string& neutral = "0") {
  return detail::simple_scan(q, in, out, op, neutral, scan_kind::inclusive);
}
/// out = the exclusive scan of in across ranks; out[0] = neutral. Collective.
template <class T>
event exclusive_scan(const queue& q, const distributed_array<T>& in, distributed_array<T>& out,
                     const std::string& op = "a + b", const std::string& neutral = "0") {
  return detail::simple_scan(q, in, out, op, neutral, scan_kind::exclusive);
}

// ---- copy_if --------------------------------------------------------------------------------

namespace detail {
/// The local compaction: kept elements of the block to the front of `out`, their count in
/// count[0]; the predicate sees x and the global index i.
template <class T>
const local::scanner<cl_ulong>& compaction_kernel(const context& ctx, const std::string& predicate,
                                                  const std::string& preamble) {
  const std::string type = type_name<T>();
  return *cached_object<std::shared_ptr<local::scanner<cl_ulong>>>(
      ctx, "copy_if|" + type + "|" + predicate + "|" + preamble, [&](const context& c) {
        scan_options o;
        o.name = "mpi_copy_if";
        o.preamble = preamble + "\nstatic inline int clforge_mpi_keep(" + type +
                     " x, long i) {\n  return (" + predicate + "\n);\n}\n";
        return std::make_shared<local::scanner<cl_ulong>>(
            c,
            "global const " + type + "* in, global " + type +
                "* out, global ulong* count, ulong cfmpi_first",
            "clforge_mpi_keep(in[i], i + cfmpi_first) ? 1 : 0", "a + b", "0",
            "if (item != prev_item) out[prev_item] = in[i]; if (i == n - 1) count[0] = item;",
            scan_kind::inclusive, o);
      });
}
}  // namespace detail

/// Stream compaction across ranks: the elements x of `in` for which `predicate` (over x and its
/// global index i) holds go, in global order, to the front of `out` (same layout as in, another
/// array): out's global elements [0, count), wherever their ranks are. Returns the global count
/// on every rank. out's elements past the count are left as they were. Collective.
template <class T>
std::size_t copy_if(const queue& q, const distributed_array<T>& in, distributed_array<T>& out,
                    const std::string& predicate, const std::string& preamble = "") {
  const MPI_Comm comm = in.comm();
  const int rank = in.rank(), ranks = in.layout().ranks;
  const detail::call_info info{
      "copy_if<" + type_name<T>() + ">",
      detail::fingerprint({detail::type_tag<T>(), predicate, preamble, std::to_string(out.size())}),
      in.size()};
  std::vector<T> kept;
  std::uint64_t count = 0;
  detail::collective_step(comm, info, [&] {
    if (!(in.layout() == out.layout()))
      throw error("clforge::mpi::copy_if: the output has " + std::to_string(out.size()) +
                  " elements, the input " + std::to_string(in.size()) + " (one layout needed)");
    if (in.size() > 0 && &in.local() == &out.local())
      throw error("clforge::mpi::copy_if: the output must be another array than the input");
    const std::size_t n = in.local_size();
    if (n == 0) return;
    array<T> compacted(q, n);
    array<cl_ulong> c(q, 1);
    detail::compaction_kernel<T>(q.ctx(), predicate, preamble)(
        q, in.local(), compacted, c, static_cast<cl_ulong>(in.local_offset()));
    cl_ulong host_count = 0;
    c.read(q, &host_count, 0, 1);
    count = host_count;
    kept.resize(count);
    if (count > 0) compacted.read(q, kept.data(), 0, count);
  });
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(ranks));
  detail::allgather(comm, &count, counts.data(), sizeof count);
  // Kept element k (global order) goes to out's element k: rank s's kept elements are global
  // [first[s], first[s] + counts[s]); this rank's block of out is [offset, offset + size).
  std::vector<std::size_t> first(ranks + 1, 0);
  for (int s = 0; s < ranks; ++s) first[s + 1] = first[s] + counts[s];
  const block_layout& layout = out.layout();
  auto overlap = [](std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) {
    return std::pair<std::size_t, std::size_t>{std::max(a0, b0), std::min(a1, b1)};
  };
  std::vector<std::size_t> send_counts(ranks), send_offsets(ranks), recv_counts(ranks),
      recv_offsets(ranks);
  const std::size_t my_first = layout.offset(rank), my_end = my_first + layout.count(rank);
  for (int d = 0; d < ranks; ++d) {
    auto [lo, hi] =
        overlap(first[rank], first[rank + 1], layout.offset(d), layout.offset(d) + layout.count(d));
    send_counts[d] = hi > lo ? hi - lo : 0;
    send_offsets[d] = hi > lo ? lo - first[rank] : 0;
    auto [rlo, rhi] = overlap(first[d], first[d + 1], my_first, my_end);
    recv_counts[d] = rhi > rlo ? rhi - rlo : 0;
    recv_offsets[d] = rhi > rlo ? rlo - my_first : 0;
  }
  const std::size_t received =
      first[ranks] > my_first ? std::min(first[ranks], my_end) - my_first : 0;
  std::vector<T> arriving(received);
  detail::alltoallv(comm, kept.data(), send_counts, send_offsets, arriving.data(), recv_counts,
                    recv_offsets, sizeof(T));
  detail::collective_step(comm, info, [&] {
    if (received > 0) out.local().write(q, arriving.data(), 0, received);
  });
  return static_cast<std::size_t>(first[ranks]);
}

// ---- polygon masks over row blocks ----------------------------------------------------------

namespace detail {
inline std::vector<std::vector<point2f>> shifted(
    const std::vector<const std::vector<point2f>*>& polygons, std::size_t rows_up) {
  std::vector<std::vector<point2f>> out;
  for (const auto* p : polygons) {
    std::vector<point2f> v(*p);
    for (auto& pt : v) pt.y = static_cast<float>(static_cast<double>(pt.y) - rows_up);
    out.push_back(std::move(v));
  }
  return out;
}

/// Runs `draw(polygons in block coordinates, target, rows)` for this rank's rows of `image`,
/// bit-identical to the whole image: when moving the polygons up to the block's first row is
/// not exact in float, it draws from an earlier row into a scratch image and copies the block.
template <class T, class Draw>
void draw_row_block(const char* who, const queue& q,
                    const std::vector<const std::vector<point2f>*>& polygons,
                    distributed_array<T>& image, std::size_t width, std::size_t height,
                    const Draw& draw) {
  if (image.size() != width * height || (width > 0 && image.layout().granule != width))
    throw error(std::string("clforge::mpi::") + who + ": the image must be a " +
                std::to_string(width) + " x " + std::to_string(height) +
                " distributed_array::rows (its length is " + std::to_string(image.size()) +
                ", its rows " + std::to_string(image.layout().granule) + " elements)");
  if (image.local_size() == 0) return;
  const std::size_t first_row = image.local_offset() / width;
  const std::size_t rows = image.local_size() / width;
  const std::size_t start = exact_row_shift(polygons, first_row);
  const auto moved = shifted(polygons, start);
  if (start == first_row) {
    draw(moved, image.local(), rows);
  } else {
    array<T> scratch(q, (first_row - start + rows) * width);
    draw(moved, scratch, first_row - start + rows);
    scratch.copy_to(q, image.local(), (first_row - start) * width, 0, rows * width);
  }
}
}  // namespace detail

/// polygon_mask::mask_into over an image split in row blocks (distributed_array::rows): every
/// pixel `value` inside the polygon, 0 outside, the same pixels as one device's whole image.
/// Collective.
template <class T>
void mask_into(const queue& q, const polygon_mask& masker, const std::vector<point2f>& vertices,
               distributed_array<T>& image, std::size_t width, std::size_t height,
               clforge::detail::same_t<T> value = T(1), const polygon_mask_options& options = {}) {
  std::string fp;
  for (const auto& v : vertices) fp.append(reinterpret_cast<const char*>(&v), sizeof v);
  detail::collective_step(
      image.comm(),
      {"mask_into<" + type_name<T>() + ">",
       detail::fingerprint({detail::type_tag<T>(), fp, std::to_string(width), options.shape}),
       image.size()},
      [&] {
        detail::draw_row_block("mask_into", q, {&vertices}, image, width, height,
                               [&](const std::vector<std::vector<point2f>>& moved, array<T>& target,
                                   std::size_t rows) {
                                 local::mask_rows(masker, q, moved[0], target, width, rows, value,
                                                  options);
                               });
      });
}

/// polygon_mask::labels_into over an image split in row blocks. Collective.
template <class T>
void labels_into(const queue& q, const polygon_mask& masker,
                 const std::vector<std::vector<point2f>>& polygons, distributed_array<T>& image,
                 std::size_t width, std::size_t height, const polygon_mask_options& options = {}) {
  std::string fp;
  std::vector<const std::vector<point2f>*> list;
  for (const auto& p : polygons) {
    list.push_back(&p);
    fp.append(std::to_string(p.size()) + ":");
    for (const auto& v : p) fp.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  detail::collective_step(
      image.comm(),
      {"labels_into<" + type_name<T>() + ">",
       detail::fingerprint({detail::type_tag<T>(), fp, std::to_string(width), options.shape}),
       image.size()},
      [&] {
        detail::draw_row_block("labels_into", q, list, image, width, height,
                               [&](const std::vector<std::vector<point2f>>& moved, array<T>& target,
                                   std::size_t rows) {
                                 local::label_rows(masker, q, moved, target, width, rows, options);
                               });
      });
}

}  // namespace clforge::mpi
