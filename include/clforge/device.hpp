// Device discovery and selection (CLFORGE_DEVICE).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "clforge/detail/opencl.hpp"

namespace clforge {

/// What clforge knows about one device; read once when a context is made.
struct device_info {
  std::size_t platform_index = 0;
  std::size_t device_index = 0;
  std::string platform_name;
  std::string platform_version;
  std::string name;
  std::string vendor;
  std::string driver_version;
  std::string opencl_c_version;
  cl_device_type type = 0;
  cl_uint compute_units = 0;
  std::size_t max_work_group_size = 0;
  std::size_t global_mem_bytes = 0;
  std::size_t max_alloc_bytes = 0;
  std::size_t local_mem_bytes = 0;
  bool has_fp64 = false;
  bool is_gpu() const { return (type & CL_DEVICE_TYPE_GPU) != 0; }
  bool is_cpu() const { return (type & CL_DEVICE_TYPE_CPU) != 0; }
  /// "gpu", "cpu", "accelerator" or "other".
  std::string type_name() const;
  /// "P:D  platform / device (type)", as listed in errors and by clforge-info.
  std::string describe() const;
};

/// Reads the properties of a device (platform and device indices are left at 0).
device_info query_device_info(const cl::Device& device);

/// A device on this machine, in platform order then device order.
struct device_entry {
  cl::Device device;
  device_info info;
};

/// Every OpenCL device of every platform (empty when the platforms have no device). Throws
/// clforge::error saying how to install a driver when there is no OpenCL platform at all.
/// Enumerations are serialised within the process (a driver's first one can be racy).
std::vector<device_entry> list_devices();

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
std::size_t choose_device(std::string_view spec, const std::vector<device_info>& candidates);

/// The device CLFORGE_DEVICE (or `spec` when given) selects on this machine.
cl::Device select_device(std::string_view spec);
/// select_device with the value of the CLFORGE_DEVICE environment variable ("" when unset).
cl::Device default_device();

}  // namespace clforge
