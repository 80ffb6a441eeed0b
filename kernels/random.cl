// SPDX-License-Identifier: MIT
// clforge::random's generator kernels. The mapping from Philox words to values is described at
// the top of include/clforge/random.hpp; tests/test_random.cpp checks it against a host loop.
// Work-item i of the block kernels makes Philox block (hi0:lo0) + i (eight blocks for
// clforge_random_blocks8): the low counter word wraps in 32-bit arithmetic and carries into the
// high one (exact for fewer than 2^32 work-items per launch). No bounds check: the launches
// cover whole groups.
$preamble
// ---- what this program was generated for ----
typedef $type T;        // the element type
typedef $param P;       // the type of the parameters p0, p1 (lo and hi, mean and sd, ...)
typedef $vector TV;     // T4, or T2 for 8-byte types: the values of one Philox block
#define PER_BLOCK $per_block  // values per block: 4, or 2 for 8-byte types
#define CLFORGE_RANDOM_$distribution 1  // BITS, UNIFORM, UNIT_UNIFORM or NORMAL
#define CLFORGE_FLOATING $floating      // 1 for float and double

// The block's words r.x r.y r.z r.w through F: one word per value, or (high, low) pairs for
// 8-byte types.
#if PER_BLOCK == 4
#define CLFORGE_VALUES(F) ((TV)(F(r.x), F(r.y), F(r.z), F(r.w)))
#else
#define CLFORGE_VALUES(F) ((TV)(F(r.x, r.y), F(r.z, r.w)))
#endif

#if CLFORGE_FLOATING
#if PER_BLOCK == 4
#define CLFORGE_U01 clforge_u01_float
#else
#define CLFORGE_U01 clforge_u01_double
#endif
#endif

#if CLFORGE_RANDOM_NORMAL && PER_BLOCK == 4
// Box-Muller on the pairs (r.x, r.y) and (r.z, r.w), both outputs of each pair used.
#define CLFORGE_TWO_PI 6.283185307179586f
#define CLFORGE_OPEN0 clforge_u01_float_open0
#elif CLFORGE_RANDOM_NORMAL
#define CLFORGE_TWO_PI 6.283185307179586
#define CLFORGE_OPEN0 clforge_u01_double_open0
#endif

static inline TV clforge_block_values(const uint4 r, const P p0, const P p1) {
#if CLFORGE_RANDOM_NORMAL && PER_BLOCK == 4
  const T rad0 = sqrt(-2.0f * log(CLFORGE_OPEN0(r.x)));
  const T th0 = CLFORGE_TWO_PI * clforge_u01_float(r.y);
  const T rad1 = sqrt(-2.0f * log(CLFORGE_OPEN0(r.z)));
  const T th1 = CLFORGE_TWO_PI * clforge_u01_float(r.w);
  return (TV)(p0 + p1 * (rad0 * cos(th0)), p0 + p1 * (rad0 * sin(th0)),
              p0 + p1 * (rad1 * cos(th1)), p0 + p1 * (rad1 * sin(th1)));
#elif CLFORGE_RANDOM_NORMAL
  const T rad = sqrt(-2.0 * log(CLFORGE_OPEN0(r.x, r.y)));
  const T th = CLFORGE_TWO_PI * clforge_u01_double(r.z, r.w);
  return (TV)(p0 + p1 * (rad * cos(th)), p0 + p1 * (rad * sin(th)));
#elif CLFORGE_RANDOM_UNIT_UNIFORM
  return CLFORGE_VALUES(CLFORGE_U01);
#elif CLFORGE_FLOATING
  // lo + (hi - lo) * u as one fma: correctly rounded everywhere (a contracted a * b + c would
  // differ by device). The value is at most hi; fmin with the float below hi turns hi into it
  // and keeps every other value (a select on v < hi vectorized worse on PoCL).
  const T below = nextafter(p1, p0);
#define CLFORGE_SCALED(...) fmin(fma(p1 - p0, CLFORGE_U01(__VA_ARGS__), p0), below)
  return CLFORGE_VALUES(CLFORGE_SCALED);
#elif CLFORGE_RANDOM_BITS && PER_BLOCK == 4
#define CLFORGE_BITS(w) ((T)(w))
  return CLFORGE_VALUES(CLFORGE_BITS);
#elif CLFORGE_RANDOM_BITS
#define CLFORGE_BITS(hi, lo) ((T)(((ulong)(hi) << 32) | (lo)))
  return CLFORGE_VALUES(CLFORGE_BITS);
#elif PER_BLOCK == 4
  // lo + floor(w * width / 2^32)
#define CLFORGE_SCALED(w) ((T)(p0 + (ulong)mul_hi((w), (uint)p1)))
  return CLFORGE_VALUES(CLFORGE_SCALED);
#else
  // lo + floor(w * width / 2^64)
#define CLFORGE_SCALED(hi, lo) ((T)(p0 + mul_hi(((ulong)(hi) << 32) | (lo), p1)))
  return CLFORGE_VALUES(CLFORGE_SCALED);
#endif
}

static inline uint4 clforge_block_words(const uint lo0, const uint hi0, const uint i,
                                        const uint k0, const uint k1) {
  const uint lo = lo0 + i;
  const uint hi = hi0 + (lo < lo0 ? 1u : 0u);
  return clforge_philox4x32((uint4)(lo, hi, 0u, 0u), (uint2)(k0, k1));
}

// Arrays whose first whole block starts at a multiple of PER_BLOCK elements: one aligned vector
// store (what GPUs coalesce and CPU vectorizers turn into wide stores; vstoreN and scalar
// stores vectorized worse on PoCL).
kernel void clforge_random_blocks(global T* a, ulong start, uint lo0, uint hi0, uint k0, uint k1,
                                  P p0, P p1) {
  const uint i = get_global_id(0);
  ((global TV*)(a + start))[i] = clforge_block_values(clforge_block_words(lo0, hi0, i, k0, k1),
                                                      p0, p1);
}

// Elsewhere: scalar stores.
kernel void clforge_random_blocks_unaligned(global T* a, ulong start, uint lo0, uint hi0,
                                            uint k0, uint k1, P p0, P p1) {
  const uint i = get_global_id(0);
  const TV v = clforge_block_values(clforge_block_words(lo0, hi0, i, k0, k1), p0, p1);
  global T* out = a + start + (ulong)i * PER_BLOCK;
  out[0] = v.s0;
  out[1] = v.s1;
#if PER_BLOCK == 4
  out[2] = v.s2;
  out[3] = v.s3;
#endif
}

// CPUs: eight blocks per work-item, their ten rounds on uint8 vectors (PoCL left the scalar
// rounds unvectorized), then each block's values and aligned store as above.
#define CLFORGE_PHILOX_ROUND8(c0, c1, c2, c3, k0, k1)                  \
  {                                                                  \
    const ulong8 clforge_p0 = convert_ulong8(c0) * (ulong)0xD2511F53u; \
    const ulong8 clforge_p1 = convert_ulong8(c2) * (ulong)0xCD9E8D57u; \
    const uint8 clforge_n0 = convert_uint8(clforge_p1 >> 32) ^ (c1) ^ (k0); \
    const uint8 clforge_n2 = convert_uint8(clforge_p0 >> 32) ^ (c3) ^ (k1); \
    (c1) = convert_uint8(clforge_p1);                                \
    (c3) = convert_uint8(clforge_p0);                                \
    (c0) = clforge_n0;                                               \
    (c2) = clforge_n2;                                               \
  }
#define CLFORGE_PHILOX_ROUND8_BUMP(c0, c1, c2, c3, k0, k1) \
  CLFORGE_PHILOX_ROUND8(c0, c1, c2, c3, k0, k1) CLFORGE_PHILOX_BUMP(k0, k1)
#define CLFORGE_BLOCK8(b)                                                         \
  out[(ulong)i * 8 + b] =                                                         \
      clforge_block_values((uint4)(c0.s##b, c1.s##b, c2.s##b, c3.s##b), p0, p1);

kernel void clforge_random_blocks8(global T* a, ulong start, uint lo0, uint hi0, uint k0, uint k1,
                                   P p0, P p1) {
  const uint i = get_global_id(0);
  const uint8 lo = (uint8)(lo0 + i * 8u) + (uint8)(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u);
  const uint8 hi = (uint8)hi0 - as_uint8(lo < (uint8)lo0);  // + 1 where lo wrapped
  uint8 c0 = lo, c1 = hi, c2 = (uint8)0u, c3 = (uint8)0u;
  uint ka = k0, kb = k1;
  CLFORGE_PHILOX_ROUND8_BUMP(c0, c1, c2, c3, ka, kb)
  CLFORGE_PHILOX_ROUND8_BUMP(c0, c1, c2, c3, ka, kb)
  CLFORGE_PHILOX_ROUND8_BUMP(c0, c1, c2, c3, ka, kb)
  CLFORGE_PHILOX_ROUND8_BUMP(c0, c1, c2, c3, ka, kb)
  CLFORGE_PHILOX_ROUND8_BUMP(c0, c1, c2, c3, ka, kb)
  CLFORGE_PHILOX_ROUND8_BUMP(c0, c1, c2, c3, ka, kb)
  CLFORGE_PHILOX_ROUND8_BUMP(c0, c1, c2, c3, ka, kb)
  CLFORGE_PHILOX_ROUND8_BUMP(c0, c1, c2, c3, ka, kb)
  CLFORGE_PHILOX_ROUND8_BUMP(c0, c1, c2, c3, ka, kb)
  CLFORGE_PHILOX_ROUND8(c0, c1, c2, c3, ka, kb)
  global TV* out = (global TV*)(a + start);
#if CLFORGE_RANDOM_NORMAL
  // Box-Muller on the eight blocks' words as vectors: the log, sqrt and sincos calls are the
  // cost of a normal number, and CPU vectorizers left them scalar per block. Then each block's
  // values and aligned store as above.
#if PER_BLOCK == 4
  const float8 rad0 = sqrt(-2.0f * log(convert_float8((c0 >> 8) + 1u) * 0x1.0p-24f));
  const float8 th0 = CLFORGE_TWO_PI * (convert_float8(c1 >> 8) * 0x1.0p-24f);
  const float8 rad1 = sqrt(-2.0f * log(convert_float8((c2 >> 8) + 1u) * 0x1.0p-24f));
  const float8 th1 = CLFORGE_TWO_PI * (convert_float8(c3 >> 8) * 0x1.0p-24f);
  float8 cos0, cos1;
  const float8 sin0 = sincos(th0, &cos0), sin1 = sincos(th1, &cos1);
  const float8 v0 = p0 + p1 * (rad0 * cos0), v1 = p0 + p1 * (rad0 * sin0);
  const float8 v2 = p0 + p1 * (rad1 * cos1), v3 = p0 + p1 * (rad1 * sin1);
#define CLFORGE_NORMAL8(b) out[(ulong)i * 8 + b] = (TV)(v0.s##b, v1.s##b, v2.s##b, v3.s##b);
#else
  const ulong8 w0 = (convert_ulong8(c0) << 32) | convert_ulong8(c1);
  const ulong8 w1 = (convert_ulong8(c2) << 32) | convert_ulong8(c3);
  const double8 rad = sqrt(-2.0 * log(convert_double8((w0 >> 11) + 1ul) * 0x1.0p-53));
  const double8 th = CLFORGE_TWO_PI * (convert_double8(w1 >> 11) * 0x1.0p-53);
  double8 cos0;
  const double8 sin0 = sincos(th, &cos0);
  const double8 v0 = p0 + p1 * (rad * cos0), v1 = p0 + p1 * (rad * sin0);
#define CLFORGE_NORMAL8(b) out[(ulong)i * 8 + b] = (TV)(v0.s##b, v1.s##b);
#endif
  CLFORGE_NORMAL8(0)
  CLFORGE_NORMAL8(1)
  CLFORGE_NORMAL8(2)
  CLFORGE_NORMAL8(3)
  CLFORGE_NORMAL8(4)
  CLFORGE_NORMAL8(5)
  CLFORGE_NORMAL8(6)
  CLFORGE_NORMAL8(7)
#else
  CLFORGE_BLOCK8(0)
  CLFORGE_BLOCK8(1)
  CLFORGE_BLOCK8(2)
  CLFORGE_BLOCK8(3)
  CLFORGE_BLOCK8(4)
  CLFORGE_BLOCK8(5)
  CLFORGE_BLOCK8(6)
  CLFORGE_BLOCK8(7)
#endif
}

// The partial blocks at the ends of a range [first, end) of the stream: work-item 0 makes block
// block0, work-item 1 block block1, each storing only its values inside the range.
kernel void clforge_random_edges(global T* a, ulong first, ulong end, ulong block0, ulong block1,
                                 uint k0, uint k1, P p0, P p1) {
  const ulong b = get_global_id(0) == 0 ? block0 : block1;
  const uint4 r = clforge_philox4x32((uint4)((uint)b, (uint)(b >> 32), 0u, 0u), (uint2)(k0, k1));
  const TV v = clforge_block_values(r, p0, p1);
  const ulong j = b * PER_BLOCK;
#define CLFORGE_EDGE_STORE(k, value) \
  if (j + k >= first && j + k < end) a[j + k - first] = (value);
  CLFORGE_EDGE_STORE(0, v.s0)
  CLFORGE_EDGE_STORE(1, v.s1)
#if PER_BLOCK == 4
  CLFORGE_EDGE_STORE(2, v.s2)
  CLFORGE_EDGE_STORE(3, v.s3)
#endif
}
