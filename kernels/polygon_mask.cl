// SPDX-License-Identifier: MIT
// clforge polygon mask: which pixels (x, y) of a width x height image lie inside polygons.
// The rule is the one of include/clforge/algorithms/polygon_reference.hpp: pixel (x, y) is the
// point (x, y); an edge (lower end x0,y0, upper y1, dx/dy k) is crossed when y0 <= y < y1 and
// x - x0 < (y - y0) * k. IEEE float throughout (no a * b + c to contract), so every pixel
// matches the C++ reference.
#pragma OPENCL FP_CONTRACT OFF
$fp64_pragma

// ---- what this program was generated for ----
#define POLYGONS $polygons          // polygons drawn in one launch (label = index + 1, last wins)
#define EDGES $edges                // edges of the single polygon; 0: read from polys[] instead
#define NONZERO $nonzero            // 1: non-zero winding rule, 0: even-odd
#define CLFORGE_KERNEL_$kernel 1   // the formulation (pixel, span, fill or row)
#define WITH_EDGE_KERNEL $edge_kernel   // 1: vertices on the device, edge table made there
#define CLFORGE_PIXELS $pixels      // consecutive pixels of a row per work-item
#define CLFORGE_GROUP $group        // work-group size of the span and fill kernels
#define CLFORGE_SERIAL $serial      // span: one work-item (1) or all (0) list a row's crossings
#define VECTOR_STORE $vector_store  // span and pixel: runs of pixels as one vector store (store_run)
typedef $out_type out_t;
#define EDGE_SPACE $edge_space  // "constant" when the table fits, else "global const"
// The table: POLYGONS int4 {first edge, end edge, first row, end row}, then the edges
// (float4 {x at the lower end, lower y, upper y, dx/dy}; y's swapped for downward edges under
// the non-zero rule).
#define POLY(p) as_int4(table[p])
#define EDGE(e) table[POLYGONS + (e)]
// How a pixel's label (0: outside every polygon) reaches the image.
#define STORE(out, i, label, value) $store

// Edge e crosses row py: returns its direction (+1 up, -1 down; 1 for even-odd) and sets *t:
// pixel x of the row lies left of the edge when x - e.x < t. An edge that does not cross the
// row gives 0 and t = -INFINITY (no pixel lies left of it).
static inline int edge_at_row(float4 e, float py, float* t) {
#if NONZERO
  const float lo = fmin(e.y, e.z), hi = fmax(e.y, e.z);
  const int dir = e.y < e.z ? 1 : -1;
#else
  const float lo = e.y, hi = e.z;
  const int dir = 1;
#endif
  const int crosses = lo <= py && py < hi;
  *t = crosses ? (py - lo) * e.w : -INFINITY;
  return crosses ? dir : 0;
}

#if NONZERO
#define ACCUMULATE(count, px, x0, t, dir) count += (px - x0 < t) ? dir : 0
#define INSIDE(count) ((count) != 0)
#else
#define ACCUMULATE(count, px, x0, t, dir) count ^= (px - x0 < t)
#define INSIDE(count) ((count) & 1)
#endif

#if NONZERO
#define ACCUMULATE_LEFT(count, is_left, dir) count += (is_left) ? dir : 0
#else
#define ACCUMULATE_LEFT(count, is_left, dir) count ^= (is_left)
#endif
// A work-item's pixels come in RUNS runs of RUN consecutive pixels (the host's choice: span
// splits a multiple of 16 into runs of 16, its group's runs side by side, one vector store per
// run, coalesced; otherwise one run of all of them).
#define RUN $run
#define RUNS (CLFORGE_PIXELS / RUN)
// Even-odd with runs of at most 32 pixels: the span kernel keeps one parity bit per pixel.
#if !NONZERO && RUN <= 32
#define PARITY_BITS (0xffffffffu >> (32 - RUN))
#else
#define PARITY_BITS 0
#endif

#if CLFORGE_KERNEL_span || CLFORGE_KERNEL_fill || CLFORGE_KERNEL_row
// The first pixel x in [lo, hi] that is NOT left of the edge ((float)x - x0 < t fails), hi if
// every pixel is. The pixels left of an edge form a prefix of the row (float subtraction is
// monotonic), so a guess from x0 + t corrected by exact tests finds the boundary.
static inline int left_boundary(float x0, float t, int lo, int hi) {
  const float guess = ceil(x0 + t);
  int c = guess >= (float)hi ? hi : guess > (float)lo ? (int)guess : lo;  // NaN: lo
  while (c > lo && !((float)(c - 1) - x0 < t)) --c;
  while (c < hi && (float)c - x0 < t) ++c;
  return c;
}
#endif

// Writes the labels of pixels x0 .. x0 + RUN - 1 of a row, those left of width. With
// VECTOR_STORE (RUN of 2, 4, 8 or 16, a width that is a multiple of it, a store that writes
// every pixel) the run is one aligned vector store.
#define CONCAT(a, b) a##b
#define VECTOR(a, b) CONCAT(a, b)
static inline void store_run(global out_t* out, ulong row, uint x0, uint width, const int* label,
                             out_t value) {
#if VECTOR_STORE
  if (x0 + RUN <= width) {
    out_t run[RUN];
    for (int k = 0; k < RUN; ++k) STORE(run, k, label[k], value);
    *(global VECTOR($out_type, RUN)*)(out + row + x0) = VECTOR(vload, RUN)(0, run);
    return;
  }
#endif
  for (int k = 0; k < RUN; ++k)
    if (x0 + k < width) STORE(out, row + x0 + k, label[k], value);
}

#if CLFORGE_KERNEL_pixel
// One work-item per CLFORGE_PIXELS consecutive pixels of a row; every edge of a polygon is tested,
// unless the row lies outside the polygon's bounding rows.
kernel void polygon_mask_pixel(global out_t* out, uint width, uint height, out_t value,
                               EDGE_SPACE float4* table) {
  const uint y = get_global_id(1);
  const uint x0 = (uint)get_global_id(0) * CLFORGE_PIXELS;
  if (y >= height || x0 >= width) return;
  const float py = (float)y;
  int label[CLFORGE_PIXELS];
  for (int k = 0; k < CLFORGE_PIXELS; ++k) label[k] = 0;
  for (int p = 0; p < POLYGONS; ++p) {
    const int4 poly = POLY(p);  // first edge, end edge, first row, end row
    if ((int)y < poly.z || (int)y >= poly.w) continue;
    int count[CLFORGE_PIXELS];
    for (int k = 0; k < CLFORGE_PIXELS; ++k) count[k] = 0;
#if EDGES
    $unroll
    for (int e = 0; e < EDGES; ++e) {
#else
    for (int e = poly.x; e < poly.y; ++e) {
#endif
      const float4 edge = EDGE(e);
      float t;
      const int dir = edge_at_row(edge, py, &t);
      for (int k = 0; k < CLFORGE_PIXELS; ++k) ACCUMULATE(count[k], (float)(x0 + k), edge.x, t, dir);
    }
    for (int k = 0; k < CLFORGE_PIXELS; ++k)
      if (INSIDE(count[k])) label[k] = p + 1;
  }
  store_run(out, (ulong)y * width, x0, width, label, value);
}
#endif

#if CLFORGE_KERNEL_span
// A work-group per segment of CLFORGE_GROUP * CLFORGE_PIXELS pixels of one row, each work-item
// RUNS runs of RUN consecutive pixels. The group first finds which edges cross its row (each once,
// CLFORGE_GROUP edges at a time) and where each crossing's "left of the edge" prefix ends in the
// segment, into local memory; a work-item then compares its pixels' x with those ends. Work per
// pixel: a few integer operations per crossing of the row, not a float test per edge.
// Rows outside a polygon's rows skip it, except one polygon whose edges the group tests in
// parallel: a row outside finds no crossing anyway, and the test's load would begin every group's
// critical path (bench/results/NVIDIA-H200-2026-11-29/polygon-row-test.md).
#define SPAN_ROW_TEST (POLYGONS > 1 || !EDGES || CLFORGE_SERIAL)
kernel __attribute__((reqd_work_group_size(CLFORGE_GROUP, 1, 1)))
void polygon_mask_span(global out_t* out, uint width, uint height, out_t value,
                       EDGE_SPACE float4* table) {
  local int ends[CLFORGE_GROUP];  // crossing j: the segment's pixels x < ends[j] lie left of it
#if NONZERO
  local int dirs[CLFORGE_GROUP];
#endif
  local int found;
  const uint y = get_group_id(1);  // the range is exact in y: the whole group has one row
  const uint lid = get_local_id(0);
  const int first_x = (int)get_group_id(0) * (CLFORGE_GROUP * CLFORGE_PIXELS);
  const int end_x = first_x + CLFORGE_GROUP * CLFORGE_PIXELS;
  // Run r of this work-item: pixels x0 + r * SPAN_STRIDE + k, k < RUN.
  const int x0 = first_x + (int)lid * RUN;
#define SPAN_STRIDE (CLFORGE_GROUP * RUN)
  const float py = (float)y;
  int label[CLFORGE_PIXELS];  // pixel k of run r: label[r * RUN + k]
  for (int k = 0; k < CLFORGE_PIXELS; ++k) label[k] = 0;
  for (int p = 0; p < POLYGONS; ++p) {
#if SPAN_ROW_TEST
    const int4 poly = POLY(p);
    if ((int)y < poly.z || (int)y >= poly.w) continue;  // the same for the whole group
#endif
#if PARITY_BITS
    uint parity[RUNS];  // bit k: the run's pixel k lies left of an odd number of crossings
    for (int r = 0; r < RUNS; ++r) parity[r] = 0;
#else
    int count[CLFORGE_PIXELS];
    for (int k = 0; k < CLFORGE_PIXELS; ++k) count[k] = 0;
#endif
#if EDGES
    const int first = 0, end = EDGES;
#else
    const int first = poly.x, end = poly.y;
#endif
    for (int chunk = first; chunk < end; chunk += CLFORGE_GROUP) {
#if CLFORGE_SERIAL
      // One work-item lists the chunk's crossings in order (CPU devices: no atomics).
      if (lid == 0) {
        int n = 0;
        const int stop = min(end, chunk + CLFORGE_GROUP);
        for (int e = chunk; e < stop; ++e) {
          const float4 edge = EDGE(e);
          float t;
          const int dir = edge_at_row(edge, py, &t);
          if (dir != 0) {
            ends[n] = left_boundary(edge.x, t, first_x, end_x);
#if NONZERO
            dirs[n] = dir;
#endif
            ++n;
          }
        }
        found = n;
      }
#else
      // Every work-item tests one edge of the chunk and appends a crossing.
      if (lid == 0) found = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (chunk + (int)lid < end) {
        const float4 edge = EDGE(chunk + lid);
        float t;
        const int dir = edge_at_row(edge, py, &t);
        if (dir != 0) {
          const int slot = atomic_inc(&found);  // order does not matter: counts only
          ends[slot] = left_boundary(edge.x, t, first_x, end_x);
#if NONZERO
          dirs[slot] = dir;
#endif
        }
      }
#endif
      barrier(CLK_LOCAL_MEM_FENCE);
      const int n = found;
      for (int j = 0; j < n; ++j) {
        for (int r = 0; r < RUNS; ++r) {
          const int left = ends[j] - (x0 + r * SPAN_STRIDE);  // pixels k < left: left of edge j
#if PARITY_BITS
          parity[r] ^= left >= RUN ? PARITY_BITS : left > 0 ? (1u << left) - 1u : 0u;
#else
          // Even-odd ignores the direction; only non-zero has dirs.
          for (int k = 0; k < RUN; ++k) ACCUMULATE_LEFT(count[r * RUN + k], k < left, dirs[j]);
#endif
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);  // before the next chunk overwrites ends
    }
    for (int r = 0; r < RUNS; ++r)
      for (int k = 0; k < RUN; ++k)
#if PARITY_BITS
        if ((parity[r] >> k) & 1u) label[r * RUN + k] = p + 1;
#else
        if (INSIDE(count[r * RUN + k])) label[r * RUN + k] = p + 1;
#endif
  }
  if (y >= height) return;
  for (int r = 0; r < RUNS; ++r) {
    const int x = x0 + r * SPAN_STRIDE;
    if (x < (int)width) store_run(out, (ulong)y * width, (uint)x, width, label + r * RUN, value);
  }
}
#endif

#if CLFORGE_KERNEL_fill
// A work-group per segment of S = CLFORGE_GROUP * CLFORGE_PIXELS pixels of one row, for CPU
// devices: one work-item walks the polygon's edges once, marks where each crossing's "left of
// the edge" prefix ends in the segment (winding[b - 1] += direction; crossings past the segment
// go to a base count), then sums the marks from the right; every pixel then reads its count.
// Work per row segment: edges + S, independent of how many edges cross the row.
kernel __attribute__((reqd_work_group_size(CLFORGE_GROUP, 1, 1)))
void polygon_mask_fill(global out_t* out, uint width, uint height, out_t value,
                       EDGE_SPACE float4* table) {
  local int winding[CLFORGE_GROUP * CLFORGE_PIXELS];
  const uint y = get_group_id(1);  // the range is exact in y: the whole group has one row
  const uint lid = get_local_id(0);
  const int first_x = (int)get_group_id(0) * (CLFORGE_GROUP * CLFORGE_PIXELS);  // pixels first_x + lid + k * CLFORGE_GROUP
  const int end_x = first_x + CLFORGE_GROUP * CLFORGE_PIXELS;
  const float py = (float)y;
  int label[CLFORGE_PIXELS];
  for (int k = 0; k < CLFORGE_PIXELS; ++k) label[k] = 0;
  for (int p = 0; p < POLYGONS; ++p) {
    const int4 poly = POLY(p);
    if ((int)y < poly.z || (int)y >= poly.w) continue;  // the same for the whole group
    for (int k = 0; k < CLFORGE_PIXELS; ++k) winding[lid + k * CLFORGE_GROUP] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
#if EDGES
      const int first = 0, end = EDGES;
#else
      const int first = poly.x, end = poly.y;
#endif
      int base = 0;  // crossings every pixel of the segment lies left of
      for (int e = first; e < end; ++e) {
        const float4 edge = EDGE(e);
        float t;
        const int dir = edge_at_row(edge, py, &t);
        if (dir == 0) continue;
        const int b = left_boundary(edge.x, t, first_x, end_x);
        if (b == end_x)
          base += dir;
        else if (b > first_x)
          winding[b - 1 - first_x] += dir;
      }
      for (int i = CLFORGE_GROUP * CLFORGE_PIXELS - 1; i >= 0; --i) {
        base += winding[i];
        winding[i] = base;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < CLFORGE_PIXELS; ++k)
      if (INSIDE(winding[lid + k * CLFORGE_GROUP])) label[k] = p + 1;
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next polygon clears winding
  }
  if (y >= height) return;
  const ulong row = (ulong)y * width;
  for (int k = 0; k < CLFORGE_PIXELS; ++k) {
    const int x = first_x + (int)lid + k * CLFORGE_GROUP;
    if (x < (int)width) STORE(out, row + x, label[k], value);
  }
}
#endif

#if CLFORGE_KERNEL_row
// One work-item (and work-group) per segment of CLFORGE_PIXELS pixels of a row, for CPU devices: no
// barriers, no local memory. As polygon_mask_fill, in private memory, and the right-to-left sum
// of the marks writes the pixels as it goes.
kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void polygon_mask_row(global out_t* out, uint width, uint height, out_t value,
                      EDGE_SPACE float4* table) {
  const uint y = get_global_id(1);
  const int first_x = (int)get_global_id(0) * CLFORGE_PIXELS;
  if (y >= height || first_x >= (int)width) return;
  const int n = min(CLFORGE_PIXELS, (int)width - first_x), end_x = first_x + n;
  const float py = (float)y;
  const ulong row = (ulong)y * width + first_x;
  int marks[CLFORGE_PIXELS];
#if POLYGONS > 1
  int labels[CLFORGE_PIXELS];
  for (int i = 0; i < n; ++i) labels[i] = 0;
#endif
  for (int p = 0; p < POLYGONS; ++p) {
    const int4 poly = POLY(p);
    if ((int)y < poly.z || (int)y >= poly.w) {
#if POLYGONS == 1
      for (int i = 0; i < n; ++i) STORE(out, row + i, 0, value);
#endif
      continue;
    }
    for (int i = 0; i < n; ++i) marks[i] = 0;
#if EDGES
    const int first = 0, end = EDGES;
#else
    const int first = poly.x, end = poly.y;
#endif
    int base = 0;
    for (int e = first; e < end; ++e) {
      const float4 edge = EDGE(e);
      float t;
      const int dir = edge_at_row(edge, py, &t);
      if (dir == 0) continue;
      const int b = left_boundary(edge.x, t, first_x, end_x);
      if (b == end_x)
        base += dir;
      else if (b > first_x)
        marks[b - 1 - first_x] += dir;
    }
    // Right to left in blocks of 16 pixels: a block without marks is one value throughout.
    for (int block = (n - 1) & ~15; block >= 0; block -= 16) {
      const int stop = min(block + 16, n);
      int any = 0;
      for (int i = block; i < stop; ++i) any |= marks[i];
      if (any == 0) {
        const int inside = INSIDE(base);
#if POLYGONS == 1
        for (int i = block; i < stop; ++i) STORE(out, row + i, inside, value);
#else
        if (inside)
          for (int i = block; i < stop; ++i) labels[i] = p + 1;
#endif
        continue;
      }
      for (int i = stop - 1; i >= block; --i) {
        base += marks[i];
#if POLYGONS == 1
        STORE(out, row + i, INSIDE(base), value);
#else
        if (INSIDE(base)) labels[i] = p + 1;
#endif
      }
    }
  }
#if POLYGONS > 1
  for (int i = 0; i < n; ++i) STORE(out, row + i, labels[i], value);
#endif
}
#endif

#if WITH_EDGE_KERNEL
// Edge table from device-side vertices (x0, y0, x1, y1, ...): one work-item per edge, the same
// canonical form the host makes (make_polygon_edge). The division is done in double where the
// device has it (correctly rounded float quotient), else as the build options allow.
kernel void polygon_edges(global const float* v, uint n, global float4* table) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  const uint j = i + 1 == n ? 0 : i + 1;
  const float ax = v[2 * i], ay = v[2 * i + 1], bx = v[2 * j], by = v[2 * j + 1];
  if (ay == by) {
    EDGE(i) = (float4)(0.0f, ay, ay, 0.0f);
    return;
  }
  const int up = ay < by;
  const float lx = up ? ax : bx, ly = up ? ay : by, hx = up ? bx : ax, hy = up ? by : ay;
  $divide
#if NONZERO
  EDGE(i) = up ? (float4)(lx, ly, hy, k) : (float4)(lx, hy, ly, k);
#else
  EDGE(i) = (float4)(lx, ly, hy, k);
#endif
}
#endif
