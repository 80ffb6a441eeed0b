// SPDX-License-Identifier: MIT
// Command-line conventions shared by clforge-info, clforge-demo and clforge-bench (CLI11):
// --help and --version print to stdout and exit 0; an unknown or malformed option prints the
// problem and a usage line to stderr and exits 2.
#pragma once

#include <CLI/CLI.hpp>
#include <clforge/version.hpp>

#include <iostream>
#include <string>

namespace clforge_cli {

/// `--version` for `app`: "<program> <clforge version>".
inline void add_version(CLI::App& app) {
  app.set_version_flag("--version", app.get_name() + " " + CLFORGE_VERSION_STRING);
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
