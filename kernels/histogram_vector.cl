// SPDX-License-Identifier: MIT
// clforge histogram_kernel "$name": the indices 0, 1, ..., n - 1 read as vectors of four, for a
// bin expression that reads its arrays only at index i (it reads the lanes instead). Group g
// counts the vectors [g * chunk, (g + 1) * chunk) below n / 4, its work-items striding through
// them (consecutive work-items read consecutive vectors); the last group also counts the
// n % 4 indices after them with the expression as written. One vector load per array moves four
// indices' elements and one address computation serves them (the scalar kernel moves one).
// Rendered after kernels/histogram.cl.
static inline long clforge_bin_at(const ulong i, const ulong n$lane_parameters$comma_parameters) {
  return (long)($lane_expr);
}
#define CLFORGE_COUNT_IN_RANGE(bin_of)                                          \
  {                                                                             \
    const long clforge_bin = (bin_of);                                          \
    if (clforge_bin >= 0 && clforge_bin < CLFORGE_BINS) CLFORGE_COUNT(clforge_bin); \
  }
__attribute__((reqd_work_group_size(CLFORGE_GROUP, 1, 1)))
kernel void $name($user_parameters ulong n, ulong clforge_chunk, CLFORGE_COUNTS_PARAMETERS) {
  CLFORGE_COUNTS_START
  const ulong clforge_vectors = n / 4;
  const ulong clforge_start = get_group_id(0) * clforge_chunk;
  const ulong clforge_end = min(clforge_vectors, clforge_start + clforge_chunk);
  ulong clforge_v = clforge_start + get_local_id(0);
  $lane_declarations
  // All loads of a round first, so that they are in flight together.
  for (; clforge_v + (CLFORGE_UNROLL - 1) * CLFORGE_GROUP < clforge_end;
       clforge_v += CLFORGE_UNROLL * CLFORGE_GROUP) {
#pragma unroll
    for (uint clforge_u = 0; clforge_u < CLFORGE_UNROLL; ++clforge_u) {
      $lane_loads
    }
#pragma unroll
    for (uint clforge_u = 0; clforge_u < CLFORGE_UNROLL; ++clforge_u) {
      const ulong clforge_i = (clforge_v + clforge_u * CLFORGE_GROUP) * 4;
      $lane_counts
    }
  }
  for (; clforge_v < clforge_end; clforge_v += CLFORGE_GROUP) {
    const uint clforge_u = 0;
    $lane_loads
    const ulong clforge_i = clforge_v * 4;
    $lane_counts
  }
  if (get_group_id(0) == get_num_groups(0) - 1)
    for (ulong i = clforge_vectors * 4 + get_local_id(0); i < n; i += CLFORGE_GROUP)
      CLFORGE_COUNT_IN_RANGE((long)($bin_expr));
  CLFORGE_COUNTS_END
}
#undef CLFORGE_COUNT_IN_RANGE
