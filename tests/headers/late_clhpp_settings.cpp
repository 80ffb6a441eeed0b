// SPDX-License-Identifier: MIT
// Compiled by the headers_late_clhpp_settings test, which expects the compiler to say that the
// macro is redefined: CLHPP reads its settings once, at its first include, and clforge's
// headers include it, so a setting made after them comes too late (README, "Interop with
// OpenCL-CLHPP"). The rule is: settings first, then clforge and CLHPP in either order.
#include <clforge/clforge.hpp>

#define CL_HPP_TARGET_OPENCL_VERSION 120  // too late: diagnosed, not silently ignored
#include <CL/opencl.hpp>

int main() {
  return 0;
}
