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

static inline uint4 clforge_philox4x32_round(uint4 c, uint2 k) {
  const uint hi0 = mul_hi(0xD2511F53u, c.x), lo0 = 0xD2511F53u * c.x;
  const uint hi1 = mul_hi(0xCD9E8D57u, c.z), lo1 = 0xCD9E8D57u * c.z;
  return (uint4)(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
}

/// Philox4x32 with 10 rounds; the key is bumped by the Weyl constants between rounds.
static inline uint4 clforge_philox4x32(uint4 counter, uint2 key) {
  const uint2 bump = (uint2)(0x9E3779B9u, 0xBB67AE85u);
  counter = clforge_philox4x32_round(counter, key);
#pragma unroll
  for (int r = 1; r < 10; ++r) {
    key += bump;
    counter = clforge_philox4x32_round(counter, key);
  }
  return counter;
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
