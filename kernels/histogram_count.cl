// SPDX-License-Identifier: MIT
// clforge histogram_kernel "$name": group g counts the indices i = CLFORGE_INDEX(k) for k in
// [g * chunk, (g + 1) * chunk) and below n, its work-items striding through them (consecutive
// work-items read consecutive elements). A group of one work-item (CPUs) counts without
// atomics. Rendered after kernels/histogram.cl, twice: i = k (the name the user gave; an offset
// added to the index made a CPU's loop 16 times slower, bench/results) and i = first + k * step
// (the name + "_strided"; the step a 64-bit two's complement, so negative steps wrap to the
// right indices).
#define CLFORGE_INDEX(k) $index
__attribute__((reqd_work_group_size(CLFORGE_GROUP, 1, 1)))
kernel void $name($user_parameters $range_parameters ulong n, ulong clforge_chunk,
                  CLFORGE_COUNTS_PARAMETERS) {
  CLFORGE_COUNTS_START
  const ulong clforge_start = get_group_id(0) * clforge_chunk;
  const ulong clforge_end = min(n, clforge_start + clforge_chunk);
  ulong clforge_k = clforge_start + get_local_id(0);
#if CLFORGE_UNROLL > 1
  for (; clforge_k + (CLFORGE_UNROLL - 1) * CLFORGE_GROUP < clforge_end;
       clforge_k += CLFORGE_UNROLL * CLFORGE_GROUP) {
    long clforge_bins[CLFORGE_UNROLL];
#pragma unroll
    for (uint clforge_u = 0; clforge_u < CLFORGE_UNROLL; ++clforge_u) {
      const ulong i = CLFORGE_INDEX(clforge_k + clforge_u * CLFORGE_GROUP);
      clforge_bins[clforge_u] = (long)($bin_expr);
    }
#pragma unroll
    for (uint clforge_u = 0; clforge_u < CLFORGE_UNROLL; ++clforge_u)
      if (clforge_bins[clforge_u] >= 0 && clforge_bins[clforge_u] < CLFORGE_BINS)
        CLFORGE_COUNT(clforge_bins[clforge_u]);
  }
#endif
  for (; clforge_k < clforge_end; clforge_k += CLFORGE_GROUP) {
    const ulong i = CLFORGE_INDEX(clforge_k);
    const long clforge_bin = (long)($bin_expr);
    if (clforge_bin >= 0 && clforge_bin < CLFORGE_BINS) CLFORGE_COUNT(clforge_bin);
  }
  CLFORGE_COUNTS_END
}
#undef CLFORGE_INDEX
