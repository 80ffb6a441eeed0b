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
//   z = cfloat_mul_real(z, 2.0f);                            // and add_real sub_real real_sub
//                                                            // div_real (real operands)
//
// + and - also work directly (componentwise vector arithmetic); * and / do not: use the
// functions. Infinities, zeros and NaNs follow C99 Annex G, as std::complex does on the host:
// mul and div recover the infinities and zeros that the plain formulas turn into NaN + iNaN
// ((1 + i) / 0 = inf + i inf, 1 / (inf + i inf) = 0 - i0); div scales its divisor by a power of
// two (no overflow or underflow in between); exp, log and sqrt give Annex G's special values
// and do not overflow where the result is finite. The sign of a zero part of a quotient of a
// finite value is that of the formula (a c + b d) / |w|^2 (hosts differ there too), and an
// infinite / finite quotient may have a NaN part beside its infinite one. pow(a, b) is
// exp(b * log(a)), as C's cpow, except pow(a, 0) = 1 for every a (as real pow and Python give;
// cpow gives NaN for a zero, infinite or NaN a). Operations with a real operand work on the
// parts, as std::complex's do (z * r = (x r, y r): no imaginary zero is made up), except
// real / complex, a complex division.
#ifndef CLFORGE_COMPLEX_H
#define CLFORGE_COMPLEX_H

/* C: the complex type, R: its real type, P: the function prefix, MAX: R's largest finite value,
   LN_MAX: log(MAX). Comments in the macro are C comments (a // comment would swallow the line
   continuations). */
#define CLFORGE_COMPLEX_FUNCTIONS(C, R, P, MAX, LN_MAX)                                            \
  static inline C P##_new(R re, R im) { return (C)(re, im); }                                      \
  static inline C P##_fromreal(R re) { return (C)(re, (R)0); }                                     \
  static inline R P##_real(C z) { return z.x; }                                                    \
  static inline R P##_imag(C z) { return z.y; }                                                    \
  static inline C P##_conj(C z) { return (C)(z.x, -z.y); }                                         \
  static inline C P##_neg(C z) { return -z; }                                                      \
  static inline C P##_add(C a, C b) { return a + b; }                                              \
  static inline C P##_sub(C a, C b) { return a - b; }                                              \
  static inline C P##_add_real(C a, R r) { return (C)(a.x + r, a.y); }                             \
  static inline C P##_sub_real(C a, R r) { return (C)(a.x - r, a.y); }                             \
  static inline C P##_real_sub(R r, C b) { return (C)(r - b.x, -b.y); }                            \
  static inline C P##_mul_real(C a, R r) { return (C)(a.x * r, a.y * r); }                         \
  static inline C P##_div_real(C a, R r) { return (C)(a.x / r, a.y / r); }                         \
  /* 1 or 0 with the sign of v, for an infinite or a finite part (Annex G's recovery). */          \
  static inline R P##_unit(R v) { return copysign(isinf(v) ? (R)1 : (R)0, v); }                    \
  static inline R P##_nan_to_zero(R v) { return isnan(v) ? copysign((R)0, v) : v; }                \
  /* Annex G's multiplication: the plain formula; a NaN + iNaN result where an operand is          \
     infinite (or a product overflowed) becomes the infinity it is. */                             \
  static inline C P##_mul(C z, C w) {                                                              \
    R a = z.x, b = z.y, c = w.x, d = w.y;                                                          \
    const R ac = a * c, bd = b * d, ad = a * d, bc = b * c;                                        \
    R x = ac - bd, y = ad + bc;                                                                    \
    if (isnan(x) && isnan(y)) {                                                                    \
      int again = 0;                                                                               \
      if (isinf(a) || isinf(b)) {                                                                  \
        a = P##_unit(a), b = P##_unit(b);                                                          \
        c = P##_nan_to_zero(c), d = P##_nan_to_zero(d);                                            \
        again = 1;                                                                                 \
      }                                                                                            \
      if (isinf(c) || isinf(d)) {                                                                  \
        c = P##_unit(c), d = P##_unit(d);                                                          \
        a = P##_nan_to_zero(a), b = P##_nan_to_zero(b);                                            \
        again = 1;                                                                                 \
      }                                                                                            \
      if (!again && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {                          \
        a = P##_nan_to_zero(a), b = P##_nan_to_zero(b);                                            \
        c = P##_nan_to_zero(c), d = P##_nan_to_zero(d);                                            \
        again = 1;                                                                                 \
      }                                                                                            \
      if (again) {                                                                                 \
        x = (R)INFINITY * (a * c - b * d);                                                         \
        y = (R)INFINITY * (a * d + b * c);                                                         \
      }                                                                                            \
    }                                                                                              \
    return (C)(x, y);                                                                              \
  }                                                                                                \
  /* Annex G's division. An infinite z over a finite nonzero w is the infinity the formula         \
     tends to: the formula with z's parts as +-1 (infinite) or +-0 (finite, NaN). Otherwise w      \
     is scaled by a power of two to parts below 2 (no overflow or underflow in between), the       \
     plain formula runs and the scale is put back; a NaN + iNaN result is then recovered for       \
     nonzero / zero (infinite) and finite / infinite (zero). */                                    \
  static inline C P##_div(C z, C w) {                                                              \
    const R a = z.x, b = z.y, c = w.x, d = w.y;                                                    \
    if ((isinf(a) || isinf(b)) && isfinite(c) && isfinite(d) && (c != (R)0 || d != (R)0)) {        \
      const R ua = P##_unit(a), ub = P##_unit(b);                                                  \
      return (C)((R)INFINITY * (ua * c + ub * d), (R)INFINITY * (ub * c - ua * d));                \
    }                                                                                              \
    const R log_w = logb(fmax(fabs(c), fabs(d)));                                                  \
    const int scale_w = isfinite(log_w) ? (int)log_w : 0;                                          \
    const R sc = ldexp(c, -scale_w), sd = ldexp(d, -scale_w), denom = sc * sc + sd * sd;           \
    /* |sc| / denom and |sd| / denom are at most 1: no product below overflows, and halves of      \
       z keep the sums finite; the scale goes back at the end. */                                  \
    const R rc = sc / denom, rd = sd / denom, ha = a * (R)0.5, hb = b * (R)0.5;                    \
    R x = ldexp(ha * rc + hb * rd, 1 - scale_w);                                                   \
    R y = ldexp(hb * rc - ha * rd, 1 - scale_w);                                                   \
    if (isnan(x) && isnan(y)) {                                                                    \
      if (c == (R)0 && d == (R)0 && (!isnan(a) || !isnan(b))) {                                    \
        x = copysign((R)INFINITY, c) * a;                                                          \
        y = copysign((R)INFINITY, c) * b;                                                          \
      } else if ((isinf(c) || isinf(d)) && isfinite(a) && isfinite(b)) {                           \
        /* Halves: a + b must not overflow to an infinity (0 * inf is NaN). */                     \
        const R uc = P##_unit(c), ud = P##_unit(d), ha = a * (R)0.5, hb = b * (R)0.5;              \
        x = (R)0 * (ha * uc + hb * ud);                                                            \
        y = (R)0 * (hb * uc - ha * ud);                                                            \
      }                                                                                            \
    }                                                                                              \
    return (C)(x, y);                                                                              \
  }                                                                                                \
  static inline R P##_abs(C z) { return hypot(z.x, z.y); }                                         \
  static inline R P##_arg(C z) { return atan2(z.y, z.x); }                                         \
  /* Annex G's cexp: an imaginary zero is kept (exp(x) + i0); an infinite real part with a         \
     non-finite imaginary one gives +0 +- i0 (the sign of y) or +inf + iNaN; otherwise             \
     exp(x) cis(y), with exp(x) taken in two halves where it alone would overflow. */              \
  static inline C P##_exp(C z) {                                                                   \
    const R x = z.x, y = z.y;                                                                      \
    if (y == (R)0) return (C)(exp(x), y);                                                          \
    if (isinf(x) && !isfinite(y))                                                                  \
      return x < (R)0 ? (C)((R)0, copysign((R)0, y)) : (C)(x, y - y);                              \
    if (x > (R)LN_MAX) {                                                                           \
      const R root = exp(x * (R)0.5); /* (half is a type name) */                                  \
      return (C)(root * cos(y) * root, root * sin(y) * root);                                      \
    }                                                                                              \
    const R e = exp(x);                                                                            \
    return (C)(e * cos(y), e * sin(y));                                                            \
  }                                                                                                \
  /* Annex G's clog follows from hypot's and atan2's special values (C99 Annex F). */              \
  static inline C P##_log(C z) { return (C)(log(P##_abs(z)), P##_arg(z)); }                        \
  /* Annex G's csqrt: the special values first; large parts are scaled by 1/4 (the root by 2) so   \
     that |x| + |z| does not overflow. */                                                          \
  static inline C P##_sqrt(C z) {                                                                  \
    R x = z.x, y = z.y;                                                                            \
    if (isinf(y)) return (C)((R)INFINITY, y);                                                      \
    if (isinf(x)) {                                                                                \
      if (x > (R)0) return (C)(x, isnan(y) ? y : copysign((R)0, y));                               \
      return (C)(isnan(y) ? y : (R)0, copysign((R)INFINITY, y));                                   \
    }                                                                                              \
    if (isnan(x) || isnan(y)) return (C)(x + y, x + y);                                            \
    if (x == (R)0 && y == (R)0) return (C)((R)0, y);                                               \
    R scale = (R)1;                                                                                \
    if (fabs(x) > (R)MAX / (R)4 || fabs(y) > (R)MAX / (R)4)                                        \
      x *= (R)0.25, y *= (R)0.25, scale = (R)2;                                                    \
    const R t = sqrt((fabs(x) + hypot(x, y)) * (R)0.5);                                            \
    if (x >= (R)0) return (C)(t * scale, y / (t * (R)2) * scale);                                  \
    return (C)(fabs(y) / (t * (R)2) * scale, copysign(t * scale, y));                              \
  }                                                                                                \
  static inline C P##_pow(C a, C b) {                                                              \
    if (b.x == (R)0 && b.y == (R)0) return (C)((R)1, (R)0);                                        \
    return P##_exp(P##_mul(b, P##_log(a)));                                                        \
  }

typedef float2 cfloat_t;
CLFORGE_COMPLEX_FUNCTIONS(cfloat_t, float, cfloat, FLT_MAX, 88.72283f)

#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
typedef double2 cdouble_t;
CLFORGE_COMPLEX_FUNCTIONS(cdouble_t, double, cdouble, DBL_MAX, 709.782712893384)
static inline cdouble_t cdouble_fromcfloat(cfloat_t z) { return (cdouble_t)(z.x, z.y); }
static inline cfloat_t cfloat_fromcdouble(cdouble_t z) { return (cfloat_t)((float)z.x, (float)z.y); }
#endif

#undef CLFORGE_COMPLEX_FUNCTIONS
#endif
