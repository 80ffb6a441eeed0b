// SPDX-License-Identifier: MIT
// Private helpers shared by the snippet kernel templates (elementwise, reduction).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "clforge/algorithms/common.hpp"
#include "clforge/context.hpp"
#include "clforge/detail/signature.hpp"

namespace clforge::detail {

/// A user snippet as pasted into generated code: followed by a line break, so a snippet that
/// ends in a // comment does not swallow what the template puts after it.
inline std::string snippet(std::string_view text) {
  return std::string(text) + "\n";
}

/// Bounds of the tuning values shared by the templates: a larger value would only make a huge
/// program or launch (or a compile that never ends).
constexpr std::size_t kMaxGroupSize = 4096;    // work-items per group
constexpr std::size_t kMaxGroupsPerCu = 1024;  // groups per compute unit
constexpr std::size_t kMaxUnroll = 64;         // elements per work-item per loop round

/// Throws clforge::error "<who>: <name> must be from <lo> to <hi>, not <value>" unless
/// lo <= value <= hi.
void check_bound(const std::string& who, const char* name, std::size_t value, std::size_t lo,
                 std::size_t hi);

/// Whether `s` is a C identifier.
bool is_identifier(std::string_view s);

/// The tokens of a snippet: identifiers and numbers whole, other characters one by one; blanks
/// and comments dropped. Linear in the text, whatever its length.
std::vector<std::string_view> snippet_tokens(std::string_view text);

/// NAME when `text` is a plain load "NAME[i]" (blanks between the tokens, optionally in
/// parentheses); "" otherwise.
std::string plain_load_name(std::string_view text);
/// NAME when `text` is a plain store "NAME[i] = item" (an optional ';'); "" otherwise.
std::string plain_store_name(std::string_view text);
/// Whether `text` uses `name[i]` anywhere.
bool indexes_with_i(std::string_view text, std::string_view name);

/// Checks that `name` is a C identifier usable as a kernel name; `what` names the template.
void check_kernel_name(const std::string& name, const std::string& what);

/// The shape of an elementwise or reduction kernel: `requested` (kernel_options::shape) over
/// the context's tuned policy when it names no kind, else over the table of the kind it names
/// (tuning_tables.cpp: "generic" for gpu, "cpu"); the local size capped by the device. Throws
/// for a value out of bounds. `type_size` (reductions) turns the policy's vector bytes into
/// elements.
kernel_shape elementwise_shape(const context& ctx, const kernel_shape& requested);
kernel_shape reduction_shape(const context& ctx, const kernel_shape& requested,
                             std::size_t type_size);

/// Refuses parameter names the generated code uses itself (`i`, clforge_*); `who` names the
/// kernel.
void check_parameter_names(const std::vector<parameter>& params, const std::string& who);

/// Whether the kernel needs fp64: a double parameter or `needs_double`. Throws clforge::error
/// when it does and the device has none. Returns the #pragma line to put in the source ("" when
/// not needed).
std::string fp64_pragma(const context& ctx, const std::vector<parameter>& params, bool needs_double,
                        const std::string& who);

/// ", float a, global float* x" (empty without parameters).
std::string comma_parameters(const std::vector<parameter>& params);
/// ", a, x" (empty without parameters).
std::string comma_arguments(const std::vector<parameter>& params);
/// "n", or "clforge_n" when a parameter is itself called n.
std::string count_name(const std::vector<parameter>& params);

/// Checks array lengths for a resolved range (when enabled).
void check_lengths(const argument_list& args, const resolved_range& r, bool enabled);
/// A barrier on `q` when it runs commands out of order (queue::out_of_order); nothing otherwise.
void order_point(const queue& q);

}  // namespace clforge::detail
