// SPDX-License-Identifier: MIT
// clforge::apply_boundaries (lib/algorithms/stencil.cpp): fills the ghost cells of one dimension
// `dim` (both sides) of a field padded to three dimensions (allocation a0 x a1 x a2, row-major),
// one work-item per cell, across the whole allocation of the other two dimensions. A cell takes
// its side's constant, or copies the interior cell of that dimension its side names: periodic,
// the one at the same distance from the other end; neumann, the nearest. Built once per element
// type (CLFORGE_T, a #define of the host) and context. $extensions: the fp64 pragma and the
// complex header where the type needs them.
$extensions
#define CLFORGE_PERIODIC 0
#define CLFORGE_CONSTANT 1
#define CLFORGE_NEUMANN 2

kernel void clforge_ghosts(global CLFORGE_T* a, int dim, long a0, long a1, long a2, long n,
                           long low, int low_kind, int high_kind, CLFORGE_T low_value,
                           CLFORGE_T high_value, long cells) {
  const long id = get_global_id(0);
  if (id >= cells) return;
  const long sizes[3] = {a0, a1, a2};
  const int fast = dim == 2 ? 1 : 2;  // the faster of the other two dimensions
  const int slow = dim == 0 ? 1 : 0;  // the slower
  const long ghosts = sizes[dim] - n;
  // id = (c[slow] * ghosts + g) * sizes[fast] + c[fast]; g counts the ghost cells along dim
  long c[3];
  c[fast] = id % sizes[fast];
  const long rest = id / sizes[fast];
  const long g = rest % ghosts;
  c[slow] = rest / ghosts;
  c[dim] = g < low ? g : g + n;
  const long at = (c[0] * a1 + c[1]) * a2 + c[2];
  const long t = c[dim] - low;  // interior coordinate: < 0 below, >= n above
  const int kind = t < 0 ? low_kind : high_kind;
  if (kind == CLFORGE_CONSTANT) {
    a[at] = t < 0 ? low_value : high_value;
    return;
  }
  c[dim] = low + (kind == CLFORGE_PERIODIC ? ((t % n) + n) % n : (t < 0 ? 0 : n - 1));
  a[at] = a[(c[0] * a1 + c[1]) * a2 + c[2]];
}
