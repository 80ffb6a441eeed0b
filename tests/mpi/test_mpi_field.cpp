// SPDX-License-Identifier: MIT
// clforge::mpi::distributed_field under mpirun -np 1..4: halo exchange and boundaries of 1-D,
// 2-D and 3-D fields, ghost widths 1 and 2, open and periodic ends, against the whole field on
// one device (every rank computes that reference on its own device): after the boundaries each
// rank's allocation, ghost layers and corners included, must be exactly the reference's rows; N
// stencil sweeps (exchange, boundaries, stencil, alternating the order of the first two) must
// give exactly the reference's interior. Several fields in one exchange travel as one message per
// neighbour. Bad slabs (ranks without rows, slabs thinner than the ghost layers) and ranks that
// disagree (shape, type, ghost layers, the fields of an exchange) fail on every rank with the
// same clforge::error; a correct call afterwards works. The failures of all ranks decide the
// exit code of every rank.
#include <clforge/clforge.hpp>
#include <clforge/mpi.hpp>

#include <mpi.h>

#include "mpi_test.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace cf = clforge;
namespace cm = clforge::mpi;

namespace {

using mpi_test::rank;
using mpi_test::ranks;

template <class T>
bool same_bits(const T* a, const T* b, std::size_t n) {
  return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
}

// The same random data on every rank.
std::vector<float> random_floats(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

std::string access(const char* name, const std::vector<int>& offsets) {
  std::string s = std::string(name) + "(";
  for (std::size_t k = 0; k < offsets.size(); ++k) s += (k ? "," : "") + std::to_string(offsets[k]);
  return s + ")";
}

// A stencil reaching `low0` rows below and `high0` rows above in dimension 0, `g` points along
// the other dimensions, and into the corners (diagonals), so wrong halos, wrong corners or a
// wrong order of exchange and boundaries change the result.
std::string stencil_text(std::size_t dims, int g, int low0, int high0) {
  const std::vector<int> center(dims, 0);
  std::string s = access("v", center) + " = 0.5f * " + access("u", center);
  for (std::size_t d = 0; d < dims; ++d) {
    const int below = d == 0 ? low0 : g, above = d == 0 ? high0 : g;
    std::vector<int> offsets{-below, -1, 1, above};
    if (below == 1) offsets.erase(offsets.begin());  // once each
    if (above == 1) offsets.pop_back();
    for (int o : offsets) {
      std::vector<int> p(dims, 0);
      p[d] = o;
      s += " + 0.0625f * " + access("u", p);
    }
  }
  std::vector<int> high(dims, g), low(dims, -g), mixed(dims, 1);
  high[0] = high0;
  low[0] = -low0;
  mixed[0] = -low0;
  return s + " + 0.03125f * " + access("u", high) + " - 0.03125f * " + access("u", low) +
         " + 0.015625f * " + access("u", mixed);
}

// Conditions of the whole field: dimension 0 periodic or (open) constant below and Neumann
// above; the other dimensions by `variant`.
template <std::size_t D>
cf::boundary_conditions<float, D> conditions(bool periodic, int variant) {
  cf::boundary_conditions<float, D> c(cf::boundary<float>::periodic());
  if (!periodic) {
    c.set(0, cf::side::low, cf::boundary<float>::constant(-0.5f));
    c.set(0, cf::side::high, cf::boundary<float>::neumann());
  }
  for (std::size_t d = 1; d < D; ++d) {
    const int kind = (variant + static_cast<int>(d)) % 3;
    if (kind == 1) c.set(d, cf::boundary<float>::neumann());
    if (kind == 2) {
      c.set(d, cf::side::low, cf::boundary<float>::constant(0.75f));
      c.set(d, cf::side::high, cf::boundary<float>::neumann());
    }
  }
  return c;
}

// Rows [first, first + count) of dimension 0 of a whole allocation.
template <class T, std::size_t D>
std::vector<T> allocation_rows(const std::vector<T>& all, const cf::field<T, D>& f,
                               std::size_t first, std::size_t count) {
  const std::size_t row = f.strides()[0];
  return std::vector<T>(all.begin() + static_cast<std::ptrdiff_t>(first * row),
                        all.begin() + static_cast<std::ptrdiff_t>((first + count) * row));
}

template <std::size_t D>
void halo_case(const cf::queue& q, const std::array<std::size_t, D>& shape, std::size_t g,
               bool periodic, int variant, std::size_t low0 = 0, std::size_t high0 = 0) {
  // Ghost layers: g everywhere, or low0 below and high0 above in dimension 0 when given.
  if (low0 == 0) low0 = high0 = g;
  const cf::context& ctx = q.ctx();
  char name[96];
  std::snprintf(name, sizeof name, "%zu-D %zu rows ghost %zu (%zu:%zu) %s variant %d", D, shape[0],
                g, low0, high0, periodic ? "periodic" : "open", variant);
  const cf::ghost gh = cf::ghost(g).with(0, low0, high0);
  const std::string text =
      stencil_text(D, static_cast<int>(g), static_cast<int>(low0), static_cast<int>(high0));
  const auto ends = periodic ? cm::split_ends::periodic : cm::split_ends::open;
  const auto bc = conditions<D>(periodic, variant);
  std::size_t points = 1;
  for (std::size_t s : shape) points *= s;
  const std::vector<float> initial = random_floats(points, 11u * D + 3u * g + variant);

  cf::stencil_kernel sweep(
      ctx, "float[" + std::to_string(D) + "D] u, float[" + std::to_string(D) + "D] v", text);

  // The reference: the whole field on this rank's device.
  auto ru = cf::field<float, D>::from_host(q, shape, initial, gh);
  cf::field<float, D> rv(q, shape, gh);
  cf::apply_boundaries(q, ru, bc);
  const std::vector<float> reference_all = ru.to_host(q, cf::with_ghosts);

  cm::distributed_field<float, D> u(q, MPI_COMM_WORLD, shape, gh, ends),
      v(q, MPI_COMM_WORLD, shape, gh, ends);
  u.scatter_from(ranks - 1, rank == ranks - 1 ? initial : std::vector<float>());
  CHECK(u.shape() == shape, "%s: global shape", name);
  CHECK(u.local_shape()[0] == u.rows().count(rank) && u.offset()[0] == u.rows().offset(rank),
        "%s: slab geometry", name);

  // An int field in the same exchange, with other ghost layers and periodic ends.
  std::array<std::size_t, D> wshape = shape;
  std::vector<cl_int> wvalues(points);
  for (std::size_t k = 0; k < points; ++k) wvalues[k] = static_cast<cl_int>(k * 2654435761u);
  auto rw = cf::field<cl_int, D>::from_host(q, wshape, wvalues, cf::ghost(1));
  const cf::boundary_conditions<cl_int, D> wbc(cf::boundary<cl_int>::periodic());
  cf::apply_boundaries(q, rw, wbc);
  cm::distributed_field<cl_int, D> w(q, MPI_COMM_WORLD, wshape, cf::ghost(1),
                                     cm::split_ends::periodic);
  w.scatter_from(0, rank == 0 ? wvalues : std::vector<cl_int>());

  // Exchange both at once: one message per neighbour and direction.
  cm::reset_stats();
  cm::exchange_halos(q, u, w);
  const cm::exchange_stats st = cm::stats();
  // w has periodic ends: every rank has both neighbours (one rank for two ranks).
  const int peers = ranks == 1 ? 0 : ranks == 2 ? 1 : 2;
  // Four agreements (the plan, the reads started, the data read, the end), then one send and
  // one receive per neighbour as messages, or one copy from each neighbour's segment of the
  // node window (all ranks share this machine; the tests' --messages takes messages).
  const bool window = ranks > 1 && cm::current_transport() == cm::transport::automatic;
  CHECK(st.calls == static_cast<std::uint64_t>(4 + (window ? peers : 2 * peers)),
        "%s: %llu MPI calls for %d neighbour(s), expected one message per neighbour and direction",
        name, static_cast<unsigned long long>(st.calls), peers);
  if (window) {  // the same exchange as messages: the bytes this rank sent are the same
    cm::set_transport(cm::transport::messages);
    cm::reset_stats();
    cm::exchange_halos(q, u, w);
    const std::uint64_t by_messages = cm::stats().bytes_sent;
    cm::set_transport(cm::transport::automatic);
    CHECK(st.bytes_sent == by_messages && (peers == 0 || by_messages > 0),
          "%s: %llu bytes sent through the window, %llu as messages", name,
          static_cast<unsigned long long>(st.bytes_sent),
          static_cast<unsigned long long>(by_messages));
  }
  cm::apply_boundaries(q, u, bc);
  cm::apply_boundaries(q, w, wbc);
  {
    const std::vector<float> mine = u.local().to_host(q, cf::with_ghosts);
    const std::vector<float> expected =
        allocation_rows(reference_all, ru, u.offset()[0], u.local().allocation()[0]);
    CHECK(mine.size() == expected.size() && same_bits(mine.data(), expected.data(), mine.size()),
          "%s: the slab's allocation after exchange and boundaries differs from the whole "
          "field's rows",
          name);
    const std::vector<cl_int> wmine = w.local().to_host(q, cf::with_ghosts);
    const std::vector<cl_int> wexpected = allocation_rows(rw.to_host(q, cf::with_ghosts), rw,
                                                          w.offset()[0], w.local().allocation()[0]);
    CHECK(wmine == wexpected, "%s: the int field exchanged with it differs", name);
  }

  // Sweeps: the reference on the whole field; the distributed field exchanging first on even
  // sweeps and applying the boundaries first on odd ones.
  // The last sweep overlaps the exchange: the boundaries, the start of the exchange, the rows
  // that need no halo, the end of the exchange, then the rows next to the halos.
  const std::string rest(D > 1 ? (D > 2 ? ", :, :" : ", :") : "");
  const std::string below = std::to_string(low0), above = std::to_string(high0);
  auto sliced = [&](const std::string& rows) {
    cf::stencil_options o;
    o.slice = cf::iteration_slice(rows + rest);
    return cf::stencil_kernel(
        ctx, "float[" + std::to_string(D) + "D] u, float[" + std::to_string(D) + "D] v", text, o);
  };
  const cf::stencil_kernel inner = sliced(below + ":-" + above), first_rows = sliced(":" + below),
                           last_rows = sliced("-" + above + ":");
  const int sweeps = 4;
  for (int s = 0; s < sweeps; ++s) {
    if (s > 0) cf::apply_boundaries(q, ru, bc);
    sweep(q, ru, rv);
    std::swap(ru, rv);
    if (s == 1) {
      cm::apply_boundaries(q, u, bc);
      cm::exchange_halos(q, u);
    } else if (s == 2) {
      u.exchange_halos(q);
      cm::apply_boundaries(q, u, bc);
    }
    if (s < 3) {
      sweep(q, u.local(), v.local());
    } else {
      cm::apply_boundaries(q, u, bc);
      cm::halo_exchange pending = cm::start_halo_exchange(q, u);
      CHECK(pending.pending(), "%s: the exchange is under way", name);
      inner(q, u.local(), v.local());
      pending.finish();
      CHECK(!pending.pending(), "%s: the exchange is finished", name);
      first_rows(q, u.local(), v.local());
      last_rows(q, u.local(), v.local());
    }
    std::swap(u, v);
  }
  const std::vector<float> expected = ru.to_host(q);
  const std::vector<float> got = u.gather_to(0);
  if (rank == 0)
    CHECK(got.size() == expected.size() && same_bits(got.data(), expected.data(), got.size()),
          "%s: %d sweeps distributed differ from the whole field", name, sweeps);
}

void test_halos(const cf::queue& q) {
  const std::size_t r = static_cast<std::size_t>(ranks);
  for (std::size_t g : {1, 2})
    for (bool periodic : {false, true}) {
      // Uneven slabs (rows not a multiple of the ranks), each at least g rows.
      halo_case<1>(q, {2 * g * r + 3}, g, periodic, 0);
      halo_case<2>(q, {g * r + 1, 7}, g, periodic, static_cast<int>(g));
      halo_case<3>(q, {2 * g * r + 1, 5, 4}, g, periodic, static_cast<int>(g) + 1);
    }
  // Exactly g rows per rank.
  halo_case<2>(q, {2 * r, 3}, 2, true, 2);
  halo_case<3>(q, {r, 3, 3}, 1, false, 0);
  // Different ghost layers below and above in dimension 0.
  halo_case<2>(q, {2 * r + 1, 6}, 1, true, 1, 2, 1);
  halo_case<3>(q, {2 * r + 2, 4, 5}, 1, false, 2, 1, 2);
}

using mpi_test::expect_same_error;

void test_errors(const cf::queue& q) {
  const MPI_Comm world = MPI_COMM_WORLD;
  const std::size_t r = static_cast<std::size_t>(ranks);
  {
    cm::distributed_field<float, 2> empty;
    expect_same_error("empty gather", [&] { empty.gather_to(0); },
                      {"distributed_field::gather_to: an empty field (default-constructed)"});
    expect_same_error("empty halos", [&] { empty.exchange_halos(q); },
                      {"distributed_field::exchange_halos: an empty field"});
    expect_same_error("empty queue", [&] { empty.q(); }, {"distributed_field::q: an empty field"});
  }
  if (ranks > 1) {
    expect_same_error("ranks without rows",
                      [&] {
                        cm::distributed_field<float, 2> f(q, world, {r - 1, 8}, cf::ghost(1));
                      },
                      {"distributed_field<float, 2>", "holds no rows", "use fewer ranks"});
    expect_same_error(
        "slabs thinner than the ghosts",
        [&] {
          cm::distributed_field<float, 3> f(q, world, {2 * r - 1, 4, 4}, cf::ghost(2));
        },
        {"distributed_field<float, 3>", "fewer than its 2 ghost layers"});
    expect_same_error("shape",
                      [&] {
                        cm::distributed_field<float, 2> f(q, world, {8, rank == 1 ? 5u : 6u});
                      },
                      {"ranks disagree", "8x6", "rank 1: distributed_field<float, 2> 8x5"});
    expect_same_error(
        "element type",
        [&] {
          if (rank == ranks - 1)
            cm::distributed_field<cl_int, 2> f(q, world, {8, 6});
          else
            cm::distributed_field<float, 2> f(q, world, {8, 6});
        },
        {"ranks disagree", "distributed_field<int, 2>", "distributed_field<float, 2>"});
    expect_same_error(
        "ghost layers",
        [&] { cm::distributed_field<float, 1> f(q, world, {40}, cf::ghost(rank == 0 ? 2 : 1)); },
        {"ranks disagree", "ghost 2:2", "ghost 1:1"});
    cm::distributed_field<float, 2> a(q, world, {4 * r, 6}, cf::ghost(1));
    cm::distributed_field<float, 2> b(q, world, {4 * r, 6}, cf::ghost(1), cm::split_ends::periodic);
    expect_same_error(
        "fields of an exchange",
        [&] {
          if (rank == 0)
            cm::exchange_halos(q, a);
          else
            cm::exchange_halos(q, a, b);
        },
        {"ranks disagree", "exchange_halos of 1 field", "exchange_halos of 2 fields"});
    expect_same_error("scatter root", [&] { a.scatter_from(ranks, {}); },
                      {"root " + std::to_string(ranks) + " is not a rank"});
  }
  // One rank: a slab thinner than its ghost layers with periodic ends (it is its own neighbour).
  if (ranks == 1)
    expect_same_error("one rank, periodic, thin",
                      [&] {
                        cm::distributed_field<float, 1> f(q, world, {1}, cf::ghost(2),
                                                          cm::split_ends::periodic);
                      },
                      {"holds 1 row", "fewer than its 2 ghost layers"});
  expect_same_error("zero dimension",
                    [&] {
                      cm::distributed_field<float, 2> f(q, world, {4 * r, 0});
                    },
                    {"dimension 1 of the shape", "is 0"});
  {
    cm::distributed_field<float, 2> open(q, world, {2 * r, 3}, cf::ghost(1));
    expect_same_error("periodic condition, open ends",
                      [&] {
                        cm::apply_boundaries(
                            q, open,
                            cf::boundary_conditions<float, 2>(cf::boundary<float>::periodic()));
                      },
                      {"open ends, but its condition is periodic"});
  }
  // The ranks are still in step: a correct exchange works.
  cm::distributed_field<float, 1> f(q, world, {3 * r}, cf::ghost(1), cm::split_ends::periodic);
  std::vector<float> host(3 * r);
  for (std::size_t k = 0; k < host.size(); ++k) host[k] = static_cast<float>(k);
  f.scatter_from(0, rank == 0 ? host : std::vector<float>());
  cm::exchange_halos(q, f);
  const std::vector<float> all = f.local().to_host(q, cf::with_ghosts);
  const float below = host[(f.offset()[0] + host.size() - 1) % host.size()];
  const float above = host[(f.offset()[0] + 3) % host.size()];
  CHECK(all.front() == below && all.back() == above,
        "after the errors: ghosts %g %g, expected %g %g", all.front(), all.back(), below, above);
}

}  // namespace

int main(int argc, char** argv) {
  return mpi_test::run_tests(argc, argv, "clforge::mpi field tests",
                             {{"halos", test_halos}, {"errors", test_errors}});
}
