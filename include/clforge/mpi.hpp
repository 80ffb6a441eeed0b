// SPDX-License-Identifier: MIT
// clforge::mpi: arrays split over MPI ranks, one device per rank, and the algorithms across them
// (reduce, scan, copy_if, sort, histogram, polygon masks). Link clforge::mpi; start the program
// with mpirun.
//
//   MPI_Init(&argc, &argv);
//   cf::context ctx = cf::mpi::context_for_rank(MPI_COMM_WORLD);   // a GPU per rank on a node
//   cf::queue q(ctx);
//   cf::mpi::distributed_array<int> x(q, MPI_COMM_WORLD, n);       // contiguous blocks
//   x.scatter_from(0, host);                                         // host: n values on rank 0
//   long s = cf::mpi::sum<long>(q, x);                               // the same on every rank
//   cf::mpi::inclusive_scan(q, x, x);                                // global prefix sums
//   std::vector<int> all = x.gather_to(0);                           // rank 0 gets n values
//   cf::sum(q, x.local());                                           // any local template
//
// Every function here taking a distributed_array (and the constructors) is a collective call on
// the array's communicator: every rank calls it, in the same order, with arguments that agree
// (global lengths, types, snippets, root). Before every exchange the ranks agree on a small
// descriptor of the call and on whether each rank's local part succeeded; when they disagree, or
// any rank failed (an OpenCL error, a bad argument), every rank throws the same clforge::error
// naming the ranks and the difference, instead of hanging in mismatched exchanges. A call
// returns normally on every rank or throws on every rank. (A rank that never makes the call, or
// dies, still hangs the others: MPI offers no way around that.) Collective calls on one
// communicator must come from one thread at a time, as MPI requires.
//
// Data crosses MPI through host memory; docs/mpi.md says what each call sends and how a
// GPU-aware transport would plug in.
//
// The parts (include one alone if that is all you use):
//   clforge/mpi/environment.hpp             context_for_rank, node_local_rank, stats
//   clforge/mpi/layout.hpp                  block_layout
//   clforge/mpi/distributed_array.hpp       distributed_array
//   clforge/mpi/distributed_field.hpp       distributed_field, exchange_halos, apply_boundaries
//   clforge/mpi/algorithms/reduction.hpp    reduction_kernel, sum, dot, min, max
//   clforge/mpi/algorithms/scan.hpp         scan_kernel, inclusive_scan, exclusive_scan
//   clforge/mpi/algorithms/selection.hpp    copy_if
//   clforge/mpi/algorithms/sort.hpp         sort, sort_by_key (sample sort)
//   clforge/mpi/algorithms/histogram.hpp    histogram
//   clforge/mpi/algorithms/polygon_mask.hpp mask_into, labels_into over row blocks
// underneath: clforge/mpi/collective.hpp (the agreement and the exchanges every collective call
// uses), clforge/mpi/halo.hpp (the neighbour exchange of device buffer regions),
// clforge/mpi/local.hpp (the single-device templates they call) and clforge/mpi/c_api.hpp
// (<mpi.h> without MPI's C++ bindings). A new distributed algorithm is one more header under
// clforge/mpi/algorithms/ on collective_step and the exchanges, plus its part of lib/mpi/.
#pragma once

#include "clforge/mpi/algorithms/histogram.hpp"
#include "clforge/mpi/algorithms/polygon_mask.hpp"
#include "clforge/mpi/algorithms/reduction.hpp"
#include "clforge/mpi/algorithms/scan.hpp"
#include "clforge/mpi/algorithms/selection.hpp"
#include "clforge/mpi/algorithms/sort.hpp"
#include "clforge/mpi/c_api.hpp"
#include "clforge/mpi/distributed_array.hpp"
#include "clforge/mpi/distributed_field.hpp"
#include "clforge/mpi/environment.hpp"
#include "clforge/mpi/layout.hpp"
#include "clforge/mpi/op.hpp"
