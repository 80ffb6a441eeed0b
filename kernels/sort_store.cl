// SPDX-License-Identifier: MIT
// clforge radix_sort_kernel "$name" called with array views: moves the permuted arrays back from
// the moved temporaries, $name[i] = clforge_moved_k[i] through the views (lib/algorithms/sort.cpp
// renders it after kernels/sort_key.cl; whole arrays are copied back instead).
kernel void $store_name($user_parameters ulong n$moved_parameters) {
  const ulong clforge_i = get_global_id(0);
  if (clforge_i >= n) return;
  $stores
}
