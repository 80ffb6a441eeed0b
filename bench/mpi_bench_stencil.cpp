// SPDX-License-Identifier: MIT
// clforge-mpi-bench's stencil job: one time step of a 3-D 7-point Jacobi on a float cube split in
// slabs over the ranks (clforge::mpi::distributed_field, periodic ends): the halo exchange, then
// the sweep on each rank's slab. Strong scaling: side^3 points over the ranks; weak scaling:
// side^3 points per rank ((side * ranks) x side x side). "overlapped": the exchange started, the
// planes that need no halo swept while the messages travel, then the two planes next to the
// halos. "sweep only": the same sweeps without the exchange (what the MPI layer adds is the
// difference). GB/s: one read of the input and one
// write of the output per point (8 bytes) over the step's time.
#include <clforge/clforge.hpp>
#include <clforge/mpi.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "mpi_bench.hpp"

namespace cf = clforge;
namespace cm = clforge::mpi;

namespace mpi_bench {

bool stencil_job(const cf::queue& q, const setup& s, std::size_t side) {
  const int rank = s.rank, ranks = s.ranks;
  const char* const jacobi_text =
      "out(0,0,0) = (u(-1,0,0) + u(1,0,0) + u(0,-1,0) + u(0,1,0) + u(0,0,-1) + u(0,0,1)) * "
      "(1.0f / 6.0f)";
  cf::stencil_kernel jacobi(q.ctx(), "float[3D] u, float[3D] out", jacobi_text);
  // The overlapped step: the planes that need no halo while the messages travel, then the two
  // next to the halos.
  auto planes = [&](const char* slice) {
    cf::stencil_options o;
    o.slice = cf::iteration_slice(slice);
    return cf::stencil_kernel(q.ctx(), "float[3D] u, float[3D] out", jacobi_text, o);
  };
  const cf::stencil_kernel inner = planes("1:-1, :, :"), first_plane = planes(":1, :, :"),
                           last_plane = planes("-1:, :, :");
  bool ok = true;
  for (bool weak : {false, true}) {
    const std::size_t rows = weak ? side * static_cast<std::size_t>(ranks) : side;
    const std::array<std::size_t, 3> shape{rows, side, side};
    cm::distributed_field<float, 3> u(q, MPI_COMM_WORLD, shape, cf::ghost(1),
                                      cm::split_ends::periodic);
    cm::distributed_field<float, 3> out(q, MPI_COMM_WORLD, shape, cf::ghost(1),
                                        cm::split_ends::periodic);
    // Each rank's slab holds rank + 1 (written locally: a scatter would only measure the
    // scatter); the other dimensions' ghost layers once, periodic.
    u.local().fill(q, static_cast<float>(rank + 1));
    cm::apply_boundaries(q, u, cf::boundary_conditions<float, 3>(cf::boundary<float>::periodic()));

    const auto step = measure(s, [&] {
      cm::exchange_halos(q, u);
      jacobi(q, u.local(), out.local());
      q.finish();
    });
    const auto overlapped = measure(s, [&] {
      cm::halo_exchange pending = cm::start_halo_exchange(q, u);
      inner(q, u.local(), out.local());
      pending.finish();
      first_plane(q, u.local(), out.local());
      last_plane(q, u.local(), out.local());
      q.finish();
    });
    const auto sweep = measure(s, [&] {
      jacobi(q, u.local(), out.local());
      q.finish();
    });
    cm::exchange_halos(q, u);
    jacobi(q, u.local(), out.local());

    // The first and last planes mix in the neighbours' values: wrong halos show there.
    const std::size_t local_rows = out.local_shape()[0];
    auto expected = [&](int neighbour) {
      const float mine = static_cast<float>(rank + 1);
      const float other = static_cast<float>((neighbour + ranks) % ranks + 1);
      return (5 * mine + other) / 6;
    };
    const float first = out.local().view({0, 0, 0}, {1, 1, 1}).to_host(q)[0];
    const float last =
        out.local().view({static_cast<long long>(local_rows) - 1, 1, 1}, {1, 1, 1}).to_host(q)[0];
    const float below = expected(rank - 1), above = expected(rank + 1);
    if (std::fabs(first - below) > 1e-5f || std::fabs(last - above) > 1e-5f) {
      std::fprintf(stderr, "[rank %d] stencil: planes %g and %g, expected %g and %g\n", rank, first,
                   last, below, above);
      ok = false;
    }

    const double points = static_cast<double>(rows) * static_cast<double>(side * side);
    std::string size =
        std::to_string(rows) + "x" + std::to_string(side) + "x" + std::to_string(side);
    if (weak) size += " (" + std::to_string(side) + "^3 per rank)";
    const std::string scaling = weak ? "weak" : "strong";
    print_row("stencil, " + scaling, "", size, 8 * points, step);
    print_row("stencil overlapped, " + scaling, "", size, 8 * points, overlapped);
    print_row("stencil sweep only, " + scaling, "", size, 8 * points, sweep);
  }
  return ok;
}

}  // namespace mpi_bench
