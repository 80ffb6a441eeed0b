// SPDX-License-Identifier: MIT
// The one vendor match: which tuning table a device takes, and which vendor-only kernel forms
// (NVIDIA's warp rankings in the sort) it may run.
#pragma once

#include "clforge/device.hpp"

namespace clforge::detail {

enum class device_vendor { nvidia, amd, intel, other };

/// The vendor of `info`, from CL_DEVICE_VENDOR (case-insensitive: "NVIDIA Corporation",
/// "Advanced Micro Devices, Inc." or "AMD", "Intel(R) Corporation"; anything else is other).
device_vendor vendor_of(const device_info& info);

}  // namespace clforge::detail
