// SPDX-License-Identifier: MIT
// Stencils on fields with one ghost layer, float32: the 3-D 7-point Jacobi sweep
// (out = c * sum of the six neighbours) and the 2-D 5-point heat step. n = interior points;
// effective bandwidth counts one read of the input and one write of the output, 8 bytes a point.
//   clforge      stencil_kernel with the automatic launch grid (the device's "stencil" policy)
//   handwritten  the kernel everybody writes first: one work-item per point, a 2-D or 3-D
//                NDRange (32 x 8 work-groups on GPUs, the driver's choice on CPUs)
//   openmp       OpenMP loops over rows, x innermost and vectorized (CPU devices only)
// Sizes: 3-D 16 x 64 x 64 (smoke), 256^3 (CPU devices) and 512^3 (GPUs); 2-D 256^2 (smoke),
// 4096^2 (CPU devices) and 16384^2 (GPUs), within --max-log2. A report then runs, at the
// device's large size (the smoke size when --max-log2 is below it),
// clforge, the hand-written kernel, OpenMP, the device copy of the same bytes and a sweep of
// manual grids (launch_grid) side by side in rounds: GB/s and ratios from the same rounds, and
// the automatic grid against the best manual one.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <sstream>

#include "harness.hpp"

#ifdef CLFORGE_BENCH_HAVE_OPENMP
#include <omp.h>
#endif

namespace clforge_bench {
namespace {

const char* kHandwritten = R"CLC(
// One work-item per interior point of fields with one ghost layer (sy, sz: strides).
kernel void jacobi7(global const float* u, global float* out, const int nx, const int ny,
                    const int nz, const long sy, const long sz, const float c) {
  const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  const long i = (z + 1) * sz + (y + 1) * sy + x + 1;
  out[i] = c * (u[i - 1] + u[i + 1] + u[i - sy] + u[i + sy] + u[i - sz] + u[i + sz]);
}

kernel void heat5(global const float* u, global float* out, const int nx, const int ny,
                  const long sy, const float k) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  const long i = (y + 1) * sy + x + 1;
  out[i] = u[i] + k * (u[i - 1] + u[i + 1] + u[i - sy] + u[i + sy] - 4.0f * u[i]);
}
)CLC";

const char* kJacobi =
    "out(0,0,0) = c * (u(0,0,-1) + u(0,0,1) + u(0,-1,0) + u(0,1,0) + u(-1,0,0) + u(1,0,0))";
const char* kHeat = "out(0,0) = u(0,0) + k * (u(0,-1) + u(0,1) + u(-1,0) + u(1,0) - 4.0f * u(0,0))";

constexpr std::size_t kSmoke = std::size_t(1) << 16;

// The shape of n points: 3-D 16 x 64 x 64, 256^3, 512^3; 2-D 256^2, 4096^2, 16384^2.
std::array<std::size_t, 3> shape_of(bool three_d, std::size_t n) {
  if (!three_d) {
    const std::size_t side = static_cast<std::size_t>(std::llround(std::sqrt(double(n))));
    return {1, side, side};
  }
  if (n == kSmoke) return {16, 64, 64};
  const std::size_t side = static_cast<std::size_t>(std::llround(std::cbrt(double(n))));
  return {side, side, side};
}

// Large sizes run on the device kind they are meant for, and within --max-log2.
void check_size(bool three_d, std::size_t n) {
  if (n == kSmoke) return;
  const std::vector<std::size_t> sweep = default_sizes();
  if (!sweep.empty() && n > sweep.back()) throw cf::error("skipped: above --max-log2");
  const std::size_t gpu = three_d ? std::size_t(512) * 512 * 512 : std::size_t(16384) * 16384;
  if ((n == gpu) == device_is_cpu())
    throw cf::error(device_is_cpu() ? "skipped: the GPU size (CPU devices run the smaller one)"
                                    : "skipped: the CPU size (GPUs run the larger one)");
}

// Input and output fields, the input random.
struct fields {
  bool three_d = true;
  std::array<std::size_t, 3> shape{};
  cf::field<float, 3> u3, out3;
  cf::field<float, 2> u2, out2;
  std::size_t points() const { return shape[0] * shape[1] * shape[2]; }
};
std::shared_ptr<fields> make_fields(bool three_d, std::size_t n) {
  auto f = std::make_shared<fields>();
  f->three_d = three_d;
  f->shape = shape_of(three_d, n);
  if (three_d) {
    f->u3 = cf::field<float, 3>(queue(), f->shape, cf::ghost(1));
    f->out3 = cf::field<float, 3>(queue(), f->shape, cf::ghost(1));
    f->u3.write(queue(), random_floats(f->u3.local().size(), 1), cf::with_ghosts);
  } else {
    f->u2 = cf::field<float, 2>(queue(), {f->shape[1], f->shape[2]}, cf::ghost(1));
    f->out2 = cf::field<float, 2>(queue(), {f->shape[1], f->shape[2]}, cf::ghost(1));
    f->u2.write(queue(), random_floats(f->u2.local().size(), 1), cf::with_ghosts);
  }
  return f;
}

std::shared_ptr<cf::stencil_kernel> make_stencil(bool three_d) {
  cf::stencil_options o;
  o.name = three_d ? "bench_jacobi7" : "bench_heat5";
  return std::make_shared<cf::stencil_kernel>(
      ctx(),
      three_d ? "float[3D] u, float[3D] out, float c" : "float[2D] u, float[2D] out, float k",
      three_d ? kJacobi : kHeat, o);
}

run_fn clforge_case(bool three_d, std::size_t n, const cf::launch_grid* grid = nullptr) {
  check_size(three_d, n);
  auto f = make_fields(three_d, n);
  auto k = make_stencil(three_d);
  std::optional<cf::launch_grid> g;
  if (grid) g = *grid;
  return [f, k, g] {
    const cf::event e = f->three_d ? (g ? (*k)(queue(), *g, f->u3, f->out3, 1.0f / 6.0f)
                                        : (*k)(queue(), f->u3, f->out3, 1.0f / 6.0f))
                                   : (g ? (*k)(queue(), *g, f->u2, f->out2, 0.1f)
                                        : (*k)(queue(), f->u2, f->out2, 0.1f));
    return device_seconds(e);
  };
}

run_fn handwritten_case(bool three_d, std::size_t n) {
  check_size(three_d, n);
  auto f = make_fields(three_d, n);
  cf::kernel k = ctx().build(kHandwritten).kernel(three_d ? "jacobi7" : "heat5");
  const bool cpu = device_is_cpu();
  return [f, k, cpu] {
    const cl_int nx = cl_int(f->shape[2]), ny = cl_int(f->shape[1]), nz = cl_int(f->shape[0]);
    if (f->three_d) {
      const auto s = f->u3.strides();
      cf::ndrange r = cf::ndrange::padded(f->shape[2], f->shape[1], f->shape[0]);
      if (!cpu) r.with_local(32, 8, 1);
      return device_seconds(queue().launch(k, r, f->u3.local(), f->out3.local(), nx, ny, nz,
                                           cl_long(s[1]), cl_long(s[0]), 1.0f / 6.0f));
    }
    const auto s = f->u2.strides();
    cf::ndrange r = cf::ndrange::padded(f->shape[2], f->shape[1]);
    if (!cpu) r.with_local(32, 8);
    return device_seconds(
        queue().launch(k, r, f->u2.local(), f->out2.local(), nx, ny, cl_long(s[0]), 0.1f));
  };
}

run_fn copy_case(std::size_t n) {
  auto src =
      std::make_shared<cf::array<float>>(cf::array<float>::from_host(queue(), random_floats(n, 1)));
  auto dst = std::make_shared<cf::array<float>>(queue(), n);
  return [src, dst] { return device_seconds(src->copy_to(queue(), *dst)); };
}

#ifdef CLFORGE_BENCH_HAVE_OPENMP
run_fn openmp_case(bool three_d, std::size_t n) {
  check_size(three_d, n);
  const std::array<std::size_t, 3> shape = shape_of(three_d, n);
  const std::size_t nx = shape[2], ny = shape[1], nz = shape[0];
  const std::size_t sy = nx + 2, sz = sy * (ny + 2);
  const std::size_t all = three_d ? sz * (nz + 2) : sy * (ny + 2);
  auto u = std::make_shared<std::vector<float>>(random_floats(all, 1));
  auto out = std::make_shared<std::vector<float>>(all, 0.0f);
  return [=] {
    const auto t0 = std::chrono::steady_clock::now();
    const float* a = u->data();
    float* b = out->data();
    if (three_d) {
      const float c = 1.0f / 6.0f;
      const long lnz = long(nz), lny = long(ny);
#pragma omp parallel for collapse(2) schedule(static)
      for (long z = 1; z <= lnz; ++z)
        for (long y = 1; y <= lny; ++y) {
          const float* p = a + std::size_t(z) * sz + std::size_t(y) * sy;
          float* q = b + std::size_t(z) * sz + std::size_t(y) * sy;
#pragma omp simd
          for (std::size_t x = 1; x <= nx; ++x)
            q[x] = c * (p[x - 1] + p[x + 1] + p[x - sy] + p[x + sy] + p[x - sz] + p[x + sz]);
        }
    } else {
      const float k = 0.1f;
      const long lny = long(ny);
#pragma omp parallel for schedule(static)
      for (long y = 1; y <= lny; ++y) {
        const float* p = a + std::size_t(y) * sy;
        float* q = b + std::size_t(y) * sy;
#pragma omp simd
        for (std::size_t x = 1; x <= nx; ++x)
          q[x] = p[x] + k * (p[x - 1] + p[x + 1] + p[x - sy] + p[x + sy] - 4.0f * p[x]);
      }
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
}
#endif

// ---- the side-by-side report ---------------------------------------------------------------

std::string ms(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  return text;
}

// Manual grids to sweep: block sizes (x, y, z) that cover the space with one point each.
std::vector<std::array<std::size_t, 3>> grid_blocks(bool three_d) {
  std::vector<std::array<std::size_t, 3>> b = {{32, 8, 1},  {64, 4, 1},  {128, 2, 1},
                                               {256, 1, 1}, {16, 16, 1}, {32, 4, 2}};
  if (three_d) b.push_back({8, 8, 4});
  if (device_is_cpu()) b.insert(b.end(), {{1024, 1, 1}, {64, 1, 1}, {8, 1, 1}});
  return b;
}

report_table stencil_report(bool quick) {
  report_table table;
  table.columns = {"stencil",           "n",
                   "clforge",           "GB/s",
                   "× device copy",     "× handwritten",
                   "× openmp",          "best manual grid",
                   "auto × best manual"};
  const bool cpu = device_is_cpu();
  const std::size_t limit = ctx().info().max_work_group_size;
  for (bool three_d : {true, false}) {
    std::size_t n = three_d ? (cpu ? std::size_t(256) * 256 * 256 : std::size_t(512) * 512 * 512)
                            : (cpu ? std::size_t(4096) * 4096 : std::size_t(16384) * 16384);
    // Within --max-log2 (a smoke run: the small size).
    const std::vector<std::size_t> sweep = default_sizes();
    if (!sweep.empty() && n > sweep.back()) n = kSmoke;
    if (16.0 * double(n) > 0.45 * double(ctx().info().global_mem_bytes)) continue;
    std::vector<std::string> names = {"clforge", "device_copy", "handwritten"};
    std::vector<run_fn> runs = {clforge_case(three_d, n), copy_case(n),
                                handwritten_case(three_d, n)};
#ifdef CLFORGE_BENCH_HAVE_OPENMP
    if (cpu) names.push_back("openmp"), runs.push_back(openmp_case(three_d, n));
#endif
    // The sweep: each manual grid a few times; the best joins the rounds.
    const auto shape = shape_of(three_d, n);
    const std::array<std::size_t, 3> threads =
        three_d ? std::array<std::size_t, 3>{shape[2], shape[1], shape[0]}
                : std::array<std::size_t, 3>{shape[2], shape[1], 1};
    double best = 0;
    std::array<std::size_t, 3> best_block{};
    for (const auto& b : grid_blocks(three_d)) {
      if (b[0] * b[1] * b[2] > limit || (!three_d && b[2] != 1)) continue;
      const cf::launch_grid g({b[0], b[1], b[2]},
                              {(threads[0] + b[0] - 1) / b[0], (threads[1] + b[1] - 1) / b[1],
                               (threads[2] + b[2] - 1) / b[2]});
      run_fn r = clforge_case(three_d, n, &g);
      std::vector<double> t;
      for (int i = 0; i < (quick ? 3 : 5); ++i) t.push_back(r());
      const double m = median_of(t);
      if (best == 0 || m < best) best = m, best_block = b;
    }
    const cf::launch_grid best_grid({best_block[0], best_block[1], best_block[2]},
                                    {(threads[0] + best_block[0] - 1) / best_block[0],
                                     (threads[1] + best_block[1] - 1) / best_block[1],
                                     (threads[2] + best_block[2] - 1) / best_block[2]});
    names.push_back("best manual grid");
    runs.push_back(clforge_case(three_d, n, &best_grid));
    for (run_fn& r : runs) r(), r();  // warm-up
    const int rounds = quick ? 7 : 21;
    std::vector<std::vector<double>> times(runs.size());
    for (int round = 0; round < rounds; ++round)
      for (std::size_t k = 0; k < runs.size(); ++k) {
        const std::size_t j = (k + std::size_t(round)) % runs.size();
        times[j].push_back(runs[j]());
      }
    // Ratios per round, then their median: time(reference) / time(clforge).
    auto ratio = [&](std::size_t j) {
      std::vector<double> r;
      for (int round = 0; round < rounds; ++round) r.push_back(times[j][round] / times[0][round]);
      return median_of(r);
    };
    auto index = [&](const char* name) {
      return std::size_t(std::find(names.begin(), names.end(), name) - names.begin());
    };
    const double t = median_of(times[0]);
    const std::string omp =
        index("openmp") < names.size() ? format("%.3f", ratio(index("openmp"))) : std::string("-");
    table.rows.push_back({three_d ? "7-point 3-D" : "5-point 2-D",
                          (three_d ? std::to_string(shape[0]) + "x" : std::string()) +
                              std::to_string(shape[1]) + "x" + std::to_string(shape[2]),
                          ms(t), format("%.1f", 8.0 * double(n) / t * 1e-9),
                          format("%.3f", ratio(index("device_copy"))),
                          format("%.3f", ratio(index("handwritten"))), omp,
                          std::to_string(best_block[0]) + "x" + std::to_string(best_block[1]) +
                              "x" + std::to_string(best_block[2]),
                          format("%.3f", ratio(index("best manual grid")))});
  }
  return table;
}

void register_cases() {
  for (bool three_d : {true, false}) {
    const std::string job = three_d ? "stencil7_3d" : "stencil5_2d";
    const std::vector<std::size_t> sizes =
        three_d ? std::vector<std::size_t>{kSmoke, std::size_t(1) << 24, std::size_t(1) << 27}
                : std::vector<std::size_t>{kSmoke, std::size_t(1) << 24, std::size_t(1) << 28};
    add_case({job, "clforge", 8.0, [three_d](std::size_t n) { return clforge_case(three_d, n); },
              sizes});
    add_case({job, "handwritten", 8.0,
              [three_d](std::size_t n) { return handwritten_case(three_d, n); }, sizes});
#ifdef CLFORGE_BENCH_HAVE_OPENMP
    add_case({job, "openmp", 8.0, [three_d](std::size_t n) { return openmp_case(three_d, n); },
              sizes, /*cpu_only=*/true});
#endif
  }
  // The device copy at 512^3 (the harness's sweep has the even powers of two).
  add_case({"copy",
            "device_copy",
            8.0,
            [](std::size_t n) {
              check_size(true, n);
              return copy_case(n);
            },
            {std::size_t(1) << 27}});
  add_report(
      {"Stencils side by side: clforge, the device copy of the same bytes, the "
       "hand-written kernel, OpenMP and the best manual grid of a sweep, in rounds",
       stencil_report});
}

}  // namespace
CLFORGE_BENCH_REGISTER(register_cases);
}  // namespace clforge_bench
