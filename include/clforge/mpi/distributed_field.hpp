// SPDX-License-Identifier: MIT
// clforge::mpi::distributed_field<T, D>: a clforge::field split in slabs along its first (slowest)
// dimension over the ranks of a communicator; each rank's slab a clforge::field with the same
// ghost layers, whose ghost layers along the split dimension are halos from the neighbouring
// ranks (exchange_halos).
//
//   cm::distributed_field<float, 3> u(q, comm, {nz, ny, nx}, cf::ghost(1),
//   cm::split_ends::periodic); u.scatter_from(0, host);                        // the global
//   interior, on rank 0 cm::exchange_halos(q, u);                       // the split dimension's
//   ghost layers cm::apply_boundaries(q, u, conditions);         // the other dimensions' (and open
//   ends') jacobi(q, u.local(), v.local());                // any stencil_kernel on the slab
//   std::vector<float> all = u.gather_to(0);
//
// Slabs: the rows of dimension 0 (planes of a 3-D field, rows of a 2-D field, points of a 1-D
// one) split as mpi::block_layout splits a length: rank r holds rows [offset, offset + rows),
// the first ranks one row more where the rows do not divide evenly. Every rank must hold at least
// one row, and at least as many rows as its ghost layers along dimension 0 whenever it has a
// neighbour (a halo comes from the next rank alone): otherwise the constructor fails on every
// rank. Ghost layers along dimension 0 cover the whole allocation of the other dimensions, so an
// exchange moves whole planes (one contiguous range per side) and corners arrive with them.
//
// Ends of the split dimension: split_ends::periodic makes rank 0 and the last rank neighbours
// (exchange_halos wraps around, also on one rank); split_ends::open leaves the outer ghost
// layers to apply_boundaries' conditions of dimension 0 (constant or Neumann). The other
// dimensions are whole on every rank: their boundary conditions are the field's own kernels.
// Exchanging and then applying the boundaries (or the other way round) gives every rank's
// allocation exactly the rows the whole field would have after clforge::apply_boundaries.
//
// Constructors, transfers and exchange_halos are collective on the communicator (see
// clforge/mpi.hpp: every rank throws the same clforge::error, or none does); apply_boundaries
// and everything on local() are not.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "clforge/algorithms/stencil.hpp"
#include "clforge/error.hpp"
#include "clforge/field.hpp"
#include "clforge/mpi/c_api.hpp"
#include "clforge/mpi/collective.hpp"
#include "clforge/mpi/halo.hpp"
#include "clforge/mpi/layout.hpp"
#include "clforge/queue.hpp"
#include "clforge/types.hpp"

namespace clforge::mpi {

/// How the two ends of the split dimension meet: open (ghost layers from boundary conditions)
/// or periodic (rank 0 and the last rank exchange halos).
enum class split_ends { open, periodic };

/// @cond INTERNAL
namespace detail {
/// The geometry of one rank's slab, what the halo plan and the checks need.
struct slab {
  std::size_t rows = 0;       // interior rows of dimension 0 on this rank
  std::size_t low = 0;        // ghost rows below
  std::size_t high = 0;       // ghost rows above
  std::size_t row_bytes = 0;  // bytes of one row of the allocation (the other dimensions whole)
  cl_mem buffer = nullptr;
  bool periodic = false;
};
/// The pieces of one field (index `index` among the fields of one exchange) for this rank.
CLFORGE_MPI_API void add_slab_pieces(halo_plan& plan, const slab& s, std::size_t index, int rank,
                                     int ranks);
/// Throws unless every rank's slab can hold its halos (see the top of the header).
CLFORGE_MPI_API void check_slabs(const block_layout& rows, std::size_t low, std::size_t high,
                                 bool periodic, int rank);
/// Fills this rank's outer ghost rows of dimension 0 (rank 0's low side, the last rank's high
/// side; both on one rank) by constant or Neumann conditions: whole rows, as
/// clforge::apply_boundaries fills dimension 0. Returns the event of the last command.
CLFORGE_MPI_API event fill_open_ends(const queue& q, const slab& s, bool first, bool last,
                                     const clforge::detail::ghost_side& low,
                                     const clforge::detail::ghost_side& high,
                                     std::size_t element_size);
/// The text the ranks agree on for a field: type, global shape, ghost layers, ends.
CLFORGE_MPI_API std::string describe_field(const std::string& type, const std::size_t* shape,
                                           std::size_t dims, const ghost& g, bool periodic);
}  // namespace detail
/// @endcond

/// A D-dimensional field of T split in slabs along dimension 0 over the ranks of a communicator
/// (see the top of this file). Move-only. The communicator must outlive the field.
template <class T, std::size_t D>
class distributed_field {
 public:
  /// The element type.
  using value_type = T;
  /// Points per dimension, index order.
  using shape_type = std::array<std::size_t, D>;
  /// Number of dimensions.
  static constexpr std::size_t dims = D;

  distributed_field() = default;
  /// A zero field of global interior `global_shape` with ghost layers `g` on every rank's slab,
  /// the ends of dimension 0 open or periodic. Collective.
  distributed_field(const queue& q, MPI_Comm comm, const shape_type& global_shape,
                    const ghost& g = ghost(), split_ends ends = split_ends::open)
      : q_(std::make_shared<queue>(q)), comm_(comm), shape_(global_shape), ghost_(g), ends_(ends) {
    detail::call_info info{
        detail::describe_field(type_name<T>(), global_shape.data(), D, g,
                               ends == split_ends::periodic),
        clforge::mpi::detail::fingerprint({clforge::mpi::detail::type_tag<T>(), description()}), 0,
        false};
    detail::collective_step(comm, info, [&] {
      rank_ = detail::comm_rank(comm);
      // The global shape first: a zero dimension or an oversized one fails as for a field.
      clforge::detail::make_field_layout(global_shape.data(), D, g, "distributed_field");
      rows_ = block_layout{global_shape[0], 1, detail::comm_size(comm)};
      detail::check_slabs(rows_, g.low(0), g.high(0), ends == split_ends::periodic, rank_);
      shape_type local = global_shape;
      local[0] = rows_.count(rank_);
      local_ = field<T, D>(q, local, g);
    });
  }

  /// Root sends each rank its rows of `global_interior` (row-major, the global interior: size()
  /// values on root; not read elsewhere). Ghost layers are left as they are. Collective.
  void scatter_from(int root, const std::vector<T>& global_interior) {
    check_made("scatter_from");
    const detail::call_info info = transfer_info("scatter_from", root);
    std::vector<std::size_t> counts, offsets;
    detail::collective_step(comm_, info, [&] {
      check_root("scatter_from", root);
      if (rank_ == root && global_interior.size() != size())
        throw error("distributed_field::scatter_from: root " + std::to_string(root) + " passed " +
                    std::to_string(global_interior.size()) + " values for a global interior of " +
                    std::to_string(size()));
      point_counts(counts, offsets);
      detail::check_counts("distributed_field::scatter_from", counts);
    });
    std::vector<T> mine(local_.size());
    detail::scatterv(comm_, root, rank_ == root ? global_interior.data() : nullptr, counts, offsets,
                     mine.data(), sizeof(T));
    detail::collective_step(comm_, info, [&] { local_.write(*q_, mine); });
  }
  /// The global interior on root (row-major, size() values); an empty vector elsewhere.
  /// Collective.
  std::vector<T> gather_to(int root) const {
    check_made("gather_to");
    const detail::call_info info = transfer_info("gather_to", root);
    std::vector<std::size_t> counts, offsets;
    std::vector<T> mine;
    detail::collective_step(comm_, info, [&] {
      check_root("gather_to", root);
      point_counts(counts, offsets);
      detail::check_counts("distributed_field::gather_to", counts);
      mine = local_.to_host(*q_);
    });
    std::vector<T> all(rank_ == root ? size() : 0);
    detail::gatherv(comm_, root, mine.data(), mine.size(), all.data(), counts, offsets, sizeof(T));
    return all;
  }

  /// Fills the ghost layers of dimension 0 from the neighbouring ranks (see exchange_halos).
  /// Collective.
  void exchange_halos(const queue& q);

  /// This rank's slab: a field whose interior is rows [offset()[0], offset()[0] + rows) of the
  /// global interior; stencils, boundaries and reductions run on it.
  field<T, D>& local() { return local_; }
  /// This rank's slab, read-only.
  const field<T, D>& local() const { return local_; }
  /// The global interior's points per dimension.
  shape_type shape() const { return shape_; }
  /// This rank's interior points per dimension.
  shape_type local_shape() const { return local_.shape(); }
  /// The global coordinates of this rank's first interior point (non-zero in dimension 0 only).
  shape_type offset() const {
    shape_type o{};
    o[0] = rows_.offset(rank_);
    return o;
  }
  /// Global interior points.
  std::size_t size() const {
    std::size_t n = 1;
    for (std::size_t d : shape_) n *= d;
    return n;
  }
  /// How the rows of dimension 0 are split over the ranks.
  const block_layout& rows() const { return rows_; }
  /// The ghost layers of every slab.
  const ghost& ghosts() const { return ghost_; }
  /// How the ends of dimension 0 meet.
  split_ends ends() const { return ends_; }
  /// The communicator the field is split over.
  MPI_Comm comm() const { return comm_; }
  /// This process's rank in comm().
  int rank() const { return rank_; }
  /// The queue the slab was made on (scatter_from and gather_to copy through it).
  const queue& q() const {
    check_made("q");
    return *q_;
  }

  /// The slab geometry (for exchange_halos).
  detail::slab slab_of() const {
    detail::slab s;
    s.rows = local_.shape()[0];
    s.low = ghost_.low(0);
    s.high = ghost_.high(0);
    s.row_bytes = local_.layout().strides[3 - D] * sizeof(T);
    s.buffer = local_.local().get();
    s.periodic = ends_ == split_ends::periodic;
    return s;
  }
  /// The text the ranks agree on: type, global shape, ghost layers, ends.
  std::string description() const {
    return detail::describe_field(type_name<T>(), shape_.data(), D, ghost_,
                                  ends_ == split_ends::periodic);
  }

 private:
  detail::call_info transfer_info(const char* op, int root) const {
    return {std::string(op) + " " + description(),
            detail::fingerprint({detail::type_tag<T>(), description(), std::to_string(root)}),
            size()};
  }
  void check_root(const char* op, int root) const {
    if (root < 0 || root >= rows_.ranks)
      throw error(std::string("distributed_field::") + op + ": root " + std::to_string(root) +
                  " is not a rank of the communicator (" + std::to_string(rows_.ranks) + " ranks)");
  }
  void point_counts(std::vector<std::size_t>& counts, std::vector<std::size_t>& offsets) const {
    const std::size_t row_points = size() / shape_[0];
    counts.resize(rows_.ranks_count());
    offsets.resize(rows_.ranks_count());
    for (int r = 0; r < rows_.ranks; ++r) {
      counts[static_cast<std::size_t>(r)] = rows_.count(r) * row_points;
      offsets[static_cast<std::size_t>(r)] = rows_.offset(r) * row_points;
    }
  }

  // A default-constructed field has no queue and no communicator: a clforge::error, not an MPI
  // call on MPI_COMM_NULL.
  void check_made(const char* call) const {
    if (!q_)
      throw error(std::string("distributed_field::") + call +
                  ": an empty field (default-constructed)");
  }

  std::shared_ptr<queue> q_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  shape_type shape_{};
  ghost ghost_;
  split_ends ends_ = split_ends::open;
  block_layout rows_;
  field<T, D> local_;
};

/// Starts filling the ghost layers along dimension 0 of every field from the neighbouring ranks'
/// slabs (and, with periodic ends, rank 0's and the last rank's from each other): the rows to
/// send are being copied off the device when it returns; halo_exchange::finish() sends, receives
/// and writes the ghost layers. A stencil over the rows that need no halo, enqueued in between,
/// runs while the messages travel. The fields may differ in type, shape and ghost layers but
/// share the communicator; their halos for one neighbour travel as one message. Collective:
/// every rank passes the same fields in the same order.
template <class... Fields>
halo_exchange start_halo_exchange(const queue& q, Fields&... fields) {
  static_assert(sizeof...(Fields) >= 1, "clforge::mpi::exchange_halos needs a field");
  const std::string described = ((fields.description() + "; ") + ...);
  const std::array<MPI_Comm, sizeof...(Fields)> comms{fields.comm()...};
  MPI_Comm comm = comms[0];  // every field's is checked below
  std::size_t points = 0;
  ((points += fields.size()), ...);
  const detail::call_info info{"exchange_halos of " + std::to_string(sizeof...(Fields)) +
                                   (sizeof...(Fields) == 1 ? " field" : " fields"),
                               detail::fingerprint({described}), points};
  return detail::start_halo_exchange(q, comm, info, [&](detail::halo_plan& plan) {
    std::size_t index = 0;
    auto add = [&](const auto& f) {
      const std::string which = "clforge::mpi::exchange_halos: field " + std::to_string(index);
      if (f.local().local().empty()) throw error(which + " is empty");
      if (f.comm() != comm) throw error(which + " is split over another communicator than field 0");
      if (f.local().ctx().get() != q.ctx().get())
        throw error(which + " lives in another context than the queue");
      detail::add_slab_pieces(plan, f.slab_of(), index, f.rank(), f.rows().ranks);
      ++index;
    };
    (add(fields), ...);
  });
}

/// Fills the ghost layers along dimension 0 of every field from the neighbouring ranks (see
/// start_halo_exchange) and returns when they are written. Collective.
template <class... Fields>
void exchange_halos(const queue& q, Fields&... fields) {
  start_halo_exchange(q, fields...).finish();
}

template <class T, std::size_t D>
void distributed_field<T, D>::exchange_halos(const queue& q) {
  check_made("exchange_halos");
  mpi::exchange_halos(q, *this);
}

/// Fills the ghost layers that exchange_halos does not: those of dimensions 1 .. D-1 on every
/// rank (as clforge::apply_boundaries, across the whole allocation), and at open ends those of
/// dimension 0 outside the global interior (rank 0's low side, the last rank's high side; constant
/// or Neumann). Dimension 0's conditions are periodic exactly when the field's ends are. Not
/// collective (no communication).
template <class T, std::size_t D>
event apply_boundaries(const queue& q, distributed_field<T, D>& f,
                       const boundary_conditions<T, D>& conditions) {
  const bool periodic = f.ends() == split_ends::periodic;
  for (side s : {side::low, side::high})
    if ((conditions.at(0, s).kind == boundary_kind::periodic) != periodic)
      throw error(std::string("clforge::mpi::apply_boundaries: dimension 0 is split over the "
                              "ranks with ") +
                  (periodic ? "periodic ends, but its condition is not periodic"
                            : "open ends, but its condition is periodic (make the field with "
                              "split_ends::periodic; exchange_halos then wraps around)"));
  auto side_of = [](const boundary<T>& b) {
    clforge::detail::ghost_side g;
    g.kind = b.kind;
    g.value.assign(reinterpret_cast<const char*>(&b.value), sizeof(T));
    return g;
  };
  event ends;
  if (!periodic)
    ends = detail::fill_open_ends(q, f.slab_of(), f.rank() == 0, f.rank() == f.rows().ranks - 1,
                                  side_of(conditions.at(0, side::low)),
                                  side_of(conditions.at(0, side::high)), sizeof(T));
  // The other dimensions by the field's own kernels, dimension 0 left out: a layout without
  // ghost layers there (the allocation unchanged, so the other dimensions' ghost layers are
  // filled across every row, ghost rows included).
  clforge::detail::field_layout layout = f.local().layout();
  layout.low[3 - D] = layout.high[3 - D] = 0;
  std::array<clforge::detail::ghost_side, 3> low, high;
  for (std::size_t d = 1; d < D; ++d) {
    low[3 - D + d] = side_of(conditions.at(d, side::low));
    high[3 - D + d] = side_of(conditions.at(d, side::high));
  }
  event others = clforge::detail::fill_ghost_layers(q, f.local().local().buffer(), type_name<T>(),
                                                    sizeof(T), layout, low, high);
  return others ? others : ends;
}

}  // namespace clforge::mpi
