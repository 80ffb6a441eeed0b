// SPDX-License-Identifier: MIT
// clforge op::par_loop: the wrapper around the user's element function "$function" (generated
// by lib/algorithms/op.cpp). For each element it gathers every argument's values into private
// arrays, calls the function with pointers to them, and writes back what the access mode says.
//
// Specialised by #defines the host puts in front:
//   CLFORGE_PLAN      0 (flat): the elements first + p in order (direct loops, atomics);
//                     1 (colour): the elements first + order[order_offset + p] of one colour;
//                     2 (block): the units order[order_offset + group] of one colour, a unit
//                        being CLFORGE_GROUP * CLFORGE_BLOCK consecutive elements
//   CLFORGE_GROUP     work-items per group (a power of two)
//   CLFORGE_BLOCK     elements per work-item, CLFORGE_GROUP apart (a group runs GROUP * BLOCK)
//   CLFORGE_THREAD_COLOURS  block plan, GROUP > 1: elements of a unit that share a target run in
//                     turns, by their thread colour, with a barrier between turns
//   CLFORGE_SPLIT     (with THREAD_COLOURS and BLOCK 1) only INC, MIN and MAX through maps: every
//                     work-item computes at once, then writes back in turns
//   CLFORGE_OP_ARGUMENTS(ARG)  every argument, as ARG(k, T, DIM, KIND, MODE, MAP, INDEX, ARITY,
//                     ATOMIC): KIND DIRECT, INDIRECT, ALL or GLOBAL; MODE READ, WRITE, RW, INC,
//                     MIN or MAX; MAP the number of its map parameter; ATOMIC 1 where it writes
//                     through its map with atomics
//   CLFORGE_OP_MAPS(MAP)  every map parameter, as MAP(j)
//   CLFORGE_OP_ATOMICS, CLFORGE_OP_ATOMICS_64  the 32-bit and 64-bit atomics in use
// The finishing kernel combines what the groups reduced into each global argument.
//
// Arguments of both kernels: the maps, per argument its values (and for a global, its partials),
// then the range (first element, count), the plan's arrays and where this launch's groups put
// their partial reductions (the finishing kernel: how many partials there are).
#pragma OPENCL FP_CONTRACT OFF
$user_code
// The user's function is defined: its macros can no longer change it, and the names the argument
// lists below use must mean themselves.
#undef DIRECT
#undef INDIRECT
#undef ALL
#undef GLOBAL
#undef READ
#undef WRITE
#undef RW
#undef INC
#undef MIN
#undef MAX

#define CLFORGE_UNIT (CLFORGE_GROUP * CLFORGE_BLOCK)
#define CLFORGE_NONE 0xffffffffu

// ---- combining values --------------------------------------------------------------------------
// The smaller and the larger, like fmin and fmax: a NaN loses to any number.
#define CLFORGE_OP_LESSER(a, b) (((b) < (a) || (a) != (a)) ? (b) : (a))
#define CLFORGE_OP_GREATER(a, b) (((b) > (a) || (a) != (a)) ? (b) : (a))
#define CLFORGE_OP_PLUS(a, b) ((a) + (b))

#if CLFORGE_OP_ATOMICS
// Atomics on global memory. 32-bit integers natively; float as a compare-and-swap loop on its
// bits (OpenCL 1.2 has no float atomics).
static inline void clforge_atomic_add_int(global int* p, const int x) { atomic_add(p, x); }
static inline void clforge_atomic_add_uint(global uint* p, const uint x) { atomic_add(p, x); }
static inline void clforge_atomic_min_int(global int* p, const int x) { atomic_min(p, x); }
static inline void clforge_atomic_min_uint(global uint* p, const uint x) { atomic_min(p, x); }
static inline void clforge_atomic_max_int(global int* p, const int x) { atomic_max(p, x); }
static inline void clforge_atomic_max_uint(global uint* p, const uint x) { atomic_max(p, x); }
#define CLFORGE_FLOAT_CAS(name, COMBINE)                                                 \
  static inline void name(global float* p, const float x) {                             \
    volatile global uint* clforge_q = (volatile global uint*)p;                         \
    uint clforge_old = *clforge_q, clforge_seen;                                        \
    do {                                                                                \
      clforge_seen = clforge_old;                                                       \
      const uint clforge_new = as_uint(COMBINE(as_float(clforge_seen), x));             \
      if (clforge_new == clforge_seen) return;                                          \
      clforge_old = atomic_cmpxchg(clforge_q, clforge_seen, clforge_new);               \
    } while (clforge_old != clforge_seen);                                              \
  }
CLFORGE_FLOAT_CAS(clforge_atomic_add_float, CLFORGE_OP_PLUS)
CLFORGE_FLOAT_CAS(clforge_atomic_min_float, CLFORGE_OP_LESSER)
CLFORGE_FLOAT_CAS(clforge_atomic_max_float, CLFORGE_OP_GREATER)
#endif

#if CLFORGE_OP_ATOMICS_64
// 64-bit integers through cl_khr_int64_base_atomics and _extended_atomics, double as a
// compare-and-swap loop on its bits.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
static inline void clforge_atomic_add_long(global long* p, const long x) { atom_add(p, x); }
static inline void clforge_atomic_add_ulong(global ulong* p, const ulong x) { atom_add(p, x); }
static inline void clforge_atomic_min_long(global long* p, const long x) { atom_min(p, x); }
static inline void clforge_atomic_min_ulong(global ulong* p, const ulong x) { atom_min(p, x); }
static inline void clforge_atomic_max_long(global long* p, const long x) { atom_max(p, x); }
static inline void clforge_atomic_max_ulong(global ulong* p, const ulong x) { atom_max(p, x); }
#ifdef CLFORGE_OP_DOUBLE
#define CLFORGE_DOUBLE_CAS(name, COMBINE)                                                \
  static inline void name(global double* p, const double x) {                           \
    volatile global ulong* clforge_q = (volatile global ulong*)p;                       \
    ulong clforge_old = *clforge_q, clforge_seen;                                       \
    do {                                                                                \
      clforge_seen = clforge_old;                                                       \
      const ulong clforge_new = as_ulong(COMBINE(as_double(clforge_seen), x));          \
      if (clforge_new == clforge_seen) return;                                          \
      clforge_old = atom_cmpxchg(clforge_q, clforge_seen, clforge_new);                 \
    } while (clforge_old != clforge_seen);                                              \
  }
CLFORGE_DOUBLE_CAS(clforge_atomic_add_double, CLFORGE_OP_PLUS)
CLFORGE_DOUBLE_CAS(clforge_atomic_min_double, CLFORGE_OP_LESSER)
CLFORGE_DOUBLE_CAS(clforge_atomic_max_double, CLFORGE_OP_GREATER)
#endif
#endif

// Writing one value back: ATOMIC 0 plainly, 1 with an atomic.
#define CLFORGE_OP_ADD_0(T, p, x) *(p) += (x)
#define CLFORGE_OP_ADD_1(T, p, x) CLFORGE_CAT(clforge_atomic_add_, T)((p), (x))
#define CLFORGE_OP_MIN_0(T, p, x) *(p) = CLFORGE_OP_LESSER(*(p), (x))
#define CLFORGE_OP_MIN_1(T, p, x) CLFORGE_CAT(clforge_atomic_min_, T)((p), (x))
#define CLFORGE_OP_MAX_0(T, p, x) *(p) = CLFORGE_OP_GREATER(*(p), (x))
#define CLFORGE_OP_MAX_1(T, p, x) CLFORGE_CAT(clforge_atomic_max_, T)((p), (x))

// ---- per argument ------------------------------------------------------------------------------
// The kernel parameters (each ends in a comma).
#define CLFORGE_OP_MAP_PARAM(j) global const int* clforge_m##j,
#define CLFORGE_OP_PARAM(k, T, DIM, KIND, MODE, MAP, INDEX, ARITY, ATOMIC) \
  CLFORGE_OP_PARAM_##KIND(k, T)
#define CLFORGE_OP_PARAM_DIRECT(k, T) global T* clforge_d##k,
#define CLFORGE_OP_PARAM_INDIRECT(k, T) global T* clforge_d##k,
#define CLFORGE_OP_PARAM_ALL(k, T) global T* clforge_d##k,
#define CLFORGE_OP_PARAM_GLOBAL(k, T) global T* clforge_d##k, global T* clforge_p##k,

// Loading an argument's values into its private copy, by mode.
#define CLFORGE_OP_LOAD_READ(v, at, DIM) \
  for (uint clforge_j = 0; clforge_j < (DIM); ++clforge_j) (v)[clforge_j] = (at)[clforge_j];
#define CLFORGE_OP_LOAD_RW(v, at, DIM) CLFORGE_OP_LOAD_READ(v, at, DIM)
#define CLFORGE_OP_LOAD_MIN(v, at, DIM) CLFORGE_OP_LOAD_READ(v, at, DIM)
#define CLFORGE_OP_LOAD_MAX(v, at, DIM) CLFORGE_OP_LOAD_READ(v, at, DIM)
#define CLFORGE_OP_LOAD_WRITE(v, at, DIM) \
  for (uint clforge_j = 0; clforge_j < (DIM); ++clforge_j) (v)[clforge_j] = 0;
#define CLFORGE_OP_LOAD_INC(v, at, DIM) CLFORGE_OP_LOAD_WRITE(v, at, DIM)

// Writing the private copy back, by mode.
#define CLFORGE_OP_STORE_READ(T, v, at, DIM, ATOMIC)
#define CLFORGE_OP_STORE_WRITE(T, v, at, DIM, ATOMIC) \
  for (uint clforge_j = 0; clforge_j < (DIM); ++clforge_j) (at)[clforge_j] = (v)[clforge_j];
#define CLFORGE_OP_STORE_RW(T, v, at, DIM, ATOMIC) CLFORGE_OP_STORE_WRITE(T, v, at, DIM, ATOMIC)
#define CLFORGE_OP_STORE_INC(T, v, at, DIM, ATOMIC)          \
  for (uint clforge_j = 0; clforge_j < (DIM); ++clforge_j) \
    CLFORGE_OP_ADD_##ATOMIC(T, (at) + clforge_j, (v)[clforge_j]);
#define CLFORGE_OP_STORE_MIN(T, v, at, DIM, ATOMIC)          \
  for (uint clforge_j = 0; clforge_j < (DIM); ++clforge_j) \
    CLFORGE_OP_MIN_##ATOMIC(T, (at) + clforge_j, (v)[clforge_j]);
#define CLFORGE_OP_STORE_MAX(T, v, at, DIM, ATOMIC)          \
  for (uint clforge_j = 0; clforge_j < (DIM); ++clforge_j) \
    CLFORGE_OP_MAX_##ATOMIC(T, (at) + clforge_j, (v)[clforge_j]);

// Per element e (clforge_e): the private copy clforge_v<k> and where it came from.
#define CLFORGE_OP_GATHER(k, T, DIM, KIND, MODE, MAP, INDEX, ARITY, ATOMIC) \
  CLFORGE_OP_GATHER_##KIND(k, T, DIM, MODE, MAP, INDEX, ARITY)
#define CLFORGE_OP_GATHER_GLOBAL(k, T, DIM, MODE, MAP, INDEX, ARITY) \
  CLFORGE_OP_GATHER_GLOBAL_##MODE(k, T, DIM)
#define CLFORGE_OP_GATHER_GLOBAL_READ(k, T, DIM)
#define CLFORGE_OP_GATHER_GLOBAL_MIN(k, T, DIM)
#define CLFORGE_OP_GATHER_GLOBAL_MAX(k, T, DIM)
// INC: each element adds into a zero copy of its own, which joins the work-item's sum after the
// call (the element's additions then do not wait for the previous element's).
#define CLFORGE_OP_GATHER_GLOBAL_INC(k, T, DIM) \
  T clforge_v##k[DIM];                          \
  CLFORGE_OP_LOAD_INC(clforge_v##k, clforge_d##k, DIM)
#define CLFORGE_OP_GATHER_DIRECT(k, T, DIM, MODE, MAP, INDEX, ARITY) \
  T clforge_v##k[DIM];                                               \
  global T* const clforge_at##k = clforge_d##k + clforge_e * (DIM); \
  CLFORGE_OP_LOAD_##MODE(clforge_v##k, clforge_at##k, DIM)
#define CLFORGE_OP_GATHER_INDIRECT(k, T, DIM, MODE, MAP, INDEX, ARITY)                       \
  T clforge_v##k[DIM];                                                                        \
  global T* const clforge_at##k =                                                             \
      clforge_d##k + (ulong)clforge_m##MAP[clforge_e * (ARITY) + (INDEX)] * (DIM);            \
  CLFORGE_OP_LOAD_##MODE(clforge_v##k, clforge_at##k, DIM)
#define CLFORGE_OP_GATHER_ALL(k, T, DIM, MODE, MAP, INDEX, ARITY)                             \
  T clforge_v##k[(ARITY) * (DIM)];                                                            \
  ulong clforge_at##k[ARITY];                                                                 \
  for (uint clforge_a = 0; clforge_a < (ARITY); ++clforge_a) {                                \
    clforge_at##k[clforge_a] = (ulong)clforge_m##MAP[clforge_e * (ARITY) + clforge_a] * (DIM); \
    CLFORGE_OP_LOAD_##MODE(clforge_v##k + clforge_a * (DIM),                                  \
                           clforge_d##k + clforge_at##k[clforge_a], DIM)                      \
  }

#define CLFORGE_OP_SCATTER(k, T, DIM, KIND, MODE, MAP, INDEX, ARITY, ATOMIC) \
  CLFORGE_OP_SCATTER_##KIND(k, T, DIM, MODE, ARITY, ATOMIC)
#define CLFORGE_OP_SCATTER_GLOBAL(k, T, DIM, MODE, ARITY, ATOMIC) \
  CLFORGE_OP_SCATTER_GLOBAL_##MODE(k, T, DIM)
#define CLFORGE_OP_SCATTER_GLOBAL_READ(k, T, DIM)
#define CLFORGE_OP_SCATTER_GLOBAL_MIN(k, T, DIM)
#define CLFORGE_OP_SCATTER_GLOBAL_MAX(k, T, DIM)
#define CLFORGE_OP_SCATTER_GLOBAL_INC(k, T, DIM)              \
  for (uint clforge_j = 0; clforge_j < (DIM); ++clforge_j) \
    clforge_sum##k[clforge_j] += clforge_v##k[clforge_j];
#define CLFORGE_OP_SCATTER_DIRECT(k, T, DIM, MODE, ARITY, ATOMIC) \
  CLFORGE_OP_STORE_##MODE(T, clforge_v##k, clforge_at##k, DIM, 0)
#define CLFORGE_OP_SCATTER_INDIRECT(k, T, DIM, MODE, ARITY, ATOMIC) \
  CLFORGE_OP_STORE_##MODE(T, clforge_v##k, clforge_at##k, DIM, ATOMIC)
#define CLFORGE_OP_SCATTER_ALL(k, T, DIM, MODE, ARITY, ATOMIC)                                   \
  for (uint clforge_a = 0; clforge_a < (ARITY); ++clforge_a) {                                   \
    CLFORGE_OP_STORE_##MODE(T, clforge_v##k + clforge_a * (DIM),                                 \
                            clforge_d##k + clforge_at##k[clforge_a], DIM, ATOMIC)                \
  }

// Globals: a work-item's copy lives across its elements. READ holds the values, INC's sum starts
// at zero, MIN and MAX at the global's value (which leaves it as it is when combined back).
#define CLFORGE_OP_INIT(k, T, DIM, KIND, MODE, MAP, INDEX, ARITY, ATOMIC) \
  CLFORGE_OP_INIT_##KIND(k, T, DIM, MODE)
#define CLFORGE_OP_INIT_DIRECT(k, T, DIM, MODE)
#define CLFORGE_OP_INIT_INDIRECT(k, T, DIM, MODE)
#define CLFORGE_OP_INIT_ALL(k, T, DIM, MODE)
#define CLFORGE_OP_INIT_GLOBAL(k, T, DIM, MODE) CLFORGE_OP_INIT_GLOBAL_##MODE(k, T, DIM)
#define CLFORGE_OP_INIT_GLOBAL_READ(k, T, DIM) \
  T clforge_v##k[DIM];                         \
  CLFORGE_OP_LOAD_READ(clforge_v##k, clforge_d##k, DIM)
#define CLFORGE_OP_INIT_GLOBAL_MIN(k, T, DIM) CLFORGE_OP_INIT_GLOBAL_READ(k, T, DIM)
#define CLFORGE_OP_INIT_GLOBAL_MAX(k, T, DIM) CLFORGE_OP_INIT_GLOBAL_READ(k, T, DIM)
#define CLFORGE_OP_INIT_GLOBAL_INC(k, T, DIM) \
  T clforge_sum##k[DIM];                      \
  CLFORGE_OP_LOAD_INC(clforge_sum##k, clforge_d##k, DIM)

// The combining function of a reduced global, for a work-group reduce (common.cl).
#define CLFORGE_OP_COMBINE_INC CLFORGE_OP_PLUS
#define CLFORGE_OP_COMBINE_MIN CLFORGE_OP_LESSER
#define CLFORGE_OP_COMBINE_MAX CLFORGE_OP_GREATER
#define CLFORGE_OP_REDUCER(k, T, DIM, KIND, MODE, MAP, INDEX, ARITY, ATOMIC) \
  CLFORGE_OP_REDUCER_##KIND(k, T, MODE)
#define CLFORGE_OP_REDUCER_DIRECT(k, T, MODE)
#define CLFORGE_OP_REDUCER_INDIRECT(k, T, MODE)
#define CLFORGE_OP_REDUCER_ALL(k, T, MODE)
#define CLFORGE_OP_REDUCER_GLOBAL(k, T, MODE) CLFORGE_OP_REDUCER_GLOBAL_##MODE(k, T)
#define CLFORGE_OP_REDUCER_GLOBAL_READ(k, T)
#define CLFORGE_OP_REDUCER_GLOBAL_INC(k, T) \
  CLFORGE_DEFINE_GROUP_REDUCE(clforge_reduce_##k, T, CLFORGE_OP_PLUS, CLFORGE_GROUP)
#define CLFORGE_OP_REDUCER_GLOBAL_MIN(k, T) \
  CLFORGE_DEFINE_GROUP_REDUCE(clforge_reduce_##k, T, CLFORGE_OP_LESSER, CLFORGE_GROUP)
#define CLFORGE_OP_REDUCER_GLOBAL_MAX(k, T) \
  CLFORGE_DEFINE_GROUP_REDUCE(clforge_reduce_##k, T, CLFORGE_OP_GREATER, CLFORGE_GROUP)
CLFORGE_OP_ARGUMENTS(CLFORGE_OP_REDUCER)

// The group's scratch for each reduced global (local memory at kernel scope).
#define CLFORGE_OP_SCRATCH(k, T, DIM, KIND, MODE, MAP, INDEX, ARITY, ATOMIC) \
  CLFORGE_OP_SCRATCH_##KIND(k, T, MODE)
#define CLFORGE_OP_SCRATCH_DIRECT(k, T, MODE)
#define CLFORGE_OP_SCRATCH_INDIRECT(k, T, MODE)
#define CLFORGE_OP_SCRATCH_ALL(k, T, MODE)
#define CLFORGE_OP_SCRATCH_GLOBAL(k, T, MODE) CLFORGE_OP_SCRATCH_GLOBAL_##MODE(k, T)
#define CLFORGE_OP_SCRATCH_GLOBAL_READ(k, T)
#define CLFORGE_OP_SCRATCH_GLOBAL_INC(k, T) local T clforge_s##k[CLFORGE_GROUP];
#define CLFORGE_OP_SCRATCH_GLOBAL_MIN(k, T) local T clforge_s##k[CLFORGE_GROUP];
#define CLFORGE_OP_SCRATCH_GLOBAL_MAX(k, T) local T clforge_s##k[CLFORGE_GROUP];

// At the end of the main kernel: the group's reduction of each reduced global, one partial per
// group and value.
#define CLFORGE_OP_REDUCE(k, T, DIM, KIND, MODE, MAP, INDEX, ARITY, ATOMIC) \
  CLFORGE_OP_REDUCE_##KIND(k, T, DIM, MODE)
#define CLFORGE_OP_REDUCE_DIRECT(k, T, DIM, MODE)
#define CLFORGE_OP_REDUCE_INDIRECT(k, T, DIM, MODE)
#define CLFORGE_OP_REDUCE_ALL(k, T, DIM, MODE)
#define CLFORGE_OP_REDUCE_GLOBAL(k, T, DIM, MODE) CLFORGE_OP_REDUCE_GLOBAL_##MODE(k, T, DIM)
#define CLFORGE_OP_REDUCE_GLOBAL_READ(k, T, DIM)
#define CLFORGE_OP_REDUCE_PARTIAL(k, T, DIM, V)                                              \
  for (uint clforge_j = 0; clforge_j < (DIM); ++clforge_j) {                                 \
    const T clforge_r = clforge_reduce_##k(clforge_s##k, V##k[clforge_j]);                   \
    if (get_local_id(0) == 0)                                                                \
      clforge_p##k[(clforge_partial_base + get_group_id(0)) * (DIM) + clforge_j] = clforge_r; \
    barrier(CLK_LOCAL_MEM_FENCE);                                                            \
  }
#define CLFORGE_OP_REDUCE_GLOBAL_INC(k, T, DIM) CLFORGE_OP_REDUCE_PARTIAL(k, T, DIM, clforge_sum)
#define CLFORGE_OP_REDUCE_GLOBAL_MIN(k, T, DIM) CLFORGE_OP_REDUCE_PARTIAL(k, T, DIM, clforge_v)
#define CLFORGE_OP_REDUCE_GLOBAL_MAX(k, T, DIM) CLFORGE_OP_REDUCE_PARTIAL(k, T, DIM, clforge_v)

// The finishing kernel: the partials of every group combined into the global's values.
#define CLFORGE_OP_FINISH(k, T, DIM, KIND, MODE, MAP, INDEX, ARITY, ATOMIC) \
  CLFORGE_OP_FINISH_##KIND(k, T, DIM, MODE)
#define CLFORGE_OP_FINISH_DIRECT(k, T, DIM, MODE)
#define CLFORGE_OP_FINISH_INDIRECT(k, T, DIM, MODE)
#define CLFORGE_OP_FINISH_ALL(k, T, DIM, MODE)
#define CLFORGE_OP_FINISH_GLOBAL(k, T, DIM, MODE) CLFORGE_OP_FINISH_GLOBAL_##MODE(k, T, DIM)
#define CLFORGE_OP_FINISH_GLOBAL_READ(k, T, DIM)
// INC: the partials' sum added to the value; MIN, MAX: the value combined with the partials.
#define CLFORGE_OP_FINISH_PARTIALS(k, T, DIM, COMBINE, START)                                  \
  for (uint clforge_j = 0; clforge_j < (DIM); ++clforge_j) {                                   \
    T clforge_r = START;                                                                       \
    for (ulong clforge_q = get_local_id(0); clforge_q < clforge_partials;                      \
         clforge_q += CLFORGE_GROUP)                                                           \
      clforge_r = COMBINE(clforge_r, clforge_p##k[clforge_q * (DIM) + clforge_j]);             \
    clforge_r = clforge_reduce_##k(clforge_s##k, clforge_r);                                   \
    if (get_local_id(0) == 0) clforge_d##k[clforge_j] = COMBINE(clforge_d##k[clforge_j], clforge_r); \
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);                                       \
  }
#define CLFORGE_OP_FINISH_GLOBAL_INC(k, T, DIM) \
  CLFORGE_OP_FINISH_PARTIALS(k, T, DIM, CLFORGE_OP_PLUS, (T)0)
#define CLFORGE_OP_FINISH_GLOBAL_MIN(k, T, DIM) \
  CLFORGE_OP_FINISH_PARTIALS(k, T, DIM, CLFORGE_OP_LESSER, clforge_d##k[clforge_j])
#define CLFORGE_OP_FINISH_GLOBAL_MAX(k, T, DIM) \
  CLFORGE_OP_FINISH_PARTIALS(k, T, DIM, CLFORGE_OP_GREATER, clforge_d##k[clforge_j])

// One element: gather, the user's function, write back.
#define CLFORGE_OP_ELEMENT                       \
  {                                              \
    CLFORGE_OP_ARGUMENTS(CLFORGE_OP_GATHER)      \
    $function($call);                            \
    CLFORGE_OP_ARGUMENTS(CLFORGE_OP_SCATTER)     \
  }

// The maps and arguments first (each parameter ends in a comma), then the range and the plan.
#define CLFORGE_OP_PARAMETERS                                                              \
  CLFORGE_OP_MAPS(CLFORGE_OP_MAP_PARAM)                                                    \
  CLFORGE_OP_ARGUMENTS(CLFORGE_OP_PARAM) const ulong clforge_first, const ulong clforge_count, \
      global const uint *clforge_order, const ulong clforge_order_offset,                  \
      global const uint *clforge_thread_colour, global const uint *clforge_unit_colours,   \
      const ulong clforge_partial_base

__attribute__((reqd_work_group_size(CLFORGE_GROUP, 1, 1)))
kernel void $name(CLFORGE_OP_PARAMETERS) {
  CLFORGE_OP_ARGUMENTS(CLFORGE_OP_SCRATCH)
  CLFORGE_OP_ARGUMENTS(CLFORGE_OP_INIT)
  const uint clforge_lid = get_local_id(0);
#if CLFORGE_PLAN == 2
  // The unit this group runs; positions count from the range's first element.
  const ulong clforge_unit = clforge_order[clforge_order_offset + get_group_id(0)];
#else
  const ulong clforge_unit = get_group_id(0);
#endif
  const ulong clforge_base = clforge_unit * CLFORGE_UNIT;
#if CLFORGE_THREAD_COLOURS
  const uint clforge_colours = clforge_unit_colours[clforge_unit];
#if CLFORGE_SPLIT
  {
    // BLOCK 1: one element per work-item, computed by all at once, written back in turns.
    const ulong clforge_position = clforge_base + clforge_lid;
    const bool clforge_valid = clforge_position < clforge_count;
    // A work-item past the end gathers from the unit's first element and calls nothing.
    const ulong clforge_e = clforge_first + (clforge_valid ? clforge_position : clforge_base);
    const uint clforge_mine =
        clforge_valid ? clforge_thread_colour[clforge_position] : CLFORGE_NONE;
    CLFORGE_OP_ARGUMENTS(CLFORGE_OP_GATHER)
    if (clforge_valid) $function($call);
    for (uint clforge_c = 0; clforge_c < clforge_colours; ++clforge_c) {
      if (clforge_mine == clforge_c) {
        CLFORGE_OP_ARGUMENTS(CLFORGE_OP_SCATTER)
      }
      barrier(CLK_GLOBAL_MEM_FENCE);
    }
  }
#else
  // Elements that share a target run in different turns, a barrier apart.
  for (uint clforge_c = 0; clforge_c < clforge_colours; ++clforge_c) {
    for (uint clforge_k = 0; clforge_k < CLFORGE_BLOCK; ++clforge_k) {
      const ulong clforge_position = clforge_base + clforge_k * CLFORGE_GROUP + clforge_lid;
      if (clforge_position < clforge_count &&
          clforge_thread_colour[clforge_position] == clforge_c) {
        const ulong clforge_e = clforge_first + clforge_position;
        CLFORGE_OP_ELEMENT
      }
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
#endif
#else
  for (uint clforge_k = 0; clforge_k < CLFORGE_BLOCK; ++clforge_k) {
    const ulong clforge_position = clforge_base + clforge_k * CLFORGE_GROUP + clforge_lid;
    if (clforge_position < clforge_count) {
#if CLFORGE_PLAN == 1
      const ulong clforge_e = clforge_first + clforge_order[clforge_order_offset + clforge_position];
#else
      const ulong clforge_e = clforge_first + clforge_position;
#endif
      CLFORGE_OP_ELEMENT
    }
  }
#endif
  CLFORGE_OP_ARGUMENTS(CLFORGE_OP_REDUCE)
}

// One group: combines the partials of `clforge_partials` groups into each reduced global.
__attribute__((reqd_work_group_size(CLFORGE_GROUP, 1, 1)))
kernel void $finish(CLFORGE_OP_PARAMETERS) {
  CLFORGE_OP_ARGUMENTS(CLFORGE_OP_SCRATCH)
  const ulong clforge_partials = clforge_partial_base;
  CLFORGE_OP_ARGUMENTS(CLFORGE_OP_FINISH)
}
