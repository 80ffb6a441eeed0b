// SPDX-License-Identifier: MIT
// clforge::mpi's halo exchange (clforge/mpi/halo.hpp): pieces of device buffers staged through
// pinned host memory, one message per neighbour and direction.
#include "clforge/mpi/halo.hpp"

#include <algorithm>
#include <climits>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "check_mpi.hpp"
#include "clforge/context.hpp"
#include "clforge/error.hpp"

namespace clforge::mpi::detail {

using clforge::detail::check;
namespace {

// Point-to-point messages of the halo exchange: one per (sender, receiver) and call, so one tag
// suffices (MPI keeps the messages between two ranks in order).
constexpr int kHaloTag = 27029;

// ---- staging: host memory the device copies to and MPI reads from ---------------------------

/// A block of host memory: the mapped region of a CL_MEM_ALLOC_HOST_PTR buffer (pinned, so the
/// device copies run at full speed and without an extra copy in the driver), or plain memory
/// where the device offers no such buffer.
struct staging_block {
  cl::Buffer pinned;  // kept mapped for the block's whole life
  std::unique_ptr<char[]> plain;
  char* host = nullptr;
  std::size_t bytes = 0;
};

/// The free staging blocks of a context; a call takes one for itself (so concurrent exchanges
/// on other communicators never share one) and gives it back.
class staging_pool {
 public:
  std::shared_ptr<staging_block> take(const queue& q, std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto best = free_.end();
      for (auto it = free_.begin(); it != free_.end(); ++it)
        if ((*it)->bytes >= bytes && (best == free_.end() || (*it)->bytes < (*best)->bytes))
          best = it;
      if (best != free_.end()) {
        auto block = *best;
        free_.erase(best);
        return block;
      }
    }
    return make(q, bytes);
  }
  void give(std::shared_ptr<staging_block> block) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(block));
  }

 private:
  static std::shared_ptr<staging_block> make(const queue& q, std::size_t bytes) {
    auto block = std::make_shared<staging_block>();
    block->bytes = bytes;
    cl_int status = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(q.ctx().get(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
                                nullptr, &status);
    if (status == CL_SUCCESS) {
      block->pinned = cl::Buffer(mem);  // takes the reference
      void* host = clEnqueueMapBuffer(q.get(), mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                      0, nullptr, nullptr, &status);
      if (status == CL_SUCCESS) {
        block->host = static_cast<char*>(host);
        return block;
      }
      block->pinned = cl::Buffer();
    }
    block->plain.reset(new char[bytes]);
    block->host = block->plain.get();
    return block;
  }

  std::mutex mutex_;
  std::vector<std::shared_ptr<staging_block>> free_;
};

/// A staging block for one call, given back to its pool at the end of the call.
class staging_lease {
 public:
  staging_lease(const queue& q, std::size_t bytes)
      : pool_(std::static_pointer_cast<staging_pool>(clforge::detail::per_context(
            q.ctx(), "clforge.mpi", "halo staging",
            [] { return std::static_pointer_cast<void>(std::make_shared<staging_pool>()); }))),
        block_(pool_->take(q, bytes)) {}
  staging_lease(const staging_lease&) = delete;
  staging_lease& operator=(const staging_lease&) = delete;
  ~staging_lease() {
    if (block_) pool_->give(std::move(block_));
  }
  char* host() const { return block_ ? block_->host : nullptr; }

 private:
  std::shared_ptr<staging_pool> pool_;
  std::shared_ptr<staging_block> block_;
};

// ---- the plan as messages -------------------------------------------------------------------

/// The pieces for one peer in one direction, in key order, at `offset` of the staging.
struct message {
  int peer = 0;
  std::size_t offset = 0, bytes = 0;
  std::vector<halo_piece> pieces;
};

bool by_peer_and_key(const halo_piece& a, const halo_piece& b) {
  return std::tie(a.peer, a.key) < std::tie(b.peer, b.key);
}

/// Sorts `pieces` (peer, key), checks peers and keys, and groups the other ranks' pieces into
/// messages laid out from `offset` on; the own rank's pieces go to `self`.
std::vector<message> group(std::vector<halo_piece> pieces, const char* direction, int me, int ranks,
                           std::size_t& offset, std::vector<halo_piece>& self) {
  std::stable_sort(pieces.begin(), pieces.end(), by_peer_and_key);
  std::vector<message> out;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const halo_piece& p = pieces[k];
    if (p.peer < 0 || p.peer >= ranks)
      throw error("clforge::mpi: a halo piece " + std::string(direction) + " rank " +
                  std::to_string(p.peer) + ", which is not a rank of the communicator (" +
                  std::to_string(ranks) + " ranks)");
    if (k > 0 && pieces[k - 1].peer == p.peer && pieces[k - 1].key == p.key)
      throw error("clforge::mpi: two halo pieces " + std::string(direction) + " rank " +
                  std::to_string(p.peer) + " have the key " + std::to_string(p.key));
    if (p.bytes == 0) continue;
    if (p.peer == me) {
      self.push_back(p);
      continue;
    }
    if (out.empty() || out.back().peer != p.peer) out.push_back({p.peer, offset, 0, {}});
    out.back().pieces.push_back(p);
    out.back().bytes += p.bytes;
    offset += p.bytes;
    if (out.back().bytes > static_cast<std::size_t>(INT_MAX))
      throw error("clforge::mpi: a halo message of " + std::to_string(out.back().bytes) +
                  " bytes " + direction + " rank " + std::to_string(p.peer) +
                  " exceeds MPI's int counts (use more ranks)");
  }
  return out;
}

}  // namespace

namespace {
// Waits for and releases OpenCL events.
void wait_all(std::vector<cl_event>& events) {
  if (events.empty()) return;
  const cl_int status = clWaitForEvents(static_cast<cl_uint>(events.size()), events.data());
  for (cl_event e : events) clReleaseEvent(e);
  events.clear();
  check(status, "clWaitForEvents");
}
}  // namespace

/// The exchange between start and finish.
struct exchange_state {
  explicit exchange_state(const queue& on) : q(on) {}
  queue q;
  MPI_Comm comm = MPI_COMM_NULL;
  call_info info;
  std::vector<message> sends, receives;
  std::unique_ptr<staging_lease> staging;
  std::vector<cl_event> copies;  // the reads into the staging, the own rank's device copies
  ~exchange_state() {
    for (cl_event e : copies) clReleaseEvent(e);
  }
};

halo_exchange start_halo_exchange(const queue& q, MPI_Comm comm, const call_info& info,
                                  const std::function<void(halo_plan&)>& build) {
  auto s = std::make_unique<exchange_state>(q);
  s->comm = comm;
  s->info = info;
  std::vector<halo_piece> self_sends, self_receives;
  // Step 1: the plan; the reads of the data to send into the staging and the own rank's device
  // copies enqueued (not waited for: work enqueued after the start overlaps them).
  collective_step(comm, info, [&] {
    const int me = comm_rank(comm), ranks = comm_size(comm);
    halo_plan plan;
    build(plan);
    std::size_t total = 0;
    s->sends = group(std::move(plan.sends), "to", me, ranks, total, self_sends);
    s->receives = group(std::move(plan.receives), "from", me, ranks, total, self_receives);
    if (self_sends.size() != self_receives.size())
      throw error("clforge::mpi: the halo plan sends " + std::to_string(self_sends.size()) +
                  " pieces to its own rank and receives " + std::to_string(self_receives.size()));
    for (std::size_t k = 0; k < self_sends.size(); ++k)
      if (self_sends[k].key != self_receives[k].key ||
          self_sends[k].bytes != self_receives[k].bytes)
        throw error("clforge::mpi: the halo pieces to and from the own rank differ (key " +
                    std::to_string(self_sends[k].key) + ")");
    if (total > 0) s->staging = std::make_unique<staging_lease>(q, total);
    // An out-of-order queue: the copies start after what was enqueued before (the kernels that
    // wrote the data).
    if (q.out_of_order())
      check(clEnqueueBarrierWithWaitList(q.get(), 0, nullptr, nullptr),
            "clEnqueueBarrierWithWaitList");
    for (const message& m : s->sends) {
      std::size_t at = m.offset;
      for (const halo_piece& p : m.pieces) {
        s->copies.emplace_back();
        check(clEnqueueReadBuffer(q.get(), p.buffer, CL_FALSE, p.offset, p.bytes,
                                  s->staging->host() + at, 0, nullptr, &s->copies.back()),
              "clEnqueueReadBuffer");
        at += p.bytes;
      }
    }
    for (std::size_t k = 0; k < self_sends.size(); ++k) {
      s->copies.emplace_back();
      check(clEnqueueCopyBuffer(q.get(), self_sends[k].buffer, self_receives[k].buffer,
                                self_sends[k].offset, self_receives[k].offset, self_sends[k].bytes,
                                0, nullptr, &s->copies.back()),
            "clEnqueueCopyBuffer");
    }
    q.flush();
  });
  halo_exchange pending;
  pending.state_ = std::move(s);
  return pending;
}

}  // namespace clforge::mpi::detail

namespace clforge::mpi {

using namespace detail;  // this file's helpers

halo_exchange::halo_exchange() = default;
halo_exchange::halo_exchange(halo_exchange&&) noexcept = default;
halo_exchange& halo_exchange::operator=(halo_exchange&& other) noexcept {
  if (this != &other) {
    complete_quietly();
    state_ = std::move(other.state_);
  }
  return *this;
}
halo_exchange::~halo_exchange() {
  complete_quietly();
}

void halo_exchange::complete_quietly() noexcept {
  try {
    finish();
  } catch (...) {  // a destructor cannot throw; finish() reported it on every rank alike
  }
}

void halo_exchange::finish() {
  if (!state_) return;
  const std::unique_ptr<exchange_state> s = std::move(state_);
  // Step 2: the staging holds the data to send (a failed read on one rank stops every rank
  // before any message).
  collective_step(s->comm, s->info, [&] {
    s->q.flush();  // what was enqueued since the start runs while the messages travel
    wait_all(s->copies);
  });

  // One message per neighbour and direction. Every rank got past step 2, so every message has
  // its partner.
  if (!s->sends.empty() || !s->receives.empty()) {
    char* host = s->staging->host();
    std::vector<MPI_Request> requests;
    requests.reserve(s->sends.size() + s->receives.size());
    std::uint64_t sent = 0;
    const double start = MPI_Wtime();
    for (const detail::message& m : s->receives) {
      requests.emplace_back();
      check_mpi(MPI_Irecv(host + m.offset, static_cast<int>(m.bytes), MPI_BYTE, m.peer, kHaloTag,
                          s->comm, &requests.back()),
                "MPI_Irecv");
    }
    for (const detail::message& m : s->sends) {
      requests.emplace_back();
      check_mpi(MPI_Isend(host + m.offset, static_cast<int>(m.bytes), MPI_BYTE, m.peer, kHaloTag,
                          s->comm, &requests.back()),
                "MPI_Isend");
      sent += m.bytes;
    }
    check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
    record_exchange(MPI_Wtime() - start, requests.size(), sent);
  }

  // Step 3: what arrived onto the device.
  collective_step(s->comm, s->info, [&] {
    std::vector<cl_event> writes;
    for (const detail::message& m : s->receives) {
      std::size_t at = m.offset;
      for (const halo_piece& p : m.pieces) {
        writes.emplace_back();
        check(clEnqueueWriteBuffer(s->q.get(), p.buffer, CL_FALSE, p.offset, p.bytes,
                                   s->staging->host() + at, 0, nullptr, &writes.back()),
              "clEnqueueWriteBuffer");
        at += p.bytes;
      }
    }
    wait_all(writes);
  });
}

bool halo_exchange::pending() const {
  return state_ != nullptr;
}

}  // namespace clforge::mpi
