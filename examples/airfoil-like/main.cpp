// SPDX-License-Identifier: MIT
// An airfoil-like finite-volume solver on clforge::op, in the shape of OP2's Airfoil: per-cell
// time steps (adt_calc), fluxes across interior edges incremented into both cells (res_calc),
// boundary fluxes (bres_calc), and the update with a global residual (update), on a channel
// with a bump cut into quadrilaterals whose nodes are numbered at random. A serial C++ loop over
// the same kernels (kernels.hpp) runs beside it; the residuals of every iteration must agree.
//
//   clforge-example-airfoil-like [nx ny iterations [par_loop settings]]   (default 60 20 50)
//
// The settings, e.g. "plan=atomics", go to tuning::set(ctx, "par_loop", ...) to run the loops
// under another plan than the device's table. Prints the residual per iteration (device and
// reference) and exits 1 when a residual or the final state disagrees by more than a relative
// 1e-9 (the device adds each cell's fluxes in another order: rounding only).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <clforge/clforge.hpp>

#include "kernels.hpp"
#include "mesh.hpp"
#include "reference.hpp"
#include "solver.hpp"

namespace cf = clforge;
namespace op = clforge::op;

namespace {

std::size_t argument(int argc, char** argv, int at, std::size_t otherwise) {
  if (argc <= at) return otherwise;
  const long v = std::strtol(argv[at], nullptr, 10);
  if (v < 1) {
    std::fprintf(stderr, "usage: %s [nx ny iterations] (positive numbers)\n", argv[0]);
    std::exit(2);
  }
  return std::size_t(v);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t nx = argument(argc, argv, 1, 60), ny = argument(argc, argv, 2, 20);
  const std::size_t iterations = argument(argc, argv, 3, 50);
  try {
    cf::context ctx = cf::context::create_default();
    if (!ctx.info().has_fp64) {
      std::printf("%s has no double precision; this example needs it\n", ctx.info().name.c_str());
      return 77;  // skipped
    }
    if (argc > 4) cf::tuning::set(ctx, "par_loop", argv[4]);
    cf::queue q(ctx);
    const airfoil::mesh m = airfoil::channel_with_bump(nx, ny, 2024);
    std::printf("%s: %zu cells, %zu edges, %zu boundary edges, %zu nodes (numbered at random)\n",
                ctx.info().name.c_str(), m.cells, m.edges, m.bedges, m.nodes);

    // Sets, maps and data.
    const airfoil::sets<op::set> sets{op::set(m.nodes, "nodes"), op::set(m.cells, "cells"),
                                      op::set(m.edges, "edges"), op::set(m.bedges, "bedges")};
    const airfoil::maps<op::map> maps{
        op::map(q, sets.cells, sets.nodes, 4, m.cell_nodes, "pcell"),
        op::map(q, sets.edges, sets.nodes, 2, m.edge_nodes, "pedge"),
        op::map(q, sets.edges, sets.cells, 2, m.edge_cells, "pecell"),
        op::map(q, sets.bedges, sets.nodes, 2, m.bedge_nodes, "pbedge"),
        op::map(q, sets.bedges, sets.cells, 1, m.bedge_cell, "pbecell")};
    airfoil::reference ref(m);
    airfoil::device_solver<op::set, op::map, op::dat, op::global> solver(q, m, ref.q, sets, maps);

    double device_seconds = 0, worst = 0;
    for (std::size_t iteration = 1; iteration <= iterations; ++iteration) {
      const auto t0 = std::chrono::steady_clock::now();
      const double device = solver.iteration(q, [](const auto&... args) { op::par_loop(args...); });
      // (the first iteration builds the kernels and plans)
      if (iteration > 1 || iterations == 1)
        device_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double host = ref.iteration();
      const double difference = std::fabs(device - host) / std::max(host, 1e-300);
      worst = std::max(worst, difference);
      std::printf("%5zu  residual %.12e  reference %.12e  relative difference %.1e\n", iteration,
                  device, host, difference);
    }
    // The state itself, not only its residual.
    const double state_difference = airfoil::state_difference(solver.p_q.to_host(q), ref.q);
    auto& s = solver;
    const op::loop flux(
        q, s.res_calc, s.edges, s.x(op::READ, s.pedge, 0), s.x(op::READ, s.pedge, 1),
        s.p_q(op::READ, s.pecell, 0), s.p_q(op::READ, s.pecell, 1), s.adt(op::READ, s.pecell, 0),
        s.adt(op::READ, s.pecell, 1), s.res(op::INC, s.pecell, 0), s.res(op::INC, s.pecell, 1));
    const op::plan_info plan = flux.plan(q, 0, flux.run_size());
    std::printf("res_calc's plan: %s, %zu colour(s)\n", plan.kind.c_str(), plan.colours);
    std::printf(
        "%.3f ms per iteration on the device (10 loops and the residual read back; "
        "after the first, which builds); largest relative difference %.1e\n",
        1e3 * device_seconds / double(iterations > 1 ? iterations - 1 : 1), worst);
    std::printf("final state: largest relative difference %.1e\n", state_difference);
    if (!(worst <= 1e-9) || !(state_difference <= 1e-9)) {
      std::printf("FAILED: the device's solution does not agree with the serial reference\n");
      return 1;
    }
    std::printf("OK\n");
  } catch (const cf::error& e) {
    std::fprintf(stderr, "clforge error: %s\n", e.what());
    return 1;
  }
  return 0;
}
