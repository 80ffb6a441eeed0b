// SPDX-License-Identifier: MIT
// clforge::scan_kernel: prefix scans with user snippets (PyOpenCL's GenericScanKernel for C++),
// and the algorithms built on it: inclusive_scan, exclusive_scan, copy_if, partition.
//
//   cf::scan_kernel<int> cumsum(ctx, "global const int* x, global int* y",
//                               /*input*/ "x[i]", /*scan*/ "a + b", /*neutral*/ "0",
//                               /*output*/ "y[i] = item", cf::scan_kind::inclusive);
//   cumsum(q, x, y);   // over the length of the first array argument
//
// Snippets: `input_expr` is a value of type T for index `i` (a long: signed 64-bit, as `n`);
// `scan_expr` combines `a` and `b` (an associative operation; it need not commute) with `neutral`
// as its identity; `output_stmt` runs once per index i < n and sees `item` (the inclusive scan
// value at i for scan_kind::inclusive, the exclusive one for scan_kind::exclusive), `prev_item`
// (always the exclusive value: the scan of the elements before i, `neutral` at 0 and at segment
// starts), `last_item` (the inclusive value at n - 1: the total, or the last segment's total) and
// `n`. The names i, n, item, prev_item, last_item and anything starting with clforge_ are reserved.
// Evaluations of `input_expr` per element: lookback 1 (2 when `output_stmt` uses last_item: a
// first pass finds it); reduce_then_scan 2 (its reduce pass and its scan pass both need the
// values, and it keeps none in between so as to move no more memory than the input). Side
// effects in `input_expr` therefore happen once or twice per element.
//
// Algorithms, chosen per device (scan_options::algorithm overrides):
//   lookback          GPUs. One pass with decoupled look-back (Merrill & Garland): each
//                     element is read once and written once. An output statement that uses
//                     last_item adds a first pass that finds it.
//   reduce_then_scan  CPUs (PoCL). Reduce per chunk, scan the chunk sums, scan again: no
//                     work-group ever waits for another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "clforge/array.hpp"
#include "clforge/context.hpp"
#include "clforge/detail/signature.hpp"
#include "clforge/event.hpp"
#include "clforge/queue.hpp"
#include "clforge/types.hpp"

namespace clforge {

enum class scan_kind { inclusive, exclusive };

enum class scan_algorithm { automatic, lookback, reduce_then_scan };

/// Options of a scan_kernel: algorithm, tile and segment settings.
struct CLFORGE_API scan_options {
  /// Kernel name (a C identifier); shows in profiles, build logs and errors.
  std::string name = "scan";
  /// Pasted before the kernels: helper functions, struct declarations, `#pragma` lines.
  std::string preamble;
  /// Passed to the OpenCL compiler.
  std::string build_options;
  /// Segmented scan: an expression over i (and the arguments); where it is true, the scan
  /// restarts (item is the input at i, prev_item is neutral). Empty: one segment.
  std::string is_segment_start;
  /// Fields left automatic (0, -1) take the context's tuning (clforge/tuning.hpp, "scan"
  /// keys: the device class's table, CLFORGE_TUNE, tuning::set).
  /// automatic: the tuned algorithm (lookback on GPUs, reduce_then_scan on CPUs).
  scan_algorithm algorithm = scan_algorithm::automatic;
  /// Look-back tile shape: items per work-item (at most 64) and work-items per group (at most
  /// 4096); 0: tuned (GPUs: 128 bytes of T per work-item, at most 32 items, 256 work-items).
  std::size_t items_per_thread = 0;
  /// Look-back: work-items per group (0: the default, see items_per_thread).
  std::size_t group_size = 0;
  /// Look-back: how many work-items read predecessors' states at once (1: one work-item walks
  /// back; 32: a window of 32 tiles per step; at most 1024). 0: tuned (32 on GPUs, 1 on CPUs).
  std::size_t lookback_window = 0;
  /// Look-back: keep each work-item's items in registers between its two passes over them
  /// (1), or scan them in place in local memory (0: fewer registers, more groups per compute
  /// unit). -1: tuned.
  int lookback_in_registers = -1;
  /// Look-back: 0 launches one work-group per tile; N launches N groups per compute unit that
  /// loop over tiles, taking the next tile while working on one.
  std::size_t lookback_groups_per_cu = 0;
  /// Look-back: 0 stages the tile through local memory (reads and writes striped); 1 blocked:
  /// each work-item reads and writes its own consecutive items (only the work-items' sums in
  /// local memory, so more groups per compute unit); 2 blocked, and a plain load "x[i]" / store
  /// "y[i] = item" of full tiles with vload4/vstore4; 3 as 2 with aligned 4-vector accesses through
  /// pointer casts; 4 striped through local memory as 0, with a plain load / store of full tiles
  /// as striped aligned 4-vectors. -1: tuned (the tuning key "layout").
  int lookback_blocked = -1;
  /// Sets the look-back fields above from a spec "ITEMSxGROUP[wWINDOW][l][b|v|a|s][pN]" (l:
  /// items in local memory; b, v, a, s: lookback_blocked 1 to 4; pN: N groups per compute
  /// unit), e.g. "40x256w32lp8".
  scan_options& tile(const std::string& spec);
  /// Reduce-then-scan: elements per chunk are a multiple of this (0: default 1024), and at most
  /// this many chunks (0: 32 x lanes per compute unit on CPUs, 4096 on other devices).
  std::size_t chunk_granularity = 0;
  /// Reduce-then-scan: at most this many chunks (see chunk_granularity).
  std::size_t max_chunks = 0;
  /// Reduce-then-scan: chunks one work-item walks side by side, so their chains of operations
  /// overlap (0: 2 for float and double on CPUs, else 1).
  std::size_t lanes = 0;
  /// Each call checks that every array a snippet indexes with [i] holds n elements. Turn off
  /// where such an access is guarded (e.g. "i < m ? a[i] : b[i - m]").
  bool check_array_lengths = true;
};

namespace detail {

struct scan_value_type {
  std::string name;  // OpenCL C spelling
  std::size_t size;  // sizeof in C++ (must equal the OpenCL size)
  bool needs_fp64;
};

struct scan_engine;

/// The length of an array argument (npos for anything else), for the per-argument length check.
template <class T>
std::size_t argument_length(const T&) {
  return static_cast<std::size_t>(-1);
}
template <class T>
std::size_t argument_length(const array<T>& a) {
  return a.size();
}
template <class T>
std::size_t argument_length(const array_view<T>& v) {
  return v.size();
}

/// The type-independent part of scan_kernel (lib/algorithms/scan.cpp).
class CLFORGE_API scan_core {
 public:
  scan_core(const context& ctx, const scan_value_type& type, std::string_view arguments,
            std::string_view input_expr, std::string_view scan_expr, std::string_view neutral,
            std::string_view output_stmt, scan_kind kind, const scan_options& options);

  const std::vector<parameter>& parameters() const;
  const std::string& who() const;
  /// Throws unless every array argument the snippets index with [i] holds n elements.
  void check_lengths(std::size_t n, const std::vector<std::size_t>& lengths) const;
  event run(const queue& q, std::size_t n, const argument_list& args) const;
  /// The first and the last command a call enqueued (both empty when n is 0).
  struct events {
    event first, last;
  };
  events launch(const queue& q, std::size_t n, const argument_list& args) const;

  scan_algorithm algorithm() const;
  /// Elements per look-back tile, or the chunk granularity of reduce-then-scan.
  std::size_t tile_size() const;
  /// Generated source of the main program (and of the last_item pass, if any).
  std::string source() const;

 private:
  std::shared_ptr<const scan_engine> engine_;
};

}  // namespace detail

/// A scan over T (an OpenCL scalar or a struct declared with CLFORGE_DECLARE_TYPE whose OpenCL
/// declaration is in options.preamble). Built once at construction, through the program cache;
/// each call binds and checks the arguments and launches. Copies share the built kernels.
template <class T>
class scan_kernel {
 public:
  /// Builds the scan: `arguments` is the OpenCL parameter list; `input_expr` the value at i,
  /// `scan_expr` combines a and b, `neutral` is its identity and `output_stmt` writes item (see the
  /// top of this file).
  scan_kernel(const context& ctx, std::string_view arguments, std::string_view input_expr,
              std::string_view scan_expr, std::string_view neutral, std::string_view output_stmt,
              scan_kind kind = scan_kind::inclusive, const scan_options& options = {})
      : core_(ctx, detail::scan_value_type{type_name<T>(), sizeof(T), type_traits<T>::needs_fp64},
              arguments, input_expr, scan_expr, neutral, output_stmt, kind, options) {}

  /// Scans over the length n of the first array argument. Returns the event of the last
  /// command enqueued (empty when n is 0: nothing is launched).
  template <class... Args>
  event operator()(const queue& q, const Args&... args) const {
    return launch(q, args...).last;
  }
  /// As operator(), returning the first and the last command enqueued (for timing a whole
  /// call with first.elapsed_ns_until(last)).
  template <class... Args>
  detail::scan_core::events launch(const queue& q, const Args&... args) const {
    detail::argument_list bound =
        detail::argument_list::bind(core_.who(), core_.parameters(), args...);
    if (!bound.has_array())
      throw error(core_.who() + ": needs an array argument (its length is the scan's length)");
    const std::size_t n = bound.first_array_length();
    core_.check_lengths(n, {detail::argument_length(args)...});
    return core_.launch(q, n, bound);
  }

  /// Scans over the indices [0, n) given here (PyOpenCL's `size=`), e.g. when the data lies in
  /// several arrays. Arrays the snippets index with [i] must still hold n elements.
  template <class... Args>
  event run(const queue& q, std::size_t n, const Args&... args) const {
    return launch_n(q, n, args...).last;
  }
  /// As run(), returning the events of the first and the last kernel.
  template <class... Args>
  detail::scan_core::events launch_n(const queue& q, std::size_t n, const Args&... args) const {
    detail::argument_list bound =
        detail::argument_list::bind(core_.who(), core_.parameters(), args...);
    core_.check_lengths(n, {detail::argument_length(args)...});
    return core_.launch(q, n, bound);
  }

  /// The algorithm in use (look-back or reduce-then-scan).
  scan_algorithm algorithm() const { return core_.algorithm(); }
  /// Elements per tile (look-back) or the chunk granularity (reduce-then-scan).
  std::size_t tile_size() const { return core_.tile_size(); }
  /// The generated OpenCL source.
  std::string source() const { return core_.source(); }

 private:
  detail::scan_core core_;
};

namespace detail {
/// A scan_kernel cached per (context, value type, key), built on first use. Entries live until
/// the program exits (and keep their context alive); the algorithm and tile shape are fixed when
/// an entry is built (the tuning read then).
CLFORGE_API std::shared_ptr<void> cached_scan(const context& ctx, const std::string& key,
                                              std::shared_ptr<void> (*make)(const context&,
                                                                            const void*),
                                              const void* make_argument);

template <class K, class Make>
const K& cached(const context& ctx, const std::string& key, const Make& make) {
  auto thunk = [](const context& c, const void* m) -> std::shared_ptr<void> {
    return std::make_shared<K>((*static_cast<const Make*>(m))(c));
  };
  return *std::static_pointer_cast<K>(cached_scan(ctx, key, thunk, &make));
}
}  // namespace detail

/// out[i] = in[0] op ... op in[i]. `op` over a and b, `neutral` its identity. out may be in.
/// The kernel is built once per (context, type, op, neutral) and cached.
template <class T>
event inclusive_scan(const queue& q, const array<T>& in, array<T>& out,
                     const std::string& op = "a + b", const std::string& neutral = "0") {
  if (out.size() < in.size())
    throw error("inclusive_scan: the output has " + std::to_string(out.size()) +
                " elements, the input " + std::to_string(in.size()));
  const std::string type = type_name<T>();
  const auto& k = detail::cached<scan_kernel<T>>(
      q.ctx(), "inclusive_scan|" + type + "|" + op + "|" + neutral, [&](const context& c) {
        scan_options o;
        o.name = "inclusive_scan";
        return scan_kernel<T>(c, "global const " + type + "* in, global " + type + "* out", "in[i]",
                              op, neutral, "out[i] = item", scan_kind::inclusive, o);
      });
  return k(q, in, out);
}

/// out[i] = neutral op in[0] op ... op in[i - 1]; out[0] = neutral. out may be in.
template <class T>
event exclusive_scan(const queue& q, const array<T>& in, array<T>& out,
                     const std::string& op = "a + b", const std::string& neutral = "0") {
  if (out.size() < in.size())
    throw error("exclusive_scan: the output has " + std::to_string(out.size()) +
                " elements, the input " + std::to_string(in.size()));
  const std::string type = type_name<T>();
  const auto& k = detail::cached<scan_kernel<T>>(
      q.ctx(), "exclusive_scan|" + type + "|" + op + "|" + neutral, [&](const context& c) {
        scan_options o;
        o.name = "exclusive_scan";
        return scan_kernel<T>(c, "global const " + type + "* in, global " + type + "* out", "in[i]",
                              op, neutral, "out[i] = item", scan_kind::exclusive, o);
      });
  return k(q, in, out);
}

namespace detail {
CLFORGE_API std::string selection_preamble(const std::string& type, const std::string& predicate,
                                           const std::string& preamble);
CLFORGE_API void check_selection(const char* who, std::size_t in_size, std::size_t out_size,
                                 bool same);

template <class T, class Count>
const scan_kernel<Count>& selection_kernel(const context& ctx, bool partition,
                                           const std::string& predicate,
                                           const std::string& preamble) {
  const std::string type = type_name<T>();
  const std::string count = type_name<Count>();
  const std::string key = std::string(partition ? "partition|" : "copy_if|") + type + "|" + count +
                          "|" + predicate + "|" + preamble;
  return cached<scan_kernel<Count>>(ctx, key, [&](const context& c) {
    scan_options o;
    o.name = partition ? "partition" : "copy_if";
    o.preamble = selection_preamble(type, predicate, preamble);
    const std::string args =
        "global const " + type + "* in, global " + type + "* out, global " + count + "* count";
    // The inclusive count rises at i exactly when in[i] is kept; prev_item is its slot.
    const std::string keep = "if (item != prev_item) out[prev_item] = in[i];";
    const std::string output = partition ? keep +
                                               " else out[last_item + (i - prev_item)] = in[i]; "
                                               "if (i == n - 1) count[0] = last_item;"
                                         : keep + " if (i == n - 1) count[0] = item;";
    return scan_kernel<Count>(c, args, "clforge_keep(in[i], i) ? 1 : 0", "a + b", "0", output,
                              scan_kind::inclusive, o);
  });
}

template <class Count, class T>
std::size_t run_selection(const queue& q, const array<T>& in, array<T>& out, bool partition,
                          const std::string& predicate, const std::string& preamble) {
  array<Count> count(q, 1);
  selection_kernel<T, Count>(q.ctx(), partition, predicate, preamble)(q, in, out, count);
  Count result = 0;
  count.read(q, &result, 0, 1);
  return static_cast<std::size_t>(result);
}

template <class T>
std::size_t select(const queue& q, const array<T>& in, array<T>& out, bool partition,
                   const std::string& predicate, const std::string& preamble) {
  check_selection(partition ? "partition" : "copy_if", in.size(), out.size(),
                  in.get() != nullptr && in.get() == out.get());
  if (in.size() == 0) return 0;
  // 32-bit counts where they suffice: the look-back then packs count and status in one word.
  if (in.size() <= 0xffffffffu)
    return run_selection<cl_uint>(q, in, out, partition, predicate, preamble);
  return run_selection<cl_ulong>(q, in, out, partition, predicate, preamble);
}
}  // namespace detail

/// Stream compaction: copies the elements x of `in` for which `predicate` (an expression over
/// x and its index i, e.g. "x > 0") is true to the front of `out`, in order, and returns how
/// many. `out` must hold in.size() elements and must not be `in`; `preamble` may define
/// helpers the predicate uses. Kernels are cached per (context, type, predicate, preamble).
template <class T>
std::size_t copy_if(const queue& q, const array<T>& in, array<T>& out, const std::string& predicate,
                    const std::string& preamble = "") {
  return detail::select(q, in, out, false, predicate, preamble);
}

/// Stable partition into `out`: the kept elements first (in order), then the others (in order).
/// Returns the number kept. `out` must hold in.size() elements and must not be `in`.
template <class T>
std::size_t partition(const queue& q, const array<T>& in, array<T>& out,
                      const std::string& predicate, const std::string& preamble = "") {
  return detail::select(q, in, out, true, predicate, preamble);
}

}  // namespace clforge
