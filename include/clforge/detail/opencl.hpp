// SPDX-License-Identifier: MIT
// Where clforge's public headers include OpenCL-CLHPP. They leave CLHPP's settings to the
// includer: CL_HPP_ENABLE_EXCEPTIONS is never defined here and no inline code in the public
// headers depends on it (it calls the C API, or functions compiled inside the library with the
// library's own settings). When nobody chose a target version before the first include, it is
// OpenCL 3.0, CLHPP's own default, said out loud to keep CLHPP's "not defined" message quiet.
#pragma once

#if !defined(CL_HPP_) && !defined(CL_HPP_TARGET_OPENCL_VERSION)
#define CL_HPP_TARGET_OPENCL_VERSION 300
#endif

#include <CL/opencl.hpp>

#include "clforge/export.hpp"
