// SPDX-License-Identifier: MIT
// clforge radix sort: LSD radix sort on 8-bit digits (lib/algorithms/sort.cpp drives it).
//
// Plain OpenCL C specialised by #defines that the host puts in front of this file (build_template):
//   CLFORGE_KEY_T, CLFORGE_UKEY_T   the key type and the unsigned type of its width
//   CLFORGE_KEY_KIND                0 unsigned, 1 signed integer, 2 IEEE floating point
//   CLFORGE_HAS_VALUES              1: values move with their keys (CLFORGE_VALUE_T: an unsigned
//                                   type of the values' size; values are moved as bits)
//   CLFORGE_ONESWEEP                1: the onesweep kernels, 0: the chunked ones
//   CLFORGE_GROUP, CLFORGE_ITEMS    onesweep tile: work-items per group, keys per work-item
//   CLFORGE_RANKING                 onesweep ranking: 0 the count matrix; lane counts with the
//                                   lanes of a digit found through local memory, in step by
//                                   group barriers (1) or NVIDIA warp barriers (3); lane counts
//                                   with NVIDIA's match.any.sync (2). 2 and 3: inline PTX.
//   CLFORGE_KEY_SIZE, CLFORGE_VALUE_SIZE   sizeof of the two types (for #if)
//
// Keys are sorted by their "ordered bits": an unsigned integer whose order is the keys' order
// (signed: the sign bit flipped; floating point: IEEE total order with -0.0 before +0.0 and every
// NaN mapped above +inf, so NaNs come last; descending: all bits inverted). A pass sorts stably
// by the digit (ordered >> shift) & mask.
//
// Two algorithms:
//   onesweep (GPUs; Adinets & Merrill, "Onesweep", 2022): clforge_sort_histograms counts every
//     pass's digits at once (one read of the keys), clforge_sort_digit_partials and
//     clforge_sort_digit_bases turn the counts into each digit's first output position, then
//     one clforge_sort_onesweep launch per pass (and per portion of the keys) ranks a tile of
//     keys in local memory and finds where the tile's run of each digit goes by decoupled
//     look-back over the preceding tiles' digit counts: each key is read once and written once
//     per pass.
//   chunked (CPUs): one work-item per contiguous chunk; per pass clforge_sort_chunk_count
//     (a private histogram per chunk), clforge_sort_chunk_offsets (exclusive scan of the
//     (digit, chunk) table) and clforge_sort_chunk_scatter.
#ifndef CLFORGE_KEY_T
#define CLFORGE_KEY_T uint
#define CLFORGE_UKEY_T uint
#define CLFORGE_KEY_KIND 0
#define CLFORGE_KEY_SIZE 4
#endif
#ifndef CLFORGE_HAS_VALUES
#define CLFORGE_HAS_VALUES 0
#endif
#ifndef CLFORGE_VALUE_T
#define CLFORGE_VALUE_T uint
#define CLFORGE_VALUE_SIZE 4
#endif
#ifndef CLFORGE_GROUP
#define CLFORGE_GROUP 64
#endif
#ifndef CLFORGE_ITEMS
#define CLFORGE_ITEMS 16
#endif
#ifndef CLFORGE_RANKING
#define CLFORGE_RANKING 0
#endif
#if CLFORGE_KEY_KIND == 2 && CLFORGE_KEY_SIZE == 8
#pragma OPENCL EXTENSION cl_khr_fp64 : enable  // double keys (the host checked fp64)
#endif

#define CLFORGE_ADD(a, b) ((a) + (b))
#define CLFORGE_RADIX_BITS 8
#define CLFORGE_RADIX 256
#define CLFORGE_MAX_PASSES (CLFORGE_KEY_SIZE)  // 8-bit digits: one pass per byte at most

#define CLFORGE_AS_UKEY(x) CLFORGE_CAT(as_, CLFORGE_UKEY_T)(x)
#define CLFORGE_SIGN_BIT ((CLFORGE_UKEY_T)1 << (CLFORGE_KEY_SIZE * 8 - 1))

// `descending` (0 or 1) is a kernel argument, so both directions share one program.
static inline CLFORGE_UKEY_T clforge_ordered(CLFORGE_KEY_T k, uint descending) {
  CLFORGE_UKEY_T u = CLFORGE_AS_UKEY(k);
#if CLFORGE_KEY_KIND == 1
  u ^= CLFORGE_SIGN_BIT;
#elif CLFORGE_KEY_KIND == 2
  u = CLFORGE_ORDERED_FLOAT_BITS(CLFORGE_UKEY_T, u, isnan(k));
#endif
  return descending ? (CLFORGE_UKEY_T)(~u) : u;
}

static inline uint clforge_digit(CLFORGE_KEY_T k, uint descending, uint shift, uint mask) {
  return (uint)(clforge_ordered(k, descending) >> shift) & mask;
}

#ifndef CLFORGE_ONESWEEP
#define CLFORGE_ONESWEEP 1  // 1: the onesweep kernels; 0: the chunked ones (one program each)
#endif

#if CLFORGE_ONESWEEP
// ---- onesweep -------------------------------------------------------------------------------

// Group g counts the digits of keys [g * chunk, (g + 1) * chunk) for every pass:
// group_counts[(g * passes + p) * RADIX + d]. Pass p uses bits [begin_bit + 8p, end_bit). chunk
// is a multiple of 4 (the host rounds it), so each work-item reads four keys at once.
kernel void clforge_sort_histograms(global const CLFORGE_KEY_T* keys, ulong n, ulong chunk,
                                    uint descending, uint begin_bit, uint end_bit,
                                    global uint* group_counts) {
  local uint counts[CLFORGE_MAX_PASSES * CLFORGE_RADIX];
  const uint lid = get_local_id(0), lsize = get_local_size(0);
  const uint passes = (end_bit - begin_bit + CLFORGE_RADIX_BITS - 1) / CLFORGE_RADIX_BITS;
  uint shift[CLFORGE_MAX_PASSES], digit_mask[CLFORGE_MAX_PASSES];
#pragma unroll
  for (uint p = 0; p < CLFORGE_MAX_PASSES; ++p) {
    shift[p] = begin_bit + p * CLFORGE_RADIX_BITS;
    const uint bits = p < passes ? min((uint)CLFORGE_RADIX_BITS, end_bit - shift[p]) : 0u;
    digit_mask[p] = (1u << bits) - 1u;
  }
  for (uint k = lid; k < passes * CLFORGE_RADIX; k += lsize) counts[k] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
#define CLFORGE_COUNT_DIGITS(key)                                                         \
  do {                                                                                    \
    const CLFORGE_UKEY_T u = clforge_ordered(key, descending);                            \
    for (uint p = 0; p < CLFORGE_MAX_PASSES; ++p)                                         \
      if (p < passes)                                                                     \
        atomic_inc(&counts[p * CLFORGE_RADIX + ((uint)(u >> shift[p]) & digit_mask[p])]); \
  } while (0)
  const ulong start = get_group_id(0) * chunk;
  const ulong end = min(n, start + chunk);
  const ulong quads = (end - start) / 4;
  for (ulong q = lid; q < quads; q += lsize) {
    const CLFORGE_VECTOR(CLFORGE_KEY_T, 4) k = vload4(q, keys + start);
    CLFORGE_COUNT_DIGITS(k.s0);
    CLFORGE_COUNT_DIGITS(k.s1);
    CLFORGE_COUNT_DIGITS(k.s2);
    CLFORGE_COUNT_DIGITS(k.s3);
  }
  for (ulong i = start + quads * 4 + lid; i < end; i += lsize) CLFORGE_COUNT_DIGITS(keys[i]);
  barrier(CLK_LOCAL_MEM_FENCE);
  global uint* mine = group_counts + (ulong)get_group_id(0) * passes * CLFORGE_RADIX;
  for (uint k = lid; k < passes * CLFORGE_RADIX; k += lsize) mine[k] = counts[k];
}

// The groups' counts summed in slices, many groups at once (one group summing them all waits on
// its loads one after the other): group p * SLICES + s writes, for every digit d, the counts of
// pass p over the groups g = s (mod SLICES) to bases[partials_at + (p * SLICES + s) * RADIX + d].
#define CLFORGE_DIGIT_SLICES 32
__attribute__((reqd_work_group_size(CLFORGE_RADIX, 1, 1)))
kernel void clforge_sort_digit_partials(global const uint* group_counts, uint groups, uint passes,
                                        global ulong* bases, uint partials_at) {
  const uint d = get_local_id(0);
  const uint p = get_group_id(0) / CLFORGE_DIGIT_SLICES;
  const uint slice = get_group_id(0) % CLFORGE_DIGIT_SLICES;
  ulong sum = 0;
  // Unrolled, so that several loads are in flight together.
#pragma unroll 4
  for (uint g = slice; g < groups; g += CLFORGE_DIGIT_SLICES)
    sum += group_counts[((ulong)g * passes + p) * CLFORGE_RADIX + d];
  bases[partials_at + ((ulong)p * CLFORGE_DIGIT_SLICES + slice) * CLFORGE_RADIX + d] = sum;
}

// Group p of RADIX work-items: bases[p * RADIX + d] = how many keys have a digit below d in
// pass p (where the keys of digit d start in that pass's output).
__attribute__((reqd_work_group_size(CLFORGE_RADIX, 1, 1)))
kernel void clforge_sort_digit_bases(global ulong* bases, uint partials_at) {
  local ulong sums[CLFORGE_RADIX];
  const uint d = get_local_id(0), p = get_group_id(0);
  ulong s = 0;
  for (uint k = 0; k < CLFORGE_DIGIT_SLICES; ++k)
    s += bases[partials_at + ((ulong)p * CLFORGE_DIGIT_SLICES + k) * CLFORGE_RADIX + d];
  sums[d] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (d == 0) {
    ulong running = 0;
    for (uint k = 0; k < CLFORGE_RADIX; ++k) {
      const ulong c = sums[k];
      bases[p * CLFORGE_RADIX + k] = running;
      running += c;
    }
  }
}

// Tile status words, one per (tile, digit): epoch (24 bits) | flag (2) | count (38), the flag
// CLFORGE_LOOKBACK_AGGREGATE (the tile's own count of the digit) or CLFORGE_LOOKBACK_PREFIX (the
// count in this tile and every tile before it). The look-back protocol: kernels/common.cl.
#define CLFORGE_COUNT_BITS 38
#define CLFORGE_EPOCH_SHIFT 40
#define CLFORGE_STATUS(epoch, flag, count)                                          \
  (((ulong)(epoch) << CLFORGE_EPOCH_SHIFT) | ((ulong)(flag) << CLFORGE_COUNT_BITS) | \
   (ulong)(count))

#define CLFORGE_TILE (CLFORGE_GROUP * CLFORGE_ITEMS)
#define CLFORGE_DIGITS_PER_ITEM (CLFORGE_RADIX / CLFORGE_GROUP)
#define CLFORGE_STRIDE (CLFORGE_GROUP + 1)  // a padded row of the rank matrix
// A row of the rank matrix packs the 16-bit counts of digits 2r (low half) and 2r + 1 (high
// half) in one uint, so clearing and scanning the matrix take half the local memory accesses.
// The packed sums cannot carry from the low half: a tile holds at most 256 x 64 keys.
#define CLFORGE_ROWS (CLFORGE_RADIX / 2)
#define CLFORGE_ROWS_PER_ITEM (CLFORGE_ROWS > CLFORGE_GROUP ? CLFORGE_ROWS / CLFORGE_GROUP : 1)
#define CLFORGE_MATRIX_BYTES (CLFORGE_ROWS * CLFORGE_STRIDE * 4)
#if CLFORGE_HAS_VALUES
#define CLFORGE_STAGE_BYTES (CLFORGE_TILE * (CLFORGE_KEY_SIZE + CLFORGE_VALUE_SIZE))
#else
#define CLFORGE_STAGE_BYTES (CLFORGE_TILE * CLFORGE_KEY_SIZE)
#endif
// The tile's keys come in through local memory: read from global memory in consecutive
// (coalesced) order, then each work-item takes its ITEMS consecutive keys. One padding slot
// every 32 keys keeps those reads of a work-item's run free of bank conflicts.
#define CLFORGE_PADDED(i) ((i) + ((i) >> 5))
#define CLFORGE_LOAD_BYTES (CLFORGE_PADDED(CLFORGE_TILE) * CLFORGE_KEY_SIZE)
#define CLFORGE_MAX2(a, b) ((a) > (b) ? (a) : (b))
#if CLFORGE_RANKING == 0
#define CLFORGE_AREA_BYTES \
  CLFORGE_MAX2(CLFORGE_MAX2(CLFORGE_MATRIX_BYTES, CLFORGE_STAGE_BYTES), CLFORGE_LOAD_BYTES)
#else
// The lane groups' counts and peer masks, then the staged tile (keys are read straight into
// registers).
#define CLFORGE_AREA_BYTES \
  CLFORGE_MAX2(2 * CLFORGE_LANE_GROUPS * CLFORGE_RADIX * 4, CLFORGE_STAGE_BYTES)
#endif

// Lane ranking (CLFORGE_RANKING 1, 2, 3): the group is cut into lane groups of 32 work-items;
// each lane group keeps one count per digit. Key j of a work-item sits at tile position
// lane_group * 32 * ITEMS + j * 32 + lane, so a lane group's keys in (j, lane) order are in tile
// order, and ranking them step by step (all 32 lanes at step j together) is stable. The counts
// take LANE_GROUPS x RADIX words instead of the matrix's RADIX x GROUP halves, so groups of 256
// work-items fit, and many of them fit a multiprocessor.
#define CLFORGE_LANES 32u
#define CLFORGE_LANE_GROUPS (CLFORGE_GROUP / 32)

#if CLFORGE_RANKING == 1 || CLFORGE_RANKING == 3
#if CLFORGE_RANKING == 1
// Orders one step's local memory accesses of a lane group: the whole group's barrier (any device;
// every work-item of the group runs every step).
#define CLFORGE_LANE_SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#else
// The warp's own barrier, which also orders its local memory accesses (NVIDIA; a warp is a lane
// group of 32 consecutive work-items).
#define CLFORGE_LANE_SYNC() asm volatile("bar.warp.sync 0xffffffff;" ::: "memory")
#endif
// The lanes holding digit d at this step are found by setting their bits in peer_masks[d]; the
// highest of them moves counts[d] on. `d` is RADIX for no key. Returns the keys of digit d in
// this lane group before this one.
static inline uint clforge_lane_rank(uint d, local uint* counts, local uint* peer_masks,
                                     uint lane) {
  if (d < CLFORGE_RADIX) atomic_or(&peer_masks[d], 1u << lane);
  CLFORGE_LANE_SYNC();
  const uint peers = d < CLFORGE_RADIX ? peer_masks[d] : 0u;
  const uint before = d < CLFORGE_RADIX ? counts[d] : 0u;
  CLFORGE_LANE_SYNC();
  if (d < CLFORGE_RADIX && lane == 31u - clz(peers)) {
    counts[d] = before + popcount(peers);
    peer_masks[d] = 0;
  }
  CLFORGE_LANE_SYNC();
  return before + popcount(peers & ((1u << lane) - 1u));
}
#elif CLFORGE_RANKING == 2
// The same with the warp's match instruction (NVIDIA, Volta and later): match.any.sync finds the
// lanes of equal digits, the highest of them moves the count on and shfl.sync hands the old count
// to the others.
static inline uint clforge_lane_rank(uint d, local uint* counts, local uint* peer_masks,
                                     uint lane) {
  uint peers, below, before = 0;
  asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(peers) : "r"(d));
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(below));
  const uint leader = 31u - clz(peers);
  if (lane == leader && d < CLFORGE_RADIX) {
    before = counts[d];
    counts[d] = before + popcount(peers);
  }
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;"
               : "=r"(before)
               : "r"(before), "r"(leader));
  // The next step's leader may be another lane: order this update before its read.
  asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
  return before + popcount(peers & below);
}
#endif

// One pass over the keys [portion_start, portion_end). A group takes the next tile from an
// atomic counter (so every tile it waits for was taken by a group that already runs: no
// deadlock), ranks its keys stably by digit in local memory, publishes its digit counts, looks
// back over the preceding tiles for where its run of each digit starts, and writes its keys
// (and values) in digit order, so consecutive work-items write consecutive addresses.
//
// Ranking with the matrix (CLFORGE_RANKING 0): every work-item holds ITEMS consecutive keys and
// counts their digits in its own column of a RADIX x GROUP matrix of 16-bit counts (two digits
// per uint); an exclusive scan of the matrix in (digit, work-item) order gives, for each key, the
// keys of smaller digits plus the keys of its digit in earlier work-items. Adding the key's count
// within its work-item makes the rank stable. With lane counts (1, 2, 3): the same scan runs over
// (digit, lane group), and clforge_lane_rank gives the count within the lane group.
//
// Portions: the tile counter and statuses cover one portion; bases[bases_in_at + d] is where
// the portion's keys of digit d start, and the portion's last tile writes the next portion's
// starts to bases[bases_out_at + d].
__attribute__((reqd_work_group_size(CLFORGE_GROUP, 1, 1)))
kernel void clforge_sort_onesweep(global const CLFORGE_KEY_T* keys_in, global CLFORGE_KEY_T* keys_out,
#if CLFORGE_HAS_VALUES
                                  global const CLFORGE_VALUE_T* values_in,
                                  global CLFORGE_VALUE_T* values_out,
#endif
                                  ulong portion_start, ulong portion_end, uint descending, uint shift,
                                  uint mask,
                                  global ulong* bases, uint bases_in_at, uint bases_out_at,
                                  global uint* counters, global volatile ulong* status,
                                  uint epoch) {
  // The rank matrix, then the staged tile. Declared as ulong2 so that it is 16-byte aligned:
  // the staged values are read and written as CLFORGE_VALUE_T, which is ulong2 for 16-byte
  // values (a ulong array is only 8-byte aligned, and a vector access to a misaligned local
  // address is undefined; on NVIDIA GPUs it faults).
  local ulong2 area[(CLFORGE_AREA_BYTES + 15) / 16];
  local uint tile_count[CLFORGE_RADIX];            // keys of each digit in this tile
  local uint digit_start[CLFORGE_RADIX];           // where they start within the sorted tile
  local ulong digit_offset[CLFORGE_RADIX];         // output position of tile position 0 of d
  local uint partial[2 * CLFORGE_GROUP];           // the group scan's two buffers
  local uint tile_slot;
#if CLFORGE_RANKING == 0
  local uint* matrix = (local uint*)area;
#endif
  local CLFORGE_KEY_T* stage_keys = (local CLFORGE_KEY_T*)area;
#if CLFORGE_HAS_VALUES
  local CLFORGE_VALUE_T* stage_values =
      (local CLFORGE_VALUE_T*)((local uchar*)area + CLFORGE_TILE * CLFORGE_KEY_SIZE);
#endif

  const uint lid = get_local_id(0);
  if (lid == 0) clforge_lookback_first_tile(&tile_slot, counters, epoch);
  barrier(CLK_LOCAL_MEM_FENCE);

  const uint tile = tile_slot;
  const uint tiles = (uint)((portion_end - portion_start + CLFORGE_TILE - 1) / CLFORGE_TILE);
  const ulong first = portion_start + (ulong)tile * CLFORGE_TILE;
  const uint valid = (uint)min((ulong)CLFORGE_TILE, portion_end - first);
  uint rank[CLFORGE_ITEMS];  // digits are recomputed where needed: fewer registers
  CLFORGE_KEY_T key[CLFORGE_ITEMS];
#if CLFORGE_RANKING == 0
  // Key j of a work-item sits at tile position lid * ITEMS + j.
  const uint mine = lid * CLFORGE_ITEMS;
#define CLFORGE_POSITION(j) (mine + (j))
  for (uint j = 0; j < CLFORGE_ITEMS; ++j) {
    const uint k = j * CLFORGE_GROUP + lid;
    if (k < valid) stage_keys[CLFORGE_PADDED(k)] = keys_in[first + k];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint j = 0; j < CLFORGE_ITEMS; ++j)
    if (mine + j < valid) key[j] = stage_keys[CLFORGE_PADDED(mine + j)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint r = 0; r < CLFORGE_ROWS; ++r) matrix[r * CLFORGE_STRIDE + lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);

  for (uint j = 0; j < CLFORGE_ITEMS; ++j) {
    if (mine + j < valid) {
      const uint d = clforge_digit(key[j], descending, shift, mask);
      const uint slot = (d >> 1) * CLFORGE_STRIDE + lid, low_bit = (d & 1u) * 16u;
      const uint before = matrix[slot];
      rank[j] = (before >> low_bit) & 0xffffu;
      matrix[slot] = before + (1u << low_bit);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // Each work-item scans its rows (consecutive digits) over the work-items, both halves at once.
  for (uint k = 0; k < CLFORGE_ROWS_PER_ITEM; ++k) {
    const uint r = lid * CLFORGE_ROWS_PER_ITEM + k;
    if (r >= CLFORGE_ROWS) break;
    uint s = 0;
    for (uint t = 0; t < CLFORGE_GROUP; ++t) {
      const uint c = matrix[r * CLFORGE_STRIDE + t];
      matrix[r * CLFORGE_STRIDE + t] = s;
      s += c;
    }
    tile_count[2 * r] = s & 0xffffu;
    tile_count[2 * r + 1] = s >> 16;
  }
#define CLFORGE_KEYS_BEFORE_IN_TILE(d) \
  ((matrix[((d) >> 1) * CLFORGE_STRIDE + lid] >> (((d) & 1u) * 16u)) & 0xffffu)
#else
  const uint lane = lid % CLFORGE_LANES, lane_group = lid / CLFORGE_LANES;
#define CLFORGE_POSITION(j) \
  (lane_group * (CLFORGE_LANES * CLFORGE_ITEMS) + (j) * CLFORGE_LANES + lane)
  local uint* lane_counts = (local uint*)area;  // [lane group][digit]
  local uint* peer_masks = lane_counts + CLFORGE_LANE_GROUPS * CLFORGE_RADIX;
  for (uint k = lid; k < 2 * CLFORGE_LANE_GROUPS * CLFORGE_RADIX; k += CLFORGE_GROUP)
    lane_counts[k] = 0;
  for (uint j = 0; j < CLFORGE_ITEMS; ++j)
    if (CLFORGE_POSITION(j) < valid) key[j] = keys_in[first + CLFORGE_POSITION(j)];
  barrier(CLK_LOCAL_MEM_FENCE);
  local uint* my_counts = lane_counts + lane_group * CLFORGE_RADIX;
  for (uint j = 0; j < CLFORGE_ITEMS; ++j) {
    const uint d = CLFORGE_POSITION(j) < valid ? clforge_digit(key[j], descending, shift, mask)
                                               : CLFORGE_RADIX;
    rank[j] = clforge_lane_rank(d, my_counts, peer_masks + lane_group * CLFORGE_RADIX, lane);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Per digit, an exclusive scan over the lane groups: the digit's keys in earlier lane groups.
  for (uint d = lid; d < CLFORGE_RADIX; d += CLFORGE_GROUP) {
    uint s = 0;
    for (uint g = 0; g < CLFORGE_LANE_GROUPS; ++g) {
      const uint c = lane_counts[g * CLFORGE_RADIX + d];
      lane_counts[g * CLFORGE_RADIX + d] = s;
      s += c;
    }
    tile_count[d] = s;
  }
#define CLFORGE_KEYS_BEFORE_IN_TILE(d) (my_counts[d])
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  uint my_sum = 0;  // keys in the tile of this work-item's DIGITS_PER_ITEM digits
  for (uint k = 0; k < CLFORGE_DIGITS_PER_ITEM; ++k)
    my_sum += tile_count[lid * CLFORGE_DIGITS_PER_ITEM + k];
  // Exclusive scan of the work-items' digit sums: where each work-item's first digit starts.
  uint from;
  CLFORGE_GROUP_SCAN(uint, CLFORGE_ADD, CLFORGE_GROUP, partial, lid, my_sum, from);  // common.cl
  uint running = partial[from + lid] - my_sum;
  for (uint k = 0; k < CLFORGE_DIGITS_PER_ITEM; ++k) {
    const uint d = lid * CLFORGE_DIGITS_PER_ITEM + k;
    digit_start[d] = running;
    running += tile_count[d];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint j = 0; j < CLFORGE_ITEMS; ++j) {
    if (CLFORGE_POSITION(j) < valid) {
      const uint d = clforge_digit(key[j], descending, shift, mask);
      rank[j] += digit_start[d] + CLFORGE_KEYS_BEFORE_IN_TILE(d);
    }
  }

  // Decoupled look-back, one work-item per digit (DIGITS_PER_ITEM digits each): publish the
  // tile's counts first, so successors can go on while this tile waits.
  global volatile ulong* my_status = status + (ulong)tile * CLFORGE_RADIX;
  for (uint k = 0; k < CLFORGE_DIGITS_PER_ITEM; ++k) {
    const uint d = lid * CLFORGE_DIGITS_PER_ITEM + k;
    my_status[d] = CLFORGE_STATUS(
        epoch, tile == 0 ? CLFORGE_LOOKBACK_PREFIX : CLFORGE_LOOKBACK_AGGREGATE, tile_count[d]);
  }
  // The walks of a work-item's digits go back together, so that their loads of one
  // predecessor's words are in flight at the same time rather than one walk after the other.
  ulong prefix[CLFORGE_DIGITS_PER_ITEM];
  bool walking[CLFORGE_DIGITS_PER_ITEM];
  for (uint k = 0; k < CLFORGE_DIGITS_PER_ITEM; ++k) {
    prefix[k] = 0;
    walking[k] = tile > 0;
  }
  for (uint p = tile; p > 0; --p) {
    global volatile const ulong* row = status + (ulong)(p - 1) * CLFORGE_RADIX;
    ulong word[CLFORGE_DIGITS_PER_ITEM];
    bool any = false;
    for (uint k = 0; k < CLFORGE_DIGITS_PER_ITEM; ++k)
      word[k] = walking[k] ? row[lid * CLFORGE_DIGITS_PER_ITEM + k] : 0;
    for (uint k = 0; k < CLFORGE_DIGITS_PER_ITEM; ++k) {
      if (!walking[k]) continue;
      while ((uint)(word[k] >> CLFORGE_EPOCH_SHIFT) != epoch)
        word[k] = row[lid * CLFORGE_DIGITS_PER_ITEM + k];
      prefix[k] += word[k] & ((1ul << CLFORGE_COUNT_BITS) - 1ul);
      walking[k] = ((word[k] >> CLFORGE_COUNT_BITS) & 3ul) != CLFORGE_LOOKBACK_PREFIX;
      any = any || walking[k];
    }
    if (!any) break;
  }
  for (uint k = 0; k < CLFORGE_DIGITS_PER_ITEM; ++k) {
    const uint d = lid * CLFORGE_DIGITS_PER_ITEM + k;
    if (tile > 0)
      my_status[d] = CLFORGE_STATUS(epoch, CLFORGE_LOOKBACK_PREFIX, prefix[k] + tile_count[d]);
    const ulong base = bases[bases_in_at + d];
    digit_offset[d] = base + prefix[k] - digit_start[d];
    if (tile == tiles - 1) bases[bases_out_at + d] = base + prefix[k] + tile_count[d];
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // the matrix is read; the area now stages the sorted tile

  for (uint j = 0; j < CLFORGE_ITEMS; ++j)
    if (CLFORGE_POSITION(j) < valid) stage_keys[rank[j]] = key[j];
#if CLFORGE_HAS_VALUES
  for (uint j = 0; j < CLFORGE_ITEMS; ++j)
    if (CLFORGE_POSITION(j) < valid)
      stage_values[rank[j]] = values_in[first + CLFORGE_POSITION(j)];
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = lid; k < valid; k += CLFORGE_GROUP) {
    const CLFORGE_KEY_T kk = stage_keys[k];
    const ulong to = digit_offset[clforge_digit(kk, descending, shift, mask)] + k;
    keys_out[to] = kk;
#if CLFORGE_HAS_VALUES
    values_out[to] = stage_values[k];
#endif
  }
}

#else
// ---- chunked (CPUs) -------------------------------------------------------------------------
// Digits of CLFORGE_CHUNK_DIGIT_BITS bits: CLFORGE_CHUNK_RADIX buckets (the host's mask selects
// the bits of a pass).
#ifndef CLFORGE_CHUNK_DIGIT_BITS
#define CLFORGE_CHUNK_DIGIT_BITS 8
#endif
#define CLFORGE_CHUNK_RADIX (1 << CLFORGE_CHUNK_DIGIT_BITS)

// Work-item c counts the digits of its chunk: counts[d * chunks + c].
kernel void clforge_sort_chunk_count(global const CLFORGE_KEY_T* keys, ulong n, ulong chunk,
                                     uint chunks, uint descending, uint shift, uint mask,
                                     global ulong* counts) {
  const uint c = get_global_id(0);
  if (c >= chunks) return;
  uint hist[CLFORGE_CHUNK_RADIX];
  for (uint d = 0; d < CLFORGE_CHUNK_RADIX; ++d) hist[d] = 0;
  const ulong start = c * chunk;
  const ulong end = min(n, start + chunk);
  for (ulong i = start; i < end; ++i) ++hist[clforge_digit(keys[i], descending, shift, mask)];
  for (uint d = 0; d < CLFORGE_CHUNK_RADIX; ++d) counts[(ulong)d * chunks + c] = hist[d];
}

// One work-item: exclusive scan of the (digit, chunk) table in place, so counts[d * chunks + c]
// becomes where chunk c's keys of digit d go.
kernel void clforge_sort_chunk_offsets(global ulong* counts, uint entries) {
  ulong running = 0;
  for (uint k = 0; k < entries; ++k) {
    const ulong c = counts[k];
    counts[k] = running;
    running += c;
  }
}

kernel void clforge_sort_chunk_scatter(global const CLFORGE_KEY_T* keys_in,
                                       global CLFORGE_KEY_T* keys_out,
#if CLFORGE_HAS_VALUES
                                       global const CLFORGE_VALUE_T* values_in,
                                       global CLFORGE_VALUE_T* values_out,
#endif
                                       ulong n, ulong chunk, uint chunks, uint descending,
                                       uint shift, uint mask, global const ulong* offsets) {
  const uint c = get_global_id(0);
  if (c >= chunks) return;
  ulong next[CLFORGE_CHUNK_RADIX];
  for (uint d = 0; d < CLFORGE_CHUNK_RADIX; ++d) next[d] = offsets[(ulong)d * chunks + c];
  const ulong start = c * chunk;
  const ulong end = min(n, start + chunk);
  for (ulong i = start; i < end; ++i) {
    const CLFORGE_KEY_T k = keys_in[i];
    const ulong to = next[clforge_digit(k, descending, shift, mask)]++;
    keys_out[to] = k;
#if CLFORGE_HAS_VALUES
    values_out[to] = values_in[i];
#endif
  }
}
#endif  // CLFORGE_ONESWEEP
