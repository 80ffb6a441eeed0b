// SPDX-License-Identifier: MIT
// clforge-mpi-bench's parts: the timing and the table rows every job uses (bench/mpi_bench.cpp)
// and the jobs (one function per family, each in its own file: mpi_bench_arrays.cpp,
// mpi_bench_stencil.cpp).
#pragma once

#include <clforge/clforge.hpp>
#include <clforge/mpi.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace mpi_bench {

/// One timed call on this rank: wall time and the part inside MPI, in seconds.
struct sample {
  double wall, mpi;
};

/// What the command line asked for.
struct setup {
  int log2 = 26;               ///< strong: 2^log2 elements in all; weak: 2^log2 per rank
  bool weak = false;           ///< weak scaling (the size grows with the ranks)
  int repetitions = 7;         ///< timed repetitions (the median counts)
  std::set<std::string> jobs;  ///< the jobs to run
  int rank = 0, ranks = 1;
  /// The global number of elements.
  std::size_t elements() const {
    return (std::size_t(1) << log2) * (weak ? static_cast<std::size_t>(ranks) : 1);
  }
  bool wants(const std::string& job) const { return jobs.count(job) > 0; }
};

/// Runs `call` `repetitions` times after one warm-up, each after `prepare` (not timed) and a
/// barrier; returns this rank's samples.
std::vector<sample> measure(const setup& s, const std::function<void()>& call,
                            const std::function<void()>& prepare = {});

/// Prints (rank 0) the row of a job: the median over repetitions of the slowest rank's wall
/// time, GB/s at `bytes_per_element` of the global size, and per rank the median local and MPI
/// times. Collective.
void report(const setup& s, const std::string& job, const std::vector<sample>& mine,
            double bytes_per_element);

/// The jobs on distributed arrays of int32: sum, scan, sort, copy_if, each with its "blocks
/// only" row (bench/mpi_bench_arrays.cpp). Returns false where a result was wrong.
bool run_array_jobs(const clforge::queue& q, const setup& s);

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// The stencil job's timing and rows (its table has no scaling column: it prints strong and
/// weak rows itself). Runs `call` `repetitions` times after one warm-up; returns this rank's
/// samples.
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
