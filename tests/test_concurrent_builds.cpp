// SPDX-License-Identifier: MIT
// Processes building into one empty cache directory at once (tests/reliability_probe.cpp, six
// at a time, with fresh clforge and PoCL cache directories). PoCL's kernel cache, shared by the
// processes, failed valid programs (CL_BUILD_PROGRAM_FAILURE, the log only "Device ... failed
// to build the program") and crashed a process reading a program's binaries while another
// wrote the same program. Now one process builds a program while the others wait for its
// entry, and a build failing without naming a source line is built again.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "probe.hpp"

using clforge_test::finish_probe;
using clforge_test::probe_result;
using clforge_test::run_probe;
using clforge_test::running_probe;
using clforge_test::scratch_dir;
using clforge_test::start_probe;

// The driver's failure is faked (fault_inject.cpp): the first builds of the process report
// CL_BUILD_PROGRAM_FAILURE with an empty log, as PoCL's did.
TEST(concurrent_builds, a_build_failing_without_naming_a_line_is_built_again) {
  scratch_dir twice("retried");
  const probe_result r = run_probe(twice.env() + " CLFORGE_TEST_FAILED_BUILDS=2", "", "retried", 2);
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.ok, 1) << r.err;
  EXPECT_EQ(r.compiles, 2);

  // More failures than retries: a clear error saying so.
  scratch_dir always("failing");
  const probe_result f =
      run_probe(always.env() + " CLFORGE_TEST_FAILED_BUILDS=3", "", "failing", 1);
  EXPECT_EQ(f.exit_status, 1);
  EXPECT_NE(f.err.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("built 3 times"), std::string::npos) << f.err;
}

TEST(concurrent_builds, processes_building_into_one_empty_cache_all_succeed_one_build_each) {
  constexpr int kRounds = 2, kProcesses = 6, kPrograms = 4;
  for (int round = 0; round < kRounds; ++round) {
    scratch_dir dir("concurrent-" + std::to_string(round));
    const std::string env = dir.env() + " POCL_CACHE_DIR=" + (dir.root / "pocl").string();
    // Even processes build the same programs, odd ones their own; all build the same templates.
    std::vector<running_probe> running;
    for (int p = 0; p < kProcesses; ++p)
      running.push_back(
          start_probe(env, "--templates", p % 2 ? "own" + std::to_string(p) : "same", kPrograms));
    std::vector<probe_result> results;
    for (running_probe& p : running) results.push_back(finish_probe(p));

    int compiles = 0, rejects = 0, own = 0;
    for (int p = 0; p < kProcesses; ++p) {
      const probe_result& r = results[p];
      EXPECT_EQ(r.exit_status, 0) << "round " << round << ", process " << p << ": " << r.err;
      EXPECT_EQ(r.ok, 1) << "round " << round << ", process " << p << ": " << r.err;
      compiles += r.compiles;
      rejects += r.disk_rejects;
      own += p % 2;
    }
    // Every process builds the same number of distinct programs (kPrograms of its own or the
    // shared ones, and the templates'); across processes each distinct program is compiled once
    // (again after a rejected entry).
    const int per_process = results[0].compiles + results[0].disk_hits;
    const int distinct = per_process + own * kPrograms;
    EXPECT_EQ(compiles - rejects, distinct) << "round " << round;
  }
}
