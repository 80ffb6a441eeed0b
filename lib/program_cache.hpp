// SPDX-License-Identifier: MIT
// The program cache: source + options + device identity -> built program.
// Memory first, then disk, then the compiler. See program_cache.cpp for the entry format.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "clforge/device.hpp"
#include "clforge/program.hpp"

namespace clforge::detail {

struct CLFORGE_API cache_key {
  std::uint64_t high = 0, low = 0;
  bool operator==(const cache_key& o) const { return high == o.high && low == o.low; }
  std::string hex() const;
};
struct cache_key_hash {
  std::size_t operator()(const cache_key& k) const { return static_cast<std::size_t>(k.low); }
};

/// Where disk entries go, from CLFORGE_CACHE, CLFORGE_CACHE_DIR, XDG_CACHE_HOME and HOME.
/// Empty when the disk cache is off.
CLFORGE_API std::string resolve_cache_directory();

/// The bytes of a disk entry for `binary` under `key`, and the check that reverses it.
CLFORGE_API std::string encode_cache_entry(const cache_key& key, const std::string& binary);
/// The binary inside `entry` if it is a well-formed entry for `key`; false otherwise.
CLFORGE_API bool decode_cache_entry(const cache_key& key, const std::string& entry,
                                    std::string& binary);

class program_cache {
 public:
  program_cache(cl::Context context, cl::Device device, const device_info& info);

  program build(const std::string& source, const std::string& options);
  cache_stats stats() const;
  const std::string& directory() const { return directory_; }

 private:
  struct slot {
    std::mutex mutex;  // held while one thread loads or compiles; others for it wait here
    program built;
  };

  cache_key key_for(const std::string& source, const std::string& options) const;
  program compile(const std::string& source, const std::string& options);
  program load_from_disk(const cache_key& key, const std::string& source,
                         const std::string& options);
  void store_to_disk(const cache_key& key, const program& built);
  void disable_disk(const std::string& why);

  cl::Context context_;
  cl::Device device_;
  std::string device_identity_;  // name, vendor, driver, platform version, clforge version
  std::string device_label_;     // for messages
  std::string directory_;        // empty: disk cache off

  mutable std::mutex mutex_;
  std::unordered_map<cache_key, std::shared_ptr<slot>, cache_key_hash> slots_;
  cache_stats stats_;
};

/// How often build_or_throw builds again after a failure whose log names no source line.
constexpr int kBuildRetries = 2;

/// Builds `source` with `options` for `device` of `context`, turning a failure into
/// clforge::error with the device, the options, the build log and the source lines around each
/// line the log reports. A failure whose log names no line of the source is built again, up to
/// kBuildRetries times, with a new program object.
cl::Program build_or_throw(const cl::Context& context, const cl::Device& device,
                           const std::string& source, const std::string& options);

/// The names of the kernels `source` declares (`kernel`/`__kernel` ... name `(`), outside
/// comments and literals; names made by macros are not seen.
CLFORGE_API std::vector<std::string> declared_kernel_names(const std::string& source);

/// The part of a build error message that quotes `source` around the lines `log` reports.
CLFORGE_API std::string quote_error_lines(const std::string& log, const std::string& source);

}  // namespace clforge::detail
