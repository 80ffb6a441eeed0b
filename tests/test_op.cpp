// SPDX-License-Identifier: MIT
// clforge::op: par_loop against a serial C++ loop with the same semantics, on random maps (with
// repeated entries, elements sharing every target, empty sets, sets of one element): every
// access mode direct, through a map and through all of a map, arities and dims 1 to 4, globals,
// every plan (atomics, element colouring, block colouring with and without thread colours);
// INC results that do not depend on the plan; every error before any launch; two threads on
// two queues sharing one loop and its plan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <clforge/clforge.hpp>

#include "algorithms/op_plan.hpp"
#include "expect_error.hpp"
#include "shared_device.hpp"
#include "threads.hpp"

namespace cf = clforge;
namespace op = clforge::op;
using clforge_test::contains_all;
using clforge_test::ctx;
using clforge_test::error_message;
using clforge_test::q;

namespace {

// The plans the tests run every indirect loop under ("" is the table's own).
const std::vector<std::string> kPlans = {"",
                                         "plan=atomics,group=64,block=1",
                                         "plan=colour,group=32,block=2",
                                         "plan=block,group=64,block=1",
                                         "plan=block,group=16,block=4",
                                         "plan=block,group=1,block=8"};

// tuning::set for the loops of one part of a test; reset afterwards.
struct plan_scope {
  explicit plan_scope(const std::string& settings) {
    if (!settings.empty()) cf::tuning::set(ctx(), "par_loop", settings);
  }
  ~plan_scope() { cf::tuning::reset(ctx()); }
};

enum class kind { direct, indirect, all };

// ---- the serial reference ---------------------------------------------------------------------

template <class T>
T lesser(T a, T b) {
  return (b < a || a != a) ? b : a;  // a NaN loses to any number, as in the loop
}
template <class T>
T greater(T a, T b) {
  return (b > a || a != a) ? b : a;
}

template <class T>
struct host_arg {
  op::access mode = op::READ;
  kind k = kind::direct;
  bool global = false;
  std::vector<T>* values = nullptr;
  std::size_t dim = 1;
  const std::vector<cl_int>* map = nullptr;
  std::size_t arity = 1, index = 0;
};

// What par_loop does, element after element: copies gathered by mode, the function, written
// back by mode; globals' copies live across the loop and are combined at its end.
template <class T>
void serial_loop(std::size_t first, std::size_t end, std::vector<host_arg<T>>& args,
                 const std::function<void(std::vector<T*>&)>& f) {
  std::vector<std::vector<T>> globals(args.size());
  for (std::size_t a = 0; a < args.size(); ++a) {
    if (!args[a].global) continue;
    const host_arg<T>& g = args[a];
    globals[a] = g.mode == op::INC ? std::vector<T>(g.dim, T(0)) : *g.values;
  }
  for (std::size_t e = first; e < end; ++e) {
    std::vector<std::vector<T>> copies(args.size());
    std::vector<std::vector<std::size_t>> at(args.size());
    std::vector<T*> pointers;
    for (std::size_t a = 0; a < args.size(); ++a) {
      host_arg<T>& h = args[a];
      if (h.global) {
        pointers.push_back(globals[a].data());
        continue;
      }
      if (h.k == kind::direct) at[a] = {e};
      if (h.k == kind::indirect) at[a] = {std::size_t((*h.map)[e * h.arity + h.index])};
      if (h.k == kind::all)
        for (std::size_t j = 0; j < h.arity; ++j) at[a].push_back((*h.map)[e * h.arity + j]);
      const bool load =
          h.mode == op::READ || h.mode == op::RW || h.mode == op::MIN || h.mode == op::MAX;
      for (std::size_t t : at[a])
        for (std::size_t d = 0; d < h.dim; ++d)
          copies[a].push_back(load ? (*h.values)[t * h.dim + d] : T(0));
      pointers.push_back(copies[a].data());
    }
    f(pointers);
    for (std::size_t a = 0; a < args.size(); ++a) {
      host_arg<T>& h = args[a];
      if (h.global) continue;
      for (std::size_t s = 0; s < at[a].size(); ++s)
        for (std::size_t d = 0; d < h.dim; ++d) {
          T& target = (*h.values)[at[a][s] * h.dim + d];
          const T v = copies[a][s * h.dim + d];
          if (h.mode == op::WRITE || h.mode == op::RW) target = v;
          if (h.mode == op::INC) target += v;
          if (h.mode == op::MIN) target = lesser(target, v);
          if (h.mode == op::MAX) target = greater(target, v);
        }
    }
  }
  for (std::size_t a = 0; a < args.size(); ++a) {
    host_arg<T>& g = args[a];
    if (!g.global || g.mode == op::READ) continue;
    for (std::size_t d = 0; d < g.dim; ++d) {
      T& v = (*g.values)[d];
      if (g.mode == op::INC) v += globals[a][d];
      if (g.mode == op::MIN) v = lesser(v, globals[a][d]);
      if (g.mode == op::MAX) v = greater(v, globals[a][d]);
    }
  }
}

// ---- random meshes ----------------------------------------------------------------------------

enum class style { random, repeated, shared, injective };

// Targets in [0, targets) for `from` elements: random; random with each row's first two entries
// equal where arity allows (repeated); all 0 (every element shares every target); or no target
// used twice (injective: targets >= from * arity).
std::vector<cl_int> make_map(std::size_t from, std::size_t targets, std::size_t arity, style s,
                             unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<cl_int> out(from * arity);
  if (s == style::injective) {
    std::vector<cl_int> all(targets);
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    std::copy(all.begin(), all.begin() + out.size(), out.begin());
    return out;
  }
  for (std::size_t e = 0; e < from; ++e)
    for (std::size_t j = 0; j < arity; ++j) {
      cl_int v = s == style::shared ? 0 : cl_int(rng() % targets);
      if (s == style::repeated && j == 1) v = out[e * arity];
      out[e * arity + j] = v;
    }
  return out;
}

template <class T>
std::vector<T> small_values(std::size_t n, unsigned seed, int lo = -20, int hi = 20) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = T(lo + int(rng() % unsigned(hi - lo + 1)));
  return v;
}

// ---- one access mode through one kind of argument ---------------------------------------------

// The function of each mode on the tested argument y (V values) with a direct weight w; READ
// writes what it reads to a direct output o.
std::string mode_code(op::access mode, const std::string& type, std::size_t values) {
  const std::string T = type, V = std::to_string(values);
  std::string body;
  if (mode == op::READ)
    return "void f(const " + T + "* w, const " + T + "* y, " + T +
           "* o) {\n  for (int v = 0; v < " + V + "; ++v) o[v] = y[v] * w[0] + (" + T + ")v;\n}\n";
  if (mode == op::WRITE) body = "y[v] = w[0] + (" + T + ")v;";
  if (mode == op::RW) body = "y[v] = y[v] + w[0] * (" + T + ")(v + 1);";
  if (mode == op::INC) body = "y[v] += w[0] * (" + T + ")(v + 1);";
  if (mode == op::MIN) body = "if (w[0] - (" + T + ")v < y[v]) y[v] = w[0] - (" + T + ")v;";
  if (mode == op::MAX) body = "if (w[0] + (" + T + ")v > y[v]) y[v] = w[0] + (" + T + ")v;";
  return "void f(const " + T + "* w, " + T + "* y) {\n  for (int v = 0; v < " + V + "; ++v) { " +
         body + " }\n}\n";
}

template <class T>
void mode_function(op::access mode, std::size_t values, std::vector<T*>& p) {
  const T* w = p[0];
  T* y = p[1];
  for (std::size_t v = 0; v < values; ++v) {
    const T tv = T(v);
    if (mode == op::READ) p[2][v] = y[v] * w[0] + tv;
    if (mode == op::WRITE) y[v] = w[0] + tv;
    if (mode == op::RW) y[v] = y[v] + w[0] * T(v + 1);
    if (mode == op::INC) y[v] += w[0] * T(v + 1);
    if (mode == op::MIN && w[0] - tv < y[v]) y[v] = w[0] - tv;
    if (mode == op::MAX && w[0] + tv > y[v]) y[v] = w[0] + tv;
  }
}

struct mode_case {
  op::access mode;
  kind k;
  std::size_t dim, arity, index;
  style s;
  std::size_t from, targets;
};

std::string describe(const mode_case& c, const std::string& plan) {
  return std::string(op::access_name(c.mode)) + " " +
         (c.k == kind::direct     ? "direct"
          : c.k == kind::indirect ? "indirect"
                                  : "all") +
         " dim " + std::to_string(c.dim) + " arity " + std::to_string(c.arity) + " from " +
         std::to_string(c.from) + " to " + std::to_string(c.targets) + " style " +
         std::to_string(int(c.s)) + " plan \"" + plan + "\"";
}

// Runs the case on the device and on the host; WRITE through a map with shared targets is
// checked as "every target holds the values of one element that maps to it" (the order is the
// plan's), everything else exactly.
template <class T>
void run_mode_case(const mode_case& c, const std::string& plan, unsigned seed) {
  SCOPED_TRACE(describe(c, plan));
  plan_scope scope(plan);
  const std::size_t values = c.k == kind::all ? c.arity * c.dim : c.dim;
  op::set from(c.from, "from");
  const op::set to = c.k == kind::direct ? from : op::set(c.targets, "to");
  std::vector<cl_int> m;
  op::map through;
  if (c.k != kind::direct) {
    m = make_map(c.from, c.targets, c.arity, c.s, seed);
    through = op::map(q(), from, to, c.arity, m, "m");
  }
  std::vector<T> w = small_values<T>(c.from, seed + 1, -9, 9);
  std::vector<T> y = small_values<T>(to.total_size() * c.dim, seed + 2);
  std::vector<T> o(c.from * values, T(0));
  op::dat<T> dw(q(), from, 1, w, "w"), dy(q(), to, c.dim, y, "y"), dout(q(), from, values, "o");
  const std::string type = cf::type_name<T>();
  op::kernel k(mode_code(c.mode, type, values), "f");
  const op::arg ya = c.k == kind::direct     ? dy(c.mode)
                     : c.k == kind::indirect ? dy(c.mode, through, c.index)
                                             : dy(c.mode, through.all());
  if (c.mode == op::READ)
    op::par_loop(q(), k, from, dw(op::READ), ya, dout(op::WRITE));
  else
    op::par_loop(q(), k, from, dw(op::READ), ya);

  std::vector<host_arg<T>> h(2);
  h[0].values = &w;
  h[1] = {c.mode, c.k, false, &y, c.dim, &m, c.arity, c.index};
  if (c.mode == op::READ) h.push_back({op::WRITE, kind::direct, false, &o, values});
  const std::vector<T> before = y;
  serial_loop<T>(0, c.from, h, [&](std::vector<T*>& p) { mode_function<T>(c.mode, values, p); });
  const std::vector<T> got = dy.to_host(q());
  if (c.mode == op::WRITE && c.k != kind::direct && c.s != style::injective) {
    // The writers of each target: element e's values, or the old ones where nobody writes.
    for (std::size_t t = 0; t < to.total_size(); ++t) {
      std::vector<std::vector<T>> allowed;
      for (std::size_t e = 0; e < c.from; ++e)
        for (std::size_t j = 0; j < c.arity; ++j) {
          if (c.k == kind::indirect && j != c.index) continue;
          if (std::size_t(m[e * c.arity + j]) != t) continue;
          std::vector<T> v(c.dim);
          for (std::size_t d = 0; d < c.dim; ++d)
            v[d] = w[e] + T(c.k == kind::all ? j * c.dim + d : d);
          allowed.push_back(v);
        }
      if (allowed.empty())
        allowed.push_back(
            std::vector<T>(before.begin() + t * c.dim, before.begin() + (t + 1) * c.dim));
      const std::vector<T> seen(got.begin() + t * c.dim, got.begin() + (t + 1) * c.dim);
      EXPECT_NE(std::find(allowed.begin(), allowed.end(), seen), allowed.end())
          << "target " << t << " holds values no single element wrote";
    }
    return;
  }
  ASSERT_EQ(got, y);
  if (c.mode == op::READ) ASSERT_EQ(dout.to_host(q()), o);
}

class op_modes : public ::testing::TestWithParam<op::access> {};

// Every mode direct, through a map and through all of it, dims and arities 1 to 4 between
// them, on random maps with repeated entries, under every plan.
TEST_P(op_modes, int_values_under_every_plan) {
  const op::access mode = GetParam();
  const int m = static_cast<int>(mode);
  unsigned seed = 100 + unsigned(m) * 10;
  run_mode_case<cl_int>({mode, kind::direct, 1 + std::size_t(m) % 4, 1, 0, style::random, 257, 257},
                        "", seed++);
  for (const std::string& plan : kPlans) {
    for (std::size_t size : {std::size_t(1), std::size_t(300)}) {
      const style s = mode == op::WRITE ? style::injective : style::repeated;
      run_mode_case<cl_int>(
          {mode, kind::indirect, 1 + std::size_t(m + 1) % 4, 1 + std::size_t(m + 2) % 4,
           std::size_t(m) % (1 + std::size_t(m + 2) % 4), s, size, size * 4 + 3},
          plan, seed++);
      run_mode_case<cl_int>({mode, kind::all, 1 + std::size_t(m + 3) % 4,
                             1 + std::size_t(m + 1) % 4, 0, style::random, size, 50},
                            plan, seed++);
    }
  }
}

// The same in float (float atomics are compare-and-swap loops) with small integer values,
// which every order of additions gives exactly.
TEST_P(op_modes, float_values_under_every_plan) {
  const op::access mode = GetParam();
  unsigned seed = 300 + unsigned(mode) * 10;
  for (const std::string& plan : kPlans)
    run_mode_case<float>({mode, kind::indirect, 3, 2, 1,
                          mode == op::WRITE ? style::injective : style::random, 500, 1003},
                         plan, seed++);
  run_mode_case<float>({mode, kind::direct, 2, 1, 0, style::random, 100, 100}, "", seed++);
}

INSTANTIATE_TEST_SUITE_P(all, op_modes,
                         ::testing::Values(op::READ, op::WRITE, op::RW, op::INC, op::MIN, op::MAX),
                         [](const ::testing::TestParamInfo<op::access>& info) {
                           return std::string(op::access_name(info.param));
                         });

// Every dim and arity from 1 to 4 through a map and through all of it (INC).
TEST(op, every_dim_and_arity) {
  unsigned seed = 500;
  for (std::size_t dim = 1; dim <= 4; ++dim)
    for (std::size_t arity = 1; arity <= 4; ++arity) {
      run_mode_case<cl_int>(
          {op::INC, kind::indirect, dim, arity, arity - 1, style::random, 200, 37}, "", seed++);
      run_mode_case<cl_int>({op::INC, kind::all, dim, arity, 0, style::random, 200, 37}, "",
                            seed++);
    }
}

// Elements that share every target (all of them write target 0), and WRITE/RW through maps
// with shared targets, under every plan: increments are never lost.
TEST(op, elements_sharing_every_target) {
  unsigned seed = 700;
  for (const std::string& plan : kPlans)
    for (op::access mode : {op::INC, op::RW, op::MIN, op::MAX, op::WRITE}) {
      run_mode_case<cl_int>({mode, kind::indirect, 2, 2, 1, style::shared, 150, 5}, plan, seed++);
      run_mode_case<cl_int>({mode, kind::all, 1, 3, 0, style::shared, 70, 1}, plan, seed++);
    }
}

// WRITE through a map with shared targets: each target ends with the values of one element.
TEST(op, write_with_shared_targets_keeps_one_writer) {
  unsigned seed = 800;
  for (const std::string& plan : kPlans) {
    run_mode_case<cl_int>({op::WRITE, kind::indirect, 3, 2, 0, style::random, 400, 60}, plan,
                          seed++);
    run_mode_case<float>({op::WRITE, kind::all, 2, 3, 0, style::repeated, 300, 40}, plan, seed++);
  }
}

// Sizes around a group, a unit and a tile; the empty set and a set of one element.
TEST(op, edge_sizes) {
  unsigned seed = 900;
  for (std::size_t n : {0, 1, 2, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1023, 1025})
    for (const std::string& plan : {kPlans[1], kPlans[3], kPlans[4]}) {
      run_mode_case<cl_int>({op::INC, kind::indirect, 1, 2, 1, style::random, n, n + 1}, plan,
                            seed++);
      run_mode_case<cl_int>({op::RW, kind::direct, 2, 1, 0, style::random, n, n}, plan, seed++);
    }
}

// 64-bit values (atomics through cl_khr_int64_*, double as compare-and-swap) and 8- and
// 16-bit ones (no atomics: the atomics plan takes blocks).
TEST(op, other_types) {
  unsigned seed = 1000;
  for (const std::string& plan : {kPlans[0], kPlans[1], kPlans[3]}) {
    run_mode_case<cl_long>({op::INC, kind::indirect, 2, 2, 0, style::random, 300, 40}, plan,
                           seed++);
    run_mode_case<cl_ulong>({op::MAX, kind::all, 1, 2, 0, style::random, 300, 40}, plan, seed++);
    run_mode_case<cl_short>({op::INC, kind::indirect, 1, 3, 2, style::random, 300, 40}, plan,
                            seed++);
    run_mode_case<cl_char>({op::MIN, kind::indirect, 2, 1, 0, style::random, 300, 40}, plan,
                           seed++);
    if (ctx().info().has_fp64) {
      run_mode_case<double>({op::INC, kind::indirect, 3, 2, 1, style::random, 300, 40}, plan,
                            seed++);
      run_mode_case<double>({op::MIN, kind::all, 1, 2, 0, style::random, 300, 40}, plan, seed++);
    }
  }
}

// ---- floating-point increments ----------------------------------------------------------------

// Random floats: the sum of a target's increments depends on the plan's order, within the
// documented bound k * eps / 2 * (|start| + sum of |increments|) of the exact sum (k terms).
TEST(op, float_increments_within_the_documented_bound) {
  const std::size_t n = 4000, targets = 300, arity = 3;
  const std::vector<cl_int> m = make_map(n, targets, arity, style::random, 42);
  std::mt19937 rng(43);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> w(n), start(targets * 2);
  for (float& v : w) v = u(rng);
  for (float& v : start) v = u(rng);
  // The exact sums (double holds these float sums exactly enough), terms and magnitudes.
  std::vector<double> exact(start.begin(), start.end()), magnitude(start.size()),
      terms(start.size(), 1);
  for (std::size_t i = 0; i < start.size(); ++i) magnitude[i] = std::fabs(start[i]);
  for (std::size_t e = 0; e < n; ++e)
    for (std::size_t j = 0; j < arity; ++j)
      for (std::size_t d = 0; d < 2; ++d) {
        const float inc = w[e] * float(d + 1);
        const std::size_t t = std::size_t(m[e * arity + j]) * 2 + d;
        exact[t] += inc;
        magnitude[t] += std::fabs(inc);
        terms[t] += 1;
      }
  op::set from(n, "from"), to(targets, "to");
  op::map through(q(), from, to, arity, m, "m");
  op::dat<float> dw(q(), from, 1, w, "w");
  op::kernel k(
      "void f(const float* w, float* y) { for (int a = 0; a < 3; ++a) { y[2 * a] += w[0]; "
      "y[2 * a + 1] += 2.0f * w[0]; } }",
      "f");
  for (const std::string& plan : kPlans) {
    SCOPED_TRACE(plan);
    plan_scope scope(plan);
    op::dat<float> dy(q(), to, 2, start, "y");
    op::par_loop(q(), k, from, dw(op::READ), dy(op::INC, through.all()));
    const std::vector<float> got = dy.to_host(q());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_LE(std::fabs(double(got[i]) - exact[i]),
                terms[i] * std::numeric_limits<float>::epsilon() / 2 * magnitude[i])
          << "value " << i;
  }
}

// ---- globals ------------------------------------------------------------------------------------

// READ as constants, INC, MIN and MAX as reductions over the loop, under every plan (several
// launches, each group's partials in their own place), with infinities and NaNs: a NaN loses to
// any number where copies combine, as in fmin and fmax (the MIN global starts as a NaN).
TEST(op, globals) {
  const std::size_t n = 777, targets = 100;
  const std::vector<cl_int> m = make_map(n, targets, 2, style::random, 5);
  std::vector<float> w = small_values<float>(n, 6, -50, 50);
  // NaNs over whole groups (their partials are NaN), infinities in the middle.
  for (std::size_t e = 0; e < 300; ++e) w[e] = std::numeric_limits<float>::quiet_NaN();
  w[303] = std::numeric_limits<float>::infinity();
  w[410] = -std::numeric_limits<float>::infinity();
  op::set from(n, "from"), to(targets, "to");
  op::map through(q(), from, to, 2, m, "m");
  op::dat<float> dw(q(), from, 1, w, "w");
  op::kernel k(R"(
void f(const float* w, const float c[2], float* y, float* sum, float* lo, float* hi, int* count) {
  const float v = w[0] == w[0] && w[0] - w[0] == 0.0f ? w[0] : 0.0f;  /* finite only */
  y[0] += v * c[0];
  sum[0] += v; sum[1] += c[1];
  lo[0] = fmin(lo[0], w[0]);
  hi[0] = fmax(hi[0], w[0]);
  count[0] += 1;
})",
               "f");
  for (const std::string& plan : kPlans) {
    SCOPED_TRACE(plan);
    plan_scope scope(plan);
    op::dat<float> dy(q(), to, 1, "y");
    op::global<float> c(q(), std::vector<float>{2.0f, 0.5f}, "c");
    op::global<float> sum(q(), std::vector<float>{1.0f, 0.0f}, "sum");
    op::global<float> lo(q(), std::vector<float>{std::numeric_limits<float>::quiet_NaN()}, "lo");
    op::global<float> hi(q(), std::vector<float>{7.0f}, "hi");
    op::global<cl_int> count(q(), std::vector<cl_int>{5}, "count");
    op::par_loop(q(), k, from, dw(op::READ), c(op::READ), dy(op::INC, through, 1), sum(op::INC),
                 lo(op::MIN), hi(op::MAX), count(op::INC));
    float expected_sum = 1.0f;
    for (float v : w)
      if (std::isfinite(v)) expected_sum += v;
    EXPECT_EQ(sum.value(q()), (std::vector<float>{expected_sum, 0.5f * n}));
    EXPECT_EQ(lo.value(q())[0], -std::numeric_limits<float>::infinity());
    EXPECT_EQ(hi.value(q())[0], std::numeric_limits<float>::infinity());
    EXPECT_EQ(count.value(q())[0], cl_int(5 + n));
    EXPECT_EQ(c.value(q()), (std::vector<float>{2.0f, 0.5f}));  // READ leaves it
    std::vector<float> y(targets, 0.0f);
    for (std::size_t e = 0; e < n; ++e) y[m[2 * e + 1]] += (std::isfinite(w[e]) ? w[e] : 0.0f) * 2;
    EXPECT_EQ(dy.to_host(q()), y);
  }
  // An empty loop leaves every global as it was.
  op::set none(0, "none");
  op::global<float> sum(q(), std::vector<float>{3.0f}, "sum");
  op::global<float> lo(q(), std::vector<float>{4.0f}, "lo");
  op::kernel g("void g(float* s, float* l) { s[0] += 1.0f; l[0] = -1.0f; }", "g");
  op::par_loop(q(), g, none, sum(op::INC), lo(op::MIN));
  EXPECT_EQ(sum.value(q())[0], 3.0f);
  EXPECT_EQ(lo.value(q())[0], 4.0f);
}

// A global's reduction over the serial reference: dims 1 to 4 of int, INC, MIN and MAX.
TEST(op, global_dims) {
  for (std::size_t dim = 1; dim <= 4; ++dim) {
    const std::size_t n = 1000 + dim;
    std::vector<cl_int> w = small_values<cl_int>(n, unsigned(dim), -1000, 1000);
    op::set s(n, "s");
    op::dat<cl_int> dw(q(), s, 1, w, "w");
    const std::string D = std::to_string(dim);
    op::kernel k("void f(const int* w, int* a, int* b, int* c) { for (int d = 0; d < " + D +
                     "; ++d) { a[d] += w[0] * (d + 1); if (w[0] - d < b[d]) b[d] = w[0] - d; "
                     "if (w[0] + d > c[d]) c[d] = w[0] + d; } }",
                 "f");
    std::vector<cl_int> a(dim, 7), b(dim, 100), c(dim, -100);
    op::global<cl_int> ga(q(), a, "a"), gb(q(), b, "b"), gc(q(), c, "c");
    op::par_loop(q(), k, s, dw(op::READ), ga(op::INC), gb(op::MIN), gc(op::MAX));
    std::vector<host_arg<cl_int>> h(4);
    h[0].values = &w;
    h[1] = {op::INC, kind::direct, true, &a, dim};
    h[2] = {op::MIN, kind::direct, true, &b, dim};
    h[3] = {op::MAX, kind::direct, true, &c, dim};
    serial_loop<cl_int>(0, n, h, [&](std::vector<cl_int*>& p) {
      for (std::size_t d = 0; d < dim; ++d) {
        const cl_int v = p[0][0], di = cl_int(d);
        p[1][d] += v * (di + 1);
        if (v - di < p[2][d]) p[2][d] = v - di;
        if (v + di > p[3][d]) p[3][d] = v + di;
      }
    });
    EXPECT_EQ(ga.value(q()), a);
    EXPECT_EQ(gb.value(q()), b);
    EXPECT_EQ(gc.value(q()), c);
  }
}

// ---- owned elements and halos -----------------------------------------------------------------

// A set with exec and non-exec halos: a loop that writes through a map runs over the owned
// elements and the exec halo (each with its own plan), a direct loop over the owned only; a
// range run by itself equals its part of the whole.
TEST(op, owned_then_exec_halo) {
  op::set edges(300, 40, 9, "edges"), cells(120, 10, 6, "cells");
  const std::vector<cl_int> m = make_map(340, 136, 2, style::random, 77);
  op::map through(q(), edges, cells, 2, m, "m");
  std::vector<cl_int> w = small_values<cl_int>(edges.total_size(), 78);
  op::dat<cl_int> dw(q(), edges, 1, w, "w");
  op::kernel inc("void f(const int* w, int* a, int* b) { a[0] += w[0]; b[0] += 2 * w[0]; }", "f");
  op::kernel copy("void g(const int* w, int* o) { o[0] = w[0] + 1; }", "g");
  for (const std::string& plan : kPlans) {
    SCOPED_TRACE(plan);
    plan_scope scope(plan);
    op::dat<cl_int> res(q(), cells, 1, "res"), out(q(), edges, 1, "out");
    op::loop l(q(), inc, edges, dw(op::READ), res(op::INC, through, 0), res(op::INC, through, 1));
    EXPECT_TRUE(l.writes_through_maps());
    EXPECT_EQ(l.run_size(), 340u);
    l.run(q());
    std::vector<cl_int> expected(cells.total_size(), 0);
    for (std::size_t e = 0; e < 340; ++e) {
      expected[m[2 * e]] += w[e];
      expected[m[2 * e + 1]] += 2 * w[e];
    }
    EXPECT_EQ(res.to_host(q()), expected);
    // The same in two ranges: the owned part, then the halo.
    res.data().fill(q(), 0);
    l.run(q(), 0, 300);
    l.run(q(), 300, 340);
    EXPECT_EQ(res.to_host(q()), expected);
    EXPECT_EQ(l.plan(q(), 0, 300).kind, l.plan(q(), 300, 340).kind);
    // A direct loop: the owned elements only.
    op::loop d(q(), copy, edges, dw(op::READ), out(op::WRITE));
    EXPECT_EQ(d.run_size(), 300u);
    d.run(q());
    std::vector<cl_int> o(edges.total_size(), 0);
    for (std::size_t e = 0; e < 300; ++e) o[e] = w[e] + 1;
    EXPECT_EQ(out.to_host(q()), o);
  }
}

// The plan is built once per set, map and pattern, and found again by the next loop.
TEST(op, plan_is_kept_with_the_set) {
  plan_scope scope("plan=colour,group=32,block=1");
  op::set from(5000, "from"), to(700, "to");
  op::map through(q(), from, to, 2, make_map(5000, 700, 2, style::random, 3), "m");
  op::dat<float> a(q(), to, 1, "a"), b(q(), to, 3, "b");
  op::kernel k("void f(float* x, float* y) { x[0] += 1.0f; y[0] += 1.0f; }", "f");
  op::loop first(q(), k, from, a(op::INC, through, 0), a(op::INC, through, 1));
  const op::plan_info built = first.plan(q(), 0, 5000);
  EXPECT_EQ(built.kind, "colour");
  EXPECT_FALSE(built.reused);
  EXPECT_GT(built.colours, 1u);
  EXPECT_GT(built.build_seconds, 0.0);
  // Other dats of other dims, the same map and pattern: the same plan.
  op::loop second(q(), k, from, b(op::INC, through, 0), b(op::INC, through, 1));
  const op::plan_info again = second.plan(q(), 0, 5000);
  EXPECT_TRUE(again.reused);
  EXPECT_EQ(again.colours, built.colours);
  // Another pattern (one index only): another plan.
  op::kernel one("void g(float* x) { x[0] += 1.0f; }", "g");
  EXPECT_FALSE(op::loop(q(), one, from, a(op::INC, through, 0)).plan(q(), 0, 5000).reused);
  // A direct loop has none.
  op::kernel d("void h(float* x) { x[0] = 1.0f; }", "h");
  op::dat<float> c(q(), from, 1, "c");
  EXPECT_EQ(op::loop(q(), d, from, c(op::WRITE)).plan(q(), 0, 5000).kind, "direct");
}

// ---- several threads ----------------------------------------------------------------------------

// Threads on queues of their own run loops of one kernel over one set and map (one plan, built
// by whichever comes first) into dats of their own, at the same time.
TEST(op, threads_share_kernel_set_map_and_plan) {
  for (const std::string& plan : {kPlans[2], kPlans[3], kPlans[5]}) {
    SCOPED_TRACE(plan);
    plan_scope scope(plan);
    const std::size_t n = 3000, targets = 400;
    const std::vector<cl_int> m = make_map(n, targets, 2, style::random, 11);
    op::set from(n, "from"), to(targets, "to");
    op::map through(q(), from, to, 2, m, "m");
    const std::vector<cl_int> w = small_values<cl_int>(n, 12);
    op::dat<cl_int> dw(q(), from, 1, w, "w");
    op::kernel k("void f(const int* w, int* a, int* b) { a[0] += w[0]; b[0] -= 3 * w[0]; }", "f");
    std::vector<cl_int> expected(targets, 0);
    for (std::size_t e = 0; e < n; ++e) {
      expected[m[2 * e]] += 5 * w[e];
      expected[m[2 * e + 1]] -= 15 * w[e];
    }
    constexpr int kThreads = 4;
    const std::vector<std::string> thrown = clforge_test::on_threads(kThreads, [&](int) {
      cf::queue own(ctx());
      op::dat<cl_int> res(own, to, 1, "res");
      for (int r = 0; r < 5; ++r)
        op::par_loop(own, k, from, dw(op::READ), res(op::INC, through, 0),
                     res(op::INC, through, 1));
      if (res.to_host(own) != expected) throw std::runtime_error("wrong result");
    });
    EXPECT_EQ(thrown, std::vector<std::string>(kThreads));
  }
}

// ---- errors -------------------------------------------------------------------------------------

// Every wrong loop is a clforge::error naming the argument, before anything runs: the output
// keeps its values.
TEST(op, errors_name_the_argument_before_any_launch) {
  op::set edges(10, "edges"), cells(6, "cells"), nodes(8, "nodes");
  const std::vector<cl_int> ec = make_map(10, 6, 2, style::random, 1);
  op::map pecell(q(), edges, cells, 2, ec, "pecell");
  op::map pedge(q(), edges, nodes, 2, make_map(10, 8, 2, style::random, 2), "pedge");
  op::dat<float> x(q(), nodes, 2, "x"), res(q(), cells, 4, "res"), w(q(), edges, 1, "w");
  op::dat<cl_int> ires(q(), cells, 4, "ires");
  res.data().fill(q(), 5.0f);
  op::kernel flux("void flux(const float* x, float r[4]) { r[0] += x[0]; }", "flux");
  op::kernel two("void two(float* a, float* b) { a[0] += 1.0f; b[0] += 1.0f; }", "two");
  const auto untouched = [&] {
    const std::vector<float> v = res.to_host(q());
    return std::all_of(v.begin(), v.end(), [](float f) { return f == 5.0f; });
  };

  // A map whose target set is not the dat's set.
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), flux, edges, x(op::READ, pecell, 0), res(op::INC, pecell, 0)),
      {"op::par_loop \"flux\" over set \"edges\"", "argument 1 (dat \"x\", READ",
       "map \"pecell\" maps to set \"cells\"", "dat \"x\" is on set \"nodes\""});
  // A map from another set than the loop's.
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), flux, cells, x(op::READ, pedge, 0), res(op::INC, pecell, 0)),
      {"argument 1", "map \"pedge\" maps from set \"edges\"", "the loop runs over set \"cells\""});
  // An index beyond the arity.
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), flux, edges, x(op::READ, pedge, 2), res(op::INC, pecell, 0)),
      {"argument 1", "index 2 of a map of arity 2"});
  // A direct dat on another set.
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), flux, edges, x(op::READ), res(op::INC, pecell, 0)),
      {"argument 1 (dat \"x\", READ)", "is on set \"nodes\"", "the loop runs over set \"edges\""});
  // Dimensions: float r[4] against a dat of dim 2; all of a map: arity x dim.
  op::dat<float> res2(q(), cells, 2, "res2");
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), flux, edges, x(op::READ, pedge, 0), res2(op::INC, pecell, 1)),
      {"argument 2 (dat \"res2\", INC through map \"pecell\" [1])",
       "passes 2 value(s) per element (dim 2)", "\"float r [ 4 ]\" takes 4"});
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), flux, edges, x(op::READ, pedge, 0), res(op::INC, pecell.all())),
      {"argument 2", "through every target of map \"pecell\"",
       "passes 8 value(s) per element (arity 2 x dim 4)"});
  // Types and const.
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), flux, edges, x(op::READ, pedge, 0), ires(op::INC, pecell, 0)),
      {"argument 2 (dat \"ires\"", "holds int values", "parameter 2 is \"float r [ 4 ]\""});
  op::kernel konst("void konst(const float* x, const float* r) { }", "konst");
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), konst, edges, x(op::READ, pedge, 0), res(op::INC, pecell, 0)),
      {"argument 2", "is written", "\"const float * r\" is const"});
  // The count of arguments.
  EXPECT_CLFORGE_ERROR(op::par_loop(q(), flux, edges, x(op::READ, pedge, 0)),
                       {"the function takes 2 argument(s)", "1 given"});
  // WRITE through a map and INC on the same dat; other mixtures that depend on the order.
  op::dat<float> r1(q(), cells, 1, "r1");
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), two, edges, r1(op::WRITE, pecell, 0), r1(op::INC, pecell, 1)),
      {"argument 1 (dat \"r1\", WRITE through map \"pecell\" [0])",
       "argument 2 (dat \"r1\", INC through map \"pecell\" [1])",
       "WRITE or RW through a map and INC on the same dat"});
  EXPECT_CLFORGE_ERROR(op::par_loop(q(), two, edges, r1(op::RW, pecell, 0), r1(op::INC, pecell, 1)),
                       {"WRITE or RW through a map and INC on the same dat"});
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), two, edges, r1(op::MIN, pecell, 0), r1(op::INC, pecell, 1)),
      {"combined through maps in two ways (MIN and INC)"});
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), two, edges, r1(op::READ, pecell, 0), r1(op::INC, pecell, 1)),
      {"argument 1 (dat \"r1\", READ through", "depend on the order"});
  op::dat<float> e1(q(), edges, 1, "e1");
  EXPECT_CLFORGE_ERROR(op::par_loop(q(), two, edges, e1(op::WRITE), e1(op::INC)),
                       {"one dat written twice by each element"});
  // A global written.
  op::global<float> g(q(), 1, "g");
  EXPECT_CLFORGE_ERROR(op::par_loop(q(), two, edges, w(op::READ), g(op::WRITE)),
                       {"argument 2 (global \"g\", WRITE)", "READ, INC, MIN or MAX"});
  // A range beyond the set.
  op::loop l(q(), two, edges, r1(op::INC, pecell, 0), r1(op::INC, pecell, 1));
  EXPECT_CLFORGE_ERROR(l.run(q(), 5, 11), {"the range [5, 11)", "10 owned and exec-halo"});
  // Another context.
  cf::context other = cf::context::create_default();
  cf::queue other_q(other);
  op::dat<float> elsewhere(other_q, cells, 1, "elsewhere");
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), two, edges, r1(op::INC, pecell, 0), elsewhere(op::INC, pecell, 1)),
      {"argument 2 (dat \"elsewhere\"", "another context"});
  EXPECT_CLFORGE_ERROR(l.run(other_q), {"another context"});
  // Empty handles.
  EXPECT_CLFORGE_ERROR(op::par_loop(q(), op::kernel(), edges), {"the kernel is empty"});
  EXPECT_CLFORGE_ERROR(op::par_loop(q(), two, op::set()), {"the set is empty"});
  EXPECT_CLFORGE_ERROR(
      op::par_loop(q(), two, edges, r1(op::INC, op::map(), 0), r1(op::INC, pecell, 0)),
      {"argument 1", "the map is empty"});
  EXPECT_TRUE(untouched());
}

// A dat's or global's data() given another array after a loop was made: the loop runs on the
// new values; an array of another size (or none, moved from) is an error before any launch,
// not a write past its end.
TEST(op, values_replaced_after_the_loop_was_made) {
  op::set s(100, "s");
  op::dat<float> x(q(), s, 1, "x");
  op::global<float> total(q(), 1, "total");
  op::kernel k("void f(float* x, float* t) { x[0] += 1.0f; t[0] += x[0]; }", "f");
  const op::loop l(q(), k, s, x(op::INC), total(op::INC));
  x.data() = cf::array<float>::from_host(q(), std::vector<float>(100, 5.0f));
  total.data() = cf::array<float>::from_host(q(), std::vector<float>{2.0f});
  l.run(q());
  EXPECT_EQ(x.to_host(q()), std::vector<float>(100, 6.0f));
  EXPECT_EQ(total.value(q()), std::vector<float>{102.0f});
  op::par_loop(q(), k, s, x(op::INC), total(op::INC));
  EXPECT_EQ(x.to_host(q()), std::vector<float>(100, 7.0f));

  x.data() = cf::array<float>::from_host(q(), std::vector<float>(3, 1.0f));
  EXPECT_CLFORGE_ERROR(l.run(q()), {"argument 1 (dat \"x\", INC)", "holds 3 value(s)",
                                    "set size x dim = 100 x 1 = 100"});
  EXPECT_CLFORGE_ERROR(op::par_loop(q(), k, s, x(op::INC), total(op::INC)), {"holds 3 value(s)"});
  EXPECT_EQ(x.to_host(q()), std::vector<float>(3, 1.0f));
  const cf::array<float> taken = std::move(x.data());
  EXPECT_CLFORGE_ERROR(op::par_loop(q(), k, s, x(op::INC), total(op::INC)), {"holds 0 value(s)"});
  x.data() = cf::array<float>(q(), 100);
  total.data() = cf::array<float>::from_host(q(), std::vector<float>{1.0f, 2.0f});
  EXPECT_CLFORGE_ERROR(
      l.run(q()), {"argument 2 (global \"total\", INC)", "holds 2 value(s)", "expected its dim 1"});
}

// The user's function: found by name, its parameters plain pointers or arrays of scalars.
TEST(op, kernel_signature_errors) {
  EXPECT_CLFORGE_ERROR(op::kernel("void g(float* x) { }", "f"),
                       {"op::kernel \"f\"", "no function \"void f(...) { ... }\""});
  EXPECT_CLFORGE_ERROR(op::kernel("void f(float* x);", "f"), {"no function"});
  EXPECT_CLFORGE_ERROR(op::kernel("int f(float* x) { return 0; }", "f"), {"no function"});
  EXPECT_CLFORGE_ERROR(
      op::kernel("void f(global float* x) { }", "f"),
      {"parameter \"global float * x\" names an address space", "declare it without one"});
  EXPECT_CLFORGE_ERROR(op::kernel("void f(__private float* x) { }", "f"),
                       {"names an address space"});
  EXPECT_CLFORGE_ERROR(op::kernel("void f(float x) { }", "f"),
                       {"parameter \"float x\" is passed by value", "(float* x)"});
  EXPECT_CLFORGE_ERROR(op::kernel("void f(float4* x) { }", "f"), {"float4 is not a scalar type"});
  EXPECT_CLFORGE_ERROR(op::kernel("void f(float x[N]) { }", "f"),
                       {"an array parameter is written NAME[N] with a number N"});
  EXPECT_CLFORGE_ERROR(op::kernel("void f(float x[0]) { }", "f"), {"an array extent of 0"});
  EXPECT_CLFORGE_ERROR(op::kernel("void f(float* x, int* x) { }", "f"),
                       {"two parameters are called \"x\""});
  EXPECT_CLFORGE_ERROR(op::kernel("void f(float* x) { }", "2f"), {"not a C identifier"});
  // Comments, a prototype first, helpers and macros around it are fine.
  const op::kernel k(
      "#define TWICE(v) (2 * (v))\n// void f(int* no) { }\nvoid f(float* x, const int y[3]);\n"
      "static float helper(float v) { return TWICE(v); }\n"
      "void f(float* x, /* comment */ const int y[3]) { x[0] = helper(y[2]); }",
      "f");
  EXPECT_EQ(k.parameter_count(), 2u);
  op::set s(3, "s");
  op::dat<float> x(q(), s, 1, "x");
  op::dat<cl_int> y(q(), s, 3, std::vector<cl_int>{1, 2, 3, 4, 5, 6, 7, 8, 9}, "y");
  op::par_loop(q(), k, s, x(op::WRITE), y(op::READ));
  EXPECT_EQ(x.to_host(q()), (std::vector<float>{6.0f, 12.0f, 18.0f}));
  // The library's names: the message lists no other reserved ones.
  const std::string reserved = error_message(
      [&] { op::par_loop(q(), op::kernel("void g(float* clforge_x) { }", "g"), s, x(op::RW)); });
  EXPECT_TRUE(contains_all(reserved, {"op::kernel \"g\": the parameter name \"clforge_x\" is "
                                      "reserved (names starting with clforge_)"}))
      << reserved;
  // A function without parameters over a set.
  op::par_loop(q(), op::kernel("void nothing(void) { }", "nothing"), s);
}

// A function that does not compile: the build failure names the loop and quotes the user's line;
// nothing ran.
TEST(op, a_function_that_does_not_compile_names_the_loop) {
  op::set s(3, "s");
  op::dat<float> x(q(), s, 1, std::vector<float>{1.0f, 2.0f, 3.0f}, "x");
  const op::kernel k("void f(float* x) { x[0] = no_such_identifier_op7; }", "f");
  EXPECT_CLFORGE_ERROR(op::par_loop(q(), k, s, x(op::RW)),
                       {"op::par_loop \"f\" over set \"s\"", "no_such_identifier_op7"});
  EXPECT_EQ(x.to_host(q()), (std::vector<float>{1.0f, 2.0f, 3.0f}));
}

// Maps are checked when made: the first value outside the target set, on the host or on the
// device; and dats and maps take as many values as their sets say.
TEST(op, maps_and_dats_are_checked_when_made) {
  op::set from(5, "from"), to(4, "to");
  EXPECT_CLFORGE_ERROR(op::map(q(), from, to, 2, {0, 1, 2, 3, 3, 4, -1, 0, 0, 0}, "m"),
                       {"map \"m\": value 5 (element 2, index 1) is 4",
                        "outside set \"to\" of 4 elements (0 to 3)"});
  EXPECT_CLFORGE_ERROR(op::map(q(), from, to, 2, {0, 1, 2}, "m"),
                       {"map \"m\": 3 values; expected", "x arity = 5 x 2 = 10"});
  EXPECT_CLFORGE_ERROR(op::map(q(), from, to, 0, std::vector<cl_int>{}, "m"), {"arity 0"});
  EXPECT_CLFORGE_ERROR(op::map(q(), from, op::set(), 1, std::vector<cl_int>(5, 0), "m"),
                       {"a set is empty"});
  // On the device: a large map with one bad value far in.
  op::set big_from(100000, "big"), big_to(1000, "targets");
  std::vector<cl_int> values = make_map(100000, 1000, 3, style::random, 9);
  values[123456] = 1000;
  values[200001] = -5;
  EXPECT_CLFORGE_ERROR(
      op::map(q(), big_from, big_to, 3, cf::array<cl_int>::from_host(q(), values), "dev"),
      {"map \"dev\": value 123456 (element 41152, index 0) is 1000", "outside set \"targets\""});
  values[123456] = 999;
  values[200001] = 0;
  const op::map good(q(), big_from, big_to, 3, cf::array<cl_int>::from_host(q(), values), "dev");
  EXPECT_EQ(good.values().size(), 300000u);
  // A map over a set with halos has rows for the owned and exec-halo elements.
  op::set halo(4, 2, 3, "halo");
  EXPECT_EQ(op::map(q(), halo, to, 1, std::vector<cl_int>(6, 1), "h").values().size(), 6u);
  EXPECT_CLFORGE_ERROR(op::map(q(), halo, to, 1, std::vector<cl_int>(9, 1), "h"),
                       {"9 values; expected (owned + exec-halo) elements of set \"halo\""});
  // Dats.
  EXPECT_CLFORGE_ERROR(op::dat<float>(q(), to, 2, std::vector<float>(7), "d"),
                       {"dat \"d\": 7 values; expected set size x dim = 4 x 2 = 8"});
  EXPECT_CLFORGE_ERROR(op::dat<float>(q(), to, 0, "d"), {"dat \"d\": dim 0"});
  EXPECT_CLFORGE_ERROR(op::global<float>(q(), 0, "g"), {"global \"g\": dim 0"});
  EXPECT_CLFORGE_ERROR(op::set(std::size_t(1) << 32, "huge"), {"set \"huge\"", "at most"});
  EXPECT_EQ(op::dat<float>(q(), halo, 3, "d").data().size(), 27u);
}

// Every accessor of an empty (default-constructed) handle throws instead of reading through null.
TEST(op, empty_handles_throw) {
  const op::set s;
  EXPECT_CLFORGE_ERROR(s.size(), {"op::set: an empty handle"});
  EXPECT_CLFORGE_ERROR(s.iteration_size(), {"op::set: an empty handle"});
  EXPECT_CLFORGE_ERROR(s.total_size(), {"op::set: an empty handle"});
  EXPECT_CLFORGE_ERROR(s.name(), {"op::set: an empty handle"});
  const op::map m;
  EXPECT_CLFORGE_ERROR(m.arity(), {"op::map: an empty handle"});
  EXPECT_CLFORGE_ERROR(m.from(), {"op::map: an empty handle"});
  EXPECT_CLFORGE_ERROR(m.values(), {"op::map: an empty handle"});
  const op::kernel k;
  EXPECT_CLFORGE_ERROR(k.name(), {"op::kernel: an empty handle"});
  EXPECT_CLFORGE_ERROR(k.parameter_count(), {"op::kernel: an empty handle"});
  op::dat<float> d;
  EXPECT_CLFORGE_ERROR(d.dim(), {"op::dat: an empty handle"});
  EXPECT_CLFORGE_ERROR(d.data(), {"op::dat: an empty handle"});
  EXPECT_CLFORGE_ERROR(d.to_host(q()), {"op::dat: an empty handle"});
  EXPECT_CLFORGE_ERROR(d.write(q(), {1.0f}), {"op::dat: an empty handle"});
  op::global<int> g;
  EXPECT_CLFORGE_ERROR(g.dim(), {"op::global: an empty handle"});
  EXPECT_CLFORGE_ERROR(g.value(q()), {"op::global: an empty handle"});
  EXPECT_CLFORGE_ERROR(g.assign(q(), {1}), {"op::global: an empty handle"});
}

// ---- the plans themselves ----------------------------------------------------------------------

// A plan read back: every element once; within a colour no two elements (colour plan) or units
// (block plan) share a target, and within a unit no two elements of one thread colour do. This
// is what makes the loops race-free, checked directly (a race may not show on a CPU).
void check_plan(const op::detail::plan_key& key, const std::vector<cl_int>& m, std::size_t arity) {
  bool reused = false;
  op::set s = key.sources.front().through->from;
  const auto p = op::detail::find_plan(q(), *s.state(), key, reused);
  const std::vector<cl_uint> order = p->order.to_host(q());
  const std::size_t units = (key.count + key.unit - 1) / key.unit;
  ASSERT_EQ(order.size(), units);
  ASSERT_EQ(p->offsets.back(), units);
  std::vector<int> seen(units, 0);
  const auto targets_of = [&](std::size_t position) {
    std::vector<std::size_t> t;
    const std::size_t e = key.first + position;
    for (const auto& src : key.sources)
      for (std::size_t j = 0; j < arity; ++j)
        if (src.all || j == src.index) t.push_back(src.offset + std::size_t(m[e * arity + j]));
    return t;
  };
  std::vector<cl_uint> thread =
      key.thread_colours ? p->thread_colour.to_host(q()) : std::vector<cl_uint>();
  std::vector<cl_uint> unit_colours =
      key.thread_colours ? p->unit_colours.to_host(q()) : std::vector<cl_uint>();
  for (std::size_t c = 0; c < p->colours(); ++c) {
    std::vector<int> owner(key.targets, -1);
    for (std::size_t k = p->offsets[c]; k < p->offsets[c + 1]; ++k) {
      const std::size_t u = order[k];
      ASSERT_LT(u, units);
      ++seen[u];
      std::vector<std::vector<int>> by_thread_colour;
      for (std::size_t pos = u * key.unit; pos < std::min(key.count, (u + 1) * key.unit); ++pos)
        for (std::size_t t : targets_of(pos)) {
          ASSERT_TRUE(owner[t] == -1 || owner[t] == int(u))
              << "colour " << c << ": units " << owner[t] << " and " << u << " share target " << t;
          owner[t] = int(u);
          if (key.thread_colours) {
            const cl_uint tc = thread[pos];
            ASSERT_LT(tc, unit_colours[u]);
            if (by_thread_colour.size() <= tc) by_thread_colour.resize(tc + 1);
            by_thread_colour[tc].push_back(int(t));
          }
        }
      // Within the unit: targets of one thread colour come from one element each.
      if (key.thread_colours)
        for (std::size_t tc = 0; tc < by_thread_colour.size(); ++tc) {
          std::vector<std::size_t> holder(key.targets + 1, SIZE_MAX);
          for (std::size_t pos = u * key.unit; pos < std::min(key.count, (u + 1) * key.unit);
               ++pos) {
            if (thread[pos] != tc) continue;
            for (std::size_t t : targets_of(pos)) {
              ASSERT_TRUE(holder[t] == SIZE_MAX || holder[t] == pos)
                  << "unit " << u << " thread colour " << tc << ": elements " << holder[t]
                  << " and " << pos << " share target " << t;
              holder[t] = pos;
            }
          }
        }
    }
  }
  for (std::size_t u = 0; u < units; ++u) ASSERT_EQ(seen[u], 1) << "unit " << u;
}

TEST(op, plans_keep_elements_that_share_a_target_apart) {
  for (style st : {style::random, style::repeated, style::shared})
    for (std::size_t n : {1, 77, 2000}) {
      const std::size_t arity = 3, targets = st == style::shared ? 3 : 150;
      op::set from(n + 10, "from"), to(targets, "to");
      const std::vector<cl_int> m = make_map(n + 10, targets, arity, st, unsigned(n));
      op::map through(q(), from, to, arity, m, "m");
      for (int variant = 0; variant < 4; ++variant) {
        SCOPED_TRACE("style " + std::to_string(int(st)) + " n " + std::to_string(n) + " variant " +
                     std::to_string(variant));
        op::detail::plan_key key;
        key.by_units = variant >= 1;
        key.thread_colours = variant == 2 || variant == 3;
        key.unit = variant == 0 ? 1 : variant == 1 ? 8 : variant == 2 ? 32 : 5;
        key.first = 7;  // a range that does not start at 0
        key.count = n;
        key.targets = targets;
        key.sources.push_back({through.state(), 1, false, 0});
        if (variant == 3) key.sources.push_back({through.state(), 0, true, 0});  // all of it
        check_plan(key, m, arity);
      }
    }
}

}  // namespace
