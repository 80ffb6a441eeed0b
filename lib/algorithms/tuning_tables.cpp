// SPDX-License-Identifier: MIT
// The default tuning of every kernel template, one table per device class. A device takes the
// table of its class (tuning::device_table); CLFORGE_TUNE="table=NAME" or
// tuning::set(ctx, "table", "NAME") selects another. Only rows marked "measured" were chosen by
// measurement; the others are stand-ins until someone measures that class (see
// docs/architecture.md: bench/run-gpu.sh, then edit the row here).
#include <cstring>

#include "tuning.hpp"

namespace clforge::detail {

namespace {

// NVIDIA GPUs. Measured on an NVIDIA H100 80GB HBM3 (2026-11-22, `bash bench/run-gpu.sh nvidia
// --min-time 0.2`; bench/results/NVIDIA-H100-80GB-HBM3-2026-11-22) and in the variant runs
// that led to it (CLFORGE_BENCH_SHAPES / tile variants of clforge-bench, same machine):
//   elementwise: saxpy 2^28 floats, vector_width 4: 3047 GB/s; scalar 2750; hand-written
//                float4 3048.
//   reduce:      sum 2^28 floats incl. read-back, 16-byte loads 2796 GB/s against 2683 scalar;
//                with grid + single_launch 2922 (contiguous chunks, two launches: 2877;
//                hand-written 2870).
//   scan:        int32 inclusive 2^28: 32x256 window 32 2178-2192 GB/s (40x256 2055, window 1
//                1903, blocked / vector-load layouts 450-1720); striped_vector 2362-2373; with
//                items in local memory 2452-2461; copy_if 50%: 1592 -> 1764. Window 8 (found by
//                clforge-tune, 2026-11-25, bench/results/NVIDIA-H100-80GB-HBM3-2026-11-25/
//                tuner-scan-window.md): 2507.8 against 2469.6 for window 32 side by side (4:
//                2494.5, 16: 2495.4, 2: 2391.9).
//   polygon:     kernel time 1024²x24 / 8192²x24 / 8192²x1000 vertices: span 8 px x 128
//                8.0 / 75 / 928 us; span 4 px x 256 8.6 / 93 / 951 us.
constexpr policy_table kNvidia{
    "nvidia",
    "NVIDIA H100 80GB HBM3, 2026-11-22, bash bench/run-gpu.sh nvidia --min-time 0.2",
    elementwise_policy{work_kind::gpu, 256, 0, 0, 0, 4},
    reduce_policy{work_kind::gpu, 256, 8, 16, 16, true, true},
    scan_policy{scan_algorithm::lookback, 0, 128, 32, 256, 8, scan_layout::striped_vector, false, 0,
                1024, 0, 4096, 1, 1, 64},
    polygon_policy{polygon_kernel::span, 8, 8, 0, 128, false},
    // sort: onesweep, 2^28 uint32 keys on the H100 (2026-11-25, sort-rankings.md in its
    // results): the count matrix at its best (64 x 64) 15.7 ms; lane counts in step by warp
    // barriers, 256 work-items x 16 / 24 / 32 / 40 keys 9.2 / 8.9 / 7.8 / 7.2 ms (128 x 48:
    // 8.1; group barriers 256 x 24: 9.1; match.any 256 x 16: 11.6). 40 keys is the most that
    // fits 48 KB of local memory; key-value pairs fit 16. The up-front digit count with 16
    // groups per compute unit: 6.86 ms against 7.17 with 4 (sort-rankings.md, call 16).
    sort_policy{sort_path::onesweep, 256, 40, 32768, 256, 16, 16, 8, 16384, 8,
                sort_ranking::nv_warp},
};

// A deliberately plain GPU table: no vectorized forms, two-launch reductions, the look-back
// tile in registers with striped accesses. The default of GPUs no table was measured on, the
// base of an explicit kernel_shape::gpu(), and a starting point for autotuning.
constexpr policy_table kGeneric{
    "generic",
    "not measured: portable choices",
    elementwise_policy{work_kind::gpu, 256, 0, 0, 0, 4},
    reduce_policy{work_kind::gpu, 256, 8, 16, 16, false, false},
    scan_policy{scan_algorithm::lookback, 0, 128, 32, 256, 32, scan_layout::striped, true, 0, 1024,
                0, 4096, 1, 1, 64},
    polygon_policy{polygon_kernel::span, 8, 8, 0, 128, false},
    // sort: onesweep (the chunked path runs one work-item per chunk, which leaves a GPU
    // mostly idle) with the portable lane ranking; where its tile does not fit the device, the
    // chunked path runs.
    sort_policy{sort_path::onesweep, 256, 16, 32768, 256, 4, 16, 8, 16384, 8, sort_ranking::lanes},
};

// CPU devices (PoCL). Measured with `clforge-bench --quick` on PoCL (bench/results/pthread-*):
//   elementwise: groups of 1024 consecutive work-items (grid-stride loops ran 20-80x slower),
//                and 8-wide vector loads and stores where the operation allows them: scalar
//                work-items ran at a third of the OpenMP loop on a host where PoCL did not
//                vectorize them (bench/results/pocl-elementwise-vectors-2026-11-24.md).
//   reduce:      one work-item per group over a contiguous chunk with 16 accumulators, 8 groups
//                per core (a 1024-item group then one adding work-item ran 0.6x an OpenMP loop).
//   scan:        reduce-then-scan; 2 lanes for float and double ran 2x faster (4 lanes 1.4x,
//                8 lanes 2.7x slower), integers gained nothing; 32 chunks per core.
//   polygon:     a work-item per row segment of 1024 pixels (4096 above 1024 pixels wide).
constexpr policy_table kCpu{
    "cpu",
    "PoCL, clforge-bench --quick (bench/results/pthread-*)",
    elementwise_policy{work_kind::gpu, 1024, 0, 0, 0, 8},
    reduce_policy{work_kind::cpu, 1, 16, 8, 0, false, false},
    scan_policy{scan_algorithm::reduce_then_scan, 16, 0, 16, 64, 1, scan_layout::striped, true, 0,
                1024, 32, 0, 1, 2, 1},
    polygon_policy{polygon_kernel::row, 1024, 4096, 1024, 256, false},
    // sort: one work-item per chunk of at least 16384 keys, 4 chunks per core, 11-bit digits
    // (32-bit keys in 3 passes; 2^24 uint32 keys 1.18x faster than 8-bit digits side by side,
    // bench/results/pocl-sort-2026-11-23.md).
    sort_policy{sort_path::chunked, 64, 16, 4096, 64, 4, 16, 4, 16384, 11},
};

// AMD and Intel GPUs and other GPUs: not measured; the generic table under their own names, so
// that a measured row replaces one of them without touching the others.
constexpr policy_table kAmd{"amd",
                            "not measured: the generic table",
                            kGeneric.elementwise,
                            kGeneric.reduce,
                            kGeneric.scan,
                            kGeneric.polygon,
                            kGeneric.sort};
constexpr policy_table kIntel{"intel",
                              "not measured: the generic table",
                              kGeneric.elementwise,
                              kGeneric.reduce,
                              kGeneric.scan,
                              kGeneric.polygon,
                              kGeneric.sort};
constexpr policy_table kOtherGpu{"gpu",
                                 "not measured: the generic table",
                                 kGeneric.elementwise,
                                 kGeneric.reduce,
                                 kGeneric.scan,
                                 kGeneric.polygon,
                                 kGeneric.sort};

constexpr policy_table kTables[] = {kNvidia, kAmd, kIntel, kOtherGpu, kGeneric, kCpu};

bool contains(const std::string& text, const char* word) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return lower.find(word) != std::string::npos;
}

}  // namespace

const policy_table* policy_tables(std::size_t& count) {
  count = sizeof kTables / sizeof kTables[0];
  return kTables;
}

bool vendor_contains(const device_info& info, const char* word) {
  return contains(info.vendor, word);
}

const policy_table& device_table(const device_info& info) {
  if (!info.is_gpu()) return kCpu;
  if (contains(info.vendor, "nvidia")) return kNvidia;
  if (contains(info.vendor, "advanced micro devices") || contains(info.vendor, "amd")) return kAmd;
  if (contains(info.vendor, "intel")) return kIntel;
  return kOtherGpu;
}

const policy_table& kind_table(work_kind kind) {
  return kind == work_kind::gpu ? kGeneric : kCpu;
}

}  // namespace clforge::detail
