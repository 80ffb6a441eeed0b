// SPDX-License-Identifier: MIT
// clforge-mpi-bench: distributed sum and inclusive scan of 2^k ints over the ranks of
// MPI_COMM_WORLD, one device per rank (clforge::mpi::context_for_rank), and a halo exchange with
// a 3-D Jacobi sweep (the stencil job, mpi_bench_stencil.cpp). Start it with mpirun:
//
//   mpirun -np 4 clforge-mpi-bench --log2 26 --repetitions 7
//   mpirun -np 2 clforge-mpi-bench --job stencil --stencil-side 256
//
// (--help lists the options; --version needs no mpirun.)
// Each repetition starts at a barrier and ends when the slowest rank returns (the call is
// collective: every rank gets the result). Per rank it splits the call's wall time into the
// time inside MPI (clforge::mpi::stats: the exchanges and the agreements before them, waiting
// for slower ranks included) and the rest (the rank's device work and host staging). Prints the
// median over repetitions, as a Markdown table.
#include <clforge/clforge.hpp>
#include <clforge/mpi.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "mpi_bench.hpp"

namespace cf = clforge;
namespace cm = clforge::mpi;
using mpi_bench::measure;
using mpi_bench::print_row;

// The command line is read before MPI_Init (--help and --version need no mpirun), so every rank
// reads it; only the first rank's launcher-given rank (Open MPI, MPICH) prints a usage error.
bool first_rank_by_environment() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"})
    if (const char* value = std::getenv(name)) return std::strcmp(value, "0") == 0;
  return true;
}

int main(int argc, char** argv) {
  int log2 = 26, repetitions = 7;
  std::size_t stencil_side = 128;
  std::vector<std::string> jobs{"sum", "scan", "stencil"};
  CLI::App app(
      "clforge-mpi-bench: distributed sum and inclusive scan of 2^K ints, and a halo exchange "
      "with a 3-D Jacobi sweep, over the ranks of MPI_COMM_WORLD, one device per rank; start it "
      "with mpirun.",
      "clforge-mpi-bench");
  clforge_cli::add_version(app);
  app.add_option("--log2", log2, "n = 2^K elements")
      ->capture_default_str()
      ->check(CLI::Range(1, 40));
  app.add_option("--repetitions", repetitions, "timed repetitions (the median counts)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--job", jobs, "jobs to run (comma-separated or repeated)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::IsMember({"sum", "scan", "stencil"}));
  app.add_option("--stencil-side", stencil_side,
                 "stencil: a side^3 float cube over the ranks (strong scaling) and per rank (weak)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t(1), std::size_t(4096)));
  {
    std::ostringstream err;
    std::streambuf* saved = std::cerr.rdbuf(err.rdbuf());
    const int status = clforge_cli::parse(app, argc, argv);
    std::cerr.rdbuf(saved);
    if (first_rank_by_environment()) std::cerr << err.str();
    if (status >= 0) return status;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int code = 0;
  try {
    cf::context ctx = cm::context_for_rank(MPI_COMM_WORLD);
    cf::queue q(ctx);
    auto wanted = [&](const char* job) {
      return std::find(jobs.begin(), jobs.end(), job) != jobs.end();
    };
    if (rank == 0) {
      std::printf("clforge-mpi-bench: %d rank(s), device of rank 0: %s, %d repetitions\n\n", ranks,
                  ctx.info().name.c_str(), repetitions);
      mpi_bench::print_header();
    }
    if (wanted("sum") || wanted("scan")) {
      const std::size_t n = std::size_t(1) << log2;
      cm::distributed_array<cl_int> x(q, MPI_COMM_WORLD, n), y(q, MPI_COMM_WORLD, n);
      {
        // Each rank writes its own block (a scatter of 2^26 values from one rank would only
        // measure the scatter). Values small enough that the sum stays exact in 64 bits.
        std::vector<cl_int> block(x.local_size());
        for (std::size_t k = 0; k < block.size(); ++k)
          block[k] = static_cast<cl_int>((x.local_offset() + k) % 17) - 8;
        if (!block.empty()) x.local().write(q, block.data(), 0, block.size());
      }
      long long expected = 0;
      for (std::size_t k = 0; k < n; ++k) expected += static_cast<long long>(k % 17) - 8;

      cl_long s = 0;
      const auto sum = measure(repetitions, [&] { s = cm::sum<cl_long>(q, x); });
      const auto scan = measure(repetitions, [&] {
        cm::inclusive_scan(q, x, y);
        q.finish();  // the scan returns when enqueued; time it to completion
      });
      // The same work without the MPI layer: each rank's single-device template on its block
      // alone (no totals, no carry, no exchange), run by all ranks at once.
      cl_long block_sum = 0;
      const auto blocks_sum =
          measure(repetitions, [&] { block_sum = cf::sum<cl_long>(q, x.local()); });
      const auto blocks_scan = measure(repetitions, [&] {
        if (x.local_size() > 0) cf::inclusive_scan(q, x.local(), y.local());
        q.finish();
      });
      (void)block_sum;
      cm::inclusive_scan(q, x, y);  // the block scans overwrote y: again for the check below
      cl_int last = 0;
      {
        std::vector<cl_int> tail = y.gather_to(ranks - 1);
        if (rank == ranks - 1) last = tail.back();
      }
      if (s != expected) {
        std::fprintf(stderr, "[rank %d] sum %lld, expected %lld\n", rank, (long long)s, expected);
        code = 1;
      }
      if (rank == ranks - 1 && last != static_cast<cl_int>(expected)) {
        std::fprintf(stderr, "[rank %d] scan ends at %d, expected %lld\n", rank, last, expected);
        code = 1;
      }

      const std::string size = "2^" + std::to_string(log2);
      const double elements = static_cast<double>(n);
      if (wanted("sum")) {
        print_row("sum", size, 4 * elements, sum);
        print_row("sum, blocks only", size, 4 * elements, blocks_sum);
      }
      if (wanted("scan")) {
        print_row("scan", size, 8 * elements, scan);
        print_row("scan, blocks only", size, 8 * elements, blocks_scan);
      }
    }
    if (wanted("stencil") && !mpi_bench::stencil_job(q, stencil_side, repetitions)) code = 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[rank %d] %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int worst = 0;
  MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
