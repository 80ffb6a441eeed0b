// SPDX-License-Identifier: MIT
// clforge::elementwise_kernel: one statement (or several) run for every index i, PyOpenCL's
// ElementwiseKernel for C++.
//
//   cf::elementwise_kernel saxpy(ctx, "float a, global const float* x, global float* y",
//                                "y[i] = a * x[i] + y[i]");
//   saxpy(q, 2.0f, x, y);                       // i = 0 .. x.size() - 1
//   saxpy(q, cf::slice(1, -1, 2), 2.0f, x, y);  // i = 1, 3, 5, ... < x.size() - 1
//
// Inside the operation, `i` (long: signed 64-bit, as in PyOpenCL) is the index and `n` (long)
// the number of indices of this call (unless a parameter is itself called n). Pointer
// parameters without an address space ("float *y") are global. The program is generated and built
// once, at construction (through the context's program cache); scalars are kernel arguments, so new
// values never recompile. Generated source: CLFORGE_DUMP_SOURCE=1, or source().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "clforge/algorithms/common.hpp"
#include "clforge/detail/signature.hpp"

namespace clforge {

namespace detail {
struct elementwise_state;
}

/// A map over indices: runs a snippet statement for every i of a range (PyOpenCL's
/// ElementwiseKernel).
class CLFORGE_API elementwise_kernel {
 public:
  elementwise_kernel() = default;
  /// Generates and builds the kernel. Throws clforge::error for a bad argument list, a name
  /// that is not an identifier, double without fp64, or a failed build (with the build log and
  /// the generated lines around the error).
  elementwise_kernel(const context& ctx, const std::string& arguments, const std::string& operation,
                     const kernel_options& options = {});

  /// Runs over the length of the first array argument. Checks argument count, kinds and types
  /// (and array lengths, see kernel_options::check_array_lengths) before launching.
  template <class... Args>
  event operator()(const queue& q, const Args&... args) const {
    detail::argument_list bound = detail::argument_list::bind(who(), parameters(), args...);
    if (!bound.has_array())
      throw error(who() + ": no array argument to take the length from; pass clforge::range(n)");
    return run(q, detail::whole_range(bound.first_array_length()), bound);
  }
  /// Runs over an explicit clforge::range or clforge::slice.
  template <class... Args>
  event operator()(const queue& q, const index_range& r, const Args&... args) const {
    detail::argument_list bound = detail::argument_list::bind(who(), parameters(), args...);
    return run(q, detail::resolve_range(r, bound.has_array(), bound.first_array_length(), who()),
               bound);
  }

  /// The generated OpenCL C source.
  const std::string& source() const;
  /// The kernel name (options.name, or "elementwise").
  const std::string& name() const;
  /// The shape the kernel was generated for.
  const kernel_shape& shape() const;

 private:
  const std::string& who() const;
  const std::vector<detail::parameter>& parameters() const;
  event run(const queue& q, const detail::resolved_range& r,
            const detail::argument_list& bound) const;
  std::shared_ptr<const detail::elementwise_state> state_;
};

}  // namespace clforge
