// SPDX-License-Identifier: MIT
// clforge::mpi::distributed_field: the slab geometry's checks, its halo pieces and the open ends
// of the split dimension.
#include "clforge/mpi/distributed_field.hpp"

#include <algorithm>
#include <string>

#include "clforge/error.hpp"

namespace clforge::mpi::detail {

using clforge::detail::check;

void check_slabs(const block_layout& rows, std::size_t low, std::size_t high, bool periodic,
                 int rank) {
  const std::size_t mine = rows.count(rank);
  const std::string where = "distributed_field: rank " + std::to_string(rank) + " of " +
                            std::to_string(rows.ranks) + " holds ";
  if (mine == 0)
    throw error(where + "no rows: dimension 0 has " + std::to_string(rows.length) + " rows for " +
                std::to_string(rows.ranks) +
                " ranks (every rank needs at least one; use fewer ranks)");
  const std::size_t needed = std::max(low, high);
  const bool has_neighbour = rows.ranks > 1 || periodic;
  if (has_neighbour && mine < needed)
    throw error(where + std::to_string(mine) + (mine == 1 ? " row" : " rows") +
                " of dimension 0, fewer than its " + std::to_string(needed) +
                " ghost layers there (a halo comes from the neighbouring rank alone: use fewer "
                "ranks, more rows or fewer ghost layers)");
}

void add_slab_pieces(halo_plan& plan, const slab& s, std::size_t index, int rank, int ranks) {
  // Keys: 2 * index for the data of a low ghost layer, 2 * index + 1 for a high one, on both
  // the sending and the receiving side; with two ranks and periodic ends both of a rank's
  // neighbours are the same rank, and the keys keep the two halves apart.
  const std::uint64_t to_low_ghost = 2 * index, to_high_ghost = 2 * index + 1;
  auto rows = [&](int peer, std::uint64_t key, std::size_t first, std::size_t count) {
    return halo_piece{peer, key, s.buffer, first * s.row_bytes, count * s.row_bytes};
  };
  const int below = (rank + ranks - 1) % ranks, above = (rank + 1) % ranks;
  if (rank > 0 || s.periodic) {
    plan.receives.push_back(rows(below, to_low_ghost, 0, s.low));
    plan.sends.push_back(rows(below, to_high_ghost, s.low, s.high));  // the first rows
  }
  if (rank < ranks - 1 || s.periodic) {
    plan.receives.push_back(rows(above, to_high_ghost, s.low + s.rows, s.high));
    plan.sends.push_back(rows(above, to_low_ghost, s.low + s.rows - s.low, s.low));  // the last
  }
}

namespace {
// A constant in every cell of `count` rows from row `first`.
void fill_rows(const queue& q, const slab& s, std::size_t first, std::size_t count,
               const std::string& value, std::size_t element_size, cl_event* done) {
  const std::size_t offset = first * s.row_bytes, bytes = count * s.row_bytes;
  const bool pattern_size = element_size <= 128 && (element_size & (element_size - 1)) == 0;
  if (pattern_size) {
    check(clEnqueueFillBuffer(q.get(), s.buffer, value.data(), element_size, offset, bytes, 0,
                              nullptr, done),
          "clEnqueueFillBuffer");
    return;
  }
  // OpenCL fills only with power-of-two patterns: other element sizes go through the host.
  std::string all;
  all.reserve(bytes);
  for (std::size_t k = 0; k < bytes / element_size; ++k) all += value;
  check(
      clEnqueueWriteBuffer(q.get(), s.buffer, CL_TRUE, offset, bytes, all.data(), 0, nullptr, done),
      "clEnqueueWriteBuffer");
}

// Row `from` copied into `count` rows from row `first`.
void copy_row(const queue& q, const slab& s, std::size_t from, std::size_t first, std::size_t count,
              cl_event* done) {
  for (std::size_t k = 0; k < count; ++k)
    check(clEnqueueCopyBuffer(q.get(), s.buffer, s.buffer, from * s.row_bytes,
                              (first + k) * s.row_bytes, s.row_bytes, 0, nullptr,
                              k + 1 == count ? done : nullptr),
          "clEnqueueCopyBuffer");
}
}  // namespace

event fill_open_ends(const queue& q, const slab& s, bool first, bool last,
                     const clforge::detail::ghost_side& low,
                     const clforge::detail::ghost_side& high, std::size_t element_size) {
  const bool barriers = q.out_of_order();  // the rows follow the kernels enqueued before
  if (barriers)
    check(clEnqueueBarrierWithWaitList(q.get(), 0, nullptr, nullptr),
          "clEnqueueBarrierWithWaitList");
  cl_event done = nullptr;
  auto fill = [&](const clforge::detail::ghost_side& g, std::size_t ghost_first, std::size_t count,
                  std::size_t nearest) {
    if (count == 0) return;
    if (done) clReleaseEvent(done);
    done = nullptr;
    if (g.kind == boundary_kind::constant)
      fill_rows(q, s, ghost_first, count, g.value, element_size, &done);
    else
      copy_row(q, s, nearest, ghost_first, count, &done);
  };
  if (first) fill(low, 0, s.low, s.low);
  if (last) fill(high, s.low + s.rows, s.high, s.low + s.rows - 1);
  if (barriers)
    check(clEnqueueBarrierWithWaitList(q.get(), 0, nullptr, nullptr),
          "clEnqueueBarrierWithWaitList");
  return done ? event(cl::Event(done)) : event();  // cl::Event takes the reference
}

std::string describe_field(const std::string& type, const std::size_t* shape, std::size_t dims,
                           const ghost& g, bool periodic) {
  std::string s = "distributed_field<" + type + ", " + std::to_string(dims) + "> ";
  for (std::size_t d = 0; d < dims; ++d) s += (d ? "x" : "") + std::to_string(shape[d]);
  s += " ghost ";
  for (std::size_t d = 0; d < dims; ++d)
    s += (d ? "," : "") + std::to_string(g.low(d)) + ":" + std::to_string(g.high(d));
  return s + (periodic ? " periodic" : " open");
}

}  // namespace clforge::mpi::detail
