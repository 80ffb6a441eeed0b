// SPDX-License-Identifier: MIT
// Stream operations: copy_if, partition, remove_if, unique (on the scan), gather and scatter.
//
//   std::size_t kept = cf::copy_if(q, in, out, "x > 0");    // kept elements, in order
//   std::size_t neg = cf::partition(q, in, out, "x < 0");   // kept first, then the others
//   std::size_t left = cf::remove_if(q, in, out, "x < 0");  // the others, in order
//   std::size_t runs = cf::unique(q, in, out);             // like std::unique, into out
//   cf::gather(q, indices, src, dst);    // dst[i] = src[indices[i]]
//   cf::scatter(q, src, indices, dst);   // dst[indices[i]] = src[i]
//
// Predicates are OpenCL C expressions over the element `x`, its index `i` and the length `n`
// (both long). Extra scalar and array arguments (PyOpenCL's extra_args) come as a C parameter
// list and the values, so that a new threshold reuses the built program:
//
//   cf::copy_if(q, in, out, "x > limit && mask[i]",
//               cf::extra_args("float limit, global const uchar* mask", 0.5f, mask));
//
// An extra array the predicate indexes with [i] must hold in.size() elements. The reserved
// names (not allowed for extra parameters) are x, i, n, item, prev_item, last_item,
// selection_in, selection_out, selection_count and anything starting with clforge_.
//
// copy_if and remove_if leave out[count, n) unspecified: where the scan runs reduce-then-scan
// (CPUs) every element is stored at the next free slot without a branch on the predicate (a
// data-dependent branch per element costs more than the scan), so rejected elements may be left
// there.
//
// gather and scatter check every index against the array it indexes (bounds::checked, the
// default): an index out of range is not used, and the call throws clforge::error naming the
// first one it met, after the in-range elements were moved. Checking reads one word back, so a
// checked call waits for its kernel; bounds::unchecked does not (the caller promises the indices
// are in range).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "clforge/algorithms/scan.hpp"
#include "clforge/array.hpp"
#include "clforge/array_view.hpp"
#include "clforge/context.hpp"
#include "clforge/event.hpp"
#include "clforge/export.hpp"
#include "clforge/queue.hpp"

namespace clforge {

/// Extra arguments of copy_if, partition and remove_if: a C parameter list ("float limit,
/// global const int* w") and one value per parameter (scalars, clforge::array). Holds
/// references to the values: make it in the call's argument list (see extra_args).
template <class... Args>
struct extra_arguments {
  /// The OpenCL C parameter list the predicate sees.
  std::string signature;
  /// The values, in the order of the parameters.
  std::tuple<const Args&...> values;
};

/// Extra arguments for a selection call; `values` must outlive the call.
template <class... Args>
extra_arguments<Args...> extra_args(std::string signature, const Args&... values) {
  return {std::move(signature), std::tuple<const Args&...>(values...)};
}

namespace detail {

/// Throws unless `out_size` >= `in_size` and the arrays differ (lib/algorithms/selection.cpp).
CLFORGE_API void check_selection(const char* who, std::size_t in_size, std::size_t out_size,
                                 bool same);

/// A selection's extra parameters, read from its predicate and parameter list alone (no build).
struct selection_parameters {
  /// The extra parameters (the caller's; the scan also takes the input, output and count).
  std::vector<parameter> extra;
  /// Extra parameters the predicate indexes with [i]: position among the extras, name.
  std::vector<std::pair<std::size_t, std::string>> indexed;
};

/// Throws for an empty predicate or a bad or reserved extra parameter list, naming `who`.
CLFORGE_API selection_parameters parse_selection_parameters(const char* who,
                                                            const std::string& predicate,
                                                            const std::string& extra_signature);

/// What a selection program needs besides the scan: how it was generated
/// (lib/algorithms/selection.cpp).
struct selection_source {
  std::string arguments, input, output;
  scan_options options;
  selection_parameters parameters;
};

/// The snippets of a copy_if (partition false) or partition over `type` with `count_type`
/// counts. Throws as parse_selection_parameters does.
CLFORGE_API selection_source make_selection_source(const context& ctx, const char* who,
                                                   bool partition, const std::string& type,
                                                   const std::string& count_type,
                                                   const std::string& predicate,
                                                   const std::string& preamble,
                                                   const std::string& extra_signature);

/// Throws if an extra argument is an array view (the predicate is a function in the kernel's
/// preamble, which takes whole arrays only), or unless every extra array in `indexed` holds `n`
/// elements. `lengths` (npos for scalars) and `views` have one entry per extra parameter: the
/// values were bound to `extra` first (argument_list::bind refuses a count that differs).
CLFORGE_API void check_extra_arguments(
    const char* who, const std::vector<parameter>& extra,
    const std::vector<std::pair<std::size_t, std::string>>& indexed, std::size_t n,
    const std::size_t* lengths, const bool* views, std::size_t count);

/// The extra values against the extra parameters alone, so that a mismatch, another context's
/// array or a view counts and names the caller's parameters, not the scan's own three arrays.
template <class... Args>
void check_extra_values(const queue& q, const char* who, const selection_parameters& p,
                        std::size_t n, const Args&... args) {
  const std::string extra_who = std::string(who) + ": extra_args";
  argument_list::bind(extra_who, p.extra, args...).require_context(q.ctx().get());
  if constexpr (sizeof...(Args) > 0) {
    const std::size_t lengths[] = {argument_length(args)...};
    const bool views[] = {is_array_view<Args>::value...};
    check_extra_arguments(who, p.extra, p.indexed, n, lengths, views, sizeof...(Args));
  } else {
    check_extra_arguments(who, p.extra, p.indexed, n, nullptr, nullptr, 0);
  }
}

struct selection_program {
  scan_core scan;
  selection_parameters parameters;
};

/// The cached program of a selection (per context, type, count type, predicate, preamble and
/// extra parameter list; not per extra value).
/// The scan behind copy_if/partition/remove_if for (type, predicate, preamble, extra
/// parameters), built on first use and kept with the context (released with it).
template <class T, class Count>
std::shared_ptr<const selection_program> selection_kernel(const context& ctx, const char* who,
                                                          bool partition,
                                                          const std::string& predicate,
                                                          const std::string& preamble,
                                                          const std::string& extra_signature = "") {
  const std::string type = type_name<T>();
  const std::string count = type_name<Count>();
  // Lengths first, so that no two (predicate, preamble, signature) triples share a key.
  const std::string key = std::string(partition ? "partition|" : "copy_if|") + type + "|" + count +
                          "|" + std::to_string(predicate.size()) + "|" +
                          std::to_string(preamble.size()) + "|" + predicate + preamble +
                          extra_signature;
  return std::static_pointer_cast<const selection_program>(
      per_context(ctx, "clforge.selection", key, [&]() -> std::shared_ptr<void> {
        selection_source s = make_selection_source(ctx, who, partition, type, count, predicate,
                                                   preamble, extra_signature);
        return std::make_shared<selection_program>(selection_program{
            scan_core(ctx, scan_value_type{count, sizeof(Count), type_traits<Count>::needs_fp64},
                      s.arguments, s.input, "a + b", "0", s.output, scan_kind::inclusive, s.options,
                      scan_use::selection),
            std::move(s.parameters)});
      }));
}

template <class Count, class T, class... Args>
std::size_t run_selection(const queue& q, const char* who, const array<T>& in, array<T>& out,
                          bool partition, const std::string& predicate, const std::string& preamble,
                          const std::string& extra_signature, const Args&... args) {
  const auto program =
      selection_kernel<T, Count>(q.ctx(), who, partition, predicate, preamble, extra_signature);
  check_extra_values(q, who, program->parameters, in.size(), args...);
  array<Count> count(q, 1);
  scan_call(program->scan, q, static_cast<std::size_t>(-1), in, out, count, args...);
  Count result = 0;
  count.read(q, &result, 0, 1);
  return static_cast<std::size_t>(result);
}

/// A selection's input and output on q's context, empty or not.
template <class T>
void check_selection_contexts(const queue& q, const char* who, const array<T>& in,
                              const array<T>& out) {
  require_array_context(in.ctx(), q, who, "the input array");
  require_array_context(out.ctx(), q, who, "the output array");
}

template <class T, class... Args>
std::size_t select(const queue& q, const char* who, const array<T>& in, array<T>& out,
                   bool partition, const std::string& predicate, const std::string& preamble,
                   const std::string& extra_signature, const Args&... args) {
  check_selection(who, in.size(), out.size(), in.get() != nullptr && in.get() == out.get());
  check_selection_contexts(q, who, in, out);
  if (in.size() == 0) {
    // Nothing to build or run; the arguments still get the errors of any other size (the
    // predicate is not compiled, so only its emptiness is checked).
    check_extra_values(q, who, parse_selection_parameters(who, predicate, extra_signature), 0,
                       args...);
    return 0;
  }
  // 32-bit counts where they suffice: the look-back then packs count and status in one word.
  if (in.size() <= 0xffffffffu)
    return run_selection<cl_uint>(q, who, in, out, partition, predicate, preamble, extra_signature,
                                  args...);
  return run_selection<cl_ulong>(q, who, in, out, partition, predicate, preamble, extra_signature,
                                 args...);
}

template <class T, class... Args>
std::size_t select_with(const queue& q, const char* who, const array<T>& in, array<T>& out,
                        bool partition, const std::string& predicate,
                        const extra_arguments<Args...>& extra, const std::string& preamble) {
  return std::apply(
      [&](const Args&... values) {
        return select(q, who, in, out, partition, predicate, preamble, extra.signature, values...);
      },
      extra.values);
}

inline std::string negated(const char* who, const std::string& predicate) {
  if (predicate.find_first_not_of(" \t\r\n") == std::string::npos)
    throw error(std::string(who) + ": the predicate is empty");
  return "!(" + predicate + "\n)";
}

}  // namespace detail

/// Stream compaction: copies the elements x of `in` for which `predicate` (an expression over
/// x, its index i and n, e.g. "x > 0") is true to the front of `out`, in order, and returns how
/// many. `out` must hold in.size() elements and must not be `in`; out[count, n) is left
/// unspecified. `preamble` may define helpers the predicate uses. Kernels are cached per
/// (context, type, predicate, preamble).
template <class T>
std::size_t copy_if(const queue& q, const array<T>& in, array<T>& out, const std::string& predicate,
                    const std::string& preamble = "") {
  return detail::select(q, "copy_if", in, out, false, predicate, preamble, "");
}

/// copy_if with extra arguments the predicate sees by name (see the top of this file); the
/// kernel is cached per parameter list, not per value.
template <class T, class... Args>
std::size_t copy_if(const queue& q, const array<T>& in, array<T>& out, const std::string& predicate,
                    const extra_arguments<Args...>& extra, const std::string& preamble = "") {
  return detail::select_with(q, "copy_if", in, out, false, predicate, extra, preamble);
}

/// Stable partition into `out`: the kept elements first (in order), then the others (in order).
/// Returns the number kept. `out` must hold in.size() elements and must not be `in`.
template <class T>
std::size_t partition(const queue& q, const array<T>& in, array<T>& out,
                      const std::string& predicate, const std::string& preamble = "") {
  return detail::select(q, "partition", in, out, true, predicate, preamble, "");
}

/// partition with extra arguments the predicate sees by name (see the top of this file).
template <class T, class... Args>
std::size_t partition(const queue& q, const array<T>& in, array<T>& out,
                      const std::string& predicate, const extra_arguments<Args...>& extra,
                      const std::string& preamble = "") {
  return detail::select_with(q, "partition", in, out, true, predicate, extra, preamble);
}

/// Whether gather() and scatter() check every index (see the top of this file).
enum class bounds { checked, unchecked };

namespace detail {

/// One gather or scatter launch (lib/algorithms/gather.cpp); sizes in elements.
CLFORGE_API event gather_scatter(const queue& q, bool is_scatter, const cl::Buffer& indices,
                                 std::size_t index_size, bool index_signed, std::size_t n,
                                 const cl::Buffer& src, std::size_t src_size, const cl::Buffer& dst,
                                 std::size_t dst_size, std::size_t value_size, bounds check);

/// dst[to_first + i * to_step] = src[from_first + i * from_step] for i < n, elements of
/// `value_size` bytes moved as bits: a view's elements to or from a contiguous buffer
/// (lib/algorithms/gather.cpp). `who` names the caller in a build failure.
event copy_strided(const queue& q, const char* who, const cl::Buffer& from, std::int64_t from_first,
                   std::int64_t from_step, const cl::Buffer& to, std::int64_t to_first,
                   std::int64_t to_step, std::size_t n, std::size_t value_size);

template <class I, class T>
constexpr void check_gather_types() {
  static_assert(std::is_integral_v<I> && !std::is_same_v<I, bool>,
                "clforge::gather/scatter: indices are integers");
  static_assert(
      sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
      "clforge::gather/scatter: elements of 1, 2, 4, 8 or 16 bytes");
}

template <class T, class Count>
std::size_t run_unique(const queue& q, const array<T>& in, array<T>& out) {
  const std::string type = type_name<T>();
  const std::string count = type_name<Count>();
  // The inclusive count of run starts rises at i exactly when in[i] starts a run.
  const scan_core k = shared_scan<Count>(
      q.ctx(),
      "global const " + type + "* in, global " + type + "* out, global " + count + "* count",
      "(i == 0 || in[i] != in[i - 1]) ? 1 : 0", "a + b", "0",
      "if (item != prev_item) out[prev_item] = in[i]; if (i == n - 1) count[0] = item;",
      scan_kind::inclusive, "unique");
  array<Count> result(q, 1);
  scan_call(k, q, in.size(), in, out, result);
  Count kept = 0;
  result.read(q, &kept, 0, 1);
  return static_cast<std::size_t>(kept);
}

}  // namespace detail

/// Copies `in` to `out` without consecutive duplicates (elements equal by ==, as std::unique:
/// -0.0 equals +0.0, a NaN equals nothing) and returns how many were copied. `out` must hold
/// in.size() elements and must not be `in`. T is an OpenCL scalar type.
template <class T>
std::size_t unique(const queue& q, const array<T>& in, array<T>& out) {
  static_assert(std::is_arithmetic_v<T>, "clforge::unique: scalar elements");
  detail::check_selection("unique", in.size(), out.size(),
                          in.get() != nullptr && in.get() == out.get());
  detail::check_selection_contexts(q, "unique", in, out);
  if (in.size() == 0) return 0;
  if (in.size() <= 0xffffffffu) return detail::run_unique<T, cl_uint>(q, in, out);
  return detail::run_unique<T, cl_ulong>(q, in, out);
}

/// Copies the elements x of `in` for which `predicate` (over x, i and n) is false to the front
/// of `out`, in order, and returns how many (std::remove_copy_if). `out` must hold in.size()
/// elements and must not be `in`; out[count, n) is left unspecified.
template <class T>
std::size_t remove_if(const queue& q, const array<T>& in, array<T>& out,
                      const std::string& predicate, const std::string& preamble = "") {
  return detail::select(q, "remove_if", in, out, false, detail::negated("remove_if", predicate),
                        preamble, "");
}

/// remove_if with extra arguments the predicate sees by name (see the top of this file).
template <class T, class... Args>
std::size_t remove_if(const queue& q, const array<T>& in, array<T>& out,
                      const std::string& predicate, const extra_arguments<Args...>& extra,
                      const std::string& preamble = "") {
  return detail::select_with(q, "remove_if", in, out, false,
                             detail::negated("remove_if", predicate), extra, preamble);
}

/// dst[i] = src[indices[i]] for i < indices.size(); dst must hold indices.size() elements and
/// must not be src.
template <class I, class T>
event gather(const queue& q, const array<I>& indices, const array<T>& src, array<T>& dst,
             bounds check = bounds::checked) {
  detail::check_gather_types<I, T>();
  if (dst.size() < indices.size())
    throw error("gather: " + std::to_string(indices.size()) + " indices but the destination has " +
                std::to_string(dst.size()) + " elements");
  if (indices.size() > 0 && src.get() == dst.get())
    throw error("gather: the destination must be another array than the source");
  detail::require_array_context(indices.ctx(), q, "gather", "the indices array");
  detail::require_array_context(src.ctx(), q, "gather", "the source array");
  detail::require_array_context(dst.ctx(), q, "gather", "the destination array");
  return detail::gather_scatter(q, false, indices.buffer(), sizeof(I), std::is_signed_v<I>,
                                indices.size(), src.buffer(), src.size(), dst.buffer(), dst.size(),
                                sizeof(T), check);
}

/// dst[indices[i]] = src[i] for i < src.size(); indices and src have one length; dst must not
/// be src. Where two indices are equal, which element lands there is unspecified.
template <class T, class I>
event scatter(const queue& q, const array<T>& src, const array<I>& indices, array<T>& dst,
              bounds check = bounds::checked) {
  detail::check_gather_types<I, T>();
  if (indices.size() != src.size())
    throw error("scatter: " + std::to_string(src.size()) + " elements but " +
                std::to_string(indices.size()) + " indices (they must have the same length)");
  if (src.size() > 0 && src.get() == dst.get())
    throw error("scatter: the destination must be another array than the source");
  detail::require_array_context(src.ctx(), q, "scatter", "the source array");
  detail::require_array_context(indices.ctx(), q, "scatter", "the indices array");
  detail::require_array_context(dst.ctx(), q, "scatter", "the destination array");
  return detail::gather_scatter(q, true, indices.buffer(), sizeof(I), std::is_signed_v<I>,
                                indices.size(), src.buffer(), src.size(), dst.buffer(), dst.size(),
                                sizeof(T), check);
}

}  // namespace clforge
