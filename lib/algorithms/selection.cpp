// SPDX-License-Identifier: MIT
// copy_if, partition and remove_if on scan_kernel: the generated snippets and the checks of the
// extra arguments (include/clforge/algorithms/selection.hpp has the calls).
#include <string>

#include "clforge/algorithms/selection.hpp"
#include "template_engine.hpp"

namespace clforge::detail {

void check_selection(const char* who, std::size_t in_size, std::size_t out_size, bool same) {
  if (out_size < in_size)
    throw error(std::string(who) + ": the output has " + std::to_string(out_size) +
                " elements, the input " + std::to_string(in_size) + " (it must hold them all)");
  if (same) throw error(std::string(who) + ": the output must be another array than the input");
}

namespace {

// Names the generated kernel or the predicate's function use themselves.
constexpr const char* kReserved[] = {"x",
                                     "i",
                                     "n",
                                     "item",
                                     "prev_item",
                                     "last_item",
                                     "selection_in",
                                     "selection_out",
                                     "selection_count"};

}  // namespace

selection_parameters parse_selection_parameters(const char* who, const std::string& predicate,
                                                const std::string& extra_signature) {
  const std::string w(who);
  if (predicate.find_first_not_of(" \t\r\n") == std::string::npos)
    throw error(w + ": the predicate is empty");
  selection_parameters p;
  try {
    p.extra = parse_signature(extra_signature);
  } catch (const error& failure) {
    throw error(w + ": the extra arguments' parameter list: " + failure.what());
  }
  for (const parameter& e : p.extra) {
    for (const char* r : kReserved)
      if (e.name == r)
        throw error(w + ": the extra parameter name \"" + e.name +
                    "\" is reserved (x, i, n, item, prev_item, last_item, selection_in, "
                    "selection_out, selection_count, clforge_*)");
    if (e.name.rfind("clforge_", 0) == 0)
      throw error(w + ": parameter names starting with clforge_ are reserved (" + e.name + ")");
  }
  for (std::size_t k = 0; k < p.extra.size(); ++k)
    if (p.extra[k].is_pointer && p.extra[k].address_space != "local" &&
        indexes_with_i(predicate, p.extra[k].name))
      p.indexed.emplace_back(k, p.extra[k].name);
  return p;
}

selection_source make_selection_source(const context& ctx, const char* who, bool partition,
                                       const std::string& type, const std::string& count_type,
                                       const std::string& predicate, const std::string& preamble,
                                       const std::string& extra_signature) {
  selection_source s;
  s.parameters = parse_selection_parameters(who, predicate, extra_signature);
  const std::vector<parameter>& extra = s.parameters.extra;
  s.options.name = partition ? "partition" : "copy_if";
  // The predicate is a function of the element, its index, n and the extra arguments, so its
  // x is a real parameter (not a text substitution) and a // comment ends at its line.
  s.options.preamble = preamble + "\nstatic inline int clforge_keep(" + type +
                       " x, long i, long n" + comma_parameters(extra) + ") {\n  return (" +
                       snippet(predicate) + ");\n}\n";
  // restrict: the input and output are other arrays (check_selection), and without it the
  // look-back's unrolled stores keep each next element's load waiting behind them.
  s.arguments = "global const " + type + "* restrict selection_in, global " + type +
                "* restrict selection_out, global " + count_type + "* selection_count" +
                comma_parameters(extra);
  s.input = "clforge_keep(selection_in[i], i, n" + comma_arguments(extra) + ") ? 1 : 0";

  // The inclusive count rises at i exactly when selection_in[i] is kept; prev_item is its slot.
  // The others go after the last kept one, in order (partition's layout).
  const std::string both_slots =
      "selection_out[item != prev_item ? prev_item : last_item + (i - prev_item)] = "
      "selection_in[i];";
  const scan_policy& policy = tuned<scan_policy>(ctx);
  const scan_algorithm algorithm = policy.algorithm == scan_method::lookback
                                       ? scan_algorithm::lookback
                                       : scan_algorithm::reduce_then_scan;
  s.options.algorithm = algorithm;
  if (partition) {
    s.output = both_slots + " if (i == n - 1) selection_count[0] = last_item;";
  } else if (algorithm == scan_algorithm::reduce_then_scan) {
    // Reduce-then-scan walks each chunk in one work-item, so every element can be stored at
    // the next free slot, prev_item, with no branch on the predicate (a CPU mispredicts one at
    // every other element of a random input): a rejected element is overwritten by the next
    // kept one of its chunk. The chunk's trailing rejected elements are not stored (their slot
    // is the next chunk's first), which is the one predictable test left.
    s.output =
        "if (prev_item < clforge_chunk_end_item) selection_out[prev_item] = selection_in[i]; "
        "if (i == n - 1) selection_count[0] = item;";
  } else {
    // Look-back would need a first pass for last_item: store the kept elements only.
    s.output =
        "if (item != prev_item) selection_out[prev_item] = selection_in[i]; "
        "if (i == n - 1) selection_count[0] = item;";
  }
  return s;
}

void check_extra_arguments(const char* who, const std::vector<parameter>& extra,
                           const std::vector<std::pair<std::size_t, std::string>>& indexed,
                           std::size_t n, const std::size_t* lengths, const bool* views,
                           std::size_t count) {
  // Checked here, before the scan: a tuning change would rebuild its program first. The values
  // were bound to `extra` already, so there is one per parameter.
  for (std::size_t k = 0; k < count; ++k)
    if (views[k])
      throw error(std::string(who) + ": extra argument " + extra[k].name +
                  " is an array view; copy_if, partition and remove_if take whole arrays as "
                  "extra arguments (copy the view into an array first)");
  for (const auto& [position, name] : indexed) {
    const std::size_t length = lengths[position];
    if (length != static_cast<std::size_t>(-1) && length < n)
      throw error(std::string(who) + ": the extra array " + name + " has " +
                  std::to_string(length) + " elements, but the predicate indexes it with [i] for " +
                  std::to_string(n) + " elements");
  }
}

}  // namespace clforge::detail
