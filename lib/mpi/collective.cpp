// SPDX-License-Identifier: MIT
// clforge::mpi: the agreement protocol every collective call ends its steps with, the MPI
// exchanges in elements, and what they cost (stats).
#include "clforge/mpi/collective.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "check_mpi.hpp"
#include "clforge/error.hpp"
#include "clforge/mpi/distributed_array.hpp"
#include "clforge/mpi/environment.hpp"

namespace clforge::mpi {

namespace detail {
namespace {

std::mutex stats_mutex;
exchange_stats totals;

/// Adds the time from its construction to its destruction (one MPI call) to the totals.
class timed_exchange {
 public:
  explicit timed_exchange(std::uint64_t bytes) : bytes_(bytes), start_(MPI_Wtime()) {}
  ~timed_exchange() {
    const double elapsed = MPI_Wtime() - start_;
    std::lock_guard<std::mutex> lock(stats_mutex);
    totals.seconds += elapsed;
    totals.calls += 1;
    totals.bytes_sent += bytes_;
  }

 private:
  std::uint64_t bytes_;
  double start_;
};

/// Elements of `size` bytes as one MPI type, so counts are in elements (MPI counts are int).
MPI_Datatype element_type(std::size_t size) {
  static std::mutex mutex;
  static std::map<std::size_t, MPI_Datatype> types;  // freed by MPI_Finalize
  std::lock_guard<std::mutex> lock(mutex);
  auto it = types.find(size);
  if (it != types.end()) return it->second;
  MPI_Datatype t;
  check_mpi(MPI_Type_contiguous(static_cast<int>(size), MPI_BYTE, &t), "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&t), "MPI_Type_commit");
  types.emplace(size, t);
  return t;
}

std::vector<int> as_int(const std::vector<std::size_t>& v) {
  std::vector<int> out(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (v[k] > static_cast<std::size_t>(INT_MAX))
      throw error("clforge::mpi: " + std::to_string(v[k]) +
                  " elements in one message exceed MPI's int counts");
    out[k] = static_cast<int>(v[k]);
  }
  return out;
}

/// The fixed-size record every rank contributes to an agreement.
struct descriptor {
  char what[80];
  std::uint64_t fingerprint;
  std::uint64_t length;
  std::uint32_t failed;
  std::uint32_t has_length;
};

bool same_call(const descriptor& a, const descriptor& b) {
  return std::strncmp(a.what, b.what, sizeof a.what) == 0 && a.fingerprint == b.fingerprint &&
         a.length == b.length && a.has_length == b.has_length;
}

std::string describe(const descriptor& d) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(d.fingerprint));
  std::string s(d.what, strnlen(d.what, sizeof d.what));
  if (d.has_length) s += " over " + std::to_string(d.length) + " elements";
  return s + " (fingerprint " + hex + ")";
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t k = 0; k < ranks.size(); ++k) s += (k ? ", " : "") + std::to_string(ranks[k]);
  return s;
}

}  // namespace

std::uint64_t fingerprint(std::initializer_list<std::string_view> parts) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (std::string_view p : parts) {
    for (char c : p) mix(static_cast<unsigned char>(c));
    mix(0xff);  // separator: ("ab", "c") and ("a", "bc") differ
  }
  return h;
}

namespace {
/// MPI aborts the job on a null communicator or before MPI_Init; say what is wrong instead.
void require_usable(MPI_Comm comm) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw error(std::string("clforge::mpi: MPI is ") +
                (finalized ? "already finalized" : "not initialized (call MPI_Init first)"));
  if (comm == MPI_COMM_NULL)
    throw error(
        "clforge::mpi: the communicator is MPI_COMM_NULL (a default-constructed "
        "distributed_array?)");
}
}  // namespace

int comm_rank(MPI_Comm comm) {
  require_usable(comm);
  int r = 0;
  check_mpi(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}
int comm_size(MPI_Comm comm) {
  require_usable(comm);
  int s = 0;
  check_mpi(MPI_Comm_size(comm, &s), "MPI_Comm_size");
  return s;
}

void agree(MPI_Comm comm, const call_info& info, const std::string* failure) {
  descriptor mine{};
  std::strncpy(mine.what, info.what.c_str(), sizeof mine.what - 1);
  mine.fingerprint = info.fingerprint;
  mine.length = info.length;
  mine.failed = failure ? 1 : 0;
  mine.has_length = info.has_length ? 1 : 0;
  const int ranks = comm_size(comm);
  std::vector<descriptor> all(static_cast<std::size_t>(ranks));
  {
    timed_exchange t(sizeof mine * static_cast<std::uint64_t>(ranks - 1));
    check_mpi(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm),
              "MPI_Allgather");
  }

  // Disagreement first: the ranks may be in different calls, so nothing more is exchanged.
  bool all_same = true;
  for (const descriptor& d : all) all_same = all_same && same_call(d, all[0]);
  if (!all_same) {
    std::string message = "clforge::mpi: the ranks disagree on a collective call:";
    std::vector<bool> listed(all.size(), false);
    for (std::size_t r = 0; r < all.size(); ++r) {
      if (listed[r]) continue;
      std::vector<int> group;
      for (std::size_t s = r; s < all.size(); ++s)
        if (!listed[s] && same_call(all[s], all[r])) {
          listed[s] = true;
          group.push_back(static_cast<int>(s));
        }
      message += (r ? "; " : " ") + rank_list(group) + ": " + describe(all[r]);
    }
    throw error(message);
  }

  std::vector<int> failed;
  for (int r = 0; r < ranks; ++r)
    if (all[r].failed) failed.push_back(r);
  if (failed.empty()) return;
  // The first failed rank's message goes to everyone, so every rank throws the same text.
  const int root = failed[0];
  std::string text = failure && comm_rank(comm) == root ? *failure : std::string();
  unsigned long long size = text.size();
  check_mpi(MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, root, comm), "MPI_Bcast");
  text.resize(size);
  check_mpi(MPI_Bcast(text.data(), static_cast<int>(size), MPI_CHAR, root, comm), "MPI_Bcast");
  std::string message = "clforge::mpi::" + info.what + ": rank " + std::to_string(root) + " of " +
                        std::to_string(ranks) + " failed: " + text;
  if (failed.size() > 1) message += " (" + rank_list(failed) + " failed; the first one's message)";
  throw error(message);
}

void allgather(MPI_Comm comm, const void* mine, void* all, std::size_t element_size) {
  MPI_Datatype t = element_type(element_size);
  timed_exchange timing(element_size * static_cast<std::uint64_t>(comm_size(comm) - 1));
  check_mpi(MPI_Allgather(mine, 1, t, all, 1, t, comm), "MPI_Allgather");
}

void check_counts(const char* who, const std::vector<std::size_t>& counts) {
  for (std::size_t c : counts)
    if (c > static_cast<std::size_t>(INT_MAX))
      throw error(std::string(who) + ": a block of " + std::to_string(c) +
                  " elements exceeds MPI's int counts (use more ranks)");
}

void scatterv(MPI_Comm comm, int root, const void* send, const std::vector<std::size_t>& counts,
              const std::vector<std::size_t>& offsets, void* recv, std::size_t element_size) {
  MPI_Datatype t = element_type(element_size);
  const std::vector<int> c = as_int(counts), o = as_int(offsets);
  const int rank = comm_rank(comm);
  const int mine = c[static_cast<std::size_t>(rank)];
  std::uint64_t sent = 0;
  if (rank == root)
    for (std::size_t k = 0; k < counts.size(); ++k)
      if (static_cast<int>(k) != rank) sent += counts[k] * element_size;
  timed_exchange timing(sent);
  check_mpi(MPI_Scatterv(send, c.data(), o.data(), t, recv, mine, t, root, comm), "MPI_Scatterv");
}

void gatherv(MPI_Comm comm, int root, const void* send, std::size_t count, void* recv,
             const std::vector<std::size_t>& counts, const std::vector<std::size_t>& offsets,
             std::size_t element_size) {
  MPI_Datatype t = element_type(element_size);
  const std::vector<int> c = as_int(counts), o = as_int(offsets);
  timed_exchange timing(comm_rank(comm) == root ? 0 : count * element_size);
  check_mpi(MPI_Gatherv(send, static_cast<int>(count), t, recv, c.data(), o.data(), t, root, comm),
            "MPI_Gatherv");
}

void record_exchange(double seconds, std::uint64_t calls, std::uint64_t bytes_sent) {
  std::lock_guard<std::mutex> lock(stats_mutex);
  totals.seconds += seconds;
  totals.calls += calls;
  totals.bytes_sent += bytes_sent;
}

void allreduce_sum(MPI_Comm comm, std::uint64_t* values, std::size_t count) {
  if (count > static_cast<std::size_t>(INT_MAX))
    throw error("clforge::mpi: " + std::to_string(count) + " sums exceed MPI's int counts");
  timed_exchange timing(count * sizeof(std::uint64_t));
  check_mpi(
      MPI_Allreduce(MPI_IN_PLACE, values, static_cast<int>(count), MPI_UINT64_T, MPI_SUM, comm),
      "MPI_Allreduce");
}

to_blocks_plan plan_to_blocks(const std::vector<std::uint64_t>& counts,
                              const std::vector<std::size_t>& block_offsets,
                              const std::vector<std::size_t>& block_counts, int rank) {
  // Element k (rank order) goes to the block holding global index k: rank s's elements are
  // [first[s], first[s] + counts[s]); this rank's block is [offset, offset + size).
  const std::size_t ranks = counts.size(), me = static_cast<std::size_t>(rank);
  std::vector<std::size_t> first(ranks + 1, 0);
  for (std::size_t s = 0; s < ranks; ++s) first[s + 1] = first[s] + counts[s];
  to_blocks_plan p;
  p.send_counts.assign(ranks, 0);
  p.send_offsets.assign(ranks, 0);
  p.recv_counts.assign(ranks, 0);
  p.recv_offsets.assign(ranks, 0);
  const std::size_t my_first = block_offsets[me], my_end = my_first + block_counts[me];
  for (std::size_t d = 0; d < ranks; ++d) {
    const std::size_t lo = std::max(first[me], block_offsets[d]),
                      hi = std::min(first[me + 1], block_offsets[d] + block_counts[d]);
    if (hi > lo) {
      p.send_counts[d] = hi - lo;
      p.send_offsets[d] = lo - first[me];
    }
    const std::size_t rlo = std::max(first[d], my_first), rhi = std::min(first[d + 1], my_end);
    if (rhi > rlo) {
      p.recv_counts[d] = rhi - rlo;
      p.recv_offsets[d] = rlo - my_first;
    }
  }
  p.total = first[ranks];
  p.received = p.total > my_first ? std::min(p.total, my_end) - my_first : 0;
  return p;
}

void throw_inconsistent_layouts(const std::string& who) {
  throw error("clforge::mpi::" + who +
              ": the distributed_array arguments have different lengths or layouts");
}

}  // namespace detail

exchange_stats stats() {
  std::lock_guard<std::mutex> lock(detail::stats_mutex);
  return detail::totals;
}
void reset_stats() {
  std::lock_guard<std::mutex> lock(detail::stats_mutex);
  detail::totals = {};
}

}  // namespace clforge::mpi
