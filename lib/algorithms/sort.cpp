// SPDX-License-Identifier: MIT
// Radix sort (kernels/sort.cl): tuning policy per device class, temporaries, and the launches of
// the two algorithms. The glue to the runtime is build_sort_program (program cache) and the
// queue::launch calls in run_onesweep / run_chunked.
#include "clforge/algorithms/sort.hpp"

#include <algorithm>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <tuple>

#include "clforge/algorithms/selection.hpp"
#include "clforge/detail/checks.hpp"
#include "clforge/detail/codegen.hpp"
#include "template_engine.hpp"
#include "tuning/candidate.hpp"
#include "tuning/device_class.hpp"
#include "tuning/store.hpp"
#include "view_variants.hpp"
#include "workloads.hpp"

namespace clforge {
namespace detail {

namespace {

// The policy (path, tile shapes, chunking) is data: sort_policy in lib/tuning/policies.hpp, one
// row per device class in lib/tuning/tables.cpp, overridden by CLFORGE_TUNE="sort:..." and
// tuning::set(ctx, "sort", ...).

constexpr unsigned kRadix = 256;
constexpr unsigned kDigitBits = 8;
constexpr std::size_t kDigitSlices = 32;             // CLFORGE_DIGIT_SLICES in kernels/sort.cl
constexpr std::uint32_t kMaxEpoch = (1u << 24) - 1;  // 24 epoch bits in a tile status word

// Pooled buffers for commands on q. They go back with memory_pool::release_after (fenced by
// q): another queue must not get one while the sort's commands still use it.
std::shared_ptr<cl::Buffer> allocate(const queue& q, std::size_t bytes) {
  return q.ctx().pool().allocate(std::max<std::size_t>(bytes, 16), q.cl(), !q.out_of_order());
}
void release_fenced(const queue& q, std::shared_ptr<cl::Buffer>& buffer) {
  if (buffer) memory_pool::release_after(buffer, q.cl(), !q.out_of_order());
  buffer.reset();
}

void fill_zero(const queue& q, const cl::Buffer& buffer, std::size_t bytes) {
  translate_cl_errors(
      [&] { q.cl().enqueueFillBuffer(buffer, cl_uint(0), 0, (bytes + 3) / 4 * 4); });
}

event copy_buffer(const queue& q, const cl::Buffer& from, const cl::Buffer& to, std::size_t bytes) {
  return translate_cl_errors([&] {
    cl::Event e;
    q.cl().enqueueCopyBuffer(from, to, 0, 0, bytes, nullptr, &e);
    return event(e);
  });
}

}  // namespace

// Temporaries of a sort; in a sort_scratch they outlive the call.
struct sort_scratch_state {
  std::mutex mutex;
  const void* context_identity = nullptr;
  std::shared_ptr<cl::Buffer> alt_keys, alt_values, counts, bases, counters, status;
  std::size_t alt_keys_bytes = 0, alt_values_bytes = 0, counts_bytes = 0, bases_bytes = 0,
              status_bytes = 0;
  std::uint32_t epoch = 0;  // of the last onesweep launch
  // The queue of the last sort that used the buffers (a sort_scratch only): its commands may
  // still be pending, so another queue waits for them and the buffers go back fenced by it.
  cl::CommandQueue user;
  bool user_in_order = true;

  ~sort_scratch_state() { release_after_user(); }

  // Forgets the buffers (their handles go; see release_after and release_after_user).
  void release() {
    alt_keys.reset(), alt_values.reset(), counts.reset(), bases.reset(), counters.reset(),
        status.reset();
    alt_keys_bytes = alt_values_bytes = counts_bytes = bases_bytes = status_bytes = 0;
    epoch = 0;
  }
  // The buffers back to the pool after the commands enqueued so far on q.
  void release_after(const queue& q) {
    for (auto* buffer : {&alt_keys, &alt_values, &counts, &bases, &counters, &status})
      release_fenced(q, *buffer);
    release();
  }
  // The buffers back to the pool after the commands enqueued so far on the last user's queue
  // (sort_scratch::release, a sort in another context, the scratch's end).
  void release_after_user() {
    if (user())
      for (auto* buffer : {&alt_keys, &alt_values, &counts, &bases, &counters, &status})
        memory_pool::release_after(*buffer, user, user_in_order);
    release();
    user = cl::CommandQueue();
  }
  // Before a sort on q uses the buffers: the commands of the last user's queue that use them
  // come first. A marker there and a barrier on q that waits for it order them on the device
  // (the host does not wait); the same in-order queue runs its commands in order anyway.
  void take_over(const queue& q) {
    if (user() == q.get() && user_in_order) return;
    if (user()) {
      cl_event marker = nullptr;
      // The marker's queue is flushed: a command on another queue may wait for it only then.
      const bool ordered = clEnqueueMarkerWithWaitList(user(), 0, nullptr, &marker) == CL_SUCCESS &&
                           marker && clFlush(user()) == CL_SUCCESS &&
                           clEnqueueBarrierWithWaitList(q.get(), 1, &marker, nullptr) == CL_SUCCESS;
      if (!ordered) clFinish(user());  // wait here rather than share the buffers unordered
      if (marker) clReleaseEvent(marker);
    }
    user = q.cl();
    user_in_order = !q.out_of_order();
  }
  std::size_t bytes() const {
    return alt_keys_bytes + alt_values_bytes + counts_bytes + bases_bytes + status_bytes +
           (counters ? 16 : 0);
  }
  // Makes `buffer` hold at least `need` bytes; returns whether it is new.
  static bool ensure(const queue& q, std::shared_ptr<cl::Buffer>& buffer, std::size_t& have,
                     std::size_t need) {
    if (buffer && have >= need) return false;
    release_fenced(q, buffer);  // back to the pool first, so it can serve this request
    buffer = allocate(q, need);
    have = need;
    return true;
  }
  // The epoch of the next onesweep launch; clears the tile states and counters when needed.
  std::uint32_t next_epoch(const queue& q, bool fresh_status) {
    if (!counters) {
      counters = allocate(q, 16);
      fresh_status = true;
    }
    if (fresh_status || epoch >= kMaxEpoch) {
      fill_zero(q, *status, status_bytes);
      fill_zero(q, *counters, 8);
      epoch = 0;
      order_point(q);
    }
    return ++epoch;
  }
};

namespace {

struct sort_plan {
  const char* who;
  sort_key_type key;
  std::size_t n = 0;
  std::size_t value_size = 0;  // 0: keys only
  unsigned begin_bit = 0, end_bit = 0, passes = 0;
  bool descending = false;
  sort_path path = sort_path::chunked;
  sort_policy policy{};
  std::size_t group = 0, items = 0;  // onesweep tile, after fitting local memory
  unsigned digit_bits = 8;           // bits per pass (onesweep: 8; chunked: the policy's)
};

sort_path choose_path(const sort_policy& policy, const sort_options& options,
                      std::size_t value_size) {
  sort_path path = options.algorithm == sort_algorithm::onesweep  ? sort_path::onesweep
                   : options.algorithm == sort_algorithm::chunked ? sort_path::chunked
                                                                  : policy.path;
  // The table says how wide values onesweep takes on this device class.
  if (path == sort_path::onesweep && value_size > policy.onesweep_value_bytes)
    path = sort_path::chunked;
  return path;
}

program build_sort_program(const context& ctx, const sort_plan& p) {
  template_defines defines = {
      {"CLFORGE_KEY_T", p.key.name},
      {"CLFORGE_UKEY_T", p.key.unsigned_name},
      {"CLFORGE_KEY_KIND", std::to_string(p.key.kind)},
      {"CLFORGE_KEY_SIZE", std::to_string(p.key.bits / 8)},
      {"CLFORGE_HAS_VALUES", p.value_size ? "1" : "0"},
      {"CLFORGE_VALUE_T", moved_type_of_size(p.value_size ? p.value_size : 4)},
      {"CLFORGE_VALUE_SIZE", std::to_string(p.value_size ? p.value_size : 4)}};
  if (p.path == sort_path::onesweep)
    defines.insert(defines.end(), {{"CLFORGE_ONESWEEP", "1"},
                                   {"CLFORGE_GROUP", std::to_string(p.group)},
                                   {"CLFORGE_ITEMS", std::to_string(p.items)},
                                   {"CLFORGE_RANKING", std::to_string(int(p.policy.ranking))}});
  else
    defines.insert(defines.end(), {{"CLFORGE_ONESWEEP", "0"},
                                   {"CLFORGE_CHUNK_DIGIT_BITS", std::to_string(p.digit_bits)}});
  return build_template(ctx, std::string(p.who) + ": building the radix sort kernels failed",
                        defines, {{"sort", {}}});
}

// Fits the tile to the device. False where it cannot fit and `required` is false (the table
// chose onesweep: the chunked path runs instead); an error where the caller asked for onesweep.
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

struct buffers {
  const cl::Buffer* keys[2];
  const cl::Buffer* values[2];
};

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

}  // namespace

event radix_sort(const queue& q, const char* who, const cl::Buffer& keys, std::size_t n,
                 const sort_key_type& key, const cl::Buffer* values, std::size_t value_size,
                 const sort_options& options) {
  sort_plan p;
  p.who = who;
  p.key = key;
  p.n = n;
  p.value_size = values ? value_size : 0;
  p.descending = options.direction == order::descending;
  p.begin_bit = options.begin_bit;
  p.end_bit = options.end_bit == sort_options::all_bits ? key.bits : options.end_bit;
  if (p.begin_bit >= p.end_bit || p.end_bit > key.bits)
    throw error(std::string(who) + ": the bit range [" + std::to_string(options.begin_bit) + ", " +
                (options.end_bit == sort_options::all_bits ? std::string("all_bits")
                                                           : std::to_string(options.end_bit)) +
                ") is empty or not within the " + std::to_string(key.bits) + " bits of " +
                key.name + " keys");
  if (values && n > 0 && keys() == (*values)())
    throw error(std::string(who) + ": the keys and the values are the same array");
  const context& ctx = q.ctx();
  // Memory of another context is refused before anything is enqueued, as by every template.
  require_same_context(keys(), nullptr, ctx.get(), who, "the keys array");
  if (values) require_same_context((*values)(), nullptr, ctx.get(), who, "the values array");
  const device_info& info = ctx.info();
  if (key.kind == 2 && key.bits == 64) require_type_support(info, "double", who);
  if (n < 2) return {};
  p.policy = tuned<sort_policy>(ctx);
  p.path = choose_path(p.policy, options, p.value_size);
  if (p.path == sort_path::onesweep &&
      !fit_onesweep_tile(info, p, options.algorithm == sort_algorithm::onesweep))
    p.path = sort_path::chunked;
  p.digit_bits = p.path == sort_path::onesweep ? kDigitBits : unsigned(p.policy.chunk_digit_bits);
  p.passes = (p.end_bit - p.begin_bit + p.digit_bits - 1) / p.digit_bits;
  program prog;
  try {
    prog = build_sort_program(ctx, p);
  } catch (const error&) {
    // NVIDIA GPUs before Volta have neither the match instruction nor warp barriers: they rank
    // with group barriers.
    if (p.path != sort_path::onesweep ||
        (p.policy.ranking != sort_ranking::nv_match && p.policy.ranking != sort_ranking::nv_warp))
      throw;
    p.policy.ranking = sort_ranking::lanes;
    prog = build_sort_program(ctx, p);
  }

  sort_scratch_state temporaries;
  sort_scratch_state* s = &temporaries;
  // The call's own temporaries go back fenced by q, on every way out.
  struct fence_on_exit {
    sort_scratch_state& state;
    const queue& q;
    ~fence_on_exit() { state.release_after(q); }
  } fence{temporaries, q};
  std::unique_lock<std::mutex> lock;
  if (options.scratch) {
    s = options.scratch->state().get();
    lock = std::unique_lock<std::mutex>(s->mutex);
    if (s->context_identity != ctx.identity()) {
      s->release_after_user();
      s->context_identity = ctx.identity();
    }
    s->take_over(q);
  }
  sort_scratch_state::ensure(q, s->alt_keys, s->alt_keys_bytes, n * key.bits / 8);
  if (p.value_size)
    sort_scratch_state::ensure(q, s->alt_values, s->alt_values_bytes, n * value_size);
  buffers b{{&keys, s->alt_keys.get()}, {values, s->alt_values.get()}};

  order_point(q);
  event last = p.path == sort_path::onesweep ? run_onesweep(q, p, prog, *s, b)
                                             : run_chunked(q, p, prog, *s, b);
  if (p.passes % 2 == 1) {  // the result is in the second buffers
    last = copy_buffer(q, *s->alt_keys, keys, n * key.bits / 8);
    if (p.value_size) last = copy_buffer(q, *s->alt_values, *values, n * value_size);
    order_point(q);
  }
  return last;
}

void check_sort_lengths(std::size_t keys, std::size_t values) {
  if (keys != values)
    throw error("sort_by_key: " + std::to_string(keys) + " keys but " + std::to_string(values) +
                " values (they must have the same length)");
}

event radix_sort_ranges(const queue& q, const char* who, const sort_range& keys,
                        const sort_key_type& key, const sort_range* values, std::size_t value_size,
                        const sort_options& options) {
  if (values) check_sort_lengths(keys.n, values->n);
  const bool any_view = keys.is_view || (values && values->is_view);
  if (!any_view || keys.n < 2)  // (fewer than two: radix_sort only checks the call)
    return radix_sort(q, who, *keys.buffer, keys.n, key, values ? values->buffer : nullptr,
                      value_size, options);
  if (values && (*keys.buffer)() == (*values->buffer)())
    throw error(std::string(who) + ": the keys and the values are views of one array");
  // The views' own buffers are checked here: radix_sort sees the temporaries.
  require_same_context((*keys.buffer)(), nullptr, q.ctx().get(), who, "the keys array");
  if (values)
    require_same_context((*values->buffer)(), nullptr, q.ctx().get(), who, "the values array");
  // A view's elements go to a contiguous temporary, are sorted there and go back.
  struct staged {
    queue_temporary temporary;
    const cl::Buffer* buffer = nullptr;
  };
  auto stage = [&](const sort_range& r, std::size_t size) {
    staged s;
    s.buffer = r.buffer;
    if (r.is_view) {
      s.temporary = queue_temporary(q, r.n * size);
      copy_strided(q, who, *r.buffer, r.first, r.step, *s.temporary, 0, 1, r.n, size);
      s.buffer = &*s.temporary;
    }
    return s;
  };
  const std::size_t key_size = key.bits / 8;
  const staged k = stage(keys, key_size);
  staged v;
  if (values) v = stage(*values, value_size);
  event last =
      radix_sort(q, who, *k.buffer, keys.n, key, values ? v.buffer : nullptr, value_size, options);
  if (keys.is_view)
    last = copy_strided(q, who, *k.buffer, 0, 1, *keys.buffer, keys.first, keys.step, keys.n,
                        key_size);
  if (values && values->is_view)
    last = copy_strided(q, who, *v.buffer, 0, 1, *values->buffer, values->first, values->step,
                        values->n, value_size);
  return last;
}

std::string sort_path_for(const context& ctx, std::size_t value_size, const sort_options& options) {
  const sort_path path = choose_path(tuned<sort_policy>(ctx), options, value_size);
  return path == sort_path::onesweep ? "onesweep" : "chunked";
}

}  // namespace detail

sort_scratch::sort_scratch() : state_(std::make_shared<detail::sort_scratch_state>()) {}

std::size_t sort_scratch::bytes() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->bytes();
}

void sort_scratch::release() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->release_after_user();
}

// ---- radix_sort_kernel -----------------------------------------------------------------------

namespace detail {

struct radix_sort_state {
  context ctx;
  std::string name, who;
  std::vector<parameter> params;
  std::vector<std::size_t> sorted;  // indices of the permuted parameters
  unsigned key_bits = 32;
  sort_key_type key{};
  sort_algorithm algorithm = sort_algorithm::automatic;
  sort_scratch* scratch = nullptr;
  program prog;
  kernel keys32, keys64, permute32, permute64, store;
  // What calls passing array views are generated from (view_variants.hpp); a variant moves its
  // arrays back with the store kernel (whole arrays are copied).
  std::string arguments, key_expr;
  radix_sort_options options;
  bool is_variant = false;
  mutable view_variant_cache<radix_sort_state> views;
};

namespace {

/// Checks the arguments and builds the kernels; for a non-empty `view_pattern`, the variant
/// whose parameters and snippets take views in the pattern's places.
std::shared_ptr<radix_sort_state> build_radix_sort(const context& ctx, const std::string& arguments,
                                                   const std::string& key_expr,
                                                   const std::vector<std::string>& sort_by,
                                                   unsigned key_bits,
                                                   const radix_sort_options& options,
                                                   const std::string& view_pattern) {
  auto st = std::make_shared<radix_sort_state>();
  st->ctx = ctx;
  template_header header =
      start_template(ctx, "radix_sort_kernel", options.name.empty() ? "radix_sort" : options.name,
                     arguments, "i, n");
  st->name = header.name;
  st->who = header.who;
  st->params = header.params;
  if (key_expr.find_first_not_of(" \t\r\n") == std::string::npos)
    throw error(st->who + ": the key expression is empty");
  if (key_bits < 1 || key_bits > 64)
    throw error(st->who + ": key_bits is " + std::to_string(key_bits) + ", expected 1 to 64");
  if (sort_by.empty()) throw error(st->who + ": no array to permute (sort_by is empty)");
  for (const std::string& name : sort_by) {
    std::size_t k = 0;
    while (k < st->params.size() && st->params[k].name != name) ++k;
    if (k == st->params.size())
      throw error(st->who + ": sort_by names \"" + name + "\", which is not a parameter");
    const parameter& p = st->params[k];
    if (!p.is_pointer || p.address_space != "global" || p.is_const)
      throw error(st->who + ": sort_by names \"" + p.declaration +
                  "\"; permuted arrays are global pointers that are not const");
    if (std::find(st->sorted.begin(), st->sorted.end(), k) != st->sorted.end())
      throw error(st->who + ": sort_by names \"" + name + "\" twice");
    st->sorted.push_back(k);
  }
  st->key_bits = key_bits;
  st->key = key_bits <= 32 ? sort_key_of<cl_uint>() : sort_key_of<cl_ulong>();
  st->algorithm = options.algorithm;
  st->scratch = options.scratch;
  st->arguments = arguments;
  st->key_expr = key_expr;
  st->options = options;
  st->is_variant = !view_pattern.empty();

  std::string moved_parameters, moves, stores;
  for (std::size_t j = 0; j < st->sorted.size(); ++j) {
    const parameter& p = st->params[st->sorted[j]];
    const std::string moved = "clforge_moved_" + std::to_string(j);
    moved_parameters += ", global " + p.type + "* " + moved;
    moves += moved + "[clforge_i] = " + p.name + "[clforge_from];\n  ";
    stores += p.name + "[clforge_i] = " + moved + "[clforge_i];\n  ";
  }
  std::string list = parameter_list(st->params), key = key_expr;
  if (st->is_variant) {
    const view_variant_source v = rewrite_for_views(
        st->params, view_pattern, {key_expr, moves, stores}, options.preamble, st->who);
    list = v.arguments;
    key = v.snippets[0];
    moves = v.snippets[1];
    stores = v.snippets[2];
  }
  const std::string user_parameters = list.empty() ? "" : list + ", ";
  std::vector<template_file> files;
  for (const char* index : {"uint", "ulong"}) {
    const bool first = files.empty();
    const std::string suffix = first ? "32" : "64";
    files.push_back({"sort_key",
                     {{"name", st->name},
                      {"extensions", first ? header.fp64_pragma : ""},
                      {"preamble", first ? snippet(options.preamble) : ""},
                      {"keys_name", st->name + "_keys" + suffix},
                      {"permute_name", st->name + "_permute" + suffix},
                      {"user_parameters", user_parameters},
                      {"key_type", st->key.name},
                      {"key_bits", std::to_string(key_bits)},
                      {"index_type", index},
                      {"key_expr", snippet(key)},
                      {"moved_parameters", moved_parameters},
                      {"moves", moves}}});
  }
  if (st->is_variant)
    files.push_back({"sort_store",
                     {{"name", st->name},
                      {"store_name", st->name + "_store"},
                      {"user_parameters", user_parameters},
                      {"moved_parameters", moved_parameters},
                      {"stores", stores}}});
  try {
    st->prog = build_template(ctx, st->who, {}, files, options.build_options);
  } catch (const error& failure) {
    // A floating-point key with other key_bits than its width (kernels/sort_key.cl): an error
    // line of the log names the array of negative size (the source quoted below it names both).
    const std::string log = failure.what();
    auto error_names = [&](const std::string& marker) {
      std::size_t line = 0;
      while (line < log.size()) {
        const std::size_t end = std::min(log.find('\n', line), log.size());
        const std::string_view text(log.data() + line, end - line);
        if (text.find("error") != std::string_view::npos &&
            text.find(marker) != std::string_view::npos)
          return true;
        line = end + 1;
      }
      return false;
    };
    for (const auto& [marker, type, bits] :
         {std::tuple{"clforge_float_key_needs_key_bits_32", "float", 32},
          std::tuple{"clforge_double_key_needs_key_bits_64", "double", 64}})
      if (error_names(marker))
        throw error(st->who + ": the key expression is " + type + ", which sorts by its " +
                    std::to_string(bits) + " ordered bits: give key_bits " + std::to_string(bits) +
                    ", not " + std::to_string(key_bits));
    throw;
  }
  st->keys32 = st->prog.kernel(st->name + "_keys32");
  st->keys64 = st->prog.kernel(st->name + "_keys64");
  st->permute32 = st->prog.kernel(st->name + "_permute32");
  st->permute64 = st->prog.kernel(st->name + "_permute64");
  if (st->is_variant) st->store = st->prog.kernel(st->name + "_store");
  return st;
}

}  // namespace
}  // namespace detail

radix_sort_kernel::radix_sort_kernel(const context& ctx, const std::string& arguments,
                                     const std::string& key_expr,
                                     const std::vector<std::string>& sort_by, unsigned key_bits,
                                     const radix_sort_options& options)
    : state_(detail::build_radix_sort(ctx, arguments, key_expr, sort_by, key_bits, options, "")) {}

const std::string& radix_sort_kernel::source() const {
  return state_->prog.source();
}
const std::string& radix_sort_kernel::who() const {
  return state_->who;
}
const std::vector<detail::parameter>& radix_sort_kernel::parameters() const {
  return state_->params;
}

namespace detail {
namespace {

// Keys, sort, the moves into temporaries and back (copies, or a variant's store kernel).
event sort_and_move(const queue& q, const radix_sort_state& st, const argument_list& bound,
                    std::size_t n, const std::vector<std::size_t>& sizes) {
  const bool wide = n > 0xffffffffu;
  const std::size_t index_size = wide ? sizeof(cl_ulong) : sizeof(cl_uint);
  const queue_temporary keys(q, n * st.key.bits / 8);
  const queue_temporary index(q, n * index_size);

  order_point(q);
  q.launch(wide ? st.keys64 : st.keys32, ndrange(n), bound, cl_ulong(n), *keys, *index);
  order_point(q);
  sort_options o;
  o.end_bit = st.key_bits;
  o.algorithm = st.algorithm;
  o.scratch = st.scratch;
  radix_sort(q, st.who.c_str(), *keys, n, st.key, &*index, index_size, o);

  std::vector<queue_temporary> moved;
  for (std::size_t k : st.sorted) moved.emplace_back(q, n * sizes[k]);
  std::vector<cl::Buffer> targets;
  for (const queue_temporary& buffer : moved) targets.push_back(*buffer);
  q.launch(wide ? st.permute64 : st.permute32, ndrange(n), bound, cl_ulong(n), *index, targets);
  order_point(q);
  event last;
  if (st.is_variant) {
    last = q.launch(st.store, ndrange(n), bound, cl_ulong(n), targets);
  } else {
    for (std::size_t j = 0; j < moved.size(); ++j) {
      const cl::Buffer target(bound.memory(st.sorted[j]), /*retainObject=*/true);
      last = copy_buffer(q, *moved[j], target, n * sizes[st.sorted[j]]);
    }
  }
  order_point(q);
  return last;
}

}  // namespace
}  // namespace detail

event radix_sort_kernel::run(const queue& q, const detail::argument_list& bound,
                             const std::vector<std::size_t>& lengths,
                             const std::vector<std::size_t>& sizes) const {
  using namespace detail;
  const radix_sort_state& st = *state_;
  if (q.ctx().identity() != st.ctx.identity())
    throw error(st.who + ": the queue belongs to another context than the kernel");
  const std::size_t n = lengths[st.sorted[0]];
  for (std::size_t k : st.sorted)
    if (lengths[k] != n || sizes[k] == 0)
      throw error(st.who + ": the permuted arrays must be arrays or array views of one length; " +
                  st.params[st.sorted[0]].name + " has " + std::to_string(n) + " elements, " +
                  st.params[k].name + " " + std::to_string(lengths[k]));
  if (n == 0) return {};
  if (bound.has_views()) {
    const std::string pattern = bound.view_pattern();
    const auto variant = st.views.get(pattern, [&] {
      std::vector<std::string> sort_by;
      for (std::size_t k : st.sorted) sort_by.push_back(st.params[k].name);
      // st.ctx, as the kernel holds it (a handle that may not keep the context alive).
      return std::shared_ptr<const radix_sort_state>(build_radix_sort(
          st.ctx, st.arguments, st.key_expr, sort_by, st.key_bits, st.options, pattern));
    });
    return sort_and_move(q, *variant, bound.expanding_views(), n, sizes);
  }
  return sort_and_move(q, st, bound, n, sizes);
}

}  // namespace clforge

// ---- the tuner's workload: sorting uint32 keys -----------------------------------------------

namespace clforge::detail {

namespace {

struct sort_data {
  array<cl_uint> unsorted, keys;
  std::vector<cl_uint> sorted;  // computed on the host
};

class sort_trial final : public tuning_trial {
 public:
  // The policy is read per call: the candidate applies around each one. The first sort (and so
  // the build) happens here, on the build thread, into keys of its own.
  sort_trial(std::shared_ptr<sort_data> data, const std::string& settings, const queue& own)
      : data_(std::move(data)), settings_(settings) {
    candidate_scope scope("sort", settings_);
    array<cl_uint> scratch = data_->unsorted.clone(own);
    clforge::sort(own, scratch);
    own.finish();
  }
  commands run(const queue& q) override {
    candidate_scope scope("sort", settings_);
    const event first = data_->unsorted.copy_to(q, data_->keys);
    const event last = clforge::sort(q, data_->keys);
    return {first, last};
  }
  std::string check(const queue& q) override {
    run(q);
    return first_difference(data_->keys.to_host(q), data_->sorted, "keys", "std::sort");
  }

 private:
  std::shared_ptr<sort_data> data_;
  std::string settings_;
};

class sort_workload final : public tuning_workload {
 public:
  sort_workload(const queue& q, std::size_t n)
      : tuning_workload("uint32/" + size_bucket(n), sizeof(cl_uint)),
        data_(std::make_shared<sort_data>()) {
    std::mt19937 random(5);
    data_->sorted.resize(n);
    for (cl_uint& k : data_->sorted) k = static_cast<cl_uint>(random());
    data_->unsorted = array<cl_uint>::from_host(q, data_->sorted);
    data_->keys = array<cl_uint>(q, n);
    std::sort(data_->sorted.begin(), data_->sorted.end());
  }
  std::unique_ptr<tuning_trial> make(const std::string& settings, const queue& own) const override {
    return std::make_unique<sort_trial>(data_, settings, own);
  }

 private:
  std::shared_ptr<sort_data> data_;
};

}  // namespace

std::unique_ptr<tuning_workload> make_sort_workload(const queue& q, std::size_t size) {
  return std::make_unique<sort_workload>(q, size);
}

}  // namespace clforge::detail
