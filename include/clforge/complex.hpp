// SPDX-License-Identifier: MIT
// Complex numbers: clforge::complex<float> / <double> on the host are std::complex (same layout
// as OpenCL's cfloat_t / cdouble_t, i.e. float2 / double2), usable as array elements, in array
// expressions (clforge/array_expr.hpp) and in snippets through complex_header().
//
//   auto z = cf::array<cf::complex<float>>::from_host(q, host);
//   w = z * z + cf::exp(z);                                     // one kernel, complex arithmetic
//   cf::complex<float> s = cf::sum(q, z);                       // complex sum
//   opts.preamble = cf::complex_header();                       // cfloat_mul(...) in snippets
#pragma once

#include <complex>
#include <string>

#include "clforge/types.hpp"

namespace clforge {

template <class T>
using complex = std::complex<T>;

/// complex<float> in kernels: cfloat_t (defined by complex_header()).
template <>
struct type_traits<std::complex<float>> {
  /// The OpenCL C type name.
  static std::string name() { return "cfloat_t"; }
  static constexpr bool is_scalar = false;   ///< A two-component struct, not an OpenCL scalar.
  static constexpr bool needs_fp64 = false;  ///< Runs on devices without double support.
};
/// complex<double> in kernels: cdouble_t (defined by complex_header()).
template <>
struct type_traits<std::complex<double>> {
  /// The OpenCL C type name.
  static std::string name() { return "cdouble_t"; }
  static constexpr bool is_scalar = false;  ///< A two-component struct, not an OpenCL scalar.
  static constexpr bool needs_fp64 = true;  ///< Needs a device with double support (fp64).
};

/// OpenCL C source defining cfloat_t, cdouble_t (where the device has fp64; enable the
/// cl_khr_fp64 pragma before it) and their functions (kernels/complex.cl): P_new, P_fromreal,
/// P_real, P_imag, P_conj, P_neg, P_add, P_sub, P_mul, P_div, P_abs, P_arg, P_exp, P_log,
/// P_sqrt, P_pow, and with a real operand P_add_real, P_sub_real, P_real_sub, P_mul_real,
/// P_div_real, for P = cfloat, cdouble; cdouble_fromcfloat, cfloat_fromcdouble. Special values
/// follow C99 Annex G as std::complex does (kernels/complex.cl lists the differences).
/// Include-guarded: pasting it twice is harmless.
CLFORGE_API const std::string& complex_header();

}  // namespace clforge
