// SPDX-License-Identifier: MIT
// clforge elementwise kernel "$name" (generated from kernels/elementwise.cl)
// policy: $policy
$extensions
// ---- preamble ---------------------------------------------------------------------------------
$preamble
// ---- the operation, run once for every index i ($count_name indices in this call) ---------------
static inline void clforge_operation(const long i, const long $count_name$comma_parameters)
{
$operation;
}

// ---- the loop over indices ----------------------------------------------------------------------
// Visits i = clforge_first + k * clforge_step for k = 0 .. clforge_count - 1. With step 1 (the
// kernel $name) the accesses are contiguous; $strided_name takes any step (a negative one as its
// two's complement).
#define CLFORGE_GRID_STRIDE $grid_stride
#define CLFORGE_BLOCK $block
#define CLFORGE_INTERLEAVE $interleave
#define CLFORGE_VECTOR_WIDTH $vector_width
static inline void clforge_indices(const ulong clforge_first, const ulong clforge_step,
                            const ulong clforge_count$comma_parameters)
{
#if CLFORGE_GRID_STRIDE
  // a fixed number of groups; each work-item strides through the range
  for (ulong clforge_k = get_global_id(0); clforge_k < clforge_count;
       clforge_k += get_global_size(0))
    clforge_operation(clforge_first + clforge_k * clforge_step, clforge_count$comma_arguments);
#elif CLFORGE_BLOCK > 1
  // CLFORGE_BLOCK consecutive indices per work-item: an unrolled block, a guarded tail
  const ulong clforge_k = get_global_id(0) * CLFORGE_BLOCK;
  if (clforge_k + CLFORGE_BLOCK <= clforge_count) {
#pragma unroll
    for (uint clforge_u = 0; clforge_u < CLFORGE_BLOCK; ++clforge_u)
      clforge_operation(clforge_first + (clforge_k + clforge_u) * clforge_step,
                        clforge_count$comma_arguments);
  } else {
    for (ulong clforge_t = clforge_k; clforge_t < clforge_count; ++clforge_t)
      clforge_operation(clforge_first + clforge_t * clforge_step, clforge_count$comma_arguments);
  }
#elif CLFORGE_INTERLEAVE > 1
  // CLFORGE_INTERLEAVE indices per work-item, a group's size apart (each access still
  // coalesced): an unrolled block where the group's whole block is in range, guarded otherwise
  const ulong clforge_local = get_local_size(0);
  const ulong clforge_block = get_group_id(0) * clforge_local * CLFORGE_INTERLEAVE;
  const ulong clforge_k = clforge_block + get_local_id(0);
  if (clforge_block + clforge_local * CLFORGE_INTERLEAVE <= clforge_count) {
#pragma unroll
    for (uint clforge_u = 0; clforge_u < CLFORGE_INTERLEAVE; ++clforge_u)
      clforge_operation(clforge_first + (clforge_k + clforge_u * clforge_local) * clforge_step,
                        clforge_count$comma_arguments);
  } else {
    for (uint clforge_u = 0; clforge_u < CLFORGE_INTERLEAVE; ++clforge_u) {
      const ulong clforge_t = clforge_k + clforge_u * clforge_local;
      if (clforge_t < clforge_count)
        clforge_operation(clforge_first + clforge_t * clforge_step, clforge_count$comma_arguments);
    }
  }
#else
  // one work-item per index
  const ulong clforge_k = get_global_id(0);
  if (clforge_k < clforge_count)
    clforge_operation(clforge_first + clforge_k * clforge_step, clforge_count$comma_arguments);
#endif
}

kernel void $name(const ulong clforge_first, const ulong clforge_count$comma_parameters)
{
  clforge_indices(clforge_first, 1, clforge_count$comma_arguments);
}

kernel void $strided_name(const ulong clforge_first, const ulong clforge_step,
                          const ulong clforge_count$comma_parameters)
{
  clforge_indices(clforge_first, clforge_step, clforge_count$comma_arguments);
}

#if CLFORGE_VECTOR_WIDTH > 1
// ---- the operation on $vector_type vectors: CLFORGE_VECTOR_WIDTH indices from first + k --------
// Used for step-1 calls whose start is a multiple of CLFORGE_VECTOR_WIDTH; each array's name[i]
// is the vector clforge_v_name, loaded before and stored after the operation. The last, partial
// block runs the scalar operation.
kernel void $vector_name(const ulong clforge_first, const ulong clforge_count$comma_parameters)
{
  const ulong clforge_k = get_global_id(0) * CLFORGE_VECTOR_WIDTH;
  if (clforge_k + CLFORGE_VECTOR_WIDTH <= clforge_count) {
    const ulong clforge_base = clforge_first + clforge_k;
$vector_loads
$vector_operation;
$vector_stores
  } else {
    for (ulong clforge_t = clforge_k; clforge_t < clforge_count; ++clforge_t)
      clforge_operation(clforge_first + clforge_t, clforge_count$comma_arguments);
  }
}
#endif
