// SPDX-License-Identifier: MIT
// clforge::mpi::op: clforge::op's parallel loops over a mesh partitioned over the ranks of a
// communicator, in the manner of PyOP2 and OP2 under MPI.
//
//   namespace mop = clforge::mpi::op;
//   mop::mesh m(MPI_COMM_WORLD);                     // every rank: the same global description
//   mop::set cells = m.add_set(ncell, cell_owner, "cells");   // owner per element (or {}: blocks)
//   mop::set edges = m.add_set(nedge, edge_owner, "edges");
//   mop::map pecell = m.add_map(edges, cells, 2, edge_cells, "pecell");  // global indices
//   m.build(q);                                      // collective: local parts and halos
//   mop::dat<float> u(q, cells, 1, global_u, "u"), r(q, cells, 1, "r");
//   mop::global<float> total(q, 1, "total");
//   mop::par_loop(q, flux, edges, u(op::READ, pecell, 0), u(op::READ, pecell, 1),
//                 r(op::INC, pecell, 0), r(op::INC, pecell, 1), total(op::INC));
//   std::vector<float> all = r.gather(q);            // the global values, on every rank
//
// Each rank keeps, per set, its owned elements (those the owner list gives it), then the exec
// halo (elements owned elsewhere with a map target owned here: a loop that writes through a map
// runs over them too, so an owned target gets every contribution without messages back), then
// the non-exec halo (elements owned elsewhere that owned or exec-halo elements reach through a
// map: read only). The halo parts are ordered by owner, so each neighbour's part is one range.
// A dat is exchanged before a loop that reads it through a map (or directly, in a loop that
// runs over the exec halo) when a loop wrote it since the last exchange: one message per
// neighbour for all the dats of the loop (clforge::mpi's halo exchange). INC, MIN and MAX on a
// global combine the ranks' owned elements (never the exec halo twice). Every call is collective:
// ranks that disagree (descriptions, loops, arguments) throw the same clforge::error.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "clforge/mpi/c_api.hpp"
#include "clforge/op.hpp"
#include "clforge/queue.hpp"

#pragma push_macro("MIN")
#pragma push_macro("MAX")
#undef MIN
#undef MAX

namespace clforge::mpi::op {

using clforge::op::access;
using clforge::op::kernel;

/// @cond INTERNAL
namespace detail {
struct mesh_state;
struct set_part;
struct map_part;

/// A distributed dat as the loop sees it: exchanges its halo and knows when it must.
struct dat_halo {
  virtual ~dat_halo() = default;
  /// Packs the values to send (device) and adds this dat's pieces, keys from `key` on.
  virtual void add_pieces(const queue& q, void* plan, std::uint64_t key) = 0;
  /// True when a loop wrote the dat since its halo was last exchanged.
  bool dirty = false;
  const set_part* part = nullptr;
};

/// A distributed global as the loop sees it: reduces over the ranks.
struct global_reduction {
  virtual ~global_reduction() = default;
  /// Before the loop: keeps the value and starts the loop's own contribution from the mode's
  /// neutral start (zero for INC, the value for MIN and MAX).
  virtual void begin(const queue& q, access mode) = 0;
  /// Between the owned and the exec-halo ranges: keeps the owned elements' result.
  virtual void keep_partial(const queue& q) = 0;
  /// After a loop that failed: the value before it again.
  virtual void restore(const queue& q) = 0;
  /// After the loop: combines the ranks' results with the value kept (collective).
  virtual void combine(MPI_Comm comm, const queue& q, access mode, bool partial_kept) = 0;
};

CLFORGE_MPI_API MPI_Comm comm_of(const set_part& part);
CLFORGE_MPI_API const clforge::op::set& local_of(const set_part& part);
CLFORGE_MPI_API std::size_t global_size_of(const set_part& part);
CLFORGE_MPI_API std::string name_of(const set_part& part);
/// Local element -> global element (owned, exec halo, non-exec halo).
CLFORGE_MPI_API const std::vector<std::size_t>& global_ids_of(const set_part& part);
/// Adds the pieces of a dat of `row_bytes` bytes per element held in `values` (its local
/// elements) and `packed` (its exported rows, packed by export_map's order) to `plan`.
CLFORGE_MPI_API void add_dat_pieces(const set_part& part, void* plan, std::uint64_t key,
                                    cl_mem values, cl_mem packed, std::size_t row_bytes);
/// The exported elements (a set of its own) and the map from them to the local elements.
CLFORGE_MPI_API const clforge::op::set& export_set_of(const set_part& part);
CLFORGE_MPI_API const clforge::op::map& export_map_of(const set_part& part);
/// The owned rows of every rank, `row_bytes` bytes each, gathered into global order.
CLFORGE_MPI_API void gather_owned(const set_part& part, const void* owned, std::size_t row_bytes,
                                  void* global);
/// Checks a dat's global values on every rank alike (collective).
CLFORGE_MPI_API void check_dat(const set_part& part, const std::string& what, std::size_t given,
                               std::size_t dim, const std::string& type);
CLFORGE_MPI_API clforge::op::kernel pack_kernel(const std::string& type, std::size_t dim);
}  // namespace detail
/// @endcond

/// A set partitioned over the ranks (made by mesh::add_set; usable after mesh::build).
class CLFORGE_MPI_API set {
 public:
  set() = default;
  /// This rank's part: owned, exec-halo and non-exec-halo sizes.
  const clforge::op::set& local() const;
  /// Elements of the whole set, over every rank (the size given to mesh::add_set).
  std::size_t global_size() const;
  /// The global element of each local one.
  const std::vector<std::size_t>& global_ids() const;
  /// The name given to mesh::add_set.
  const std::string& name() const;
  /// False for an empty set (not made by a mesh).
  explicit operator bool() const { return part_ != nullptr; }
  /// The shared partition behind the handle (for clforge's own use).
  const std::shared_ptr<detail::set_part>& part() const { return part_; }

 private:
  friend class mesh;
  std::shared_ptr<detail::set_part> part_;
};

struct map_all;

/// A map between partitioned sets (made by mesh::add_map; usable after mesh::build): the local
/// map over this rank's owned and exec-halo elements, in local indices.
class CLFORGE_MPI_API map {
 public:
  map() = default;
  /// This rank's map, in local indices (clforge::error before mesh::build).
  const clforge::op::map& local() const;
  /// An argument through every target of each element: dat(access, m.all()).
  map_all all() const;
  /// The shared partition behind the handle (for clforge's own use).
  const std::shared_ptr<detail::map_part>& part() const { return part_; }

 private:
  friend class mesh;
  std::shared_ptr<detail::map_part> part_;
};
/// map.all(): an argument over every target of each element.
struct map_all {
  /// The map whose targets the argument goes through.
  map of;
};
inline map_all map::all() const {
  return map_all{*this};
}

/// The global description of a mesh (the same on every rank) and, after build(), this rank's
/// part of it.
class CLFORGE_MPI_API mesh {
 public:
  /// An empty description over the ranks of `comm` (used as given, not duplicated: it must
  /// outlive the mesh and everything made from it).
  explicit mesh(MPI_Comm comm);
  /// A set of `size` elements; `owners[e]` is the rank that owns element e (empty: a block
  /// partition of 0 .. size-1, in rank order).
  set add_set(std::size_t size, std::vector<int> owners = {}, const std::string& name = "set");
  /// A map: `values[e * arity + k]` is the k-th target (global index in `to`) of element e.
  map add_map(const set& from, const set& to, std::size_t arity, std::vector<cl_int> values,
              const std::string& name = "map");
  /// Checks the description (the same on every rank, owners and targets in range), computes the
  /// halos and the local maps and sets. Collective; once.
  void build(const queue& q);
  /// The communicator given on construction.
  MPI_Comm comm() const;

 private:
  std::shared_ptr<detail::mesh_state> state_;
};

/// An argument of mpi::op::par_loop.
struct arg {
  /// This rank's argument of clforge::op's loop.
  clforge::op::arg local;
  /// A dat's: exchanges its halo when a loop wrote it since the last exchange (null for globals).
  std::shared_ptr<detail::dat_halo> halo;
  /// A global's: combines the loop's result over the ranks (null for dats).
  std::shared_ptr<detail::global_reduction> reduce;
};

/// `dim` values of T per element of a partitioned set: this rank's owned and halo elements.
template <class T>
class dat {
 public:
  dat() = default;
  /// Zeros.
  dat(const queue& q, const set& s, std::size_t dim, const std::string& name = "dat")
      : dat(q, s, dim, std::vector<T>(s.global_size() * dim, T{}), name) {}
  /// From the global values (every rank passes all of them: s.global_size() * dim).
  dat(const queue& q, const set& s, std::size_t dim, const std::vector<T>& global_values,
      const std::string& name = "dat")
      : state_(std::make_shared<state>()) {
    if (!s) throw error("mpi::op::dat \"" + name + "\": the set is empty (not made by a mesh)");
    detail::check_dat(*s.part(), "op::dat \"" + name + "\"", global_values.size(), dim,
                      type_name<T>());
    self().part = s.part().get();
    self().set_handle = s;
    self().local =
        clforge::op::dat<T>(q, s.local(), dim, local_values(s, dim, global_values), name);
  }
  /// Values per element.
  std::size_t dim() const { return self().local.dim(); }
  /// This rank's part (owned, then halo elements).
  clforge::op::dat<T>& local() { return self().local; }
  /// This rank's part, read-only.
  const clforge::op::dat<T>& local() const { return self().local; }
  /// The owned values of every rank in global order, on every rank (collective).
  std::vector<T> gather(const queue& q) const {
    const std::vector<T> mine = self().local.to_host(q);
    std::vector<T> all(self().set_handle.global_size() * dim());
    detail::gather_owned(*self().part, mine.data(), dim() * sizeof(T), all.data());
    return all;
  }
  /// Replaces every value from the global values (collective; the halos are then current).
  void write(const queue& q, const std::vector<T>& global_values) {
    detail::check_dat(*self().part, "op::dat \"" + self().local.name() + "\"", global_values.size(),
                      dim(), type_name<T>());
    self().local.write(q, local_values(self().set_handle, dim(), global_values));
    self().dirty = false;
  }

  /// Direct: the element's own values.
  arg operator()(access mode) const { return {self().local(mode), state_, nullptr}; }
  /// Indirect: the values of target `index` of the element through `through`.
  arg operator()(access mode, const map& through, std::size_t index) const {
    return {self().local(mode, through.local(), index), state_, nullptr};
  }
  /// Every target of the element: arity x dim values.
  arg operator()(access mode, const map_all& all) const {
    return {self().local(mode, all.of.local().all()), state_, nullptr};
  }

 private:
  struct state : detail::dat_halo {
    set set_handle;
    clforge::op::dat<T> local, packed;
    std::shared_ptr<clforge::op::loop> pack;
    void add_pieces(const queue& q, void* plan, std::uint64_t key) override {
      const auto& exports = detail::export_set_of(*part);
      if (exports.total_size() > 0) {
        if (!pack) {
          packed = clforge::op::dat<T>(q, exports, local.dim(), local.name() + " (halo)");
          pack = std::make_shared<clforge::op::loop>(
              q, detail::pack_kernel(type_name<T>(), local.dim()), exports,
              local(clforge::op::READ, detail::export_map_of(*part), 0),
              packed(clforge::op::WRITE));
        }
        pack->run(q);
      }
      detail::add_dat_pieces(*part, plan, key, local.data().buffer().get(),
                             exports.total_size() > 0 ? packed.data().buffer().get() : nullptr,
                             local.dim() * sizeof(T));
    }
  };
  static std::vector<T> local_values(const set& s, std::size_t dim, const std::vector<T>& all) {
    const auto& ids = s.global_ids();
    std::vector<T> out(ids.size() * dim);
    for (std::size_t l = 0; l < ids.size(); ++l)
      for (std::size_t d = 0; d < dim; ++d) out[l * dim + d] = all[ids[l] * dim + d];
    return out;
  }
  state& self() const { return clforge::op::detail::handle_state(state_, "mpi::op::dat"); }
  std::shared_ptr<state> state_;
};

/// A value shared by the loop on every rank: READ as a constant; INC, MIN and MAX reduce over
/// the owned elements of every rank (the same value on every rank after the loop).
template <class T>
class global {
 public:
  global() = default;
  /// `dim` zeros.
  global(const queue& q, std::size_t dim, const std::string& name = "global")
      : state_(std::make_shared<state>()) {
    self().local = clforge::op::global<T>(q, dim, name);
  }
  /// These values (their count is the dim); not compared across ranks, so give every rank the
  /// same ones.
  global(const queue& q, const std::vector<T>& values, const std::string& name = "global")
      : state_(std::make_shared<state>()) {
    self().local = clforge::op::global<T>(q, values, name);
  }
  /// Number of values.
  std::size_t dim() const { return self().local.dim(); }
  /// This rank's values now (blocking read).
  std::vector<T> value(const queue& q) const { return self().local.value(q); }
  /// Replaces this rank's values (dim() of them; not collective).
  void assign(const queue& q, const std::vector<T>& values) { self().local.assign(q, values); }
  /// This rank's clforge::op::global.
  clforge::op::global<T>& local() { return self().local; }
  /// The global as a loop argument: READ, INC, MIN or MAX (the loop throws on WRITE and RW).
  arg operator()(access mode) const { return {self().local(mode), nullptr, state_}; }

 private:
  struct state : detail::global_reduction {
    clforge::op::global<T> local;
    std::vector<T> start, partial;
    void begin(const queue& q, access mode) override {
      start = local.value(q);
      if (mode == access::inc) local.assign(q, std::vector<T>(start.size(), T{}));
    }
    void keep_partial(const queue& q) override { partial = local.value(q); }
    void restore(const queue& q) override {
      if (!start.empty()) local.assign(q, start);
    }
    void combine(MPI_Comm comm, const queue& q, access mode, bool partial_kept) override {
      if (!partial_kept) partial = local.value(q);
      const std::size_t n = partial.size();
      int ranks = 1;
      MPI_Comm_size(comm, &ranks);
      std::vector<T> all(n * static_cast<std::size_t>(ranks));
      MPI_Allgather(partial.data(), static_cast<int>(n * sizeof(T)), MPI_BYTE, all.data(),
                    static_cast<int>(n * sizeof(T)), MPI_BYTE, comm);
      // Combined on the host in rank order: every rank gets the same bits, and MIN and MAX keep
      // the loop's rule (a NaN loses to any number), which MPI_MIN and MPI_MAX do not promise.
      std::vector<T> out = start;
      for (int r = 0; r < ranks; ++r)
        for (std::size_t i = 0; i < n; ++i) {
          const T v = all[static_cast<std::size_t>(r) * n + i];
          if (mode == access::inc)
            out[i] = static_cast<T>(out[i] + v);
          else if (mode == access::min)
            out[i] = (v < out[i] || out[i] != out[i]) ? v : out[i];
          else
            out[i] = (v > out[i] || out[i] != out[i]) ? v : out[i];
        }
      local.assign(q, out);
    }
  };
  state& self() const { return clforge::op::detail::handle_state(state_, "mpi::op::global"); }
  std::shared_ptr<state> state_;
};

/// Runs `k` over the owned elements of `s` on every rank (and over the exec halo where the loop
/// writes through a map), exchanging the halos of the dats it reads first where they changed.
/// Collective. Returns the event of the last command.
CLFORGE_MPI_API event par_loop(const queue& q, const kernel& k, const set& s,
                               const std::vector<arg>& args);
template <class... Args>
event par_loop(const queue& q, const kernel& k, const set& s, const arg& first,
               const Args&... rest) {
  static_assert((std::is_same_v<Args, arg> && ...),
                "clforge::mpi::op::par_loop: arguments are mpi::op::dat and global arguments");
  return par_loop(q, k, s, std::vector<arg>{first, rest...});
}

/// Statistics of this rank's loops (for tests and benchmarks).
struct loop_stats {
  /// par_loop calls that completed.
  std::size_t loops = 0;
  /// Halo exchanges the loops made (at most one per loop, for all its stale dats).
  std::size_t exchanges = 0;
  /// Dats those exchanges carried, summed.
  std::size_t dats_exchanged = 0;
};
CLFORGE_MPI_API loop_stats stats();

}  // namespace clforge::mpi::op

#pragma pop_macro("MAX")
#pragma pop_macro("MIN")
