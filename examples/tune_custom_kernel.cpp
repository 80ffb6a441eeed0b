// SPDX-License-Identifier: MIT
// Autotuning a kernel of your own with clforge::tuner: a row-sum kernel whose work-group size
// and items per work-item are #define parameters. The tuner builds every candidate (in parallel),
// checks its output, times it and returns the fastest.
#include <cstdio>
#include <random>
#include <vector>

#include <clforge/clforge.hpp>
namespace cf = clforge;

int main() try {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  std::printf("device: %s (%s)\n", ctx.info().name.c_str(), ctx.info().platform_name.c_str());

  // rows x cols ints; out[r] = the sum of row r. GROUP work-items share a row, each adding
  // ITEMS consecutive elements per step, then the group adds its partial sums.
  const std::size_t rows = 512, cols = 4096;
  std::vector<int> host(rows * cols);
  std::mt19937 random(1);
  for (int& v : host) v = static_cast<int>(random() % 100);
  std::vector<int> expected(rows, 0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) expected[r] += host[r * cols + c];
  auto in = cf::array<int>::from_host(q, host);
  cf::array<int> out(q, rows);

  cf::tuner::kernel_space space;
  space.source = R"CL(
    kernel void row_sums(global const int* in, global int* out, const uint cols) {
      local int partial[GROUP];
      const size_t row = get_group_id(0), lid = get_local_id(0);
      global const int* p = in + row * cols;
      int sum = 0;
      for (uint c = lid * ITEMS; c < cols; c += GROUP * ITEMS)
        for (uint k = 0; k < ITEMS && c + k < cols; ++k) sum += p[c + k];
      partial[lid] = sum;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint step = GROUP / 2; step > 0; step /= 2) {
        if (lid < step) partial[lid] += partial[lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
      }
      if (lid == 0) out[row] = partial[0];
    })CL";
  space.kernel_name = "row_sums";
  space.parameters = {{"GROUP", {"64", "16", "32", "128"}}, {"ITEMS", {"1", "2", "4"}}};
  // The device's work-group limit is a constraint of the space.
  space.allowed = [](const cf::tuner::point& p, const cf::device_info& info) {
    return std::stoul(p.at("GROUP")) <= info.max_work_group_size;
  };
  space.launch = [&](const cf::queue& queue, const cf::kernel& k, const cf::tuner::point& p) {
    const std::size_t group = std::stoul(p.at("GROUP"));
    return queue.launch(k, cf::ndrange(rows * group).with_local(group), in, out, cl_uint(cols));
  };
  space.check = [&](const cf::queue& queue, const cf::tuner::point&) {
    return out.to_host(queue) == expected;
  };

  cf::tuner::options options;
  options.budget_seconds = 10;
  options.on_progress = [](const cf::tuner::progress& p) {
    std::printf("  candidate %zu of %zu: %s  %s\n", p.index, p.total,
                cf::tuner::to_string(p.candidate).c_str(), p.status.c_str());
  };
  const cf::tuner::result r = cf::tuner::tune(q, space, options);
  std::printf("baseline %s: %.3f ms\nbest     %s: %.3f ms (%.2fx), %zu tried, %zu rejected\n",
              cf::tuner::to_string(r.baseline).c_str(), r.baseline_seconds * 1e3,
              cf::tuner::to_string(r.best).c_str(), r.best_seconds * 1e3, r.speedup(), r.tried,
              r.rejected);
  // Build with the winner: the same source with its -D options.
  cf::kernel best = ctx.build(space.source, cf::tuner::define_options(r.best)).kernel("row_sums");
  space.launch(q, best, r.best);
  return out.to_host(q) == expected ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
