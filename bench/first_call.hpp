// SPDX-License-Identifier: MIT
// First-call latency of a new kernel, each measurement in a fresh process: cold (empty cache
// directory, a source no cache has seen), warm disk (same source and directory, new process),
// warm memory (a second build in the same process).
#pragma once

#include <string>

#include "harness.hpp"

namespace clforge_bench {
inline constexpr const char* first_call_child_flag = "--first-call-child";
/// The child process: builds and runs one kernel, prints the timings on stdout.
int first_call_child(int argc, char** argv);
/// Runs `repetitions` cold/warm pairs of children of `self`; the table (empty rows when the
/// children did not report).
report_table run_first_call_report(const std::string& self, const std::string& device,
                                   int repetitions);
}  // namespace clforge_bench
