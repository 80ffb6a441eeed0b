// SPDX-License-Identifier: MIT
// clforge::mpi::op (clforge/mpi/op.hpp): a global mesh description partitioned over the ranks,
// and par_loop with halo exchanges (through clforge::mpi's halo exchange) and global reductions.
#include "clforge/mpi/op.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string_view>
#include <utility>

#include "clforge/error.hpp"
#include "clforge/mpi/collective.hpp"
#include "clforge/mpi/halo.hpp"

namespace clforge::mpi::op {
namespace detail {

using mpi::detail::call_info;
using mpi::detail::collective_step;
using mpi::detail::fingerprint;

/// A range of local elements or of the packed exports: first element and count.
struct range {
  std::size_t first = 0, count = 0;
};

/// What a set exchanges with one other rank: the exec-halo and non-exec-halo parts each way.
struct neighbour {
  int rank = 0;
  range send_exec, send_nonexec;  // in the packed exports
  range recv_exec, recv_nonexec;  // local elements
};

struct set_part {
  MPI_Comm comm = MPI_COMM_NULL;
  std::string name;
  std::size_t size = 0;     // global
  std::vector<int> owners;  // global element -> rank
  // After build():
  clforge::op::set local;
  std::vector<std::size_t> ids;  // local -> global
  std::vector<neighbour> neighbours;
  clforge::op::set exports;
  clforge::op::map export_map;
};

struct map_part {
  std::string name;
  std::shared_ptr<set_part> from, to;
  std::size_t arity = 0;
  std::vector<cl_int> values;  // global
  clforge::op::map local;
};

struct mesh_state {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<std::shared_ptr<set_part>> sets;
  std::vector<std::shared_ptr<map_part>> maps;
  bool built = false;
};

MPI_Comm comm_of(const set_part& part) {
  return part.comm;
}
const clforge::op::set& local_of(const set_part& part) {
  return part.local;
}
std::size_t global_size_of(const set_part& part) {
  return part.size;
}
std::string name_of(const set_part& part) {
  return part.name;
}
const std::vector<std::size_t>& global_ids_of(const set_part& part) {
  return part.ids;
}
const clforge::op::set& export_set_of(const set_part& part) {
  return part.exports;
}
const clforge::op::map& export_map_of(const set_part& part) {
  return part.export_map;
}

void add_dat_pieces(const set_part& part, void* plan_address, std::uint64_t key, cl_mem values,
                    cl_mem packed, std::size_t row_bytes) {
  auto& plan = *static_cast<mpi::detail::halo_plan*>(plan_address);
  // The sender's piece and the receiver's piece of one part carry the same key.
  for (const neighbour& n : part.neighbours) {
    const std::pair<range, range> parts[2] = {{n.send_exec, n.recv_exec},
                                              {n.send_nonexec, n.recv_nonexec}};
    for (std::uint64_t k = 0; k < 2; ++k) {
      const range& send = parts[k].first;
      const range& recv = parts[k].second;
      if (send.count > 0)
        plan.sends.push_back(
            {n.rank, key + k, packed, send.first * row_bytes, send.count * row_bytes});
      if (recv.count > 0)
        plan.receives.push_back(
            {n.rank, key + k, values, recv.first * row_bytes, recv.count * row_bytes});
    }
  }
}

void gather_owned(const set_part& part, const void* owned, std::size_t row_bytes, void* global) {
  const int ranks = mpi::detail::comm_size(part.comm);
  const std::size_t mine = part.local.owned_size();
  std::vector<int> counts(static_cast<std::size_t>(ranks)), offsets(counts.size(), 0);
  for (int owner : part.owners) counts[static_cast<std::size_t>(owner)] += 1;
  std::vector<std::size_t> order;  // global elements by owner, then index: the received order
  order.reserve(part.size);
  for (int r = 0; r < ranks; ++r)
    for (std::size_t e = 0; e < part.size; ++e)
      if (part.owners[e] == r) order.push_back(e);
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<int> byte_counts(counts.size()), byte_offsets(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) {
    byte_counts[r] = static_cast<int>(counts[r] * row_bytes);
    byte_offsets[r] = static_cast<int>(offsets[r] * row_bytes);
  }
  std::vector<char> received(part.size * row_bytes);
  MPI_Allgatherv(owned, static_cast<int>(mine * row_bytes), MPI_BYTE, received.data(),
                 byte_counts.data(), byte_offsets.data(), MPI_BYTE, part.comm);
  for (std::size_t k = 0; k < order.size(); ++k)
    std::memcpy(static_cast<char*>(global) + order[k] * row_bytes, &received[k * row_bytes],
                row_bytes);
}

void check_dat(const set_part& part, const std::string& what, std::size_t given, std::size_t dim,
               const std::string& type) {
  if (part.comm == MPI_COMM_NULL || !part.local)
    throw error(what + ": the set \"" + part.name + "\" is not built yet (call mesh::build)");
  call_info info{what + " of " + type, fingerprint({part.name, std::to_string(dim)}), given, true};
  collective_step(part.comm, info, [&] {
    clforge::op::detail::check_dim(what, dim);
    clforge::op::detail::check_values(
        what, given, part.size * dim,
        "the global size x dim = " + std::to_string(part.size) + " x " + std::to_string(dim));
  });
}

clforge::op::kernel pack_kernel(const std::string& type, std::size_t dim) {
  return clforge::op::kernel("void clforge_halo_pack(const " + type + "* from, " + type +
                                 "* to) { for (int i = 0; i < " + std::to_string(dim) +
                                 "; ++i) to[i] = from[i]; }",
                             "clforge_halo_pack");
}

namespace {

std::atomic<std::size_t> loops_run{0}, exchanges_made{0}, dats_sent{0};

std::string_view bytes_of(const void* data, std::size_t bytes) {
  return {static_cast<const char*>(data), bytes};
}

/// The halos of every rank, computed from the global description (the same on every rank, so
/// each rank knows what its neighbours need without asking them): per set and rank, the exec
/// and non-exec halo elements, ordered by owner then global index.
struct halos {
  std::vector<std::vector<std::vector<std::size_t>>> exec, nonexec;  // [set][rank]
};

halos compute_halos(const mesh_state& m, int ranks) {
  const std::size_t nsets = m.sets.size();
  auto index_of = [&](const set_part* s) {
    return static_cast<std::size_t>(
        std::find_if(m.sets.begin(), m.sets.end(), [&](const auto& p) { return p.get() == s; }) -
        m.sets.begin());
  };
  halos h;
  h.exec.assign(nsets, std::vector<std::vector<std::size_t>>(static_cast<std::size_t>(ranks)));
  h.nonexec = h.exec;
  auto by_owner = [](const set_part& s, std::vector<std::size_t>& v) {
    std::stable_sort(v.begin(), v.end(),
                     [&](std::size_t a, std::size_t b) { return s.owners[a] < s.owners[b]; });
  };
  // Exec halo of rank r: elements owned elsewhere with a target (through any map from their
  // set) owned by r.
  for (std::size_t si = 0; si < nsets; ++si) {
    const set_part& s = *m.sets[si];
    std::vector<int> seen(static_cast<std::size_t>(ranks), -1);
    for (std::size_t e = 0; e < s.size; ++e)
      for (const auto& mp : m.maps) {
        if (mp->from.get() != &s) continue;
        for (std::size_t k = 0; k < mp->arity; ++k) {
          const int r = mp->to->owners[static_cast<std::size_t>(mp->values[e * mp->arity + k])];
          if (r != s.owners[e] && seen[static_cast<std::size_t>(r)] != static_cast<int>(e)) {
            seen[static_cast<std::size_t>(r)] = static_cast<int>(e);
            h.exec[si][static_cast<std::size_t>(r)].push_back(e);
          }
        }
      }
    for (auto& v : h.exec[si]) by_owner(s, v);
  }
  // Non-exec halo of rank r: what owned and exec-halo elements reach, neither owned by r nor in
  // its exec halo.
  for (int r = 0; r < ranks; ++r) {
    const auto ru = static_cast<std::size_t>(r);
    std::vector<std::vector<char>> present(nsets);
    for (std::size_t si = 0; si < nsets; ++si) {
      const set_part& s = *m.sets[si];
      present[si].assign(s.size, 0);
      for (std::size_t e = 0; e < s.size; ++e) present[si][e] = s.owners[e] == r;
      for (std::size_t e : h.exec[si][ru]) present[si][e] = 1;
    }
    std::vector<std::vector<char>> runs = present;  // owned or exec halo
    for (const auto& mp : m.maps) {
      const std::size_t from = index_of(mp->from.get()), to = index_of(mp->to.get());
      for (std::size_t e = 0; e < mp->from->size; ++e) {
        if (!runs[from][e]) continue;
        for (std::size_t k = 0; k < mp->arity; ++k) {
          const auto t = static_cast<std::size_t>(mp->values[e * mp->arity + k]);
          if (!present[to][t]) {
            present[to][t] = 1;
            h.nonexec[to][ru].push_back(t);
          }
        }
      }
    }
    for (std::size_t si = 0; si < nsets; ++si) {
      std::sort(h.nonexec[si][ru].begin(), h.nonexec[si][ru].end());
      by_owner(*m.sets[si], h.nonexec[si][ru]);
    }
  }
  return h;
}

/// Where the elements of `list` owned by `owner` are in it (they are consecutive).
range owned_by(const set_part& s, const std::vector<std::size_t>& list, int owner,
               std::size_t base) {
  range out{base, 0};
  for (std::size_t k = 0; k < list.size(); ++k)
    if (s.owners[list[k]] == owner) {
      if (out.count == 0) out.first = base + k;
      ++out.count;
    }
  return out;
}

}  // namespace
}  // namespace detail

using namespace detail;

// ---- set, map, mesh --------------------------------------------------------------------------

namespace {
const set_part& built(const std::shared_ptr<set_part>& p) {
  if (!p) throw error("mpi::op::set: an empty set (not made by a mesh)");
  if (!p->local) throw error("mpi::op::set \"" + p->name + "\": call mesh::build first");
  return *p;
}
}  // namespace

const clforge::op::set& set::local() const {
  return built(part_).local;
}
std::size_t set::global_size() const {
  if (!part_) throw error("mpi::op::set: an empty set (not made by a mesh)");
  return part_->size;
}
const std::vector<std::size_t>& set::global_ids() const {
  return built(part_).ids;
}
const std::string& set::name() const {
  if (!part_) throw error("mpi::op::set: an empty set (not made by a mesh)");
  return part_->name;
}

const clforge::op::map& map::local() const {
  if (!part_) throw error("mpi::op::map: an empty map (not made by a mesh)");
  if (!part_->local) throw error("mpi::op::map \"" + part_->name + "\": call mesh::build first");
  return part_->local;
}

mesh::mesh(MPI_Comm comm) : state_(std::make_shared<mesh_state>()) {
  state_->comm = comm;
}
MPI_Comm mesh::comm() const {
  return state_->comm;
}

set mesh::add_set(std::size_t size, std::vector<int> owners, const std::string& name) {
  if (state_->built) throw error("mpi::op::mesh: add_set after build");
  auto p = std::make_shared<set_part>();
  p->comm = state_->comm;
  p->name = name;
  p->size = size;
  p->owners = std::move(owners);
  state_->sets.push_back(p);
  set s;
  s.part_ = p;
  return s;
}

map mesh::add_map(const set& from, const set& to, std::size_t arity, std::vector<cl_int> values,
                  const std::string& name) {
  if (state_->built) throw error("mpi::op::mesh: add_map after build");
  auto p = std::make_shared<map_part>();
  p->name = name;
  p->from = from.part();
  p->to = to.part();
  p->arity = arity;
  p->values = std::move(values);
  state_->maps.push_back(p);
  map m;
  m.part_ = p;
  return m;
}

void mesh::build(const queue& q) {
  mesh_state& m = *state_;
  const MPI_Comm comm = m.comm;
  // What every rank must have alike: the whole description.
  std::uint64_t print = fingerprint({"mesh"});
  std::size_t elements = 0;
  for (const auto& s : m.sets) {
    print ^= fingerprint({s->name, std::to_string(s->size),
                          bytes_of(s->owners.data(), s->owners.size() * sizeof(int))}) +
             0x9e3779b97f4a7c15ull * (elements + 1);
    elements += s->size;
  }
  for (const auto& mp : m.maps)
    print ^= fingerprint({mp->name, std::to_string(mp->arity),
                          bytes_of(mp->values.data(), mp->values.size() * sizeof(cl_int))}) *
             31;
  const call_info info{"op::mesh::build", print, elements, true};

  halos h;
  collective_step(comm, info, [&] {
    if (m.built) throw error("mpi::op::mesh: build called twice");
    const int ranks = mpi::detail::comm_size(comm);
    for (const auto& s : m.sets) {
      const std::string what = "mpi::op::mesh: set \"" + s->name + "\"";
      if (s->owners.empty()) {  // a block partition
        s->owners.resize(s->size);
        for (std::size_t e = 0; e < s->size; ++e)
          s->owners[e] = static_cast<int>(e * static_cast<std::size_t>(ranks) / s->size);
      }
      if (s->owners.size() != s->size)
        throw error(what + ": " + std::to_string(s->owners.size()) + " owners for " +
                    std::to_string(s->size) + " elements");
      for (std::size_t e = 0; e < s->size; ++e)
        if (s->owners[e] < 0 || s->owners[e] >= ranks)
          throw error(what + ": element " + std::to_string(e) + "'s owner " +
                      std::to_string(s->owners[e]) + " is not a rank of the communicator (" +
                      std::to_string(ranks) + " ranks)");
    }
    for (const auto& mp : m.maps) {
      const std::string what = "mpi::op::mesh: map \"" + mp->name + "\"";
      auto known = [&](const std::shared_ptr<set_part>& s) {
        return s && std::find(m.sets.begin(), m.sets.end(), s) != m.sets.end();
      };
      if (!known(mp->from) || !known(mp->to))
        throw error(what + ": its sets are not sets of this mesh");
      if (mp->arity == 0) throw error(what + ": arity 0");
      if (mp->values.size() != mp->from->size * mp->arity)
        throw error(what + ": " + std::to_string(mp->values.size()) + " values, expected " +
                    std::to_string(mp->from->size) + " x arity " + std::to_string(mp->arity));
      for (std::size_t i = 0; i < mp->values.size(); ++i)
        if (mp->values[i] < 0 || static_cast<std::size_t>(mp->values[i]) >= mp->to->size)
          throw error(what + ": element " + std::to_string(i / mp->arity) + "'s target " +
                      std::to_string(i % mp->arity) + " is " + std::to_string(mp->values[i]) +
                      ", outside set \"" + mp->to->name + "\" (" + std::to_string(mp->to->size) +
                      " elements)");
    }
    h = compute_halos(m, ranks);

    // This rank's part: local numbering, neighbours, exports.
    const int me = mpi::detail::comm_rank(comm);
    const auto meu = static_cast<std::size_t>(me);
    std::vector<std::vector<cl_int>> local_index(m.sets.size());
    for (std::size_t si = 0; si < m.sets.size(); ++si) {
      set_part& s = *m.sets[si];
      std::vector<std::size_t> owned;
      for (std::size_t e = 0; e < s.size; ++e)
        if (s.owners[e] == me) owned.push_back(e);
      const auto& exec = h.exec[si][meu];
      const auto& nonexec = h.nonexec[si][meu];
      s.ids = owned;
      s.ids.insert(s.ids.end(), exec.begin(), exec.end());
      s.ids.insert(s.ids.end(), nonexec.begin(), nonexec.end());
      local_index[si].assign(s.size, -1);
      for (std::size_t l = 0; l < s.ids.size(); ++l)
        local_index[si][s.ids[l]] = static_cast<cl_int>(l);
      s.local = clforge::op::set(owned.size(), exec.size(), nonexec.size(), s.name);
      // Exports: my owned elements in each other rank's halo (in that rank's order).
      std::vector<cl_int> export_rows;
      s.neighbours.clear();
      for (int r = 0; r < ranks; ++r) {
        if (r == me) continue;
        const auto ru = static_cast<std::size_t>(r);
        neighbour n;
        n.rank = r;
        n.send_exec = owned_by(s, h.exec[si][ru], me, 0);
        n.send_nonexec = owned_by(s, h.nonexec[si][ru], me, 0);
        n.recv_exec = owned_by(s, exec, r, owned.size());
        n.recv_nonexec = owned_by(s, nonexec, r, owned.size() + exec.size());
        for (range* send : {&n.send_exec, &n.send_nonexec}) {
          const auto& list = send == &n.send_exec ? h.exec[si][ru] : h.nonexec[si][ru];
          const std::size_t at = send->first;
          send->first = export_rows.size();
          for (std::size_t k = 0; k < send->count; ++k)
            export_rows.push_back(local_index[si][list[at + k]]);
        }
        if (n.send_exec.count + n.send_nonexec.count + n.recv_exec.count + n.recv_nonexec.count)
          s.neighbours.push_back(n);
      }
      s.exports = clforge::op::set(export_rows.size(), s.name + " (exports)");
      s.export_map = clforge::op::map(q, s.exports, s.local, 1, export_rows, s.name + " (exports)");
    }
    for (const auto& mp : m.maps) {
      const std::size_t from = static_cast<std::size_t>(
          std::find(m.sets.begin(), m.sets.end(), mp->from) - m.sets.begin());
      const std::size_t to = static_cast<std::size_t>(
          std::find(m.sets.begin(), m.sets.end(), mp->to) - m.sets.begin());
      const set_part& f = *m.sets[from];
      const std::size_t rows = f.local.iteration_size();
      std::vector<cl_int> values(rows * mp->arity);
      for (std::size_t l = 0; l < rows; ++l)
        for (std::size_t k = 0; k < mp->arity; ++k) {
          const cl_int t =
              local_index[to][static_cast<std::size_t>(mp->values[f.ids[l] * mp->arity + k])];
          if (t < 0) throw error("mpi::op::mesh: internal: a target outside the halo");
          values[l * mp->arity + k] = t;
        }
      mp->local = clforge::op::map(q, f.local, mp->to->local, mp->arity, values, mp->name);
    }
    m.built = true;
  });
}

// ---- par_loop --------------------------------------------------------------------------------

namespace {
bool reads(access a) {
  return a == access::read || a == access::rw || a == access::min || a == access::max;
}
}  // namespace

event par_loop(const queue& q, const kernel& k, const set& s, const std::vector<arg>& args) {
  const set_part& part = built(s.part());
  const MPI_Comm comm = part.comm;
  // What the ranks agree on: the kernel, the set, each argument and whether its halo is stale.
  std::string pattern;
  for (const arg& a : args) {
    pattern += a.local.what + "/" + clforge::op::access_name(a.local.mode) + "/" +
               std::to_string(static_cast<int>(a.local.kind)) + "/" + a.local.type + "/" +
               std::to_string(a.local.dim) + "/" +
               (a.local.through ? a.local.through.name() : std::string()) + "/" +
               std::to_string(a.local.index) + "/" + (a.halo && a.halo->dirty ? "d" : "c") + ";";
  }
  const std::string what =
      "op::par_loop " + (k ? k.name() : std::string("(no kernel)")) + " over \"" + part.name + "\"";
  const call_info info{what, fingerprint({k ? k.code() : "", pattern}), part.size, true};

  std::unique_ptr<clforge::op::loop> l;
  std::vector<std::shared_ptr<dat_halo>> stale;
  collective_step(comm, info, [&] {
    std::vector<clforge::op::arg> local;
    for (const arg& a : args) {
      if (a.halo && a.halo->part->comm != comm)
        throw error(what + ": " + a.local.what + " lives on another communicator");
      local.push_back(a.local);
    }
    l = std::make_unique<clforge::op::loop>(q, k, part.local, std::move(local));
    // The halos the loop reads: through maps, or directly over the exec halo.
    for (const arg& a : args) {
      if (!a.halo || !a.halo->dirty || !reads(a.local.mode)) continue;
      const bool direct = a.local.kind == clforge::op::detail::argument_kind::direct;
      if (direct && !l->writes_through_maps()) continue;
      if (std::find(stale.begin(), stale.end(), a.halo) == stale.end()) stale.push_back(a.halo);
    }
  });

  if (!stale.empty()) {
    halo_exchange x = mpi::detail::start_halo_exchange(
        q, comm, {what + ": halo exchange", info.fingerprint, part.size, true},
        [&](mpi::detail::halo_plan& plan) {
          for (std::size_t i = 0; i < stale.size(); ++i) stale[i]->add_pieces(q, &plan, 2 * i);
        });
    x.finish();
    for (const auto& d : stale) d->dirty = false;
    exchanges_made += 1;
    dats_sent += stale.size();
  }

  event last;
  bool partial_kept = false;
  std::vector<std::shared_ptr<global_reduction>> begun;
  try {
    collective_step(comm, {what + ": run", info.fingerprint, part.size, true}, [&] {
      for (const arg& a : args)
        if (a.reduce && a.local.mode != access::read) {
          begun.push_back(a.reduce);
          a.reduce->begin(q, a.local.mode);
        }
      const std::size_t owned = part.local.owned_size();
      last = l->run(q, 0, owned);
      if (l->run_size() > owned) {
        // Redundant work over the exec halo: its contributions to globals belong to their owners.
        for (const arg& a : args)
          if (a.reduce && a.local.mode != access::read) a.reduce->keep_partial(q);
        partial_kept = true;
        event halo = l->run(q, owned, l->run_size());
        if (halo) last = halo;
      }
    });
  } catch (...) {
    // Every rank throws here: the globals keep the values they had before the loop.
    for (const auto& g : begun) {
      try {
        g->restore(q);
      } catch (...) {  // the loop's error is the one to report
      }
    }
    throw;
  }
  // A rank's exec halo may be empty where another's is not: the rule is the same on every rank.
  for (const arg& a : args)
    if (a.reduce && a.local.mode != access::read)
      a.reduce->combine(comm, q, a.local.mode, partial_kept);
  for (const arg& a : args)
    if (a.halo && a.local.mode != access::read) a.halo->dirty = true;
  loops_run += 1;
  return last;
}

loop_stats stats() {
  return {loops_run.load(), exchanges_made.load(), dats_sent.load()};
}

}  // namespace clforge::mpi::op
