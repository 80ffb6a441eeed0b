// SPDX-License-Identifier: MIT
// The template engine: what every kernel template (elementwise, reduction, scan, polygon_mask,
// and the primitives built like them) does around its own kernels, written once:
//   start_template   checks the context, the kernel name and the parameter names, parses the
//                    parameter list, and checks fp64 (one rule, one set of messages);
//   plain_array      recognises a snippet that is a plain load x[i] (or store x[i] = item);
//   build_template   renders kernels/<name>.cl after its #defines and builds it through the
//                    context's program cache, naming the template in a build failure (every
//                    built-in kernel is built through it: no kernel text in C++ strings);
//   fitted_group     fits a work-group size to what the built kernels can run;
//   per_context      keeps objects built from a key (built-in reductions, cached scans) with the
//                    context, released with it; queue::attachment keeps per-queue state.
// The scalar types come from the one table in clforge/types.hpp (detail::scalar_types).
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "clforge/algorithms/common.hpp"
#include "clforge/context.hpp"
#include "clforge/detail/codegen.hpp"
#include "clforge/detail/signature.hpp"
#include "tuning/registry.hpp"
#include "tuning/resolve.hpp"
#include "view_variants.hpp"

namespace clforge {
struct reduction_options;  // clforge/algorithms/reduction.hpp
}  // namespace clforge

namespace clforge::detail {

// ---- bounds --------------------------------------------------------------------------------

/// Throws clforge::error "<who>: <name> must be from <lo> to <hi>, not <value>" unless
/// lo <= value <= hi.
void check_bound(const std::string& who, const char* name, std::size_t value, std::size_t lo,
                 std::size_t hi);

// ---- names and snippets --------------------------------------------------------------------

/// The checked start of every template.
struct template_header {
  std::string name;               // the kernel name (a C identifier)
  std::string who;                // `<what> "<name>"`, for messages
  std::vector<parameter> params;  // the user's parameters
  std::string fp64_pragma;        // "#pragma OPENCL EXTENSION cl_khr_fp64 : enable" or ""
};

/// The base of every template's state: what it keeps of its start, the kernel name, `who` for
/// messages and the user's parameters. No context: states kept with their context (built-in
/// reductions, shared scans) must not hold a handle to it; those that need one add it.
struct template_state {
  std::string name, who;
  std::vector<parameter> params;
  /// start_template (below), keeping its result here; returns the header (fp64).
  template_header start(const context& ctx, const std::string& what, const std::string& kernel_name,
                        std::string_view arguments, std::string_view reserved,
                        const std::string& value_type = "", bool value_needs_fp64 = false);
};

/// Checks and parses what a template is given: a non-empty context, `name` (a C identifier of
/// at most max_template_name_length characters), the parameter list `arguments`, whose names
/// must not be `reserved` (a list such as "i, n, item") nor start with clforge_; double (a
/// parameter, or `value_type` when `value_needs_fp64`) only on a device with fp64.
/// `what` names the template ("elementwise_kernel").
template_header start_template(const context& ctx, const std::string& what, const std::string& name,
                               std::string_view arguments, std::string_view reserved,
                               const std::string& value_type = "", bool value_needs_fp64 = false);

/// The one way user text (a snippet, a preamble, a key or bin expression) enters generated
/// code, on every path: on lines of its own with its line ends made LF, so that a // comment, a
/// trailing backslash or a #directive in it can neither swallow nor break what the template
/// puts around it.
std::string snippet(std::string_view text);

/// Whether `text` uses the identifier `name` as a whole word (outside comments and literals;
/// source_tokens, clforge/detail/codegen.hpp, is the one scanner of snippets).
bool uses_name(std::string_view text, std::string_view name);
/// Whether `text` uses `name[i]` anywhere.
bool indexes_with_i(std::string_view text, std::string_view name);
/// The array NAME when `text` is a plain load "NAME[i]" (blanks between the tokens, optionally
/// in parentheses) - or with `store`, a plain store "NAME[i] = item" (an optional ';') - and NAME
/// is a global pointer parameter to `element_type` (writable for a store); "" otherwise.
/// A snippet that reads its global arrays only at index i, rewritten to read lanes instead:
/// `text` with every NAME[i] replaced by `lane_prefix` + NAME, and the arrays read. Empty
/// (no arrays) where the snippet reads none, or uses an array any other way (another index,
/// a store, a pointer passed on). With `pass_read_only`, an array nothing can write through
/// (const or constant) may also be used otherwise: those uses stay as written.
struct lane_rewrite {
  std::vector<parameter> arrays;
  std::string text;
};
lane_rewrite read_by_lanes(const std::vector<parameter>& params, std::string_view text,
                           const std::string& lane_prefix, bool pass_read_only = false);

std::string plain_array(const std::vector<parameter>& params, std::string_view text,
                        const std::string& element_type, bool store = false);

/// Checks that `name` is a C identifier usable as a kernel name; `what` names the template.
void check_kernel_name(const std::string& name, const std::string& what);

/// ", float a, global float* x" (empty without parameters).
std::string comma_parameters(const std::vector<parameter>& params);
/// ", a, x" (empty without parameters).
std::string comma_arguments(const std::vector<parameter>& params);
/// "n", or "clforge_n" when a parameter is itself called n.
std::string count_name(const std::vector<parameter>& params);
/// The OpenCL unsigned type that moves an element of `size` bytes (1, 2, 4, 8; ulong2 for 16):
/// kernels that only copy elements (sort values, gather/scatter) use it whatever the element is.
const char* moved_type_of_size(std::size_t size);

// ---- build and launch ----------------------------------------------------------------------

/// `#define NAME VALUE` lines that specialise kernel files (kernels/gather.cl: CLFORGE_VALUE_T,
/// ...); build_template puts them first, in order, before kernels/common.cl.
using template_defines = std::vector<std::pair<std::string, std::string>>;

/// One kernel file of a program: kernels/<name>.cl and the values of its $placeholders.
struct template_file {
  std::string_view name;
  template_values values;
};

/// The one way a built-in kernel is built: renders `files` in order after `defines` and builds
/// the text through the context's program cache. A failure (a bad snippet) is a clforge::error
/// that starts with `who`.
program build_template(const context& ctx, const std::string& who, const template_defines& defines,
                       const std::vector<template_file>& files,
                       const std::string& build_options = "");
/// One file: renders kernels/<template_name>.cl with `values` after `defines`.
program build_template(const context& ctx, const template_header& header,
                       std::string_view template_name, const template_values& values,
                       const std::string& build_options, const template_defines& defines = {});

/// The largest work-group size up to `wanted` that every (non-empty) kernel given can run;
/// at least 1.
std::size_t fitted_group(std::size_t wanted, std::initializer_list<const kernel*> kernels);

/// The groups build_for_group lowers to: any size, or only powers of two (a kernel whose group
/// reduction halves the group).
enum class group_sizes { any, powers_of_two };

/// Builds kernels with a work-group size compiled in (reqd_work_group_size, local arrays) until
/// they run it: a compiler may give a kernel fewer work-items than the device allows (registers,
/// e.g. NVIDIA). `build(group)` builds for `group` and returns fitted_group(group, its kernels);
/// while that is less, `refuse(group, fits)` (where given) may throw - a group the options asked
/// for - else the group is lowered to the fit (its largest power of two under
/// group_sizes::powers_of_two) and built again. Returns the group built.
std::size_t build_for_group(std::size_t group, const std::function<std::size_t(std::size_t)>& build,
                            group_sizes sizes = group_sizes::any,
                            const std::function<void(std::size_t, std::size_t)>& refuse = {});

/// The policy of an elementwise or reduction kernel: the context's tuning, or - where the
/// deprecated kernel_options::shape names a kind - the plain table of that kind ("generic" for
/// gpu, "cpu"); the fields the shape sets over it; the group capped by the device. Throws for a
/// shape value out of bounds. `type_size` (reductions) turns the shape's vector elements into
/// the policy's vector bytes.
elementwise_policy elementwise_policy_for(const context& ctx, const kernel_shape& requested);
reduce_policy reduce_policy_for(const context& ctx, const kernel_shape& requested,
                                std::size_t type_size);
/// What shape() reports for a kernel built with `p` (the deprecated kernel_shape's fields);
/// a reduction's `vector_width` is in elements.
kernel_shape shape_of(const elementwise_policy& p);
kernel_shape shape_of(const reduce_policy& p, unsigned vector_width);
/// The deprecated kernel_options::shape, read without the deprecation warning (0.2 honours it).
const kernel_shape& requested_shape(const kernel_options& options);
/// Throws clforge::error naming `who` when options.shape is set: only elementwise and
/// reduction kernels read that deprecated field, and a template that would ignore it says so
/// (template_state_of::start calls it for every other template).
void refuse_shape(const kernel_options& options, const std::string& who);

/// A template object rebuilt under the tuning in effect, for a template built before
/// tuning::set, tuning::reset or a stored result moved it (tuning_stamp): the template's calls
/// run the rebuilt one instead. Kept until the tuning moves again; thread-safe.
template <class T>
class retuned_cache {
 public:
  /// Null while `built` (the stamp the calling template was built under) is current; else the
  /// object make() (returning a std::shared_ptr<const T>) builds under the tuning of `ctx` now.
  /// A failed build is not remembered: the next call tries again.
  template <class Make>
  std::shared_ptr<const T> get(const tuning_stamp& built, const context& ctx, Make&& make) {
    if (!built.stale()) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    if (latest_ && !latest_stamp_.stale()) return latest_;
    tuning_stamp stamp(ctx);  // before the build: a change during it rebuilds again
    latest_ = make();
    latest_stamp_ = std::move(stamp);
    return latest_;
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<const T> latest_;
  tuning_stamp latest_stamp_;
};

/// The state of a snippet template (Options derives from kernel_options; Built is what its view
/// variants and rebuilds are: the public class, or its engine). It keeps the options as given,
/// from which the view variants and the rebuilds under a new tuning are made, and names the
/// kernel by one rule: the options' name, or the template's own where that is empty.
template <class Options, class Built>
struct template_state_of : template_state {
  Options options;
  /// The template's program (source() shows it); a template with more keeps them beside it.
  program prog;
  /// The variants for array views (view_variants.hpp), built on first use (none for stencils:
  /// their fields carry their layouts).
  mutable view_variant_cache<Built> views;
  /// The tuning the state was built under, and the copy rebuilt when it moved (templates that
  /// resolve their tuning per call, such as radix_sort_kernel, leave both unused).
  tuning_stamp stamp;
  mutable retuned_cache<Built> retuned;

  /// Keeps `given`, then start()s under its kernel name. Only elementwise and reduction kernels
  /// read the deprecated kernel_options::shape: every other template refuses one set here.
  template_header start(const context& ctx, const std::string& what, const Options& given,
                        const char* template_name, std::string_view arguments,
                        std::string_view reserved, const std::string& value_type = "",
                        bool value_needs_fp64 = false) {
    options = given;
    template_header header =
        template_state::start(ctx, what, kernel_name(given, template_name), arguments, reserved,
                              value_type, value_needs_fp64);
    if constexpr (!std::is_same_v<Options, kernel_options> &&
                  !std::is_same_v<Options, reduction_options>)
      refuse_shape(given, who);
    return header;
  }
  static std::string kernel_name(const Options& given, const char* template_name) {
    return given.name.empty() ? std::string(template_name) : given.name;
  }
  /// `who` as start() will set it, for checks made before it (`what "name"`).
  static std::string who_of(const std::string& what, const Options& given,
                            const char* template_name) {
    return what + " \"" + kernel_name(given, template_name) + "\"";
  }
};

/// Checks a call's arguments before anything runs: array lengths for the resolved range (when
/// `check_lengths`), and for an empty range, which launches nothing, that every array belongs to
/// q's context (a launch's argument_list::set_on checks that otherwise).
void check_call(const queue& q, const argument_list& args, const resolved_range& r,
                bool check_lengths);
/// A barrier on `q` when it runs commands out of order (queue::out_of_order); nothing otherwise.
void order_point(const queue& q);

// ---- caches --------------------------------------------------------------------------------

/// per_context (clforge/context.hpp) for a T; `make` returns a std::shared_ptr<T>.
template <class T, class Make>
std::shared_ptr<const T> per_context_as(const context& ctx, const std::string& store,
                                        const std::string& key, Make&& make) {
  return std::static_pointer_cast<const T>(
      per_context(ctx, store, key, [&] { return std::static_pointer_cast<void>(make()); }));
}

/// The per-queue state of `owner` on `q` (queue::attachment), made as T() on first use.
template <class T>
T& per_queue(const queue& q, const std::shared_ptr<const void>& owner) {
  return *std::static_pointer_cast<T>(
      q.attachment(owner, [] { return std::static_pointer_cast<void>(std::make_shared<T>()); }));
}

/// `words` 32-bit words of `owner` on `q` (per_queue), zeroed once by a blocking write on first
/// use: the counters and sums of one-launch kernels, which leave them zero again after each
/// launch. `what` names them in an error ("a reduction counter").
const cl::Buffer& zeroed_words_per_queue(const queue& q, const std::shared_ptr<const void>& owner,
                                         std::size_t words, const char* what);

}  // namespace clforge::detail
