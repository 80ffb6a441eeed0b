// SPDX-License-Identifier: MIT
// clforge::mpi: the device of each rank.
#include "clforge/mpi/environment.hpp"

#include <atomic>
#include <cstdlib>
#include <vector>

#include "check_mpi.hpp"
#include "clforge/device.hpp"
#include "clforge/mpi/collective.hpp"

namespace clforge::mpi {

namespace {
std::atomic<transport> chosen_transport{transport::automatic};
}  // namespace

void set_transport(transport t) {
  chosen_transport.store(t);
}
transport current_transport() {
  return chosen_transport.load();
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
