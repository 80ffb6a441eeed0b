// SPDX-License-Identifier: MIT
// The non-template parts of array expressions, random numbers and complex numbers: the
// per-context kernel cache, preambles and errors.
#include <string>

#include "clforge/array_expr.hpp"
#include "clforge/complex.hpp"
#include "clforge/detail/codegen.hpp"
#include "clforge/random.hpp"

namespace clforge {

namespace detail {

[[noreturn]] void throw_no_home_queue(const char* what) {
  throw error(std::string(what) +
              ": the array has no home queue (it was made on a context, not a queue); use "
              "clforge::assign(q, y, expression) or set_home_queue(q)");
}

[[noreturn]] void throw_expression_error(const std::string& what) {
  throw error("clforge array expression: " + what);
}

void expression_check::operand(std::size_t n, const context& ctx) {
  ++operands;
  if (!ctx) throw_expression_error("operand " + std::to_string(operands) + " is an empty array");
  if (context_id == nullptr) {
    context_id = ctx.identity();
  } else if (context_id != ctx.identity()) {
    throw_expression_error("operand " + std::to_string(operands) +
                           " belongs to another context than the first operand");
  }
  if (!has_length) {
    has_length = true;
    length = n;
  } else if (n != length) {
    throw_expression_error("arrays of different lengths: operand " + std::to_string(operands) +
                           " has " + std::to_string(n) + " elements, the first " +
                           std::to_string(length));
  }
}

expression_cache& expression_cache_of(const context& ctx) {
  std::shared_ptr<void> cache = ctx.attachment("clforge.expressions", [] {
    return std::static_pointer_cast<void>(std::make_shared<expression_cache>());
  });
  // The context keeps the cache alive for as long as `ctx` is usable.
  return *static_cast<expression_cache*>(cache.get());
}

std::string expression_preamble(const context& ctx, const expression_source& s) {
  std::string preamble;
  if (s.fp64) {
    if (!ctx.info().has_fp64)
      throw_expression_error("double precision (double or complex<double>) on " + ctx.info().name +
                             ", which has no fp64 support (cl_khr_fp64)");
    preamble += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  }
  if (s.complex) preamble += complex_header();
  return preamble;
}

}  // namespace detail

const std::string& complex_header() {
  static const std::string text(detail::embedded_kernel("complex"));
  return text;
}

namespace random {
const std::string& philox_header() {
  static const std::string text(clforge::detail::embedded_kernel("philox"));
  return text;
}
}  // namespace random

}  // namespace clforge
