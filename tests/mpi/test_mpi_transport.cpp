// SPDX-License-Identifier: MIT
// How clforge::mpi's exchanges move data (the node window where every rank shares this machine,
// MPI messages otherwise), under mpirun -np 2..4, against plain host references on random data:
// - two and three halo exchanges pending at once, finished in start order and in reverse order
//   (the same on every rank, as halo.hpp asks), ghost layers filled with a sentinel just before
//   (on the device, not waited for), the right values after; the first exchange takes the window,
//   the others messages (counted by clforge::mpi::stats);
// - a rank that only receives (ghost layers on one side only) gets the neighbour's rows even
//   where a kernel enqueued on the queue before the exchange still writes its ghost layer;
// - sort and sort_by_key on sub-communicators (halves, a dup) with growing sizes (the window
//   grows), after MPI_Comm_free and a new split reusing the handle, with empty ranks;
// - ranks that choose different transports (messages then on every rank), switching between
//   calls; keys uint32, int64, float and double with NaN, +-0 and +-inf through both transports;
// - MPI_Finalize with windows still cached on MPI_COMM_WORLD and on an unfreed sub-communicator
//   (the test's timeout is the guard against a hang).
#include <clforge/clforge.hpp>
#include <clforge/mpi.hpp>

#include <mpi.h>

#include "mpi_test.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace cf = clforge;
namespace cm = clforge::mpi;

namespace {

using mpi_test::rank;
using mpi_test::ranks;

const char* transport_name() {
  return cm::current_transport() == cm::transport::messages ? "messages" : "automatic";
}

// Runs `body` once with every rank on automatic and once with every rank on messages, then
// restores the transport the program started with (--messages).
template <class F>
void for_both_transports(F&& body) {
  const cm::transport was = cm::current_transport();
  for (cm::transport t : {cm::transport::automatic, cm::transport::messages}) {
    cm::set_transport(t);
    body();
  }
  cm::set_transport(was);
}

using mpi_test::key_less;
using mpi_test::same_bits;

// ---- halos ------------------------------------------------------------------------------------

// A 2-D field of `rows` x `cols` split over MPI_COMM_WORLD, ghost layers only in dimension 0
// (`low` below, `high` above), whose ghost rows an exchange fills completely.
template <class T>
struct halo_field {
  std::size_t rows, cols, low, high;
  bool periodic;
  std::vector<T> global;  // the interior, the same on every rank
  T sentinel;
  cm::distributed_field<T, 2> f;

  halo_field(const cf::queue& q, std::size_t rows_, std::size_t cols_, std::size_t low_,
             std::size_t high_, bool periodic_, T sentinel_, std::uint32_t seed)
      : rows(rows_), cols(cols_), low(low_), high(high_), periodic(periodic_), sentinel(sentinel_) {
    std::mt19937 rng(seed);
    global.resize(rows * cols);
    for (T& x : global) x = static_cast<T>(std::uniform_int_distribution<int>(-1000, 1000)(rng));
    f = cm::distributed_field<T, 2>(q, MPI_COMM_WORLD, {rows, cols}, cf::ghost().with(0, low, high),
                                    periodic ? cm::split_ends::periodic : cm::split_ends::open);
    f.scatter_from(0, rank == 0 ? global : std::vector<T>());
  }
  // The ghost layers (and everything else) set to the sentinel again, then the interior written
  // back, both enqueued and not waited for: the exchange must read and write after them
  // (`global` outlives the upload).
  void spoil(const cf::queue& q) {
    f.local().fill(q, sentinel);
    const std::size_t n = f.local_shape()[0] * cols;
    if (n > 0)
      f.local().local().write_async(q, global.data() + f.offset()[0] * cols, low * cols, n);
  }
  // This rank's allocation as an exchange leaves it: the interior and every ghost row that has
  // a global row (open ends keep the sentinel outside the field).
  std::vector<T> expected() const {
    const std::size_t mine = f.local_shape()[0], first = f.offset()[0];
    std::vector<T> out((low + mine + high) * cols, sentinel);
    for (std::size_t j = 0; j < low + mine + high; ++j) {
      long long g = static_cast<long long>(first + j) - static_cast<long long>(low);
      const long long n = static_cast<long long>(rows);
      if (periodic) g = ((g % n) + n) % n;
      if (g < 0 || g >= n) continue;
      std::copy_n(global.begin() + g * static_cast<long long>(cols), cols, out.begin() + j * cols);
    }
    return out;
  }
  // Ranks this rank receives from and sends to (dimension 0's neighbours with ghost rows between).
  void peers(int& receives, int& sends) const {
    std::vector<int> from, to;
    const int below = rank - 1, above = rank + 1;
    auto wrap = [&](int r) { return periodic ? (r + ranks) % ranks : r; };
    auto add = [&](std::vector<int>& v, int r) {
      if (r >= 0 && r < ranks && r != rank && std::find(v.begin(), v.end(), r) == v.end())
        v.push_back(r);
    };
    if (low > 0) add(from, wrap(below)), add(to, wrap(above));
    if (high > 0) add(from, wrap(above)), add(to, wrap(below));
    receives = static_cast<int>(from.size());
    sends = static_cast<int>(to.size());
  }
  // MPI calls an exchange of this field alone makes: four agreements, then one copy per peer
  // received from (window) or one message per peer and direction.
  std::uint64_t calls(bool window) const {
    int receives = 0, sends = 0;
    peers(receives, sends);
    return 4u + static_cast<std::uint64_t>(window ? receives : receives + sends);
  }
  bool right(const cf::queue& q) const {
    return same_bits(f.local().to_host(q, cf::with_ghosts), expected());
  }
};

template <class T>
T nan_or(T other) {
  if constexpr (std::is_floating_point_v<T>)
    return std::numeric_limits<T>::quiet_NaN();
  else
    return other;
}

// Two and three exchanges pending at once, finished in start order and in reverse order.
void test_pending(const cf::queue& q) {
  const std::size_t r = static_cast<std::size_t>(ranks);
  for_both_transports([&] {
    const bool automatic = cm::current_transport() == cm::transport::automatic;
    halo_field<float> a(q, 3 * r + 1, 37, 1, 1, true, nan_or(0.0f), 1);
    halo_field<cl_int> b(q, 5 * r + 2, 11, 2, 2, false, 0x7eadbeef, 2);
    halo_field<double> c(q, 2 * r + 1, 300, 2, 1, true, nan_or(0.0), 3);
    // Orders 0 and 1: two exchanges, finished in start order and in reverse; 2 and 3: three;
    // 4: three dropped unfinished (their destructors finish them, in reverse order).
    for (int order = 0; order < 5; ++order) {
      a.spoil(q);
      b.spoil(q);
      c.spoil(q);
      cm::reset_stats();
      const bool three = order >= 2, reverse = order % 2 == 1;
      {
        cm::halo_exchange xa = cm::start_halo_exchange(q, a.f);
        cm::halo_exchange xb = cm::start_halo_exchange(q, b.f);
        cm::halo_exchange xc;
        if (three) xc = cm::start_halo_exchange(q, c.f);
        CHECK(xa.pending() && xb.pending() && (!three || xc.pending()), "%s order %d: pending",
              transport_name(), order);
        if (order < 4) {
          if (reverse) {
            if (three) xc.finish();
            xb.finish();
            xa.finish();
          } else {
            xa.finish();
            xb.finish();
            if (three) xc.finish();
          }
          CHECK(!xa.pending() && !xb.pending() && !xc.pending(), "%s order %d: finished",
                transport_name(), order);
        }
      }
      CHECK(a.right(q), "%s order %d: field a's slab differs from the reference", transport_name(),
            order);
      CHECK(b.right(q), "%s order %d: field b's slab differs from the reference", transport_name(),
            order);
      if (three)
        CHECK(c.right(q), "%s order %d: field c's slab differs from the reference",
              transport_name(), order);
      // The first exchange holds the window; the ones pending beside it take messages.
      const std::uint64_t expected =
          a.calls(automatic) + b.calls(false) + (three ? c.calls(false) : 0);
      CHECK(cm::stats().calls == expected, "%s order %d: %llu MPI calls, expected %llu",
            transport_name(), order, static_cast<unsigned long long>(cm::stats().calls),
            static_cast<unsigned long long>(expected));
    }
    // Once they are finished, the window is free again.
    a.spoil(q);
    cm::reset_stats();
    cm::exchange_halos(q, a.f);
    CHECK(a.right(q) && cm::stats().calls == a.calls(automatic), "%s: a lone exchange after",
          transport_name());
  });
}

// A rank with ghost rows on one side only receives without sending. A kernel enqueued before
// the exchange that writes its ghost rows must run before what arrives is written there: the
// kernel waits behind a user event that another thread completes while the exchange is under
// way, so a write of the exchange that does not wait for the queue lands first and is then
// overwritten.
void test_receive_only(const cf::queue& q) {
  const std::size_t r = static_cast<std::size_t>(ranks);
  cf::elementwise_kernel set(q.ctx(), "global float* y, float value", "y[i] = value;");
  for_both_transports([&] {
    for (std::size_t high : {1, 2}) {
      halo_field<float> f(q, 2 * r + 1, 5, 0, high, false, -1.0f, 4 + high);
      f.spoil(q);
      // Every rank's ghost rows above get the sentinel again; rank 0 (it sends nothing) only
      // once the gate opens, while the exchange is under way.
      cl_event gate = nullptr;
      if (rank == 0) {
        cl_int err = CL_SUCCESS;
        gate = clCreateUserEvent(q.ctx().get(), &err);
        CHECK(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
        clEnqueueBarrierWithWaitList(q.get(), 1, &gate, nullptr);
      }
      const std::size_t size = f.f.local().local().size(), ghost_cells = high * f.cols;
      set(q,
          cf::range(static_cast<std::int64_t>(size - ghost_cells), static_cast<std::int64_t>(size)),
          f.f.local().local(), f.sentinel);
      std::thread opener([gate] {
        if (!gate) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        clSetUserEventStatus(gate, CL_COMPLETE);
      });
      cm::exchange_halos(q, f.f);
      opener.join();
      if (gate) clReleaseEvent(gate);
      CHECK(f.right(q), "%s, %zu ghost row(s) above only: the slab differs from the reference",
            transport_name(), high);
    }
  });
}

// ---- sort ------------------------------------------------------------------------------------

// Random keys, the same on every rank; floating point with NaN, +-0 and +-inf mixed in.
template <class K>
std::vector<K> random_keys(std::size_t n, std::uint32_t seed) {
  std::mt19937_64 rng(seed * 7919u + n);
  std::vector<K> v(n);
  for (K& x : v) {
    const std::uint64_t u = rng();
    if constexpr (std::is_floating_point_v<K>) {
      const K special[] = {std::numeric_limits<K>::quiet_NaN(), K(0), -K(0),
                           std::numeric_limits<K>::infinity(), -std::numeric_limits<K>::infinity()};
      x = u % 8 == 0 ? special[(u >> 8) % 5]
                     : static_cast<K>(static_cast<std::int64_t>(u % 2001) - 1000) / K(8);
    } else {
      x = static_cast<K>(u);
      if (u % 4 == 0) x = static_cast<K>(u % 16);  // duplicates
    }
  }
  return v;
}

// The whole array on every rank of `comm`.
template <class T>
std::vector<T> gathered(const cm::distributed_array<T>& x, MPI_Comm comm) {
  std::vector<T> all = x.gather_to(0);
  all.resize(x.size());
  if (!all.empty())
    MPI_Bcast(all.data(), static_cast<int>(all.size() * sizeof(T)), MPI_BYTE, 0, comm);
  return all;
}

// sort and sort_by_key of `n` random keys over `comm` against std::stable_sort.
template <class K>
void sort_case(const cf::queue& q, MPI_Comm comm, const char* comm_name, std::size_t n,
               std::uint32_t seed) {
  int comm_rank = 0;
  MPI_Comm_rank(comm, &comm_rank);
  const std::vector<K> host = random_keys<K>(n, seed);
  std::vector<cl_uint> index(n);
  std::iota(index.begin(), index.end(), 0u);
  std::vector<cl_uint> order = index;
  std::stable_sort(order.begin(), order.end(),
                   [&](cl_uint x, cl_uint y) { return key_less(host[x], host[y]); });
  std::vector<K> sorted(n);
  for (std::size_t k = 0; k < n; ++k) sorted[k] = host[order[k]];
  const std::string what = std::string(cf::type_name<K>()) + " n=" + std::to_string(n) + " on " +
                           comm_name + " (" + transport_name() + ")";

  cm::distributed_array<K> keys(q, comm, n);
  keys.scatter_from(0, comm_rank == 0 ? host : std::vector<K>());
  cm::sort(q, keys);
  CHECK(same_bits(gathered(keys, comm), sorted), "sort %s: differs from std::stable_sort",
        what.c_str());

  cm::distributed_array<K> keys2(q, comm, n);
  cm::distributed_array<cl_uint> values(q, comm, n);
  keys2.scatter_from(0, comm_rank == 0 ? host : std::vector<K>());
  values.scatter_from(0, comm_rank == 0 ? index : std::vector<cl_uint>());
  cm::sort_by_key(q, keys2, values);
  CHECK(same_bits(gathered(keys2, comm), sorted) && gathered(values, comm) == order,
        "sort_by_key %s: differs from std::stable_sort", what.c_str());
}

// Sub-communicators: halves, a dup; sizes from empty ranks to 10^6 elements (the window
// grows); the halves freed and split again the other way into the same handle.
void test_sub_communicators(const cf::queue& q) {
  const std::size_t R = static_cast<std::size_t>(ranks);
  for_both_transports([&] {
    MPI_Comm half = MPI_COMM_NULL, dup = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank < ranks / 2 ? 0 : 1, rank, &half);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    std::uint32_t seed = 100;
    for (std::size_t n : {std::size_t(0), std::size_t(1), R - 1, std::size_t(10),
                          std::size_t(10000), std::size_t(1000000)}) {
      sort_case<cl_uint>(q, half, "a half", n, ++seed);
      if (n <= 10000) sort_case<cl_uint>(q, dup, "a dup", n, ++seed);
    }
    sort_case<float>(q, dup, "a dup", 100000, ++seed);
    MPI_Comm_free(&half);
    // The other halves (odd and even ranks) in the same handle.
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, ranks - rank, &half);
    for (std::size_t n : {std::size_t(3), std::size_t(10000), std::size_t(30000)})
      sort_case<cl_long>(q, half, "a split again", n, ++seed);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
  });
}

// Rank 0 on messages, the others automatic: every exchange takes messages, the answers stay
// right; then switching between calls.
void test_mixed_transports(const cf::queue& q) {
  const cm::transport was = cm::current_transport();
  const std::size_t r = static_cast<std::size_t>(ranks);
  std::uint32_t seed = 300;
  for (int step = 0; step < 4; ++step) {
    // 0: rank 0 messages; 1: all automatic; 2: the last rank messages; 3: all messages.
    const bool messages = (step == 0 && rank == 0) || (step == 2 && rank == ranks - 1) || step == 3;
    cm::set_transport(messages ? cm::transport::messages : cm::transport::automatic);
    const bool window = step == 1;
    sort_case<cl_uint>(q, MPI_COMM_WORLD, "world", 20000, ++seed);
    sort_case<double>(q, MPI_COMM_WORLD, "world", 5000, ++seed);
    halo_field<float> f(q, 2 * r + 3, 17, 1, 2, true, nan_or(0.0f), ++seed);
    f.spoil(q);
    cm::reset_stats();
    cm::exchange_halos(q, f.f);
    CHECK(f.right(q), "step %d (%s): the slab differs from the reference", step, transport_name());
    CHECK(cm::stats().calls == f.calls(window), "step %d: %llu MPI calls, expected %llu (%s)", step,
          static_cast<unsigned long long>(cm::stats().calls),
          static_cast<unsigned long long>(f.calls(window)), window ? "window" : "messages");
  }
  // The transport an exchange took at its start stays until it finishes: rank 0 switches to
  // messages while the window's exchange is pending (the one started then takes messages on
  // every rank), and back.
  cm::set_transport(cm::transport::automatic);
  halo_field<float> a(q, 3 * r + 2, 9, 2, 1, true, nan_or(0.0f), ++seed);
  halo_field<float> b(q, 2 * r + 1, 13, 1, 1, false, nan_or(0.0f), ++seed);
  a.spoil(q);
  b.spoil(q);
  cm::reset_stats();
  cm::halo_exchange xa = cm::start_halo_exchange(q, a.f);
  if (rank == 0) cm::set_transport(cm::transport::messages);
  cm::halo_exchange xb = cm::start_halo_exchange(q, b.f);
  sort_case<float>(q, MPI_COMM_WORLD, "world, an exchange pending", 3000, ++seed);
  cm::set_transport(cm::transport::automatic);
  sort_case<cl_uint>(q, MPI_COMM_WORLD, "world, an exchange pending", 3000, ++seed);
  cm::reset_stats();
  xa.finish();
  xb.finish();
  CHECK(a.right(q) && b.right(q), "switching while pending: the slabs differ from the reference");
  // Two agreements of each exchange (the plan, the reads started) came before the reset.
  const std::uint64_t expected = a.calls(true) + b.calls(false) - 4;
  CHECK(cm::stats().calls == expected,
        "switching while pending: %llu MPI calls, expected %llu (window, then messages)",
        static_cast<unsigned long long>(cm::stats().calls),
        static_cast<unsigned long long>(expected));
  cm::set_transport(was);
}

// Every key type through both transports, on the world and on a dup.
void test_key_types(const cf::queue& q) {
  const std::size_t R = static_cast<std::size_t>(ranks);
  for_both_transports([&] {
    std::uint32_t seed = 500;
    for (std::size_t n : {std::size_t(0), R - 1, std::size_t(257), std::size_t(40000)}) {
      sort_case<cl_uint>(q, MPI_COMM_WORLD, "world", n, ++seed);
      sort_case<cl_long>(q, MPI_COMM_WORLD, "world", n, ++seed);
      sort_case<float>(q, MPI_COMM_WORLD, "world", n, ++seed);
      sort_case<double>(q, MPI_COMM_WORLD, "world", n, ++seed);
    }
  });
}

// Left for MPI_Finalize: a window on MPI_COMM_WORLD (the tests above) and one on a
// sub-communicator that is never freed.
void test_left_for_finalize(const cf::queue& q) {
  MPI_Comm kept = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &kept);
  cm::set_transport(cm::transport::automatic);
  sort_case<cl_uint>(q, kept, "a communicator left to MPI_Finalize", 5000, 700);
  sort_case<cl_uint>(q, MPI_COMM_WORLD, "world", 5000, 701);
}

}  // namespace

int main(int argc, char** argv) {
  return mpi_test::run_tests(argc, argv, "clforge::mpi transport tests",
                             {{"pending exchanges", test_pending},
                              {"receive-only rank", test_receive_only},
                              {"sub-communicators", test_sub_communicators},
                              {"mixed transports", test_mixed_transports},
                              {"key types", test_key_types},
                              {"left for finalize", test_left_for_finalize}});
}
