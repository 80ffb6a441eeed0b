// SPDX-License-Identifier: MIT
// Scans across ranks: clforge::mpi::scan_kernel, inclusive_scan, exclusive_scan. Each rank scans
// its block with the ranks' totals before it carried in (rank order: operations that do not
// commute work).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clforge/array.hpp"
#include "clforge/error.hpp"
#include "clforge/event.hpp"
#include "clforge/mpi/collective.hpp"
#include "clforge/mpi/distributed_array.hpp"
#include "clforge/mpi/local.hpp"
#include "clforge/queue.hpp"

namespace clforge::mpi {

// ---- scans ----------------------------------------------------------------------------------

namespace detail {

/// `text` with every identifier `name` replaced by `replacement` (identifier boundaries; the
/// snippets are OpenCL C expressions and statements).
CLFORGE_MPI_API std::string replace_identifier(const std::string& text, const std::string& name,
                                               const std::string& replacement);
CLFORGE_MPI_API bool uses_identifier(const std::string& text, const std::string& name);

/// The three local kernels of a scan across ranks:
///   total   the rank's inclusive total: a reduction (one read of the block at the speed of
///           mpi::sum) where the operation is one that commutes (commutes()); otherwise a scan
///           that writes only its last value, so the order of a non-commutative operation is
///           kept. The ranks run it side by side: only the totals wait for each other;
///   carry   over the ranks' totals (rank order, empty ranks as neutral): this rank's carry-in
///           (the scan of the ranks before) and the global total;
///   main    the user's scan, its output statement seeing item = carry op item (likewise
///           prev_item) and last_item = the global total.
template <class T>
struct scan_parts {
  std::optional<local::reducer<T>> total_reduction;  // the operation commutes
  std::optional<local::scanner<T>> total_scan;       // otherwise
  local::scanner<T> carry, main;
  bool uses_last_item;  // else the last rank's total is needed by nobody: it skips that pass

  /// This rank's total of a non-empty block.
  template <class... Args>
  T total(const queue& q, const Args&... args) const {
    if (total_reduction) return (*total_reduction)(q, args...);
    array<T> result(q, 1);
    (*total_scan)(q, args..., result);
    T value;
    result.read(q, &value, 0, 1);
    return value;
  }
};

/// Whether `scan` is one of the operations known to commute (a + b, a * b, min, max, fmin,
/// fmax, |, &, ^ over a and b in either order, spaces ignored): their totals may be reduced in
/// any order.
CLFORGE_MPI_API bool commutes(const std::string& scan);

CLFORGE_MPI_API std::string scan_output_across_ranks(const std::string& type,
                                                     const std::string& output);
CLFORGE_MPI_API scan_options scan_part_options(const scan_options& options,
                                               const std::string& suffix, const std::string& type,
                                               const std::string& scan);

template <class T>
scan_parts<T> make_scan_parts(const context& ctx, const std::string& arguments,
                              const std::string& input, const std::string& scan,
                              const std::string& neutral, const std::string& output, scan_kind kind,
                              const scan_options& options) {
  if (!options.is_segment_start.empty())
    throw error("clforge::mpi::scan_kernel: segmented scans across ranks are not supported");
  const std::string type = type_name<T>();
  const scan_options base = scan_part_options(options, "", type, scan);
  std::optional<local::reducer<T>> total_reduction;
  std::optional<local::scanner<T>> total_scan;
  if (commutes(scan)) {
    reduction_options r;
    r.name = (options.name.empty() ? std::string("scan") : options.name) + "_total";
    r.preamble = options.preamble;
    r.build_options = options.build_options;
    r.check_array_lengths = options.check_array_lengths;
    total_reduction.emplace(ctx, arguments, input, scan, neutral, r);
  } else {
    total_scan.emplace(ctx, arguments + ", global " + type + "* cfmpi_total", input, scan, neutral,
                       "if (i == n - 1) cfmpi_total[0] = item;", scan_kind::inclusive,
                       scan_part_options(options, "_total", type, scan));
  }
  return scan_parts<T>{
      std::move(total_reduction), std::move(total_scan),
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
      mine.value = parts->total(q, local_argument(args)...);
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
/// not supported across ranks. Costs two passes over the block: its total (a reduction where
/// the operation commutes, see detail::commutes), then the scan with the ranks before carried in.
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
  auto get = [](const queue& on, const void* p) -> const std::shared_ptr<const scan_parts<T>>& {
    const spec& wanted = *static_cast<const spec*>(p);
    const std::string type = type_name<T>();
    const std::string key =
        std::string(wanted.name) + "|" + type + "|" + *wanted.op + "|" + *wanted.neutral;
    return cached_object<std::shared_ptr<const scan_parts<T>>>(
        on.ctx(), key, [&](const context& c) {
          scan_options o;
          o.name = std::string("mpi_") + wanted.name;
          return std::make_shared<const scan_parts<T>>(make_scan_parts<T>(
              c, "global const " + type + "* in, global " + type + "* out", "in[i]", *wanted.op,
              *wanted.neutral, "out[i] = item", wanted.kind, o));
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

}  // namespace clforge::mpi
