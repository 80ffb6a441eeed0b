// SPDX-License-Identifier: MIT
// Teardown in fresh processes: tests/teardown_probe.cpp creates, uses and destroys clforge
// objects in one of several orders (work still running at return or at exit(), an array
// outliving its queue and context, a queue outliving its context handle, exceptions mid-way,
// the other-context error, objects in static storage, queues of several threads) and exits.
// Every run must exit with status 0. A process that ended while a queue still ran (or PoCL still
// compiled) a kernel crashed inside LLVM after its last line, rarely; an array read on a new
// queue after its old queue was destroyed read values the old queue had not written yet.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;

const char* const kScenarios[] = {"pending_at_return",
                                  "exit_with_pending",
                                  "array_outlives_queue_and_context",
                                  "queue_outlives_context",
                                  "exception_midway",
                                  "other_context",
                                  "static_objects",
                                  "threads"};
constexpr int kRunsPerScenario = 14;
constexpr int kAtOnce = 2;  // children running at once: a loaded machine showed the crash more

// The probe with `env` in front of this process's environment (whose entries of the same
// names are left out).
pid_t spawn_probe(const std::string& scenario, int salt, const std::vector<std::string>& env) {
  std::vector<std::string> args = {CLFORGE_TEARDOWN_PROBE, scenario, std::to_string(salt)};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> vars = env;
  for (char** e = environ; *e; ++e) {
    bool replaced = false;
    for (const std::string& mine : env)
      replaced = replaced || std::strncmp(*e, mine.c_str(), mine.find('=') + 1) == 0;
    if (!replaced) vars.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (std::string& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, CLFORGE_TEARDOWN_PROBE, nullptr, nullptr, argv.data(), envp.data()) != 0)
    return -1;
  return pid;
}

std::string describe(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("signal ") + strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace

TEST(teardown, every_order_of_create_use_destroy_and_exit_ends_cleanly) {
  // Private caches (clforge's and PoCL's): the probes' fresh kernels stay out of the shared
  // ones, and each run still starts from a cache the earlier runs filled.
  const fs::path root =
      fs::temp_directory_path() / ("clforge-teardown-" + std::to_string(getpid()));
  fs::remove_all(root);
  const std::vector<std::string> env = {"CLFORGE_CACHE_DIR=" + (root / "clforge").string(),
                                        "POCL_CACHE_DIR=" + (root / "pocl").string()};
  fs::create_directories(root / "pocl");

  struct run {
    std::string scenario;
    int salt;
  };
  std::vector<run> runs;
  for (int r = 0; r < kRunsPerScenario; ++r)
    for (const char* scenario : kScenarios)
      // Every other run launches a kernel no earlier process compiled (PoCL compiles it on its
      // worker thread while the process heads for exit); the others reuse one.
      runs.push_back({scenario, r % 2 ? 1000 + static_cast<int>(getpid() % 100000) * 32 + r : 3});

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> failures;
  for (std::size_t next = 0; next < runs.size();) {
    std::vector<std::pair<pid_t, std::size_t>> running;
    for (int k = 0; k < kAtOnce && next < runs.size(); ++k, ++next)
      running.emplace_back(spawn_probe(runs[next].scenario, runs[next].salt, env), next);
    for (auto [pid, index] : running) {
      int status = -1;
      if (pid < 0 || waitpid(pid, &status, 0) != pid) status = -1;
      if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        failures.push_back(runs[index].scenario + " (salt " + std::to_string(runs[index].salt) +
                           "): " + describe(status));
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string all;
  for (const std::string& f : failures) all += "\n  " + f;
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << runs.size()
                                << " runs did not exit cleanly:" << all;
  std::printf("%zu probe runs in %.1f s\n", runs.size(), seconds);
  std::error_code ignored;
  fs::remove_all(root, ignored);
}
