// SPDX-License-Identifier: MIT
// Radix sort (kernels/sort.cl): the plan (path from the tuning policy, bit range, checks), the
// build, the temporaries and sort_scratch, radix_sort over buffers and over views, and the
// tuner's workload. The two algorithms' launches: sort_onesweep.cpp, sort_chunked.cpp;
// radix_sort_kernel: radix_sort_kernel.cpp.
#include "clforge/algorithms/sort.hpp"

#include <algorithm>
#include <mutex>
#include <random>
#include <string>

#include "clforge/algorithms/selection.hpp"
#include "clforge/detail/checks.hpp"
#include "sort_engine.hpp"
#include "tuning/candidate.hpp"
#include "tuning/store.hpp"
#include "tuning/workload.hpp"

namespace clforge {
namespace detail {

namespace {

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
  // The callers have checked the buffers' contexts: radix_sort_ranges the user's arrays, and
  // radix_sort_kernel sorts temporaries of q's context.
  const context& ctx = q.ctx();
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

namespace {
void check_sort_lengths(std::size_t keys, std::size_t values) {
  if (keys != values)
    throw error("sort_by_key: " + std::to_string(keys) + " keys but " + std::to_string(values) +
                " values (they must have the same length)");
}
}  // namespace

event radix_sort_ranges(const queue& q, const char* who, const sort_range& keys,
                        const sort_key_type& key, const sort_range* values, std::size_t value_size,
                        const sort_options& options) {
  if (values) check_sort_lengths(keys.n, values->n);
  // Memory of another context is refused before anything is enqueued, empty arrays included.
  require_same_context((*keys.buffer)(), keys.context, q.ctx().get(), who, "the keys array");
  if (values)
    require_same_context((*values->buffer)(), values->context, q.ctx().get(), who,
                         "the values array");
  const bool any_view = keys.is_view || (values && values->is_view);
  if (!any_view || keys.n < 2)  // (fewer than two: radix_sort only checks the call)
    return radix_sort(q, who, *keys.buffer, keys.n, key, values ? values->buffer : nullptr,
                      value_size, options);
  if (values && (*keys.buffer)() == (*values->buffer)())
    throw error(std::string(who) + ": the keys and the values are views of one array");
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

std::unique_ptr<tuning_workload> sort_policy::workload(const queue& q, std::size_t size) {
  return std::make_unique<sort_workload>(q, size);
}

}  // namespace clforge::detail
