// SPDX-License-Identifier: MIT
// The default tuning of every kernel template, one table per device class, as data: per
// template a row of "key=value,..." text (the grammar of CLFORGE_TUNE and tuning::set; keys a
// row leaves out keep their defaults, policies.hpp) and where its values come from. A device
// takes the table of its class (device_table); CLFORGE_TUNE="table=NAME" or
// tuning::set(ctx, "table", "NAME") selects another. Only rows marked "measured" were chosen by
// measurement; the others are stand-ins until someone measures that class (docs/tuning.md:
// bench/run-gpu.sh or clforge-tune, then edit the row here).
#include "tables.hpp"

#include "clforge/error.hpp"
#include "device_class.hpp"
#include "registry.hpp"

namespace clforge::detail {

namespace {

struct row_text {
  const char* template_name;
  const char* settings;
  const char* provenance;  // "measured ..." with the figures, or "not measured: why these"
};

struct table_text {
  const char* name;
  const char* base;        // the table whose rows this one starts from (nullptr: none)
  const char* provenance;  // of the rows taken from `base`
  std::vector<row_text> rows;
};

const std::vector<table_text>& table_texts() {
  static const std::vector<table_text> tables = {
      {"nvidia",
       nullptr,
       nullptr,
       {
           {"elementwise",
            "kind=gpu, group=256, groups_per_cu=0, block=0, interleave=0, vector_width=4",
            "measured on an NVIDIA H100 80GB HBM3, 2026-11-22 (bash bench/run-gpu.sh nvidia "
            "--min-time 0.2; bench/results/NVIDIA-H100-80GB-HBM3-2026-11-22): saxpy 2^28 "
            "floats, vector_width 4: 3047 GB/s; scalar 2750; hand-written float4 3048"},
           {"reduce",
            "kind=gpu, group=256, unroll=8, groups_per_cu=16, vector_bytes=16, grid=1, "
            "single_launch=1",
            "measured on an NVIDIA H100 80GB HBM3, 2026-11-22 (as elementwise): sum of 2^28 "
            "floats with the read-back, 16-byte loads 2796 GB/s against 2683 scalar; with grid "
            "and single_launch 2922 (contiguous chunks, two launches: 2877; hand-written 2870)"},
           {"scan",
            "algorithm=lookback, items=0, item_bytes=128, max_items=32, group=256, window=8, "
            "layout=striped_vector, registers=0, selection_registers=1, groups_per_cu=0, "
            "granularity=1024, chunks_per_cu=0, max_chunks=4096, lanes=1, lanes_floating=1, "
            "rts_group=64",
            "measured on an NVIDIA H100 80GB HBM3, 2026-11-22 and 2026-11-25: int32 inclusive "
            "2^28, 32x256 window 32 2178-2192 GB/s (40x256 2055, window 1 1903, blocked and "
            "vector-load layouts 450-1720); striped_vector 2362-2373; with items in local "
            "memory (registers=0) 2452-2461; copy_if 50%: 1592 -> 1764; with "
            "selection_registers=1 (2026-11-27, 4 rounds side by side) 862-864 us against "
            "884-885 with 0. Window 8 (found by "
            "clforge-tune, bench/results/NVIDIA-H100-80GB-HBM3-2026-11-25/"
            "tuner-scan-window.md): 2507.8 against 2469.6 for window 32 side by side (4: "
            "2494.5, 16: 2495.4, 2: 2391.9)"},
           {"polygon", "kernel=span, pixels=8, pixels_wide=64, wide_from=4096, group=128, serial=0",
            "measured on an NVIDIA H100 80GB HBM3, 2026-11-26 (bench/results/"
            "NVIDIA-H100-80GB-HBM3-2026-11-26/polygon-mask.md): kernel time 1024²x24 / "
            "8192²x24 / 8192²x1000 vertices, span with a vector store per run of 16: 64 px x "
            "128 8.6-9.5 / 32.2-32.6 / 136 us; 32 x 128 7.2-7.9 / 34.5 / 167 us; 16 x 128 "
            "6.3-7.7 / 38.2-39.0 / 198-204 us; 8 x 128 6.3-7.8 / 52.4-53.1 / 366-371 us "
            "(before the runs: 8 x 128 6.6-8.3 / 72.3-73.4 / 924-928 us)"},
           {"sort",
            "path=onesweep, group=256, items=40, portion=32768, hist_group=256, "
            "hist_groups_per_cu=16, onesweep_value_bytes=16, chunks_per_cu=8, min_chunk=16384, "
            "chunk_digit_bits=8, ranking=nv_warp",
            "measured on an NVIDIA H100 80GB HBM3, 2026-11-25 (sort-rankings.md in its "
            "results): onesweep, 2^28 uint32 keys: the count matrix at its best (64 x 64) "
            "15.7 ms; lane counts in step by warp barriers, 256 work-items x 16 / 24 / 32 / 40 "
            "keys 9.2 / 8.9 / 7.8 / 7.2 ms (128 x 48: 8.1; group barriers 256 x 24: 9.1; "
            "match.any 256 x 16: 11.6). 40 keys is the most that fits 48 KB of local memory; "
            "key-value pairs fit 16. The up-front digit count with 16 groups per compute unit: "
            "6.86 ms against 7.17 with 4 (sort-rankings.md, call 16)"},
           {"histogram", "group=256, groups_per_cu=16, local_bins=8192, unroll=4",
            "measured on an NVIDIA H200, 2026-11-28 (bench/results/NVIDIA-H200-2026-11-28/"
            "histogram.md): histogram_256_float 2^28, the kernel's event 298.8 and 299.1 us "
            "against 310.4 and 311.2 with groups_per_cu=32, unroll=8; group 1024 or 512: 323.8-"
            "336.5. On an NVIDIA H100 80GB HBM3, 2026-11-28 (bench/results/"
            "NVIDIA-H100-80GB-HBM3-2026-11-28/histogram-unroll.md): the whole call 404.0 us "
            "against 412.7-419.1 with groups_per_cu=32, unroll=8"},
           {"stencil", "group_x=64, group_y=4, group_z=1, march=16, run=1, window=1, tile=0",
            "not measured: written for the 7-point 3-D Jacobi on 512^3 floats (rows of 64 "
            "consecutive x per group, each work-item marching 16 z-planes with its z-neighbours "
            "in registers; the x and y neighbours from the caches); clforge-tune --template "
            "stencil searches the tile and the shapes"},
       }},
      // AMD and Intel GPUs and other GPUs: the generic table under their own names, so that a
      // measured row replaces one of them without touching the others.
      {"amd", "generic", "not measured: the generic table", {}},
      {"intel", "generic", "not measured: the generic table", {}},
      {"gpu", "generic", "not measured: the generic table", {}},
      // A deliberately plain GPU table: two-launch reductions, the look-back tile in registers
      // with striped accesses, the portable sort ranking. The default of GPUs no table was
      // measured on, the base of an explicit kernel_shape::gpu(), and a starting point for
      // autotuning.
      {"generic",
       nullptr,
       nullptr,
       {
           {"elementwise",
            "kind=gpu, group=256, groups_per_cu=0, block=0, interleave=0, vector_width=4",
            "not measured: portable choices"},
           {"reduce",
            "kind=gpu, group=256, unroll=8, groups_per_cu=16, vector_bytes=16, grid=0, "
            "single_launch=0",
            "not measured: portable choices"},
           {"scan",
            "algorithm=lookback, items=0, item_bytes=128, max_items=32, group=256, window=32, "
            "layout=striped, registers=1, groups_per_cu=0, granularity=1024, chunks_per_cu=0, "
            "max_chunks=4096, lanes=1, lanes_floating=1, rts_group=64",
            "not measured: portable choices"},
           {"polygon", "kernel=span, pixels=8, pixels_wide=8, wide_from=0, group=128, serial=0",
            "not measured: portable choices"},
           {"sort",
            "path=onesweep, group=256, items=16, portion=32768, hist_group=256, "
            "hist_groups_per_cu=4, onesweep_value_bytes=16, chunks_per_cu=8, min_chunk=16384, "
            "chunk_digit_bits=8, ranking=lanes",
            "not measured: onesweep (the chunked path runs one work-item per chunk, which "
            "leaves a GPU mostly idle) with the portable lane ranking; where its tile does not "
            "fit the device, the chunked path runs"},
           {"histogram", "group=256, groups_per_cu=8, local_bins=4096, unroll=8",
            "not measured: portable choices"},
           {"stencil", "group_x=32, group_y=8, group_z=1, march=8, run=1, window=1, tile=0",
            "not measured: portable choices (a march of 8 points with the neighbours along it in "
            "registers)"},
           {"par_loop", "plan=block, group=128, block=1",
            "not measured: OP2's GPU shape, units of one group's elements coloured, elements "
            "of a unit that share a target in turns by their thread colour"},
       }},
      {"cpu",
       nullptr,
       nullptr,
       {
           {"elementwise",
            "kind=gpu, group=1024, groups_per_cu=0, block=0, interleave=0, vector_width=8",
            "measured on PoCL with clforge-bench --quick (bench/results/pthread-*): groups of "
            "1024 consecutive work-items (grid-stride loops ran 20-80x slower), and 8-wide "
            "vector loads and stores where the operation allows them: scalar work-items ran at "
            "a third of the OpenMP loop on a host where PoCL did not vectorize them "
            "(bench/results/pocl-elementwise-vectors-2026-11-24.md)"},
           {"reduce",
            "kind=cpu, group=1, unroll=16, groups_per_cu=8, vector_bytes=0, grid=0, "
            "single_launch=1",
            "measured on PoCL (as elementwise): one work-item per group over a contiguous "
            "chunk with 16 accumulators, 8 groups per core (a 1024-item group then one adding "
            "work-item ran 0.6x an OpenMP loop); the last group adds the partials, one launch "
            "fewer: sum(x * y) of 2^20 floats 1.5-2% faster, bench/results/pocl-2026-11-26.md"},
           {"scan",
            "algorithm=reduce_then_scan, items=16, item_bytes=128, max_items=16, group=64, "
            "window=1, layout=striped, registers=1, groups_per_cu=0, granularity=1024, "
            "chunks_per_cu=32, max_chunks=4096, lanes=1, lanes_floating=2, rts_group=1",
            "measured on PoCL (as elementwise): reduce-then-scan; 2 lanes for float and double "
            "ran 2x faster (4 lanes 1.4x, 8 lanes 2.7x slower), integers gained nothing; 32 "
            "chunks per core"},
           {"polygon",
            "kernel=row, pixels=1024, pixels_wide=4096, wide_from=1024, group=256, serial=0",
            "measured on PoCL (as elementwise): a work-item per row segment of 1024 pixels "
            "(4096 above 1024 pixels wide)"},
           {"sort",
            "path=chunked, group=64, items=16, portion=4096, hist_group=64, "
            "hist_groups_per_cu=4, onesweep_value_bytes=16, chunks_per_cu=4, min_chunk=16384, "
            "chunk_digit_bits=11, ranking=matrix",
            "measured on PoCL: one work-item per chunk of at least 16384 keys, 4 chunks per "
            "core, 11-bit digits (32-bit keys in 3 passes; 2^24 uint32 keys 1.18x faster than "
            "8-bit digits side by side, bench/results/pocl-sort-2026-11-23.md)"},
           {"histogram", "group=1, groups_per_cu=8, local_bins=8192, unroll=8",
            "measured on PoCL (bench/results/pocl-2026-11-24.md): one work-item per group "
            "counting its chunk without atomics; 8 indices per round: clforge / OpenMP 1.044 "
            "(1: 0.801, 4: 1.035, 16: 0.954)"},
           {"stencil", "group_x=1, group_y=1, group_z=1, march=1, run=256, window=1, tile=0",
            "not measured: one work-item per run of 256 consecutive points of a row"},
           {"par_loop", "plan=block, group=1, block=1024",
            "measured on PoCL, 2 cores, loaded (clforge-bench, bench/results/"
            "pocl-op-2026-11-26.md): the edge flux on 262144 cells, 523264 edges, block "
            "colouring of units of 1024 consecutive edges, one work-item each, over four runs: "
            "0.93-1.06x a hand-built edge colouring and 0.80-1.07x OpenMP with that colouring, "
            "side by side (block 512: 0.77-0.86x; 2048: 0.93x; 64 or groups of 8 and 128 "
            "work-items with thread colours and barriers: 0.52-0.78x; atomics 0.48-0.73x)"},
       }},
  };
  return tables;
}

// One table's rows through its templates' registry rows: full texts, checked. `base` is the
// table it starts from, or null.
tuning_table parse_table(const table_text& t, const tuning_table* base) {
  tuning_table table;
  table.name = t.name;
  if (base) {
    table.text = base->text;
    for (const auto& entry : base->provenance)
      table.provenance[entry.first] = std::string(t.provenance) + " (" + entry.second + ")";
  }
  const std::string where = std::string("tuning table ") + t.name;
  for (const row_text& r : t.rows) {
    const template_row& row = row_named(r.template_name, where);
    table.text[row.name()] = row.apply("", r.settings, where);
    table.provenance[row.name()] = r.provenance;
  }
  // A template the table leaves out takes its defaults.
  for (const template_row* row : template_rows())
    if (!table.text.count(row->name())) {
      table.text[row->name()] = row->defaults();
      table.provenance[row->name()] = "not measured: the defaults of the keys";
    }
  return table;
}

// Every table, in the order written; a table may start from one written after it.
std::vector<tuning_table> parse_tables() {
  const std::vector<table_text>& texts = table_texts();
  std::vector<tuning_table> out(texts.size());
  for (std::size_t k = 0; k < texts.size(); ++k)
    if (!texts[k].base) out[k] = parse_table(texts[k], nullptr);
  for (std::size_t k = 0; k < texts.size(); ++k) {
    if (!texts[k].base) continue;
    const tuning_table* base = nullptr;
    for (std::size_t b = 0; b < texts.size(); ++b)
      if (!texts[b].base && std::string(texts[b].name) == texts[k].base) base = &out[b];
    if (!base)
      throw error(std::string("tuning table ") + texts[k].name + ": no table " + texts[k].base +
                  " (that starts from no other) to start from");
    out[k] = parse_table(texts[k], base);
  }
  return out;
}

}  // namespace

const std::vector<tuning_table>& tuning_tables() {
  // A throwing initialisation is tried again on the next call: every use reports the typo.
  static const std::vector<tuning_table> tables = parse_tables();
  return tables;
}

const tuning_table& table_named(const std::string& name, const std::string& where) {
  std::string names;
  for (const tuning_table& t : tuning_tables()) {
    if (name == t.name) return t;
    names += (names.empty() ? "" : ", ") + t.name;
  }
  throw error(where + ": no tuning table \"" + name + "\"; the tables are " + names + " (or auto)");
}

const tuning_table& device_table(const device_info& info) {
  if (!info.is_gpu()) return table_named("cpu", "tuning");
  switch (vendor_of(info)) {
    case device_vendor::nvidia:
      return table_named("nvidia", "tuning");
    case device_vendor::amd:
      return table_named("amd", "tuning");
    case device_vendor::intel:
      return table_named("intel", "tuning");
    case device_vendor::other:
      break;
  }
  return table_named("gpu", "tuning");
}

}  // namespace clforge::detail
