// SPDX-License-Identifier: MIT
// The node window (node_window.hpp): an MPI-3 shared-memory window per communicator, kept with
// the communicator (an attribute) and freed when it is freed, or at MPI_Finalize (an attribute
// of MPI_COMM_SELF, whose deletion MPI runs first). Windows are freed in the order they were
// made, the same on every rank, because freeing is collective.
#include "node_window.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "check_mpi.hpp"
#include "clforge/error.hpp"
#include "clforge/mpi/environment.hpp"

namespace clforge::mpi::detail {

struct node_window_state {
  MPI_Comm node = MPI_COMM_NULL;  // the communicator's ranks on this node, in its rank order
  bool usable = false;            // every rank of the communicator is on this node
  bool busy = false;              // held by a lease
  bool freed = false;
  MPI_Win win = MPI_WIN_NULL;
  std::size_t segment = 0;
  std::vector<unsigned char*> segments;
  // Buffers over the segments per context: creating them lets the driver pin the pages (NVIDIA's
  // does), so copies between the device and the window run at pinned speed. Never enqueued.
  std::vector<std::pair<cl_context, std::vector<cl_mem>>> registrations;

  void release_window() {
    for (auto& r : registrations)
      for (cl_mem m : r.second) clReleaseMemObject(m);
    registrations.clear();
    if (win != MPI_WIN_NULL) {
      MPI_Win_unlock_all(win);
      MPI_Win_free(&win);
    }
    win = MPI_WIN_NULL;
    segment = 0;
    segments.clear();
  }
  void free_all() {
    if (freed) return;
    freed = true;
    release_window();
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  }
};

namespace {

std::mutex registry_mutex;
// Every state ever made, in order; freed ones stay (a communicator's attribute may still name
// one until MPI deletes it).
std::vector<std::unique_ptr<node_window_state>>& registry() {
  static std::vector<std::unique_ptr<node_window_state>> all;
  return all;
}
int comm_keyval = MPI_KEYVAL_INVALID;

int free_with_comm(MPI_Comm, int, void* value, void*) {
  static_cast<node_window_state*>(value)->free_all();
  return MPI_SUCCESS;
}
int free_at_finalize(MPI_Comm, int, void*, void*) {
  std::vector<node_window_state*> live;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (auto& s : registry()) live.push_back(s.get());
  }
  for (node_window_state* s : live) s->free_all();
  return MPI_SUCCESS;
}

// The communicator's state, made on first use (collective then: MPI_Comm_split_type).
node_window_state* state_of(MPI_Comm comm) {
  // Once per process, also when threads make their first exchanges on two communicators at once.
  static std::once_flag keyvals_made;
  std::call_once(keyvals_made, [] {
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_with_comm, &comm_keyval, nullptr),
              "MPI_Comm_create_keyval");
    int self_keyval = MPI_KEYVAL_INVALID;
    check_mpi(
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_at_finalize, &self_keyval, nullptr),
        "MPI_Comm_create_keyval");
    check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, nullptr), "MPI_Comm_set_attr");
  });
  void* value = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, comm_keyval, &value, &found), "MPI_Comm_get_attr");
  if (found) return static_cast<node_window_state*>(value);
  auto s = std::make_unique<node_window_state>();
  int rank = 0, size = 0, node_size = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &s->node),
            "MPI_Comm_split_type");
  check_mpi(MPI_Comm_size(s->node, &node_size), "MPI_Comm_size");
  // Ranks on other nodes: messages for everyone (mixing both per peer is left for later).
  int all_here = node_size == size ? 1 : 0;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &all_here, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  s->usable = all_here == 1;
  MPI_Comm_set_errhandler(s->node, MPI_ERRORS_RETURN);
  node_window_state* raw = s.get();
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry().push_back(std::move(s));
  }
  check_mpi(MPI_Comm_set_attr(comm, comm_keyval, raw), "MPI_Comm_set_attr");
  return raw;
}

// A new window of `bytes` per rank; false on every rank where any rank could not make it.
bool grow(node_window_state& s, std::size_t bytes) {
  s.release_window();
  unsigned char* mine = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  const int made =
      MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, s.node, &mine, &win);
  int ok = made == MPI_SUCCESS ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, s.node);
  if (!ok) {
    if (made == MPI_SUCCESS) MPI_Win_free(&win);
    s.usable = false;  // messages from now on
    return false;
  }
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  int ranks = 0;
  MPI_Comm_size(s.node, &ranks);
  s.segments.assign(static_cast<std::size_t>(ranks), nullptr);
  for (int r = 0; r < ranks; ++r) {
    MPI_Aint size = 0;
    int unit = 0;
    void* base = nullptr;
    MPI_Win_shared_query(win, r, &size, &unit, &base);
    s.segments[static_cast<std::size_t>(r)] = static_cast<unsigned char*>(base);
  }
  s.win = win;
  s.segment = bytes;
  return true;
}

void register_with(node_window_state& s, cl_context ctx) {
  for (const auto& r : s.registrations)
    if (r.first == ctx) return;
  std::vector<cl_mem> buffers;
  for (unsigned char* segment : s.segments) {
    cl_int err = CL_SUCCESS;
    cl_mem m =
        clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, s.segment, segment, &err);
    if (err == CL_SUCCESS && m) buffers.push_back(m);  // else unpinned: slower, still right
  }
  s.registrations.emplace_back(ctx, std::move(buffers));
}

}  // namespace

node_lease::~node_lease() {
  if (!state_) return;
  std::lock_guard<std::mutex> lock(registry_mutex);
  state_->busy = false;
}

unsigned char* node_lease::segment(int rank) const {
  return state_->segments.at(static_cast<std::size_t>(rank));
}
std::size_t node_lease::segment_bytes() const {
  return state_->segment;
}
void node_lease::sync() const {
  MPI_Win_sync(state_->win);
}

node_lease lease_node_window(MPI_Comm comm, cl_context ctx, std::size_t bytes) {
  int size = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  if (size == 1) return {};  // nothing crosses ranks
  node_window_state* s = state_of(comm);
  bool free_now = false;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    free_now = s->usable && !s->busy;
  }
  // [bytes, any rank unable or unwilling]
  std::uint64_t agreed[2] = {bytes,
                             free_now && current_transport() == transport::automatic ? 0u : 1u};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, agreed, 2, MPI_UINT64_T, MPI_MAX, comm), "MPI_Allreduce");
  if (agreed[1]) return {};
  // Pages, and room to grow: an exchange a little larger than the last maps no new window.
  constexpr std::size_t page = 4096;
  std::size_t want = (std::max<std::uint64_t>(agreed[0], 1) + page - 1) / page * page;
  if (s->segment < want) {
    want = std::max(want, (s->segment + s->segment / 2 + page - 1) / page * page);
    if (!grow(*s, want)) return {};
  }
  register_with(*s, ctx);
  std::lock_guard<std::mutex> lock(registry_mutex);
  s->busy = true;
  return node_lease(s);
}

}  // namespace clforge::mpi::detail
