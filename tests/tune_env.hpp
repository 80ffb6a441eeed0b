// SPDX-License-Identifier: MIT
// CLFORGE_TUNE for a part of a test: the test's settings go after whatever the run was started
// with (CI runs the template tests under CLFORGE_TUNE=table=generic and the other GPU tables),
// and the run's own value comes back afterwards, so one test cannot switch the table off for the
// tests after it.
#pragma once

#include <cstdlib>
#include <string>

namespace clforge_test {

class tune_env {
 public:
  explicit tune_env(const std::string& settings) {
    if (const char* value = std::getenv("CLFORGE_TUNE")) {
      had_value_ = true;
      outer_ = value;
    }
    set(settings);
  }
  /// Replaces this guard's settings (the run's own value stays in front).
  void set(const std::string& settings) {
    const std::string value = outer_.empty() ? settings : outer_ + ";" + settings;
    ::setenv("CLFORGE_TUNE", value.c_str(), 1);
  }
  ~tune_env() {
    if (had_value_)
      ::setenv("CLFORGE_TUNE", outer_.c_str(), 1);
    else
      ::unsetenv("CLFORGE_TUNE");
  }
  tune_env(const tune_env&) = delete;
  tune_env& operator=(const tune_env&) = delete;

 private:
  bool had_value_ = false;
  std::string outer_;
};

}  // namespace clforge_test
