// SPDX-License-Identifier: MIT
// radix_sort_kernel (kernels/sort_key.cl, kernels/sort_store.cl): the keys of a user's
// expression, sorted by radix_sort, and the arrays they permute moved into place. Calls with
// array views or a range (other than [0, n) of whole arrays) use variants built on first use.
#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>

#include "sort_engine.hpp"
#include "view_variants.hpp"

namespace clforge {

namespace detail {

struct radix_sort_state : template_state_of<radix_sort_options, radix_sort_state> {
  context ctx;
  std::vector<std::size_t> sorted;  // indices of the permuted parameters
  unsigned key_bits = 32;
  sort_key_type key{};
  kernel keys32, keys64, permute32, permute64, store;
  // What the variants are generated from (view_variants.hpp): for array views, and for ranges
  // (indices first + k * step, taken by every kernel). A variant moves its arrays back with the
  // store kernel (whole arrays are copied).
  std::string arguments, key_expr;
  bool is_variant = false;
  bool strided = false;
};

namespace {

/// Checks the arguments and builds the kernels; for a non-empty `view_pattern`, the variant
/// whose parameters and snippets take views in the pattern's places; `strided`, the variant
/// over the indices first + k * step.
std::shared_ptr<radix_sort_state> build_radix_sort(const context& ctx, const std::string& arguments,
                                                   const std::string& key_expr,
                                                   const std::vector<std::string>& sort_by,
                                                   unsigned key_bits,
                                                   const radix_sort_options& options,
                                                   const std::string& view_pattern, bool strided) {
  auto st = std::make_shared<radix_sort_state>();
  const template_header header =
      st->start(ctx, "radix_sort_kernel", options, "radix_sort", arguments, "i, n");
  st->ctx = ctx;
  if (key_expr.find_first_not_of(" \t\r\n") == std::string::npos)
    throw error(st->who + ": the key expression is empty");
  if (key_bits < 1 || key_bits > 64)
    throw error(st->who + ": key_bits is " + std::to_string(key_bits) + ", expected 1 to 64");
  if (sort_by.empty()) throw error(st->who + ": no array to permute (sort_by is empty)");
  for (const std::string& name : sort_by) {
    std::size_t k = 0;
    while (k < st->params.size() && st->params[k].name != name) ++k;
    if (k == st->params.size())
      throw error(st->who + ": sort_by names \"" + name + "\", which is not a parameter");
    const parameter& p = st->params[k];
    if (!p.is_pointer || p.address_space != "global" || p.is_const)
      throw error(st->who + ": sort_by names \"" + p.declaration +
                  "\"; permuted arrays are global pointers that are not const");
    if (std::find(st->sorted.begin(), st->sorted.end(), k) != st->sorted.end())
      throw error(st->who + ": sort_by names \"" + name + "\" twice");
    st->sorted.push_back(k);
  }
  st->key_bits = key_bits;
  st->key = key_bits <= 32 ? sort_key_of<cl_uint>() : sort_key_of<cl_ulong>();
  st->arguments = arguments;
  st->key_expr = key_expr;
  st->is_variant = !view_pattern.empty() || strided;
  st->strided = strided;

  std::string moved_parameters, moves, stores;
  for (std::size_t j = 0; j < st->sorted.size(); ++j) {
    const parameter& p = st->params[st->sorted[j]];
    const std::string moved = "clforge_moved_" + std::to_string(j);
    moved_parameters += ", global " + p.type + "* " + moved;
    moves += moved + "[clforge_i] = " + p.name + "[clforge_from];\n  ";
    stores += p.name + "[clforge_to] = " + moved + "[clforge_i];\n  ";
  }
  std::string list = parameter_list(st->params), key = key_expr;
  if (!view_pattern.empty()) {
    const view_variant_source v = rewrite_for_views(
        st->params, view_pattern, {key_expr, moves, stores}, options.preamble, st->who);
    list = v.arguments;
    key = v.snippets[0];
    moves = v.snippets[1];
    stores = v.snippets[2];
  }
  const std::string user_parameters = list.empty() ? "" : list + ", ";
  const std::string index = strided ? "(clforge_first + (k) * clforge_step)" : "(k)";
  const std::string range_parameters = strided ? "ulong clforge_first, ulong clforge_step," : "";
  std::vector<template_file> files;
  for (const char* index_type : {"uint", "ulong"}) {
    const bool first = files.empty();
    const std::string suffix = first ? "32" : "64";
    files.push_back({"sort_key",
                     {{"name", st->name},
                      {"extensions", first ? header.fp64_pragma : ""},
                      {"preamble", first ? snippet(options.preamble) : ""},
                      {"keys_name", st->name + "_keys" + suffix},
                      {"permute_name", st->name + "_permute" + suffix},
                      {"user_parameters", user_parameters},
                      {"index", index},
                      {"range_parameters", range_parameters},
                      {"key_type", st->key.name},
                      {"key_bits", std::to_string(key_bits)},
                      {"index_type", index_type},
                      {"key_expr", snippet(key)},
                      {"moved_parameters", moved_parameters},
                      {"moves", moves}}});
  }
  if (st->is_variant)
    files.push_back({"sort_store",
                     {{"name", st->name},
                      {"store_name", st->name + "_store"},
                      {"user_parameters", user_parameters},
                      {"index", index},
                      {"range_parameters", range_parameters},
                      {"moved_parameters", moved_parameters},
                      {"stores", stores}}});
  try {
    st->prog = build_template(ctx, st->who, {}, files, options.build_options);
  } catch (const error& failure) {
    // A floating-point key with other key_bits than its width (kernels/sort_key.cl): an error
    // line of the log names the array of negative size (the source quoted below it names both).
    const std::string log = failure.what();
    auto error_names = [&](const std::string& marker) {
      std::size_t line = 0;
      while (line < log.size()) {
        const std::size_t end = std::min(log.find('\n', line), log.size());
        const std::string_view text(log.data() + line, end - line);
        if (text.find("error") != std::string_view::npos &&
            text.find(marker) != std::string_view::npos)
          return true;
        line = end + 1;
      }
      return false;
    };
    for (const auto& [marker, type, bits] :
         {std::tuple{"clforge_float_key_needs_key_bits_32", "float", 32},
          std::tuple{"clforge_double_key_needs_key_bits_64", "double", 64}})
      if (error_names(marker))
        throw error(st->who + ": the key expression is " + type + ", which sorts by its " +
                    std::to_string(bits) + " ordered bits: give key_bits " + std::to_string(bits) +
                    ", not " + std::to_string(key_bits));
    throw;
  }
  st->keys32 = st->prog.kernel(st->name + "_keys32");
  st->keys64 = st->prog.kernel(st->name + "_keys64");
  st->permute32 = st->prog.kernel(st->name + "_permute32");
  st->permute64 = st->prog.kernel(st->name + "_permute64");
  if (st->is_variant) st->store = st->prog.kernel(st->name + "_store");
  return st;
}

}  // namespace
}  // namespace detail

radix_sort_kernel::radix_sort_kernel(const context& ctx, const std::string& arguments,
                                     const std::string& key_expr,
                                     const std::vector<std::string>& sort_by, unsigned key_bits,
                                     const radix_sort_options& options)
    : state_(detail::build_radix_sort(ctx, arguments, key_expr, sort_by, key_bits, options, "",
                                      false)) {}

const std::string& radix_sort_kernel::source() const {
  return state_->prog.source();
}
const std::string& radix_sort_kernel::who() const {
  return state_->who;
}
const std::vector<detail::parameter>& radix_sort_kernel::parameters() const {
  return state_->params;
}

namespace detail {
namespace {

// Keys, sort, the moves into temporaries and back (copies, or a variant's store kernel), over
// the r.count indices of `r` (a strided variant's kernels take r.first and r.step first).
event sort_and_move(const queue& q, const radix_sort_state& st, const argument_list& bound,
                    const resolved_range& r, const std::vector<std::size_t>& sizes) {
  const std::size_t n = static_cast<std::size_t>(r.count);
  const bool wide = n > 0xffffffffu;
  const std::size_t index_size = wide ? sizeof(cl_ulong) : sizeof(cl_uint);
  const queue_temporary keys(q, n * st.key.bits / 8);
  const queue_temporary index(q, n * index_size);
  auto launch = [&](const kernel& k, const auto&... extra) {
    return st.strided ? q.launch(k, ndrange(n), bound, cl_ulong(r.first), cl_ulong(r.step),
                                 cl_ulong(n), extra...)
                      : q.launch(k, ndrange(n), bound, cl_ulong(n), extra...);
  };

  order_point(q);
  launch(wide ? st.keys64 : st.keys32, *keys, *index);
  order_point(q);
  sort_options o;
  o.end_bit = st.key_bits;
  o.algorithm = st.options.algorithm;
  o.scratch = st.options.scratch;
  radix_sort(q, st.who.c_str(), *keys, n, st.key, &*index, index_size, o);

  std::vector<queue_temporary> moved;
  for (std::size_t k : st.sorted) moved.emplace_back(q, n * sizes[k]);
  std::vector<cl::Buffer> targets;
  for (const queue_temporary& buffer : moved) targets.push_back(*buffer);
  launch(wide ? st.permute64 : st.permute32, *index, targets);
  order_point(q);
  event last;
  if (st.is_variant) {
    last = launch(st.store, targets);
  } else {
    for (std::size_t j = 0; j < moved.size(); ++j) {
      const cl::Buffer target(bound.memory(st.sorted[j]), /*retainObject=*/true);
      last = copy_buffer(q, *moved[j], target, n * sizes[st.sorted[j]]);
    }
  }
  order_point(q);
  return last;
}

}  // namespace
}  // namespace detail

event radix_sort_kernel::run(const queue& q, const detail::argument_list& bound,
                             const index_range* range, const std::vector<std::size_t>& lengths,
                             const std::vector<std::size_t>& sizes) const {
  using namespace detail;
  const radix_sort_state& st = *state_;
  if (q.ctx().identity() != st.ctx.identity())
    throw error(st.who + ": the queue belongs to another context than the kernel");
  for (std::size_t k : st.sorted)
    if (sizes[k] == 0)
      throw error(st.who + ": " + st.params[k].name +
                  " is permuted, so it must be passed an array or array view");
  const std::size_t n = lengths[st.sorted[0]];
  resolved_range r = whole_range(n);
  if (range) {
    r = resolve_range(*range, bound.has_array(), bound.first_array_length(), st.who);
    for (std::size_t k : st.sorted)
      if (r.count > 0 && lengths[k] < r.end_index)
        throw error(st.who + ": the range visits indices up to " + std::to_string(r.end_index - 1) +
                    ", but " + st.params[k].name + " has " + std::to_string(lengths[k]) +
                    " elements");
  } else {
    for (std::size_t k : st.sorted)
      if (lengths[k] != n)
        throw error(st.who + ": the permuted arrays must be arrays or array views of one length; " +
                    st.params[st.sorted[0]].name + " has " + std::to_string(n) + " elements, " +
                    st.params[k].name + " " + std::to_string(lengths[k]));
  }
  // The arrays the key expression reads (the permuted ones were checked above, by name).
  check_call(q, bound, r, st.options.check_array_lengths);
  if (r.count == 0) return {};
  // The kernels built at construction serve whole arrays, every index once, in order.
  const bool strided = !(r.first == 0 && r.step == 1 &&
                         std::all_of(st.sorted.begin(), st.sorted.end(),
                                     [&](std::size_t k) { return lengths[k] == r.count; }));
  if (!strided && !bound.has_views()) return sort_and_move(q, st, bound, r, sizes);
  const std::string pattern = bound.has_views() ? bound.view_pattern() : "";
  const auto variant = st.views.get((strided ? "strided " : "whole ") + pattern, [&] {
    std::vector<std::string> sort_by;
    for (std::size_t k : st.sorted) sort_by.push_back(st.params[k].name);
    // st.ctx, as the kernel holds it (a handle that may not keep the context alive).
    return std::shared_ptr<const radix_sort_state>(build_radix_sort(
        st.ctx, st.arguments, st.key_expr, sort_by, st.key_bits, st.options, pattern, strided));
  });
  return sort_and_move(q, *variant, bound.has_views() ? bound.expanding_views() : bound, r, sizes);
}

}  // namespace clforge
