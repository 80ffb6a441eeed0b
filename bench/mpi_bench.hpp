// SPDX-License-Identifier: MIT
// The measurement and the table rows of clforge-mpi-bench, shared by its jobs (mpi_bench.cpp,
// mpi_bench_stencil.cpp). Each repetition starts at a barrier; a row gives the median over
// repetitions of the slowest rank's wall time and, per rank, the median time inside MPI
// (clforge::mpi::stats: exchanges and agreements, waiting for slower ranks included) and the
// rest (the rank's device work and host staging).
#pragma once

#include <clforge/mpi.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace mpi_bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct sample {
  double wall, mpi;  // seconds, this rank
};

/// Runs `call` `repetitions` times after one warm-up; returns this rank's samples.
inline std::vector<sample> measure(int repetitions, const std::function<void()>& call) {
  call();  // builds kernels, fills pools
  std::vector<sample> out;
  for (int r = 0; r < repetitions; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    clforge::mpi::reset_stats();
    const double start = MPI_Wtime();
    call();
    const double wall = MPI_Wtime() - start;
    out.push_back({wall, clforge::mpi::stats().seconds});
  }
  return out;
}

/// The header of the table rows (rank 0 prints).
inline void print_header() {
  std::printf(
      "| job | ranks | n | time ms (slowest rank, median) | GB/s | per rank: local ms / MPI ms "
      "(median) |\n");
  std::printf("|---|---|---|---|---|---|\n");
}

/// One row on rank 0 from every rank's samples of one job: `bytes` moved in total (for GB/s),
/// `size` the global size as shown. Collective over MPI_COMM_WORLD.
inline void print_row(const std::string& job, const std::string& size, double bytes,
                      const std::vector<sample>& mine) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int repetitions = static_cast<int>(mine.size());
  std::vector<double> all_wall(repetitions * ranks), all_mpi(repetitions * ranks);
  std::vector<double> wall(repetitions), mpi(repetitions);
  for (int r = 0; r < repetitions; ++r) wall[r] = mine[r].wall, mpi[r] = mine[r].mpi;
  MPI_Gather(wall.data(), repetitions, MPI_DOUBLE, all_wall.data(), repetitions, MPI_DOUBLE, 0,
             MPI_COMM_WORLD);
  MPI_Gather(mpi.data(), repetitions, MPI_DOUBLE, all_mpi.data(), repetitions, MPI_DOUBLE, 0,
             MPI_COMM_WORLD);
  if (rank != 0) return;
  std::vector<double> slowest(repetitions, 0);
  for (int r = 0; r < repetitions; ++r)
    for (int k = 0; k < ranks; ++k)
      slowest[r] = std::max(slowest[r], all_wall[k * repetitions + r]);
  const double t = median(slowest);
  std::string per_rank;
  for (int k = 0; k < ranks; ++k) {
    std::vector<double> w(all_wall.begin() + k * repetitions,
                          all_wall.begin() + (k + 1) * repetitions);
    std::vector<double> m(all_mpi.begin() + k * repetitions,
                          all_mpi.begin() + (k + 1) * repetitions);
    std::vector<double> local(repetitions);
    for (int r = 0; r < repetitions; ++r) local[r] = w[r] - m[r];
    char cell[64];
    std::snprintf(cell, sizeof cell, "%s%.1f / %.1f", k ? ", " : "", median(local) * 1e3,
                  median(m) * 1e3);
    per_rank += cell;
  }
  std::printf("| %s | %d | %s | %.1f | %.2f | %s |\n", job.c_str(), ranks, size.c_str(), t * 1e3,
              bytes / t * 1e-9, per_rank.c_str());
}

/// The stencil job (mpi_bench_stencil.cpp): halo exchange and one 7-point Jacobi sweep of a
/// float cube, strong scaling (side^3 over the ranks) and weak scaling (side^3 per rank), and
/// the sweep alone. Returns false when the result is wrong.
bool stencil_job(const clforge::queue& q, std::size_t side, int repetitions);

}  // namespace mpi_bench
