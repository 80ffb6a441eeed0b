// SPDX-License-Identifier: MIT
// Checks shared by every layer that generates code: what a device can do with a type, and how
// long a kernel name may be.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "clforge/detail/signature.hpp"
#include "clforge/device.hpp"

namespace clforge::detail {

/// Throws clforge::error when `type` (an OpenCL type name: "double", "double4", ...) needs a
/// capability the device lacks. Today that is double precision (cl_khr_fp64). `who` names the
/// kernel or template in the message. Call it before generating source, so the user gets this
/// message instead of a compiler log. Returns whether the type is a double type (the source then
/// needs the cl_khr_fp64 pragma).
CLFORGE_API bool require_type_support(const device_info& info, std::string_view type,
                                      std::string_view who);

/// require_type_support for every parameter of a user's parameter list; whether any is double.
CLFORGE_API bool require_type_support(const device_info& info, const std::vector<parameter>& params,
                                      std::string_view who);

/// Throws clforge::error when `name` has more than `limit` characters (max_kernel_name_length,
/// or max_template_name_length for a template's name); `who` names the caller in the message.
CLFORGE_API void require_kernel_name_length(std::string_view who, const std::string& name,
                                            std::size_t limit);

}  // namespace clforge::detail
