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
#include "node_window.hpp"

namespace clforge::mpi::detail {

using clforge::detail::check;
namespace {

// Point-to-point messages of the halo exchange: one per (sender, receiver) and call, so one tag
// suffices (MPI keeps the messages between two ranks in order).
constexpr int kHaloTag = 27029;

// Two transports, chosen alike on every rank (lease_node_window):
// - the node window, where all ranks share a node: each rank copies what it sends off its device
//   into its segment, after a header of (offset, bytes) per receiving rank; each receiver copies
//   its parts from the senders' segments onto its device. The collective steps in between order
//   the copies across ranks.
// - messages otherwise: the data is staged in the queue's pinned area (detail::staging_lease,
//   shared with the other exchanges of the layer, ordinary memory where another exchange on the
//   queue holds it), sent point to point, and written from the staging.

// MPI counts are ints: larger messages travel in parts of this many bytes.
constexpr std::size_t kMessagePart = std::size_t(1) << 30;

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
  }
  return out;
}

}  // namespace

namespace {
// The node window's header: (offset, bytes) of the message to each rank.
std::size_t node_header_bytes(int ranks) {
  return 2 * sizeof(std::uint64_t) * static_cast<std::size_t>(ranks);
}

// Waits for and releases OpenCL events.
void wait_all(std::vector<cl_event>& events) {
  if (events.empty()) return;
  const cl_int status = clWaitForEvents(static_cast<cl_uint>(events.size()), events.data());
  for (cl_event e : events) clReleaseEvent(e);
  events.clear();
  check(status, "clWaitForEvents");
}

// The exchange's copies run on a queue of their own beside the caller's (same device), so the
// device's copy engines work while kernels enqueued between start and finish run.
struct transfer_queue {
  cl_command_queue cl = nullptr;
  ~transfer_queue() {
    if (cl) {
      clFinish(cl);
      clReleaseCommandQueue(cl);
    }
  }
};

const std::shared_ptr<const void>& transfer_owner() {
  static const std::shared_ptr<const void> owner = std::make_shared<int>(0);
  return owner;
}

// q's transfer queue; null where none could be made (the copies then go on q).
std::shared_ptr<transfer_queue> transfer_queue_of(const queue& q) {
  return std::static_pointer_cast<transfer_queue>(q.attachment(transfer_owner(), [&] {
    auto t = std::make_shared<transfer_queue>();
    cl_device_id device = nullptr;
    if (clGetCommandQueueInfo(q.get(), CL_QUEUE_DEVICE, sizeof device, &device, nullptr) ==
        CL_SUCCESS) {
      cl_int err = CL_SUCCESS;
      t->cl = clCreateCommandQueueWithProperties(q.ctx().get(), device, nullptr, &err);
      if (err != CL_SUCCESS) t->cl = nullptr;
    }
    return std::static_pointer_cast<void>(t);
  }));
}

}  // namespace

/// The exchange between start and finish.
struct exchange_state {
  explicit exchange_state(const queue& on) : q(on) {}
  queue q;
  std::shared_ptr<transfer_queue> transfers;
  cl_command_queue copies_on = nullptr;  // transfers->cl, or q's where there is none
  MPI_Comm comm = MPI_COMM_NULL;
  call_info info;
  std::vector<message> sends, receives;
  std::unique_ptr<staging_lease> staging;  // messages
  node_lease window;                       // or the node window
  std::vector<cl_event> copies;  // the reads into the staging, the own rank's device copies
  // Done when what was enqueued on q before the start is: the copies off the device and the
  // writes of what arrives wait for it (null where they go on q itself, in order). The writes
  // need it too: a rank that sends nothing has no copy that waited for q, and a kernel enqueued
  // before the start may still write or read the regions being received.
  cl_event after_caller = nullptr;
  ~exchange_state() {
    // Unfinished (an error): the copies must be done before the staging or window goes back.
    if (!copies.empty()) clWaitForEvents(static_cast<cl_uint>(copies.size()), copies.data());
    for (cl_event e : copies) clReleaseEvent(e);
    if (after_caller) clReleaseEvent(after_caller);
  }
  cl_uint waits() const { return after_caller ? 1 : 0; }
  const cl_event* wait_list() const { return after_caller ? &after_caller : nullptr; }
};

// The writes of one received message's pieces onto the device, from its bytes at `from`.
void enqueue_writes(const exchange_state& s, const message& m, const char* from,
                    std::vector<cl_event>& writes) {
  for (const halo_piece& p : m.pieces) {
    writes.emplace_back();
    check(clEnqueueWriteBuffer(s.copies_on, p.buffer, CL_FALSE, p.offset, p.bytes, from, s.waits(),
                               s.wait_list(), &writes.back()),
          "clEnqueueWriteBuffer");
    from += p.bytes;
  }
}

// Step 3 through the node window: every sender's copies are done (the step before), so each
// rank copies its parts from the senders' segments onto its device.
void finish_through_window(exchange_state& s, std::uint64_t sent) {
  const double start = MPI_Wtime();
  collective_step(s.comm, s.info, [&] {
    const int me = comm_rank(s.comm);
    const std::size_t header = node_header_bytes(comm_size(s.comm));
    s.window.sync();  // the senders' stores before the agreement, seen by this rank's loads
    std::vector<cl_event> writes;
    try {
      for (const message& m : s.receives) {
        const unsigned char* from = s.window.segment(m.peer);
        const auto* entries = reinterpret_cast<const std::uint64_t*>(from);
        const std::uint64_t offset = entries[2 * static_cast<std::size_t>(me)],
                            bytes = entries[2 * static_cast<std::size_t>(me) + 1];
        if (bytes != m.bytes)
          throw error("clforge::mpi: rank " + std::to_string(m.peer) + " sends " +
                      std::to_string(bytes) + " bytes to rank " + std::to_string(me) +
                      ", which expects " + std::to_string(m.bytes) +
                      " (the ranks' exchange plans differ)");
        enqueue_writes(s, m, reinterpret_cast<const char*>(from) + header + offset, writes);
      }
    } catch (...) {
      wait_all(writes);  // no copy may still read the window once the step returns
      throw;
    }
    wait_all(writes);
  });
  record_exchange(MPI_Wtime() - start, s.receives.size(), sent);
}

// Step 3 with messages: one per neighbour and direction (in parts of kMessagePart bytes), then
// what arrived onto the device. Every rank got past step 2, so every message has its partner.
void finish_with_messages(exchange_state& s, std::uint64_t sent) {
  if (!s.sends.empty() || !s.receives.empty()) {
    char* host = static_cast<char*>(s.staging->data());
    std::vector<MPI_Request> requests;
    const double start = MPI_Wtime();
    auto post = [&](const message& m, bool receive) {
      for (std::size_t done = 0; done < m.bytes; done += kMessagePart) {
        const int part = static_cast<int>(std::min(kMessagePart, m.bytes - done));
        requests.emplace_back();
        if (receive)
          check_mpi(MPI_Irecv(host + m.offset + done, part, MPI_BYTE, m.peer, kHaloTag, s.comm,
                              &requests.back()),
                    "MPI_Irecv");
        else
          check_mpi(MPI_Isend(host + m.offset + done, part, MPI_BYTE, m.peer, kHaloTag, s.comm,
                              &requests.back()),
                    "MPI_Isend");
      }
    };
    for (const message& m : s.receives) post(m, true);
    for (const message& m : s.sends) post(m, false);
    check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
    record_exchange(MPI_Wtime() - start, requests.size(), sent);
  }
  collective_step(s.comm, s.info, [&] {
    std::vector<cl_event> writes;
    try {
      for (const message& m : s.receives)
        enqueue_writes(s, m, static_cast<const char*>(s.staging->data()) + m.offset, writes);
    } catch (...) {
      wait_all(writes);  // no copy may still read the staging once the step returns
      throw;
    }
    wait_all(writes);
  });
}

halo_exchange start_halo_exchange(const queue& q, MPI_Comm comm, const call_info& info,
                                  const std::function<void(halo_plan&)>& build) {
  auto s = std::make_unique<exchange_state>(q);
  s->comm = comm;
  s->info = info;
  std::vector<halo_piece> self_sends, self_receives;
  std::size_t send_bytes = 0, total = 0;
  int me = 0, ranks = 0;
  // Step 1: the plan.
  collective_step(comm, info, [&] {
    me = comm_rank(comm);
    ranks = comm_size(comm);
    halo_plan plan;
    build(plan);
    s->sends = group(std::move(plan.sends), "to", me, ranks, total, self_sends);
    send_bytes = total;
    s->receives = group(std::move(plan.receives), "from", me, ranks, total, self_receives);
    if (self_sends.size() != self_receives.size())
      throw error("clforge::mpi: the halo plan sends " + std::to_string(self_sends.size()) +
                  " pieces to its own rank and receives " + std::to_string(self_receives.size()));
    for (std::size_t k = 0; k < self_sends.size(); ++k)
      if (self_sends[k].key != self_receives[k].key ||
          self_sends[k].bytes != self_receives[k].bytes)
        throw error("clforge::mpi: the halo pieces to and from the own rank differ (key " +
                    std::to_string(self_sends[k].key) + ")");
  });
  const std::size_t header = node_header_bytes(ranks);
  s->window = lease_node_window(comm, q.ctx().get(), header + send_bytes);
  // Step 2: the reads of the data to send into the window or the staging, and the own rank's
  // device copies, enqueued (not waited for: work enqueued after the start overlaps them).
  collective_step(comm, info, [&] {
    char* out = nullptr;
    if (s->window) {
      auto* entries = reinterpret_cast<std::uint64_t*>(s->window.segment(me));
      std::fill(entries, entries + 2 * static_cast<std::size_t>(ranks), 0);
      for (const message& m : s->sends) {
        entries[2 * static_cast<std::size_t>(m.peer)] = m.offset;
        entries[2 * static_cast<std::size_t>(m.peer) + 1] = m.bytes;
      }
      out = reinterpret_cast<char*>(s->window.segment(me)) + header;
    } else if (total > 0) {
      s->staging = std::make_unique<staging_lease>(q, total);
      out = static_cast<char*>(s->staging->data());
    }
    // The copies start after what was enqueued on q before (the kernels that wrote the data).
    s->transfers = transfer_queue_of(q);
    s->copies_on = s->transfers->cl ? s->transfers->cl : q.get();
    if (s->transfers->cl || q.out_of_order())
      check(clEnqueueMarkerWithWaitList(q.get(), 0, nullptr, &s->after_caller),
            "clEnqueueMarkerWithWaitList");
    for (const message& m : s->sends) {
      std::size_t at = m.offset;
      for (const halo_piece& p : m.pieces) {
        s->copies.emplace_back();
        check(clEnqueueReadBuffer(s->copies_on, p.buffer, CL_FALSE, p.offset, p.bytes, out + at,
                                  s->waits(), s->wait_list(), &s->copies.back()),
              "clEnqueueReadBuffer");
        at += p.bytes;
      }
    }
    for (std::size_t k = 0; k < self_sends.size(); ++k) {
      s->copies.emplace_back();
      check(clEnqueueCopyBuffer(s->copies_on, self_sends[k].buffer, self_receives[k].buffer,
                                self_sends[k].offset, self_receives[k].offset, self_sends[k].bytes,
                                s->waits(), s->wait_list(), &s->copies.back()),
            "clEnqueueCopyBuffer");
    }
    q.flush();
    clFlush(s->copies_on);
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
    if (s->window) s->window.sync();
  });
  std::uint64_t sent = 0;
  for (const detail::message& m : s->sends) sent += m.bytes;
  if (s->window)
    finish_through_window(*s, sent);
  else
    finish_with_messages(*s, sent);
}

bool halo_exchange::pending() const {
  return state_ != nullptr;
}

}  // namespace clforge::mpi
