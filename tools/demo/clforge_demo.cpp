// SPDX-License-Identifier: MIT
// clforge-demo: the README's first command. On the default device (PoCL where there is no GPU):
//   1. the polygon-mask exercise: a 1024x1024 image and a random 24-vertex polygon, timed as
//      serial C++, C++ with OpenMP on all cores, and clforge (kernel only, and with the copy
//      back); all masks checked identical; the mask written to mask.png;
//   2. map + reduce: pi from the integral of 4 / (1 + x^2) over [0, 1], 10^7 points;
//   3. scan: the cumulative sum of 10^7 random ints, checked against the host.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <clforge/algorithms/polygon_reference.hpp>
#include <clforge/clforge.hpp>
#if __has_include(<clforge/algorithms/reduction.hpp>)
#include <clforge/algorithms/reduction.hpp>
#define CLFORGE_DEMO_HAS_REDUCTION 1
#endif
#if __has_include(<clforge/algorithms/scan.hpp>)
#include <clforge/algorithms/scan.hpp>
#define CLFORGE_DEMO_HAS_SCAN 1
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../cli.hpp"
#include "png.hpp"

namespace cf = clforge;
using clock_type = std::chrono::steady_clock;

namespace {

struct options {
  std::string device;  // CLFORGE_DEVICE grammar; empty: CLFORGE_DEVICE or the default
  std::size_t size = 1024;
  std::size_t vertices = 24;
  std::string out = "mask.png";
  std::uint32_t seed = 1;
};

// Fills `o` from the command line; returns -1 to go on, else the status to exit with.
int parse(int argc, char** argv, options& o) {
  CLI::App app(
      "clforge-demo: a polygon mask, map + reduce and a scan on one OpenCL device, "
      "checked against the host.",
      "clforge-demo");
  clforge_cli::add_version(app);
  app.add_option(
      "--device", o.device,
      "device to use: gpu, cpu, pocl, nvidia, P:D ... (default: CLFORGE_DEVICE, else the "
      "first GPU, else the first device)");
  app.add_option("--size", o.size, "the image is N x N pixels")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{32768}));
  app.add_option("--vertices", o.vertices, "vertices of the random polygon")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{3}, std::numeric_limits<std::size_t>::max()));
  app.add_option("--out", o.out, "where to write the mask as PNG (\"\" for none)")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the random polygon")->capture_default_str();
  return clforge_cli::parse(app, argc, argv);
}

/// A line saying what is running, for anything that can take more than a second.
void progress(const std::string& what) {
  std::fprintf(stderr, "  ... %s\n", what.c_str());
  std::fflush(stderr);
}

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// Best wall time of `body` over `runs` runs.
double best_of(int runs, const std::function<void()>& body) {
  double best = 1e300;
  for (int r = 0; r < runs; ++r) {
    auto start = clock_type::now();
    body();
    best = std::min(best, seconds_since(start));
  }
  return best;
}

/// How many runs to time so that the total stays near a second (at least 1, at most 20).
int runs_for(double one_run_seconds) {
  return static_cast<int>(std::clamp(1.0 / std::max(one_run_seconds, 1e-6), 1.0, 20.0));
}

std::string format_time(double seconds) {
  char text[32];
  if (seconds >= 1.0)
    std::snprintf(text, sizeof text, "%8.3f s ", seconds);
  else if (seconds >= 1e-3)
    std::snprintf(text, sizeof text, "%8.3f ms", seconds * 1e3);
  else
    std::snprintf(text, sizeof text, "%8.1f us", seconds * 1e6);
  return text;
}

bool polygon_exercise(const cf::context& ctx, cf::queue& q, const options& o) {
  const std::size_t w = o.size, h = o.size;
  std::printf("\n1. Polygon mask: %zux%zu image, random %zu-vertex polygon (seed %u)\n", w, h,
              o.vertices, o.seed);
  const std::vector<cf::point2f> poly = cf::random_star_polygon(o.vertices, o.size, o.seed);

  // Serial C++: the classic loop, every pixel tests every edge.
  progress("serial C++");
  std::vector<std::uint8_t> serial;
  auto start = clock_type::now();
  serial = cf::polygon_mask_reference(poly, w, h);
  double t_serial = seconds_since(start);
  t_serial = std::min(t_serial, best_of(runs_for(t_serial) - 1,
                                        [&] { serial = cf::polygon_mask_reference(poly, w, h); }));

  // The same loop with the rows split over OpenMP threads.
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  progress("C++ with OpenMP, " + std::to_string(threads) + " threads");
  std::vector<std::uint8_t> parallel;
  start = clock_type::now();
  parallel = cf::polygon_mask_reference(poly, w, h, cf::fill_rule::even_odd, true);
  double t_omp = seconds_since(start);
  t_omp = std::min(t_omp, best_of(runs_for(t_omp) - 1, [&] {
                     parallel =
                         cf::polygon_mask_reference(poly, w, h, cf::fill_rule::even_odd, true);
                   }));

  // A better algorithm on the host, for honesty: each row's crossings found once.
  progress("serial C++, row crossings found once");
  std::vector<std::uint8_t> rows;
  const double t_rows =
      best_of(runs_for(t_serial / 4), [&] { rows = cf::polygon_mask_reference_rows(poly, w, h); });

  // clforge: the first call generates the kernel and builds it (or finds it in the cache).
  progress("clforge: first call (generate, then compile or load from the program cache)");
  cf::polygon_mask masker(ctx);
  start = clock_type::now();
  cf::array<std::uint8_t> device_mask = masker(q, poly, w, h);
  q.finish();
  const double t_first = seconds_since(start);

  progress("clforge: timing");
  double t_kernel = 1e300;  // device time of the kernel, from its profiling event
  for (int r = 0; r < 20; ++r)
    t_kernel = std::min(t_kernel, masker.mask_into(q, poly, device_mask, w, h).elapsed_ns() * 1e-9);
  // The classic formulation on the device: one pixel per work-item, every edge tested.
  cf::tuning::set(ctx, "polygon", "kernel=pixel,pixels=1,pixels_wide=1");
  masker.mask_into(q, poly, device_mask, w, h).wait();
  double t_pixel = 1e300;
  for (int r = 0; r < 10; ++r)
    t_pixel = std::min(t_pixel, masker.mask_into(q, poly, device_mask, w, h).elapsed_ns() * 1e-9);
  std::vector<std::uint8_t> pixel_mask = device_mask.to_host(q);
  cf::tuning::reset(ctx);
  std::vector<std::uint8_t> from_device;
  const double t_copy = best_of(10, [&] {  // the whole call, mask back on the host
    from_device = masker(q, poly, w, h).to_host(q);
  });

  std::string device_name = ctx.info().name;
  if (device_name.size() > 28) device_name = device_name.substr(0, 25) + "...";
  std::printf("\n   %-46s %11s  %8s\n", "implementation", "time", "speed-up");
  std::printf("   %-46s %11s  %8s\n", std::string(46, '-').c_str(), "-----------", "--------");
  auto row = [&](const std::string& name, double t) {
    std::printf("   %-46s %s  %7.1fx\n", name.c_str(), format_time(t).c_str(), t_serial / t);
  };
  row("serial C++ (every pixel tests every edge)", t_serial);
  row("C++ with OpenMP, " + std::to_string(threads) + " threads", t_omp);
  row("serial C++, each row's crossings found once", t_rows);
  row("clforge kernel, every pixel tests every edge", t_pixel);
  row("clforge kernel on " + device_name, t_kernel);
  row("clforge call + copy back to the host", t_copy);
  std::printf("   (clforge's first call, with kernel generation and build or cache: %s)\n",
              format_time(t_first).c_str());

  std::size_t inside = 0, differ_omp = 0, differ_cl = 0;
  for (std::size_t i = 0; i < serial.size(); ++i) {
    inside += serial[i];
    differ_omp += parallel[i] != serial[i];
    differ_cl +=
        (from_device[i] != serial[i]) + (pixel_mask[i] != serial[i]) + (rows[i] != serial[i]);
  }
  const bool same = differ_omp == 0 && differ_cl == 0 && from_device.size() == serial.size();
  std::printf(
      "\n   masks identical: %s (%zu pixels, %zu inside; OpenMP differs in %zu, the others in "
      "%zu)\n",
      same ? "yes" : "NO", serial.size(), inside, differ_omp, differ_cl);

  if (!o.out.empty()) {
    std::vector<std::uint8_t> pixels(from_device.begin(), from_device.end());
    if (!clforge_png::write_png_mask(o.out, pixels.data(), w, h))
      throw std::runtime_error("could not write " + o.out);
    std::printf("   mask written to %s\n", o.out.c_str());
  }
  return same;
}

bool pi_exercise(const cf::context& ctx, cf::queue& q) {
  const std::size_t n = 10000000;
  std::printf("\n2. Map + reduce: pi = integral of 4 / (1 + x^2) over [0, 1], %zu points\n", n);
#ifdef CLFORGE_DEMO_HAS_REDUCTION
  // Midpoint rule: x_i = (i + 0.5) h, pi ~ h * sum f(x_i). Double where the device has it.
  progress("building the reduction kernel");
  double pi = 0, t = 0;
  if (ctx.info().has_fp64) {
    cf::reduction_kernel<double> integrate(
        ctx, "double h", "4.0 / (1.0 + ((i + 0.5) * h) * ((i + 0.5) * h))", "a + b", "0.0");
    const double h = 1.0 / static_cast<double>(n);
    integrate(q, cf::range(n), h);  // warm-up
    auto start = clock_type::now();
    pi = integrate(q, cf::range(n), h) * h;
    t = seconds_since(start);
  } else {
    cf::reduction_kernel<float> integrate(
        ctx, "float h", "4.0f / (1.0f + ((i + 0.5f) * h) * ((i + 0.5f) * h))", "a + b", "0.0f");
    const float h = 1.0f / static_cast<float>(n);
    integrate(q, cf::range(n), h);
    auto start = clock_type::now();
    pi = static_cast<double>(integrate(q, cf::range(n), h)) * h;
    t = seconds_since(start);
  }
  const double exact = 3.14159265358979323846;
  std::printf("   pi ~ %.15f   error %.2e   (%s, result on the host)\n", pi, std::fabs(pi - exact),
              format_time(t).c_str());
  return std::fabs(pi - exact) < (ctx.info().has_fp64 ? 1e-9 : 1e-3);
#else
  (void)ctx, (void)q;
  std::printf("   (skipped: this build has no clforge/algorithms/reduction.hpp)\n");
  return true;
#endif
}

bool scan_exercise(const cf::context& ctx, cf::queue& q, std::uint32_t seed) {
  const std::size_t n = 10000000;
  std::printf("\n3. Scan: inclusive cumulative sum of %zu random ints\n", n);
#ifdef CLFORGE_DEMO_HAS_SCAN
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> u(-100, 100);
  std::vector<int> x(n);
  for (int& v : x) v = u(rng);
  progress("building the scan kernel");
  cf::scan_kernel<int> cumsum(ctx, "global const int* x, global int* y", "x[i]", "a + b", "0",
                              "y[i] = item", cf::scan_kind::inclusive);
  auto dx = cf::array<int>::from_host(q, x);
  cf::array<int> dy(q, n);
  cumsum(q, dx, dy);  // warm-up
  q.finish();
  auto start = clock_type::now();
  cumsum(q, dx, dy);
  q.finish();
  const double t = seconds_since(start);
  std::vector<int> got = dy.to_host(q);
  std::vector<int> want(n);
  std::partial_sum(x.begin(), x.end(), want.begin());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += got[i] != want[i];
  std::printf("   last value %d (host: %d), %zu of %zu differ   (%s on the device)\n", got.back(),
              want.back(), wrong, n, format_time(t).c_str());
  return wrong == 0;
#else
  (void)ctx, (void)q, (void)seed;
  std::printf("   (skipped: this build has no clforge/algorithms/scan.hpp)\n");
  return true;
#endif
}

}  // namespace

int main(int argc, char** argv) try {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // the table and the progress lines in order
  options o;
  if (int status = parse(argc, argv, o); status >= 0) return status;
  cf::context ctx =
      o.device.empty() ? cf::context::create_default() : cf::context::create(o.device);
  cf::queue q(ctx);
  std::printf("clforge demo on %s\n", ctx.info().describe().c_str());
  bool ok = polygon_exercise(ctx, q, o);
  ok = pi_exercise(ctx, q) && ok;
  ok = scan_exercise(ctx, q, o.seed) && ok;
  std::printf("\n%s\n", ok ? "all results check out" : "SOME RESULTS ARE WRONG");
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "clforge-demo: %s\n", e.what());
  return 1;
}
