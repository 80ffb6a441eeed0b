// SPDX-License-Identifier: MIT
// clforge-mpi-bench: jobs over the ranks of MPI_COMM_WORLD, one device per rank
// (clforge::mpi::context_for_rank): distributed sum, inclusive scan, sort and copy_if of 2^k
// int32 (strong scaling: 2^k in all; weak: 2^k per rank), and a halo exchange with a 3-D Jacobi
// sweep (the stencil job). Start it with mpirun:
//
//   mpirun -np 4 clforge-mpi-bench --log2 26 --repetitions 7 [--scaling weak] [--jobs sum,sort]
//   mpirun -np 2 clforge-mpi-bench --jobs stencil --stencil-side 256
//
// (--help lists the options; --version needs no mpirun.)
// Each repetition starts at a barrier and ends when the slowest rank returns (the call is
// collective: every rank gets the result). Per rank it splits the call's wall time into the
// time inside MPI (clforge::mpi::stats: the exchanges and the agreements before them, waiting
// for slower ranks included) and the rest (the rank's device work and host staging). Prints the
// median over repetitions, as a Markdown table. The jobs live in their own files
// (mpi_bench_arrays.cpp, mpi_bench_stencil.cpp); this file has the command line, the timing and the
// rows.
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

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

namespace mpi_bench {

std::vector<sample> measure(const setup& s, const std::function<void()>& call,
                            const std::function<void()>& prepare) {
  if (prepare) prepare();
  call();  // builds kernels, fills pools
  std::vector<sample> out;
  for (int r = 0; r < s.repetitions; ++r) {
    if (prepare) prepare();
    MPI_Barrier(MPI_COMM_WORLD);
    cm::reset_stats();
    const double start = MPI_Wtime();
    call();
    const double wall = MPI_Wtime() - start;
    out.push_back({wall, cm::stats().seconds});
  }
  return out;
}

void print_header(bool scaling) {
  std::printf(
      "| job | ranks |%s n | time ms (slowest rank, median) | GB/s | per rank: local ms / "
      "MPI ms (median) |\n",
      scaling ? " scaling |" : "");
  std::printf("|---|---|---|---|---|---|%s\n", scaling ? "---|" : "");
}

void print_row(const std::string& job, const std::string& scaling, const std::string& size,
               double bytes, const std::vector<sample>& mine) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int repetitions = static_cast<int>(mine.size());
  std::vector<double> all_wall(static_cast<std::size_t>(repetitions * ranks)),
      all_mpi(all_wall.size());
  std::vector<double> wall(static_cast<std::size_t>(repetitions)), mpi(wall.size());
  for (int r = 0; r < repetitions; ++r) wall[r] = mine[r].wall, mpi[r] = mine[r].mpi;
  MPI_Gather(wall.data(), repetitions, MPI_DOUBLE, all_wall.data(), repetitions, MPI_DOUBLE, 0,
             MPI_COMM_WORLD);
  MPI_Gather(mpi.data(), repetitions, MPI_DOUBLE, all_mpi.data(), repetitions, MPI_DOUBLE, 0,
             MPI_COMM_WORLD);
  if (rank != 0) return;
  std::vector<double> slowest(static_cast<std::size_t>(repetitions), 0);
  for (int r = 0; r < repetitions; ++r)
    for (int k = 0; k < ranks; ++k)
      slowest[r] = std::max(slowest[r], all_wall[k * repetitions + r]);
  const double t = median(slowest);
  std::string per_rank;
  for (int k = 0; k < ranks; ++k) {
    std::vector<double> local(static_cast<std::size_t>(repetitions)), m(local.size());
    for (int r = 0; r < repetitions; ++r) {
      m[r] = all_mpi[k * repetitions + r];
      local[r] = all_wall[k * repetitions + r] - m[r];
    }
    char cell[64];
    std::snprintf(cell, sizeof cell, "%s%.1f / %.1f", k ? ", " : "", median(local) * 1e3,
                  median(m) * 1e3);
    per_rank += cell;
  }
  const std::string scaling_cell = scaling.empty() ? "" : " " + scaling + " |";
  std::printf("| %s | %d |%s %s | %.1f | %.2f | %s |\n", job.c_str(), ranks, scaling_cell.c_str(),
              size.c_str(), t * 1e3, bytes / t * 1e-9, per_rank.c_str());
  std::fflush(stdout);
}

void report(const setup& s, const std::string& job, const std::vector<sample>& mine,
            double bytes_per_element) {
  std::string size = "2^" + std::to_string(s.log2);
  if (s.weak && s.ranks > 1) size += " x " + std::to_string(s.ranks);
  print_row(job, s.weak ? "weak" : "strong", size,
            bytes_per_element * static_cast<double>(s.elements()), mine);
}

}  // namespace mpi_bench

// The command line is read before MPI_Init (--help and --version need no mpirun), so every rank
// reads it; only the first rank's launcher-given rank (Open MPI, MPICH) prints a usage error.
bool first_rank_by_environment() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"})
    if (const char* value = std::getenv(name)) return std::strcmp(value, "0") == 0;
  return true;
}

int main(int argc, char** argv) {
  mpi_bench::setup s;
  std::string scaling = "strong", jobs = "sum,scan,sort,copy_if,stencil";
  std::size_t stencil_side = 128;
  std::string transport = "auto";
  CLI::App app(
      "clforge-mpi-bench: distributed sum, inclusive scan, sort and copy_if of int32, and a halo "
      "exchange with a 3-D Jacobi sweep, over the ranks of MPI_COMM_WORLD, one device per rank; "
      "start it with mpirun.",
      "clforge-mpi-bench");
  clforge_cli::add_version(app);
  app.add_option("--log2", s.log2, "n = 2^K elements in all (strong) or per rank (weak)")
      ->capture_default_str()
      ->check(CLI::Range(1, 40));
  app.add_option("--repetitions", s.repetitions, "timed repetitions (the median counts)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--scaling", scaling, "strong: 2^K elements in all; weak: 2^K per rank")
      ->capture_default_str()
      ->check(CLI::IsMember({"strong", "weak"}));
  app.add_option("--jobs", jobs, "comma-separated: sum, scan, sort, copy_if, stencil")
      ->capture_default_str()
      ->check([](const std::string& list) -> std::string {
        std::stringstream in(list);
        std::string job;
        while (std::getline(in, job, ','))
          if (job != "sum" && job != "scan" && job != "sort" && job != "copy_if" &&
              job != "stencil")
            return "unknown job \"" + job + "\" (sum, scan, sort, copy_if, stencil)";
        return "";
      });
  app.add_option("--transport", transport,
                 "auto: a shared-memory window where all ranks share a node, else messages; "
                 "messages: MPI messages always")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "messages"}));
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
  s.weak = scaling == "weak";
  if (transport == "messages") clforge::mpi::set_transport(clforge::mpi::transport::messages);
  {
    std::stringstream in(jobs);
    std::string job;
    while (std::getline(in, job, ',')) s.jobs.insert(job);
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.ranks);
  int code = 0;
  try {
    cf::context ctx = cm::context_for_rank(MPI_COMM_WORLD);
    cf::queue q(ctx);
    if (s.rank == 0) {
      std::printf("clforge-mpi-bench: %d rank(s), device of rank 0: %s, %d repetitions\n\n",
                  s.ranks, ctx.info().name.c_str(), s.repetitions);
      mpi_bench::print_header(true);
    }
    if (!mpi_bench::run_array_jobs(q, s)) code = 1;
    if (s.wants("stencil")) {
      if (s.rank == 0) {
        std::printf("\n");
        mpi_bench::print_header(false);
      }
      if (!mpi_bench::stencil_job(q, s, stencil_side)) code = 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[rank %d] %s\n", s.rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int worst = 0;
  MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
