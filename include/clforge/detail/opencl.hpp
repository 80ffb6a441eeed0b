// The one place clforge includes OpenCL-CLHPP, so every translation unit sees the same settings.
// Minimum 1.1: CLHPP 2023.02 only defines the run-time platform-version checks its queue
// constructors need when the minimum is below 1.2, and it keeps OpenCL 1.x drivers usable.
#pragma once

#ifndef CL_HPP_ENABLE_EXCEPTIONS
#define CL_HPP_ENABLE_EXCEPTIONS
#endif
#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 110
#endif
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif

#include <CL/opencl.hpp>
