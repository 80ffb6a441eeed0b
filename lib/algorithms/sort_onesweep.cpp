// SPDX-License-Identifier: MIT
// The radix sort's onesweep path (GPUs; kernels/sort.cl with CLFORGE_ONESWEEP 1): the tile fitted
// to the device, one histogram pass over every digit, then one onesweep launch per pass and
// portion of the keys, with decoupled look-back over the tiles' digit counts.
#include <algorithm>
#include <string>

#include "sort_engine.hpp"
#include "tuning/device_class.hpp"

namespace clforge::detail {

bool fit_onesweep_tile(const device_info& info, sort_plan& p, bool required) {
  p.group = std::min<std::size_t>(p.policy.group, kRadix);
  // Smaller groups on devices that take fewer work-items (lane groups stay 32 work-items).
  while (p.group > info.max_work_group_size && p.group > 32) p.group /= 2;
  p.items = p.policy.items;
  const std::size_t value_size = p.value_size;
  const bool nv_ranking =
      p.policy.ranking == sort_ranking::nv_match || p.policy.ranking == sort_ranking::nv_warp;
  if (nv_ranking && vendor_of(info) != device_vendor::nvidia)
    throw error(std::string(p.who) + ": the sort rankings nv_match and nv_warp need an NVIDIA " +
                "device, " + info.name + " is from " + info.vendor +
                " (use ranking=lanes or matrix)");
  if (!required && (p.group > info.max_work_group_size ||
                    onesweep_local_bytes(p.policy.ranking, p.group, 1, p.key.bits / 8, value_size) >
                        info.local_mem_bytes))
    return false;
  if (p.group > info.max_work_group_size)
    throw error(std::string(p.who) + ": onesweep needs work-groups of " + std::to_string(p.group) +
                " work-items, " + info.name + " allows " +
                std::to_string(info.max_work_group_size) + " (use sort_algorithm::chunked)");
  while (onesweep_local_bytes(p.policy.ranking, p.group, p.items, p.key.bits / 8, value_size) >
             info.local_mem_bytes &&
         p.items > 1)
    p.items = p.items > 8 ? p.items - 8 : p.items / 2;  // wide values: 24 keys -> 16, not 12
  const std::size_t need =
      onesweep_local_bytes(p.policy.ranking, p.group, p.items, p.key.bits / 8, value_size);
  if (need > info.local_mem_bytes)
    throw error(std::string(p.who) + ": onesweep needs " + std::to_string(need) +
                " bytes of local memory, " + info.name + " has " +
                std::to_string(info.local_mem_bytes) + " (use sort_algorithm::chunked)");
  return true;
}

event run_onesweep(const queue& q, const sort_plan& p, const program& prog, sort_scratch_state& s,
                   buffers b) {
  const context& ctx = q.ctx();
  const device_info& info = ctx.info();
  const std::size_t n = p.n;
  const std::size_t tile = p.group * p.items;
  kernel histograms = prog.kernel("clforge_sort_histograms");
  // The kernel's own limit can be below the device's (registers).
  const std::size_t hist_group =
      std::min({p.policy.hist_group, info.max_work_group_size, histograms.work_group_size()});
  const std::size_t max_groups =
      p.policy.hist_groups_per_cu * std::max<std::size_t>(1, info.compute_units);
  std::size_t hist_groups = std::clamp<std::size_t>(n / (hist_group * 16), 1, max_groups);
  // A multiple of 4: the histogram kernel reads four keys at once.
  const std::size_t chunk = ((n + hist_groups - 1) / hist_groups + 3) / 4 * 4;
  hist_groups = (n + chunk - 1) / chunk;

  const std::size_t total_tiles = (n + tile - 1) / tile;
  const std::size_t portion_tiles = std::min(total_tiles, p.policy.portion);
  const std::size_t portion_keys = portion_tiles * tile;

  sort_scratch_state::ensure(q, s.counts, s.counts_bytes,
                             hist_groups * p.passes * kRadix * sizeof(cl_uint));
  // bases: per pass the digits' first positions, two sets for the portions, then the partial
  // sums of the groups' counts (clforge_sort_digit_partials).
  const std::size_t partials_at = (p.passes + 2) * kRadix;
  sort_scratch_state::ensure(q, s.bases, s.bases_bytes,
                             (partials_at + p.passes * kDigitSlices * kRadix) * sizeof(cl_ulong));
  const bool fresh_status = sort_scratch_state::ensure(q, s.status, s.status_bytes,
                                                       portion_tiles * kRadix * sizeof(cl_ulong));

  kernel digit_partials = prog.kernel("clforge_sort_digit_partials");
  kernel digit_bases = prog.kernel("clforge_sort_digit_bases");
  kernel onesweep = prog.kernel("clforge_sort_onesweep");

  event last = q.launch(histograms, ndrange(hist_groups * hist_group).with_local(hist_group),
                        b.keys[0][0], cl_ulong(n), cl_ulong(chunk), cl_uint(p.descending),
                        cl_uint(p.begin_bit), cl_uint(p.end_bit), *s.counts);
  order_point(q);
  last =
      q.launch(digit_partials, ndrange(p.passes * kDigitSlices * kRadix).with_local(kRadix),
               *s.counts, cl_uint(hist_groups), cl_uint(p.passes), *s.bases, cl_uint(partials_at));
  order_point(q);
  last = q.launch(digit_bases, ndrange(p.passes * kRadix).with_local(kRadix), *s.bases,
                  cl_uint(partials_at));
  order_point(q);
  bool fresh = fresh_status;
  int from = 0;
  for (unsigned pass = 0; pass < p.passes; ++pass) {
    const unsigned shift = p.begin_bit + pass * kDigitBits;
    const unsigned bits = std::min(kDigitBits, p.end_bit - shift);
    const cl_uint mask = (1u << bits) - 1u;
    cl_uint in_at = pass * kRadix;
    std::size_t portion_index = 0;
    for (std::size_t start = 0; start < n; start += portion_keys, ++portion_index) {
      const std::size_t end = std::min(n, start + portion_keys);
      const std::size_t tiles = (end - start + tile - 1) / tile;
      const cl_uint out_at = (p.passes + (portion_index & 1)) * kRadix;
      const cl_uint epoch = s.next_epoch(q, fresh);
      fresh = false;
      ndrange range = ndrange(tiles * p.group).with_local(p.group);
      if (p.value_size)
        last =
            q.launch(onesweep, range, *b.keys[from], *b.keys[1 - from], *b.values[from],
                     *b.values[1 - from], cl_ulong(start), cl_ulong(end), cl_uint(p.descending),
                     cl_uint(shift), mask, *s.bases, in_at, out_at, *s.counters, *s.status, epoch);
      else
        last = q.launch(onesweep, range, *b.keys[from], *b.keys[1 - from], cl_ulong(start),
                        cl_ulong(end), cl_uint(p.descending), cl_uint(shift), mask, *s.bases, in_at,
                        out_at, *s.counters, *s.status, epoch);
      order_point(q);
      in_at = out_at;
    }
    from = 1 - from;
  }
  return last;
}

}  // namespace clforge::detail
