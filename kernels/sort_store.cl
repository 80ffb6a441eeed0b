// SPDX-License-Identifier: MIT
// clforge radix_sort_kernel "$name" called with array views or a range: moves the permuted
// arrays back from the moved temporaries, array_j[CLFORGE_INDEX(k)] = clforge_moved_j[k]
// through the views (lib/algorithms/radix_sort_kernel.cpp renders it after kernels/sort_key.cl;
// whole arrays are copied back instead).
#define CLFORGE_INDEX(k) $index
kernel void $store_name($user_parameters $range_parameters ulong n$moved_parameters) {
  const ulong clforge_i = get_global_id(0);
  if (clforge_i >= n) return;
  const ulong clforge_to = CLFORGE_INDEX(clforge_i);
  $stores
}
#undef CLFORGE_INDEX
