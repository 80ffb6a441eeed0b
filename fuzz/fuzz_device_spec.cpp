// SPDX-License-Identifier: MIT
// CLFORGE_DEVICE parsing (choose_device, pure). Properties: for a fixed list of devices it
// returns a valid index or throws clforge::error; for an empty list it always throws; and the
// answer does not depend on surrounding whitespace.
#include <cstdint>
#include <string>
#include <vector>

#include <clforge/device.hpp>
#include <clforge/error.hpp>

#include "fuzz_common.hpp"

namespace {
std::vector<clforge::device_info> machine() {
  auto make = [](std::size_t p, std::size_t d, const char* platform, const char* name,
                 const char* vendor, cl_device_type type) {
    clforge::device_info info;
    info.platform_index = p;
    info.device_index = d;
    info.platform_name = platform;
    info.platform_version = std::string("OpenCL 3.0 ") + platform;
    info.name = name;
    info.vendor = vendor;
    info.type = type;
    return info;
  };
  return {
      make(0, 0, "Portable Computing Language", "pthread-cpu", "AuthenticAMD", CL_DEVICE_TYPE_CPU),
      make(1, 0, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", "NVIDIA Corporation", CL_DEVICE_TYPE_GPU),
      make(1, 1, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", "NVIDIA Corporation", CL_DEVICE_TYPE_GPU),
      make(2, 0, "Xilinx", "fpga0", "Xilinx", CL_DEVICE_TYPE_ACCELERATOR)};
}

// The index choose_device gives, or -1 when it throws clforge::error.
long choose(const std::string& spec, const std::vector<clforge::device_info>& all) {
  try {
    std::size_t i = clforge::choose_device(spec, all);
    FUZZ_CHECK(i < all.size());
    return static_cast<long>(i);
  } catch (const clforge::error&) {
    return -1;
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<clforge::device_info> all = machine();
  const std::string spec(reinterpret_cast<const char*>(data), size);
  const long chosen = choose(spec, all);
  FUZZ_CHECK(choose(" " + spec + "\t", all) == chosen);
  FUZZ_CHECK(choose(spec, {}) == -1);
  return 0;
}
