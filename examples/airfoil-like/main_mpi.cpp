// SPDX-License-Identifier: MIT
// The airfoil-like solver of main.cpp on clforge::mpi::op, over the ranks of MPI_COMM_WORLD: the
// same mesh and loops, partitioned (cells in blocks of rows, each edge, boundary edge and node
// with the owner of its first cell), halos exchanged by the loops themselves, the residual a
// global reduction over the ranks. Every rank also runs the serial reference (kernels.hpp) on the
// whole mesh; the residual of every iteration and the gathered final state must agree with it to
// a relative 1e-9, as one process's do.
//
//   mpirun -np 4 clforge-example-airfoil-like-mpi [nx ny iterations]   (default 60 20 50)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <clforge/clforge.hpp>
#include <clforge/mpi.hpp>

#include "kernels.hpp"
#include "mesh.hpp"
#include "reference.hpp"
#include "solver.hpp"

namespace cf = clforge;
namespace op = clforge::op;
namespace mop = clforge::mpi::op;

namespace {

long argument(int argc, char** argv, int at, long otherwise) {
  if (argc <= at) return otherwise;
  const long v = std::strtol(argv[at], nullptr, 10);
  return v < 1 ? -1 : v;
}

// Owner of each element of a set whose elements reach cells through `to_cell` (arity `arity`):
// the owner of the first cell.
std::vector<int> with_first_cell(const std::vector<int>& to_cell, std::size_t arity,
                                 const std::vector<int>& cell_owner) {
  std::vector<int> owners(to_cell.size() / arity);
  for (std::size_t e = 0; e < owners.size(); ++e)
    owners[e] = cell_owner[std::size_t(to_cell[e * arity])];
  return owners;
}

int run(int argc, char** argv) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const long nx = argument(argc, argv, 1, 60), ny = argument(argc, argv, 2, 20),
             iterations = argument(argc, argv, 3, 50);
  if (nx < 1 || ny < 1 || iterations < 1) {
    if (rank == 0)
      std::fprintf(stderr, "usage: %s [nx ny iterations] (positive numbers)\n", argv[0]);
    return 2;
  }
  cf::context ctx = cf::mpi::context_for_rank(MPI_COMM_WORLD);
  int fp64 = ctx.info().has_fp64 ? 1 : 0, all_fp64 = 0;
  MPI_Allreduce(&fp64, &all_fp64, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_fp64) {
    if (rank == 0) std::printf("a rank's device has no double precision; this example needs it\n");
    return 77;  // skipped
  }
  cf::queue q(ctx);
  const airfoil::mesh m = airfoil::channel_with_bump(std::size_t(nx), std::size_t(ny), 2024);

  // The partition: cells in blocks (rows of the channel), the rest after their first cell.
  std::vector<int> cell_owner(m.cells);
  for (std::size_t c = 0; c < m.cells; ++c) cell_owner[c] = int(c * std::size_t(ranks) / m.cells);
  std::vector<int> node_owner(m.nodes, -1);
  for (std::size_t c = 0; c < m.cells; ++c)
    for (int k = 0; k < 4; ++k) {
      int& owner = node_owner[std::size_t(m.cell_nodes[4 * c + std::size_t(k)])];
      if (owner < 0) owner = cell_owner[c];
    }
  mop::mesh parts(MPI_COMM_WORLD);
  const airfoil::sets<mop::set> sets{
      parts.add_set(m.nodes, node_owner, "nodes"), parts.add_set(m.cells, cell_owner, "cells"),
      parts.add_set(m.edges, with_first_cell(m.edge_cells, 2, cell_owner), "edges"),
      parts.add_set(m.bedges, with_first_cell(m.bedge_cell, 1, cell_owner), "bedges")};
  const airfoil::maps<mop::map> maps{
      parts.add_map(sets.cells, sets.nodes, 4, m.cell_nodes, "pcell"),
      parts.add_map(sets.edges, sets.nodes, 2, m.edge_nodes, "pedge"),
      parts.add_map(sets.edges, sets.cells, 2, m.edge_cells, "pecell"),
      parts.add_map(sets.bedges, sets.nodes, 2, m.bedge_nodes, "pbedge"),
      parts.add_map(sets.bedges, sets.cells, 1, m.bedge_cell, "pbecell")};
  parts.build(q);
  if (rank == 0)
    std::printf("%d rank(s) on %s: %zu cells, %zu edges, %zu boundary edges, %zu nodes\n", ranks,
                ctx.info().name.c_str(), m.cells, m.edges, m.bedges, m.nodes);
  const mop::set &cells = sets.cells, &edges = sets.edges;
  std::printf("rank %d: cells %zu owned + %zu exec + %zu non-exec halo, edges %zu + %zu + %zu\n",
              rank, cells.local().owned_size(), cells.local().exec_halo_size(),
              cells.local().nonexec_halo_size(), edges.local().owned_size(),
              edges.local().exec_halo_size(), edges.local().nonexec_halo_size());
  std::fflush(stdout);

  airfoil::reference ref(m);
  airfoil::device_solver<mop::set, mop::map, mop::dat, mop::global> solver(q, m, ref.q, sets, maps);

  double seconds = 0, worst = 0;
  for (long iteration = 1; iteration <= iterations; ++iteration) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    const double device = solver.iteration(q, [](const auto&... args) { mop::par_loop(args...); });
    if (iteration > 1 || iterations == 1)  // the first iteration builds the kernels and plans
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double host = ref.iteration();
    const double difference = std::fabs(device - host) / std::max(host, 1e-300);
    worst = std::max(worst, difference);
    if (rank == 0)
      std::printf("%5ld  residual %.12e  reference %.12e  relative difference %.1e\n", iteration,
                  device, host, difference);
  }
  const double state_difference = airfoil::state_difference(solver.p_q.gather(q), ref.q);
  const mop::loop_stats stats = mop::stats();
  if (rank == 0) {
    std::printf(
        "%.3f ms per iteration on %d rank(s) (10 loops, their halo exchanges and the "
        "residual; after the first, which builds); %zu exchanges in %zu loops\n",
        1e3 * seconds / double(iterations > 1 ? iterations - 1 : 1), ranks, stats.exchanges,
        stats.loops);
    std::printf("largest relative difference: residual %.1e, final state %.1e\n", worst,
                state_difference);
  }
  const int ok = worst <= 1e-9 && state_difference <= 1e-9;
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf(all_ok ? "OK\n"
                       : "FAILED: the solution does not agree with the serial reference\n");
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 0;
  try {
    code = run(argc, argv);
  } catch (const cf::error& e) {
    std::fprintf(stderr, "clforge error: %s\n", e.what());
    code = 1;  // every rank throws the same error (clforge::mpi's collective calls)
  }
  MPI_Finalize();
  return code;
}
