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

/// The header of a table of rows (rank 0 prints); `scaling`: with the scaling column.
void print_header(bool scaling);

/// Prints (rank 0) one row from every rank's samples of one job: the median over repetitions of
/// the slowest rank's wall time, GB/s at `bytes` moved in all, and per rank the median local and
/// MPI times. `scaling` ("strong", "weak") fills the scaling column, empty: the table has none;
/// `size` is the global size as shown. Collective over MPI_COMM_WORLD.
void print_row(const std::string& job, const std::string& scaling, const std::string& size,
               double bytes, const std::vector<sample>& mine);

/// The row of a job on 2^log2 elements (s.elements()) at `bytes_per_element` (print_row).
void report(const setup& s, const std::string& job, const std::vector<sample>& mine,
            double bytes_per_element);

/// The jobs on distributed arrays of int32: sum, scan, sort, copy_if, each with its "blocks
/// only" row (bench/mpi_bench_arrays.cpp). Returns false where a result was wrong.
bool run_array_jobs(const clforge::queue& q, const setup& s);

/// The stencil job (mpi_bench_stencil.cpp): halo exchange and one 7-point Jacobi sweep of a
/// float cube, strong scaling (side^3 over the ranks) and weak scaling (side^3 per rank), and
/// the sweep alone, in a table of its own (no scaling column: each row names its scaling).
/// Returns false when the result is wrong.
bool stencil_job(const clforge::queue& q, const setup& s, std::size_t side);

}  // namespace mpi_bench
