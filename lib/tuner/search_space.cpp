// SPDX-License-Identifier: MIT
// The built-in templates' search spaces (data: policy key -> candidate values, plus the
// constraints a device puts on them) and the workloads the tuner measures them on.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "../algorithms/tuning.hpp"
#include "clforge/algorithms/elementwise.hpp"
#include "clforge/algorithms/polygon_mask.hpp"
#include "clforge/algorithms/polygon_reference.hpp"
#include "clforge/algorithms/reduction.hpp"
#include "clforge/algorithms/scan.hpp"
#include "clforge/array.hpp"
#include "clforge/error.hpp"
#include "clforge/tuner.hpp"
#include "policy_hooks.hpp"
#include "search.hpp"
#include "tuning_store.hpp"

namespace clforge::detail {

namespace {

using tuner::point;

// The value of `key` in `p`, or `otherwise` when the space does not set it.
std::string value_of(const point& p, const char* key, const std::string& otherwise = "") {
  auto it = p.find(key);
  return it == p.end() ? otherwise : it->second;
}
std::size_t number_of(const point& p, const char* key, std::size_t otherwise = 0) {
  auto it = p.find(key);
  return it == p.end() ? otherwise : static_cast<std::size_t>(std::stoull(it->second));
}
// True when every key in `keys` holds the first value of its parameter: fields that mean
// nothing for this point's choice are pinned, so equivalent points are tried once.
bool pinned(const point& p, const std::vector<tuner::parameter>& space,
            std::initializer_list<const char*> keys) {
  for (const char* key : keys)
    for (const tuner::parameter& par : space)
      if (par.name == key && value_of(p, key) != par.values.front()) return false;
  return true;
}

/// One template's search space: the policy keys it searches, their candidate values, and the
/// points a device allows.
struct template_space {
  const char* name;       // saxpy, sum, scan, polygon
  const char* primitive;  // the policy: elementwise, reduce, scan, polygon
  std::vector<tuner::parameter> parameters;
  bool (*allowed)(const point& p, const std::vector<tuner::parameter>& space,
                  const device_info& info, std::size_t type_size);
};

const std::vector<template_space>& template_spaces() {
  static const std::vector<template_space> spaces = {
      {"saxpy",
       "elementwise",
       {{"kind", {"gpu", "cpu"}},
        {"group", {"64", "128", "256", "512", "1024"}},
        {"vector_width", {"0", "2", "4", "8"}},
        {"groups_per_cu", {"0", "16"}}},
       [](const point& p, const std::vector<tuner::parameter>& space, const device_info& info,
          std::size_t) {
         if (number_of(p, "group") > info.max_work_group_size) return false;
         // cpu: contiguous ranges per work-item; the gpu forms do not apply
         return value_of(p, "kind") == "gpu" || pinned(p, space, {"vector_width", "groups_per_cu"});
       }},
      {"sum",
       "reduce",
       {{"kind", {"gpu", "cpu"}},
        {"group", {"256", "1", "64", "128"}},
        {"unroll", {"8", "4", "16"}},
        {"groups_per_cu", {"16", "4", "8", "32"}},
        {"vector_bytes", {"0", "16", "32"}},
        {"grid", {"0", "1"}},
        {"single_launch", {"0", "1"}}},
       [](const point& p, const std::vector<tuner::parameter>& space, const device_info& info,
          std::size_t type_size) {
         if (number_of(p, "group") > info.max_work_group_size) return false;
         const std::size_t vector_bytes = number_of(p, "vector_bytes");
         // a vector load holds whole elements, 2 to 16 of them
         if (vector_bytes && (vector_bytes % type_size || vector_bytes / type_size > 16))
           return false;
         if (value_of(p, "kind") == "cpu") return pinned(p, space, {"vector_bytes", "grid"});
         if (number_of(p, "group") == 1) return false;       // one work-item groups: cpu only
         return vector_bytes || pinned(p, space, {"grid"});  // grid is a vector-load option
       }},
      {"scan",
       "scan",
       {{"algorithm", {"lookback", "reduce_then_scan"}},
        {"group", {"256", "64", "128"}},
        {"item_bytes", {"128", "64"}},
        {"layout", {"striped", "striped_vector"}},
        {"registers", {"1", "0"}},
        {"window", {"32", "16", "8"}},
        {"chunks_per_cu", {"32", "8", "16", "64"}},
        {"granularity", {"1024", "256", "4096"}},
        {"lanes", {"1", "2"}},
        {"rts_group", {"1", "16", "64"}}},
       [](const point& p, const std::vector<tuner::parameter>& space, const device_info& info,
          std::size_t type_size) {
         if (value_of(p, "algorithm") == "lookback") {
           if (number_of(p, "group") > info.max_work_group_size) return false;
           const std::size_t items =
               std::clamp<std::size_t>(number_of(p, "item_bytes") / type_size, 1, 32);
           // the tile passes through local memory
           if (number_of(p, "group") * items * type_size + 4096 > info.local_mem_bytes)
             return false;
           return pinned(p, space, {"chunks_per_cu", "granularity", "lanes", "rts_group"});
         }
         if (number_of(p, "rts_group") > info.max_work_group_size) return false;
         return pinned(p, space, {"group", "item_bytes", "layout", "registers", "window"});
       }},
      {"polygon",
       "polygon",
       {{"kernel", {"span", "row", "fill", "pixel"}},
        {"pixels", {"8", "1", "4", "16", "64", "256", "1024", "4096"}},
        {"group", {"128", "64", "256"}},
        {"serial", {"0", "1"}},
        {"wide_from", {"0"}}},
       [](const point& p, const std::vector<tuner::parameter>& space, const device_info& info,
          std::size_t) {
         const std::string kind = value_of(p, "kernel");
         const std::size_t pixels = number_of(p, "pixels");
         const std::size_t group = number_of(p, "group");
         if (kind != "row" && pixels > 256) return false;  // the kernels' limit
         if (kind == "row" && pixels < 64) return false;   // a row segment per work-item
         if (kind == "span" || kind == "fill") {
           if (group > info.max_work_group_size) return false;
           if (kind == "fill" && group * pixels * 4 + 64 > info.local_mem_bytes) return false;
           return kind == "span" || pinned(p, space, {"serial"});
         }
         return pinned(p, space, {"group", "serial"});
       }},
  };
  return spaces;
}

const template_space& space_named(const std::string& name) {
  std::string names;
  for (const template_space& s : template_spaces()) {
    if (name == s.name) return s;
    names += std::string(names.empty() ? "" : ", ") + s.name;
  }
  throw error("clforge::tuner: no template \"" + name + "\" to tune; the templates are " + names);
}

// The candidate's whole policy: the baseline's, with the point's keys replaced.
std::string candidate_settings(const std::string& baseline, const point& p) {
  std::string out = baseline;
  for (const auto& [key, value] : p) out += "," + key + "=" + value;
  return out;
}

// ---- workloads: inputs shared by every trial, the reference taken from the baseline ----

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(random);
  return v;
}

struct saxpy_work {
  array<float> x, y, y0;
  std::vector<float> reference;
};

class saxpy_trial : public tuning_trial {
 public:
  saxpy_trial(const context& ctx, std::shared_ptr<saxpy_work> w, const std::string& settings)
      : work_(std::move(w)), settings_(settings), kernel_([&] {
          candidate_scope scope("elementwise", settings_);
          kernel_options o;
          o.name = "tune_saxpy";
          return elementwise_kernel(ctx, "const float a, global const float* x, global float* y",
                                    "y[i] = a * x[i] + y[i]", o);
        }()) {}
  commands run(const queue& q) override {
    const event e = kernel_(q, 2.0f, work_->x, work_->y);
    return {e, e};
  }
  std::string check(const queue& q) override {
    work_->y0.copy_to(q, work_->y);
    run(q);
    std::vector<float> out = work_->y.to_host(q);
    if (work_->reference.empty()) {
      work_->reference = out;
      return "";
    }
    for (std::size_t i = 0; i < out.size(); ++i)
      if (!(std::fabs(out[i] - work_->reference[i]) <=
            1e-5f * std::max(1.0f, std::fabs(work_->reference[i]))))
        return "y[" + std::to_string(i) + "] = " + std::to_string(out[i]) + ", the baseline gave " +
               std::to_string(work_->reference[i]);
    return "";
  }

 private:
  std::shared_ptr<saxpy_work> work_;
  std::string settings_;
  elementwise_kernel kernel_;
};

struct sum_work {
  array<float> x;
  double magnitude = 0;  // sum of |x|
  bool have_reference = false;
  float reference = 0;
};

class sum_trial : public tuning_trial {
 public:
  sum_trial(const context& ctx, std::shared_ptr<sum_work> w, const std::string& settings)
      : work_(std::move(w)), settings_(settings), kernel_([&] {
          candidate_scope scope("reduce", settings_);
          reduction_options o;
          o.name = "tune_sum";
          return reduction_kernel<float>(ctx, "global const float* x", "x[i]", "a + b", "0.0f", o);
        }()) {}
  commands run(const queue& q) override {
    volatile float s = kernel_(q, work_->x);  // with the read-back: markers time it
    (void)s;
    return {};
  }
  std::string check(const queue& q) override {
    const float s = kernel_(q, work_->x);
    if (!work_->have_reference) {
      work_->have_reference = true;
      work_->reference = s;
      return "";
    }
    if (!(std::fabs(static_cast<double>(s) - work_->reference) <=
          1e-4 * std::max(1.0, work_->magnitude)))
      return "sum " + std::to_string(s) + ", the baseline gave " + std::to_string(work_->reference);
    return "";
  }

 private:
  std::shared_ptr<sum_work> work_;
  std::string settings_;
  reduction_kernel<float> kernel_;
};

struct scan_work {
  array<std::int32_t> in, out;
  std::vector<std::int32_t> reference;
};

class scan_trial : public tuning_trial {
 public:
  scan_trial(const context& ctx, std::shared_ptr<scan_work> w, const std::string& settings)
      : work_(std::move(w)), settings_(settings), kernel_([&] {
          candidate_scope scope("scan", settings_);
          scan_options o;
          o.name = "tune_scan";
          return scan_kernel<std::int32_t>(ctx, "global const int* in, global int* out", "in[i]",
                                           "a + b", "0", "out[i] = item", scan_kind::inclusive, o);
        }()) {}
  commands run(const queue& q) override {
    const auto e = kernel_.launch(q, work_->in, work_->out);
    return {e.first, e.last};
  }
  std::string check(const queue& q) override {
    work_->out.fill(q, -1);
    run(q);
    std::vector<std::int32_t> out = work_->out.to_host(q);
    if (work_->reference.empty()) {
      work_->reference = out;
      return "";
    }
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i] != work_->reference[i])
        return "out[" + std::to_string(i) + "] = " + std::to_string(out[i]) +
               ", the baseline gave " + std::to_string(work_->reference[i]);
    return "";
  }

 private:
  std::shared_ptr<scan_work> work_;
  std::string settings_;
  scan_kernel<std::int32_t> kernel_;
};

struct polygon_work {
  std::size_t side = 0;
  std::vector<point2f> vertices;
  array<std::uint8_t> image;
  std::vector<std::uint8_t> reference;
};

class polygon_trial : public tuning_trial {
 public:
  // The shape is chosen per launch: the candidate applies around each one. The first launch
  // (and so the build) happens here, on the build thread, into an image of its own.
  polygon_trial(const context& ctx, std::shared_ptr<polygon_work> w, const std::string& settings,
                const queue& own)
      : work_(std::move(w)), settings_(settings), masker_(ctx) {
    candidate_scope scope("polygon", settings_);
    array<std::uint8_t> scratch(own, work_->side * work_->side);
    masker_.mask_into(own, work_->vertices, scratch, work_->side, work_->side);
    own.finish();
  }
  commands run(const queue& q) override {
    candidate_scope scope("polygon", settings_);
    const event e = masker_.mask_into(q, work_->vertices, work_->image, work_->side, work_->side);
    return {e, e};
  }
  std::string check(const queue& q) override {
    work_->image.fill(q, 7);
    run(q);
    std::vector<std::uint8_t> out = work_->image.to_host(q);
    if (work_->reference.empty()) {
      work_->reference = out;
      return "";
    }
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i] != work_->reference[i])
        return "pixel " + std::to_string(i) + " is " + std::to_string(out[i]) +
               ", the baseline gave " + std::to_string(work_->reference[i]);
    return "";
  }

 private:
  std::shared_ptr<polygon_work> work_;
  std::string settings_;
  polygon_mask masker_;
};

}  // namespace

std::vector<std::pair<std::string, std::string>> builtin_space_settings() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const template_space& s : template_spaces())
    for (const tuner::parameter& p : s.parameters)
      for (const std::string& v : p.values) out.emplace_back(s.primitive, p.name + "=" + v);
  return out;
}

}  // namespace clforge::detail

namespace clforge::tuner {

std::vector<std::string> template_names() {
  std::vector<std::string> names;
  for (const auto& s : detail::template_spaces()) names.push_back(s.name);
  return names;
}

template_result tune_template(const queue& q, const std::string& name, std::size_t size,
                              const options& opt, bool store) {
  const detail::template_space& space = detail::space_named(name);
  if (!q.ctx()) throw error("clforge::tuner::tune_template: the queue is empty");
  if (size == 0) throw error("clforge::tuner::tune_template: the problem size is 0");
  const context ctx = q.ctx();
  const device_info& info = ctx.info();
  template_result out;
  out.name = space.name;
  out.primitive = space.primitive;

  // The baseline: the policy in effect without stored results.
  const std::string baseline_settings = detail::resolved_policy(ctx, space.primitive, false);
  point baseline;
  for (const tuner::parameter& p : space.parameters) {
    const std::string& all = baseline_settings;
    const std::string key = "," + p.name + "=";
    const std::size_t at = ("," + all).find(key);
    if (at == std::string::npos) continue;
    const std::size_t from = at + key.size() - 1;
    baseline[p.name] = all.substr(from, all.find(',', from) - from);
  }

  std::size_t type_size = 4;
  detail::trial_factory make;
  if (out.name == "saxpy") {
    auto w = std::make_shared<detail::saxpy_work>();
    w->x = array<float>::from_host(q, detail::random_floats(size, 1));
    w->y0 = array<float>::from_host(q, detail::random_floats(size, 2));
    w->y = w->y0.clone(q);
    out.problem = "float32/" + detail::size_bucket(size);
    make = [w, ctx, baseline_settings](const point& p, const queue&) {
      return std::unique_ptr<detail::tuning_trial>(
          new detail::saxpy_trial(ctx, w, detail::candidate_settings(baseline_settings, p)));
    };
  } else if (out.name == "sum") {
    auto w = std::make_shared<detail::sum_work>();
    const std::vector<float> x = detail::random_floats(size, 3);
    for (float v : x) w->magnitude += std::fabs(v);
    w->x = array<float>::from_host(q, x);
    out.problem = "float32/" + detail::size_bucket(size);
    make = [w, ctx, baseline_settings](const point& p, const queue&) {
      return std::unique_ptr<detail::tuning_trial>(
          new detail::sum_trial(ctx, w, detail::candidate_settings(baseline_settings, p)));
    };
  } else if (out.name == "scan") {
    auto w = std::make_shared<detail::scan_work>();
    std::mt19937 random(4);
    std::vector<std::int32_t> in(size);
    for (auto& v : in) v = static_cast<std::int32_t>(random() % 100);
    w->in = array<std::int32_t>::from_host(q, in);
    w->out = array<std::int32_t>(q, size);
    out.problem = "int32/" + detail::size_bucket(size);
    make = [w, ctx, baseline_settings](const point& p, const queue&) {
      return std::unique_ptr<detail::tuning_trial>(
          new detail::scan_trial(ctx, w, detail::candidate_settings(baseline_settings, p)));
    };
  } else {
    auto w = std::make_shared<detail::polygon_work>();
    w->side = std::max<std::size_t>(
        16, static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(size)))));
    w->vertices = random_star_polygon(24, w->side, 7);
    w->image = array<std::uint8_t>(q, w->side * w->side);
    type_size = 1;
    out.problem = "uint8/" + detail::size_bucket(w->side * w->side);
    make = [w, ctx, baseline_settings](const point& p, const queue& own) {
      return std::unique_ptr<detail::tuning_trial>(
          new detail::polygon_trial(ctx, w, detail::candidate_settings(baseline_settings, p), own));
    };
  }

  detail::search_space s;
  s.parameters = space.parameters;
  s.allowed = [&space, info, type_size](const point& p) {
    return space.allowed(p, space.parameters, info, type_size);
  };
  // Seeds: every tuning table's policy, over the baseline (the keys a table leaves out keep
  // the baseline's values), projected onto the searched keys.
  for (const std::string& table : detail::table_names()) {
    const std::string text = detail::table_policy(table, space.primitive);
    point seed = baseline;
    for (const tuner::parameter& p : space.parameters) {
      const std::string key = "," + p.name + "=";
      const std::size_t at = ("," + text).find(key);
      if (at == std::string::npos) continue;
      const std::size_t from = at + key.size() - 1;
      seed[p.name] = text.substr(from, text.find(',', from) - from);
    }
    if (out.name == "polygon") {
      // The space has one pixel count for every width: a table's two become the one this
      // problem's width gets.
      const auto number_in = [&](const char* key) {
        const std::string k = std::string(",") + key + "=";
        const std::size_t at = ("," + text).find(k);
        return at == std::string::npos
                   ? std::string()
                   : text.substr(at + k.size() - 1,
                                 text.find(',', at + k.size() - 1) - (at + k.size() - 1));
      };
      const std::string wide_from = number_in("wide_from");
      const std::size_t side =
          static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(size))));
      if (!wide_from.empty() && wide_from != "0" && side > std::stoull(wide_from))
        seed["pixels"] = number_in("pixels_wide");
      seed["wide_from"] = "0";
    }
    // A key the table sets that means nothing for its choice may be pinned in the space:
    // back to the first value, last keys first, until the constraint allows the seed.
    for (std::size_t k = space.parameters.size(); k-- > 0 && !s.allowed(seed);)
      seed[space.parameters[k].name] = space.parameters[k].values.front();
    s.seeds.push_back(seed);
  }
  out.search = detail::search(q, s, baseline, make, opt);
  q.finish();
  {
    // The policy exactly as the measured template got it (the table in effect under it).
    detail::candidate_scope scope(space.primitive,
                                  detail::candidate_settings(baseline_settings, out.search.best));
    out.policy = detail::resolved_policy(ctx, space.primitive, false);
  }
  if (store) {
    detail::store_tuned(info, {{space.primitive, out.problem, out.policy,
                                out.search.baseline_seconds, out.search.best_seconds}});
    out.stored = true;
  }
  return out;
}

}  // namespace clforge::tuner
