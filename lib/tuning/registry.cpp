// SPDX-License-Identifier: MIT
// The rows of the tuning registry: per template its keys (bounds, choices; the defaults are the
// policy struct's initial values), the tuner's workload, the search space and its constraint.
#include "registry.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <utility>

#include "clforge/error.hpp"
#include "device_class.hpp"
#include "grammar.hpp"

namespace clforge::detail {

// ---- keys ------------------------------------------------------------------------------------

namespace {

// One key of a policy: its name, what it takes, and how it sets and reads the policy.
template <class Policy>
struct policy_key {
  const char* name;
  std::string takes;                                     // "1 to 64", "gpu|cpu", ...
  std::function<bool(Policy&, const std::string&)> set;  // false: value out of bounds
  std::function<std::string(const Policy&)> get;         // the value as set would take it
};

bool to_number(const std::string& text, std::size_t lo, std::size_t hi, std::size_t& out) {
  if (text.empty() || text.size() > 12) return false;
  std::size_t v = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  if (v < lo || v > hi) return false;
  out = v;
  return true;
}

template <class Policy, class Field>
policy_key<Policy> number(const char* name, const char* takes, Field Policy::*field, std::size_t lo,
                          std::size_t hi, bool power_of_two = false) {
  return {name, takes,
          [=](Policy& p, const std::string& v) {
            std::size_t n = 0;
            if (!to_number(v, lo, hi, n)) return false;
            if (power_of_two && (n & (n - 1)) != 0) return false;
            p.*field = static_cast<Field>(n);
            return true;
          },
          [=](const Policy& p) { return std::to_string(static_cast<long long>(p.*field)); }};
}

// A size that takes one of a few values.
template <class Policy>
policy_key<Policy> one_of(const char* name, std::size_t Policy::*field,
                          std::vector<std::size_t> values) {
  std::string takes;
  for (std::size_t v : values) takes += (takes.empty() ? "" : "|") + std::to_string(v);
  return {name, takes,
          [=](Policy& p, const std::string& v) {
            std::size_t n = 0;
            if (!to_number(v, 0, std::size_t(1) << 32, n)) return false;
            if (std::find(values.begin(), values.end(), n) == values.end()) return false;
            p.*field = n;
            return true;
          },
          [=](const Policy& p) { return std::to_string(p.*field); }};
}

template <class Policy>
policy_key<Policy> flag(const char* name, bool Policy::*field) {
  return {name, "0 or 1",
          [=](Policy& p, const std::string& v) {
            if (v != "0" && v != "1") return false;
            p.*field = v == "1";
            return true;
          },
          [=](const Policy& p) { return std::string(p.*field ? "1" : "0"); }};
}

template <class Policy, class Enum, std::size_t N>
policy_key<Policy> choice(const char* name, Enum Policy::*field,
                          const std::pair<const char*, Enum> (&names)[N]) {
  std::vector<std::pair<std::string, Enum>> list(std::begin(names), std::end(names));
  std::string takes;
  for (const auto& n : list) takes += (takes.empty() ? "" : "|") + n.first;
  return {name, takes,
          [=](Policy& p, const std::string& v) {
            for (const auto& n : list)
              if (n.first == v) {
                p.*field = n.second;
                return true;
              }
            return false;
          },
          [=](const Policy& p) {
            for (const auto& n : list)
              if (n.second == p.*field) return n.first;
            return std::string();
          }};
}

constexpr std::pair<const char*, work_kind> kKinds[] = {{"gpu", work_kind::gpu},
                                                        {"cpu", work_kind::cpu}};
constexpr std::pair<const char*, scan_method> kScanMethods[] = {
    {"lookback", scan_method::lookback}, {"reduce_then_scan", scan_method::reduce_then_scan}};
constexpr std::pair<const char*, tile_layout> kLayouts[] = {
    {"striped", tile_layout::striped}, {"striped_vector", tile_layout::striped_vector}};
constexpr std::pair<const char*, polygon_kernel> kPolygonKernels[] = {
    {"pixel", polygon_kernel::pixel},
    {"span", polygon_kernel::span},
    {"fill", polygon_kernel::fill},
    {"row", polygon_kernel::row}};
constexpr std::pair<const char*, sort_path> kSortPaths[] = {{"onesweep", sort_path::onesweep},
                                                            {"chunked", sort_path::chunked}};
constexpr std::pair<const char*, sort_ranking> kSortRankings[] = {
    {"matrix", sort_ranking::matrix},
    {"lanes", sort_ranking::lanes},
    {"nv_match", sort_ranking::nv_match},
    {"nv_warp", sort_ranking::nv_warp}};
constexpr std::pair<const char*, loop_plan> kLoopPlans[] = {
    {"atomics", loop_plan::atomics}, {"colour", loop_plan::colour}, {"block", loop_plan::block}};

// ---- what constraints read from a point --------------------------------------------------

std::string value_of(const setting_point& p, const char* key) {
  auto it = p.find(key);
  return it == p.end() ? std::string() : it->second;
}
std::size_t number_of(const setting_point& p, const char* key) {
  auto it = p.find(key);
  std::size_t n = 0;
  return it != p.end() && to_number(it->second, 0, std::size_t(1) << 40, n) ? n : 0;
}

}  // namespace

// ---- the typed row -------------------------------------------------------------------------

template <class Policy>
class row_of final : public template_row {
 public:
  row_of(const char* workload, std::vector<policy_key<Policy>> keys,
         std::vector<search_parameter> space, space_constraint constraint)
      : template_row(Policy::template_name, workload, std::move(space), constraint),
        keys_(std::move(keys)) {}

  std::string keys_described() const override {
    std::string out;
    for (const auto& k : keys_)
      out += std::string(out.empty() ? "" : ", ") + k.name + " (" + k.takes + ")";
    return out;
  }
  std::vector<std::string> key_names() const override {
    std::vector<std::string> out;
    for (const auto& k : keys_) out.push_back(k.name);
    return out;
  }
  std::string apply(const std::string& base, const std::string& settings,
                    const std::string& where) const override {
    Policy p{};
    set(p, base, where);
    set(p, settings, where);
    return describe(p);
  }

  // Applies "key=value,key=value" to `p`; `where` names the source in errors.
  void set(Policy& p, const std::string& settings, const std::string& where) const {
    for (const setting& s : split_settings(settings)) {
      const policy_key<Policy>* found = nullptr;
      for (const auto& k : keys_)
        if (s.key == k.name) found = &k;
      if (!s.has_value || !found)
        throw error(where + ": \"" + shown(s.text) + "\" is not a " + name() +
                    " setting; the keys are " + keys_described());
      if (!found->set(p, s.value))
        throw error(where + ": " + name() + " " + found->name + " takes " + found->takes +
                    ", not \"" + shown(s.value) + "\"");
    }
  }
  std::string describe(const Policy& p) const {
    std::string out;
    for (const auto& k : keys_)
      out += std::string(out.empty() ? "" : ",") + k.name + "=" + k.get(p);
    return out;
  }

 private:
  std::vector<policy_key<Policy>> keys_;
};

bool template_row::pinned(const setting_point& point,
                          std::initializer_list<const char*> keys) const {
  for (const char* key : keys)
    for (const search_parameter& par : space_)
      if (par.key == key && value_of(point, key) != par.values.front()) return false;
  return true;
}

namespace {

// ---- the rows ------------------------------------------------------------------------------

const row_of<elementwise_policy> kElementwise{
    "saxpy",
    {
        choice("kind", &elementwise_policy::kind, kKinds),
        number("group", "1 to 4096", &elementwise_policy::group, 1, kMaxGroupSize),
        number("groups_per_cu", "0 to 1024", &elementwise_policy::groups_per_cu, 0,
               kMaxGroupsPerCu),
        number("block", "0 or a power of two up to 16", &elementwise_policy::block, 0, 16, true),
        number("interleave", "0 or a power of two up to 16", &elementwise_policy::interleave, 0, 16,
               true),
        number("vector_width", "0 or a power of two up to 16", &elementwise_policy::vector_width, 0,
               16, true),
    },
    {{"kind", {"gpu", "cpu"}},
     {"group", {"64", "128", "256", "512", "1024"}},
     {"vector_width", {"0", "2", "4", "8"}},
     {"groups_per_cu", {"0", "16"}}},
    [](const template_row& row, const setting_point& p, const device_info& info, std::size_t) {
      if (number_of(p, "group") > info.max_work_group_size) return false;
      // cpu: contiguous ranges per work-item; the gpu forms do not apply
      return value_of(p, "kind") == "gpu" || row.pinned(p, {"vector_width", "groups_per_cu"});
    }};

const row_of<reduce_policy> kReduce{
    "sum",
    {
        choice("kind", &reduce_policy::kind, kKinds),
        number("group", "1 to 4096", &reduce_policy::group, 1, kMaxGroupSize),
        number("unroll", "1 to 64", &reduce_policy::unroll, 1, kMaxUnroll),
        number("groups_per_cu", "1 to 1024", &reduce_policy::groups_per_cu, 1, kMaxGroupsPerCu),
        number("vector_bytes", "0 or a power of two up to 128", &reduce_policy::vector_bytes, 0,
               128, true),
        flag("grid", &reduce_policy::grid),
        flag("single_launch", &reduce_policy::single_launch),
    },
    {{"kind", {"gpu", "cpu"}},
     {"group", {"256", "1", "64", "128"}},
     {"unroll", {"8", "4", "16"}},
     {"groups_per_cu", {"16", "4", "8", "32"}},
     {"vector_bytes", {"0", "16", "32"}},
     {"grid", {"0", "1"}},
     {"single_launch", {"0", "1"}}},
    [](const template_row& row, const setting_point& p, const device_info& info,
       std::size_t element_size) {
      if (number_of(p, "group") > info.max_work_group_size) return false;
      const std::size_t vector_bytes = number_of(p, "vector_bytes");
      // a vector load holds whole elements, 2 to 16 of them
      if (vector_bytes && (vector_bytes % element_size || vector_bytes / element_size > 16))
        return false;
      if (value_of(p, "kind") == "cpu") return row.pinned(p, {"vector_bytes", "grid"});
      if (number_of(p, "group") == 1) return false;    // one work-item groups: cpu only
      return vector_bytes || row.pinned(p, {"grid"});  // grid is a vector-load option
    }};

const row_of<scan_policy> kScan{
    "scan",
    {
        choice("algorithm", &scan_policy::algorithm, kScanMethods),
        number("items", "0 (by type) to 64", &scan_policy::items, 0, 64),
        number("item_bytes", "1 to 1024", &scan_policy::item_bytes, 1, 1024),
        number("max_items", "1 to 64", &scan_policy::max_items, 1, 64),
        number("group", "1 to 4096", &scan_policy::group, 1, kMaxGroupSize),
        number("window", "1 to 1024", &scan_policy::window, 1, 1024),
        choice("layout", &scan_policy::layout, kLayouts),
        flag("registers", &scan_policy::registers),
        number("groups_per_cu", "0 to 1024", &scan_policy::groups_per_cu, 0, kMaxGroupsPerCu),
        number("granularity", "1 to 16777216", &scan_policy::granularity, 1, 1u << 24),
        number("chunks_per_cu", "0 to 16777216", &scan_policy::chunks_per_cu, 0, 1u << 24),
        number("max_chunks", "1 to 16777216", &scan_policy::max_chunks, 1, 1u << 24),
        number("lanes", "1 to 16", &scan_policy::lanes, 1, 16),
        number("lanes_floating", "1 to 16", &scan_policy::lanes_floating, 1, 16),
        number("rts_group", "1 to 4096", &scan_policy::rts_group, 1, kMaxGroupSize),
    },
    {{"algorithm", {"lookback", "reduce_then_scan"}},
     {"group", {"256", "64", "128"}},
     {"item_bytes", {"128", "64"}},
     {"layout", {"striped", "striped_vector"}},
     {"registers", {"1", "0"}},
     {"window", {"32", "16", "8"}},
     {"chunks_per_cu", {"32", "8", "16", "64"}},
     {"granularity", {"1024", "256", "4096"}},
     {"lanes", {"1", "2"}},
     {"rts_group", {"1", "16", "64"}}},
    [](const template_row& row, const setting_point& p, const device_info& info,
       std::size_t element_size) {
      if (value_of(p, "algorithm") == "lookback") {
        if (number_of(p, "group") > info.max_work_group_size) return false;
        const std::size_t items =
            std::clamp<std::size_t>(number_of(p, "item_bytes") / element_size, 1, 32);
        // the tile passes through local memory
        if (number_of(p, "group") * items * element_size + 4096 > info.local_mem_bytes)
          return false;
        return row.pinned(p, {"chunks_per_cu", "granularity", "lanes", "rts_group"});
      }
      if (number_of(p, "rts_group") > info.max_work_group_size) return false;
      return row.pinned(p, {"group", "item_bytes", "layout", "registers", "window"});
    }};

const row_of<polygon_policy> kPolygon{
    "polygon",
    {
        choice("kernel", &polygon_policy::kernel, kPolygonKernels),
        number("pixels", "1 to 16384", &polygon_policy::pixels, 1, 16384),
        number("pixels_wide", "1 to 16384", &polygon_policy::pixels_wide, 1, 16384),
        number("wide_from", "0 to 16777216", &polygon_policy::wide_from, 0, 1u << 24),
        number("group", "1 to 4096", &polygon_policy::group, 1, kMaxGroupSize),
        flag("serial", &polygon_policy::serial),
    },
    // One pixel count for every width (wide_from 0): the workload has one width.
    {{"kernel", {"span", "row", "fill", "pixel"}},
     {"pixels", {"8", "1", "4", "16", "32", "64", "256", "1024", "4096"}},
     {"group", {"128", "64", "256"}},
     {"serial", {"0", "1"}},
     {"wide_from", {"0"}}},
    [](const template_row& row, const setting_point& p, const device_info& info, std::size_t) {
      const std::string kind = value_of(p, "kernel");
      const std::size_t pixels = number_of(p, "pixels");
      const std::size_t group = number_of(p, "group");
      if (kind != "row" && pixels > 256) return false;  // the kernels' limit
      if (kind == "row" && pixels < 64) return false;   // a row segment per work-item
      if (kind == "span" || kind == "fill") {
        if (group > info.max_work_group_size) return false;
        if (kind == "fill" && group * pixels * 4 + 64 > info.local_mem_bytes) return false;
        return kind == "span" || row.pinned(p, {"serial"});
      }
      return row.pinned(p, {"group", "serial"});
    }};

const row_of<sort_policy> kSort{
    "sort",
    {
        choice("path", &sort_policy::path, kSortPaths),
        one_of("group", &sort_policy::group, {32, 64, 128, 256}),
        one_of("items", &sort_policy::items, {4, 8, 12, 16, 20, 24, 32, 40, 48, 64}),
        one_of("portion", &sort_policy::portion, {4096, 16384, 32768}),
        one_of("hist_group", &sort_policy::hist_group, {64, 256, 1024}),
        one_of("hist_groups_per_cu", &sort_policy::hist_groups_per_cu, {1, 4, 16}),
        one_of("onesweep_value_bytes", &sort_policy::onesweep_value_bytes, {0, 1, 2, 4, 8, 16}),
        one_of("chunks_per_cu", &sort_policy::chunks_per_cu, {1, 4, 8, 16}),
        one_of("min_chunk", &sort_policy::min_chunk, {4096, 16384, 65536}),
        one_of("chunk_digit_bits", &sort_policy::chunk_digit_bits, {4, 6, 8, 10, 11, 12}),
        choice("ranking", &sort_policy::ranking, kSortRankings),
    },
    // The chunked path's keys before the onesweep ones: a table's seed that the constraint does
    // not allow is pinned back from the last key, and a chunked seed keeps its own values.
    {{"path", {"onesweep", "chunked"}},
     {"chunks_per_cu", {"8", "4", "16"}},
     {"chunk_digit_bits", {"8", "11"}},
     {"group", {"256", "128", "64"}},
     {"items", {"16", "8", "24", "32", "40"}},
     {"ranking", {"lanes", "matrix", "nv_warp", "nv_match"}},
     {"hist_groups_per_cu", {"4", "16"}}},
    [](const template_row& row, const setting_point& p, const device_info& info,
       std::size_t element_size) {
      if (value_of(p, "path") == "chunked")
        return row.pinned(p, {"group", "items", "ranking", "hist_groups_per_cu"});
      const std::string ranking = value_of(p, "ranking");
      if ((ranking == "nv_warp" || ranking == "nv_match") &&
          vendor_of(info) != device_vendor::nvidia)
        return false;
      const std::size_t group = number_of(p, "group");
      // The sort would halve the group or lower the keys per work-item to fit: the same tile
      // as another point.
      if (group > info.max_work_group_size) return false;
      const sort_ranking r = ranking == "matrix" ? sort_ranking::matrix : sort_ranking::lanes;
      if (onesweep_local_bytes(r, group, number_of(p, "items"), element_size, 0) >
          info.local_mem_bytes)
        return false;
      return row.pinned(p, {"chunks_per_cu", "chunk_digit_bits"});
    }};

const row_of<histogram_policy> kHistogram{
    "histogram",
    {
        number("group", "1 to 1024", &histogram_policy::group, 1, 1024),
        number("groups_per_cu", "1 to 1024", &histogram_policy::groups_per_cu, 1, kMaxGroupsPerCu),
        number("local_bins", "0 to 65536", &histogram_policy::local_bins, 0, 65536),
        number("unroll", "1 to 64", &histogram_policy::unroll, 1, kMaxUnroll),
    },
    // local_bins only matters for more bins than the workload's 256: not searched.
    {{"group", {"256", "1", "64", "1024"}},
     {"groups_per_cu", {"8", "1", "4", "32"}},
     {"unroll", {"8", "1", "4", "16"}}},
    [](const template_row&, const setting_point& p, const device_info& info, std::size_t) {
      return number_of(p, "group") <= info.max_work_group_size;
    }};

const row_of<stencil_policy> kStencil{
    "stencil",
    {
        number("group_x", "1 to 4096", &stencil_policy::group_x, 1, kMaxGroupSize),
        number("group_y", "1 to 1024", &stencil_policy::group_y, 1, 1024),
        number("group_z", "1 to 64", &stencil_policy::group_z, 1, 64),
        number("march", "1 to 256", &stencil_policy::march, 1, 256),
        number("run", "1 to 4096", &stencil_policy::run, 1, 4096),
        flag("window", &stencil_policy::window),
        flag("tile", &stencil_policy::tile),
    },
    {{"group_x", {"32", "64", "128", "256", "16", "8", "1"}},
     {"group_y", {"8", "4", "2", "1", "16"}},
     {"march", {"1", "4", "8", "16", "32", "64"}},
     {"run", {"1", "8", "64", "256"}},
     {"window", {"1", "0"}},
     {"tile", {"0", "1"}}},
    [](const template_row& row, const setting_point& p, const device_info& info,
       std::size_t element_size) {
      const std::size_t group = number_of(p, "group_x") * number_of(p, "group_y");
      if (group > info.max_work_group_size) return false;
      // a run of points per work-item: no window, no tile (the kernel ignores them)
      if (number_of(p, "run") > 1 && !row.pinned(p, {"window", "tile"})) return false;
      if (number_of(p, "march") == 1 && !row.pinned(p, {"window"})) return false;
      // the tile of the workload's 7-point stencil: the group plus one point on each side
      const std::size_t tile =
          (number_of(p, "group_x") + 2) * (number_of(p, "group_y") + 2) * element_size;
      return value_of(p, "tile") == "0" || tile + 1024 <= info.local_mem_bytes;
    }};

const row_of<par_loop_policy> kParLoop{
    "edge_flux",
    {
        choice("plan", &par_loop_policy::plan, kLoopPlans),
        number("group", "a power of two from 1 to 1024", &par_loop_policy::group, 1, 1024, true),
        number("block", "1 to 4096", &par_loop_policy::block, 1, 4096),
    },
    {{"plan", {"block", "atomics", "colour"}},
     {"group", {"128", "1", "32", "64", "256"}},
     {"block", {"1", "4", "16", "64", "256", "1024"}}},
    [](const template_row&, const setting_point& p, const device_info& info, std::size_t) {
      const std::size_t group = number_of(p, "group"), block = number_of(p, "block");
      // a group runs group x block elements: more than 2^16 leaves too few units to colour
      return group <= info.max_work_group_size && group * block <= 65536;
    }};

const std::vector<const template_row*> kRows = {&kElementwise, &kReduce,    &kScan,    &kPolygon,
                                                &kSort,        &kHistogram, &kStencil, &kParLoop};

// The row of Policy's template is a row_of<Policy>.
template <class Policy>
const row_of<Policy>& row_for() {
  return static_cast<const row_of<Policy>&>(row_named(Policy::template_name, "tuning"));
}

}  // namespace

const std::vector<const template_row*>& template_rows() {
  return kRows;
}

std::string template_names_listed() {
  std::string out;
  for (const template_row* row : kRows) out += std::string(out.empty() ? "" : ", ") + row->name();
  return out;
}

const template_row& row_named(const std::string& name, const std::string& where) {
  for (const template_row* row : kRows)
    if (name == row->name()) return *row;
  throw error(where + ": no template \"" + shown(name) + "\" to tune; the templates are " +
              template_names_listed());
}

template <class Policy>
Policy policy_from_text(const std::string& full, const std::string& where) {
  Policy p{};
  row_for<Policy>().set(p, full, where);
  return p;
}
template <class Policy>
std::string policy_text(const Policy& p) {
  return row_for<Policy>().describe(p);
}

#define CLFORGE_POLICY_TEXT(P)                                            \
  template P policy_from_text<P>(const std::string&, const std::string&); \
  template std::string policy_text<P>(const P&);
CLFORGE_POLICY_TEXT(elementwise_policy)
CLFORGE_POLICY_TEXT(reduce_policy)
CLFORGE_POLICY_TEXT(scan_policy)
CLFORGE_POLICY_TEXT(polygon_policy)
CLFORGE_POLICY_TEXT(sort_policy)
CLFORGE_POLICY_TEXT(histogram_policy)
CLFORGE_POLICY_TEXT(stencil_policy)
CLFORGE_POLICY_TEXT(par_loop_policy)
#undef CLFORGE_POLICY_TEXT

std::size_t onesweep_local_bytes(sort_ranking ranking, std::size_t group, std::size_t items,
                                 std::size_t key_size, std::size_t value_size) {
  constexpr std::size_t radix = 256;
  const std::size_t tile = group * items;
  const std::size_t sorted_tile = tile * (key_size + value_size);
  std::size_t area = 0;
  if (ranking == sort_ranking::matrix) {
    const std::size_t matrix = radix * (group + 1) * 2;
    // The sorted tile with its values, or the tile's keys as read in (one padding key per 32).
    area = std::max({matrix, sorted_tile, (tile + tile / 32) * key_size});
  } else {
    // Counts and peer masks of every lane group of 32 work-items, or the sorted tile.
    area = std::max((group + 31) / 32 * radix * 4 * 2, sorted_tile);
  }
  // The kernel's area is an array of ulong2 (16-byte aligned for 16-byte values).
  return (area + 15) / 16 * 16 + radix * (4 + 4 + 8) + 2 * group * 4 + 16;
}

}  // namespace clforge::detail
