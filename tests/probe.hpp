// SPDX-License-Identifier: MIT
// Runs tests/reliability_probe in a child process with a given cache directory and reads what
// it says: the cache counters (stdout) and everything it wrote on stderr.
#pragma once

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace clforge_test {

struct probe_result {
  int compiles = -1, disk_hits = -1, disk_writes = -1, disk_rejects = -1, ok = 0;
  int exit_status = -1;
  std::string err;  // the child's stderr
  /// How often `text` occurs in the child's stderr.
  int count_in_stderr(const std::string& text) const {
    int n = 0;
    for (std::size_t at = err.find(text); at != std::string::npos; at = err.find(text, at + 1)) ++n;
    return n;
  }
};

/// A probe started by start_probe; finish_probe waits for it.
struct running_probe {
  FILE* pipe = nullptr;
  std::filesystem::path err_file;
};

/// Starts the probe: `env` is prepended to the command ("A=b C=d"); `flags` go before NAME
/// COUNT. Several may run at once.
inline running_probe start_probe(const std::string& env, const std::string& flags,
                                 const std::string& name, int count) {
  static int started = 0;
  running_probe p;
  p.err_file =
      std::filesystem::temp_directory_path() /
      ("clforge-probe-err-" + std::to_string(::getpid()) + "-" + std::to_string(started++));
  // `timeout`: a probe that hangs (e.g. on a FIFO planted as an entry) fails the test instead.
  const std::string command = "env " + env + " timeout 120 " CLFORGE_RELIABILITY_PROBE " " + flags +
                              " " + name + " " + std::to_string(count) + " 2>" +
                              p.err_file.string();
  p.pipe = ::popen(command.c_str(), "r");
  return p;
}

/// Waits for a probe and reads what it said.
inline probe_result finish_probe(running_probe& p) {
  probe_result r;
  if (p.pipe) {
    char line[512] = {};
    if (std::fgets(line, sizeof line, p.pipe))
      std::sscanf(line, "compiles=%d disk_hits=%d disk_writes=%d disk_rejects=%d ok=%d",
                  &r.compiles, &r.disk_hits, &r.disk_writes, &r.disk_rejects, &r.ok);
    int status = ::pclose(p.pipe);
    p.pipe = nullptr;
    r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::ifstream in(p.err_file);
  std::stringstream text;
  text << in.rdbuf();
  r.err = text.str();
  std::filesystem::remove(p.err_file);
  return r;
}

/// start_probe, then finish_probe.
inline probe_result run_probe(const std::string& env, const std::string& flags,
                              const std::string& name, int count) {
  running_probe p = start_probe(env, flags, name, count);
  return finish_probe(p);
}

/// A fresh directory for one test's cache (removed at the end); `path` itself does not exist.
struct scratch_dir {
  std::filesystem::path root, path;
  explicit scratch_dir(const std::string& tag) {
    root = std::filesystem::temp_directory_path() /
           ("clforge-reliability-" + std::to_string(::getpid()) + "-" + tag);
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
    path = root / "cache";
  }
  ~scratch_dir() {
    std::error_code ignored;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all, ignored);
    std::filesystem::remove_all(root, ignored);
  }
  std::vector<std::filesystem::path> entries() const {
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(path, ec)) out.push_back(e.path());
    return out;
  }
  std::string env() const { return "CLFORGE_CACHE_DIR=" + path.string(); }
};

inline bool running_as_root() {
  return ::geteuid() == 0;
}

}  // namespace clforge_test
