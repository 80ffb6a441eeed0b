// SPDX-License-Identifier: MIT
// clforge::mpi sorts: the splitters of the sample sort.
#include "clforge/mpi/algorithms/sort.hpp"

#include <algorithm>
#include <limits>

namespace clforge::mpi::detail {

std::vector<sort_sample> choose_splitters(MPI_Comm comm, const std::vector<sort_sample>& mine,
                                          std::uint64_t total) {
  const std::size_t ranks = static_cast<std::size_t>(comm_size(comm));
  std::vector<sort_sample> all(ranks * mine.size());
  allgather(comm, mine.data(), all.data(), mine.size() * sizeof(sort_sample));
  all.erase(std::remove_if(all.begin(), all.end(), [](const sort_sample& s) { return !s.valid; }),
            all.end());
  std::sort(all.begin(), all.end(), [](const sort_sample& a, const sort_sample& b) {
    return before(a.key, a.rank, a.position, b);
  });
  // Past every element: a bucket with nothing after it.
  sort_sample end;
  end.key = std::numeric_limits<std::uint64_t>::max();
  end.position = std::numeric_limits<std::uint64_t>::max();
  end.rank = std::numeric_limits<std::int32_t>::max();
  std::vector<sort_sample> splitters(ranks - 1, end);
  double before_sample = 0;  // elements the samples before this one stand for
  std::size_t k = 1;
  for (const sort_sample& s : all) {
    while (k < ranks && before_sample >= static_cast<double>(total) * static_cast<double>(k) /
                                             static_cast<double>(ranks))
      splitters[k++ - 1] = s;
    before_sample += s.weight;
  }
  return splitters;
}

}  // namespace clforge::mpi::detail
