// SPDX-License-Identifier: MIT
// histogram_kernel (kernels/histogram.cl): generation from the tuned policy, launch.
#include "clforge/algorithms/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "clforge/detail/checks.hpp"
#include "clforge/detail/codegen.hpp"
#include "template_engine.hpp"
#include "tuning/candidate.hpp"
#include "tuning/store.hpp"
#include "tuning/workload.hpp"
#include "view_variants.hpp"

namespace clforge {
namespace detail {

struct histogram_state : template_state_of<histogram_options, histogram_kernel> {
  context ctx;
  std::size_t bins = 0, group = 1, groups = 1;
  bool privatised = true, check_lengths = true;
  kernel k, k_strided;  // step 1; any step
  kernel k_vector;      // step 1 from index 0, four indices per load (where `vector`)
  bool vector = false;
  // What calls passing array views, and rebuilds under a new tuning, are generated from.
  std::string arguments, bin_expr;
};

namespace {
// kernels/histogram_vector.cl for a bin expression whose arrays `lanes` reads at index i: four
// lanes of each array per load, each lane's bin from the rewritten expression.
template_file vector_kernel(const std::string& name, const std::string& user_parameters,
                            const std::string& bin_expr, const lane_rewrite& lanes,
                            const std::vector<parameter>& params) {
  std::string lane_parameters, declarations, loads, counts;
  for (const parameter& a : lanes.arrays) {
    const std::string vector = "clforge_vector_" + a.name;
    lane_parameters += ", " + a.type + " clforge_lane_" + a.name;
    declarations += a.type + "4 " + vector + "[CLFORGE_UNROLL];";
    loads += vector + "[clforge_u] = ((global const " + a.type + "4*)" + a.name +
             ")[clforge_v + clforge_u * CLFORGE_GROUP];";
  }
  for (int j = 0; j < 4; ++j) {
    counts += "CLFORGE_COUNT_IN_RANGE(clforge_bin_at(clforge_i + " + std::to_string(j) + ", n";
    for (const parameter& a : lanes.arrays)
      counts += ", clforge_vector_" + a.name + "[clforge_u].s" + std::to_string(j);
    counts += comma_arguments(params) + "));";
  }
  return template_file{"histogram_vector",
                       {{"name", name},
                        {"user_parameters", user_parameters},
                        {"comma_parameters", comma_parameters(params)},
                        {"lane_parameters", lane_parameters},
                        {"lane_expr", snippet(lanes.text)},
                        {"lane_declarations", declarations},
                        {"lane_loads", loads},
                        {"lane_counts", counts},
                        {"bin_expr", bin_expr}}};
}
}  // namespace

}  // namespace detail

histogram_kernel::histogram_kernel(const context& ctx, const std::string& arguments,
                                   const std::string& bin_expr, std::size_t bins,
                                   const histogram_options& options) {
  using namespace detail;
  auto st = std::make_shared<histogram_state>();
  const template_header header =
      st->start(ctx, "histogram_kernel", options, "histogram", arguments, "i, n");
  st->ctx = ctx;
  if (bin_expr.find_first_not_of(" \t\r\n") == std::string::npos)
    throw error(st->who + ": the bin expression is empty");
  if (bins == 0 || bins > 0x7fffffffu)
    throw error(st->who + ": " + std::to_string(bins) + " bins; expected 1 to 2^31 - 1");
  st->bins = bins;
  st->check_lengths = options.check_array_lengths;
  st->arguments = arguments;
  st->bin_expr = bin_expr;

  const device_info& info = ctx.info();
  st->stamp = tuning_stamp(ctx);
  const histogram_policy policy = tuned<histogram_policy>(ctx);
  st->group = std::min(policy.group, info.max_work_group_size);
  st->groups = policy.groups_per_cu * std::max<std::size_t>(1, info.compute_units);
  st->privatised =
      bins <= policy.local_bins && bins * sizeof(cl_uint) + 256 <= info.local_mem_bytes;
  // unroll indices per work-item and round: their loads are in flight together, and a CPU
  // computes their bins as one vector. GPUs: up to 8 copies of the counts where they fit half
  // the local memory (fewer atomics on one address).
  std::size_t copies = 1;
  while (st->group > 1 && st->privatised && copies < 8 &&
         2 * copies * bins * sizeof(cl_uint) + 256 <= info.local_mem_bytes / 2)
    copies *= 2;

  // The vector kernel: GPU shapes (several work-items per group; a CPU's one work-item already
  // reads its chunk as vectors) and a bin expression that reads its arrays of 4- and 8-byte
  // elements only at index i.
  const lane_rewrite lanes =
      st->group > 1 ? read_by_lanes(st->params, bin_expr, "clforge_lane_", true) : lane_rewrite{};
  st->vector = !lanes.arrays.empty() &&
               std::all_of(lanes.arrays.begin(), lanes.arrays.end(), [](const parameter& a) {
                 static const std::set<std::string> types = {"int",  "uint",  "float",
                                                             "long", "ulong", "double"};
                 return types.count(a.type) > 0;
               });

  const std::string list = parameter_list(st->params);
  const std::string user_parameters = list.empty() ? "" : list + ", ";
  const std::string counted = snippet(bin_expr);
  // The counting kernel twice: over the indices [0, n) (consecutive loads a CPU vectorises)
  // and over first + k * step; the vector kernel beside them where it applies.
  auto count_kernel = [&](const std::string& name, const std::string& index,
                          const std::string& range_parameters) {
    return template_file{"histogram_count",
                         {{"name", name},
                          {"user_parameters", user_parameters},
                          {"index", index},
                          {"range_parameters", range_parameters},
                          {"bin_expr", counted}}};
  };
  std::vector<template_file> files = {
      {"histogram",
       {{"name", st->name},
        {"extensions", header.fp64_pragma},
        {"preamble", snippet(options.preamble)}}},
      count_kernel(st->name, "(k)", ""),
      count_kernel(st->name + "_strided", "(clforge_first + (k) * clforge_step)",
                   "ulong clforge_first, ulong clforge_step,")};
  if (st->vector)
    files.push_back(
        vector_kernel(st->name + "_vector", user_parameters, counted, lanes, st->params));
  st->group = build_for_group(st->group, [&](std::size_t group) {
    st->prog = build_template(ctx, st->who,
                              {{"CLFORGE_BINS", std::to_string(bins)},
                               {"CLFORGE_GROUP", std::to_string(group)},
                               {"CLFORGE_PRIVATISED", st->privatised ? "1" : "0"},
                               {"CLFORGE_COPIES", std::to_string(copies)},
                               {"CLFORGE_UNROLL", std::to_string(policy.unroll)}},
                              files, options.build_options);
    st->k = st->prog.kernel(st->name);
    st->k_strided = st->prog.kernel(st->name + "_strided");
    if (st->vector) st->k_vector = st->prog.kernel(st->name + "_vector");
    return fitted_group(group, {&st->k, &st->k_strided, &st->k_vector});
  });
  state_ = std::move(st);
}

std::size_t histogram_kernel::bins() const {
  return state_->bins;
}
bool histogram_kernel::privatised() const {
  return state_->privatised;
}
const std::string& histogram_kernel::source() const {
  return state_->prog.source();
}
const std::string& histogram_kernel::who() const {
  return state_->who;
}
const std::vector<detail::parameter>& histogram_kernel::parameters() const {
  return state_->params;
}

array<cl_uint> histogram_kernel::count(const queue& q, const detail::resolved_range& r,
                                       const detail::argument_list& bound) const {
  array<cl_uint> counts(q, state_->bins);
  add(q, counts, r, bound, true);
  return counts;
}

namespace detail {
namespace {
// The sums a privatised histogram's groups add to on one queue (kernels/histogram.cl): bins
// words and the count of finished groups, zeroed once; each launch leaves them zero.
const cl::Buffer& sums_for(const queue& q, const std::shared_ptr<const histogram_state>& st) {
  return zeroed_words_per_queue(q, st, st->bins + 1, "a histogram's sums");
}
}  // namespace
}  // namespace detail

event histogram_kernel::add(const queue& q, array<cl_uint>& counts, const detail::resolved_range& r,
                            const detail::argument_list& bound, bool overwrite) const {
  using namespace detail;
  const histogram_state& st = *state_;
  if (q.ctx().identity() != st.ctx.identity())
    throw error(st.who + ": the queue belongs to another context than the kernel");
  if (counts.size() < st.bins)
    throw error(st.who + ": the counts array has " + std::to_string(counts.size()) +
                " elements, the histogram " + std::to_string(st.bins) + " bins");
  if (r.count > 0xffffffffu)
    throw error(st.who + ": " + std::to_string(r.count) +
                " indices; counts are 32-bit, so a call counts fewer than 2^32");
  if (auto retuned = st.retuned.get(st.stamp, st.ctx, [&] {
        // st.ctx, not q.ctx(): as for the view variants below.
        return std::make_shared<const histogram_kernel>(st.ctx, st.arguments, st.bin_expr, st.bins,
                                                        st.options);
      }))
    return retuned->add(q, counts, r, bound, overwrite);
  check_call(q, bound, r, st.check_lengths);
  // Counts written from scratch: a privatised kernel writes them in its launch, else they are
  // zeroed first.
  const bool zero_first = overwrite && (r.count == 0 || !st.privatised);
  if (zero_first) {
    counts.fill(q, 0, 0, st.bins);
    order_point(q);
  }
  if (r.count == 0) return {};
  if (bound.has_views()) {
    const std::string pattern = bound.view_pattern();
    auto variant = st.views.get(pattern, [&] {
      view_variant_source v =
          rewrite_for_views(st.params, pattern, {st.bin_expr}, st.options.preamble, st.who);
      histogram_options o = st.options;
      o.check_array_lengths = false;  // checked above, on the views' lengths
      // st.ctx, not q.ctx(): a histogram kept by its context holds a handle that does not keep
      // the context alive, and so must its variants.
      return std::make_shared<const histogram_kernel>(st.ctx, v.arguments, v.snippets[0], st.bins,
                                                      o);
    });
    return variant->add(q, counts, r, bound.expanding_views(), overwrite && !zero_first);
  }
  // Each group a contiguous chunk of at least 32 elements per work-item: a group's fixed work
  // (clearing its local counts, adding them to the result with global atomics) pays off only
  // over enough elements (on the H100 a 2^22-element histogram took half the time with an
  // eighth of the groups; bench/results).
  // The vector kernel's chunks count vectors of four indices.
  const std::size_t n = static_cast<std::size_t>(r.count);
  const bool contiguous = r.first == 0 && r.step == 1;
  const bool vector = contiguous && st.vector;
  const std::size_t units = vector ? n / 4 : n;
  const std::size_t min_per_item = vector ? 8 : 32;
  const std::size_t min_chunk = min_per_item * st.group;
  std::size_t groups = std::clamp<std::size_t>((units + min_chunk - 1) / min_chunk, 1, st.groups);
  const std::size_t chunk = std::max<std::size_t>(1, (units + groups - 1) / groups);
  groups = std::max<std::size_t>(1, (units + chunk - 1) / chunk);
  const ndrange grid = ndrange(groups * st.group).with_local(st.group);
  order_point(q);
  const auto launch = [&](const auto&... counts_arguments) {
    return vector ? q.launch(st.k_vector, grid, bound, cl_ulong(n), cl_ulong(chunk),
                             counts_arguments...)
           : contiguous
               ? q.launch(st.k, grid, bound, cl_ulong(n), cl_ulong(chunk), counts_arguments...)
               : q.launch(st.k_strided, grid, bound, cl_ulong(r.first), cl_ulong(r.step),
                          cl_ulong(n), cl_ulong(chunk), counts_arguments...);
  };
  event e = st.privatised ? launch(counts.buffer(), sums_for(q, state_),
                                   cl_uint(overwrite && !zero_first ? 1 : 0))
                          : launch(counts.buffer());
  order_point(q);
  return e;
}

namespace detail {

void check_histogram_range(std::size_t bins, double lo, double hi) {
  if (bins == 0) throw error("histogram: 0 bins (at least 1)");
  if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi) || !std::isfinite(hi - lo))
    throw error("histogram: the range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                "] is empty or not finite (lo < hi, both finite)");
}

void check_histogram_scale(double width, double scale) {
  if (!std::isfinite(width) || !std::isfinite(scale) || !(scale > 0))
    throw error("histogram: hi - lo = " + std::to_string(width) +
                " gives no finite bin width in the value type");
}

namespace {
// Edge k of numpy.histogram's uniform bins: np.linspace(lo, hi, bins + 1)[k], computed in
// double as k * step + lo (two roundings: the product is kept apart, so no compiler fuses it
// into one fma), or (k / bins) * delta + lo where step is 0; the last edge is hi.
double numpy_edge(std::size_t k, std::size_t bins, double lo, double hi) {
  if (k == bins) return hi;
  const double delta = hi - lo, step = delta / static_cast<double>(bins);
  volatile double product = step == 0 ? static_cast<double>(k) / static_cast<double>(bins) * delta
                                      : static_cast<double>(k) * step;
  return product + lo;
}

template <class T>
std::vector<T> numpy_edges(std::size_t bins, double lo, double hi) {
  std::vector<T> edges(bins + 1);
  for (std::size_t k = 0; k <= bins; ++k) {
    edges[k] = static_cast<T>(numpy_edge(k, bins, lo, hi));
    if (k > 0 && !(edges[k - 1] < edges[k]))
      throw error("histogram: " + std::to_string(bins) + " bins over [" + std::to_string(lo) +
                  ", " + std::to_string(hi) + "] give equal edges " + std::to_string(k - 1) +
                  " and " + std::to_string(k) + " in " + type_name<T>() +
                  " (more bins than the range resolves; use fewer bins or a wider range)");
  }
  return edges;
}
}  // namespace

double histogram_margin(std::size_t bins, double lo, double hi, double scale,
                        std::size_t value_size) {
  const bool is_float = value_size == sizeof(float);
  const double u = is_float ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  const double u_double = std::ldexp(1.0, -53);
  const double tiny =
      is_float ? double(std::numeric_limits<float>::min()) : std::numeric_limits<double>::min();
  const double width = hi - lo, n = static_cast<double>(bins);
  // In bin units (1 = one bin): the kernel's t = (x - lo) * scale takes about 6 roundings of T
  // from the exact position (hi - lo in double then T, bins in T, the quotient, the difference,
  // the product, the fraction), at most n: `estimate`, plus a flushed subnormal difference.
  // An edge, k * step + lo in double then T, lies within a rounding of T and four of double of
  // its exact place, at most max(|lo|, |hi|) + width: `edge`. A fraction at least
  // estimate + edge from both borders is in its bin; twice that is kept as a guard.
  const double estimate = 8 * u * n + 4 * tiny * scale;
  const double edge =
      (u + 8 * u_double) * (std::max(std::fabs(lo), std::fabs(hi)) + width) * n / width;
  const double margin = 2 * (estimate + edge);
  // Beyond a quarter bin (values far from 0 in few bins of a narrow range): every value takes
  // the edge test.
  return std::isfinite(margin) && margin < 0.25 ? margin : 2.0;
}

namespace {
// numpy's edges per (value type, bins, lo, hi), kept with the context (up to max_tables, all
// dropped when one more comes) and shared by its queues (read-only once made): written on every
// call, they made the host wait for the queue to drain before each histogram.
struct edge_tables {
  static constexpr std::size_t max_tables = 64;
  using key = std::tuple<std::size_t, std::size_t, std::uint64_t, std::uint64_t>;
  mutable std::mutex mutex;
  mutable std::map<key, std::shared_ptr<const cl::Buffer>> tables;
};

std::uint64_t bits_of(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
}  // namespace

std::shared_ptr<const cl::Buffer> histogram_edges(const context& ctx, std::size_t bins, double lo,
                                                  double hi, std::size_t value_size) {
  const auto store = per_context_as<edge_tables>(ctx, "clforge.histograms", "edges",
                                                 [] { return std::make_shared<edge_tables>(); });
  const edge_tables::key key{value_size, bins, bits_of(lo), bits_of(hi)};
  {
    std::lock_guard<std::mutex> lock(store->mutex);
    const auto found = store->tables.find(key);
    if (found != store->tables.end()) return found->second;
  }
  auto make = [&](auto values) {
    return translate_cl_errors([&] {
      return std::make_shared<const cl::Buffer>(ctx.cl(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                                values.size() * value_size, values.data());
    });
  };
  std::shared_ptr<const cl::Buffer> made = value_size == sizeof(float)
                                               ? make(numpy_edges<float>(bins, lo, hi))
                                               : make(numpy_edges<double>(bins, lo, hi));
  std::lock_guard<std::mutex> lock(store->mutex);
  if (store->tables.size() >= edge_tables::max_tables) store->tables.clear();
  return store->tables.emplace(key, std::move(made)).first->second;
}

namespace {
// clforge::histogram's kernel: values of `type` (float or double) counted in numpy's `bins`
// equal-width bins over [lo, hi]; its arguments x, lo, hi, scale, margin, edges.
histogram_kernel equal_width_kernel(const context& ctx, const std::string& type, std::size_t bins,
                                    const std::string& name) {
  histogram_options o;
  o.name = name;
  // The edges are not an array of n values.
  o.check_array_lengths = false;
  const std::string last = std::to_string(bins - 1);
  // The bin below t = (x - lo) * scale <= bins (x within [lo, hi]) in 32 bits where it
  // fits with room to spare: a 64-bit conversion costs a GPU several instructions.
  const std::string index = bins <= (std::size_t(1) << 24) ? "int" : "long";
  // numpy.histogram's rule: the bin estimated in T as numpy does, (x - lo) * (bins / (hi -
  // lo)) (a product: a division costs the GPU more than the rest of the work per value),
  // moved down one below its lower edge or up one at or above its upper edge (not past
  // the last bin, which holds hi). The edges are read only for estimates within `margin`
  // of a bin border (histogram_margin), and without branches there: a table read for
  // every value, or branches around the reads, made the pass twice as slow on a GPU
  // (bench/results). The clamp to [-1, last] keeps the reads in bounds, sends estimates
  // at or past hi to the edge test and gives every value a convertible estimate (NaN
  // clamps to -1). No value outside [lo, hi] passes the margin test: below lo the
  // fraction is at most 0, past hi it is more than 1 - margin (the estimate's error is
  // within margin / 2), and NaN's fraction fails both comparisons. So the range is tested
  // on the edge test's path only (a test on every value made the kernel slower on GPUs).
  o.preamble = "static inline long clforge_bin_of(" + type + " x, " + type + " lo, " + type +
               " hi, " + type + " scale, " + type + " margin, global const " + type +
               "* edges) {\n" + "  const " + type + " t = (x - lo) * scale;\n" + "  const " +
               index + " b = (" + index + ")clamp(t, (" + type + ")-1, (" + type + ")" + last +
               ");\n" + "  const " + type + " f = t - (" + type + ")b;\n" +
               "  if (f >= margin && f <= 1 - margin) return b;\n" +
               "  if (!(x >= lo && x <= hi)) return -1;\n" +
               "  return b - (x < edges[b]) + (b != " + last + " && x >= edges[b + 1]);\n}\n";
  return histogram_kernel(ctx,
                          "global const " + type + "* x, " + type + " lo, " + type + " hi, " +
                              type + " scale, " + type + " margin, global const " + type +
                              "* edges",
                          "clforge_bin_of(x[i], lo, hi, scale, margin, edges)", bins, o);
}
}  // namespace

const histogram_kernel& equal_width_histogram(const context& ctx, const std::string& type,
                                              std::size_t bins) {
  // Kept with the context, built with a handle that does not keep the context alive.
  const auto made = per_context_as<histogram_kernel>(
      ctx, "clforge.histograms", type + "|" + std::to_string(bins), [&] {
        return std::make_shared<histogram_kernel>(
            equal_width_kernel(weak_context(ctx), type, bins, "histogram"));
      });
  return *made;  // the context holds it
}

}  // namespace detail
}  // namespace clforge

// ---- the tuner's workload: clforge::histogram of float32 values in 256 bins -----------------

namespace clforge::detail {

namespace {

constexpr std::size_t kWorkloadBins = 256;

struct histogram_data {
  std::size_t n = 0;
  array<float> x;
  array<cl_uint> counts;
  std::vector<cl_uint> expected;           // computed on the host
  equal_width_arguments<float> arguments;  // clforge::histogram's over [0, 1]
};

class histogram_trial final : public tuning_trial {
 public:
  histogram_trial(std::shared_ptr<histogram_data> data, histogram_kernel k)
      : data_(std::move(data)), kernel_(std::move(k)) {}
  commands run(const queue& q) override {
    // Counts add up over runs; only check() reads them.
    const equal_width_arguments<float>& a = data_->arguments;
    const event e = kernel_.accumulate(q, data_->counts, data_->n, data_->x, 0.0f, 1.0f, a.scale,
                                       a.margin, *a.edges);
    return {e, e};
  }
  std::string check(const queue& q) override {
    data_->counts.fill(q, 0);
    run(q);
    return first_difference(data_->counts.to_host(q), data_->expected, "bin", "the host");
  }

 private:
  std::shared_ptr<histogram_data> data_;
  histogram_kernel kernel_;
};

class histogram_workload final : public tuning_workload {
 public:
  histogram_workload(const queue& q, std::size_t n)
      : tuning_workload("float32/" + size_bucket(n), sizeof(float)),
        ctx_(q.ctx()),
        data_(std::make_shared<histogram_data>()) {
    const std::vector<float> x = tuning_floats(n, 6);
    data_->n = n;
    data_->expected.assign(kWorkloadBins, 0);
    // numpy's bin of x over [0, 1]: its edges k / 256 are exact, so floor(x * 256), and 1 (which
    // uniform_real_distribution can return) in the last bin.
    for (float v : x)
      ++data_->expected[std::min(static_cast<std::size_t>(v * float(kWorkloadBins)),
                                 kWorkloadBins - 1)];
    data_->x = array<float>::from_host(q, x);
    data_->counts = array<cl_uint>(q, kWorkloadBins);
    data_->arguments = equal_width_arguments_of(ctx_, kWorkloadBins, 0.f, 1.f);
  }
  std::unique_ptr<tuning_trial> make(const std::string& settings, const queue&) const override {
    candidate_scope scope("histogram", settings);
    return std::make_unique<histogram_trial>(
        data_, equal_width_kernel(ctx_, "float", kWorkloadBins, "tune_histogram"));
  }

 private:
  context ctx_;
  std::shared_ptr<histogram_data> data_;
};

}  // namespace

std::unique_ptr<tuning_workload> histogram_policy::workload(const queue& q, std::size_t size) {
  return std::make_unique<histogram_workload>(q, size);
}

}  // namespace clforge::detail
