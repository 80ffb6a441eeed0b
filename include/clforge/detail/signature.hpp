// SPDX-License-Identifier: MIT
// Snippet-kernel arguments: parse an OpenCL C parameter list ("float a, global const float* x")
// and bind C++ call arguments to it with clear errors, before anything reaches the driver.
// Used by every template that takes user arguments (elementwise, reduction, scan).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "clforge/array.hpp"
#include "clforge/error.hpp"
#include "clforge/queue.hpp"
#include "clforge/types.hpp"

namespace clforge::detail {

/// Built-in scalar types a parameter can have; `other` is a user struct or vector type.
enum class scalar_kind {
  char_,
  uchar,
  short_,
  ushort,
  int_,
  uint,
  long_,
  ulong,
  float_,
  double_,
  other
};

struct parameter {
  std::string declaration;  // as the user wrote it, for messages
  std::string type;         // base type, normalised: "uint" for "unsigned int"
  std::string name;
  std::string address_space;  // "global", "constant", "local" or "" (by value)
  bool is_pointer = false;
  bool is_const = false;
  scalar_kind kind = scalar_kind::other;
};

/// Parses an OpenCL C parameter list. Throws clforge::error naming the bad parameter.
CLFORGE_API std::vector<parameter> parse_signature(std::string_view arguments);

/// One C++ call argument, captured with what the checks need.
struct captured_argument {
  enum class what { array, buffer, scalar, bytes, local_memory };
  what kind = what::scalar;
  std::string type;              // OpenCL element or struct type name ("" when unknown)
  cl_mem mem = nullptr;          // array, buffer
  cl_context context = nullptr;  // array: the OpenCL context it was allocated in
  std::size_t length = 0;        // array: elements; local_memory: bytes
  std::size_t local_count = 0;   // local_memory: elements
  // scalar: the value, as the widest type of its family
  bool is_floating = false, is_signed = false;
  long double floating = 0;
  std::int64_t signed_value = 0;
  std::uint64_t unsigned_value = 0;
  std::string bytes;  // user struct by value
  // array given as an array_view: element k is element view_first + k * view_step of `mem`
  bool is_view = false;
  std::int64_t view_first = 0, view_step = 1;
};

template <class T>
captured_argument capture(const T& value) {
  captured_argument c;
  if constexpr (std::is_arithmetic_v<T>) {
    static_assert(!std::is_same_v<T, bool>, "clforge: pass an int instead of a bool");
    c.kind = captured_argument::what::scalar;
    c.is_floating = std::is_floating_point_v<T>;
    c.is_signed = std::is_signed_v<T>;
    if constexpr (std::is_floating_point_v<T>)
      c.floating = value;
    else if constexpr (std::is_signed_v<T>)
      c.signed_value = value;
    else
      c.unsigned_value = value;
  } else {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>,
                  "clforge: snippet kernel arguments are clforge::array, scalars, cl::Buffer, "
                  "clforge::local<T> or trivially copyable structs declared with "
                  "CLFORGE_DECLARE_TYPE");
    c.kind = captured_argument::what::bytes;
    c.type = type_traits<T>::name();
    c.bytes.assign(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  return c;
}
template <class T>
captured_argument capture(const array<T>& a) {
  captured_argument c;
  c.kind = captured_argument::what::array;
  c.type = type_traits<T>::name();
  c.mem = a.get();
  // Known even for an empty array (no buffer), so that it too is refused on another context.
  if (a.ctx()) c.context = a.ctx().get();
  c.length = a.size();
  return c;
}
template <class T>
captured_argument capture(const array_view<T>& v) {
  captured_argument c;
  c.kind = captured_argument::what::array;
  c.type = type_traits<T>::name();
  c.mem = v.get();
  if (v.ctx()) c.context = v.ctx().get();
  c.length = v.size();
  // A view that starts at 0 with step 1 (or has no elements) is indexed like the array itself:
  // the whole-array kernel takes it, no variant is generated. One element needs no step.
  const std::int64_t step = v.size() <= 1 ? 1 : v.step();
  c.is_view = v.size() > 0 && (v.first() != 0 || step != 1);
  c.view_first = v.first();
  c.view_step = step;
  return c;
}
inline captured_argument capture(const cl::Buffer& b) {
  captured_argument c;
  c.kind = captured_argument::what::buffer;
  c.mem = b();
  return c;
}
template <class T>
captured_argument capture(const local<T>& l) {
  captured_argument c;
  c.kind = captured_argument::what::local_memory;
  c.type = type_traits<T>::name();
  c.length = l.count * sizeof(T);
  c.local_count = l.count;
  return c;
}

/// For messages: "array<float> of 12 elements", "a floating-point value", "local<int>(256)".
/// Computed only when an error is reported, so binding does no string formatting.
CLFORGE_API std::string describe(const captured_argument& a);

/// The user's arguments checked against the user's parameter list. Holds what `set_on` needs,
/// so checking happens once and setting is a few clSetKernelArg calls. `who` and `params` are
/// referred to, not copied: both must outlive the argument_list (they live in the kernel
/// object; an argument_list lives for one call).
class CLFORGE_API argument_list {
 public:
  /// Checks count, kind and type of each argument; `who` names the kernel in messages, e.g.
  /// `elementwise_kernel "saxpy"`. Scalars are converted to the parameter's type (an
  /// integer parameter refuses a floating-point value and a value it cannot hold).
  template <class... Args>
  static argument_list bind(std::string_view who, const std::vector<parameter>& params,
                            const Args&... args) {
    return argument_list(who, params, {capture(args)...});
  }

  /// Sets the arguments on `k` at indices first_index, first_index + 1, ... after checking that
  /// every array and buffer belongs to the kernel's OpenCL context (another context's memory
  /// is undefined behaviour on most drivers). Call with the kernel's launch lock held.
  /// Throws clforge::error when an argument is an array_view, unless this list came from
  /// expanding_views() (then a view sets its buffer, its first index and, strided, its step).
  void set_on(cl_kernel k, cl_uint first_index) const;
  /// Throws clforge::error naming the argument when an array or buffer belongs to another
  /// OpenCL context than `context` (what set_on checks, for callers that check before a launch).
  void require_context(cl_context context) const;

  /// True when an array argument is an array_view that is not a plain array (see capture) and
  /// this list is not already expanding_views(): the call needs a view variant.
  bool has_views() const { return has_views_ && !views_expanded_; }
  /// Per argument: '-' not a view, 'u' a view of step 1, 's' a view of another step. Which
  /// variant of a template's kernel the call needs (lib/algorithms/view_variants.hpp).
  std::string view_pattern() const;
  /// A copy whose set_on passes views as buffer, first index (cl_long) and, for pattern 's',
  /// step (cl_long): the parameters of a view variant.
  argument_list expanding_views() const {
    argument_list out = *this;
    out.views_expanded_ = true;
    return out;
  }

  /// Kernel arguments set_on sets: one per user argument, plus a view's first index and step
  /// in a list from expanding_views().
  std::size_t count() const {
    std::size_t n = values_.size();
    if (views_expanded_)
      for (const value& v : values_) n += v.is_view ? (v.view_step == 1 ? 1 : 2) : 0;
    return n;
  }
  /// Length of the first array argument; 0 and has_array() false when there is none.
  bool has_array() const { return has_array_; }
  std::size_t first_array_length() const { return first_array_length_; }
  /// Throws unless every array argument has length `n` (for kernels that read all arrays at
  /// every index); `what` says why in the message.
  void require_array_lengths(std::size_t n, std::string_view what) const;
  /// The memory object of argument j (nullptr for scalars and local memory).
  cl_mem memory(std::size_t j) const { return j < values_.size() ? values_[j].mem : nullptr; }

 private:
  struct value {
    enum class how { memory, bytes, local_bytes } kind;
    cl_mem mem = nullptr;
    cl_context context = nullptr;  // arrays: known without asking the driver
    std::string bytes;
    std::size_t local_bytes = 0;
    std::size_t array_length = 0;
    bool is_array = false;
    bool is_view = false;
    std::int64_t view_first = 0, view_step = 1;
  };
  argument_list(std::string_view who, const std::vector<parameter>& params,
                std::vector<captured_argument> args);

  std::string_view who_;
  const std::vector<parameter>* params_ = nullptr;
  std::vector<value> values_;
  bool has_array_ = false;
  std::size_t first_array_length_ = 0;
  bool has_views_ = false, views_expanded_ = false;
};

/// Throws unless `mem` (of an argument described by `argument`) belongs to `context`; `known` is
/// the memory's context when the caller knows it (nullptr: ask the driver). Null memory (an
/// empty array) is checked by `known`, and passes without it.
CLFORGE_API void require_same_context(cl_mem mem, cl_context known, cl_context context,
                                      std::string_view who, const std::string& argument);

/// queue::launch sets a snippet kernel's bound arguments as consecutive kernel arguments.
template <>
struct launch_argument<argument_list> {
  static std::size_t count(const argument_list& list) { return list.count(); }
  static cl_int set(cl_kernel k, cl_uint& index, const argument_list& list) {
    list.set_on(k, index);  // throws clforge::error naming the argument on failure
    index += static_cast<cl_uint>(list.count());
    return CL_SUCCESS;
  }
};

/// Joins parameters back into a parameter list for generated source ("float a, global ...").
CLFORGE_API std::string parameter_list(const std::vector<parameter>& params);
/// "a, x, y": the names, for generated calls of a user helper.
CLFORGE_API std::string argument_names(const std::vector<parameter>& params);

}  // namespace clforge::detail
