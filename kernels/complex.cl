// SPDX-License-Identifier: MIT
// clforge complex numbers for OpenCL C: cfloat_t and cdouble_t (float2 / double2: the layout of
// std::complex<float> / std::complex<double>, so arrays of clforge::complex<T> pass as they are).
// Put clforge::complex_header() in a kernel's preamble (array expressions with complex operands
// include it themselves). cdouble_t functions exist where the device has cl_khr_fp64; enable the
// pragma before this header to use them.
//
//   cfloat_t z = cfloat_new(1.0f, 2.0f);
//   z = cfloat_mul(z, cfloat_exp(cfloat_new(0.0f, x[i])));   // also add sub div neg conj
//   float r = cfloat_abs(z), phi = cfloat_arg(z);            // and real imag log sqrt pow
//
// + and - also work directly (componentwise vector arithmetic); * and / do not: use the
// functions. Division uses Smith's scaling (no overflow for large operands); pow(a, b) is
// exp(b * log(a)) with pow(0, b) = 0 for b != 0 and pow(a, 0) = 1; sqrt is the principal root.
#ifndef CLFORGE_COMPLEX_H
#define CLFORGE_COMPLEX_H

#define CLFORGE_COMPLEX_FUNCTIONS(C, R, P)                                                        \
  static inline C P##_new(R re, R im) { return (C)(re, im); }                                     \
  static inline C P##_fromreal(R re) { return (C)(re, (R)0); }                                    \
  static inline R P##_real(C z) { return z.x; }                                                   \
  static inline R P##_imag(C z) { return z.y; }                                                   \
  static inline C P##_conj(C z) { return (C)(z.x, -z.y); }                                        \
  static inline C P##_neg(C z) { return -z; }                                                     \
  static inline C P##_add(C a, C b) { return a + b; }                                             \
  static inline C P##_sub(C a, C b) { return a - b; }                                             \
  static inline C P##_mul(C a, C b) { return (C)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); } \
  static inline C P##_div(C a, C b) {                                                             \
    if (fabs(b.x) >= fabs(b.y)) {                                                                 \
      R r = b.y / b.x, d = b.x + r * b.y;                                                         \
      return (C)((a.x + a.y * r) / d, (a.y - a.x * r) / d);                                       \
    }                                                                                             \
    R r = b.x / b.y, d = b.y + r * b.x;                                                           \
    return (C)((a.x * r + a.y) / d, (a.y * r - a.x) / d);                                         \
  }                                                                                               \
  static inline R P##_abs(C z) { return hypot(z.x, z.y); }                                        \
  static inline R P##_arg(C z) { return atan2(z.y, z.x); }                                        \
  static inline C P##_exp(C z) {                                                                  \
    R e = exp(z.x);                                                                               \
    return (C)(e * cos(z.y), e * sin(z.y));                                                       \
  }                                                                                               \
  static inline C P##_log(C z) { return (C)(log(P##_abs(z)), P##_arg(z)); }                      \
  static inline C P##_sqrt(C z) {                                                                 \
    if (z.x == (R)0 && z.y == (R)0) return (C)((R)0, z.y);                                        \
    R t = sqrt((fabs(z.x) + P##_abs(z)) / (R)2);                                                  \
    if (z.x >= (R)0) return (C)(t, z.y / (t * (R)2));                                             \
    return (C)(fabs(z.y) / (t * (R)2), copysign(t, z.y));                                         \
  }                                                                                               \
  static inline C P##_pow(C a, C b) {                                                             \
    if (b.x == (R)0 && b.y == (R)0) return (C)((R)1, (R)0);                                       \
    if (a.x == (R)0 && a.y == (R)0) return (C)((R)0, (R)0);                                       \
    return P##_exp(P##_mul(b, P##_log(a)));                                                       \
  }

typedef float2 cfloat_t;
CLFORGE_COMPLEX_FUNCTIONS(cfloat_t, float, cfloat)

#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
typedef double2 cdouble_t;
CLFORGE_COMPLEX_FUNCTIONS(cdouble_t, double, cdouble)
static inline cdouble_t cdouble_fromcfloat(cfloat_t z) { return (cdouble_t)(z.x, z.y); }
static inline cfloat_t cfloat_fromcdouble(cdouble_t z) { return (cfloat_t)((float)z.x, (float)z.y); }
#endif

#undef CLFORGE_COMPLEX_FUNCTIONS
#endif
