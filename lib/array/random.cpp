// SPDX-License-Identifier: MIT
// clforge::random's generators: kernels/random.cl rendered for an element type and a
// distribution (see clforge/random.hpp for the mapping from Philox words to values;
// tests/test_random.cpp checks it against a host loop).
#include <algorithm>
#include <string>

#include "algorithms/template_engine.hpp"
#include "clforge/random.hpp"

namespace clforge::random::detail {

[[noreturn]] void throw_random_error(const std::string& what) {
  throw error("clforge::random::" + what);
}

namespace {
const char* distribution_name(distribution d) {
  switch (d) {
    case distribution::bits:
      return "BITS";
    case distribution::uniform:
      return "UNIFORM";
    case distribution::normal:
      return "NORMAL";
    case distribution::unit_uniform:
      return "UNIT_UNIFORM";
  }
  throw_random_error("unknown distribution");
}
}  // namespace

program build_generator(const context& ctx, const std::string& preamble, const std::string& type,
                        const std::string& param_type, bool is_floating, std::size_t size,
                        distribution d) {
  const int per_block = size == 8 ? 2 : 4;
  const clforge::detail::template_values values = {
      {"preamble", preamble + philox_header()},
      {"type", type},
      {"param", param_type},
      {"vector", type + std::to_string(per_block)},
      {"per_block", std::to_string(per_block)},
      {"distribution", distribution_name(d)},
      {"floating", is_floating ? "1" : "0"},
  };
  clforge::detail::template_header header;
  header.name = "clforge_random";
  header.who = "clforge::random";
  return clforge::detail::build_template(ctx, header, "random", values, "");
}

std::size_t block_group_size(const queue& q, const kernel& k) {
  const std::size_t wanted =
      clforge::detail::tuned<clforge::detail::elementwise_policy>(q.ctx()).group;
  return std::max<std::size_t>(1, std::min(wanted, k.work_group_size()));
}

void order_point(const queue& q) {
  clforge::detail::order_point(q);
}

}  // namespace clforge::random::detail
