// SPDX-License-Identifier: MIT
// clforge::mpi: the agreement protocol, the MPI exchanges and device selection per rank.
#include "clforge/mpi.hpp"

#include <cctype>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <set>

#include "clforge/device.hpp"

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

[[noreturn]] void throw_mpi_error(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  throw error(std::string("clforge::mpi: ") + call + " failed: " + std::string(text, length) +
              " (" + std::to_string(code) + ")");
}
void check_mpi(int code, const char* call) {
  if (code != MPI_SUCCESS) throw_mpi_error(call, code);
}

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

void alltoallv(MPI_Comm comm, const void* send, const std::vector<std::size_t>& send_counts,
               const std::vector<std::size_t>& send_offsets, void* recv,
               const std::vector<std::size_t>& recv_counts,
               const std::vector<std::size_t>& recv_offsets, std::size_t element_size) {
  MPI_Datatype t = element_type(element_size);
  const std::vector<int> sc = as_int(send_counts), so = as_int(send_offsets),
                         rc = as_int(recv_counts), ro = as_int(recv_offsets);
  const int rank = comm_rank(comm);
  std::uint64_t sent = 0;
  for (std::size_t k = 0; k < send_counts.size(); ++k)
    if (static_cast<int>(k) != rank) sent += send_counts[k] * element_size;
  timed_exchange timing(sent);
  check_mpi(MPI_Alltoallv(send, sc.data(), so.data(), t, recv, rc.data(), ro.data(), t, comm),
            "MPI_Alltoallv");
}

void throw_inconsistent_layouts(const std::string& who) {
  throw error("clforge::mpi::" + who +
              ": the distributed_array arguments have different lengths or layouts");
}

namespace {
bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
}  // namespace

std::string replace_identifier(const std::string& text, const std::string& name,
                               const std::string& replacement) {
  std::string out;
  std::size_t k = 0;
  while (k < text.size()) {
    if (identifier_char(text[k])) {
      std::size_t end = k;
      while (end < text.size() && identifier_char(text[end])) ++end;
      const std::string word = text.substr(k, end - k);
      out += word == name ? replacement : word;
      k = end;
    } else {
      out += text[k++];
    }
  }
  return out;
}

bool uses_identifier(const std::string& text, const std::string& name) {
  return replace_identifier(text, name, "\x01") != text;
}

std::string scan_output_across_ranks(const std::string& type, const std::string& output) {
  // The user's statement sees the global values under the usual names; the local scan's item,
  // prev_item and last_item are renamed away so its own last_item pass is not triggered.
  std::string user = replace_identifier(output, "item", "clforge_mpi_item");
  user = replace_identifier(user, "prev_item", "clforge_mpi_prev");
  user = replace_identifier(user, "last_item", "clforge_mpi_last");
  std::string s = "{ ";
  if (uses_identifier(user, "clforge_mpi_item"))
    s += "const " + type + " clforge_mpi_item = clforge_mpi_op(cfmpi_carry[0], item); ";
  if (uses_identifier(user, "clforge_mpi_prev"))
    s += "const " + type + " clforge_mpi_prev = clforge_mpi_op(cfmpi_carry[0], prev_item); ";
  if (uses_identifier(user, "clforge_mpi_last"))
    s += "const " + type + " clforge_mpi_last = cfmpi_carry[1]; ";
  return s + "\n" + user + ";\n}";  // the statement may come without its semicolon
}

scan_options scan_part_options(const scan_options& options, const std::string& suffix,
                               const std::string& type, const std::string& scan) {
  scan_options o = options;
  o.name = (options.name.empty() ? std::string("scan") : options.name) + suffix;
  // The carry-in joins on the left: the ranks before come first, so order is kept.
  o.preamble = options.preamble + "\nstatic inline " + type + " clforge_mpi_op(" + type + " a, " +
               type + " b) {\n  return (" + scan + ");\n}\n";
  return o;
}

std::size_t exact_row_shift(const std::vector<const std::vector<point2f>*>& polygons,
                            std::size_t first_row) {
  // y - t is exact in float when some float f has f + t == y exactly; checked with the exact
  // error of the double sum (TwoSum). Non-finite y pass through (polygon_mask rejects NaN).
  auto exact = [&](std::size_t t) {
    const double td = static_cast<double>(t);
    for (const auto* p : polygons)
      for (const point2f& v : *p) {
        if (!std::isfinite(v.y)) continue;
        const float f = static_cast<float>(static_cast<double>(v.y) - td);
        const double a = f, s = a + td, bb = s - a;
        const double err = (a - (s - bb)) + (td - bb);
        if (s != static_cast<double>(v.y) || err != 0.0) return false;
      }
    return true;
  };
  if (exact(first_row)) return first_row;
  // Moving up by t <= y is exact for every vertex at or below row t: try the rows of the
  // vertices above the block, nearest first; 0 always works.
  std::set<std::size_t, std::greater<>> candidates{0};
  for (const auto* p : polygons)
    for (const point2f& v : *p)
      if (std::isfinite(v.y) && v.y > 0 && v.y < static_cast<float>(first_row))
        candidates.insert(static_cast<std::size_t>(std::floor(v.y)));
  for (std::size_t t : candidates)
    if (exact(t)) return t;
  return 0;
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

int node_local_rank(MPI_Comm comm) {
  MPI_Comm node;
  detail::check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, detail::comm_rank(comm),
                                        MPI_INFO_NULL, &node),
                    "MPI_Comm_split_type");
  const int local = detail::comm_rank(node);
  MPI_Comm_free(&node);
  return local;
}

context context_for_rank(MPI_Comm comm) {
  const int local = node_local_rank(comm);
  context ctx;
  detail::collective_step(comm, {"context_for_rank", 0, 0, false}, [&] {
    const char* spec = std::getenv("CLFORGE_DEVICE");
    if (spec && *spec) {
      ctx = context::create_default();
      return;
    }
    std::vector<device_entry> gpus;
    for (device_entry& d : list_devices())
      if (d.info.is_gpu()) gpus.push_back(std::move(d));
    if (gpus.empty()) {
      ctx = context::create_default();
      return;
    }
    ctx = context(gpus[static_cast<std::size_t>(local) % gpus.size()].device);
  });
  return ctx;
}

}  // namespace clforge::mpi
