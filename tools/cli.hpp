// SPDX-License-Identifier: MIT
// Command-line conventions shared by the tools (clforge-info, -tune, -demo, -bench, -mpi-bench;
// CLI11): --help and --version print to stdout and exit 0; an unknown or malformed option prints
// the problem and a usage line to stderr and exits 2. Floating-point options go through
// finite_number: NaN and infinities are refused (CLI11's Range lets NaN through, as every
// comparison with NaN is false).
#pragma once

#include <CLI/CLI.hpp>
#include <clforge/version.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace clforge_cli {

/// `--version` for `app`: "<program> <clforge version>".
inline void add_version(CLI::App& app) {
  app.set_version_flag("--version", app.get_name() + " " + CLFORGE_VERSION_STRING);
}

/// Validator for a floating-point option: a finite number within [lo, hi] (the message says so
/// in a few words: no 309-digit bounds, no "nan" slipping through a range check).
inline CLI::Validator finite_number(double lo, double hi) {
  auto bound = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return std::string(text);
  };
  const std::string range = "a finite number from " + bound(lo) + " to " + bound(hi);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const char* begin = text.c_str();
        char* end = nullptr;
        const double v = std::strtod(begin, &end);
        if (end == begin || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
          return "'" + text + "' is not " + range;
        return {};
      },
      range, "finite_number");
}

/// Parses argv into `app`. Returns -1 to go on, else the status to exit with.
inline int parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::cerr << app.get_name() << ": " << e.what() << "\n"
              << "usage: " << app.get_name() << " [OPTIONS]   (" << app.get_name()
              << " --help lists them)\n";
    return 2;
  }
}

}  // namespace clforge_cli
