// SPDX-License-Identifier: MIT
// The radix sort's chunked path (CPUs; kernels/sort.cl with CLFORGE_ONESWEEP 0): one work-item
// per contiguous chunk; per pass a private histogram per chunk, an exclusive scan of the
// (digit, chunk) table and the scatter.
#include <algorithm>

#include "sort_engine.hpp"

namespace clforge::detail {

event run_chunked(const queue& q, const sort_plan& p, const program& prog, sort_scratch_state& s,
                  buffers b) {
  const context& ctx = q.ctx();
  const std::size_t n = p.n;
  const std::size_t max_chunks =
      p.policy.chunks_per_cu * std::max<std::size_t>(1, ctx.info().compute_units);
  std::size_t chunks = std::clamp<std::size_t>(n / p.policy.min_chunk, 1, max_chunks);
  // A chunk's private counts are 32-bit.
  chunks = std::max<std::size_t>(chunks, (n >> 31) + 1);
  const std::size_t chunk = (n + chunks - 1) / chunks;
  chunks = (n + chunk - 1) / chunk;
  const std::size_t radix = std::size_t(1) << p.digit_bits;
  sort_scratch_state::ensure(q, s.counts, s.counts_bytes, chunks * radix * sizeof(cl_ulong));

  kernel count = prog.kernel("clforge_sort_chunk_count");
  kernel offsets = prog.kernel("clforge_sort_chunk_offsets");
  kernel scatter = prog.kernel("clforge_sort_chunk_scatter");
  const ndrange per_chunk = ndrange(chunks).with_local(1);
  event last;
  int from = 0;
  for (unsigned pass = 0; pass < p.passes; ++pass) {
    const unsigned shift = p.begin_bit + pass * p.digit_bits;
    const unsigned bits = std::min(p.digit_bits, p.end_bit - shift);
    const cl_uint mask = (1u << bits) - 1u;
    q.launch(count, per_chunk, *b.keys[from], cl_ulong(n), cl_ulong(chunk), cl_uint(chunks),
             cl_uint(p.descending), cl_uint(shift), mask, *s.counts);
    order_point(q);
    q.launch(offsets, ndrange(1).with_local(1), *s.counts, cl_uint(chunks * radix));
    order_point(q);
    if (p.value_size)
      last = q.launch(scatter, per_chunk, *b.keys[from], *b.keys[1 - from], *b.values[from],
                      *b.values[1 - from], cl_ulong(n), cl_ulong(chunk), cl_uint(chunks),
                      cl_uint(p.descending), cl_uint(shift), mask, *s.counts);
    else
      last = q.launch(scatter, per_chunk, *b.keys[from], *b.keys[1 - from], cl_ulong(n),
                      cl_ulong(chunk), cl_uint(chunks), cl_uint(p.descending), cl_uint(shift), mask,
                      *s.counts);
    order_point(q);
    from = 1 - from;
  }
  return last;
}

}  // namespace clforge::detail
