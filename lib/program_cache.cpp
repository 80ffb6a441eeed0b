// SPDX-License-Identifier: MIT
// Program cache. Disk entries are single files named by the hex key:
//
//   magic "CLFORGE\1" | format u32 | reserved u32 | key 16 B | binary size u64 |
//   XXH3-64 checksum of (key, binary) u64 | binary
//
// written to a temporary file in the same directory and renamed into place, so readers see a
// whole entry or none and concurrent writers of one program just replace each other's identical
// files. While a process builds a program it holds an flock on `<key>.clbin.lock` (removed when
// it is done): other processes of the user wait for its entry instead of building the same
// program at the same moment, which PoCL's shared kernel cache does not survive (see
// program_cache::build). An entry is used only if it is a regular file owned by this
// user, not writable by group or others, of the exact size, with the expected key and a good
// checksum, and if the driver then builds it; anything else is deleted and rebuilt from source.
#include "program_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "clforge/detail/checks.hpp"
#include "clforge/detail/codegen.hpp"
#include "clforge/error.hpp"
#include "clforge/log.hpp"
#include "context_state.hpp"
#include "private_files.hpp"

#ifndef CLFORGE_VERSION
#error "CLFORGE_VERSION must be defined by the build"
#endif

namespace clforge::detail {

namespace {
constexpr char kMagic[8] = {'C', 'L', 'F', 'O', 'R', 'G', 'E', 1};
constexpr std::uint32_t kFormat = 1;
constexpr std::size_t kHeaderSize = 8 + 4 + 4 + 16 + 8 + 8;
// No program binary comes near this; a larger entry is damaged (or planted) and is deleted
// without being read, so it can neither exhaust memory nor fail every later run.
constexpr std::uint64_t kMaxEntryBytes = std::uint64_t(256) << 20;
// A temporary or lock file this old was left by a process killed between write and rename, or
// while it built.
constexpr std::time_t kStaleTemporarySeconds = 10 * 60;
// How long a build waits for another process that builds the same program (see file_claim):
// PoCL's kernel cache does not survive two processes building one program at once.
constexpr int kClaimWaitSeconds = 120;

bool env_is_off(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return false;
  std::string s(v);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s == "off" || s == "0" || s == "false" || s == "no";
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

template <class T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}
template <class T>
T get(const std::string& in, std::size_t offset) {
  T value;
  std::memcpy(&value, in.data() + offset, sizeof(T));
  return value;
}

std::uint64_t entry_checksum(const cache_key& key, const char* binary, std::size_t size) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, &key.high, sizeof key.high);
  XXH3_64bits_update(state, &key.low, sizeof key.low);
  XXH3_64bits_update(state, binary, size);
  std::uint64_t sum = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return sum;
}

bool dump_source_enabled() {
  const char* v = std::getenv("CLFORGE_DUMP_SOURCE");
  return v && *v && std::string(v) != "0";
}
}  // namespace

std::string cache_key::hex() const {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return text;
}

std::string resolve_cache_directory() {
  if (env_is_off("CLFORGE_CACHE")) return {};
  std::string dir = env_or_empty("CLFORGE_CACHE_DIR");
  if (dir.empty()) {
    std::string xdg = env_or_empty("XDG_CACHE_HOME");
    if (!xdg.empty()) dir = xdg + "/clforge";
  }
  if (dir.empty()) {
    std::string home = env_or_empty("HOME");
    if (home.empty()) return {};
    dir = home + "/.cache/clforge";
  }
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

std::string encode_cache_entry(const cache_key& key, const std::string& binary) {
  std::string out;
  out.reserve(kHeaderSize + binary.size());
  out.append(kMagic, sizeof kMagic);
  put<std::uint32_t>(out, kFormat);
  put<std::uint32_t>(out, 0);
  put(out, key.high);
  put(out, key.low);
  put<std::uint64_t>(out, binary.size());
  put(out, entry_checksum(key, binary.data(), binary.size()));
  out += binary;
  return out;
}

bool decode_cache_entry(const cache_key& key, const std::string& entry, std::string& binary) {
  if (entry.size() < kHeaderSize) return false;
  if (std::memcmp(entry.data(), kMagic, sizeof kMagic) != 0) return false;
  if (get<std::uint32_t>(entry, 8) != kFormat || get<std::uint32_t>(entry, 12) != 0) return false;
  cache_key stored{get<std::uint64_t>(entry, 16), get<std::uint64_t>(entry, 24)};
  if (!(stored == key)) return false;
  std::uint64_t size = get<std::uint64_t>(entry, 32);
  if (size != entry.size() - kHeaderSize) return false;
  const char* payload = entry.data() + kHeaderSize;
  if (get<std::uint64_t>(entry, 40) != entry_checksum(key, payload, size)) return false;
  binary.assign(payload, size);
  return true;
}

namespace {
// The source lines a build log reports. PoCL/clang print "<source>:12:5: error: ...", NVIDIA
// "<kernel>:12:5: error: ...": every ":<line>:<column>:", left to right, matches not
// overlapping. A linear scan: std::regex recursed once per digit and overflowed the stack on a
// long run of digits in the log (found by fuzz/fuzz_build_log.cpp).
std::set<std::size_t> reported_lines(const std::string& log) {
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  auto digits_end = [&](std::size_t from) {
    while (from < log.size() && is_digit(log[from])) ++from;
    return from;
  };
  std::set<std::size_t> reported;
  for (std::size_t i = 0; i < log.size(); ++i) {
    if (log[i] != ':') continue;
    const std::size_t line_end = digits_end(i + 1);
    if (line_end == i + 1 || line_end >= log.size() || log[line_end] != ':') continue;
    const std::size_t column_end = digits_end(line_end + 1);
    if (column_end == line_end + 1 || column_end >= log.size() || log[column_end] != ':') continue;
    if (line_end - i - 1 < 9) reported.insert(std::stoul(log.substr(i + 1, line_end - i - 1)));
    i = column_end;  // the next match starts after this one's last ':'
  }
  return reported;
}
}  // namespace

std::string quote_error_lines(const std::string& log, const std::string& source) {
  const std::set<std::size_t> reported = reported_lines(log);
  std::vector<std::string> lines;
  std::istringstream in(source);
  for (std::string line; std::getline(in, line);) lines.push_back(line);

  std::set<std::size_t> shown;
  for (std::size_t line : reported) {
    if (line == 0 || line > lines.size()) continue;
    std::size_t first = line > 5 ? line - 5 : 1;
    std::size_t last = std::min(lines.size(), line + 5);
    for (std::size_t l = first; l <= last; ++l) shown.insert(l);
  }
  std::ostringstream out;
  std::size_t previous = 0;
  for (std::size_t l : shown) {
    if (previous != 0 && l != previous + 1) out << "      ...\n";
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "%s%5zu | ", reported.count(l) ? ">>" : "  ", l);
    out << prefix << lines[l - 1] << '\n';
    previous = l;
  }
  return out.str();
}

std::vector<std::string> declared_kernel_names(const std::string& source) {
  const std::vector<std::string_view> tokens = detail::source_tokens(source);
  // `kernel` / `__kernel`, then qualifiers and attributes: the last identifier before `(` names
  // the kernel. An __attribute__((...)) between them is skipped whole.
  std::vector<std::string> names;
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    if (tokens[k] != "kernel" && tokens[k] != "__kernel") continue;
    std::string last;
    for (std::size_t j = k + 1; j < tokens.size(); ++j) {
      const std::string_view t = tokens[j];
      if (t == "__attribute__") {
        int depth = 0;
        while (++j < tokens.size()) {
          depth += tokens[j] == "(" ? 1 : tokens[j] == ")" ? -1 : 0;
          if (depth == 0) break;
        }
      } else if (t == "(") {
        if (!last.empty()) names.emplace_back(last);
        break;
      } else if (detail::is_identifier_char(t[0])) {
        last = t;
      } else {
        break;  // not a kernel declaration
      }
    }
  }
  // A name an object-like macro spells (`#define NAME long_name`, through a few levels) is the
  // name the compiler sees: NVIDIA's driver corrupted the process's heap building a kernel so
  // named with 280 characters, before clforge could read the built program's names.
  std::map<std::string, std::string> macros;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string hash, define, name, value, rest;
    words >> hash;
    if (hash == "#")
      words >> define;
    else if (hash.rfind("#", 0) == 0)
      define = hash.substr(1);
    if (define != "define" || !(words >> name >> value) || (words >> rest)) continue;
    if (detail::is_identifier(name) && detail::is_identifier(value)) macros[name] = value;
  }
  for (std::string& name : names)
    for (int level = 0; level < 8; ++level) {
      const auto m = macros.find(name);
      if (m == macros.end()) break;
      name = m->second;
    }
  return names;
}

namespace {
// CL_PROGRAM_KERNEL_NAMES of a built program; empty where the driver does not say.
std::vector<std::string> built_kernel_names(const cl::Program& built) {
  std::size_t bytes = 0;
  if (clGetProgramInfo(built(), CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &bytes) != CL_SUCCESS)
    return {};
  std::string list(bytes, '\0');
  if (clGetProgramInfo(built(), CL_PROGRAM_KERNEL_NAMES, bytes, list.data(), nullptr) != CL_SUCCESS)
    return {};
  list.resize(std::strlen(list.c_str()));
  std::vector<std::string> names;
  std::istringstream in(list);
  for (std::string name; std::getline(in, name, ';');) names.push_back(name);
  return names;
}
}  // namespace

cl::Program build_or_throw(const cl::Context& context, const cl::Device& device,
                           const std::string& source, const std::string& options) {
  cl_device_id id = device();
  for (int attempt = 1;; ++attempt) {
    cl::Program program;
    translate_cl_errors([&] { program = cl::Program(context, source); });
    const cl_int code = clBuildProgram(program(), 1, &id, options.c_str(), nullptr, nullptr);
    if (code == CL_SUCCESS) return program;
    std::string log;
    try {
      log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
    } catch (const cl::Error&) {
      log = "(the driver returned no build log)";
    }
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    // A failure that names no line of the source is the driver's, not the program's: PoCL's
    // kernel cache, shared by every process of the user, failed valid programs when another
    // process replaced the same program.bc at the same moment ("pocl_remove(...program.bc)
    // failed", the log only "Device ... failed to build the program"). Built again, it passes.
    const bool unexplained = reported_lines(log).empty();
    if (code == CL_BUILD_PROGRAM_FAILURE && unexplained && attempt <= kBuildRetries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50 * attempt));
      continue;
    }
    std::ostringstream detail;
    detail << "device: " << device.getInfo<CL_DEVICE_NAME>() << '\n'
           << "options: " << (options.empty() ? "(none)" : options) << '\n';
    if (attempt > 1)
      detail << "built " << attempt << " times: each failed without naming a line of the source\n";
    detail << "build log:\n" << log << '\n';
    if (!source.empty()) {
      std::string quoted = quote_error_lines(log, source);
      if (!quoted.empty()) detail << "source around the reported lines:\n" << quoted;
    }
    throw_cl_error("clBuildProgram", code, detail.str());
  }
}

program_cache::program_cache(cl::Context context, cl::Device device, const device_info& info)
    : context_(std::move(context)), device_(std::move(device)) {
  // Every field that can change what the driver produces is part of the key; a driver update
  // changes driver_version and so invalidates every entry built by the old one.
  std::ostringstream identity;
  identity << info.name << '\n'
           << info.vendor << '\n'
           << info.driver_version << '\n'
           << info.platform_name << '\n'
           << info.platform_version << '\n'
           << "clforge " CLFORGE_VERSION " cache format " << kFormat;
  device_identity_ = identity.str();
  device_label_ = info.name + " (" + info.platform_name + ")";

  directory_ = resolve_cache_directory();
  if (directory_.empty()) return;
  if (!make_directories(directory_)) {
    disable_disk("cannot create " + directory_ + ": " + std::strerror(errno));
    return;
  }
  struct stat st {};
  if (::stat(directory_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    disable_disk(directory_ + " is not a directory");
  } else if (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0) {
    // Anyone who can write there could plant a binary for us to load.
    disable_disk(directory_ + " is not owned by this user or is writable by group or others");
  } else if (::access(directory_.c_str(), R_OK | W_OK | X_OK) != 0) {
    disable_disk(directory_ + " is not writable");
  } else {
    // *.clbin.tmp.* and *.clbin.lock files: left by a process killed between write and rename,
    // or while it built.
    remove_stale_temporaries(
        directory_,
        [](const std::string& name) {
          return name.find(".clbin.tmp.") != std::string::npos ||
                 (name.size() > 11 && name.compare(name.size() - 11, 11, ".clbin.lock") == 0);
        },
        kStaleTemporarySeconds);
  }
}

void program_cache::disable_disk(const std::string& why) {
  // Said once per process, however many contexts hit it: a noisy library is a bad guest.
  static std::atomic<bool> said{false};
  if (!said.exchange(true))
    detail::log_message(log_level::warning,
                        "disk cache off (" + why + "); programs are cached in memory only");
  directory_.clear();
}

cache_key program_cache::key_for(const std::string& source, const std::string& options) const {
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  // Length-prefix each part so ("ab","c") and ("a","bc") differ.
  for (const std::string* part : {&source, &options, &device_identity_}) {
    std::uint64_t size = part->size();
    XXH3_128bits_update(state, &size, sizeof size);
    XXH3_128bits_update(state, part->data(), part->size());
  }
  XXH128_hash_t h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  return {h.high64, h.low64};
}

program program_cache::build(const std::string& source, const std::string& options) {
  const cache_key key = key_for(source, options);
  std::shared_ptr<slot> entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& found = slots_[key];
    if (!found) found = std::make_shared<slot>();
    entry = found;
  }
  std::lock_guard<std::mutex> building(entry->mutex);
  if (entry->built) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.memory_hits;
    return entry->built;
  }
  if (dump_source_enabled()) {
    detail::log_message(log_level::debug, "source of program " + key.hex() + " (options: \"" +
                                              options + "\"):\n" + source + "\n(end of program " +
                                              key.hex() + ")");
  }
  // Drivers put kernel names into file names: PoCL aborted the process when it linked a kernel
  // named longer than its kernel cache's file names allow (on reading the binaries, in
  // store_to_disk). The names the source spells out are checked before the compiler sees them,
  // the names the built program reports (macros can make names) before anything reads it.
  for (const std::string& name : declared_kernel_names(source))
    require_kernel_name_length("context::build", name, max_kernel_name_length);
  program built;
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    dir = directory_;
  }
  std::optional<file_claim> claim;
  if (!dir.empty()) {
    // PoCL's kernel cache (one directory for every process of the user) crashed a process
    // reading a program's binaries while another wrote the same program's files, and failed
    // builds of valid programs; processes starting at once with an empty cache built every
    // program together. With the claim one builds, the others then load its entry.
    claim.emplace(dir + "/" + key.hex() + ".clbin.lock", kClaimWaitSeconds);
    built = load_from_disk(key, source, options);
  }
  const bool compiled = !built;
  if (compiled) built = compile(source, options);
  for (const std::string& name : built_kernel_names(built.cl()))
    require_kernel_name_length("context::build", name, max_kernel_name_length);
  if (compiled && !dir.empty()) store_to_disk(key, built);
  entry->built = built;
  return built;
}

program program_cache::compile(const std::string& source, const std::string& options) {
  auto state = std::make_shared<program_state>();
  state->device = device_;
  state->source = source;
  state->options = options;
  state->handle = build_or_throw(context_, device_, source, options);
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.compiles;
  return program(state);
}

program program_cache::load_from_disk(const cache_key& key, const std::string& source,
                                      const std::string& options) {
  std::string path;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (directory_.empty()) return {};
    path = directory_ + "/" + key.hex() + ".clbin";
  }
  // O_NOFOLLOW: a symlink planted as an entry is refused (ELOOP) and later replaced by the
  // rename in store_to_disk, its target untouched. O_NONBLOCK: a FIFO planted as an entry would
  // otherwise block this open forever; it is then refused as not a regular file.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};  // not there yet: the common miss
  std::string entry;
  struct stat st {};
  bool trusted = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
                 (st.st_mode & 022) == 0;
  const bool oversized = trusted && static_cast<std::uint64_t>(st.st_size) > kMaxEntryBytes;
  if (trusted && !oversized) {
    entry.resize(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    while (done < entry.size()) {
      ssize_t got = ::read(fd, entry.data() + done, entry.size() - done);
      if (got <= 0) break;
      done += static_cast<std::size_t>(got);
    }
    entry.resize(done);
  }
  ::close(fd);

  auto reject = [&] {
    if (trusted) ::unlink(path.c_str());  // replaced by the rebuild; never touch others' files
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.disk_rejects;
    return program();
  };
  std::string binary;
  if (!trusted || oversized || !decode_cache_entry(key, entry, binary)) return reject();

  auto state = std::make_shared<program_state>();
  state->device = device_;
  state->source = source;
  state->options = options;
  cl_device_id id = device_();
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(binary.data());
  std::size_t size = binary.size();
  cl_int status = CL_SUCCESS, code = CL_SUCCESS;
  cl_program raw = clCreateProgramWithBinary(context_(), 1, &id, &size, &bytes, &status, &code);
  if (code != CL_SUCCESS || status != CL_SUCCESS) {
    if (raw) clReleaseProgram(raw);
    return reject();
  }
  state->handle = cl::Program(raw);  // takes ownership
  // A binary the driver accepted but cannot build (a driver change the key missed, a
  // corrupted-but-checksummed file) is evicted and rebuilt, never fatal.
  if (clBuildProgram(raw, 1, &id, options.c_str(), nullptr, nullptr) != CL_SUCCESS) return reject();
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.disk_hits;
  return program(state);
}

void program_cache::store_to_disk(const cache_key& key, const program& built) {
  // On PoCL, reading CL_PROGRAM_BINARIES compiles a generic work-group function: 40-130 ms
  // beside a 600-900 ms cold build here. Writing from a background thread only moved that cost
  // into the next launch (PoCL holds the program meanwhile), so it is paid here, once, on the
  // compile path; a disk hit never pays it.
  std::string binary;
  try {
    std::vector<std::vector<unsigned char>> binaries = built.cl().getInfo<CL_PROGRAM_BINARIES>();
    if (binaries.size() != 1 || binaries[0].empty()) return;  // driver keeps no binaries
    binary.assign(binaries[0].begin(), binaries[0].end());
  } catch (const cl::Error&) {
    return;
  }
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    dir = directory_;
  }
  if (dir.empty()) return;
  const std::string final_path = dir + "/" + key.hex() + ".clbin";
  write_failure failed;
  if (!write_file_atomically(final_path, encode_cache_entry(key, binary), failed)) {
    const int e = failed.error_number;
    if (failed.at_rename && (e == EISDIR || e == ENOTEMPTY || e == EEXIST || e == EBUSY))
      // Something that is not an entry (a directory) sits at this one name: skip this entry,
      // keep the cache for every other program.
      return;
    std::lock_guard<std::mutex> lock(mutex_);
    disable_disk("cannot write " + dir + ": " + std::strerror(e));
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.disk_writes;
}

cache_stats program_cache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace clforge::detail
