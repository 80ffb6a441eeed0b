// SPDX-License-Identifier: MIT
#include "clforge/event.hpp"

#include "clforge/error.hpp"

namespace clforge {

void event::wait() const {
  if (!handle_()) return;
  detail::check(clWaitForEvents(1, &handle_()), "clWaitForEvents");
}

static std::uint64_t profiling_time(const cl::Event& e, cl_profiling_info what) {
  cl_ulong t = 0;
  detail::check(clGetEventProfilingInfo(e(), what, sizeof t, &t, nullptr),
                "clGetEventProfilingInfo");
  return t;
}

std::uint64_t event::elapsed_ns() const {
  return elapsed_ns_until(*this);
}

std::uint64_t event::elapsed_ns_until(const event& last) const {
  if (!handle_() || !last.handle_()) return 0;  // an empty event stands for no work
  last.wait();
  wait();
  std::uint64_t start = profiling_time(handle_, CL_PROFILING_COMMAND_START);
  std::uint64_t end = profiling_time(last.handle_, CL_PROFILING_COMMAND_END);
  return end > start ? end - start : 0;
}

void wait_all(const std::vector<event>& events) {
  for (const event& e : events) e.wait();
}

}  // namespace clforge
