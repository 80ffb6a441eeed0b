// SPDX-License-Identifier: MIT
// clforge::tuner: a user's space whose best point is known is found, wrong output is rejected,
// template tuning stores a result the templates then use, and the stored results follow the
// cache's integrity rules across processes (tuner_probe). Every test keeps its results in a
// directory of its own (CLFORGE_CACHE_DIR).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <clforge/clforge.hpp>

#include "expect_error.hpp"
#include "tuning/registry.hpp"
#include "tuning/resolve.hpp"
#include "tuning/store.hpp"

namespace cf = clforge;
namespace fs = std::filesystem;

namespace {

cf::context& ctx() {
  static cf::context c = cf::context::create_default();
  return c;
}
cf::queue& queue() {
  static cf::queue q(ctx());
  return q;
}

// Removes the tests' directories when the process ends: the shared context's program cache
// keeps writing into the directory of the test that made it.
struct directories_to_remove {
  std::vector<std::string> paths;
  ~directories_to_remove() {
    std::error_code ignored;
    for (const std::string& p : paths) fs::remove_all(p, ignored);
  }
};
directories_to_remove& made_directories() {
  static directories_to_remove d;
  return d;
}

// A private CLFORGE_CACHE_DIR for one test (and the processes it starts); the old value back
// afterwards, the directory removed at exit.
struct private_cache {
  std::string dir;
  std::string old;
  bool had_old = false;
  private_cache() {
    char pattern[] = "/tmp/clforge-tuner-test-XXXXXX";
    dir = ::mkdtemp(pattern);
    made_directories().paths.push_back(dir);
    if (const char* v = std::getenv("CLFORGE_CACHE_DIR")) old = v, had_old = true;
    ::setenv("CLFORGE_CACHE_DIR", dir.c_str(), 1);
  }
  ~private_cache() {
    if (had_old)
      ::setenv("CLFORGE_CACHE_DIR", old.c_str(), 1);
    else
      ::unsetenv("CLFORGE_CACHE_DIR");
  }
};

struct tune_env {
  explicit tune_env(const char* value) { ::setenv("CLFORGE_TUNE", value, 1); }
  ~tune_env() { ::unsetenv("CLFORGE_TUNE"); }
};

std::string run_probe(const std::string& args, int* status = nullptr) {
  const std::string command = std::string(CLFORGE_TUNER_PROBE) + " " + args;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return "popen failed";
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int rc = ::pclose(pipe);
  if (status) *status = rc;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// out[i] = 2 * in[i]; every FAST value but one spins first (a kernel made slow on purpose);
// WRONG=1 skips the spin and writes in[i] + 1: the fastest, and wrong. The spin's result goes
// into the output through a mask the launch passes as 0, so no compiler may drop the spin.
constexpr const char* kSpinSource = R"CL(
kernel void spin(global const int* in, global int* out, const int spins, const uint mask) {
  const size_t i = get_global_id(0);
  uint acc = (uint)in[i];
  if (WRONG) { out[i] = in[i] + 1; return; }
  if (FAST != 2)
    for (int k = 0; k < spins; ++k) acc = acc * 1664525u + 1013904223u;
  out[i] = 2 * in[i] + (int)(acc & mask);
}
)CL";

struct spin_data {
  std::vector<int> host;
  cf::array<int> in, out;
  // A spin long enough to stand out of the launch overhead: a GPU runs every work-item at once,
  // so only a far longer spin than a CPU needs makes the slow points slower than a launch.
  int spins = ctx().info().is_cpu() ? 4000 : 400000;
  explicit spin_data(std::size_t n) : host(n) {
    std::mt19937 random(5);
    for (int& v : host) v = static_cast<int>(random() % 1000);
    in = cf::array<int>::from_host(queue(), host);
    out = cf::array<int>(queue(), n);
  }
};

cf::tuner::kernel_space spin_space(spin_data& d, std::vector<std::string> fast,
                                   std::vector<std::string> wrong) {
  cf::tuner::kernel_space s;
  s.source = kSpinSource;
  s.kernel_name = "spin";
  s.parameters = {{"FAST", std::move(fast)}, {"WRONG", std::move(wrong)}};
  s.launch = [&d](const cf::queue& q, const cf::kernel& k, const cf::tuner::point&) {
    return q.launch(k, cf::ndrange(d.host.size()), d.in, d.out, d.spins, cl_uint(0));
  };
  s.check = [&d](const cf::queue& q, const cf::tuner::point&) {
    std::vector<int> out = d.out.to_host(q);
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i] != 2 * d.host[i]) return false;
    return true;
  };
  return s;
}

cf::tuner::options quick() {
  cf::tuner::options o;
  o.budget_seconds = 15;
  o.repetitions = 3;
  return o;
}

}  // namespace

TEST(tuner, finds_the_one_fast_value_of_a_small_space) {
  private_cache cache;
  spin_data d(2048);
  std::vector<std::string> seen;
  cf::tuner::options o = quick();
  o.on_progress = [&](const cf::tuner::progress& p) {
    seen.push_back(cf::tuner::to_string(p.candidate));
    EXPECT_EQ(p.index, seen.size());
    EXPECT_LE(p.index, p.total);
  };
  const cf::tuner::result r =
      cf::tuner::tune(queue(), spin_space(d, {"0", "1", "2", "3"}, {"0"}), o);
  EXPECT_EQ(r.best.at("FAST"), "2") << cf::tuner::to_string(r.best);
  EXPECT_EQ(r.baseline.at("FAST"), "0");
  EXPECT_TRUE(r.exhaustive);
  EXPECT_EQ(r.space_size, 3u);  // the baseline is timed apart
  EXPECT_EQ(r.tried, 3u);
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_EQ(r.rejected, 0u);
  EXPECT_GT(r.speedup(), 1.0);
}

TEST(tuner, a_spent_budget_still_tries_one_batch) {
  // A budget that the baseline alone uses up (a slow first build on a loaded host): one batch of
  // candidates still runs, and nothing after it.
  private_cache cache;
  spin_data d(2048);
  cf::tuner::options o = quick();
  o.budget_seconds = 1e-9;
  o.threads = 2;
  const cf::tuner::result r =
      cf::tuner::tune(queue(), spin_space(d, {"0", "1", "2", "3", "4", "5"}, {"0"}), o);
  EXPECT_EQ(r.tried, 2u);
  EXPECT_FALSE(r.exhaustive);
}

TEST(tuner, a_budget_that_is_no_number_of_seconds_is_refused) {
  // A NaN budget is never spent (every comparison with it is false): the search tried every
  // candidate of the space, whatever its size. A negative one is a caller's mistake too.
  private_cache cache;
  spin_data d(256);
  const cf::tuner::kernel_space s = spin_space(d, {"0", "1", "2", "3", "4", "5"}, {"0"});
  for (double budget : {std::nan(""), -1.0, -std::numeric_limits<double>::infinity()}) {
    cf::tuner::options o = quick();
    o.budget_seconds = budget;
    SCOPED_TRACE(budget);
    EXPECT_CLFORGE_ERROR(cf::tuner::tune(queue(), s, o),
                         {"clforge::tuner", "budget_seconds", "0 or more"});
    EXPECT_CLFORGE_ERROR(cf::tuner::tune_template(queue(), "saxpy", 4096, o),
                         {"clforge::tuner", "budget_seconds", "0 or more"});
  }
  // 0 is a spent budget: the baseline and one batch.
  cf::tuner::options o = quick();
  o.budget_seconds = 0;
  o.threads = 1;
  EXPECT_EQ(cf::tuner::tune(queue(), s, o).tried, 1u);
}

TEST(tuner, rejects_a_candidate_with_wrong_output_however_fast) {
  private_cache cache;
  spin_data d(1024);
  std::vector<std::string> rejected;
  cf::tuner::options o = quick();
  o.on_progress = [&](const cf::tuner::progress& p) {
    if (p.status.rfind("rejected", 0) == 0) rejected.push_back(cf::tuner::to_string(p.candidate));
  };
  const cf::tuner::result r = cf::tuner::tune(queue(), spin_space(d, {"0"}, {"0", "1"}), o);
  EXPECT_EQ(r.best.at("WRONG"), "0");
  EXPECT_EQ(r.rejected, 1u);
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0], "FAST=0,WRONG=1");
}

TEST(tuner, constraints_and_bad_spaces) {
  private_cache cache;
  spin_data d(256);
  cf::tuner::kernel_space s = spin_space(d, {"0", "1", "2", "3"}, {"0"});
  s.allowed = [](const cf::tuner::point& p, const cf::device_info&) { return p.at("FAST") != "2"; };
  const cf::tuner::result r = cf::tuner::tune(queue(), s, quick());
  EXPECT_NE(r.best.at("FAST"), "2");
  EXPECT_EQ(r.space_size, 2u);

  cf::tuner::kernel_space bad = spin_space(d, {}, {"0"});
  EXPECT_CLFORGE_ERROR(cf::tuner::tune(queue(), bad, quick()), {"FAST", "no values"});
  bad = spin_space(d, {"0 -DX=1"}, {"0"});
  EXPECT_CLFORGE_ERROR(cf::tuner::tune(queue(), bad, quick()), {"FAST", "spaces"});
  bad = spin_space(d, {"0"}, {"1", "0"});  // the baseline itself is wrong
  EXPECT_CLFORGE_ERROR(cf::tuner::tune(queue(), bad, quick()), {"baseline", "wrong output"});
  bad = spin_space(d, {"0"}, {"0"});
  bad.check = nullptr;
  EXPECT_CLFORGE_ERROR(cf::tuner::tune(queue(), bad, quick()), {"check function"});
  EXPECT_CLFORGE_ERROR(
      cf::tuner::tune_template(queue(), "sorting", 100, quick()),
      {"no template \"sorting\"", "saxpy, sum, scan, polygon, sort, histogram, stencil",
       "elementwise, reduce"});
}

// Every value a registry row's search space tries is one its policy takes: a value the policy
// dropped would only show as failed candidates in clforge-tune's progress.
TEST(tuner, every_search_space_tries_only_settings_its_policy_takes) {
  cf::context own(ctx().device());
  std::size_t settings = 0;
  for (const cf::detail::template_row* row : cf::detail::template_rows()) {
    EXPECT_FALSE(row->space().empty()) << row->name();
    for (const cf::detail::search_parameter& p : row->space())
      for (const std::string& v : p.values) {
        const std::string setting = p.key + "=" + v;
        SCOPED_TRACE(std::string(row->name()) + ": " + setting);
        EXPECT_EQ(clforge_test::error_message([&] { cf::tuning::set(own, row->name(), setting); }),
                  "(no error)");
        ++settings;
      }
  }
  EXPECT_GT(settings, 40u);
}

TEST(tuner, a_stored_result_is_used_by_the_templates_unless_switched_off) {
  private_cache cache;
  const std::string table = cf::detail::resolved_policy(ctx(), "elementwise", false);
  ASSERT_EQ(cf::detail::resolved_policy(ctx(), "elementwise", true), table);  // nothing stored
  const std::string stored =
      cf::detail::normalized_policy("elementwise", "kind=gpu,group=64,vector_width=2", "test");
  ASSERT_NE(stored, table);
  cf::detail::store_tuned(ctx().info(), {{"elementwise", "float32/2^20", stored, 2e-3, 1e-3}});
  EXPECT_EQ(cf::detail::resolved_policy(ctx(), "elementwise", true), stored);
  ASSERT_EQ(cf::tuner::stored(ctx()).size(), 1u);
  EXPECT_EQ(cf::tuner::stored(ctx())[0].policy, stored);

  // A template built now runs with it, and right.
  const std::size_t n = 1001;
  std::vector<float> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i), y[i] = 1.0f;
  auto dx = cf::array<float>::from_host(queue(), x);
  auto dy = cf::array<float>::from_host(queue(), y);
  cf::kernel_options o;
  o.name = "tuned_saxpy_check";
  cf::elementwise_kernel k(ctx(), "global const float* x, global float* y",
                           "y[i] = 2 * x[i] + y[i]", o);
  k(queue(), dx, dy);
  std::vector<float> back = dy.to_host(queue());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(back[i], 2.0f * x[i] + 1.0f) << i;

  {
    tune_env off("off");
    EXPECT_EQ(cf::detail::resolved_policy(ctx(), "elementwise", true), table);
  }
  {
    tune_env off("tuned=off;elementwise:group=128");
    EXPECT_NE(cf::detail::resolved_policy(ctx(), "elementwise", true).find("group=128"),
              std::string::npos);
    EXPECT_FALSE(cf::detail::stored_results_enabled(ctx()));
  }
  {
    tune_env bad("tuned=maybe");
    EXPECT_CLFORGE_ERROR(cf::detail::resolved_policy(ctx(), "elementwise", true),
                         {"CLFORGE_TUNE", "tuned takes on or off", "maybe"});
  }
  cf::context own = cf::context::create_default();
  cf::tuning::set(own, "tuned", "off");
  EXPECT_EQ(cf::detail::resolved_policy(own, "elementwise", true), table);
  EXPECT_CLFORGE_ERROR(cf::tuning::set(own, "tuned", "1"), {"tuned takes on or off"});
  cf::tuning::reset(own);
  EXPECT_EQ(cf::detail::resolved_policy(own, "elementwise", true), stored);

  EXPECT_TRUE(cf::tuner::reset_stored(ctx()));
  EXPECT_FALSE(cf::tuner::reset_stored(ctx()));
  EXPECT_EQ(cf::detail::resolved_policy(ctx(), "elementwise", true), table);
}

TEST(tuner, tuning_a_template_stores_a_checked_policy) {
  private_cache cache;
  cf::tuner::options o;
  o.budget_seconds = 4;
  o.repetitions = 2;
  std::size_t timed = 0;
  o.on_progress = [&](const cf::tuner::progress& p) { timed += p.status == "timed"; };
  const cf::tuner::template_result r = cf::tuner::tune_template(queue(), "polygon", 64 * 64, o);
  EXPECT_EQ(r.primitive, "polygon");
  EXPECT_EQ(r.problem, "uint8/2^12");
  EXPECT_TRUE(r.stored);
  EXPECT_GT(r.search.tried, 0u);
  EXPECT_EQ(r.search.rejected, 0u);  // every polygon kernel draws the same mask
  ASSERT_EQ(cf::tuner::stored(ctx()).size(), 1u);
  EXPECT_EQ(cf::tuner::stored(ctx())[0].policy, r.policy);
  EXPECT_EQ(cf::detail::resolved_policy(ctx(), "polygon", true), r.policy);
  // The templates still draw the reference mask with it.
  cf::polygon_mask masker(ctx());
  const std::vector<cf::point2f> poly = cf::random_star_polygon(24, 100, 3);
  std::vector<std::uint8_t> got = masker(queue(), poly, 100, 100).to_host(queue());
  EXPECT_EQ(got, cf::polygon_mask_reference(poly, 100, 100, cf::fill_rule::even_odd, true));
  cf::tuner::reset_stored(ctx());
}

TEST(tuner, results_survive_a_new_process_but_not_a_driver_update) {
  private_cache cache;
  const std::string table = run_probe("show");
  const std::string wanted = cf::detail::normalized_policy(
      "elementwise", "kind=gpu,group=64,block=2,vector_width=0", "test");
  ASSERT_NE(table, wanted);
  int status = -1;
  run_probe("store kind=gpu,group=64,block=2,vector_width=0", &status);
  ASSERT_EQ(status, 0);
  EXPECT_EQ(run_probe("show"), wanted);                         // a new process finds it
  EXPECT_EQ(run_probe("--driver 99.0-simulated show"), table);  // another driver does not
  EXPECT_EQ(cf::detail::resolved_policy(ctx(), "elementwise", true), wanted);
}

TEST(tuner, a_damaged_or_untrusted_results_file_is_ignored_and_said_once) {
  private_cache cache;
  const std::string table = cf::detail::resolved_policy(ctx(), "elementwise", false);
  const std::string stored =
      cf::detail::normalized_policy("elementwise", "kind=gpu,group=64", "test");
  cf::detail::store_tuned(ctx().info(), {{"elementwise", "float32/2^20", stored, 2e-3, 1e-3}});
  const std::string path = cf::tuner::results_file(ctx());
  ASSERT_EQ(cf::detail::resolved_policy(ctx(), "elementwise", true), stored);
  std::string text;
  {
    std::ifstream in(path);
    std::stringstream all;
    all << in.rdbuf();
    text = all.str();
  }
  // Replaced (new inode) by one with one policy digit changed: the checksum no longer fits.
  std::string damaged = text;
  const std::size_t at = damaged.find("group=64");
  ASSERT_NE(at, std::string::npos);
  damaged[at + 6] = '3';
  auto replace = [&](const std::string& content, mode_t mode) {
    const std::string temp = path + ".new";
    {
      std::ofstream out(temp);
      out << content;
    }
    ::chmod(temp.c_str(), mode);
    fs::rename(temp, path);
  };
  replace(damaged, 0600);
  testing::internal::CaptureStderr();
  EXPECT_EQ(cf::detail::resolved_policy(ctx(), "elementwise", true), table);
  EXPECT_EQ(cf::detail::resolved_policy(ctx(), "elementwise", true), table);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("ignoring tuned results"), std::string::npos) << said;
  EXPECT_NE(said.find("bad checksum"), std::string::npos) << said;
  EXPECT_EQ(said.find("ignoring", said.find("ignoring") + 1), std::string::npos) << said;
  // Good content, but writable by others: not trusted.
  replace(text, 0666);
  EXPECT_EQ(cf::detail::resolved_policy(ctx(), "elementwise", true), table);
  // Truncated: no checksum line.
  replace(text.substr(0, text.size() / 2), 0600);
  EXPECT_EQ(cf::detail::resolved_policy(ctx(), "elementwise", true), table);
  // Good again: used again; a new store replaces a bad file.
  replace(text, 0600);
  EXPECT_EQ(cf::detail::resolved_policy(ctx(), "elementwise", true), stored);
  replace("garbage", 0600);
  cf::detail::store_tuned(ctx().info(), {{"elementwise", "float32/2^20", stored, 2e-3, 1e-3}});
  EXPECT_EQ(cf::detail::resolved_policy(ctx(), "elementwise", true), stored);
}

TEST(tuner, two_processes_tuning_at_once_leave_one_valid_file) {
  private_cache cache;
  const std::string command = std::string(CLFORGE_TUNER_PROBE);
  std::vector<pid_t> children;
  for (const char* tag : {"first", "second"}) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::execl(command.c_str(), command.c_str(), "tune", tag, static_cast<char*>(nullptr));
      ::_exit(127);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  testing::internal::CaptureStderr();
  const std::vector<cf::tuner::stored_result> found = cf::tuner::stored(ctx());
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(said, "");  // the file is whole and trusted
  // Every entry of both processes is kept: each store merges with the file as the other left it.
  std::set<std::string> problems;
  for (const auto& e : found) problems.insert(e.problem);
  for (const char* tag : {"first", "second"})
    for (int k = 0; k < 100; ++k) {
      const std::string problem = std::string(tag) + "/2^" + std::to_string(k);
      EXPECT_EQ(problems.count(problem), 1u) << problem;
    }
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(cache.dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("tuned-", 0) == 0) {
      ++files;
      EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;  // no temporary left
    }
  }
  EXPECT_EQ(files, 1u);
}

TEST(tuner, storing_without_a_cache_directory_is_an_error) {
  private_cache cache;
  ::setenv("CLFORGE_CACHE", "off", 1);
  EXPECT_EQ(cf::tuner::results_file(ctx()), "");
  EXPECT_TRUE(cf::tuner::stored(ctx()).empty());
  EXPECT_CLFORGE_ERROR(cf::detail::store_tuned(
                           ctx().info(), {{"elementwise", "float32/2^20", "kind=gpu", 2e-3, 1e-3}}),
                       {"tuned results", "cache directory is off", "CLFORGE_CACHE_DIR"});
  ::unsetenv("CLFORGE_CACHE");
  // A policy the templates could not read is refused before anything is written.
  EXPECT_CLFORGE_ERROR(cf::detail::store_tuned(ctx().info(), {{"elementwise", "float32/2^20",
                                                               "kind=fast", 2e-3, 1e-3}}),
                       {"tuned results", "elementwise kind takes gpu|cpu"});
  EXPECT_TRUE(cf::tuner::stored(ctx()).empty());
}

// Every template in the registry can be tuned: its workload builds, the baseline and the
// candidates give the right output, and the policy found is one the template reads back.
TEST(tuner, every_registry_row_is_tunable_in_a_short_budget) {
  private_cache cache;
  std::vector<std::string> names = cf::tuner::template_names();
  ASSERT_EQ(names.size(), cf::detail::template_rows().size());
  bool by_workload = true;  // every other row by the registry's name of the template
  for (const cf::detail::template_row* row : cf::detail::template_rows()) {
    SCOPED_TRACE(row->name());
    by_workload = !by_workload;
    cf::tuner::options o;
    o.budget_seconds = 2;
    o.repetitions = 1;
    o.threads = 2;
    const std::size_t size = std::string(row->name()) == "polygon" ? 96 * 96 : 20011;
    const cf::tuner::template_result r = cf::tuner::tune_template(
        queue(), by_workload ? row->workload() : row->name(), size, o, false);
    EXPECT_EQ(r.primitive, row->name());
    EXPECT_EQ(r.name, row->workload());
    EXPECT_FALSE(r.stored);
    EXPECT_GT(r.search.tried, 0u);
    EXPECT_GT(r.search.space_size, 1u);
    EXPECT_EQ(r.search.rejected, 0u);
    // On a CPU every candidate runs; a GPU's compiler may give a candidate's kernel fewer
    // work-items than its group (registers), which the search skips as failed.
    if (ctx().info().is_cpu())
      EXPECT_EQ(r.search.failed, 0u);
    else
      EXPECT_LT(r.search.failed, r.search.tried);
    EXPECT_EQ(cf::detail::normalized_policy(row->name(), r.policy, "test"), r.policy);
  }
  EXPECT_TRUE(cf::tuner::stored(ctx()).empty());
}

// Sort and histogram: the stored winner is what the templates then get, and they stay right.
TEST(tuner, sort_and_histogram_are_tuned_and_stored) {
  private_cache cache;
  cf::tuner::options o;
  o.budget_seconds = 4;
  o.repetitions = 2;
  const cf::tuner::template_result sorted = cf::tuner::tune_template(queue(), "sort", 30000, o);
  EXPECT_EQ(sorted.primitive, "sort");
  EXPECT_EQ(sorted.problem, "uint32/2^14");
  EXPECT_EQ(sorted.search.rejected, 0u);
  const cf::tuner::template_result counted =
      cf::tuner::tune_template(queue(), "histogram", 30000, o);
  EXPECT_EQ(counted.primitive, "histogram");
  EXPECT_EQ(counted.problem, "float32/2^14");
  EXPECT_EQ(counted.search.rejected, 0u);
  ASSERT_EQ(cf::tuner::stored(ctx()).size(), 2u);
  EXPECT_EQ(cf::detail::resolved_policy(ctx(), "sort", true), sorted.policy);
  EXPECT_EQ(cf::detail::resolved_policy(ctx(), "histogram", true), counted.policy);

  std::mt19937 random(9);
  std::vector<cl_uint> keys(10007);
  for (cl_uint& k : keys) k = static_cast<cl_uint>(random());
  auto device_keys = cf::array<cl_uint>::from_host(queue(), keys);
  cf::sort(queue(), device_keys);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(device_keys.to_host(queue()), keys);
  std::vector<float> values(10007);
  std::vector<cl_uint> expected(8, 0);
  for (float& v : values) {
    v = static_cast<float>(random() % 800) / 100.0f;
    ++expected[static_cast<std::size_t>(v)];
  }
  auto x = cf::array<float>::from_host(queue(), values);
  EXPECT_EQ(cf::histogram(queue(), x, 8, 0.0f, 8.0f).to_host(queue()), expected);
  cf::tuner::reset_stored(ctx());
}
