// SPDX-License-Identifier: MIT
// clforge::reduction_kernel<T>: map every index i to a value, combine the values with an
// associative operation. PyOpenCL's ReductionKernel for C++.
//
//   cf::reduction_kernel<float> dot(ctx, "global const float* x, global const float* y",
//                                   /*map*/ "x[i] * y[i]", /*reduce*/ "a + b", /*neutral*/ "0.0f");
//   float d = dot(q, x, y);                        // result on the host
//   cf::array<float> r = dot.on_device(q, x, y);   // result stays on the device (1 element)
//   dot.into(q, r, x, y);                          // or into an existing array, r[0]
//   float e = dot(q, cf::slice(0, cf::slice_none, 2), x, y);   // even indices only
//
// T is any OpenCL scalar type or a struct declared in the preamble and to C++ with
// CLFORGE_DECLARE_TYPE (same layout on both sides). The map expression sees `i` and `n` (long:
// signed 64-bit) and the parameters; the reduce expression sees `a` and `b` (both T); `neutral` is
// an OpenCL C expression of type T, the identity of the reduction. The program is built once, at
// construction; scalar arguments never recompile.
//
// How the work is split: the "reduce" policy of the context's tuning (clforge/tuning.hpp; the
// values per device class, and the measurements behind them, are in lib/tuning/tables.cpp).
// kind=gpu: stage 1 runs groups_per_cu groups of `group` work-items per compute unit; each group
// reduces one contiguous chunk, its work-items stepping through it `group` apart with `unroll`
// independent coalesced loads in flight, each accumulating sequentially, then a tree in local
// memory. Stage 2 (one group) reduces the per-group partials into the result. kind=cpu: a group
// of `group` work-items (one, in the CPU table) reduces a contiguous chunk with `unroll`
// independent accumulators, which the compiler turns into vector registers: what an OpenMP loop
// does; chunks of at most 4096 rounds each. vector_bytes (gpu): when T is a scalar type and the
// map reads its arrays only at index i (x[i], x[i] * y[i], ...), stage 1 reads each array as
// vectors of vector_bytes / sizeof(T) elements and evaluates the map lane by lane, for calls
// with step 1 whose start is a multiple of that width (chunks then multiples of the width times
// group * unroll); the scalar kernel otherwise. grid=1: groups take turns over blocks of vectors
// rather than each taking one contiguous chunk. single_launch=1: the last group to finish
// reduces the partials (one launch).
// A kernel that cannot run the policy's group size on the device (registers, e.g. NVIDIA) is
// regenerated for the largest power of two it can run. A call with one group needs no stage 2. The
// programs are built at construction; a call sets arguments and enqueues one or two kernels (plus
// one read for a host result). Launches whose events nobody reads are made without events.
// After tuning::set on the context, the next call runs the kernels rebuilt under the new tuning.
// Out-of-order queues work: barriers keep a call's commands, and consecutive calls, in order.
//
// Accuracy of float/double sums (reduce "a + b"), eps = 2^-24 for float:
//   Every element passes through a chain of at most L additions, so the error is at most about
//   L * eps * sum|x| (random rounding errors partly cancel; ~sqrt(L) * eps * sum|x| is typical).
//     gpu: L = chunk/256 + 8 + groups/256 + 8 (chunk ~ n / (16 * CUs); ~530 for n = 2^28 on
//          an H100 with 132 CUs)
//     cpu: L = chunk/16 + 16 + groups (chunk = min(n / (8 * cores), 65536), groups =
//          n / chunk; ~8200 for n = 2^28, ~4400 for n = 2^24)
//   A plain left-to-right float loop has L = n. The tests hold random float sums to within
//   2e-6 * sum|x| of a double reference.
//   reduction_options::compensated (clforge::summation::compensated) makes every sequential run
//   a Kahan sum, leaving only the trees (gpu: 2 x 8 levels) as plain additions: about
//   (4 + 16) * eps * sum|x| on GPUs and ~4 eps on CPUs, independent of n. Tested to 2e-7 *
//   sum|x|. It needs reduce "a + b" and T float or double, and no -cl-fast-relaxed-math.
//   Exactness: chunks are multiples of local * unroll (a power of two), so every partial of an
//   integer-valued input is a whole multiple of that granule; 2^28 float ones sum to exactly
//   2^28 in both shapes, plain or compensated (tested), where a plain float loop stops at 2^24.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "clforge/algorithms/common.hpp"
#include "clforge/detail/signature.hpp"

namespace clforge {

/// Options of a reduction_kernel: the kernel options and the reduction's shape.
struct reduction_options : kernel_options {
  /// Kahan-compensated sequential sums (float or double sums only, reduce "a + b").
  bool compensated = false;
};

namespace detail {

class reduction_engine;

/// What a reduction computes: the snippets and the result type.
struct reduction_description {
  std::string arguments;  // parameter list
  std::string map, reduce, neutral;
  std::string type_name;  // OpenCL C name of the result type
  std::size_t type_size = 0;
  bool type_is_floating = false;  // float or double (compensated mode allowed)
  bool type_needs_fp64 = false;
};

/// The type-independent part of reduction_kernel<T> (lib/algorithms/reduction.cpp): the built
/// program and its launch plan. Construction renders and builds; a call sets arguments and
/// enqueues.
class CLFORGE_API reduction_core {
 public:
  reduction_core() = default;
  /// `what` is "reduction_kernel" or a built-in's name, for messages.
  reduction_core(const context& ctx, const reduction_description& d,
                 const reduction_options& options, const std::string& what);

  const std::string& who() const;
  const std::vector<parameter>& parameters() const;
  /// The generated OpenCL source.
  const std::string& source() const;
  /// The kernel shape in use.
  const kernel_shape& shape() const;

  /// Reduces over `r` into the first element of `result` (after checking array lengths).
  /// Returns the event of the last command.
  event into(const queue& q, const resolved_range& r, const argument_list& args,
             const cl::Buffer& result) const;
  /// Reduces over `r` and reads the result (type_size bytes) into `dst`.
  void to_host(const queue& q, const resolved_range& r, const argument_list& args, void* dst) const;

 private:
  const reduction_engine& engine() const;
  std::shared_ptr<const reduction_engine> engine_;
};

}  // namespace detail

template <class T>
/// A map-then-reduce over indices (PyOpenCL's ReductionKernel): the map expression for every i,
/// combined with the reduce expression from the neutral value.
class reduction_kernel {
  static_assert(std::is_trivially_copyable_v<T>, "reduction_kernel<T> needs trivially copyable T");

 public:
  reduction_kernel() = default;
  /// Generates and builds the program. Throws clforge::error for a bad argument list or name,
  /// double without fp64, or a failed build (build log plus the generated lines around it).
  reduction_kernel(const context& ctx, const std::string& arguments, const std::string& map_expr,
                   const std::string& reduce_expr, const std::string& neutral,
                   const reduction_options& options = {})
      : core_(ctx,
              detail::reduction_description{arguments, map_expr, reduce_expr, neutral,
                                            type_name<T>(), sizeof(T), std::is_floating_point_v<T>,
                                            type_traits<T>::needs_fp64},
              options, "reduction_kernel") {}

  /// Reduces over the length of the first array argument; the result comes to the host.
  template <class... Args>
  T operator()(const queue& q, const Args&... args) const {
    detail::argument_list bound = bind(args...);
    return to_host(q, whole(bound), bound);
  }
  /// Reduces over an explicit clforge::range or clforge::slice.
  template <class... Args>
  T operator()(const queue& q, const index_range& r, const Args&... args) const {
    detail::argument_list bound = bind(args...);
    return to_host(q, resolve(r, bound), bound);
  }

  /// Writes the result into result[0] on the device (no host round trip). Returns the event of
  /// the last kernel.
  template <class... Args>
  event into(const queue& q, array<T>& result, const Args&... args) const {
    detail::argument_list bound = bind(args...);
    return launch(q, result, whole(bound), bound);
  }
  /// As into(), over the indices of `r` (clforge::range or clforge::slice).
  template <class... Args>
  event into(const queue& q, array<T>& result, const index_range& r, const Args&... args) const {
    detail::argument_list bound = bind(args...);
    return launch(q, result, resolve(r, bound), bound);
  }
  /// A new one-element array holding the result.
  template <class... Args>
  array<T> on_device(const queue& q, const Args&... args) const {
    array<T> result(q, 1);
    into(q, result, args...);
    return result;
  }

  /// The generated OpenCL source.
  const std::string& source() const { return core_.source(); }
  /// The kernel shape in use.
  const kernel_shape& shape() const { return core_.shape(); }

 private:
  template <class... Args>
  detail::argument_list bind(const Args&... args) const {
    return detail::argument_list::bind(core_.who(), core_.parameters(), args...);
  }
  detail::resolved_range whole(const detail::argument_list& bound) const {
    if (!bound.has_array())
      throw error(core_.who() +
                  ": no array argument to take the length from; pass clforge::range(n)");
    return detail::whole_range(bound.first_array_length());
  }
  detail::resolved_range resolve(const index_range& r, const detail::argument_list& bound) const {
    return detail::resolve_range(r, bound.has_array(), bound.first_array_length(), core_.who());
  }
  event launch(const queue& q, array<T>& result, const detail::resolved_range& r,
               const detail::argument_list& bound) const {
    if (result.size() < 1) throw error(core_.who() + ": the result array is empty");
    return core_.into(q, r, bound, result.buffer());
  }
  T to_host(const queue& q, const detail::resolved_range& r,
            const detail::argument_list& bound) const {
    T value;
    core_.to_host(q, r, bound, &value);
    return value;
  }

  detail::reduction_core core_;
};

}  // namespace clforge

#include "clforge/algorithms/reduce_functions.hpp"
