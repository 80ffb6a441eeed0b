// SPDX-License-Identifier: MIT
// clforge::stencil_kernel against plain C++ loops on random data: 1-D, 2-D and 3-D stencils under
// every kernel variant of the policy (march and register window, run loops, local-memory tiles,
// work-groups one above and below the sizes), ghost widths 0, 1 and 2, sizes 1 and odd, iteration
// slices with steps and negative bounds, the triangular space, manual grids smaller and larger
// than the space, fields of different element types, float and double, boundary conditions,
// reductions over the interior, two queues and several threads, and the errors of bad input.
// Every comparison covers the whole allocation of the written field: points outside the
// iteration space must keep their values.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <clforge/clforge.hpp>

#include "expect_error.hpp"
#include "shared_device.hpp"
#include "threads.hpp"

namespace cf = clforge;
using clforge_test::ctx;
using clforge_test::q;

namespace {

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(d(rng));
  return v;
}

// A field's whole allocation on the host, indexed by interior coordinates (padded to three
// dimensions in front, as field_layout: a 2-D field is z = 0).
template <class T>
struct host_field {
  cf::detail::field_layout l;
  std::vector<T> v;
  template <std::size_t D>
  host_field(const cf::field<T, D>& f) : l(f.layout()), v(f.to_host(q(), cf::with_ghosts)) {}
  T& operator()(long z, long y, long x) {
    return v[static_cast<std::size_t>(z + long(l.low[0])) * l.strides[0] +
             static_cast<std::size_t>(y + long(l.low[1])) * l.strides[1] +
             static_cast<std::size_t>(x + long(l.low[2]))];
  }
  long n(int d) const { return long(l.shape[d]); }
};

// A field of `shape` with random values everywhere, ghost layers included.
template <class T, std::size_t D>
cf::field<T, D> random_field(const std::array<std::size_t, D>& shape, const cf::ghost& g,
                             unsigned seed) {
  cf::field<T, D> f(q(), shape, g);
  f.write(q(), random_values<T>(f.local().size(), seed), cf::with_ghosts);
  return f;
}

::testing::AssertionResult all_near(const std::vector<float>& got, const std::vector<float>& want,
                                    float tolerance = 2e-6f) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " values, expected " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= tolerance * std::max(1.0f, std::fabs(want[i]))))
      return ::testing::AssertionFailure()
             << "element " << i << ": " << got[i] << ", expected " << want[i];
  return ::testing::AssertionSuccess();
}

// Policies that reach every kernel variant: the table's, one point per work-item, a march with
// the register window, a run loop, tiles in local memory, and groups of odd sizes.
const std::vector<std::string> kVariants = {
    "",
    "group_x=1,group_y=1,group_z=1,march=1,run=1,window=0,tile=0",
    "group_x=8,group_y=4,group_z=1,march=4,run=1,window=1,tile=0",
    "group_x=8,group_y=4,group_z=2,march=3,run=1,window=1,tile=1",
    "group_x=16,group_y=2,group_z=1,march=8,run=1,window=0,tile=1",
    "group_x=4,group_y=2,group_z=1,march=1,run=5,window=0,tile=0",
    "group_x=7,group_y=3,group_z=3,march=2,run=1,window=1,tile=1",
    "group_x=9,group_y=5,group_z=1,march=1,run=1,window=0,tile=0",
    "group_x=3,group_y=1,group_z=1,march=5,run=3,window=1,tile=0",
};

// Builds under `policy` (on the shared context; reset afterwards).
struct policy_scope {
  explicit policy_scope(const std::string& p) {
    if (!p.empty()) cf::tuning::set(ctx(), "stencil", p);
  }
  ~policy_scope() { cf::tuning::reset(ctx()); }
};

}  // namespace

// 2-D heat equation (5 points) on every variant, sizes 1, odd, and around the group sizes.
TEST(stencil, heat_2d_every_variant) {
  const char* heat = "u_new(0,0) = u(0,0) + k * (u(1,0) + u(-1,0) + u(0,1) + u(0,-1) - 4*u(0,0))";
  for (const std::string& policy : kVariants) {
    policy_scope scope(policy);
    cf::stencil_kernel k(ctx(), "float[2D] u, float[2D] u_new, float k", heat);
    for (std::array<std::size_t, 2> shape :
         {std::array<std::size_t, 2>{1, 1}, {1, 9}, {8, 1}, {13, 17}, {33, 31}, {4, 65}}) {
      SCOPED_TRACE(policy + " / " + std::to_string(shape[0]) + " x " + std::to_string(shape[1]));
      auto u = random_field<float, 2>(shape, cf::ghost(1), 1);
      auto u_new = random_field<float, 2>(shape, cf::ghost(1), 2);
      host_field<float> hu(u), want(u_new);
      for (long y = 0; y < hu.n(1); ++y)
        for (long x = 0; x < hu.n(2); ++x)
          want(0, y, x) =
              hu(0, y, x) + 0.1f * (hu(0, y + 1, x) + hu(0, y - 1, x) + hu(0, y, x + 1) +
                                    hu(0, y, x - 1) - 4 * hu(0, y, x));
      k(q(), u, u_new, 0.1f);
      EXPECT_TRUE(all_near(u_new.to_host(q(), cf::with_ghosts), want.v));
    }
  }
}

// 3-D 7-point Jacobi and a 27-point box filter (every neighbour windowed) on every variant.
TEST(stencil, jacobi_3d_every_variant) {
  const char* jacobi =
      "out(0,0,0) = (u(-1,0,0) + u(1,0,0) + u(0,-1,0) + u(0,1,0) + u(0,0,-1) + u(0,0,1)) * c";
  const char* box =
      "float s = 0.0f;\n"
      "s += u(-1,-1,-1) + u(-1,-1,0) + u(-1,-1,1) + u(-1,0,-1) + u(-1,0,0) + u(-1,0,1);\n"
      "s += u(-1,1,-1) + u(-1,1,0) + u(-1,1,1) + u(0,-1,-1) + u(0,-1,0) + u(0,-1,1);\n"
      "s += u(0,0,-1) + u(0,0,0) + u(0,0,1) + u(0,1,-1) + u(0,1,0) + u(0,1,1);\n"
      "s += u(1,-1,-1) + u(1,-1,0) + u(1,-1,1) + u(1,0,-1) + u(1,0,0) + u(1,0,1);\n"
      "s += u(1,1,-1) + u(1,1,0) + u(1,1,1);\n"
      "out(0,0,0) = s * c;";
  for (const std::string& policy : kVariants) {
    policy_scope scope(policy);
    cf::stencil_kernel seven(ctx(), "float[3D] u, float[3D] out, float c", jacobi);
    cf::stencil_kernel all(ctx(), "float[3D] u, float[3D] out, float c", box);
    for (std::array<std::size_t, 3> shape :
         {std::array<std::size_t, 3>{1, 1, 1}, {5, 6, 7}, {9, 17, 15}, {3, 3, 33}}) {
      SCOPED_TRACE(policy + " / " + std::to_string(shape[0]) + " x " + std::to_string(shape[1]) +
                   " x " + std::to_string(shape[2]));
      auto u = random_field<float, 3>(shape, cf::ghost(1), 3);
      auto out = random_field<float, 3>(shape, cf::ghost(1), 4);
      host_field<float> hu(u), want(out), want_box(out);
      for (long z = 0; z < hu.n(0); ++z)
        for (long y = 0; y < hu.n(1); ++y)
          for (long x = 0; x < hu.n(2); ++x) {
            want(z, y, x) = (hu(z - 1, y, x) + hu(z + 1, y, x) + hu(z, y - 1, x) + hu(z, y + 1, x) +
                             hu(z, y, x - 1) + hu(z, y, x + 1)) *
                            (1.0f / 6.0f);
            float s = 0;
            for (int a = -1; a <= 1; ++a)
              for (int b = -1; b <= 1; ++b)
                for (int c = -1; c <= 1; ++c) s += hu(z + a, y + b, x + c);
            want_box(z, y, x) = s * (1.0f / 27.0f);
          }
      seven(q(), u, out, 1.0f / 6.0f);
      EXPECT_TRUE(all_near(out.to_host(q(), cf::with_ghosts), want.v));
      all(q(), u, out, 1.0f / 27.0f);
      EXPECT_TRUE(all_near(out.to_host(q(), cf::with_ghosts), want_box.v, 1e-5f));
    }
  }
}

// 1-D with accesses two points away: ghost 2 gives the whole interior; ghost 1 and 0 shrink it.
TEST(stencil, one_dimension_and_ghost_widths) {
  for (const std::string& policy : kVariants) {
    policy_scope scope(policy);
    cf::stencil_kernel k(ctx(), "float[1D] a, float[1D] b",
                         "b(0) = a(-2) - 2.0f * a(-1) + 3.0f * a(0) - a(1) + 0.5f * a(2)");
    for (std::size_t n : {1u, 2u, 5u, 31u, 257u})
      for (std::size_t g : {0u, 1u, 2u}) {
        SCOPED_TRACE(policy + " / n " + std::to_string(n) + ", ghost " + std::to_string(g));
        auto a = random_field<float, 1>({n}, cf::ghost(g), 5);
        auto b = random_field<float, 1>({n}, cf::ghost(g), 6);
        host_field<float> ha(a), want(b);
        // The default space: the points whose accesses stay inside the allocation.
        const long from = std::max(0L, 2 - long(g)), to = long(n) - std::max(0L, 2 - long(g));
        for (long x = from; x < to; ++x)
          want(0, 0, x) = ha(0, 0, x - 2) - 2.0f * ha(0, 0, x - 1) + 3.0f * ha(0, 0, x) -
                          ha(0, 0, x + 1) + 0.5f * ha(0, 0, x + 2);
        k(q(), a, b);
        EXPECT_TRUE(all_near(b.to_host(q(), cf::with_ghosts), want.v, 1e-5f));
        const std::size_t expected_threads = to > from ? std::size_t(to - from) : 0;
        EXPECT_EQ(k.threads_range(a, b), (std::array<std::size_t, 3>{expected_threads, 1, 1}));
      }
  }
}

// Ghost widths per side (2 below, 0 above in y): the default space shrinks on the thin side only.
TEST(stencil, ghost_widths_per_side_shape_the_default_space) {
  cf::stencil_kernel k(ctx(), "float[2D] u, float[2D] v", "v(0,0) = u(-2,0) + u(1,1)");
  const cf::ghost g = cf::ghost().with(0, 2, 0).with(1, 0, 1);
  auto u = random_field<float, 2>({6, 5}, g, 7);
  auto v = random_field<float, 2>({6, 5}, g, 8);
  host_field<float> hu(u), want(v);
  for (long y = 0; y < 5; ++y)  // u(1, .) at y = 5 would leave the allocation
    for (long x = 0; x < 5; ++x) want(0, y, x) = hu(0, y - 2, x) + hu(0, y + 1, x + 1);
  k(q(), u, v);
  EXPECT_TRUE(all_near(v.to_host(q(), cf::with_ghosts), want.v));
  EXPECT_EQ(k.threads_range(u, v), (std::array<std::size_t, 3>{5, 5, 1}));
}

// Iteration slices: steps, negative bounds, single indices, in 2-D and 3-D, on every variant.
TEST(stencil, iteration_slices_with_steps_and_negative_bounds) {
  struct slice_case {
    std::string text;
    std::array<long, 3> start, stop, step;  // resolved against 9 x 10 x 11
  };
  const std::vector<slice_case> cases = {
      {"1:-1:2, ::3, -5:", {1, 0, 6}, {8, 10, 11}, {2, 3, 1}},
      {"-4:, :-2, 2:9:4", {5, 0, 2}, {9, 8, 9}, {1, 1, 4}},
      {"3, 1:4, -1", {3, 1, 10}, {4, 4, 11}, {1, 1, 1}},
      {"::4, 2:2, :", {0, 2, 0}, {9, 2, 11}, {4, 1, 1}},  // empty: y from 2 to 2
      {"-100:100, 0:, :-100", {0, 0, 0}, {9, 10, 0}, {1, 1, 1}},
      // Expressions without counters, in long arithmetic as on the host (10^10 overflows int);
      // a negative expression is clamped to 0 (only integer bounds count from the end).
      {"1 + 1:-1, (1):2 * 4:3, -(1) - 2 * 2:", {2, 1, 0}, {8, 8, 11}, {1, 3, 1}},
      {"100000 * 100000 - 9999999997:, :, :", {3, 0, 0}, {9, 10, 11}, {1, 1, 1}},
  };
  for (const std::string& policy : kVariants) {
    policy_scope scope(policy);
    for (const slice_case& c : cases) {
      SCOPED_TRACE(policy + " / " + c.text);
      cf::stencil_options o;
      o.slice = cf::iteration_slice(c.text);
      cf::stencil_kernel k(ctx(), "float[3D] u, float[3D] v",
                           "v(0,0,0) = u(0,0,0) + u(1,0,0) - u(0,-1,0) + 0.25f * u(0,0,1) + x", o);
      auto u = random_field<float, 3>({9, 10, 11}, cf::ghost(1), 9);
      auto v = random_field<float, 3>({9, 10, 11}, cf::ghost(1), 10);
      host_field<float> hu(u), want(v);
      for (long z = c.start[0]; z < c.stop[0]; z += c.step[0])
        for (long y = c.start[1]; y < c.stop[1]; y += c.step[1])
          for (long x = c.start[2]; x < c.stop[2]; x += c.step[2])
            want(z, y, x) = hu(z, y, x) + hu(z + 1, y, x) - hu(z, y - 1, x) +
                            0.25f * hu(z, y, x + 1) + float(x);
      k(q(), u, v);
      EXPECT_TRUE(all_near(v.to_host(q(), cf::with_ghosts), want.v));
    }
  }
  // The same slice from clforge::slice values.
  cf::stencil_options o;
  o.slice =
      cf::iteration_slice({cf::slice(1, -1, 2), cf::slice(cf::slice_none, cf::slice_none, 3)});
  EXPECT_EQ(o.slice.text(), "1:-1:2, ::3");
}

// The seed's triangle (make_slice[:, y:]): automatic grid, and manual grids as the seed draws.
TEST(stencil, triangular_space) {
  cf::stencil_options o;
  o.slice = cf::iteration_slice(":, y:");
  for (const std::string& policy : kVariants) {
    policy_scope scope(policy);
    cf::stencil_kernel k(ctx(), "float[2D] f", "f(0,0) = 1.0f + x - y", o);
    SCOPED_TRACE(policy);
    // Automatic: the whole triangle x >= y.
    cf::field<float, 2> f(q(), {16, 16});
    k(q(), f);
    std::vector<float> out = f.to_host(q());
    for (long y = 0; y < 16; ++y)
      for (long x = 0; x < 16; ++x)
        EXPECT_EQ(out[y * 16 + x], x >= y ? 1.0f + float(x - y) : 0.0f) << y << ", " << x;
    EXPECT_EQ(k.threads_range(f), (std::array<std::size_t, 3>{16, 16, 1}));
    // Manual, 8 x 8 blocks, 2 x 2 of them: the whole triangle.
    f.fill(q(), 0.0f);
    k(q(), cf::launch_grid({8, 8}, {2, 2}), f);
    EXPECT_EQ(f.to_host(q()), out);
    // 4 x 4 blocks, 2 x 3: eight work-items along x from the diagonal, twelve rows.
    f.fill(q(), 0.0f);
    k(q(), cf::launch_grid({4, 4}, {2, 3}), f);
    out = f.to_host(q());
    for (long y = 0; y < 16; ++y)
      for (long x = 0; x < 16; ++x) {
        const bool covered = y < 12 && x >= y && x < y + 8;
        EXPECT_EQ(out[y * 16 + x], covered ? 1.0f + float(x - y) : 0.0f) << y << ", " << x;
      }
  }
  // Bounds on both ends and a checkerboard (red-black): start from the row's parity, step 2.
  cf::stencil_options band;
  band.slice = cf::iteration_slice("1:, y - 1 : (y * 3) / 2 + 1");
  cf::stencil_kernel b(ctx(), "float[2D] f", "f(0,0) = 2.0f", band);
  cf::stencil_options red;
  red.slice = cf::iteration_slice(":, y % 2::2");
  cf::stencil_kernel r(ctx(), "float[2D] f", "f(0,0) = 3.0f", red);
  cf::field<float, 2> f(q(), {9, 11});
  b(q(), f);
  std::vector<float> out = f.to_host(q());
  for (long y = 0; y < 9; ++y)
    for (long x = 0; x < 11; ++x) {
      const bool in = y >= 1 && x >= y - 1 && x < std::min(11L, (y * 3) / 2 + 1);
      EXPECT_EQ(out[y * 11 + x], in ? 2.0f : 0.0f) << y << ", " << x;
    }
  r(q(), f);
  out = f.to_host(q());
  for (long y = 0; y < 9; ++y)
    for (long x = 0; x < 11; ++x)
      if ((x - y % 2) % 2 == 0 && x >= y % 2) EXPECT_EQ(out[y * 11 + x], 3.0f);
  // Bounds compute in long on the device as on the host (100000 * 100000 overflows int): the
  // triangle ":, y:" again.
  cf::stencil_options wide;
  wide.slice = cf::iteration_slice(":, y + 100000 * 100000 - 10000000000:");
  cf::stencil_kernel t(ctx(), "float[2D] f", "f(0,0) = 1.0f + x - y", wide);
  cf::field<float, 2> g(q(), {16, 16});
  t(q(), g);
  out = g.to_host(q());
  for (long y = 0; y < 16; ++y)
    for (long x = 0; x < 16; ++x)
      EXPECT_EQ(out[y * 16 + x], x >= y ? 1.0f + float(x - y) : 0.0f) << y << ", " << x;
}

// Manual grids: one point per work-item of the compressed index; smaller grids cover part of the
// space, larger ones leave work-items idle (also along OpenCL dimensions the space lacks).
TEST(stencil, manual_grids_smaller_and_larger_than_the_space) {
  cf::stencil_options o;
  o.slice = cf::iteration_slice("1::2, 2:-1");
  cf::stencil_kernel k(ctx(), "float[2D] u, float[2D] v", "v(0,0) = u(0,0) + u(-1,1) + y * 100 + x",
                       o);
  // rows 1, 3, ..., 11 (6 of them), columns 2 .. 13 (12)
  EXPECT_EQ(k.threads_range(random_field<float, 2>({12, 15}, cf::ghost(1), 1),
                            random_field<float, 2>({12, 15}, cf::ghost(1), 2)),
            (std::array<std::size_t, 3>{12, 6, 1}));
  struct grid_case {
    std::array<std::size_t, 3> block, blocks;
    long rows, columns;  // compressed points covered
  };
  const std::vector<grid_case> grids = {
      {{4, 2, 1}, {3, 3, 1}, 6, 12},   // exactly
      {{4, 2, 1}, {2, 2, 1}, 4, 8},    // smaller
      {{5, 3, 1}, {3, 1, 1}, 3, 12},   // smaller in y, larger in x
      {{16, 4, 1}, {2, 4, 1}, 6, 12},  // larger
      {{3, 1, 2}, {5, 7, 2}, 6, 12},   // and a z the space lacks
      {{1, 1, 1}, {1, 1, 1}, 1, 1},
  };
  for (const grid_case& g : grids) {
    auto u = random_field<float, 2>({12, 15}, cf::ghost(1), 11);
    auto v = random_field<float, 2>({12, 15}, cf::ghost(1), 12);
    host_field<float> hu(u), want(v);
    for (long ky = 0; ky < g.rows; ++ky)
      for (long kx = 0; kx < g.columns; ++kx) {
        const long y = 1 + 2 * ky, x = 2 + kx;
        want(0, y, x) = hu(0, y, x) + hu(0, y - 1, x + 1) + float(y * 100 + x);
      }
    const cf::launch_grid grid({g.block[0], g.block[1], g.block[2]},
                               {g.blocks[0], g.blocks[1], g.blocks[2]});
    k(q(), grid, u, v);
    EXPECT_TRUE(all_near(v.to_host(q(), cf::with_ghosts), want.v)) << g.rows << " x " << g.columns;
  }
  // 3-D: a grid too small along z.
  cf::stencil_kernel k3(ctx(), "float[3D] u", "u(0,0,0) = z * 10000 + y * 100 + x");
  cf::field<float, 3> u(q(), {4, 5, 6});
  k3(q(), cf::launch_grid({2, 5, 1}, {3, 1, 2}), u);
  host_field<float> got(u);
  for (long z = 0; z < 4; ++z)
    for (long y = 0; y < 5; ++y)
      for (long x = 0; x < 6; ++x)
        EXPECT_EQ(got(z, y, x), z < 2 ? float(z * 10000 + y * 100 + x) : 0.0f);
}

// Several fields of different element types in one stencil; vector fields; complex fields.
TEST(stencil, fields_of_different_element_types) {
  cf::stencil_kernel k(
      ctx(), "float[2D] u, int[2D] mask, float4[2D] v, float[2D] out, int bias",
      "out(0,0) = mask(0,0) ? u(0,1) + v(0,0).y + v(1,0).w : (float)(bias + mask(-1,0))");
  const std::array<std::size_t, 2> shape{7, 9};
  auto u = random_field<float, 2>(shape, cf::ghost(1), 13);
  cf::field<int, 2> mask(q(), shape, cf::ghost(1));
  std::vector<int> m(mask.local().size());
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = int(i % 3);
  mask.write(q(), m, cf::with_ghosts);
  cf::field<cl_float4, 2> v(q(), shape, cf::ghost(1));
  std::vector<cl_float4> vv(v.local().size());
  for (std::size_t i = 0; i < vv.size(); ++i)
    for (int c = 0; c < 4; ++c) vv[i].s[c] = float(i) * 0.5f + float(c);
  v.write(q(), vv, cf::with_ghosts);
  auto out = random_field<float, 2>(shape, cf::ghost(1), 14);
  host_field<float> hu(u), want(out);
  host_field<int> hm(mask);
  host_field<cl_float4> hv(v);
  for (long y = 0; y < 7; ++y)
    for (long x = 0; x < 9; ++x)
      want(0, y, x) = hm(0, y, x) ? hu(0, y, x + 1) + hv(0, y, x).s[1] + hv(0, y + 1, x).s[3]
                                  : float(5 + hm(0, y - 1, x));
  k(q(), u, mask, v, out, 5);
  EXPECT_TRUE(all_near(out.to_host(q(), cf::with_ghosts), want.v));

  // complex<float>: the complex header comes with the field.
  cf::stencil_kernel c(ctx(), "cfloat_t[1D] z, cfloat_t[1D] w",
                       "w(0) = cfloat_add(cfloat_mul(z(0), z(0)), z(1))");
  std::vector<std::complex<float>> zs = {{1, 2}, {3, -1}, {0.5f, 0.25f}, {-2, 1}};
  auto z = cf::field<std::complex<float>, 1>::from_host(q(), {4}, zs, cf::ghost(1));
  cf::field<std::complex<float>, 1> w(q(), {4}, cf::ghost(1));
  c(q(), z, w);
  const std::vector<std::complex<float>> got = w.to_host(q());
  for (std::size_t i = 0; i < 4; ++i) {
    const std::complex<float> want_i = zs[i] * zs[i] + (i + 1 < 4 ? zs[i + 1] : 0.0f);
    EXPECT_NEAR(std::abs(got[i] - want_i), 0.0f, 1e-5f) << i;
  }
}

// double fields, on every variant (where the device has fp64).
TEST(stencil, double_precision) {
  if (!ctx().info().has_fp64) GTEST_SKIP() << "no fp64 on " << ctx().info().name;
  for (const std::string& policy : kVariants) {
    policy_scope scope(policy);
    SCOPED_TRACE(policy);
    cf::stencil_kernel k(
        ctx(), "double[3D] u, double[3D] out, double c",
        "out(0,0,0) = c * (u(0,0,-1) + u(0,0,1) + u(0,-1,0) + u(0,1,0) + u(-1,0,0) "
        "+ u(1,0,0)) - u(0,0,0)");
    auto u = random_field<double, 3>({6, 7, 9}, cf::ghost(1), 15);
    auto out = random_field<double, 3>({6, 7, 9}, cf::ghost(1), 16);
    host_field<double> hu(u), want(out);
    for (long z = 0; z < 6; ++z)
      for (long y = 0; y < 7; ++y)
        for (long x = 0; x < 9; ++x)
          want(z, y, x) = 0.3 * (hu(z, y, x - 1) + hu(z, y, x + 1) + hu(z, y - 1, x) +
                                 hu(z, y + 1, x) + hu(z - 1, y, x) + hu(z + 1, y, x)) -
                          hu(z, y, x);
    k(q(), u, out, 0.3);
    const std::vector<double> got = out.to_host(q(), cf::with_ghosts);
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want.v[i], 1e-12) << i;
  }
}

// Temporaries, several assignments, a preamble helper, the counters, several written fields.
TEST(stencil, temporaries_counters_preamble_and_several_outputs) {
  cf::stencil_options o;
  o.preamble =
      "static inline float clamp01(float v) { return v < 0 ? 0 : v > 1 ? 1 : v; }\n"
      "#define SCALE 0.5f  // a comment, then a line end";
  o.name = "two_outputs";
  cf::stencil_kernel k(ctx(), "float[2D] u, float[2D] lap, float[2D] mark",
                       "float l = u(1,0) + u(-1,0) + u(0,1) + u(0,-1) - 4 * u(0,0);  // laplacian\n"
                       "lap(0,0) = SCALE * l;\n"
                       "mark(0,0) = clamp01(l) + (x == 0 ? 10 : 0) + (y == 2 ? 100 : 0) +"
                       " (l > u(0,0) ? 1000 : 0)",
                       o);
  EXPECT_NE(k.source().find("kernel void two_outputs("), std::string::npos);
  EXPECT_NE(k.source().find("policy: group_x="), std::string::npos);
  EXPECT_EQ(k.name(), "two_outputs");
  auto u = random_field<float, 2>({5, 6}, cf::ghost(1), 17);
  auto lap = random_field<float, 2>({5, 6}, cf::ghost(1), 18);
  auto mark = random_field<float, 2>({5, 6}, cf::ghost(1), 19);
  host_field<float> hu(u), want_lap(lap), want_mark(mark);
  for (long y = 0; y < 5; ++y)
    for (long x = 0; x < 6; ++x) {
      const float l =
          hu(0, y + 1, x) + hu(0, y - 1, x) + hu(0, y, x + 1) + hu(0, y, x - 1) - 4 * hu(0, y, x);
      want_lap(0, y, x) = 0.5f * l;
      const float clamped = l < 0 ? 0 : (l > 1 ? 1 : l);
      want_mark(0, y, x) = clamped + (x == 0 ? 10.0f : 0.0f) + (y == 2 ? 100.0f : 0.0f) +
                           (l > hu(0, y, x) ? 1000.0f : 0.0f);
    }
  k(q(), u, lap, mark);
  EXPECT_TRUE(all_near(lap.to_host(q(), cf::with_ghosts), want_lap.v));
  EXPECT_TRUE(all_near(mark.to_host(q(), cf::with_ghosts), want_mark.v));
}

// A sign next to an access ("a + +b", "a - -b") reads it: only ++, -- and op= written together
// write (a field only read is no race).
TEST(stencil, signs_next_to_an_access_are_reads) {
  cf::stencil_kernel k(ctx(), "float[2D] u, float[2D] v, float a",
                       "v(0,0) = u(0,0) + +a - -u(1,0) - - u(0,1)");
  auto u = random_field<float, 2>({5, 6}, cf::ghost(1), 30);
  auto v = random_field<float, 2>({5, 6}, cf::ghost(1), 31);
  host_field<float> hu(u), want(v);
  for (long y = 0; y < 5; ++y)
    for (long x = 0; x < 6; ++x)
      want(0, y, x) = hu(0, y, x) + 0.5f + hu(0, y + 1, x) + hu(0, y, x + 1);
  k(q(), u, v, 0.5f);
  EXPECT_TRUE(all_near(v.to_host(q(), cf::with_ghosts), want.v));
}

// Fields and values may be named like the built-ins the generated kernels call (min, clamp,
// barrier, get_global_id, ...): the kernels call them under names of their own. Two stencils
// swap the names between fields and values; the variants with a run loop (min), tiles (barrier,
// local and group ids) and a bound with a counter (clamp).
TEST(stencil, names_of_built_ins_for_fields_and_values) {
  const std::array<std::array<std::string, 3>, 2> names = {
      std::array<std::string, 3>{"min", "barrier", "get_local_id"},
      {"clamp", "get_global_id", "get_group_id"}};
  for (const std::string& policy : {kVariants[0], kVariants[3], kVariants[5]}) {
    policy_scope scope(policy);
    for (std::size_t swap = 0; swap < 2; ++swap) {
      const std::array<std::string, 3>& f = names[swap];
      const std::array<std::string, 3>& v = names[1 - swap];
      for (const bool sliced : {false, true}) {
        SCOPED_TRACE(policy + " / fields " + f[0] + (sliced ? " / sliced" : ""));
        cf::stencil_options o;
        if (sliced) o.slice = cf::iteration_slice(":, y % 2:");
        cf::stencil_kernel k(ctx(),
                             "float[2D] " + f[0] + ", float[2D] " + f[1] + ", float[2D] " + f[2] +
                                 ", float[2D] out, float " + v[0] + ", float " + v[1] + ", float " +
                                 v[2],
                             "out(0,0) = " + f[0] + "(0,1) - " + f[1] + "(1,0) + " + f[2] +
                                 "(0,0) * " + v[0] + " + " + v[1] + " * " + v[2],
                             o);
        auto a = random_field<float, 2>({9, 17}, cf::ghost(1), 32);
        auto b = random_field<float, 2>({9, 17}, cf::ghost(1), 33);
        auto c = random_field<float, 2>({9, 17}, cf::ghost(1), 34);
        auto out = random_field<float, 2>({9, 17}, cf::ghost(1), 35);
        host_field<float> ha(a), hb(b), hc(c), want(out);
        for (long y = 0; y < 9; ++y)
          for (long x = sliced ? y % 2 : 0; x < 17; ++x)
            want(0, y, x) = ha(0, y, x + 1) - hb(0, y + 1, x) + hc(0, y, x) * 3.0f + 0.5f * 4.0f;
        k(q(), a, b, c, out, 3.0f, 0.5f, 4.0f);
        EXPECT_TRUE(all_near(out.to_host(q(), cf::with_ghosts), want.v));
      }
    }
  }
}

// In place: a point-wise update of one field, compound assignments included.
TEST(stencil, in_place_point_wise_updates) {
  for (const std::string& policy : kVariants) {
    policy_scope scope(policy);
    SCOPED_TRACE(policy);
    cf::stencil_kernel k(ctx(), "float[2D] u, float[2D] f, float a",
                         "u(0,0) = a * u(0,0) + f(0,0); u(0,0) += f(1,0); u(0,0) *= 0.5f",
                         cf::in_place);
    auto u = random_field<float, 2>({9, 8}, cf::ghost(1), 20);
    auto f = random_field<float, 2>({9, 8}, cf::ghost(1), 21);
    host_field<float> hf(f), want(u);
    for (long y = 0; y < 9; ++y)
      for (long x = 0; x < 8; ++x)
        want(0, y, x) = (2.0f * want(0, y, x) + hf(0, y, x) + hf(0, y + 1, x)) * 0.5f;
    k(q(), u, f, 2.0f);
    EXPECT_TRUE(all_near(u.to_host(q(), cf::with_ghosts), want.v));
  }
}

// Boundary conditions: every kind on every side, 1-D to 3-D, ghost widths 1 and 2, against a
// host loop that fills dimension after dimension across the whole allocation of the others.
namespace {
template <std::size_t D>
void host_boundaries(host_field<float>& h, const cf::boundary_conditions<float, D>& bc) {
  const auto& l = h.l;
  for (std::size_t at = 3 - D; at < 3; ++at) {
    const std::size_t d = at - (3 - D);
    const long n = long(l.shape[at]);
    std::array<long, 3> from, to;
    for (int e = 0; e < 3; ++e) {
      from[e] = -long(l.low[e]);
      to[e] = long(l.shape[e] + l.high[e]);
    }
    for (long a = from[0]; a < to[0]; ++a)
      for (long b = from[1]; b < to[1]; ++b)
        for (long c = from[2]; c < to[2]; ++c) {
          std::array<long, 3> p{a, b, c};
          const long t = p[at];
          if (t >= 0 && t < n) continue;
          const cf::boundary<float>& k = bc.at(d, t < 0 ? cf::side::low : cf::side::high);
          if (k.kind == cf::boundary_kind::constant) {
            h(a, b, c) = k.value;
            continue;
          }
          std::array<long, 3> s = p;
          s[at] = k.kind == cf::boundary_kind::periodic ? ((t % n) + n) % n : (t < 0 ? 0 : n - 1);
          h(a, b, c) = h(s[0], s[1], s[2]);
        }
  }
}
}  // namespace

TEST(stencil, boundary_conditions_on_every_side) {
  using B = cf::boundary<float>;
  for (std::size_t g : {1u, 2u}) {
    SCOPED_TRACE("ghost " + std::to_string(g));
    {  // 1-D
      for (const cf::boundary_conditions<float, 1>& bc :
           {cf::boundary_conditions<float, 1>(B::periodic()),
            cf::boundary_conditions<float, 1>(B::neumann()).set(0, cf::side::high, B::constant(7)),
            cf::boundary_conditions<float, 1>(B::constant(-1))}) {
        for (std::size_t n : {1u, 3u, 10u}) {
          auto f = random_field<float, 1>({n}, cf::ghost(g), 22);
          host_field<float> want(f);
          host_boundaries<1>(want, bc);
          cf::apply_boundaries(q(), f, bc);
          EXPECT_EQ(f.to_host(q(), cf::with_ghosts), want.v) << n;
        }
      }
    }
    {  // 2-D: per side
      cf::boundary_conditions<float, 2> bc(B::periodic());
      bc.set(1, cf::side::low, B::constant(3)).set(1, cf::side::high, B::neumann());
      auto f = random_field<float, 2>({5, 7}, cf::ghost(g), 23);
      host_field<float> want(f);
      host_boundaries<2>(want, bc);
      cf::apply_boundaries(q(), f, bc);
      EXPECT_EQ(f.to_host(q(), cf::with_ghosts), want.v);
    }
    {  // 3-D: periodic, constant, neumann by dimension; and all periodic
      cf::boundary_conditions<float, 3> bc(B::neumann());
      bc.set(0, B::periodic()).set(1, cf::side::high, B::constant(0.5f));
      for (const auto& conditions : {bc, cf::boundary_conditions<float, 3>(B::periodic())}) {
        auto f = random_field<float, 3>({4, 3, 5}, cf::ghost(g), 24);
        host_field<float> want(f);
        host_boundaries<3>(want, conditions);
        cf::apply_boundaries(q(), f, conditions);
        EXPECT_EQ(f.to_host(q(), cf::with_ghosts), want.v);
      }
    }
  }
  // Without ghost layers nothing changes; uneven ghost layers fill what exists.
  auto f = random_field<float, 2>({4, 4}, cf::ghost().with(1, 0, 2), 25);
  host_field<float> want(f);
  cf::boundary_conditions<float, 2> bc(B::neumann());
  host_boundaries<2>(want, bc);
  cf::apply_boundaries(q(), f, bc);
  EXPECT_EQ(f.to_host(q(), cf::with_ghosts), want.v);
  // vector elements
  cf::field<cl_int4, 2> v(q(), {2, 3}, cf::ghost(1));
  std::vector<cl_int4> inner(6);
  for (int i = 0; i < 6; ++i)
    for (int c = 0; c < 4; ++c) inner[i].s[c] = i * 10 + c;
  v.write(q(), inner);
  cf::apply_boundaries(q(), v,
                       cf::boundary_conditions<cl_int4, 2>(cf::boundary<cl_int4>::periodic()));
  const std::vector<cl_int4> all = v.to_host(q(), cf::with_ghosts);
  // corner (-1, -1) is interior (1, 2); edge (0, 3) is (0, 0)
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(all[0].s[c], inner[5].s[c]);
    EXPECT_EQ(all[1 * 5 + 4].s[c], inner[0].s[c]);
  }
}

// A heat equation with periodic boundaries over several steps against the host.
TEST(stencil, heat_steps_with_boundaries_and_a_residual_norm) {
  const std::size_t n = 24;
  cf::stencil_kernel heat(ctx(), "float[2D] u, float[2D] v, float k",
                          "v(0,0) = u(0,0) + k * (u(1,0) + u(-1,0) + u(0,1) + u(0,-1) - 4*u(0,0))");
  const cf::boundary_conditions<float, 2> bc(cf::boundary<float>::periodic());
  auto u = random_field<float, 2>({n, n}, cf::ghost(1), 26);
  cf::field<float, 2> v(q(), {n, n}, cf::ghost(1));
  host_field<float> h(u), hv(v);
  for (int step = 0; step < 10; ++step) {
    cf::apply_boundaries(q(), u, bc);
    heat(q(), u, v, 0.2f);
    std::swap(u, v);
    host_boundaries<2>(h, bc);
    for (long y = 0; y < long(n); ++y)
      for (long x = 0; x < long(n); ++x)
        hv(0, y, x) = h(0, y, x) + 0.2f * (h(0, y + 1, x) + h(0, y - 1, x) + h(0, y, x + 1) +
                                           h(0, y, x - 1) - 4 * h(0, y, x));
    std::swap(h, hv);
  }
  host_field<float> got(u);
  double sum = 0, squares = 0, diff = 0;
  for (long y = 0; y < long(n); ++y)
    for (long x = 0; x < long(n); ++x) {
      diff = std::max(diff, double(std::fabs(got(0, y, x) - h(0, y, x))));
      sum += h(0, y, x);
      squares += double(h(0, y, x)) * h(0, y, x);
    }
  EXPECT_LT(diff, 1e-5);
  // Reductions over the interior (the ghost cells hold other values).
  EXPECT_NEAR(cf::sum(q(), u.interior()), sum, 1e-3);
  EXPECT_NEAR(cf::dot(q(), u.interior(), u.interior()), squares, 1e-3);
}

// Reductions over boxes: sum, min, max and dot exclude the ghost cells; boundary views reduce too.
TEST(stencil, reductions_over_the_interior_without_a_copy) {
  for (std::size_t g : {0u, 1u, 2u}) {
    auto f = random_field<float, 3>({5, 4, 7}, cf::ghost(g), 27);
    std::vector<float> all = f.to_host(q(), cf::with_ghosts);
    for (float& v : all) v += 100.0f;  // ghost cells far away from the interior's values
    f.write(q(), all, cf::with_ghosts);
    f.write(q(), random_values<float>(5 * 4 * 7, 28));
    const std::vector<float> inner = f.to_host(q());
    double s = 0, d = 0;
    float lo = inner[0], hi = inner[0];
    for (float v : inner) s += v, d += double(v) * v, lo = std::min(lo, v), hi = std::max(hi, v);
    EXPECT_NEAR(cf::sum(q(), f.interior()), s, 1e-4);
    EXPECT_EQ(cf::min(q(), f.interior()), lo);
    EXPECT_EQ(cf::max(q(), f.interior()), hi);
    EXPECT_NEAR(cf::dot(q(), f.interior(), f.interior()), d, 1e-3);
    if (g > 0) {
      const std::vector<float> side = f.boundary(1, cf::side::high).to_host(q());
      double ss = 0;
      for (float v : side) ss += v;
      EXPECT_NEAR(cf::sum(q(), f.boundary(1, cf::side::high)), ss, 1e-2);
    }
  }
  // Views of two fields with different ghost layers but one shape.
  auto a = random_field<float, 2>({6, 6}, cf::ghost(2), 29);
  auto b = random_field<float, 2>({6, 6}, cf::ghost(0), 30);
  const std::vector<float> ha = a.to_host(q()), hb = b.to_host(q());
  double d = 0;
  for (std::size_t i = 0; i < ha.size(); ++i) d += double(ha[i]) * hb[i];
  EXPECT_NEAR(cf::dot(q(), a.interior(), b.interior()), d, 1e-4);
  EXPECT_CLFORGE_ERROR(cf::dot(q(), a.interior(), a.view({0, 0}, {2, 3})),
                       {"clforge::dot: the two field views have different shapes"});
  EXPECT_CLFORGE_ERROR(cf::min(q(), a.view({0, 0}, {0, 3})),
                       {"clforge::min: the field view is empty"});
  EXPECT_EQ(cf::sum(q(), a.view({0, 0}, {0, 3})), 0.0f);
}

// One stencil from several threads on two queues of its context.
TEST(stencil, two_queues_and_several_threads_share_one_stencil) {
  cf::stencil_kernel k(ctx(), "float[2D] u, float[2D] v, float s",
                       "v(0,0) = s * (u(1,0) - u(-1,0)) + u(0,1)");
  cf::queue second(ctx());
  std::vector<int> ok(8, 0);
  const std::vector<std::string> thrown = clforge_test::on_threads(8, [&](int t) {
    const cf::queue& mine = t % 2 ? second : q();
    const std::array<std::size_t, 2> shape{std::size_t(10 + t), std::size_t(20 - t)};
    cf::field<float, 2> u(mine, shape, cf::ghost(1)), v(mine, shape, cf::ghost(1));
    u.write(mine, random_values<float>(u.local().size(), 40 + t), cf::with_ghosts);
    const std::vector<float> hu = u.to_host(mine, cf::with_ghosts);
    const std::size_t w = shape[1] + 2;
    bool good = true;
    for (int round = 0; round < 5; ++round) {
      k(mine, cf::launch_grid({4, 4}, {8, 8}), u, v, float(t));
      k(mine, u, v, float(t + round));
      const std::vector<float> hv = v.to_host(mine, cf::with_ghosts);
      for (std::size_t y = 1; y <= shape[0]; ++y)
        for (std::size_t x = 1; x <= shape[1]; ++x) {
          const float want =
              float(t + round) * (hu[(y + 1) * w + x] - hu[(y - 1) * w + x]) + hu[y * w + x + 1];
          good = good && std::fabs(hv[y * w + x] - want) <= 1e-5f * std::max(1.0f, std::fabs(want));
        }
    }
    ok[t] = good;
  });
  for (int t = 0; t < 8; ++t) EXPECT_TRUE(ok[t]) << "thread " << t << " " << thrown[t];
}

// Bad input: a clear clforge::error before anything runs.
TEST(stencil, bad_input_is_a_clear_error) {
  const char* five = "v(0,0) = u(1,0) + u(-1,0) + u(0,1) + u(0,-1)";
  cf::stencil_kernel k(ctx(), "float[2D] u, float[2D] v", five);
  // An access beyond the ghost layers (an iteration slice over the whole interior, ghost 0).
  cf::stencil_options whole;
  whole.slice = cf::iteration_slice(":, :");
  cf::stencil_kernel w(ctx(), "float[2D] u, float[2D] v", five, whole);
  cf::field<float, 2> u0(q(), {6, 6}), v0(q(), {6, 6});
  EXPECT_CLFORGE_ERROR(w(q(), u0, v0),
                       {"stencil_kernel \"stencil\": u(-1, 0) at y = 0 reaches y = -1",
                        "beyond the ghost layers of u (y from 0 to 5)"});
  cf::field<float, 2> u1(q(), {6, 6}, cf::ghost(1)), v1(q(), {6, 6}, cf::ghost(1));
  w(q(), u1, v1);  // fine with one ghost layer
  cf::stencil_options far;
  far.slice = cf::iteration_slice(":, 1:");
  cf::stencil_kernel w2(ctx(), "float[2D] u, float[2D] v", "v(0,0) = u(0,2)", far);
  EXPECT_CLFORGE_ERROR(w2(q(), u1, v1), {"u(0, 2) at x = 5 reaches x = 7", "x from -1 to 6"});
  EXPECT_CLFORGE_ERROR(w2.threads_range(u1, v1), {"beyond the ghost layers of u"});
  // Fields of different shapes.
  cf::field<float, 2> other(q(), {6, 7}, cf::ghost(1));
  EXPECT_CLFORGE_ERROR(k(q(), u1, other),
                       {"the fields have different shapes: u is 6 x 6, v 6 x 7"});
  // An in-place race: read at a neighbour and written; read and written without in_place; the
  // same field passed twice where one is written; written at two offsets.
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[2D] u", "u(0,0) = u(1,0)", cf::in_place),
                       {"clforge::in_place: u is read at u(1, 0) and written at u(0, 0)"});
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[2D] u", "u(0,0) = 2 * u(0,0)"),
                       {"u is read (u(0, 0)) and written (u(0, 0))", "clforge::in_place"});
  EXPECT_CLFORGE_ERROR(
      cf::stencil_kernel(ctx(), "float[2D] u, float[2D] v", "v(0,0) = 1; v(0,1) = 2"),
      {"v is written at two offsets, v(0, 0) and v(0, 1)"});
  EXPECT_CLFORGE_ERROR(k(q(), u1, u1), {"u and v are one field"});
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[2D] u", "u(0,0) += 1"),
                       {"u is read (u(0, 0)) and written"});
  // A zero-sized dimension.
  EXPECT_CLFORGE_ERROR((cf::field<float, 2>(q(), {0, 6})), {"dimension 0 of the shape 0 x 6 is 0"});
  // A block size over the device's limit.
  const std::size_t limit = ctx().info().max_work_group_size;
  EXPECT_CLFORGE_ERROR(
      k(q(), cf::launch_grid({limit, 2}, {1, 1}), u1, v1),
      {"launch_grid: a block of " + std::to_string(2 * limit) + " work-items is over the limit"});
  EXPECT_CLFORGE_ERROR(k(q(), cf::launch_grid({1, 1, 1u << 20}, {1, 1, 1}), u1, v1),
                       {"launch_grid: block_size 1048576 along z is over the device's limit"});
  EXPECT_CLFORGE_ERROR(k(q(), cf::launch_grid({0, 1}, {1, 1}), u1, v1),
                       {"block_size and num_blocks must be at least 1"});
  EXPECT_CLFORGE_ERROR(cf::launch_grid({1, 2, 3, 4}, {1}),
                       {"launch_grid: block_size and num_blocks take 1 to 3"});
  // Declarations and accesses.
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[2D] u, float[3D] v", "v(0,0,0) = 1"),
                       {"\"float[3D] v\" is 3-D, the fields before it 2-D"});
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[4D] u", "u(0,0,0,0) = 1"),
                       {"\"float[4D] u\" is no declaration"});
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float k", "k = 1"),
                       {"no field among the parameters"});
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[2D] u, float[2D] v", "v(0,0) = u(i,0)"),
                       {"an access to u takes 2 integer offsets, as in u(0, 1)"});
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[2D] u, float[2D] v", "v(0,0) = u(0)"),
                       {"an access to u takes 2 integer offsets"});
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[2D] u, float[2D] v", "v(0,0) = u[3]"),
                       {"the field u is used without offsets"});
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[2D] u, float[2D] v", "u(0,0)"),
                       {"the assignments write no field"});
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[2D] x, float[2D] v", "v(0,0) = 1"),
                       {"the field name \"x\" is reserved"});
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[2D] u, float y", "u(0,0) = y"),
                       {"the parameter name \"y\" is reserved"});
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[2D] u, float[2D] u", "u(0,0) = 1"),
                       {"the name \"u\" is declared twice"});
  EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "float[2D] u", "u(0,0) = undefined_name"),
                       {"stencil_kernel \"stencil\"", "undefined_name"});
  // Slices.
  auto sliced = [&](const std::string& text) {
    cf::stencil_options o;
    o.slice = cf::iteration_slice(text);
    return cf::stencil_kernel(ctx(), "float[2D] u", "u(0,0) = 1", o);
  };
  EXPECT_CLFORGE_ERROR(sliced("1:2"), {"iteration_slice \"1:2\" has 1 dimensions, the fields 2"});
  EXPECT_CLFORGE_ERROR(sliced(":, ::0"), {"the step is a positive integer"});
  EXPECT_CLFORGE_ERROR(sliced(":, ::-1"), {"the step is a positive integer"});
  EXPECT_CLFORGE_ERROR(sliced("x:, :"), {"\"x\" in a bound of y", "(none here)"});
  EXPECT_CLFORGE_ERROR(sliced(":, w:"), {"\"w\" in a bound of x", "(here y)"});
  EXPECT_CLFORGE_ERROR(sliced(":, (y:"), {"iteration_slice \":, (y:\""});
  EXPECT_CLFORGE_ERROR(sliced(":, (y:)"), {"dimension 1", "\":\" where an operator belongs"});
  EXPECT_CLFORGE_ERROR(sliced(":, y +:"), {"the expression is incomplete"});
  cf::field<float, 2> small(q(), {4, 4});
  EXPECT_CLFORGE_ERROR(sliced(":, 4 / (y - 2):")(q(), small), {"the expression divides by zero"});
  EXPECT_CLFORGE_ERROR(sliced("1 / 0:, :")(q(), small), {"the expression divides by zero"});
  // Arguments.
  EXPECT_CLFORGE_ERROR(k(q(), u1), {"1 arguments for 2 parameters"});
  EXPECT_CLFORGE_ERROR(k(q(), u1, 1.0f),
                       {"argument 2 is no field; the parameter v is a float[2D] field"});
  cf::field<double, 2> wrong_type(q(), {6, 6}, cf::ghost(1));
  if (ctx().info().has_fp64)
    EXPECT_CLFORGE_ERROR(k(q(), u1, wrong_type),
                         {"v is a float[2D] field; the argument is a double[2D] field"});
  cf::field<float, 3> wrong_dims(q(), {6, 6, 6});
  EXPECT_CLFORGE_ERROR(k(q(), u1, wrong_dims),
                       {"v is a float[2D] field; the argument is a float[3D]"});
  cf::field<float, 2> empty;
  EXPECT_CLFORGE_ERROR(k(q(), u1, empty), {"the field given for v is empty"});
  cf::stencil_kernel kv(ctx(), "float[2D] u, float a", "u(0,0) = a");
  EXPECT_CLFORGE_ERROR(kv(q(), u1, u1),
                       {"argument 2 is a field where the parameters have a value"});
  cf::context elsewhere = cf::context::create_default();
  cf::queue other_q(elsewhere);
  EXPECT_CLFORGE_ERROR(kv(other_q, u1, 1.0f), {"the queue belongs to another context"});
  // Boundary conditions: periodic needs both sides; an empty field.
  cf::boundary_conditions<float, 2> one_sided(cf::boundary<float>::neumann());
  one_sided.set(1, cf::side::low, cf::boundary<float>::periodic());
  EXPECT_CLFORGE_ERROR(cf::apply_boundaries(q(), u1, one_sided),
                       {"clforge::apply_boundaries: periodic on one side of dimension 1 only"});
  EXPECT_CLFORGE_ERROR(cf::apply_boundaries(q(), empty, one_sided), {"the field is empty"});
  // A default-constructed stencil_kernel: every call and accessor throws (no null read).
  const cf::stencil_kernel none;
  EXPECT_CLFORGE_ERROR(none(q(), u1), {"stencil_kernel: an empty stencil_kernel"});
  EXPECT_CLFORGE_ERROR(none(q(), cf::launch_grid({1}, {1}), u1, 1.0f),
                       {"stencil_kernel: an empty stencil_kernel"});
  EXPECT_CLFORGE_ERROR(none.threads_range(u1), {"stencil_kernel: an empty stencil_kernel"});
  EXPECT_CLFORGE_ERROR(none.source(), {"stencil_kernel: an empty stencil_kernel"});
  EXPECT_CLFORGE_ERROR(none.name(), {"stencil_kernel: an empty stencil_kernel"});
  EXPECT_CLFORGE_ERROR(none.policy(), {"stencil_kernel: an empty stencil_kernel"});
  // fp64 where the device has none.
  if (!ctx().info().has_fp64)
    EXPECT_CLFORGE_ERROR(cf::stencil_kernel(ctx(), "double[2D] u", "u(0,0) = 1"), {"cl_khr_fp64"});
}
