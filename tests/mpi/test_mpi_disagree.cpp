// SPDX-License-Identifier: MIT
// Collective calls whose ranks disagree (length, type, snippet, operation) or where one rank
// fails must end with the same clforge::error on every rank, quickly, and leave the ranks in
// step (a correct call afterwards works). Run under mpirun -np 2 and 3; the CTest timeout is
// the guard against a hang.
#include <clforge/clforge.hpp>
#include <clforge/mpi.hpp>

#include <mpi.h>

#include "mpi_test.hpp"

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace cf = clforge;
namespace cm = clforge::mpi;

namespace {

using mpi_test::expect_same_error;
using mpi_test::failures;
using mpi_test::rank;
using mpi_test::ranks;

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  cf::context ctx = cm::context_for_rank(MPI_COMM_WORLD);
  cf::queue q(ctx);
  const MPI_Comm world = MPI_COMM_WORLD;
  const std::size_t n = 1000;

  expect_same_error("global length",
                    [&] { cm::distributed_array<int> x(q, world, rank == 1 ? n + 1 : n); },
                    {"ranks disagree", "distributed_array<int> over 1000 elements",
                     "rank 1: distributed_array<int> over 1001"});

  cm::distributed_array<int> x(q, world, n);
  x.scatter_from(0, std::vector<int>(rank == 0 ? n : 0, 1));

  expect_same_error("result type",
                    [&] {
                      if (rank == 0)
                        cm::sum<long>(q, x);
                      else
                        cm::sum<int>(q, x);
                    },
                    {"ranks disagree", "rank 0: sum<long>", "sum<int>"});

  expect_same_error("snippet",
                    [&] {
                      cm::reduction_kernel<int> k(world, ctx, "global const int* x", "x[i]",
                                                  rank == 1 ? "max(a, b)" : "a + b", "0");
                    },
                    {"ranks disagree", "reduction_kernel<int>", "fingerprint"});

  expect_same_error("operation",
                    [&] {
                      cm::distributed_array<int> y(q, world, n);
                      if (rank == 0)
                        cm::inclusive_scan(q, x, y);
                      else
                        cm::max(q, x);
                    },
                    {"ranks disagree", "inclusive_scan<int>", "max<int>"});

  expect_same_error("element type",
                    [&] {
                      if (rank == ranks - 1)
                        cm::distributed_array<float> f(q, world, n);
                      else
                        cm::distributed_array<int> i(q, world, n);
                    },
                    {"ranks disagree", "distributed_array<float>", "distributed_array<int>"});

  // One rank fails in its local part (an argument too short for its block): every rank reports
  // that rank's error.
  cm::reduction_kernel<int> weighted(world, ctx, "global const int* x, global const int* w",
                                     "x[i] * w[i]", "a + b", "0");
  expect_same_error("one rank fails",
                    [&] {
                      cf::array<int> w(q, x.local_size() - (rank == 1 ? 1 : 0));
                      w.fill(q, 2);
                      weighted(q, x, w);
                    },
                    {"clforge::mpi::reduction_kernel<int>: rank 1 of", "failed:"});

  expect_same_error("root out of range", [&] { x.gather_to(ranks); },
                    {"gather_to", "root " + std::to_string(ranks) + " is not a rank"});

  expect_same_error("scatter_from length",
                    [&] { x.scatter_from(0, std::vector<int>(rank == 0 ? 5 : 0, 1)); },
                    {"rank 0 of", "scatter_from: root 0 passed 5 elements for an array of 1000"});

  expect_same_error("copy_if layout",
                    [&] {
                      cm::distributed_array<int> shorter(q, world, n - 1);
                      cm::copy_if(q, x, shorter, "x > 0");
                    },
                    {"copy_if: the output has 999 elements, the input 1000"});

  expect_same_error("segmented scan",
                    [&] {
                      cf::scan_options o;
                      o.is_segment_start = "i % 10 == 0";
                      cm::scan_kernel<int> k(world, ctx, "global const int* x, global int* y",
                                             "x[i]", "a + b", "0", "y[i] = item",
                                             cf::scan_kind::inclusive, o);
                    },
                    {"segmented scans across ranks are not supported"});

  expect_same_error(
      "image not in rows",
      [&] {
        cm::distributed_array<cl_uchar> flat(q, world, 12 * 5);
        cm::mask_into(q, cf::polygon_mask(ctx), {{0, 0}, {5, 0}, {0, 5}}, flat, 12, 5);
      },
      {"mask_into: the image must be a 12 x 5 distributed_array::rows"});

  expect_same_error("fill rule",
                    [&] {
                      auto image = cm::distributed_array<cl_uchar>::rows(q, world, 12, 5);
                      cf::polygon_mask_options o;
                      if (rank == 1) o.rule = cf::fill_rule::non_zero;
                      cm::mask_into(q, cf::polygon_mask(ctx), {{0, 0}, {5, 0}, {0, 5}}, image, 12,
                                    5, cl_uchar(1), o);
                    },
                    {"ranks disagree", "mask_into<uchar>", "fingerprint"});

  expect_same_error("null communicator",
                    [&] {
                      cm::distributed_array<int> none;
                      cm::sum<long>(q, none);
                    },
                    {"the communicator is MPI_COMM_NULL"});

  // Still in step: a correct call works on every rank.
  const long total = cm::sum<long>(q, x);
  if (total != static_cast<long>(n)) {
    std::printf("[rank %d] sum after the errors: %ld, expected %zu\n", rank, total, n);
    ++failures;
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, world);
  if (rank == 0)
    std::printf("%s: disagreement tests on %d ranks\n", all ? "FAILED" : "PASSED", ranks);
  MPI_Finalize();
  return all ? 1 : 0;
}
