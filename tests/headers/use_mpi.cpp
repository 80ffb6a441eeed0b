// SPDX-License-Identifier: MIT
// Compiled, never run, by the headers_* tests (tests/headers.cmake): clforge/mpi.hpp with the
// MPI include directories alone (what plain mpicxx adds: no OMPI_SKIP_MPICXX from the build
// system) under the strict warnings of use_clforge.cpp, its templates instantiated; and MPI's
// C++-bindings switches do not leak out of it.
#include <clforge/mpi.hpp>

#if defined(OMPI_SKIP_MPICXX) || defined(MPICH_SKIP_MPICXX)
#error "clforge/mpi.hpp leaked OMPI_SKIP_MPICXX or MPICH_SKIP_MPICXX into the including file"
#endif

#include <cstddef>
#include <vector>

namespace cf = clforge;

int use_mpi();
int use_mpi() {
  cf::context ctx = cf::mpi::context_for_rank(MPI_COMM_WORLD);
  cf::queue q(ctx);
  cf::mpi::distributed_array<int> x(q, MPI_COMM_WORLD, 1000), y(q, MPI_COMM_WORLD, 1000);
  std::vector<int> host(1000, 1);
  x.scatter_from(0, host);
  const long s = cf::mpi::sum<long>(q, x);
  const int d = cf::mpi::dot(q, x, y);
  const int lo = cf::mpi::min(q, x), hi = cf::mpi::max(q, x);
  cf::mpi::inclusive_scan(q, x, y);
  cf::mpi::exclusive_scan(q, x, y, "max(a, b)", "INT_MIN");
  cf::mpi::reduction_kernel<int> count(MPI_COMM_WORLD, ctx, "global const int* x", "x[i] > 0",
                                       "a + b", "0");
  cf::mpi::scan_kernel<int> cumsum(MPI_COMM_WORLD, ctx, "global const int* x, global int* y",
                                   "x[i]", "a + b", "0", "y[i] = item");
  cumsum(q, x, y);
  const std::size_t kept = cf::mpi::copy_if(q, x, y, "x > 0");
  auto image = cf::mpi::distributed_array<std::uint8_t>::rows(q, MPI_COMM_WORLD, 64, 64);
  cf::polygon_mask masker(ctx);
  cf::mpi::mask_into(q, masker, {{1, 1}, {60, 5}, {30, 60}}, image, 64, 64);
  std::vector<int> all = y.gather_to(0);
  const cf::mpi::exchange_stats stats = cf::mpi::stats();
  return static_cast<int>(s) + d + lo + hi + count(q, x) + static_cast<int>(kept) +
         static_cast<int>(all.size()) + static_cast<int>(stats.calls);
}

// clforge/mpi/distributed_field.hpp: the field, its transfers, the exchange of two fields of
// different types and the boundaries.
int use_mpi_field();
int use_mpi_field() {
  cf::context ctx = cf::mpi::context_for_rank(MPI_COMM_WORLD);
  cf::queue q(ctx);
  cf::mpi::distributed_field<float, 3> u(q, MPI_COMM_WORLD, {16, 8, 8}, cf::ghost(1),
                                         cf::mpi::split_ends::periodic);
  cf::mpi::distributed_field<int, 2> w(q, MPI_COMM_WORLD, {16, 8}, cf::ghost(2));
  u.scatter_from(0, std::vector<float>(16 * 8 * 8, 1.0f));
  cf::mpi::exchange_halos(q, u, w);
  u.exchange_halos(q);
  cf::mpi::halo_exchange pending = cf::mpi::start_halo_exchange(q, u, w);
  pending.finish();
  cf::mpi::apply_boundaries(q, u,
                            cf::boundary_conditions<float, 3>(cf::boundary<float>::periodic()));
  cf::mpi::apply_boundaries(q, w, cf::boundary_conditions<int, 2>(cf::boundary<int>::neumann()));
  const std::vector<float> all = u.gather_to(0);
  return static_cast<int>(all.size() + u.local_shape()[0] + u.offset()[0] + w.size() +
                          w.rows().count(w.rank())) +
         (pending.pending() ? 1 : 0);
}
