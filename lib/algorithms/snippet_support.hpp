// Private helpers shared by the snippet kernel templates (elementwise, reduction).
#pragma once

#include <string>
#include <vector>

#include "clforge/algorithms/common.hpp"
#include "clforge/context.hpp"
#include "clforge/detail/signature.hpp"

namespace clforge::detail {

/// Checks that `name` is a C identifier usable as a kernel name; `what` names the template.
void check_kernel_name(const std::string& name, const std::string& what);

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
