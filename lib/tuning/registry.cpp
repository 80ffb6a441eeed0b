// SPDX-License-Identifier: MIT
// The registry's list of rows (tuned_policies, policies.hpp) and what reads it by name.
#include "registry.hpp"

#include <algorithm>

#include "clforge/error.hpp"
#include "grammar.hpp"

namespace clforge::detail {

bool template_row::pinned(const setting_point& point,
                          std::initializer_list<const char*> keys) const {
  for (const char* key : keys)
    for (const search_parameter& par : space_)
      if (par.key == key && row_keys::value_of(point, key) != par.values.front()) return false;
  return true;
}

namespace {

template <class... Policy>
std::vector<const template_row*> rows_of(policy_list<Policy...>) {
  return {&Policy::row()...};
}

}  // namespace

const std::vector<const template_row*>& template_rows() {
  static const std::vector<const template_row*> rows = rows_of(tuned_policies{});
  return rows;
}

std::string template_names_listed() {
  std::string out;
  for (const template_row* row : template_rows())
    out += std::string(out.empty() ? "" : ", ") + row->name();
  return out;
}

const template_row& row_named(const std::string& name, const std::string& where) {
  for (const template_row* row : template_rows())
    if (name == row->name()) return *row;
  throw error(where + ": no template \"" + shown(name) + "\" to tune; the templates are " +
              template_names_listed());
}

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
