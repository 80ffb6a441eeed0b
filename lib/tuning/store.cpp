// SPDX-License-Identifier: MIT
// Autotuned results on disk (format and trust rules in store.hpp): written by the tuner, read
// by the policy lookup (resolve.cpp).
#include "store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "../private_files.hpp"
#include "../program_cache.hpp"
#include "clforge/error.hpp"
#include "clforge/log.hpp"
#include "registry.hpp"

#ifndef CLFORGE_VERSION
#error "CLFORGE_VERSION must be defined by the build"
#endif

namespace clforge::detail {

namespace {

constexpr const char* kMagicLine = "clforge tuned results 1";
constexpr std::size_t kMaxFileBytes = std::size_t(1) << 20;
// How long a store waits for another process's store (a read, a merge and a small write) before
// it writes without its turn.
constexpr int kStoreWaitSeconds = 30;

std::mutex& store_mutex() {
  static std::mutex m;
  return m;
}
std::string& simulated_driver() {
  static std::string driver;
  return driver;
}
// Moves whenever what load_tuned finds may have changed in this process (tuning_stamp).
std::atomic<std::uint64_t> g_generation{0};

// One line per field; a line break inside a field would forge the next field, so it is
// replaced (device strings never carry one).
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string hex64(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

// Said once per file per process: a noisy library is a bad guest.
void report_ignored(const std::string& path, const std::string& why) {
  static std::mutex m;
  static std::set<std::string> said;
  {
    std::lock_guard<std::mutex> lock(m);
    if (!said.insert(path).second) return;
  }
  detail::log_message(log_level::warning,
                      "ignoring tuned results " + path + " (" + why + "); the tuning tables apply");
}

// The text of a results file for `key` holding `entries`, checksum line included.
std::string encode(const std::string& key, const std::vector<tuned_entry>& entries) {
  std::ostringstream body;
  body << kMagicLine << '\n' << key << '\n';
  for (const tuned_entry& e : entries) {
    char times[64];
    std::snprintf(times, sizeof times, "%.9g %.9g", e.default_seconds, e.tuned_seconds);
    body << "entry " << e.template_name << ' ' << e.problem << ' ' << e.settings << ' ' << times
         << '\n';
  }
  const std::string text = body.str();
  return text + "checksum " + hex64(XXH3_64bits(text.data(), text.size())) + "\n";
}

// The entries of `text` if it is a good file for `key`; else false with `why`.
bool decode(const std::string& key, const std::string& text, std::vector<tuned_entry>& entries,
            std::string& why) {
  const std::size_t mark = text.rfind("checksum ");
  if (mark == std::string::npos || (mark != 0 && text[mark - 1] != '\n')) {
    why = "no checksum line";
    return false;
  }
  const std::string body = text.substr(0, mark);
  std::string sum = text.substr(mark + 9);
  while (!sum.empty() && (sum.back() == '\n' || sum.back() == '\r')) sum.pop_back();
  if (sum != hex64(XXH3_64bits(body.data(), body.size()))) {
    why = "bad checksum";
    return false;
  }
  const std::string head = std::string(kMagicLine) + "\n" + key + "\n";
  if (body.compare(0, head.size(), head) != 0) {
    why = "filed for another device, driver or clforge version";
    return false;
  }
  std::istringstream lines(body.substr(head.size()));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string word;
    tuned_entry e;
    if (!(fields >> word >> e.template_name >> e.problem >> e.settings >> e.default_seconds >>
          e.tuned_seconds) ||
        word != "entry") {
      why = "malformed line \"" + line.substr(0, 80) + "\"";
      return false;
    }
    try {
      row_named(e.template_name, "tuned results").apply("", e.settings, "tuned results");
    } catch (const error& failure) {
      why = failure.what();
      return false;
    }
    entries.push_back(e);
  }
  return true;
}

// Reads `path` under the trust rules; false (with `why`, empty when the file is just absent).
bool read_trusted(const std::string& path, std::string& text, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) why = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0;
  if (!ok || !S_ISREG(st.st_mode))
    why = "not a regular file";
  else if (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0)
    why = "not owned by this user or writable by group or others";
  else if (static_cast<std::size_t>(st.st_size) > kMaxFileBytes)
    why = "larger than 1 MiB";
  if (!why.empty()) {
    ::close(fd);
    return false;
  }
  text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t got = ::read(fd, &text[done], text.size() - done);
    if (got <= 0) break;
    done += static_cast<std::size_t>(got);
  }
  ::close(fd);
  text.resize(done);
  return true;
}

// What the last read of each file found, reused while the file is unchanged.
struct cached_file {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = -1;
  std::int64_t mtime_ns = -1;
  std::vector<tuned_entry> entries;
};

std::vector<tuned_entry> load_path(const std::string& path, const std::string& key) {
  static std::mutex m;
  static std::map<std::string, cached_file> files;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return {};
  const std::int64_t mtime_ns =
      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  {
    std::lock_guard<std::mutex> lock(m);
    auto found = files.find(path + '\n' + key);
    if (found != files.end() && found->second.device == st.st_dev &&
        found->second.inode == st.st_ino && found->second.size == st.st_size &&
        found->second.mtime_ns == mtime_ns)
      return found->second.entries;
  }
  std::string text, why;
  cached_file read;
  read.device = st.st_dev;
  read.inode = st.st_ino;
  read.size = st.st_size;
  read.mtime_ns = mtime_ns;
  if (read_trusted(path, text, why)) {
    if (!decode(key, text, read.entries, why)) {
      read.entries.clear();
      report_ignored(path, why);
    }
  } else if (!why.empty()) {
    report_ignored(path, why);
  }
  std::lock_guard<std::mutex> lock(m);
  files[path + '\n' + key] = read;
  return read.entries;
}

std::size_t bucket_exponent(const std::string& problem) {
  const std::size_t at = problem.find("2^");
  if (at == std::string::npos) return 0;
  return static_cast<std::size_t>(std::strtoul(problem.c_str() + at + 2, nullptr, 10));
}

}  // namespace

std::string tuned_device_key(const device_info& info) {
  std::lock_guard<std::mutex> lock(store_mutex());
  const std::string driver = simulated_driver().empty() ? info.driver_version : simulated_driver();
  return "device " + one_line(info.name) + "\nvendor " + one_line(info.vendor) + "\ndriver " +
         one_line(driver) + "\nplatform " + one_line(info.platform_version) +
         "\nclforge " CLFORGE_VERSION;
}

std::string tuned_results_path(const device_info& info) {
  const std::string dir = resolve_cache_directory();
  if (dir.empty()) return {};
  const std::string key = tuned_device_key(info);
  return dir + "/tuned-" + hex64(XXH3_64bits(key.data(), key.size())) + ".txt";
}

std::vector<tuned_entry> load_tuned(const device_info& info) {
  const std::string path = tuned_results_path(info);
  if (path.empty()) return {};
  return load_path(path, tuned_device_key(info));
}

void store_tuned(const device_info& info, const std::vector<tuned_entry>& entries) {
  const std::string path = tuned_results_path(info);
  if (path.empty())
    throw error(
        "tuned results: the cache directory is off (CLFORGE_CACHE=off or no HOME); "
        "set CLFORGE_CACHE_DIR to keep results");
  const std::string dir = path.substr(0, path.rfind('/'));
  if (!make_directories(dir))
    throw error("tuned results: cannot create " + dir + ": " + std::strerror(errno));
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & 022) != 0)
    throw error("tuned results: " + dir +
                " is not a directory owned by this user and closed to group and others");
  // This user's temporary results files older than ten minutes: left by a process killed
  // between write and rename.
  remove_stale_temporaries(
      dir,
      [](const std::string& name) {
        return name.rfind("tuned-", 0) == 0 && name.find(".tmp.") != std::string::npos;
      },
      10 * 60);
  const std::string key = tuned_device_key(info);
  // Writers merge one after the other, those of this process and those of others: two
  // processes that read the same file and each wrote it back with their own entries added lost
  // the entries of the first to write.
  static std::mutex writing;
  std::lock_guard<std::mutex> lock(writing);
  const file_claim turn(path + ".lock", kStoreWaitSeconds);
  // Merge with what is there now (another process may have stored other templates).
  std::vector<tuned_entry> merged = load_path(path, key);
  for (const tuned_entry& e : entries) {
    // throws on a bad policy
    row_named(e.template_name, "tuned results").apply("", e.settings, "tuned results");
    bool replaced = false;
    for (tuned_entry& old : merged)
      if (old.template_name == e.template_name && old.problem == e.problem) {
        old = e;
        replaced = true;
      }
    if (!replaced) merged.push_back(e);
  }
  const std::string text = encode(key, merged);
  write_failure failed;
  if (!write_file_atomically(path, text, failed))
    throw error("tuned results: cannot write " + path + ": " + std::strerror(failed.error_number));
  g_generation.fetch_add(1);
}

bool remove_tuned(const device_info& info) {
  const std::string path = tuned_results_path(info);
  const bool removed = !path.empty() && ::unlink(path.c_str()) == 0;
  g_generation.fetch_add(1);
  return removed;
}

void simulate_driver_version_for_tests(const std::string& driver) {
  std::lock_guard<std::mutex> lock(store_mutex());
  simulated_driver() = driver;
  g_generation.fetch_add(1);
}

std::uint64_t stored_generation() {
  return g_generation.load(std::memory_order_acquire);
}

std::string size_bucket(std::size_t n) {
  std::size_t k = 0;
  while (n > 1) n >>= 1, ++k;
  return "2^" + std::to_string(k);
}

std::string stored_policy(const context& ctx, const std::string& template_name) {
  // Kernels are generated before they see a size, so a template takes the result tuned for
  // the largest problem class stored (the one where the shape matters most).
  const tuned_entry* best = nullptr;
  static thread_local std::vector<tuned_entry> entries;
  entries = load_tuned(ctx.info());
  for (const tuned_entry& e : entries)
    if (e.template_name == template_name &&
        (!best || bucket_exponent(e.problem) > bucket_exponent(best->problem)))
      best = &e;
  return best ? best->settings : std::string();
}

}  // namespace clforge::detail
