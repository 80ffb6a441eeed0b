// SPDX-License-Identifier: MIT
// clforge::scan_kernel: prefix scans with user snippets (PyOpenCL's GenericScanKernel for C++),
// and the algorithms built on it: inclusive_scan, exclusive_scan (copy_if, partition, remove_if
// and unique: clforge/algorithms/selection.hpp, which includes this file).
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

#include "clforge/algorithms/common.hpp"
#include "clforge/array.hpp"
#include "clforge/context.hpp"
#include "clforge/detail/signature.hpp"
#include "clforge/event.hpp"
#include "clforge/queue.hpp"
#include "clforge/types.hpp"

namespace clforge {

enum class scan_kind { inclusive, exclusive };

enum class scan_algorithm { automatic, lookback, reduce_then_scan };

/// How a look-back tile moves between global memory and local memory.
enum class scan_layout {
  automatic,       ///< the tuned layout (the tuning key "layout")
  striped,         ///< element by element, work-item k taking items k, k + group, ... (coalesced)
  striped_vector,  ///< as striped, and a plain load "x[i]" / store "y[i] = item" of a full tile
                   ///< as striped aligned 4-vectors
};

#define CLFORGE_SCAN_TUNING_DEPRECATED                                          \
  [[deprecated(                                                                 \
      "set the scan's tuning with clforge::tuning::set(ctx, \"scan\", ...) or " \
      "CLFORGE_TUNE (docs/tuning.md)")]]

// The implicitly defined members of scan_options copy the deprecated fields: no warning for
// them, only where code names one.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/// Options of a scan_kernel: the kernel options (check_array_lengths covers the arrays a snippet
/// indexes with [i]; turn it off where such an access is guarded, e.g. "i < m ? a[i] :
/// b[i - m]"), segments and algorithm. The
/// tile and chunk fields are deprecated since 0.2 and go in 0.3: they are tuning, set with
/// clforge::tuning::set(ctx, "scan", ...) or CLFORGE_TUNE="scan:..." (docs/tuning.md), whose
/// keys name each knob once (items, group, window, registers, groups_per_cu, layout,
/// granularity, max_chunks, lanes). Until then a field set here still wins over the tuning.
struct CLFORGE_API scan_options : kernel_options {
  // User-provided, so not an aggregate: `= {}` at a call site does not name a deprecated field.
  scan_options() {}
  /// Segmented scan: an expression over i (and the arguments); where it is true, the scan
  /// restarts (item is the input at i, prev_item is neutral). Empty: one segment.
  std::string is_segment_start;
  /// automatic: the tuned algorithm (the key "algorithm": lookback on GPUs, reduce_then_scan
  /// on CPUs).
  scan_algorithm algorithm = scan_algorithm::automatic;
  /// Declares that scan_expr also commutes, exactly: any order of the operands gives the same
  /// result (integer &, |, ^, +; not floating-point +). A look-back tile then publishes its
  /// aggregate, formed in the order its elements arrive, before it scans them, so its successors
  /// wait less (unsegmented scans). A non-commutative operation declared so gives wrong results.
  /// Integer scans whose scan_expr is a + b, min(a, b) or max(a, b) (either order, any spacing)
  /// need no declaration, and so copy_if, partition, remove_if and unique.
  bool commutative = false;
  /// Deprecated: the key "items". Look-back items per work-item (at most 64); 0: tuned.
  CLFORGE_SCAN_TUNING_DEPRECATED std::size_t items_per_thread = 0;
  /// Deprecated: the key "group". Look-back work-items per group (at most 4096); 0: tuned.
  CLFORGE_SCAN_TUNING_DEPRECATED std::size_t group_size = 0;
  /// Deprecated: the key "window". How many work-items read predecessors' states at once (1: one
  /// work-item walks back; at most 1024); 0: tuned.
  CLFORGE_SCAN_TUNING_DEPRECATED std::size_t lookback_window = 0;
  /// Deprecated: the key "registers". Keep each work-item's items in registers between its two
  /// passes over them (1), or scan them in place in local memory (0); -1: tuned.
  CLFORGE_SCAN_TUNING_DEPRECATED int lookback_in_registers = -1;
  /// Deprecated: the key "groups_per_cu". 0 launches one work-group per tile; N launches N
  /// groups per compute unit that loop over tiles.
  CLFORGE_SCAN_TUNING_DEPRECATED std::size_t lookback_groups_per_cu = 0;
  /// Deprecated: the key "layout". How a tile is read and written (automatic: tuned).
  CLFORGE_SCAN_TUNING_DEPRECATED scan_layout lookback_layout = scan_layout::automatic;
  /// Deprecated: the keys items, group, window, registers, layout, groups_per_cu. Sets the
  /// look-back fields above from a spec "ITEMSxGROUP[wWINDOW][l][s][pN]" (l: items in local
  /// memory; s: scan_layout::striped_vector, else striped; pN: N groups per compute unit), e.g.
  /// "40x256w32lp8".
  CLFORGE_SCAN_TUNING_DEPRECATED scan_options& tile(const std::string& spec);
  /// Deprecated: the key "granularity". Reduce-then-scan: elements per chunk are a multiple of
  /// this (0: tuned).
  CLFORGE_SCAN_TUNING_DEPRECATED std::size_t chunk_granularity = 0;
  /// Deprecated: the key "max_chunks". Reduce-then-scan: at most this many chunks (0: tuned).
  CLFORGE_SCAN_TUNING_DEPRECATED std::size_t max_chunks = 0;
  /// Deprecated: the keys "lanes" and "lanes_floating". Reduce-then-scan: chunks one work-item
  /// walks side by side (0: tuned).
  CLFORGE_SCAN_TUNING_DEPRECATED std::size_t lanes = 0;
};
#pragma GCC diagnostic pop
#undef CLFORGE_SCAN_TUNING_DEPRECATED

namespace detail {

struct scan_value_type {
  std::string name;  // OpenCL C spelling
  std::size_t size;  // sizeof in C++ (must equal the OpenCL size)
  bool needs_fp64;
};

struct scan_engine;

/// What a scan is for: a selection (copy_if, partition, remove_if) takes its look-back
/// registers from the tuning key selection_registers, any other scan from registers.
enum class scan_use { plain, selection };

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
  scan_core(const context& ctx, const scan_value_type& type, std::string_view arguments,
            std::string_view input_expr, std::string_view scan_expr, std::string_view neutral,
            std::string_view output_stmt, scan_kind kind, const scan_options& options,
            scan_use use);

  const std::vector<parameter>& parameters() const;
  const std::string& who() const;
  /// Throws unless every array argument the snippets index with [i] holds n elements.
  void check_lengths(std::size_t n, const std::vector<std::size_t>& lengths) const;
  /// n of a clforge::range(n) (or range(0, n)): a scan runs over [0, n); anything else throws.
  std::size_t length_of(const index_range& r) const;
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

/// One call of a scan over [0, n): binds and checks the arguments, then launches. n is the
/// length of the first array argument when `n` is npos.
template <class... Args>
scan_core::events scan_call(const scan_core& core, const queue& q, std::size_t n,
                            const Args&... args) {
  argument_list bound = argument_list::bind(core.who(), core.parameters(), args...);
  if (n == static_cast<std::size_t>(-1)) {
    if (!bound.has_array())
      throw error(core.who() + ": needs an array argument (its length is the scan's length)");
    n = bound.first_array_length();
  }
  core.check_lengths(n, {argument_length(args)...});
  return core.launch(q, n, bound);
}

/// The scan of these snippets (options: name and preamble, the rest tuned), built on first use
/// and kept with the context (released with it): the scans behind inclusive_scan, copy_if, ...
CLFORGE_API scan_core shared_scan(const context& ctx, const scan_value_type& type,
                                  const std::string& arguments, const std::string& input_expr,
                                  const std::string& scan_expr, const std::string& neutral,
                                  const std::string& output_stmt, scan_kind kind,
                                  const std::string& name, const std::string& preamble = "");
/// shared_scan with T's type.
template <class T>
scan_core shared_scan(const context& ctx, const std::string& arguments,
                      const std::string& input_expr, const std::string& scan_expr,
                      const std::string& neutral, const std::string& output_stmt, scan_kind kind,
                      const std::string& name, const std::string& preamble = "") {
  return shared_scan(ctx, scan_value_type{type_name<T>(), sizeof(T), type_traits<T>::needs_fp64},
                     arguments, input_expr, scan_expr, neutral, output_stmt, kind, name, preamble);
}

/// Whether scan_expr over values of the OpenCL type `type` commutes exactly without being
/// declared: an integer type and (spaces aside) a + b, b + a, min(a, b), min(b, a), max(a, b) or
/// max(b, a).
CLFORGE_API bool known_commutative(std::string_view type, std::string_view scan_expr);

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
    return detail::scan_call(core_, q, static_cast<std::size_t>(-1), args...);
  }

  /// Scans over the indices [0, n) of clforge::range(n) (PyOpenCL's `size=`), e.g. when the data
  /// lies in several arrays: the range form every template takes. Arrays the snippets index with
  /// [i] must still hold n elements.
  template <class... Args>
  event operator()(const queue& q, const index_range& r, const Args&... args) const {
    return launch(q, r, args...).last;
  }
  /// As operator() over a range, returning the events of the first and the last kernel.
  template <class... Args>
  detail::scan_core::events launch(const queue& q, const index_range& r,
                                   const Args&... args) const {
    return detail::scan_call(core_, q, core_.length_of(r), args...);
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

/// out[i] = in[0] op ... op in[i]. `op` over a and b, `neutral` its identity. out may be in.
/// The kernel is built once per (context, type, op, neutral) and cached.
template <class T>
event inclusive_scan(const queue& q, const array<T>& in, array<T>& out,
                     const std::string& op = "a + b", const std::string& neutral = "0") {
  if (out.size() < in.size())
    throw error("inclusive_scan: the output has " + std::to_string(out.size()) +
                " elements, the input " + std::to_string(in.size()));
  const std::string type = type_name<T>();
  const detail::scan_core k = detail::shared_scan<T>(
      q.ctx(), "global const " + type + "* in, global " + type + "* out", "in[i]", op, neutral,
      "out[i] = item", scan_kind::inclusive, "inclusive_scan");
  return detail::scan_call(k, q, in.size(), in, out).last;
}

/// out[i] = neutral op in[0] op ... op in[i - 1]; out[0] = neutral. out may be in.
template <class T>
event exclusive_scan(const queue& q, const array<T>& in, array<T>& out,
                     const std::string& op = "a + b", const std::string& neutral = "0") {
  if (out.size() < in.size())
    throw error("exclusive_scan: the output has " + std::to_string(out.size()) +
                " elements, the input " + std::to_string(in.size()));
  const std::string type = type_name<T>();
  const detail::scan_core k = detail::shared_scan<T>(
      q.ctx(), "global const " + type + "* in, global " + type + "* out", "in[i]", op, neutral,
      "out[i] = item", scan_kind::exclusive, "exclusive_scan");
  return detail::scan_call(k, q, in.size(), in, out).last;
}

}  // namespace clforge
