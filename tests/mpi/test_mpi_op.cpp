// SPDX-License-Identifier: MIT
// clforge::mpi::op under mpirun -np 1..4: loops over a random mesh (nodes, edges with two nodes,
// cells with three nodes; repeated targets; owners at random and in blocks) partitioned over the
// ranks, against a serial C++ loop over the whole mesh: a direct loop, indirect READ after a
// direct write (the halo is exchanged, once), indirect INC through one target and through
// map.all() (integers exact, floats within 1e-5 relative), global INC / MIN / MAX (the exec halo
// counted once). Ranks that disagree (mesh, loop) and a bad argument on one rank fail on every
// rank with the same clforge::error, and a correct loop runs afterwards.
#include <clforge/clforge.hpp>
#include <clforge/mpi.hpp>

#include <mpi.h>

#include "mpi_test.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace cf = clforge;
namespace op = clforge::op;
namespace mop = clforge::mpi::op;

namespace {

using mpi_test::rank;
using mpi_test::ranks;

// The same random mesh on every rank.
struct random_mesh {
  std::size_t nodes, edges, cells;
  std::vector<cl_int> edge_nodes, cell_nodes;
  std::vector<int> node_owner, edge_owner, cell_owner;
};

random_mesh make_mesh(std::size_t nodes, std::size_t edges, std::size_t cells, bool blocks,
                      std::uint32_t seed) {
  std::mt19937 rng(seed);
  random_mesh m{nodes, edges, cells, {}, {}, {}, {}, {}};
  std::uniform_int_distribution<cl_int> node(0, static_cast<cl_int>(nodes) - 1);
  for (std::size_t e = 0; e < 2 * edges; ++e) m.edge_nodes.push_back(node(rng));
  for (std::size_t c = 0; c < 3 * cells; ++c) m.cell_nodes.push_back(node(rng));
  if (cells > 0) m.cell_nodes[1] = m.cell_nodes[0];  // a repeated target
  if (!blocks) {
    std::uniform_int_distribution<int> owner(0, ranks - 1);
    for (std::size_t n = 0; n < nodes; ++n) m.node_owner.push_back(owner(rng));
    for (std::size_t e = 0; e < edges; ++e) m.edge_owner.push_back(owner(rng));
    for (std::size_t c = 0; c < cells; ++c) m.cell_owner.push_back(owner(rng));
  }
  return m;
}

template <class T>
std::vector<T> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) {
    if constexpr (std::is_integral_v<T>)
      x = static_cast<T>(std::uniform_int_distribution<int>(-1000, 1000)(rng));
    else
      x = static_cast<T>(std::uniform_real_distribution<double>(-1.0, 1.0)(rng));
  }
  return v;
}

bool close(double a, double b) {
  return std::fabs(a - b) <= 1e-5 * std::max(1.0, std::fabs(b));
}

const op::kernel scale(
    "void scale(const float* x, float* y) { y[0] = 2.0f * x[0] + 1.0f; "
    "y[1] = x[1] - 0.5f; }",
    "scale");
const op::kernel diff(
    "void diff(const float* a, const float* b, float* d) { d[0] = a[0] - b[0]; "
    "d[1] = a[1] * b[1]; }",
    "diff");
const op::kernel spread(
    "void spread(const int* w, const float* x, int* n0, int* n1, float* f0, "
    "float* f1, int* count, float* lo, float* hi) { n0[0] += w[0]; "
    "n1[0] += 2 * w[0]; f0[0] += x[0]; f1[0] += x[0] * x[0]; "
    "count[0] += 1; lo[0] = fmin(lo[0], x[0]); hi[0] = fmax(hi[0], x[0]); }",
    "spread");
const op::kernel corners(
    "void corners(const float* x, int* n, const int* w) { for (int k = 0; "
    "k < 3; ++k) { n[k] += w[0] + k; } }",
    "corners");

void run_mesh(const cf::queue& q, std::size_t nodes, std::size_t edges, std::size_t cells,
              bool blocks, std::uint32_t seed) {
  const random_mesh g = make_mesh(nodes, edges, cells, blocks, seed);
  const std::string where = std::to_string(nodes) + "/" + std::to_string(edges) + "/" +
                            std::to_string(cells) + (blocks ? " blocks" : " random owners");
  mop::mesh m(MPI_COMM_WORLD);
  mop::set n = m.add_set(nodes, g.node_owner, "nodes");
  mop::set e = m.add_set(edges, g.edge_owner, "edges");
  mop::set c = m.add_set(cells, g.cell_owner, "cells");
  mop::map e2n = m.add_map(e, n, 2, g.edge_nodes, "e2n");
  mop::map c2n = m.add_map(c, n, 3, g.cell_nodes, "c2n");
  m.build(q);

  // Host reference.
  const auto x0 = random_values<float>(2 * nodes, seed + 1);
  const auto w = random_values<int>(edges, seed + 2);
  const auto wc = random_values<int>(cells, seed + 3);
  std::vector<float> x(2 * nodes), d(2 * edges);
  for (std::size_t i = 0; i < nodes; ++i) {
    x[2 * i] = 2.0f * x0[2 * i] + 1.0f;
    x[2 * i + 1] = x0[2 * i + 1] - 0.5f;
  }
  std::vector<int> ni(nodes, 0), nc(nodes, 7);
  std::vector<float> nf(nodes, 0.0f);
  int count = 0;
  float lo = 1e30f, hi = -1e30f;
  for (std::size_t k = 0; k < edges; ++k) {
    const auto a = static_cast<std::size_t>(g.edge_nodes[2 * k]),
               b = static_cast<std::size_t>(g.edge_nodes[2 * k + 1]);
    d[2 * k] = x[2 * a] - x[2 * b];
    d[2 * k + 1] = x[2 * a + 1] * x[2 * b + 1];
    ni[a] += w[k];
    ni[b] += 2 * w[k];
    nf[a] += d[2 * k];
    nf[b] += d[2 * k] * d[2 * k];
    count += 1;
    lo = std::min(lo, d[2 * k]);
    hi = std::max(hi, d[2 * k]);
  }
  for (std::size_t k = 0; k < cells; ++k)
    for (int j = 0; j < 3; ++j) nc[static_cast<std::size_t>(g.cell_nodes[3 * k + j])] += wc[k] + j;

  // The loops.
  mop::dat<float> xd0(q, n, 2, x0, "x0"), xd(q, n, 2, "x"), dd(q, e, 2, "d");
  mop::dat<float> fd(q, n, 1, "f");
  mop::dat<int> wd(q, e, 1, w, "w"), wcd(q, c, 1, wc, "wc"), nid(q, n, 1, "ni");
  mop::dat<int> ncd(q, n, 1, std::vector<int>(nodes, 7), "nc");
  mop::global<int> gcount(q, 1, "count");
  mop::global<float> glo(q, std::vector<float>{1e30f}, "lo"),
      ghi(q, std::vector<float>{-1e30f}, "hi");

  mop::par_loop(q, scale, n, xd0(op::READ), xd(op::WRITE));  // xd's halo is now stale
  const auto before = mop::stats();
  mop::par_loop(q, diff, e, xd(op::READ, e2n, 0), xd(op::READ, e2n, 1), dd(op::WRITE));
  const auto after = mop::stats();
  CHECK(
      after.exchanges == before.exchanges + 1 && after.dats_exchanged == before.dats_exchanged + 1,
      "%s: one exchange of one dat expected, %zu of %zu", where.c_str(),
      after.exchanges - before.exchanges, after.dats_exchanged - before.dats_exchanged);
  mop::par_loop(q, diff, e, xd(op::READ, e2n, 1), xd(op::READ, e2n, 0), dd(op::WRITE));
  CHECK(mop::stats().exchanges == after.exchanges, "%s: an exchange of a current halo",
        where.c_str());
  mop::par_loop(q, diff, e, xd(op::READ, e2n, 0), xd(op::READ, e2n, 1), dd(op::WRITE));
  // dd is read directly over the exec halo (the loop increments through e2n): its stale halo is
  // exchanged first.
  mop::par_loop(q, spread, e, wd(op::READ), dd(op::READ), nid(op::INC, e2n, 0),
                nid(op::INC, e2n, 1), fd(op::INC, e2n, 0), fd(op::INC, e2n, 1), gcount(op::INC),
                glo(op::MIN), ghi(op::MAX));
  mop::par_loop(q, corners, c, xd(op::READ, c2n, 0), ncd(op::INC, c2n.all()), wcd(op::READ));

  const auto got_x = xd.gather(q), got_d = dd.gather(q), got_f = fd.gather(q);
  const auto got_ni = nid.gather(q), got_nc = ncd.gather(q);
  int bad = 0;
  for (std::size_t i = 0; i < 2 * nodes; ++i) bad += got_x[i] != x[i];
  for (std::size_t i = 0; i < 2 * edges; ++i) bad += got_d[i] != d[i];
  CHECK(bad == 0, "%s: %d direct / indirect READ values differ", where.c_str(), bad);
  bad = 0;
  for (std::size_t i = 0; i < nodes; ++i) bad += got_ni[i] != ni[i] || got_nc[i] != nc[i];
  CHECK(bad == 0, "%s: %d integer INC values differ", where.c_str(), bad);
  bad = 0;
  for (std::size_t i = 0; i < nodes; ++i) bad += !close(got_f[i], nf[i]);
  CHECK(bad == 0, "%s: %d float INC values differ", where.c_str(), bad);
  CHECK(gcount.value(q)[0] == count, "%s: count %d, expected %d", where.c_str(), gcount.value(q)[0],
        count);
  CHECK(glo.value(q)[0] == lo && ghi.value(q)[0] == hi, "%s: min/max %g %g, expected %g %g",
        where.c_str(), glo.value(q)[0], ghi.value(q)[0], lo, hi);
  // The local parts: owned + exec + non-exec sizes add up to the global ones over the ranks.
  unsigned long long owned = n.local().owned_size(), all_owned = 0;
  MPI_Allreduce(&owned, &all_owned, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(all_owned == nodes, "%s: %llu nodes owned over the ranks", where.c_str(), all_owned);
}

void mesh_loops(const cf::queue& q) {
  run_mesh(q, 300, 700, 200, false, 11);
  run_mesh(q, 257, 513, 129, true, 12);
  run_mesh(q, 1, 3, 1, false, 13);  // fewer elements than ranks
  run_mesh(q, 5, 0, 0, true, 14);   // empty sets
}

void disagreement(const cf::queue& q) {
  const random_mesh g = make_mesh(40, 90, 10, false, 21);
  {
    const mop::dat<float> d;
    mop::global<cl_int> total;
    mpi_test::expect_same_error("empty dat", [&] { d.dim(); }, {"mpi::op::dat: an empty handle"});
    mpi_test::expect_same_error("empty global", [&] { total.value(q); },
                                {"mpi::op::global: an empty handle"});
  }
  {
    mop::mesh m(MPI_COMM_WORLD);
    mop::set n = m.add_set(40, g.node_owner, "nodes");
    mop::set e = m.add_set(90, g.edge_owner, "edges");
    auto values = g.edge_nodes;
    if (rank == ranks - 1 && ranks > 1) values[5] = (values[5] + 1) % 40;
    m.add_map(e, n, 2, values, "e2n");
    if (ranks > 1)
      mpi_test::expect_same_error("mesh differs", [&] { m.build(q); }, {"op::mesh::build"});
  }
  {
    mop::mesh m(MPI_COMM_WORLD);
    mop::set n = m.add_set(40, g.node_owner, "nodes");
    mop::set e = m.add_set(90, g.edge_owner, "edges");
    auto values = g.edge_nodes;
    values[7] = 40;  // outside
    m.add_map(e, n, 2, values, "e2n");
    mpi_test::expect_same_error("target outside", [&] { m.build(q); },
                                {"map \"e2n\"", "element 3", "outside set \"nodes\""});
  }
  mop::mesh m(MPI_COMM_WORLD);
  mop::set n = m.add_set(40, g.node_owner, "nodes");
  mop::set e = m.add_set(90, g.edge_owner, "edges");
  mop::map e2n = m.add_map(e, n, 2, g.edge_nodes, "e2n");
  m.build(q);
  mop::dat<float> x(q, n, 2, random_values<float>(80, 3), "x"), d(q, e, 2, "d");
  if (ranks > 1)
    mpi_test::expect_same_error("loop differs",
                                [&] {
                                  mop::par_loop(q, diff, e, x(op::READ, e2n, 0),
                                                x(op::READ, e2n, rank == 0 ? 1 : 0), d(op::WRITE));
                                },
                                {"op::par_loop diff over \"edges\""});
  mpi_test::expect_same_error(
      "index past arity",
      [&] { mop::par_loop(q, diff, e, x(op::READ, e2n, 0), x(op::READ, e2n, 2), d(op::WRITE)); },
      {"op::par_loop diff", "e2n"});
  mpi_test::expect_same_error("wrong global size",
                              [&] { mop::dat<float> bad(q, n, 2, std::vector<float>(79), "bad"); },
                              {"op::dat \"bad\"", "79"});
  // Afterwards the same loop works.
  mop::par_loop(q, diff, e, x(op::READ, e2n, 0), x(op::READ, e2n, 1), d(op::WRITE));
  const auto xs = x.gather(q), ds = d.gather(q);
  int bad = 0;
  for (std::size_t k = 0; k < 90; ++k) {
    const auto a = static_cast<std::size_t>(g.edge_nodes[2 * k]),
               b = static_cast<std::size_t>(g.edge_nodes[2 * k + 1]);
    bad += ds[2 * k] != xs[2 * a] - xs[2 * b] || ds[2 * k + 1] != xs[2 * a + 1] * xs[2 * b + 1];
  }
  CHECK(bad == 0, "after the errors: %d values differ", bad);
}

}  // namespace

int main(int argc, char** argv) {
  return mpi_test::run_tests(argc, argv, "clforge::mpi::op",
                             {{"mesh loops", mesh_loops}, {"disagreement", disagreement}});
}
