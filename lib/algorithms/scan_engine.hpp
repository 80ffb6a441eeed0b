// SPDX-License-Identifier: MIT
// The scan engine behind scan_kernel (lib/algorithms/scan.cpp: the template, its checks and
// calls), shared with its two algorithms: scan_lookback.cpp (kernels/scan_lookback.cl, GPUs) and
// scan_rts.cpp (kernels/scan_rts.cl, reduce-then-scan, CPUs). Internal to the library.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "clforge/algorithms/scan.hpp"
#include "template_engine.hpp"
#include "view_variants.hpp"

namespace clforge::detail {

// Bounds of the tuning values (a larger one only makes a huge program or launch).
constexpr std::size_t kMaxScanItems = 64;
constexpr std::size_t kMaxScanWindow = 1024;
constexpr std::size_t kMaxLanes = 16;
constexpr std::size_t kMaxChunkValue = std::size_t(1) << 24;

inline std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Holds no context handle (kept with the context by shared_scan); a call takes the queue's.
struct scan_engine : template_state_of<scan_options, scan_core>,
                     std::enable_shared_from_this<scan_engine> {
  std::string fp64_pragma;     // start's, for the kernels' preamble
  cl_context owner = nullptr;  // of the built programs, which retain it
  std::size_t compute_units = 1;
  std::vector<bool> indexed;  // per parameter: indexed with [i] by a snippet
  scan_value_type type;
  scan_kind kind = scan_kind::inclusive;
  scan_use use = scan_use::plain;  // a selection's look-back reads selection_registers
  scan_algorithm algorithm = scan_algorithm::automatic;
  bool segmented = false, uses_last_item = false, packed = false;
  bool commutative = false;          // declared (scan_options) or known (known_commutative)
  std::size_t items = 0, group = 0;  // look-back tile shape
  std::size_t window = 1;            // look-back work-items
  bool registers = true;             // a work-item's items between its passes
  std::size_t groups_per_cu = 0;     // look-back: 0 one group per tile, else persistent
  tile_layout layout = tile_layout::striped;    // look-back
  std::size_t granularity = 0, max_chunks = 0;  // reduce-then-scan
  std::size_t rts_local = 1;
  std::size_t lanes = 1;  // chunks per work-item, walked side by side
  program total_program;  // beside prog, the main one
  kernel main, total, reduce, spine;

  // What calls passing array views, and rebuilds under a new tuning, are generated from.
  std::string arguments, input_expr, scan_expr, neutral, output_stmt;

  std::size_t tile() const { return items * group; }
  // On an out-of-order queue, order_point puts barriers between dependent commands.
  event run_lookback(const queue& q, std::size_t n, const argument_list& args, event* first) const;
  event run_rts(const queue& q, std::size_t n, const argument_list& args, event* first) const;
};

// What the deprecated tile and chunk fields of scan_options ask for (0, -1, automatic: the
// tuning), read in one place without the deprecation warning.
struct requested_tile {
  std::size_t items, group, window, groups_per_cu, granularity, max_chunks, lanes;
  int registers;
  scan_layout layout;
};
// The look-back kernels (scan_lookback.cpp): the tile (the deprecated scan_options fields where
// set, else `policy`), then the main program and, where the output uses last_item, the pass that
// finds it. `values` holds the template values both algorithms share.
void build_lookback(const context& ctx, scan_engine& e, const requested_tile& asked,
                    const scan_policy& policy, template_values& values, std::string_view input_expr,
                    std::string_view output_stmt, const scan_options& options);
// The reduce-then-scan kernels (scan_rts.cpp).
void build_rts(const context& ctx, scan_engine& e, const requested_tile& asked,
               const scan_policy& policy, template_values& values, const scan_options& options);

}  // namespace clforge::detail
