// SPDX-License-Identifier: MIT
// clforge common device code: the building blocks every built-in kernel shares. The build puts
// this file in front of each kernels/*.cl (cmake/embed_kernels.cmake), so it holds nothing that
// costs a kernel which does not use it: macros, and static inline functions that the compiler
// drops when unused. No kernels, no floating-point arithmetic (it comes before the kernels'
// FP_CONTRACT pragmas), and every name starts with clforge_ / CLFORGE_ (user snippets and
// preambles come after it).
//
// OpenCL C has no templates: a block that works on any type and operator is a macro, either one
// that defines a function for the kernel's type and operator, e.g.
//   CLFORGE_DEFINE_GROUP_REDUCE(my_reduce, float, my_add, 256)
// defines `static inline float my_reduce(local float* scratch, const float value)`, or a
// statement on the kernel's own arrays (CLFORGE_GROUP_SCAN).
#ifndef CLFORGE_COMMON_CL
#define CLFORGE_COMMON_CL

#define CLFORGE_CAT_(a, b) a##b
#define CLFORGE_CAT(a, b) CLFORGE_CAT_(a, b)

// ---- vector loads ----------------------------------------------------------------------------
// The N-vector type of a scalar type, and vloadN / vstoreN, for N given by a #define:
//   CLFORGE_VECTOR(float, 4) is float4, CLFORGE_VLOAD(4) is vload4.
#define CLFORGE_VECTOR(type, n) CLFORGE_CAT(type, n)
#define CLFORGE_VLOAD(n) CLFORGE_CAT(vload, n)
#define CLFORGE_VSTORE(n) CLFORGE_CAT(vstore, n)

// ---- work-group reduce -----------------------------------------------------------------------
// CLFORGE_DEFINE_GROUP_REDUCE(name, T, OP, SIZE) defines
//   static inline T name(local T* scratch, const T value)
// for work-groups of SIZE work-items (a power of two): combines the work-items' values with
// OP(a, b) as a tree of log2(SIZE) steps through scratch[0 .. SIZE) and returns the result to
// every work-item. Every work-item of the group must call it (it has barriers). (Names inside
// the macros start with clforge_: a user preamble before the instantiation may define macros.)
#define CLFORGE_DEFINE_GROUP_REDUCE(name, T, OP, SIZE)                                  \
  static inline T name(local T* clforge_scratch, const T clforge_value) {              \
    const uint clforge_lid = get_local_id(0);                                           \
    clforge_scratch[clforge_lid] = clforge_value;                                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                                       \
    for (uint clforge_width = (SIZE) / 2; clforge_width > 0; clforge_width >>= 1) {     \
      if (clforge_lid < clforge_width)                                                  \
        clforge_scratch[clforge_lid] =                                                  \
            OP(clforge_scratch[clforge_lid], clforge_scratch[clforge_lid + clforge_width]); \
      barrier(CLK_LOCAL_MEM_FENCE);                                                     \
    }                                                                                   \
    return clforge_scratch[0];                                                          \
  }

// ---- work-group scan -------------------------------------------------------------------------
// CLFORGE_GROUP_SCAN(T, OP, SIZE, sums, lid, value, result): an inclusive scan with OP(a, b) of
// one value per work-item over a group of SIZE work-items (Hillis-Steele, log2(SIZE) steps).
// sums is the kernel's local array of 2 * SIZE values, two buffers used in turn; the uint
// variable result is set to where the scan ends up: sums[result + k] is the inclusive scan up
// to work-item k, sums[result + SIZE - 1] the group's total. Every work-item must reach it.
// A statement rather than a function: indexing the kernel's own array lets the compiler keep
// what it knows of its bounds (through a pointer parameter it generated other code).
#define CLFORGE_GROUP_SCAN(T, OP, SIZE, sums, lid, value, result)                            \
  do {                                                                                        \
    (sums)[lid] = (value);                                                                    \
    barrier(CLK_LOCAL_MEM_FENCE);                                                             \
    result = 0;                                                                               \
    for (uint clforge_offset = 1; clforge_offset < (SIZE); clforge_offset <<= 1) {            \
      T clforge_s = (sums)[result + (lid)];                                                   \
      if ((lid) >= clforge_offset) clforge_s = OP((sums)[result + (lid)-clforge_offset], clforge_s); \
      (sums)[(SIZE)-result + (lid)] = clforge_s;                                              \
      result = (SIZE)-result;                                                                 \
      barrier(CLK_LOCAL_MEM_FENCE);                                                           \
    }                                                                                         \
  } while (0)

// CLFORGE_GROUP_SEGMENTED_SCAN(T, OP, SIZE, sums, heads, lid, value, head, result): the same for
// segmented scans, where head says that a segment starts in the work-item's values (its value
// then does not combine with the work-items before). heads is a local uchar array of 2 * SIZE
// flags beside sums; heads[result + k] says whether a segment starts in work-items 0 .. k.
#define CLFORGE_GROUP_SEGMENTED_SCAN(T, OP, SIZE, sums, heads, lid, value, head, result)     \
  do {                                                                                        \
    (sums)[lid] = (value);                                                                    \
    (heads)[lid] = (head);                                                                    \
    barrier(CLK_LOCAL_MEM_FENCE);                                                             \
    result = 0;                                                                               \
    for (uint clforge_offset = 1; clforge_offset < (SIZE); clforge_offset <<= 1) {            \
      T clforge_s = (sums)[result + (lid)];                                                   \
      uchar clforge_h = (heads)[result + (lid)];                                              \
      if ((lid) >= clforge_offset) {                                                          \
        if (!clforge_h) clforge_s = OP((sums)[result + (lid)-clforge_offset], clforge_s);     \
        clforge_h |= (heads)[result + (lid)-clforge_offset];                                  \
      }                                                                                       \
      (heads)[(SIZE)-result + (lid)] = clforge_h;                                             \
      (sums)[(SIZE)-result + (lid)] = clforge_s;                                              \
      result = (SIZE)-result;                                                                 \
      barrier(CLK_LOCAL_MEM_FENCE);                                                           \
    }                                                                                         \
  } while (0)

// ---- decoupled look-back (Merrill & Garland, 2016) -------------------------------------------
// Single-pass algorithms over tiles (scan, the onesweep sort) let each tile publish its own
// aggregate, then find its exclusive prefix from the tiles before it: a tile waits only for
// tiles below it, and it publishes its aggregate before it waits for anyone.
//
// Tiles are numbered by an atomic counter as groups start, not by get_group_id: every tile below
// t was taken by a group that had already started when t was taken, and a started group is
// never starved (GPUs keep a resident work-group running to its end; PoCL runs a work-group to
// its end on one thread), so every wait ends. With get_group_id, group 1000 could fill the
// device and spin while group 0 never gets a slot.
//
// Published states persist between launches and are never cleared: each launch has a new epoch
// and a state counts only when it carries this launch's epoch (an earlier launch's, or a cleared
// buffer's epoch 0, reads as "not yet"). Launches alternate between two tile counters
// (counters[epoch & 1]); each launch zeroes the other one for the next launch (the queue runs
// them in order).
#define CLFORGE_LOOKBACK_AGGREGATE 1u  // the tile's own aggregate
#define CLFORGE_LOOKBACK_PREFIX 2u     // the inclusive prefix: this tile and every tile before

// Takes the group's first tile into *tile (call from one work-item).
static inline void clforge_lookback_first_tile(local uint* tile, global uint* counters,
                                               const uint epoch) {
  *tile = atomic_inc(&counters[epoch & 1u]);
  if (get_group_id(0) == 0) counters[(epoch & 1u) ^ 1u] = 0;
}

// A further tile, for groups that loop over tiles (call from one work-item).
static inline uint clforge_lookback_next_tile(global uint* counters, const uint epoch) {
  return atomic_inc(&counters[epoch & 1u]);
}

// Waits until the 64-bit state word *word carries this epoch in its bits from epoch_shift up,
// and returns it (its value and flag come in the same load).
static inline ulong clforge_lookback_wait_word(global volatile const ulong* word, const uint epoch,
                                               const uint epoch_shift) {
  ulong w;
  do {
    w = *word;
  } while ((uint)(w >> epoch_shift) != epoch);
  return w;
}

// A 32-bit status (epoch in bits 2 and up, flag in bits 0-1) published beside a value stored
// elsewhere, for values that do not fit a word with their status:
// clforge_lookback_publish_status stores the status after the value (store the value first);
// clforge_lookback_wait_status returns the status once it carries this epoch, ordered before
// the value's load that follows.
static inline uint clforge_lookback_status(const uint epoch, const uint flag) {
  return (epoch << 2) | flag;
}
static inline void clforge_lookback_publish_status(global volatile uint* status, const uint epoch,
                                                   const uint flag) {
  write_mem_fence(CLK_GLOBAL_MEM_FENCE);  // the value before the status
  *status = clforge_lookback_status(epoch, flag);
}
static inline uint clforge_lookback_wait_status(global volatile const uint* status,
                                                const uint epoch) {
  uint s;
  do {
    s = *status;
  } while ((s >> 2) != epoch);
  read_mem_fence(CLK_GLOBAL_MEM_FENCE);  // the status before the value
  return s;
}

// ---- ordered bits of floating-point keys ------------------------------------------------------
// CLFORGE_ORDERED_FLOAT_BITS(UT, u, nan): the unsigned integer (of type UT, the width of the
// value) whose order is IEEE 754's total order with every NaN equal and last, from the value's
// bits u (as_uint / as_ulong) and whether it is a NaN: negative values (-0 included) have every
// bit inverted, the others the sign bit set, NaNs every bit set. Integer operations only.
#define CLFORGE_ORDERED_FLOAT_BITS(UT, u, nan)                        \
  ((nan)                               ? (UT)(~(UT)0)                 \
   : ((u) >> (sizeof(UT) * 8 - 1)) != 0 ? (UT)(~(u))                  \
                                       : (UT)((u) | ((UT)1 << (sizeof(UT) * 8 - 1))))

#endif  // CLFORGE_COMMON_CL
