// SPDX-License-Identifier: MIT
// clforge::error: the single exception type the library throws.
#pragma once

#include <stdexcept>
#include <string>

#include "clforge/detail/opencl.hpp"

namespace clforge {

/// Name of an OpenCL error code, e.g. "CL_INVALID_WORK_GROUP_SIZE" for -54.
CLFORGE_API const char* error_name(cl_int code);

/// Every failure in clforge surfaces as this. For OpenCL failures `call()` names the API call
/// and `code()` the error code; for usage errors the code is CL_SUCCESS and only what() speaks.
class CLFORGE_API error : public std::runtime_error {
 public:
  /// A usage error: `message` says what was wrong.
  explicit error(const std::string& message) : std::runtime_error(message) {}
  /// An OpenCL failure of `call` with `code`; `detail` is appended to the message.
  error(const std::string& call, cl_int code, const std::string& detail = {});
  /// `cause` with `prefix` in front of its message; call() and code() stay those of `cause`.
  error(const std::string& prefix, const error& cause);

  /// The OpenCL call that failed (empty for usage errors).
  const std::string& call() const { return call_; }
  /// The OpenCL error code (CL_SUCCESS for usage errors).
  cl_int code() const { return code_; }
  /// The name of code(), e.g. "CL_OUT_OF_RESOURCES".
  const char* code_name() const { return error_name(code_); }

 private:
  std::string call_;
  cl_int code_ = CL_SUCCESS;
};

namespace detail {
/// Throws clforge::error for a failed OpenCL call; `detail` is appended to the message.
[[noreturn]] CLFORGE_API void throw_cl_error(const std::string& call, cl_int code,
                                             const std::string& detail = {});

/// Checks a raw OpenCL return code.
inline void check(cl_int code, const char* call) {
  if (code != CL_SUCCESS) throw_cl_error(call, code);
}

#if defined(CL_HPP_ENABLE_EXCEPTIONS)
/// Runs `body`, turning CLHPP's cl::Error into clforge::error (cl::Error::what() is the call).
/// For code built with CLHPP exceptions on (the library itself); the public headers' inline
/// code never relies on it.
template <class Body>
decltype(auto) translate_cl_errors(Body&& body, const std::string& detail = {}) {
  try {
    return body();
  } catch (const cl::Error& e) {
    throw_cl_error(e.what(), e.err(), detail);
  }
}
#endif
}  // namespace detail
}  // namespace clforge
