// SPDX-License-Identifier: MIT
// The OpenCL C spelling of C++ element types, used when kernels are generated from templates.
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>

#include "clforge/detail/opencl.hpp"

namespace clforge {

/// type_traits<T>::name() is the OpenCL C name of T. Specialise it for a user struct declared in
/// a kernel preamble (or use CLFORGE_DECLARE_TYPE) so templates can be instantiated with it.
template <class T, class Enable = void>
struct type_traits;

#define CLFORGE_SCALAR_TYPE(CPP, CL, IS_FP64)   \
  template <>                                   \
  struct type_traits<CPP> {                     \
    static std::string name() { return CL; }    \
    static constexpr bool is_scalar = true;     \
    static constexpr bool needs_fp64 = IS_FP64; \
  };

CLFORGE_SCALAR_TYPE(cl_char, "char", false)
CLFORGE_SCALAR_TYPE(cl_uchar, "uchar", false)
CLFORGE_SCALAR_TYPE(cl_short, "short", false)
CLFORGE_SCALAR_TYPE(cl_ushort, "ushort", false)
CLFORGE_SCALAR_TYPE(cl_int, "int", false)
CLFORGE_SCALAR_TYPE(cl_uint, "uint", false)
CLFORGE_SCALAR_TYPE(cl_long, "long", false)
CLFORGE_SCALAR_TYPE(cl_ulong, "ulong", false)
CLFORGE_SCALAR_TYPE(cl_float, "float", false)
CLFORGE_SCALAR_TYPE(cl_double, "double", true)
#undef CLFORGE_SCALAR_TYPE

// OpenCL vector types (cl_float3 is cl_float4 in the OpenCL headers: use float4). Not scalars:
// templates that need one value per lane (the vector loads, the built-in reductions) leave them
// out; fields, snippets and arrays take them.
#define CLFORGE_VECTOR_TYPE(CPP, CL, IS_FP64)   \
  template <>                                   \
  struct type_traits<CPP> {                     \
    static std::string name() { return CL; }    \
    static constexpr bool is_scalar = false;    \
    static constexpr bool needs_fp64 = IS_FP64; \
  };

CLFORGE_VECTOR_TYPE(cl_float2, "float2", false)
CLFORGE_VECTOR_TYPE(cl_float4, "float4", false)
CLFORGE_VECTOR_TYPE(cl_float8, "float8", false)
CLFORGE_VECTOR_TYPE(cl_float16, "float16", false)
CLFORGE_VECTOR_TYPE(cl_double2, "double2", true)
CLFORGE_VECTOR_TYPE(cl_double4, "double4", true)
CLFORGE_VECTOR_TYPE(cl_int2, "int2", false)
CLFORGE_VECTOR_TYPE(cl_int4, "int4", false)
CLFORGE_VECTOR_TYPE(cl_uint2, "uint2", false)
CLFORGE_VECTOR_TYPE(cl_uint4, "uint4", false)
CLFORGE_VECTOR_TYPE(cl_uchar4, "uchar4", false)
#undef CLFORGE_VECTOR_TYPE

// `char` is distinct from signed char / cl_char in C++; map it to OpenCL char.
template <>
struct type_traits<char> : type_traits<cl_char> {};

/// Declares a user struct for templates: CLFORGE_DECLARE_TYPE(my_pair, "my_pair") at namespace
/// scope, outside any namespace. The struct must have the same layout in C++ and OpenCL C.
#define CLFORGE_DECLARE_TYPE(CPP, CL_NAME)        \
  template <>                                     \
  struct clforge::type_traits<CPP> {              \
    static std::string name() { return CL_NAME; } \
    static constexpr bool is_scalar = false;      \
    static constexpr bool needs_fp64 = false;     \
  };

template <class T>
std::string type_name() {
  return type_traits<T>::name();
}

namespace detail {
/// The OpenCL C scalar types of the type_traits above, in that order (the order of
/// detail::scalar_kind): the one table the kernel templates consult.
struct scalar_type {
  const char* name;          // OpenCL C spelling
  std::size_t size;          // bytes
  bool is_floating;          // float, double
  const char* min_constant;  // OpenCL C constants of the smallest and largest value
  const char* max_constant;
};
inline constexpr scalar_type scalar_types[] = {
    {"char", 1, false, "CHAR_MIN", "CHAR_MAX"},  {"uchar", 1, false, "0", "UCHAR_MAX"},
    {"short", 2, false, "SHRT_MIN", "SHRT_MAX"}, {"ushort", 2, false, "0", "USHRT_MAX"},
    {"int", 4, false, "INT_MIN", "INT_MAX"},     {"uint", 4, false, "0", "UINT_MAX"},
    {"long", 8, false, "LONG_MIN", "LONG_MAX"},  {"ulong", 8, false, "0", "ULONG_MAX"},
    {"float", 4, true, "-INFINITY", "INFINITY"}, {"double", 8, true, "-INFINITY", "INFINITY"},
};
/// The row of `name` in scalar_types, or -1 for any other type.
inline int scalar_type_index(std::string_view name) {
  for (int k = 0; k < static_cast<int>(std::size(scalar_types)); ++k)
    if (name == scalar_types[k].name) return k;
  return -1;
}
}  // namespace detail

}  // namespace clforge
