// SPDX-License-Identifier: MIT
// Stream compaction across ranks: clforge::mpi::copy_if (kept elements in global order to the
// front of the output, wherever their ranks are).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "clforge/array.hpp"
#include "clforge/error.hpp"
#include "clforge/mpi/collective.hpp"
#include "clforge/mpi/distributed_array.hpp"
#include "clforge/mpi/local.hpp"
#include "clforge/queue.hpp"

namespace clforge::mpi {

// ---- copy_if --------------------------------------------------------------------------------

namespace detail {
/// The local compaction: kept elements of the block to the front of `out`, their count in
/// count[0]; the predicate sees x and the global index i.
template <class T>
const local::scanner<cl_ulong>& compaction_kernel(const context& ctx, const std::string& predicate,
                                                  const std::string& preamble) {
  const std::string type = type_name<T>();
  return *cached_object<std::shared_ptr<local::scanner<cl_ulong>>>(
      ctx, "copy_if|" + type + "|" + predicate + "|" + preamble, [&](const context& c) {
        scan_options o;
        o.name = "mpi_copy_if";
        o.preamble = preamble + "\nstatic inline int clforge_mpi_keep(" + type +
                     " x, long i) {\n  return (" + predicate + "\n);\n}\n";
        return std::make_shared<local::scanner<cl_ulong>>(
            c,
            "global const " + type + "* in, global " + type +
                "* out, global ulong* count, ulong cfmpi_first",
            "clforge_mpi_keep(in[i], i + cfmpi_first) ? 1 : 0", "a + b", "0",
            "if (item != prev_item) out[prev_item] = in[i]; if (i == n - 1) count[0] = item;",
            scan_kind::inclusive, o);
      });
}
}  // namespace detail

/// Stream compaction across ranks: the elements x of `in` for which `predicate` (over x and its
/// global index i) holds go, in global order, to the front of `out` (same layout as in, another
/// array): out's global elements [0, count), wherever their ranks are. Returns the global count
/// on every rank. out's elements past the count are left as they were. Collective.
template <class T>
std::size_t copy_if(const queue& q, const distributed_array<T>& in, distributed_array<T>& out,
                    const std::string& predicate, const std::string& preamble = "") {
  const MPI_Comm comm = in.comm();
  const int rank = in.rank(), ranks = in.layout().ranks;
  const detail::call_info info{
      "copy_if<" + type_name<T>() + ">",
      detail::fingerprint({detail::type_tag<T>(), predicate, preamble, std::to_string(out.size())}),
      in.size()};
  array<T> compacted;  // this rank's kept elements, to the front
  std::uint64_t count = 0;
  detail::collective_step(comm, info, [&] {
    if (!(in.layout() == out.layout()))
      throw error("clforge::mpi::copy_if: the output has " + std::to_string(out.size()) +
                  " elements, the input " + std::to_string(in.size()) + " (one layout needed)");
    if (in.size() > 0 && &in.local() == &out.local())
      throw error("clforge::mpi::copy_if: the output must be another array than the input");
    const std::size_t n = in.local_size();
    if (n == 0) return;
    compacted = array<T>(q, n);
    array<cl_ulong> c(q, 1);
    detail::compaction_kernel<T>(q.ctx(), predicate, preamble)(
        q, in.local(), compacted, c, static_cast<cl_ulong>(in.local_offset()));
    cl_ulong host_count = 0;
    c.read(q, &host_count, 0, 1);
    count = host_count;
  });
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(ranks));
  detail::allgather(comm, &count, counts.data(), sizeof count);
  // Kept element k (global order) goes to out's element k; the part that stays on this rank
  // is a device copy.
  std::vector<std::size_t> block_offsets, block_counts;
  detail::block_counts(out.layout(), block_offsets, block_counts);
  const detail::to_blocks_plan plan =
      detail::plan_to_blocks(counts, block_offsets, block_counts, rank);
  detail::exchange(q, comm, info, plan.send_counts, plan.send_offsets, plan.recv_counts,
                   plan.recv_offsets, compacted, out.local());
  return plan.total;
}

}  // namespace clforge::mpi
