// SPDX-License-Identifier: MIT
// Uses the installed clforge::mpi: a distributed sum on however many ranks started it.
#include <clforge/mpi.hpp>

#include <cstdio>
#include <numeric>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, code = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    clforge::context ctx = clforge::mpi::context_for_rank(MPI_COMM_WORLD);
    clforge::queue q(ctx);
    std::vector<int> host(rank == 0 ? 1000 : 0);
    std::iota(host.begin(), host.end(), 1);
    clforge::mpi::distributed_array<int> x(q, MPI_COMM_WORLD, 1000);
    x.scatter_from(0, host);
    const long s = clforge::mpi::sum<long>(q, x);
    if (rank == 0) std::printf("mpi consumer: sum %ld: %s\n", s, s == 500500 ? "ok" : "WRONG");
    code = s == 500500 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpi consumer: %s\n", e.what());
    code = 1;
  }
  MPI_Finalize();
  return code;
}
