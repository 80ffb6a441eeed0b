// SPDX-License-Identifier: MIT
// clforge::field<T, D> against host arithmetic on its row-major layout: shapes and ghost layers,
// transfers of the interior, of the whole allocation and of boxes, views of the ghost layers,
// local() under the existing templates, element types, and the errors of bad shapes and sizes.
#include <gtest/gtest.h>

#include <complex>
#include <random>
#include <vector>

#include <clforge/clforge.hpp>

#include "expect_error.hpp"
#include "shared_device.hpp"

namespace cf = clforge;
using clforge_test::ctx;
using clforge_test::q;

namespace {

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace

TEST(field, layout_is_row_major_with_ghost_layers_per_side) {
  cf::field<float, 3> f(q(), {2, 3, 4}, cf::ghost().with(0, 1, 2).with(1, 0, 1).with(2, 2, 0));
  EXPECT_EQ(f.shape(), (std::array<std::size_t, 3>{2, 3, 4}));
  EXPECT_EQ(f.allocation(), (std::array<std::size_t, 3>{5, 4, 6}));
  EXPECT_EQ(f.strides(), (std::array<std::size_t, 3>{24, 6, 1}));
  EXPECT_EQ(f.ghosts_low(), (std::array<std::size_t, 3>{1, 0, 2}));
  EXPECT_EQ(f.ghosts_high(), (std::array<std::size_t, 3>{2, 1, 0}));
  EXPECT_EQ(f.origin(), 24u + 0u + 2u);
  EXPECT_EQ(f.size(), 24u);
  EXPECT_EQ(f.local().size(), 120u);
  // A new field is zero, ghost layers included.
  for (float v : f.to_host(q(), cf::with_ghosts)) EXPECT_EQ(v, 0.0f);
  // ghost(w) on every side; dimensions beyond the field's own are ignored.
  cf::field<int, 1> line(q(), {5}, cf::ghost(2));
  EXPECT_EQ(line.allocation(), (std::array<std::size_t, 1>{9}));
  EXPECT_EQ(line.origin(), 2u);
}

TEST(field, interior_and_whole_allocation_round_trips) {
  for (std::size_t g : {0u, 1u, 2u})
    for (std::array<std::size_t, 2> shape :
         {std::array<std::size_t, 2>{1, 1}, {1, 7}, {7, 1}, {5, 9}}) {
      SCOPED_TRACE("ghost " + std::to_string(g) + ", " + std::to_string(shape[0]) + " x " +
                   std::to_string(shape[1]));
      const std::vector<float> interior = random_floats(shape[0] * shape[1], 1);
      auto f = cf::field<float, 2>::from_host(q(), shape, interior, cf::ghost(g));
      EXPECT_EQ(f.to_host(q()), interior);
      // The interior sits inside zeros at origin + y * stride.
      const std::vector<float> all = f.to_host(q(), cf::with_ghosts);
      const std::size_t width = shape[1] + 2 * g;
      ASSERT_EQ(all.size(), (shape[0] + 2 * g) * width);
      for (std::size_t y = 0; y < shape[0] + 2 * g; ++y)
        for (std::size_t x = 0; x < width; ++x) {
          const bool inside = y >= g && y < g + shape[0] && x >= g && x < g + shape[1];
          EXPECT_EQ(all[y * width + x], inside ? interior[(y - g) * shape[1] + x - g] : 0.0f);
        }
      // The whole allocation in, the interior out.
      const std::vector<float> whole = random_floats(all.size(), 2);
      auto w = cf::field<float, 2>::from_host(q(), shape, whole, cf::ghost(g), cf::with_ghosts);
      EXPECT_EQ(w.to_host(q(), cf::with_ghosts), whole);
      const std::vector<float> inner = w.to_host(q());
      for (std::size_t y = 0; y < shape[0]; ++y)
        for (std::size_t x = 0; x < shape[1]; ++x)
          EXPECT_EQ(inner[y * shape[1] + x], whole[(y + g) * width + x + g]);
    }
}

TEST(field, boundary_views_and_boxes) {
  const std::vector<float> whole = random_floats(6 * 7 * 8, 3);
  auto f = cf::field<float, 3>::from_host(q(), {4, 5, 6}, whole, cf::ghost(1), cf::with_ghosts);
  auto at = [&](long z, long y, long x) { return whole[((z + 1) * 7 + y + 1) * 8 + x + 1]; };
  // The ghost layer above the interior in dimension 2 (x = 6), across the interior of y and z.
  const std::vector<float> high_x = f.boundary(2, cf::side::high).to_host(q());
  ASSERT_EQ(high_x.size(), 4u * 5u);
  for (long z = 0; z < 4; ++z)
    for (long y = 0; y < 5; ++y) EXPECT_EQ(high_x[z * 5 + y], at(z, y, 6));
  const std::vector<float> low_z = f.boundary(0, cf::side::low).to_host(q());
  ASSERT_EQ(low_z.size(), 5u * 6u);
  for (long y = 0; y < 5; ++y)
    for (long x = 0; x < 6; ++x) EXPECT_EQ(low_z[y * 6 + x], at(-1, y, x));
  // A box reaching into the ghost cells, written and read back.
  auto box = f.view({-1, 2, -1}, {2, 3, 4});
  EXPECT_EQ(box.shape(), (std::array<std::size_t, 3>{2, 3, 4}));
  const std::vector<float> values = random_floats(24, 4);
  box.write(q(), values);
  EXPECT_EQ(box.to_host(q()), values);
  const std::vector<float> after = f.to_host(q(), cf::with_ghosts);
  for (long z = -1; z < 5; ++z)
    for (long y = -1; y < 6; ++y)
      for (long x = -1; x < 7; ++x) {
        const bool in_box = z >= -1 && z < 1 && y >= 2 && y < 5 && x >= -1 && x < 3;
        const float expected = in_box ? values[((z + 1) * 3 + y - 2) * 4 + x + 1] : at(z, y, x);
        EXPECT_EQ(after[((z + 1) * 7 + y + 1) * 8 + x + 1], expected);
      }
  box.fill(q(), 5.0f);
  for (float v : box.to_host(q())) EXPECT_EQ(v, 5.0f);
  // A side without ghost layers: an empty view.
  cf::field<float, 2> thin(q(), {3, 3}, cf::ghost().with(0, 1, 0));
  EXPECT_EQ(thin.boundary(0, cf::side::high).size(), 0u);
  EXPECT_EQ(thin.boundary(0, cf::side::low).size(), 3u);
  EXPECT_TRUE(thin.boundary(1, cf::side::low).to_host(q()).empty());
}

TEST(field, local_is_the_array_the_other_templates_take) {
  const std::vector<float> interior = random_floats(6 * 5, 5);
  auto f = cf::field<float, 2>::from_host(q(), {6, 5}, interior, cf::ghost(1));
  // Reductions over the whole allocation (zero ghost layers) and over the interior agree.
  double host = 0;
  for (float v : interior) host += v;
  EXPECT_NEAR(cf::sum(q(), f.local()), host, 1e-4);
  EXPECT_NEAR(cf::sum(q(), f.interior()), host, 1e-4);
  // Array expressions on the data, in place.
  f.local() = 2.0f * f.local() + 1.0f;
  const std::vector<float> doubled = f.to_host(q());
  for (std::size_t i = 0; i < interior.size(); ++i)
    EXPECT_FLOAT_EQ(doubled[i], 2.0f * interior[i] + 1.0f);
  for (float v : f.boundary(0, cf::side::low).to_host(q())) EXPECT_EQ(v, 1.0f);
  // clone and fill
  cf::field<float, 2> g = f.clone(q());
  f.fill(q(), 0.0f);
  EXPECT_EQ(g.to_host(q()), doubled);
  EXPECT_EQ(g.strides(), f.strides());
}

TEST(field, vector_and_complex_elements) {
  std::vector<cl_float4> v(12);
  for (std::size_t i = 0; i < v.size(); ++i)
    for (int c = 0; c < 4; ++c) v[i].s[c] = float(i * 4 + c);
  auto f = cf::field<cl_float4, 2>::from_host(q(), {3, 4}, v, cf::ghost(1));
  const std::vector<cl_float4> back = f.to_host(q());
  for (std::size_t i = 0; i < v.size(); ++i)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(back[i].s[c], v[i].s[c]);
  std::vector<std::complex<float>> z = {{1, 2}, {3, 4}, {5, 6}};
  auto cz = cf::field<std::complex<float>, 1>::from_host(q(), {3}, z, cf::ghost(2));
  EXPECT_EQ(cz.to_host(q()), z);
  EXPECT_EQ(cz.to_host(q(), cf::with_ghosts).size(), 7u);
}

TEST(field, bad_shapes_and_sizes_are_clear_errors) {
  EXPECT_CLFORGE_ERROR((cf::field<float, 2>(q(), {4, 0})),
                       {"field: dimension 1 of the shape 4 x 0 is 0"});
  EXPECT_CLFORGE_ERROR((cf::field<float, 3>(q(), {0, 2, 2}, cf::ghost(1))),
                       {"dimension 0", "is 0"});
  EXPECT_CLFORGE_ERROR((cf::field<float, 1>(q(), {std::size_t(1) << 31})), {"2^31"});
  EXPECT_CLFORGE_ERROR(cf::ghost().with(3, 1, 1), {"ghost::with: dimension 3"});
  cf::field<float, 2> f(q(), {3, 3}, cf::ghost(1));
  EXPECT_CLFORGE_ERROR(f.write(q(), std::vector<float>(8)),
                       {"field_view::write: 8 values for a box of 9 points"});
  EXPECT_CLFORGE_ERROR(f.write(q(), std::vector<float>(9), cf::with_ghosts),
                       {"field::write: 9 values for an allocation of 25"});
  EXPECT_CLFORGE_ERROR(f.view({-2, 0}, {1, 1}), {"field::view", "leave the allocation (-1 to 3)"});
  EXPECT_CLFORGE_ERROR(f.view({0, 2}, {1, 3}), {"field::view", "dimension 1"});
  EXPECT_CLFORGE_ERROR(f.boundary(2, cf::side::low), {"field::boundary: dimension 2 of a 2-D"});
  cf::field<float, 2> empty;
  EXPECT_CLFORGE_ERROR(empty.interior(), {"field::interior: the field is empty"});
}
