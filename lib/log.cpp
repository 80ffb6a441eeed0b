// SPDX-License-Identifier: MIT
#include "clforge/log.hpp"

#include <cstdio>
#include <memory>
#include <mutex>
#include <utility>

namespace clforge {
namespace {

std::mutex& handler_mutex() {
  static std::mutex m;
  return m;
}
// Null: the default handler. A shared_ptr, so a message in flight keeps the handler it was
// given to while another thread replaces it, and no lock is held while a handler runs (a
// handler may log through clforge or call set_log_handler).
std::shared_ptr<const log_handler>& current_handler() {
  static std::shared_ptr<const log_handler> handler;
  return handler;
}

void write_to_stderr(const std::string& message) {
  // One write per message, so messages from several threads do not interleave mid-line.
  const std::string line = "clforge: " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

log_handler set_log_handler(log_handler handler) {
  auto next = handler ? std::make_shared<const log_handler>(std::move(handler)) : nullptr;
  std::lock_guard<std::mutex> lock(handler_mutex());
  std::shared_ptr<const log_handler> previous = std::exchange(current_handler(), std::move(next));
  return previous ? *previous : log_handler{};
}

namespace detail {
void log_message(log_level level, const std::string& message) {
  std::shared_ptr<const log_handler> handler;
  {
    std::lock_guard<std::mutex> lock(handler_mutex());
    handler = current_handler();
  }
  if (!handler) {
    write_to_stderr(message);
    return;
  }
  try {
    (*handler)(level, message);
  } catch (...) {
    // A diagnostic must not turn into a failure of the call that made it.
  }
}
}  // namespace detail

}  // namespace clforge
