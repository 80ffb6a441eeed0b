// SPDX-License-Identifier: MIT
// clforge reduction kernel "$name" (generated from kernels/reduction.cl)
// result type: $T    policy: $policy    compensated: $compensated
//
// Plain OpenCL C specialised by the #defines below; placeholders (a dollar sign and a name) are
// the user's snippets, names and types. Stage 1 ($name, $strided_name, $vector_name) reduces a
// chunk per group into partials[group]; stage 2 ($final_name, or with CLFORGE_SINGLE_LAUNCH the
// group that finishes last) reduces the partials.
$extensions
#define CLFORGE_GROUP $group                   // work-items per group
#define CLFORGE_UNROLL $unroll                 // independent loads / accumulators per work-item
#define CLFORGE_KIND_GPU $kind_gpu             // 1: work-items CLFORGE_GROUP apart; 0: slices
#define CLFORGE_COMPENSATED $compensated_flag  // Kahan-compensated sums
#define CLFORGE_VECTOR_WIDTH $vector_width     // elements per vector load (vector_bytes / size)
#define CLFORGE_SINGLE_LAUNCH $single_launch   // 1: one launch, the last group adds the partials
#define CLFORGE_GRID $grid                     // vector stage 1: groups take turns over blocks

// ---- preamble ---------------------------------------------------------------------------------
$preamble
// (the result type may be declared in the preamble)
typedef $T clforge_t;
typedef $vector_type clforge_vector_t;  // CLFORGE_VECTOR_WIDTH elements
// ---- map: the value of index i ($count_name indices in this call) ------------------------------
static inline clforge_t clforge_map(const long i, const long $count_name$comma_parameters)
{
  return ($map);
}

// ---- reduce: combines two values; its neutral element -----------------------------------------
static inline clforge_t clforge_reduce(const clforge_t a, const clforge_t b)
{
  return ($reduce);
}

static inline clforge_t clforge_neutral(void)
{
  return ($neutral);
}
#define CLFORGE_NEUTRAL clforge_neutral()

// ---- sequential accumulation: *s = reduce(*s, v), Kahan-compensated sums when enabled ----------
#if CLFORGE_COMPENSATED
#pragma OPENCL FP_CONTRACT OFF
#define CLFORGE_ZERO ((clforge_t)0)
// Kahan: *c holds the low-order part lost from *s so far; the total is *s - *c.
static inline void clforge_accumulate(clforge_t* s, clforge_t* c, const clforge_t v)
{
  const clforge_t y = v - *c;
  const clforge_t t = *s + y;
  *c = (t - *s) - y;
  *s = t;
}
static inline clforge_t clforge_total(const clforge_t s, const clforge_t c) { return s - c; }
#else
#define CLFORGE_ZERO CLFORGE_NEUTRAL  // unused
static inline void clforge_accumulate(clforge_t* s, clforge_t* c, const clforge_t v) { *s = clforge_reduce(*s, v); }
static inline clforge_t clforge_total(const clforge_t s, const clforge_t c) { return s; }
#endif

// ---- one value per work-item -> one value per group (valid in work-item 0) ---------------------
#if CLFORGE_KIND_GPU
// a tree: log2(CLFORGE_GROUP) steps (kernels/common.cl)
CLFORGE_DEFINE_GROUP_REDUCE(clforge_group_reduce, clforge_t, clforge_reduce, CLFORGE_GROUP)
#else
// one work-item walks the group's values: cheaper than a tree when work-items are loop
// iterations (CPU devices)
static inline clforge_t clforge_group_reduce(local clforge_t* scratch, const clforge_t value)
{
  const uint lid = get_local_id(0);
  scratch[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  clforge_t s = CLFORGE_NEUTRAL, c = CLFORGE_ZERO;
  if (lid == 0)
    for (uint j = 0; j < CLFORGE_GROUP; ++j) clforge_accumulate(&s, &c, scratch[j]);
  return clforge_total(s, c);
}
#endif

// ---- stage 1: group g reduces indices [g * chunk, (g + 1) * chunk) into partials[g] ------------
// index(k) = first + k * step; the kernel $name passes step 1 so its loads are contiguous.
// (Local names carry a clforge_ prefix: the user's parameters are in scope here too.)
static inline void clforge_stage1(const ulong clforge_first, const ulong clforge_step,
                           const ulong clforge_count, const ulong clforge_chunk,
                           global clforge_t* clforge_partials, local clforge_t* clforge_scratch$comma_parameters)
{
  const ulong clforge_lid = get_local_id(0);
  const ulong clforge_group = get_group_id(0);
  const ulong clforge_begin = clforge_group * clforge_chunk;
  const ulong clforge_end = min(clforge_begin + clforge_chunk, clforge_count);
  clforge_t clforge_s = CLFORGE_NEUTRAL, clforge_c = CLFORGE_ZERO;
#define CLFORGE_VALUE(clforge_k_) clforge_map(clforge_first + (clforge_k_) * clforge_step, clforge_count$comma_arguments)
#if CLFORGE_KIND_GPU
  // rounds of CLFORGE_UNROLL independent loads per work-item, CLFORGE_GROUP apart (coalesced)
  const ulong clforge_round = CLFORGE_GROUP * CLFORGE_UNROLL;
  const ulong clforge_full_end =
      clforge_begin + (clforge_end - clforge_begin) / clforge_round * clforge_round;
  ulong clforge_k = clforge_begin + clforge_lid;
  for (; clforge_k < clforge_full_end; clforge_k += clforge_round) {
    clforge_t clforge_v[CLFORGE_UNROLL];
#pragma unroll
    for (uint clforge_u = 0; clforge_u < CLFORGE_UNROLL; ++clforge_u)
      clforge_v[clforge_u] = CLFORGE_VALUE(clforge_k + clforge_u * CLFORGE_GROUP);
#pragma unroll
    for (uint clforge_u = 0; clforge_u < CLFORGE_UNROLL; ++clforge_u)
      clforge_accumulate(&clforge_s, &clforge_c, clforge_v[clforge_u]);
  }
  for (; clforge_k < clforge_end; clforge_k += CLFORGE_GROUP)
    clforge_accumulate(&clforge_s, &clforge_c, CLFORGE_VALUE(clforge_k));
#else
  // CPU shape: work-item lid takes the contiguous slice [lid * part, (lid + 1) * part) of the
  // group's chunk (one work-item per group by default) and keeps CLFORGE_UNROLL independent
  // accumulators, as a hand-written CPU loop does: the compiler's SLP vectorizer turns them into
  // vector registers, where a single accumulator would be one long dependency chain (the
  // compiler may not reassociate float additions). Accumulator u takes indices = u modulo
  // CLFORGE_UNROLL (the chunk and the slice are multiples of CLFORGE_UNROLL, except at the end).
  const ulong clforge_part = clforge_chunk / CLFORGE_GROUP;
  const ulong clforge_from = min(clforge_begin + clforge_lid * clforge_part, clforge_end);
  const ulong clforge_to = min(clforge_from + clforge_part, clforge_end);
  const ulong clforge_full_to =
      clforge_from + (clforge_to - clforge_from) / CLFORGE_UNROLL * CLFORGE_UNROLL;
  clforge_t clforge_as[CLFORGE_UNROLL], clforge_ac[CLFORGE_UNROLL];
#pragma unroll
  for (uint clforge_u = 0; clforge_u < CLFORGE_UNROLL; ++clforge_u) {
    clforge_as[clforge_u] = CLFORGE_NEUTRAL;
    clforge_ac[clforge_u] = CLFORGE_ZERO;
  }
  ulong clforge_k = clforge_from;
  for (; clforge_k < clforge_full_to; clforge_k += CLFORGE_UNROLL) {
#pragma unroll
    for (uint clforge_u = 0; clforge_u < CLFORGE_UNROLL; ++clforge_u)
      clforge_accumulate(&clforge_as[clforge_u], &clforge_ac[clforge_u],
                         CLFORGE_VALUE(clforge_k + clforge_u));
  }
  for (uint clforge_u = 0; clforge_k < clforge_to; ++clforge_k, ++clforge_u)
    clforge_accumulate(&clforge_as[clforge_u], &clforge_ac[clforge_u], CLFORGE_VALUE(clforge_k));
#pragma unroll
  for (uint clforge_u = 0; clforge_u < CLFORGE_UNROLL; ++clforge_u)
    clforge_accumulate(&clforge_s, &clforge_c, clforge_total(clforge_as[clforge_u], clforge_ac[clforge_u]));
#endif
#undef CLFORGE_VALUE
  const clforge_t clforge_result =
      clforge_group_reduce(clforge_scratch, clforge_total(clforge_s, clforge_c));
  if (clforge_lid == 0) clforge_partials[clforge_group] = clforge_result;
}

#if CLFORGE_SINGLE_LAUNCH
// ---- one launch: the group that finishes last reduces the partials into result[0] -------------
// Each group publishes its partial, then counts itself in; the last one (it sees count - 1)
// reads every partial and resets the counter for the next call.
static inline void clforge_finish(global clforge_t* clforge_partials, global volatile uint* clforge_counter,
                                  global clforge_t* clforge_result, local clforge_t* clforge_scratch,
                                  local uint* clforge_last)
{
  const uint clforge_lid = get_local_id(0);
  const uint clforge_groups = get_num_groups(0);
  if (clforge_lid == 0) {
    mem_fence(CLK_GLOBAL_MEM_FENCE);  // the partial is visible before the count
    clforge_last[0] = atomic_inc(clforge_counter) == clforge_groups - 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!clforge_last[0]) return;
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  clforge_t clforge_s = CLFORGE_NEUTRAL, clforge_c = CLFORGE_ZERO;
  for (uint clforge_k = clforge_lid; clforge_k < clforge_groups; clforge_k += CLFORGE_GROUP)
    clforge_accumulate(&clforge_s, &clforge_c, ((volatile global clforge_t*)clforge_partials)[clforge_k]);
  const clforge_t clforge_total_value =
      clforge_group_reduce(clforge_scratch, clforge_total(clforge_s, clforge_c));
  if (clforge_lid == 0) {
    clforge_result[0] = clforge_total_value;
    *clforge_counter = 0;
  }
}
#define CLFORGE_FINISH(clforge_scratch) \
  local uint clforge_last[1]; \
  barrier(CLK_LOCAL_MEM_FENCE); \
  clforge_finish(clforge_partials, clforge_counter, clforge_result, clforge_scratch, clforge_last)
#else
#define CLFORGE_FINISH(clforge_scratch)
#endif

kernel __attribute__((reqd_work_group_size(CLFORGE_GROUP, 1, 1)))
void $name(const ulong clforge_first, const ulong clforge_count, const ulong clforge_chunk,
           global clforge_t* clforge_partials$single_parameters$comma_parameters)
{
  local clforge_t clforge_scratch[CLFORGE_GROUP];
  clforge_stage1(clforge_first, 1, clforge_count, clforge_chunk, clforge_partials,
                 clforge_scratch$comma_arguments);
  CLFORGE_FINISH(clforge_scratch);
}

kernel __attribute__((reqd_work_group_size(CLFORGE_GROUP, 1, 1)))
void $strided_name(const ulong clforge_first, const ulong clforge_step, const ulong clforge_count,
                   const ulong clforge_chunk, global clforge_t* clforge_partials$comma_parameters)
{
  local clforge_t clforge_scratch[CLFORGE_GROUP];
  clforge_stage1(clforge_first, clforge_step, clforge_count, clforge_chunk, clforge_partials,
                 clforge_scratch$comma_arguments);
}

#if CLFORGE_VECTOR_WIDTH > 1
// ---- stage 1 with vector loads: the map reads its arrays only at index i ---------------------
// $vector_name runs when the range has step 1 and starts at a multiple of CLFORGE_VECTOR_WIDTH: group g reads
// its chunk (a multiple of CLFORGE_GROUP * CLFORGE_UNROLL * CLFORGE_VECTOR_WIDTH elements) as vectors,
// CLFORGE_UNROLL independent coalesced loads of each array in flight per work-item.
$vector_map
static inline void clforge_accumulate_vector(clforge_t* s, clforge_t* c, const clforge_vector_t v)
{
#if CLFORGE_COMPENSATED
  clforge_t clforge_parts[CLFORGE_VECTOR_WIDTH];
  CLFORGE_VSTORE(CLFORGE_VECTOR_WIDTH)(v, 0, clforge_parts);
  for (uint j = 0; j < CLFORGE_VECTOR_WIDTH; ++j) clforge_accumulate(s, c, clforge_parts[j]);
#else
  clforge_accumulate(s, c, $vector_reduce);
#endif
}

// CLFORGE_UNROLL vectors CLFORGE_GROUP apart from vector `from`: all loads first (in flight at
// once), then the additions.
static inline void clforge_accumulate_round(clforge_t* clforge_s, clforge_t* clforge_c, const ulong clforge_from,
                                            const ulong clforge_base, const long $count_name$comma_parameters)
{
  clforge_vector_t clforge_v[CLFORGE_UNROLL];
#pragma unroll
  for (uint clforge_u = 0; clforge_u < CLFORGE_UNROLL; ++clforge_u)
    clforge_v[clforge_u] = clforge_map_vector(clforge_from + clforge_u * CLFORGE_GROUP,
                                              clforge_base, $count_name$comma_arguments);
#pragma unroll
  for (uint clforge_u = 0; clforge_u < CLFORGE_UNROLL; ++clforge_u)
    clforge_accumulate_vector(clforge_s, clforge_c, clforge_v[clforge_u]);
}

kernel __attribute__((reqd_work_group_size(CLFORGE_GROUP, 1, 1)))
void $vector_name(const ulong clforge_first, const ulong clforge_count, const ulong clforge_chunk,
               global clforge_t* clforge_partials$single_parameters$comma_parameters)
{
  local clforge_t clforge_scratch[CLFORGE_GROUP];
  const ulong clforge_lid = get_local_id(0);
  const ulong clforge_group = get_group_id(0);
  clforge_t clforge_s = CLFORGE_NEUTRAL, clforge_c = CLFORGE_ZERO;
#if CLFORGE_GRID
  // grid=1: blocks of CLFORGE_GROUP * CLFORGE_UNROLL vectors; group g takes blocks g, g + groups,
  // ... (clforge_chunk is unused), then the vectors after the last whole block and the last
  // elements, fewer than CLFORGE_VECTOR_WIDTH, go round the work-items of all groups.
  const ulong clforge_groups = get_num_groups(0);
  const ulong clforge_nv = clforge_count / CLFORGE_VECTOR_WIDTH;
  const ulong clforge_block = CLFORGE_GROUP * CLFORGE_UNROLL;
  const ulong clforge_blocks = clforge_nv / clforge_block;
  for (ulong clforge_b = clforge_group; clforge_b < clforge_blocks; clforge_b += clforge_groups) {
    const ulong clforge_k = clforge_b * clforge_block + clforge_lid;
    clforge_accumulate_round(&clforge_s, &clforge_c, clforge_k, clforge_first, clforge_count$comma_arguments);
  }
  const ulong clforge_gid = clforge_group * CLFORGE_GROUP + clforge_lid;
  for (ulong clforge_k = clforge_blocks * clforge_block + clforge_gid; clforge_k < clforge_nv;
       clforge_k += clforge_groups * CLFORGE_GROUP)
    clforge_accumulate_vector(&clforge_s, &clforge_c,
                              clforge_map_vector(clforge_k, clforge_first, clforge_count$comma_arguments));
  for (ulong clforge_t = clforge_nv * CLFORGE_VECTOR_WIDTH + clforge_gid; clforge_t < clforge_count;
       clforge_t += clforge_groups * CLFORGE_GROUP)
    clforge_accumulate(&clforge_s, &clforge_c,
                       clforge_map(clforge_first + clforge_t, clforge_count$comma_arguments));
#else
  const ulong clforge_begin = clforge_group * clforge_chunk;
  const ulong clforge_end = min(clforge_begin + clforge_chunk, clforge_count);
  const ulong clforge_base = clforge_first + clforge_begin;
  const ulong clforge_nv = (clforge_end - clforge_begin) / CLFORGE_VECTOR_WIDTH;
  const ulong clforge_round = CLFORGE_GROUP * CLFORGE_UNROLL;
  const ulong clforge_full = clforge_nv / clforge_round * clforge_round;
  ulong clforge_k = clforge_lid;
  for (; clforge_k < clforge_full; clforge_k += clforge_round) {
    clforge_accumulate_round(&clforge_s, &clforge_c, clforge_k, clforge_base, clforge_count$comma_arguments);
  }
  for (; clforge_k < clforge_nv; clforge_k += CLFORGE_GROUP)
    clforge_accumulate_vector(&clforge_s, &clforge_c,
                              clforge_map_vector(clforge_k, clforge_base, clforge_count$comma_arguments));
  // the last elements, fewer than CLFORGE_VECTOR_WIDTH (last group only)
  for (ulong clforge_t = clforge_begin + clforge_nv * CLFORGE_VECTOR_WIDTH + clforge_lid;
       clforge_t < clforge_end; clforge_t += CLFORGE_GROUP)
    clforge_accumulate(&clforge_s, &clforge_c,
                       clforge_map(clforge_first + clforge_t, clforge_count$comma_arguments));
#endif
  const clforge_t clforge_group_value =
      clforge_group_reduce(clforge_scratch, clforge_total(clforge_s, clforge_c));
  if (clforge_lid == 0) clforge_partials[clforge_group] = clforge_group_value;
  CLFORGE_FINISH(clforge_scratch);
}
#endif

// ---- stage 2: one group reduces the partials into result[0] ------------------------------------
kernel __attribute__((reqd_work_group_size(CLFORGE_GROUP, 1, 1)))
void $final_name(const ulong clforge_count, global const clforge_t* clforge_partials,
                 global clforge_t* clforge_result)
{
  local clforge_t scratch[CLFORGE_GROUP];
  clforge_t s = CLFORGE_NEUTRAL, c = CLFORGE_ZERO;
  ulong k = get_local_id(0);
  // rounds of CLFORGE_UNROLL independent loads, then the rest
  for (; k + (CLFORGE_UNROLL - 1) * CLFORGE_GROUP < clforge_count; k += CLFORGE_GROUP * CLFORGE_UNROLL) {
    clforge_t v[CLFORGE_UNROLL];
#pragma unroll
    for (uint u = 0; u < CLFORGE_UNROLL; ++u) v[u] = clforge_partials[k + u * CLFORGE_GROUP];
#pragma unroll
    for (uint u = 0; u < CLFORGE_UNROLL; ++u) clforge_accumulate(&s, &c, v[u]);
  }
  for (; k < clforge_count; k += CLFORGE_GROUP) clforge_accumulate(&s, &c, clforge_partials[k]);
  const clforge_t total = clforge_group_reduce(scratch, clforge_total(s, c));
  if (get_local_id(0) == 0) clforge_result[0] = total;
}
