// SPDX-License-Identifier: MIT
// Reductions across ranks: clforge::mpi::reduction_kernel, sum, dot, min, max. Each rank
// reduces its block on its device; the partials are allgathered and reduced again on every device
// (integer sum, dot, min and max: on the host, where the result is the same).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "clforge/array.hpp"
#include "clforge/error.hpp"
#include "clforge/mpi/collective.hpp"
#include "clforge/mpi/distributed_array.hpp"
#include "clforge/mpi/local.hpp"
#include "clforge/queue.hpp"

namespace clforge::mpi {

namespace detail {

/// Reduces one partial per rank: each rank's `partial()` (run in the first step), an allgather
/// of the partials, then `combine(array of the partials in rank order)` on each rank's device.
template <class T, class Partial, class Combine>
T reduce_over_ranks(MPI_Comm comm, const queue& q, const call_info& info, Partial&& partial,
                    Combine&& combine) {
  T mine{};
  collective_step(comm, info, [&] { mine = partial(); });
  std::vector<T> all(static_cast<std::size_t>(comm_size(comm)));
  allgather(comm, &mine, all.data(), sizeof(T));
  T result{};
  collective_step(comm, info, [&] {
    array<T> partials = array<T>::from_host(q, all);
    result = combine(partials);
  });
  return result;
}

template <class T>
inline constexpr bool combines_on_host = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// Integer partials combined on the host in rank order, after one step and the allgather: the
/// operations on integers are exact (sums wrap as on the device), so the value is the device
/// combine's without its round trip (upload, kernel, read back: tens of microseconds on a GPU).
template <class T, class Partial, class Combine>
T reduce_integers_over_ranks(MPI_Comm comm, const call_info& info, Partial&& partial,
                             Combine&& combine) {
  T mine{};
  collective_step(comm, info, [&] { mine = partial(); });
  std::vector<T> all(static_cast<std::size_t>(comm_size(comm)));
  allgather(comm, &mine, all.data(), sizeof(T));
  T result = all[0];
  for (std::size_t r = 1; r < all.size(); ++r) result = combine(result, all[r]);
  return result;
}

/// a + b with wrap-around, as the device adds integers.
template <class T>
T wrapping_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}

}  // namespace detail

// ---- reductions -----------------------------------------------------------------------------

/// reduction_kernel<T> across ranks: the same snippets; each rank reduces its blocks on its
/// device, the ranks' partials are allgathered and reduced again on every device with the same
/// reduce snippet (so struct types and any associative operation work), in rank order. The
/// map's `i` and `n` are the rank's local index and block length. Every rank gets the result.
template <class T>
class reduction_kernel {
 public:
  /// Builds on every rank. Collective.
  reduction_kernel(MPI_Comm comm, const context& ctx, const std::string& arguments,
                   const std::string& map, const std::string& reduce, const std::string& neutral,
                   const reduction_options& options = {})
      : comm_(comm),
        what_("reduction_kernel<" + type_name<T>() + ">"),
        fingerprint_(detail::fingerprint({detail::type_tag<T>(), arguments, map, reduce, neutral,
                                          options.preamble, options.build_options,
                                          options.compensated ? "kahan" : "plain"})) {
    detail::collective_step(comm, {what_ + " construction", fingerprint_, 0, false}, [&] {
      local_ = local::reducer<T>(ctx, arguments, map, reduce, neutral, options);
      reduction_options combine_options = options;
      if (!combine_options.name.empty()) combine_options.name += "_ranks";
      combine_options.check_array_lengths = true;
      const std::string type = type_name<T>();
      combine_ = local::reducer<T>(ctx, "global const " + type + "* cfmpi_partials",
                                   "cfmpi_partials[i]", reduce, neutral, combine_options);
    });
  }

  /// Reduces over the blocks of the distributed_array arguments (which must share one layout;
  /// other arguments pass to every rank's kernel as they are). Collective.
  template <class... Args>
  T operator()(const queue& q, const Args&... args) const {
    detail::argument_layout l;
    std::uint64_t length = 0;
    try {
      l = detail::layout_of("reduction_kernel", args...);
      length = l.layout.length;
    } catch (const error&) {
      // No distributed argument: no communicator to agree on but the kernel's.
    }
    return detail::reduce_over_ranks<T>(
        comm_, q, {what_, fingerprint_, length},
        [&] {
          if (!l.found) detail::layout_of("reduction_kernel", args...);
          if (!l.consistent) detail::throw_inconsistent_layouts("reduction_kernel");
          return local_(q, detail::local_argument(args)...);
        },
        [&](const array<T>& partials) { return combine_(q, partials); });
  }

 private:
  MPI_Comm comm_;
  std::string what_;
  std::uint64_t fingerprint_;
  local::reducer<T> local_, combine_;
};

/// Sum of x over all ranks, in R (default T). Collective; the same value on every rank.
template <class R = void, class T>
clforge::detail::sum_result_t<R, T> sum(const queue& q, const distributed_array<T>& x) {
  using Out = clforge::detail::sum_result_t<R, T>;
  const detail::call_info info{"sum<" + type_name<Out>() + ">",
                               detail::fingerprint({detail::type_tag<T>()}), x.size()};
  auto partial = [&] { return local::sum<Out>(q, x.local()); };
  if constexpr (detail::combines_on_host<Out>)
    return detail::reduce_integers_over_ranks<Out>(x.comm(), info, partial,
                                                   detail::wrapping_add<Out>);
  else
    return detail::reduce_over_ranks<Out>(
        x.comm(), q, info, partial,
        [&](const array<Out>& partials) { return local::sum<Out>(q, partials); });
}

/// Sum of x[i] * y[i] over all ranks (x and y of one layout). Collective.
template <class T>
T dot(const queue& q, const distributed_array<T>& x, const distributed_array<T>& y) {
  const detail::call_info info{
      "dot<" + type_name<T>() + ">",
      detail::fingerprint({detail::type_tag<T>(), std::to_string(y.size())}), x.size()};
  auto partial = [&] {
    if (!(x.layout() == y.layout()))
      throw error("clforge::mpi::dot: x has " + std::to_string(x.size()) + " elements, y " +
                  std::to_string(y.size()));
    return local::dot(q, x.local(), y.local());
  };
  if constexpr (detail::combines_on_host<T>)
    return detail::reduce_integers_over_ranks<T>(x.comm(), info, partial, detail::wrapping_add<T>);
  else
    return detail::reduce_over_ranks<T>(x.comm(), q, info, partial, [&](const array<T>& partials) {
      return local::sum<T>(q, partials);
    });
}

/// Smallest element over all ranks (NaN ignored, as clforge::min). Throws on every rank for an
/// empty array. Collective.
template <class T>
T min(const queue& q, const distributed_array<T>& x) {
  const detail::call_info info{"min<" + type_name<T>() + ">",
                               detail::fingerprint({detail::type_tag<T>()}), x.size()};
  auto partial = [&] {
    if (x.size() == 0) throw error("clforge::mpi::min: the array is empty");
    return local::min_or_neutral(q, x.local());
  };
  if constexpr (detail::combines_on_host<T>)
    return detail::reduce_integers_over_ranks<T>(x.comm(), info, partial,
                                                 [](T a, T b) { return std::min(a, b); });
  else
    return detail::reduce_over_ranks<T>(x.comm(), q, info, partial, [&](const array<T>& partials) {
      return local::min_or_neutral(q, partials);
    });
}

/// Largest element over all ranks (NaN ignored, as clforge::max). Collective.
template <class T>
T max(const queue& q, const distributed_array<T>& x) {
  const detail::call_info info{"max<" + type_name<T>() + ">",
                               detail::fingerprint({detail::type_tag<T>()}), x.size()};
  auto partial = [&] {
    if (x.size() == 0) throw error("clforge::mpi::max: the array is empty");
    return local::max_or_neutral(q, x.local());
  };
  if constexpr (detail::combines_on_host<T>)
    return detail::reduce_integers_over_ranks<T>(x.comm(), info, partial,
                                                 [](T a, T b) { return std::max(a, b); });
  else
    return detail::reduce_over_ranks<T>(x.comm(), q, info, partial, [&](const array<T>& partials) {
      return local::max_or_neutral(q, partials);
    });
}

}  // namespace clforge::mpi
