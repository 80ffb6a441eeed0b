// SPDX-License-Identifier: MIT
// What the clforge::mpi test programs share: the rank, CHECK (counted on every rank), the loop
// that runs named tests and lets the failures of all ranks decide every rank's exit code, the
// check that every rank got the same error message, arrays scattered and gathered whole, and
// the sorts' reference order.
#pragma once

#include <clforge/clforge.hpp>
#include <clforge/mpi.hpp>

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

namespace mpi_test {

inline int rank = 0, ranks = 1;
inline int failures = 0, checks = 0;

#define CHECK(cond, ...)                                                                      \
  do {                                                                                        \
    ++mpi_test::checks;                                                                       \
    if (!(cond)) {                                                                            \
      ++mpi_test::failures;                                                                   \
      std::printf("[rank %d] FAILED %s:%d: %s: ", mpi_test::rank, __FILE__, __LINE__, #cond); \
      std::printf(__VA_ARGS__);                                                               \
      std::printf("\n");                                                                      \
    }                                                                                         \
  } while (0)

/// True when every rank passed the same `message`; rank 0 prints the ones that differ under
/// `name`. Collective over MPI_COMM_WORLD.
inline bool same_on_every_rank(const char* name, const std::string& message) {
  int length = static_cast<int>(message.size());
  std::vector<int> lengths(static_cast<std::size_t>(ranks));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(static_cast<std::size_t>(ranks), 0);
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string all(rank == 0 ? offsets[ranks - 1] + lengths[ranks - 1] : 0, '\0');
  MPI_Gatherv(message.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
              MPI_CHAR, 0, MPI_COMM_WORLD);
  int same = 1;
  if (rank == 0)
    for (int r = 1; r < ranks; ++r)
      if (all.compare(offsets[r], lengths[r], message) != 0) {
        std::printf("[rank 0] %s: rank %d's message differs: %s\n", name, r,
                    all.substr(offsets[r], lengths[r]).c_str());
        same = 0;
      }
  MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return same != 0;
}

/// Runs `call`, which must throw clforge::error on this rank with every part in `parts`, and
/// checks that every rank got exactly the same message; rank 0 prints the case. Collective.
inline void expect_same_error(const char* name, const std::function<void()>& call,
                              const std::vector<std::string>& parts) {
  const double start = MPI_Wtime();
  std::string message;
  try {
    call();
    message = "(no error)";
  } catch (const clforge::error& e) {
    message = e.what();
  }
  const int before = failures;
  for (const auto& p : parts)
    CHECK(message.find(p) != std::string::npos, "%s: message lacks \"%s\": %s", name, p.c_str(),
          message.c_str());
  CHECK(same_on_every_rank(name, message), "%s: the ranks got different messages", name);
  if (rank == 0)
    std::printf("[%s] %-28s %.3f s: %s\n", failures == before ? "  ok  " : "FAILED", name,
                MPI_Wtime() - start, message.c_str());
}

/// `host`, as rank `root` holds it, scattered over the ranks of MPI_COMM_WORLD in blocks.
template <class T>
clforge::mpi::distributed_array<T> scattered(const clforge::queue& q, const std::vector<T>& host,
                                             int root) {
  clforge::mpi::distributed_array<T> x(q, MPI_COMM_WORLD, host.size());
  x.scatter_from(root, host);
  return x;
}

/// The whole array on every rank: gather_to(0) then a broadcast, so every rank compares the
/// whole result. Collective.
template <class T>
std::vector<T> everywhere(const clforge::mpi::distributed_array<T>& x) {
  std::vector<T> all = x.gather_to(0);
  all.resize(x.size());
  MPI_Bcast(all.data(), static_cast<int>(all.size() * sizeof(T)), MPI_BYTE, 0, MPI_COMM_WORLD);
  return all;
}

/// The reference order: clforge::sort's (floating point: -0.0 before +0.0, NaNs equal and last).
template <class K>
bool key_less(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
    if (a == 0 && b == 0) return std::signbit(a) && !std::signbit(b);
  }
  return a < b;
}

/// Equal lengths and bytes (NaNs and signed zeros told apart).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

struct test {
  const char* name;
  void (*run)(const clforge::queue&);
};

/// MPI_Init, a queue on the rank's device (context_for_rank), each test with its time and
/// whether any rank failed in it, the totals, MPI_Finalize; returns the exit code, the same on
/// every rank. `banner` (rank 0 prints it with the device) may be null. The argument
/// `--messages` makes the exchanges send MPI messages (clforge::mpi::transport::messages).
inline int run_tests(int argc, char** argv, const char* banner, std::initializer_list<test> tests) {
  MPI_Init(&argc, &argv);
  for (int k = 1; k < argc; ++k)
    if (std::string(argv[k]) == "--messages")
      clforge::mpi::set_transport(clforge::mpi::transport::messages);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  try {
    clforge::context ctx = clforge::mpi::context_for_rank(MPI_COMM_WORLD);
    clforge::queue q(ctx);
    const int local_rank = clforge::mpi::node_local_rank(MPI_COMM_WORLD);
    if (rank == 0 && banner)
      std::printf("%s on %d rank(s), node-local rank %d on %s\n", banner, ranks, local_rank,
                  ctx.info().name.c_str());
    for (const test& t : tests) {
      const int before = failures;
      const double start = MPI_Wtime();
      t.run(q);
      int failed_here = failures - before, failed_total = 0;
      MPI_Allreduce(&failed_here, &failed_total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      if (rank == 0)
        std::printf("[%s] %-24s %.2f s\n", failed_total ? "FAILED" : "  ok  ", t.name,
                    MPI_Wtime() - start);
    }
  } catch (const std::exception& e) {
    std::printf("[rank %d] exception: %s\n", rank, e.what());
    ++failures;
    // The others may wait in a collective: end the job rather than hang.
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int total = 0, all_checks = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&checks, &all_checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%s: %d checks over %d rank(s), %d failed\n", total ? "FAILED" : "PASSED",
                all_checks, ranks, total);
  MPI_Finalize();
  return total ? 1 : 0;
}

}  // namespace mpi_test
