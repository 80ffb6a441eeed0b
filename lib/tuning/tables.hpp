// SPDX-License-Identifier: MIT
// The tuning tables: one per device class, each a row of "key=value,..." text per template with
// where its values come from (tables.cpp). Parsed and checked once, on first use.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "clforge/device.hpp"
#include "clforge/export.hpp"

namespace clforge::detail {

/// One table, resolved: every template's full text (every key named) and provenance.
struct tuning_table {
  std::string name;                         // as selected with table=NAME
  std::map<std::string, std::string> text;  // template -> full settings text
  std::map<std::string, std::string>
      provenance;  // template -> "measured ..." or "not measured ..."
};

/// The tables, in order (nvidia, amd, intel, gpu, generic, cpu). The first call parses every
/// row of every table through its template's row in the registry: a wrong key or value there is
/// a clforge::error naming the table and the template.
CLFORGE_API const std::vector<tuning_table>& tuning_tables();
/// The table called `name`; a clforge::error starting with `where` names the tables otherwise.
const tuning_table& table_named(const std::string& name, const std::string& where);
/// The table of `info`'s device class: NVIDIA, AMD or Intel GPUs, other GPUs, or CPUs and
/// anything else.
const tuning_table& device_table(const device_info& info);

}  // namespace clforge::detail
