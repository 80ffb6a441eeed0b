// clforge elementwise kernel "$name" (generated from kernels/elementwise.cl)
// shape: $shape
$extensions
// ---- preamble ---------------------------------------------------------------------------------
$preamble
// ---- the operation, run once for every index i ($count_name indices in this call) ---------------
static inline void clforge_operation(const ulong i, const ulong $count_name$comma_parameters)
{
$operation;
}

// ---- the loop over indices ----------------------------------------------------------------------
// Visits i = clforge_first + k * clforge_step for k = 0 .. clforge_count - 1. With step 1 (the
// kernel $name) the accesses are contiguous; $strided_name takes any step (a negative one as its
// two's complement).
#define CLFORGE_GRID_STRIDE $grid_stride
static inline void clforge_indices(const ulong clforge_first, const ulong clforge_step,
                            const ulong clforge_count$comma_parameters)
{
#if CLFORGE_GRID_STRIDE
  // a fixed number of groups; each work-item strides through the range
  for (ulong clforge_k = get_global_id(0); clforge_k < clforge_count;
       clforge_k += get_global_size(0))
    clforge_operation(clforge_first + clforge_k * clforge_step, clforge_count$comma_arguments);
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
