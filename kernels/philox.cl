// SPDX-License-Identifier: MIT
// clforge Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC'11), the counter-based generator of Random123, for OpenCL C. Put clforge::philox_header() in
// a kernel's preamble:
//
//   uint4 r = clforge_philox4x32((uint4)(i, 0, 0, 0), (uint2)(seed_lo, seed_hi));
//   float u = clforge_u01_float(r.x);            // [0, 1)
//
// A pure function of (counter, key): the same inputs give the same 4 words on every device, in
// every work-item, in any order. Matches Random123's known-answer vectors (tests/test_random.cpp).
#ifndef CLFORGE_PHILOX_H
#define CLFORGE_PHILOX_H

// One round on scalars: the 32 x 32 -> 64-bit products as ulong multiplications (GPU compilers
// emit mul.hi for them; CPU work-group vectorizers handle them, where mul_hi() stayed scalar and
// ran about 5x slower on PoCL). The ten rounds are written out for the same reason.
#define CLFORGE_PHILOX_ROUND(c0, c1, c2, c3, k0, k1)                   \
  {                                                                   \
    const ulong clforge_p0 = (ulong)0xD2511F53u * (c0);               \
    const ulong clforge_p1 = (ulong)0xCD9E8D57u * (c2);               \
    const uint clforge_n0 = (uint)(clforge_p1 >> 32) ^ (c1) ^ (k0);   \
    const uint clforge_n2 = (uint)(clforge_p0 >> 32) ^ (c3) ^ (k1);   \
    (c1) = (uint)clforge_p1;                                          \
    (c3) = (uint)clforge_p0;                                          \
    (c0) = clforge_n0;                                                \
    (c2) = clforge_n2;                                                \
  }
#define CLFORGE_PHILOX_BUMP(k0, k1) \
  (k0) += 0x9E3779B9u;              \
  (k1) += 0xBB67AE85u;
#define CLFORGE_PHILOX_ROUND_BUMP(c0, c1, c2, c3, k0, k1) \
  CLFORGE_PHILOX_ROUND(c0, c1, c2, c3, k0, k1) CLFORGE_PHILOX_BUMP(k0, k1)

/// Philox4x32 with 10 rounds; the key is bumped by the Weyl constants between rounds.
static inline uint4 clforge_philox4x32(uint4 counter, uint2 key) {
  uint c0 = counter.x, c1 = counter.y, c2 = counter.z, c3 = counter.w, k0 = key.x, k1 = key.y;
  CLFORGE_PHILOX_ROUND_BUMP(c0, c1, c2, c3, k0, k1)
  CLFORGE_PHILOX_ROUND_BUMP(c0, c1, c2, c3, k0, k1)
  CLFORGE_PHILOX_ROUND_BUMP(c0, c1, c2, c3, k0, k1)
  CLFORGE_PHILOX_ROUND_BUMP(c0, c1, c2, c3, k0, k1)
  CLFORGE_PHILOX_ROUND_BUMP(c0, c1, c2, c3, k0, k1)
  CLFORGE_PHILOX_ROUND_BUMP(c0, c1, c2, c3, k0, k1)
  CLFORGE_PHILOX_ROUND_BUMP(c0, c1, c2, c3, k0, k1)
  CLFORGE_PHILOX_ROUND_BUMP(c0, c1, c2, c3, k0, k1)
  CLFORGE_PHILOX_ROUND_BUMP(c0, c1, c2, c3, k0, k1)
  CLFORGE_PHILOX_ROUND(c0, c1, c2, c3, k0, k1)
  return (uint4)(c0, c1, c2, c3);
}

/// 24 random bits as a float in [0, 1) (multiples of 2^-24).
static inline float clforge_u01_float(uint x) { return (float)(x >> 8) * 0x1.0p-24f; }
/// The same in (0, 1]: safe for log().
static inline float clforge_u01_float_open0(uint x) { return (float)((x >> 8) + 1u) * 0x1.0p-24f; }

#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
/// 53 random bits of (hi, lo) as a double in [0, 1) and in (0, 1].
static inline double clforge_u01_double(uint hi, uint lo) {
  return (double)((((ulong)hi << 32) | lo) >> 11) * 0x1.0p-53;
}
static inline double clforge_u01_double_open0(uint hi, uint lo) {
  return (double)(((((ulong)hi << 32) | lo) >> 11) + 1ul) * 0x1.0p-53;
}
#endif

#endif
