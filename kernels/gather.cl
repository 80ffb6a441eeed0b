// SPDX-License-Identifier: MIT
// clforge gather and scatter (lib/algorithms/gather.cpp): dst[i] = src[indices[i]] and
// dst[indices[i]] = src[i] for i < n; and the strided copy that moves a view's elements to or
// from a contiguous buffer.
//
// Plain OpenCL C specialised by #defines the host puts in front:
//   CLFORGE_VALUE_T   an unsigned type of the elements' size (elements are moved as bits)
//   CLFORGE_INDEX_T   the index type (signed indices below 0 are out of range)
//   CLFORGE_CHECKED   1: an index outside [0, size) is not used; the first work-item that meets
//                     one records its position and value in report[0..4] (flag, position low
//                     and high words, index low and high words)
#ifndef CLFORGE_VALUE_T
#define CLFORGE_VALUE_T uint
#define CLFORGE_INDEX_T uint
#define CLFORGE_CHECKED 1
#endif

static inline int clforge_in_range(CLFORGE_INDEX_T index, ulong size, ulong i,
                                   global volatile uint* report) {
#if CLFORGE_CHECKED
  // A negative signed index converts to a value above any size.
  if ((ulong)(long)index >= size) {
    if (atomic_cmpxchg(&report[0], 0u, 1u) == 0u) {
      report[1] = (uint)i;
      report[2] = (uint)(i >> 32);
      report[3] = (uint)(long)index;
      report[4] = (uint)((long)index >> 32);
    }
    return 0;
  }
#endif
  return 1;
}

kernel void clforge_gather(global const CLFORGE_INDEX_T* indices, global const CLFORGE_VALUE_T* src,
                           global CLFORGE_VALUE_T* dst, ulong n, ulong src_size,
                           global volatile uint* report) {
  const ulong i = get_global_id(0);
  if (i >= n) return;
  const CLFORGE_INDEX_T j = indices[i];
  if (clforge_in_range(j, src_size, i, report)) dst[i] = src[j];
}

kernel void clforge_scatter(global const CLFORGE_VALUE_T* src, global const CLFORGE_INDEX_T* indices,
                            global CLFORGE_VALUE_T* dst, ulong n, ulong dst_size,
                            global volatile uint* report) {
  const ulong i = get_global_id(0);
  if (i >= n) return;
  const CLFORGE_INDEX_T j = indices[i];
  if (clforge_in_range(j, dst_size, i, report)) dst[j] = src[i];
}

// dst[to_first + i * to_step] = src[from_first + i * from_step] for i < n.
kernel void clforge_copy_strided(global const CLFORGE_VALUE_T* src, long from_first,
                                 long from_step, global CLFORGE_VALUE_T* dst, long to_first,
                                 long to_step, ulong n) {
  const ulong i = get_global_id(0);
  if (i >= n) return;
  dst[to_first + (long)i * to_step] = src[from_first + (long)i * from_step];
}
