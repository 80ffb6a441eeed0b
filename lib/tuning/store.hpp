// SPDX-License-Identifier: MIT
// Autotuned policies on disk: one text file per device in the program cache's directory,
//
//   clforge tuned results 1
//   device <CL_DEVICE_NAME>            vendor, driver, platform, clforge: one line each
//   entry <template> <problem class> <settings> <default seconds> <tuned seconds>
//   ...
//   checksum <XXH3-64 of every line above, hex>
//
// named tuned-<XXH3-64 of the device key>.txt. Written to a temporary file and renamed into
// place (readers see a whole file or none); each store merges its entries into the file while
// it holds a file_claim on tuned-<hash>.txt.lock, so concurrent stores keep every entry. Read only when it is a regular file owned by this
// user, not writable by group or others, under 1 MiB, with a good checksum and exactly this
// device's key; anything else is ignored, said once per process on stderr.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clforge/context.hpp"
#include "clforge/device.hpp"
#include "clforge/export.hpp"

namespace clforge::detail {

/// One stored policy.
struct tuned_entry {
  std::string template_name;  // a registry row: elementwise, reduce, scan, polygon, sort, ...
  std::string problem;        // problem class, "float32/2^22": element type / size bucket
  std::string settings;       // the whole policy, "key=value,..."
  double default_seconds = 0;
  double tuned_seconds = 0;
};

/// The key the results of `info`'s device are filed under (name, vendor, driver, platform
/// version, clforge version), one field a line.
CLFORGE_API std::string tuned_device_key(const device_info& info);

/// The results file of `info`'s device; "" when the cache directory is off.
CLFORGE_API std::string tuned_results_path(const device_info& info);

/// The stored results of `info`'s device (empty when none or the file is not trusted).
CLFORGE_API std::vector<tuned_entry> load_tuned(const device_info& info);

/// Adds `entries` to the device's file, replacing those of the same template and problem
/// class. Throws clforge::error when the cache directory is off or cannot be written.
CLFORGE_API void store_tuned(const device_info& info, const std::vector<tuned_entry>& entries);

/// Deletes the device's file; false when there was none.
CLFORGE_API bool remove_tuned(const device_info& info);

/// For tests: file results as if the driver version were `driver` ("" undoes it). Simulates a
/// driver update without one.
CLFORGE_API void simulate_driver_version_for_tests(const std::string& driver);

/// "2^K" for the power of two at or below `n` (n >= 1).
CLFORGE_API std::string size_bucket(std::size_t n);

/// The stored policy of `template_name` for `ctx`'s device: of the largest problem class stored
/// ("" when none).
std::string stored_policy(const context& ctx, const std::string& template_name);

/// A count that moves whenever this process stores or removes results (or simulates another
/// driver): what a built template compares against to see that its policy may have changed.
std::uint64_t stored_generation();

}  // namespace clforge::detail
