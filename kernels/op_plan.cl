// SPDX-License-Identifier: MIT
// clforge op::par_loop plans (lib/algorithms/op_plan.cpp): the colouring of a loop's elements,
// or of its units of consecutive elements, such that two of one colour never write the same
// target; built on the device, and the check of a map's values.
//
// A range of `count` elements; each has `sources` targets, conflicts[p * sources + s] (p counts
// from the range's first element; targets of different dats are numbered apart). A unit is
// `unit` consecutive elements (1: each element is coloured by itself).
//
// Colouring (Jones and Plassmann, with the colours picked greedily): in each round every
// uncoloured unit puts its priority (a bijective hash of its number, so no two are equal) on
// each of its targets with atomic_max (claim); a unit that finds its own priority on all of its
// targets has no uncoloured neighbour of higher priority, so no two such units share a target:
// it takes the lowest colour its targets do not yet hold and marks it on them (pick). Colours
// come 32 at a time (a bit mask per target); a unit whose targets hold all 32 waits for the next
// 32 (deferred). The host repeats rounds until no unit is left.
#define CLFORGE_NONE 0xffffffffu

// A bijection of 32-bit numbers (each step can be undone): distinct units, distinct priorities.
static inline uint clforge_priority(uint x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// The lowest clear bit of m (m is not all ones).
static inline uint clforge_lowest_clear(const uint m) {
  const uint bit = ~m & (m + 1u);
  return 31u - clz(bit);
}

// first_bad: the smallest index i with values[i] outside [0, limit) (left as it is when none).
kernel void clforge_op_check_map(global const int* values, const ulong n, const int limit,
                                 global uint* first_bad) {
  const ulong i = get_global_id(0);
  if (i < n && (values[i] < 0 || values[i] >= limit)) atomic_min(first_bad, (uint)i);
}

// One source of targets: target `index` of each element through a map of `arity`, numbered
// from `offset`.
kernel void clforge_op_conflicts(global const int* map, const uint arity, const uint index,
                                 const ulong first, const ulong count, const uint sources,
                                 const uint source, const uint offset, global uint* conflicts) {
  const ulong p = get_global_id(0);
  if (p < count) conflicts[p * sources + source] = offset + (uint)map[(first + p) * arity + index];
}

// The targets of unit u: conflicts[from .. to).
#define CLFORGE_UNIT_TARGETS(u)                               \
  const ulong clforge_from = (ulong)(u) * unit * sources;     \
  const ulong clforge_to = min((ulong)((u) + 1) * unit, count) * sources;

kernel void clforge_op_claim(global const uint* conflicts, const uint sources, const ulong count,
                             const uint unit, const ulong units, global const uint* colour,
                             global const uint* deferred, global uint* top) {
  const ulong u = get_global_id(0);
  if (u >= units || colour[u] != CLFORGE_NONE || deferred[u]) return;
  const uint mine = clforge_priority((uint)u);
  CLFORGE_UNIT_TARGETS(u)
  for (ulong t = clforge_from; t < clforge_to; ++t) atomic_max(&top[conflicts[t]], mine);
}

// counters[0]: units left in this window of colours; [1]: the number of colours (largest + 1);
// [2]: units deferred to the next window.
kernel void clforge_op_pick(global const uint* conflicts, const uint sources, const ulong count,
                            const uint unit, const ulong units, global uint* colour,
                            global uint* deferred, global const uint* top, global uint* masks,
                            const uint window, global uint* counters) {
  const ulong u = get_global_id(0);
  if (u >= units || colour[u] != CLFORGE_NONE || deferred[u]) return;
  const uint mine = clforge_priority((uint)u);
  CLFORGE_UNIT_TARGETS(u)
  uint taken = 0;
  for (ulong t = clforge_from; t < clforge_to; ++t) {
    const uint target = conflicts[t];
    if (top[target] != mine) {
      atomic_inc(&counters[0]);  // a neighbour of higher priority goes first
      return;
    }
    taken |= masks[target];
  }
  if (taken == 0xffffffffu) {
    deferred[u] = 1;
    atomic_inc(&counters[2]);
    return;
  }
  const uint c = clforge_lowest_clear(taken);
  colour[u] = window * 32u + c;
  atomic_max(&counters[1], window * 32u + c + 1u);
  // No other unit of this round shares these targets.
  for (ulong t = clforge_from; t < clforge_to; ++t) masks[conflicts[t]] |= 1u << c;
}

kernel void clforge_op_iota(global uint* out, const ulong n) {
  const ulong i = get_global_id(0);
  if (i < n) out[i] = (uint)i;
}

// starts[c]: where colour c begins in the sorted colours (colours nobody has keep their value).
kernel void clforge_op_starts(global const uint* sorted, const ulong n, global uint* starts) {
  const ulong i = get_global_id(0);
  if (i < n && (i == 0 || sorted[i] != sorted[i - 1])) starts[sorted[i]] = (uint)i;
}

// Thread colours within units, for units of one colour (which share no target, so they use
// the masks without conflict): each work-item colours the elements of its unit greedily in
// order, 32 colours at a time, then clears the masks it set.
kernel void clforge_op_thread_colours(global const uint* conflicts, const uint sources,
                                      const ulong count, const uint unit,
                                      global const uint* order, const ulong order_offset,
                                      const ulong units, global uint* masks,
                                      global uint* thread_colour, global uint* unit_colours) {
  if (get_global_id(0) >= units) return;
  const ulong u = order[order_offset + get_global_id(0)];
  const ulong first = u * unit, end = min(first + unit, count);
  for (ulong p = first; p < end; ++p) thread_colour[p] = CLFORGE_NONE;
  ulong left = end - first;
  uint colours = 0;
  for (uint window = 0; left > 0; ++window) {
    for (ulong p = first; p < end; ++p) {
      if (thread_colour[p] != CLFORGE_NONE) continue;
      uint taken = 0;
      for (ulong t = p * sources; t < (p + 1) * sources; ++t) taken |= masks[conflicts[t]];
      if (taken == 0xffffffffu) continue;
      const uint c = clforge_lowest_clear(taken);
      thread_colour[p] = window * 32u + c;
      colours = max(colours, window * 32u + c + 1u);
      for (ulong t = p * sources; t < (p + 1) * sources; ++t) masks[conflicts[t]] |= 1u << c;
      --left;
    }
    for (ulong t = first * sources; t < end * sources; ++t) masks[conflicts[t]] = 0;
  }
  unit_colours[u] = colours;
}
