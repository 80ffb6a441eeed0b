// SPDX-License-Identifier: MIT
// Device discovery and selection (CLFORGE_DEVICE).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "clforge/detail/opencl.hpp"

namespace clforge {

/// What clforge knows about one device; read once when a context is made.
struct CLFORGE_API device_info {
  /// Index of the platform in the ICD loader's list.
  std::size_t platform_index = 0;
  /// Index of the device within its platform.
  std::size_t device_index = 0;
  /// CL_PLATFORM_NAME.
  std::string platform_name;
  /// CL_PLATFORM_VERSION.
  std::string platform_version;
  /// CL_DEVICE_NAME.
  std::string name;
  /// CL_DEVICE_VENDOR.
  std::string vendor;
  /// CL_DRIVER_VERSION.
  std::string driver_version;
  /// CL_DEVICE_OPENCL_C_VERSION.
  std::string opencl_c_version;
  /// CL_DEVICE_TYPE.
  cl_device_type type = 0;
  /// CL_DEVICE_MAX_COMPUTE_UNITS.
  cl_uint compute_units = 0;
  /// CL_DEVICE_MAX_WORK_GROUP_SIZE.
  std::size_t max_work_group_size = 0;
  /// CL_DEVICE_GLOBAL_MEM_SIZE.
  std::size_t global_mem_bytes = 0;
  /// CL_DEVICE_MAX_MEM_ALLOC_SIZE.
  std::size_t max_alloc_bytes = 0;
  /// CL_DEVICE_LOCAL_MEM_SIZE.
  std::size_t local_mem_bytes = 0;
  /// True when the device supports double.
  bool has_fp64 = false;
  /// True for a GPU.
  bool is_gpu() const { return (type & CL_DEVICE_TYPE_GPU) != 0; }
  /// True for a CPU device.
  bool is_cpu() const { return (type & CL_DEVICE_TYPE_CPU) != 0; }
  /// "gpu", "cpu", "accelerator" or "other".
  std::string type_name() const;
  /// "P:D  platform / device (type)", as listed in errors and by clforge-info.
  std::string describe() const;
};

/// Reads the properties of a device (platform and device indices are left at 0).
CLFORGE_API device_info query_device_info(const cl::Device& device);

/// A device on this machine, in platform order then device order.
struct device_entry {
  /// The device.
  cl::Device device;
  /// What clforge found out about it.
  device_info info;
};

/// Every OpenCL device of every platform (empty when the platforms have no device). Throws
/// clforge::error saying how to install a driver when there is no OpenCL platform at all.
/// Enumerations are serialised within the process (a driver's first one can be racy).
CLFORGE_API std::vector<device_entry> list_devices();

/// Picks a device for `spec` (the CLFORGE_DEVICE grammar) among `candidates`' infos; returns its
/// index in `candidates`. Pure: no OpenCL calls, so it is testable and fuzzable.
///   ""                    the first GPU, else the first device
///   "gpu" "cpu" "accelerator"   the first device of that type
///   "N" (digits only)     the device at position N of `candidates` (clforge-info's order)
///   "P:D"                 platform index P, device index D
///   anything else         the first device whose device or platform name contains it as
///                         whole words (case-insensitive; a word is a run of letters and
///                         digits), else whose vendor or platform version does, e.g. "nvidia",
///                         "h100", "pocl" (in PoCL's platform version); never by a part of a word
/// Throws clforge::error listing the devices when nothing matches.
CLFORGE_API std::size_t choose_device(std::string_view spec,
                                      const std::vector<device_info>& candidates);

/// The device CLFORGE_DEVICE (or `spec` when given) selects on this machine.
CLFORGE_API cl::Device select_device(std::string_view spec);
/// select_device with the value of the CLFORGE_DEVICE environment variable ("" when unset).
CLFORGE_API cl::Device default_device();

}  // namespace clforge
