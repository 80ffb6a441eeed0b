// SPDX-License-Identifier: MIT
// Where clforge's diagnostics go: the few things the library says without being asked (the disk
// cache turned off, stored tuning results ignored) and what CLFORGE_DUMP_SOURCE asks for. By
// default they go to standard error as "clforge: <message>"; set_log_handler sends them to the
// application instead (a log file, a GUI, nowhere). Failures are never logged: they throw
// clforge::error.
//
//   clforge::set_log_handler([](clforge::log_level level, const std::string& message) {
//     my_logger.write(level == clforge::log_level::warning ? "WARN" : "DEBUG", message);
//   });
#pragma once

#include <functional>
#include <string>

#include "clforge/export.hpp"

namespace clforge {

/// What kind of diagnostic a message is.
enum class log_level {
  warning,  ///< Something clforge worked around, said once per process (e.g. the disk cache off).
  debug,    ///< Output that was asked for: CLFORGE_DUMP_SOURCE's program sources.
};

/// Receives one diagnostic: its level and its text, without the "clforge: " prefix and without
/// a final newline (a program source spans several lines).
using log_handler = std::function<void(log_level level, const std::string& message)>;

/// Sends every diagnostic of the library to `handler` from now on and returns the handler it
/// replaces. An empty handler restores the default, which writes "clforge: <message>\n" to
/// standard error; the default is what the first call returns. Thread-safe: any thread may call
/// it at any time. The handler may be called from several threads at once (serialise inside it
/// if it needs to) and may itself call set_log_handler; an exception it throws is dropped.
CLFORGE_API log_handler set_log_handler(log_handler handler);

namespace detail {
/// @cond INTERNAL
/// Hands `message` to the current handler (the library's one way to print a diagnostic).
CLFORGE_API void log_message(log_level level, const std::string& message);
/// @endcond
}  // namespace detail

}  // namespace clforge
