// SPDX-License-Identifier: MIT
// clforge::polygon_mask: every pixel against the C++ reference (polygon_reference.hpp).
#include <gtest/gtest.h>

#include <clforge/algorithms/polygon_reference.hpp>
#include <clforge/clforge.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

// Runs every kernel formulation through the deprecated polygon_mask_options::shape (honoured
// until 0.3).
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace cf = clforge;
using cf::point2f;

namespace {

struct fixture {
  cf::context ctx = cf::context::create_default();
  cf::queue q{ctx};
  cf::polygon_mask masker{ctx};
};
fixture& env() {
  static fixture f;
  return f;
}

enum class kind { convex, concave, self_intersecting, integer };

/// A random polygon around the image (cx, cy, r relative to w, h), partly outside sometimes.
std::vector<point2f> random_polygon(kind k, std::size_t n, float w, float h, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const float cx = w * (0.1f + 0.8f * u(rng)), cy = h * (0.1f + 0.8f * u(rng));
  const float rx = w * (0.2f + 0.5f * u(rng)), ry = h * (0.2f + 0.5f * u(rng));
  std::vector<float> angles(n);
  for (float& a : angles) a = 6.2831853f * u(rng);
  std::sort(angles.begin(), angles.end());
  std::vector<point2f> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (k) {
      case kind::convex:
        v[i] = {cx + rx * std::cos(angles[i]), cy + ry * std::sin(angles[i])};
        break;
      case kind::concave: {
        const float r = 0.2f + 0.8f * u(rng);
        v[i] = {cx + r * rx * std::cos(angles[i]), cy + r * ry * std::sin(angles[i])};
        break;
      }
      case kind::self_intersecting:
        v[i] = {w * (-0.1f + 1.2f * u(rng)), h * (-0.1f + 1.2f * u(rng))};
        break;
      case kind::integer:  // vertices on pixel centres: rows through vertices, edges on pixels
        v[i] = {std::round(w * (-0.1f + 1.2f * u(rng))), std::round(h * (-0.1f + 1.2f * u(rng)))};
        break;
    }
  }
  return v;
}

std::size_t count_differences(const std::vector<std::uint8_t>& got,
                              const std::vector<std::uint8_t>& want) {
  EXPECT_EQ(got.size(), want.size());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i) wrong += got[i] != want[i];
  return wrong;
}

void expect_mask(const std::vector<point2f>& v, std::size_t w, std::size_t h,
                 cf::polygon_mask_options options, const std::string& what) {
  std::vector<std::uint8_t> got = env().masker(env().q, v, w, h, options).to_host(env().q);
  std::vector<std::uint8_t> want = cf::polygon_mask_reference_rows(v, w, h, options.rule);
  EXPECT_EQ(count_differences(got, want), 0u) << what << ", " << v.size() << " vertices, " << w
                                              << "x" << h << ", shape \"" << options.shape << "\"";
}

}  // namespace

TEST(polygon_reference, classic_loop_matches_row_crossings) {
  for (auto rule : {cf::fill_rule::even_odd, cf::fill_rule::non_zero})
    for (kind k : {kind::concave, kind::self_intersecting, kind::integer}) {
      auto v = random_polygon(k, 17, 61, 43, 7 + static_cast<int>(k));
      EXPECT_EQ(cf::polygon_mask_reference(v, 61, 43, rule),
                cf::polygon_mask_reference_rows(v, 61, 43, rule));
    }
}

// A tuned group up to the device's largest runs on both grouped kernels: where a kernel runs
// fewer work-items (registers), it is built again for as many as it runs.
TEST(polygon_mask, the_largest_tuned_group_runs) {
  const std::string largest =
      std::to_string(std::min<std::size_t>(4096, env().ctx.info().max_work_group_size));
  struct tuning_scope {
    explicit tuning_scope(const std::string& settings) {
      cf::tuning::set(env().ctx, "polygon", settings);
    }
    ~tuning_scope() { cf::tuning::reset(env().ctx); }
  };
  for (const char* kernel : {"span", "fill"}) {
    const std::string settings =
        std::string("kernel=") + kernel + ", pixels=8, pixels_wide=8, group=" + largest;
    tuning_scope scope(settings);
    for (kind k : {kind::concave, kind::integer})
      expect_mask(random_polygon(k, 24, 301, 37, 90 + static_cast<int>(k)), 301, 37, {}, settings);
  }
}

// Vertex counts 3, 4, 24, 1000, 5000 on images 1x1, 7x5, 4099x17 and 1024x1024, every kind of
// polygon, the device's default kernel shape: one program per vertex count.
TEST(polygon_mask, random_polygons_every_pixel) {
  struct image {
    std::size_t w, h;
  };
  const image images[] = {{1, 1}, {7, 5}, {4099, 17}, {1024, 1024}};
  std::uint32_t seed = 1;
  for (std::size_t n : {3, 4, 24, 1000, 5000})
    for (const image& im : images) {
      if (im.w == 1024 && n == 5000) continue;  // the reference alone takes long
      for (kind k : {kind::convex, kind::concave, kind::self_intersecting, kind::integer}) {
        if (im.w == 1024 && k != kind::concave && k != kind::integer) continue;
        auto v = random_polygon(k, n, static_cast<float>(im.w), static_cast<float>(im.h), seed++);
        expect_mask(v, im.w, im.h, {}, "kind " + std::to_string(static_cast<int>(k)));
      }
    }
}

// Every kernel formulation (pixel / span / fill / row, pixels per work-item, group size, with
// rows split into several segments), unrolled (24) and looped (1000) edge counts, labels. Width
// 304 is a multiple of every vector run (span and pixel store runs of 2, 4, 8 or 16 pixels as one
// vector; span splits 32 and 48 into runs of 16), 301 of none; span:40 keeps counts instead of
// parity bits.
TEST(polygon_mask, every_kernel_shape) {
  for (const char* shape :
       {"pixel:4", "pixel:16", "span:1:64", "span:3:32:serial", "span:8:32", "span:16:16",
        "span:16:8:serial", "span:32:4", "span:48:8:serial", "span:40:8", "fill:4:8", "row:16"}) {
    cf::polygon_mask_options options;
    options.shape = shape;
    for (std::size_t w : {301, 304}) {
      for (std::size_t n : {24, 1000}) {
        auto v = random_polygon(kind::self_intersecting, n, float(w), 97, 100 + n);
        expect_mask(v, w, 97, options, "self-intersecting");
        auto c = random_polygon(kind::integer, n, float(w), 97, 200 + n);
        expect_mask(c, w, 97, options, "integer");
      }
      std::vector<std::vector<point2f>> polys = {random_polygon(kind::concave, 9, float(w), 97, 1),
                                                 random_polygon(kind::integer, 5, float(w), 97, 2),
                                                 random_polygon(kind::convex, 7, float(w), 97, 3)};
      EXPECT_EQ(env().masker.labels(env().q, polys, w, 97, options).to_host(env().q),
                cf::polygon_labels_reference(polys, w, 97))
          << shape << ", width " << w;
    }
  }
}

// The vector stores of span and pixel runs for pixel types of 1 to 8 bytes (a run of 16 longs
// is one 128-byte store), labels into 16-bit images, and paint, which must leave the pixels
// outside as they were (it never stores whole runs).
TEST(polygon_mask, vector_runs_of_every_pixel_type_and_paint) {
  fixture& f = env();
  const std::int64_t kLong = -(std::int64_t{7} << 40);  // needs all 64 bits
  for (const char* shape : {"span:16:16", "span:32:4", "pixel:8"}) {
    cf::polygon_mask_options options;
    options.shape = shape;
    for (std::size_t w : {301, 304}) {
      const std::size_t h = 23;
      const auto v = random_polygon(kind::self_intersecting, 24, float(w), float(h), 5 + w);
      const std::vector<std::uint8_t> inside = cf::polygon_mask_reference_rows(v, w, h);
      cf::array<float> mf(f.q, w * h);
      cf::array<std::int64_t> ml(f.q, w * h);
      f.masker.mask_into(f.q, v, mf, w, h, 2.5f, options);
      f.masker.mask_into(f.q, v, ml, w, h, kLong, options);
      const std::vector<float> gf = mf.to_host(f.q);
      const std::vector<std::int64_t> gl = ml.to_host(f.q);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < inside.size(); ++i)
        wrong += gf[i] != (inside[i] ? 2.5f : 0.0f) || gl[i] != (inside[i] ? kLong : 0);
      EXPECT_EQ(wrong, 0u) << shape << ", width " << w << ": float and long masks";

      const std::vector<std::vector<point2f>> polys = {
          v, random_polygon(kind::concave, 9, float(w), float(h), 7)};
      cf::array<std::uint16_t> labels(f.q, w * h);
      f.masker.labels_into(f.q, polys, labels, w, h, options);
      const std::vector<std::uint16_t> gotl = labels.to_host(f.q);
      const std::vector<std::uint32_t> want = cf::polygon_labels_reference(polys, w, h);
      EXPECT_TRUE(std::equal(gotl.begin(), gotl.end(), want.begin(), want.end()))
          << shape << ", width " << w << ": 16-bit labels";

      std::vector<float> background(w * h);
      for (std::size_t i = 0; i < background.size(); ++i) background[i] = 1.0f + float(i % 7);
      auto image = cf::array<float>::from_host(f.q, background);
      f.masker(f.q, v, image, w, h, -1.5f, options);
      const std::vector<float> painted = image.to_host(f.q);
      wrong = 0;
      for (std::size_t i = 0; i < painted.size(); ++i)
        wrong += painted[i] != (inside[i] ? -1.5f : background[i]);
      EXPECT_EQ(wrong, 0u) << shape << ", width " << w << ": paint";
    }
  }
}

TEST(polygon_mask, even_odd_and_non_zero_on_a_star) {
  // The five-pointed star {5/2}: its centre pentagon has winding number 2.
  std::vector<point2f> star;
  for (int i = 0; i < 5; ++i) {
    const float a = 1.5707963f + 2.0f * 6.2831853f * i / 5.0f;
    star.push_back({50.0f + 45.0f * std::cos(a), 50.0f - 45.0f * std::sin(a)});
  }
  cf::polygon_mask_options even_odd, non_zero;
  non_zero.rule = cf::fill_rule::non_zero;
  auto eo = env().masker(env().q, star, 100, 100, even_odd).to_host(env().q);
  auto nz = env().masker(env().q, star, 100, 100, non_zero).to_host(env().q);
  EXPECT_EQ(count_differences(eo, cf::polygon_mask_reference_rows(star, 100, 100)), 0u);
  EXPECT_EQ(count_differences(
                nz, cf::polygon_mask_reference_rows(star, 100, 100, cf::fill_rule::non_zero)),
            0u);
  EXPECT_EQ(eo[50 * 100 + 50], 0) << "the centre is outside under even-odd";
  EXPECT_EQ(nz[50 * 100 + 50], 1) << "the centre is inside under non-zero";
  std::size_t eo_count = 0, nz_count = 0;
  for (std::size_t i = 0; i < eo.size(); ++i) eo_count += eo[i], nz_count += nz[i];
  EXPECT_LT(eo_count, nz_count);
  // Random self-intersecting polygons under non-zero, both shapes.
  for (const char* shape : {"pixel:1", "pixel:8", "span:1:64", "span:16:16", "span:32:4",
                            "span:40:8", "fill:4:8", "row:16"}) {
    non_zero.shape = shape;
    for (std::size_t w : {301, 304})
      expect_mask(random_polygon(kind::self_intersecting, 24, float(w), 97, 9), w, 97, non_zero,
                  "non-zero");
  }
}

TEST(polygon_mask, partly_and_wholly_outside) {
  std::vector<point2f> partly = {{-50.5f, -20.0f}, {60.25f, 3.0f}, {30.0f, 80.0f}, {-10.0f, 40.0f}};
  expect_mask(partly, 40, 30, {}, "partly outside");
  std::vector<point2f> around = {{-100, -100}, {500, -100}, {500, 500}, {-100, 500}};
  auto all = env().masker(env().q, around, 40, 30).to_host(env().q);
  EXPECT_EQ(std::count(all.begin(), all.end(), 1), 40 * 30) << "image inside the polygon";
  for (std::vector<point2f> away : {std::vector<point2f>{{100, 5}, {200, 5}, {150, 20}},
                                    std::vector<point2f>{{5, -50}, {20, -50}, {10, -1}},
                                    std::vector<point2f>{{5, 30}, {20, 31}, {10, 60}}}) {
    auto none = env().masker(env().q, away, 40, 30).to_host(env().q);
    EXPECT_EQ(std::count(none.begin(), none.end(), 0), 40 * 30) << "polygon outside the image";
  }
}

TEST(polygon_mask, shared_edge_claimed_once) {
  // Two polygons sharing a slanted edge (given in opposite directions) and a vertical one; every
  // pixel of the union is claimed by exactly one of them.
  const point2f a{3.0f, 2.0f}, b{37.0f, 27.0f};
  std::vector<point2f> left = {a, b, {1.0f, 28.0f}};
  std::vector<point2f> right = {b, a, {38.0f, 1.0f}};
  std::vector<point2f> lower = {{0, 0}, {20, 0}, {20, 10}, {0, 10}};
  std::vector<point2f> upper = {{20, 0}, {39, 0}, {39, 10}, {20, 10}};
  for (auto pair : {std::make_pair(left, right), std::make_pair(lower, upper)}) {
    auto m1 = env().masker(env().q, pair.first, 40, 30).to_host(env().q);
    auto m2 = env().masker(env().q, pair.second, 40, 30).to_host(env().q);
    std::vector<point2f> both = pair.first;  // one polygon covering both
    std::size_t both_claimed = 0;
    for (std::size_t i = 0; i < m1.size(); ++i) both_claimed += m1[i] && m2[i];
    EXPECT_EQ(both_claimed, 0u);
  }
  // The pixels on the diagonal a-b belong to one side: the union has no hole along it.
  auto m1 = env().masker(env().q, left, 40, 30).to_host(env().q);
  auto m2 = env().masker(env().q, right, 40, 30).to_host(env().q);
  std::vector<point2f> quad = {{1.0f, 28.0f}, a, {38.0f, 1.0f}, b};
  auto whole = cf::polygon_mask_reference_rows(quad, 40, 30);
  std::size_t different = 0;
  for (std::size_t i = 0; i < whole.size(); ++i) different += (m1[i] | m2[i]) != whole[i];
  EXPECT_EQ(different, 0u);
}

TEST(polygon_mask, paint_labels_union_and_device_vertices) {
  fixture& f = env();
  const std::size_t w = 257, h = 131;
  std::vector<std::vector<point2f>> polys;
  for (std::uint32_t s = 0; s < 3; ++s)
    polys.push_back(
        random_polygon(s == 1 ? kind::integer : kind::concave, 5 + 7 * s, w, h, 50 + s));
  std::vector<std::uint32_t> want_labels = cf::polygon_labels_reference(polys, w, h);
  EXPECT_EQ(f.masker.labels(f.q, polys, w, h).to_host(f.q), want_labels);
  std::vector<std::uint32_t> want_union = cf::polygon_labels_reference(polys, w, h, {}, true);
  auto got_union = f.masker.union_mask(f.q, polys, w, h).to_host(f.q);
  EXPECT_EQ(std::vector<std::uint32_t>(got_union.begin(), got_union.end()), want_union);

  // Paint: -1.5 into the pixels inside, the others keep their random values.
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(1.0f, 2.0f);
  std::vector<float> pixels(w * h);
  for (float& p : pixels) p = u(rng);
  auto image = cf::array<float>::from_host(f.q, pixels);
  f.masker(f.q, polys[0], image, w, h, -1.5f);
  auto painted = image.to_host(f.q);
  auto inside = cf::polygon_mask_reference_rows(polys[0], w, h);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < pixels.size(); ++i)
    wrong += painted[i] != (inside[i] ? -1.5f : pixels[i]);
  EXPECT_EQ(wrong, 0u);

  // Vertices on the device: the same mask (24 vertices: the same program as above).
  auto v = random_polygon(kind::self_intersecting, 24, w, h, 77);
  std::vector<float> flat;
  for (const point2f& p : v) flat.push_back(p.x), flat.push_back(p.y);
  auto dv = cf::array<float>::from_host(f.q, flat);
  for (auto rule : {cf::fill_rule::even_odd, cf::fill_rule::non_zero}) {
    cf::polygon_mask_options o;
    o.rule = rule;
    EXPECT_EQ(count_differences(f.masker(f.q, dv, w, h, o).to_host(f.q),
                                cf::polygon_mask_reference_rows(v, w, h, rule)),
              0u);
  }
}

TEST(polygon_mask, later_calls_come_from_the_cache) {
  fixture& f = env();
  auto v = random_polygon(kind::concave, 24, 64, 64, 5);
  f.masker(f.q, v, 64, 64).to_host(f.q);
  const std::size_t compiles = f.ctx.program_cache_stats().compiles;
  cf::polygon_mask other(f.ctx);  // a new masker: its programs come from the context's cache
  for (std::uint32_t s = 0; s < 3; ++s) {
    auto w = random_polygon(kind::convex, 24, 64, 64, 10 + s);
    EXPECT_EQ(count_differences(other(f.q, w, 64, 64).to_host(f.q),
                                cf::polygon_mask_reference_rows(w, 64, 64)),
              0u);
  }
  EXPECT_EQ(f.ctx.program_cache_stats().compiles, compiles);
}

// A masker keeps the programs it built: a call with a shape it met before neither renders its
// template again nor asks the program cache (whose lookup hashes the whole source).
TEST(polygon_mask, repeated_calls_keep_their_program) {
  fixture& f = env();
  cf::polygon_mask masker(f.ctx);
  auto v = random_polygon(kind::concave, 24, 64, 64, 6);
  const auto reference = cf::polygon_mask_reference_rows(v, 64, 64);
  EXPECT_EQ(count_differences(masker(f.q, v, 64, 64).to_host(f.q), reference), 0u);
  const cf::cache_stats before = f.ctx.program_cache_stats();
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(count_differences(masker(f.q, v, 64, 64).to_host(f.q), reference), 0u);
  const cf::cache_stats after = f.ctx.program_cache_stats();
  EXPECT_EQ(after.memory_hits, before.memory_hits);
  EXPECT_EQ(after.compiles, before.compiles);
}

TEST(polygon_mask, errors) {
  fixture& f = env();
  auto expect_error = [](auto&& call, const std::string& needle) {
    try {
      call();
      ADD_FAILURE() << "no error, expected one about: " << needle;
    } catch (const cf::error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  std::vector<point2f> two = {{0, 0}, {5, 5}};
  std::vector<point2f> tri = {{0, 0}, {5, 5}, {0, 9}};
  std::vector<point2f> nan = {{0, 0}, {std::numeric_limits<float>::quiet_NaN(), 5}, {0, 9}};
  expect_error([&] { f.masker(f.q, two, 10, 10); }, "at least 3 vertices");
  expect_error([&] { f.masker(f.q, std::vector<point2f>{}, 10, 10); }, "at least 3 vertices");
  expect_error([&] { f.masker(f.q, nan, 10, 10); }, "not finite");
  expect_error([&] { f.masker(f.q, tri, 0, 10); }, "at least 1");
  expect_error([&] { f.masker(f.q, tri, 10, 0); }, "at least 1");
  cf::array<std::uint8_t> small(f.q, 50);
  expect_error([&] { f.masker.mask_into(f.q, tri, small, 10, 10); }, "needs 100");
  expect_error([&] { f.masker.labels(f.q, {tri, two}, 10, 10); }, "polygon 1");
  auto odd = cf::array<float>::from_host(f.q, std::vector<float>{1, 2, 3, 4, 5, 6, 7});
  expect_error([&] { f.masker(f.q, odd, 10, 10); }, "pairs");
  auto short_dev = cf::array<float>::from_host(f.q, std::vector<float>{1, 2, 3, 4});
  expect_error([&] { f.masker(f.q, short_dev, 10, 10); }, "at least 3 vertices");
  cf::polygon_mask_options bad;
  bad.shape = "spiral";
  expect_error([&] { f.masker(f.q, tri, 10, 10, bad); }, "kernel shape");
  cf::polygon_mask unset;
  expect_error([&] { unset(f.q, tri, 10, 10); }, "constructed");
  // No polygons: an empty label image.
  auto empty = f.masker.labels(f.q, {}, 9, 4).to_host(f.q);
  EXPECT_EQ(std::count(empty.begin(), empty.end(), 0u), 36);
}
