// SPDX-License-Identifier: MIT
// Regression tests of run-time defects found by probing clforge from outside: several queues of
// one context, moved-from arrays, exact launch sizes, slices, label types, arrays of another
// context, polygon coordinates, kernel-name and scalar limits, device choice, the disk cache's
// damaged entries, and processes with no OpenCL platform or a fresh, racy first enumeration.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <clforge/clforge.hpp>

#include "expect_error.hpp"
#include "private_files.hpp"
#include "program_cache.hpp"
#include "shared_device.hpp"
#include "threads.hpp"

namespace cf = clforge;
namespace fs = std::filesystem;
using clforge_test::ctx;
using clforge_test::q;

extern char** environ;

namespace {

// Runs this test binary again with only `test` selected and `env` added; returns its exit code.
int run_self(const std::string& test, const std::vector<std::string>& env) {
  std::vector<std::string> args = {"/proc/self/exe", "--gtest_filter=" + test};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> vars = env;
  for (char** e = environ; *e; ++e) vars.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), envp.data()) != 0)
    return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool in_child() {
  return std::getenv("CLFORGE_DEFECTS_CHILD") != nullptr;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const cf::error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// ---- several queues and threads on one context ----------------------------------------------

// Temporaries (reduction partials, scan chunk sums, polygon edge tables) used to go back to the
// pool right after enqueue, so another queue got the same buffer while the first still used it.
TEST(multi_queue, queues_and_threads_interleave_every_primitive) {
  constexpr std::size_t n = 3000000, scan_n = 1 << 20, side = 256;
  constexpr int kQueues = 3, kRounds = 6, kThreads = 3, kThreadRounds = 4;
  std::vector<cf::queue> queues;
  for (int i = 0; i < kQueues; ++i) queues.emplace_back(ctx());
  cf::elementwise_kernel scale(ctx(), "int a, global const int* x, global int* y",
                               "y[i] = a * x[i]");
  cf::polygon_mask masks(ctx());

  // Per queue: its own inputs (all v, v = 1, 2, 3 ...) and outputs.
  struct lane {
    int v;
    cf::array<float> x, sum_result;
    cf::array<int> ones, scanned, scaled, selected;
    std::vector<cf::point2f> polygon;
    cf::array<std::uint8_t> mask;
  };
  auto make_lane = [&](const cf::queue& lq, int v) {
    lane l{v};
    l.x = cf::array<float>::from_host(lq, std::vector<float>(n, float(v)));
    l.sum_result = cf::array<float>(lq, 1);
    l.ones = cf::array<int>::from_host(lq, std::vector<int>(scan_n, v));
    l.scanned = cf::array<int>(lq, scan_n);
    l.scaled = cf::array<int>(lq, scan_n);
    l.selected = cf::array<int>(lq, scan_n);
    l.polygon = cf::random_star_polygon(20 + v, side, 77 + v);
    l.mask = cf::array<std::uint8_t>(lq, side * side);
    return l;
  };
  // Everything is enqueued on every queue before anything is read back. The single-thread
  // rounds run one primitive on every queue, then the next: the pattern that made the queues
  // share temporaries (stage 1 of queue A, stage 1 of queue B, stage 2 of queue A).
  constexpr int kStages = 4;
  auto enqueue_stage = [&](int stage, const cf::queue& lq, lane& l) {
    if (stage == 0) cf::sum(lq, l.x, l.sum_result);
    if (stage == 1) cf::inclusive_scan(lq, l.ones, l.scanned);
    if (stage == 2) scale(lq, 3, l.ones, l.scaled);
    if (stage == 3) masks.mask_into(lq, l.polygon, l.mask, side, side, std::uint8_t{1});
  };
  auto enqueue_all = [&](const cf::queue& lq, lane& l) {
    for (int stage = 0; stage < kStages; ++stage) enqueue_stage(stage, lq, l);
  };
  auto check_all = [&](const cf::queue& lq, lane& l, std::string& failure) {
    float total = 0;
    l.sum_result.read(lq, &total, 0, 1);
    if (total != float(n) * float(l.v))
      failure = "sum " + std::to_string(total) + " for v=" + std::to_string(l.v);
    std::vector<int> s = l.scanned.to_host(lq);
    for (std::size_t i = 0; i < scan_n && failure.empty(); ++i)
      if (s[i] != int(i + 1) * l.v)
        failure = "inclusive_scan[" + std::to_string(i) + "] = " + std::to_string(s[i]);
    std::vector<int> y = l.scaled.to_host(lq);
    for (std::size_t i = 0; i < scan_n && failure.empty(); ++i)
      if (y[i] != 3 * l.v) failure = "elementwise[" + std::to_string(i) + "]";
    if (failure.empty() && l.mask.to_host(lq) != cf::polygon_mask_reference(l.polygon, side, side))
      failure = "polygon mask for v=" + std::to_string(l.v);
    // copy_if blocks for its count: its temporaries race with the others' pending work.
    const std::size_t kept =
        cf::copy_if(lq, l.scaled, l.selected, "x == " + std::to_string(3 * l.v));
    if (failure.empty() && kept != scan_n) failure = "copy_if kept " + std::to_string(kept);
  };

  // One thread, several queues, interleaved.
  std::vector<lane> lanes;
  for (int i = 0; i < kQueues; ++i) lanes.push_back(make_lane(queues[i], i + 1));
  int wrong = 0;
  std::string first_failure;
  for (int round = 0; round < kRounds; ++round) {
    for (int stage = 0; stage < kStages; ++stage)
      for (int i = 0; i < kQueues; ++i) enqueue_stage(stage, queues[i], lanes[i]);
    for (int i = 0; i < kQueues; ++i) {
      std::string failure;
      check_all(queues[i], lanes[i], failure);
      if (!failure.empty()) {
        ++wrong;
        if (first_failure.empty()) first_failure = failure;
      }
    }
  }
  EXPECT_EQ(wrong, 0) << "first: " << first_failure;

  // Several threads, each with its own queue.
  const std::vector<std::string> thrown = clforge_test::on_threads(kThreads, [&](int t) {
    cf::queue tq(ctx());
    lane l = make_lane(tq, 10 + t);
    for (int round = 0; round < kThreadRounds; ++round) {
      enqueue_all(tq, l);
      std::string failure;
      check_all(tq, l, failure);
      if (!failure.empty()) throw std::runtime_error(failure);
    }
  });
  EXPECT_EQ(thrown, std::vector<std::string>(kThreads));
}

// ---- moved-from arrays ------------------------------------------------------------------------

TEST(array_moved_from, is_empty_and_fails_the_length_checks) {
  auto a = cf::array<float>::from_host(q(), std::vector<float>(100, 1.0f));
  cf::array<float> b(std::move(a));
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_TRUE(a.empty());
  EXPECT_TRUE(a.to_host(q()).empty());
  a.fill(q(), 2.0f);
  EXPECT_EQ(cf::sum(q(), a), 0.0f);
  EXPECT_CLFORGE_ERROR(a.write(q(), std::vector<float>(4).data(), 0, 4), {"array::write"});
  cf::array<float> c(q(), 100);
  EXPECT_CLFORGE_ERROR(a.copy_to(q(), c, 0, 0, 100), {"array::copy_to"});
  cf::array<float> d;
  d = std::move(b);
  EXPECT_EQ(b.size(), 0u);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(cf::sum(q(), d), 100.0f);
  cf::elementwise_kernel twice(ctx(), "global const float* x, global float* y", "y[i] = 2 * x[i]");
  EXPECT_CLFORGE_ERROR(twice(q(), d, b), {"elements"});
}

// ---- exact launch sizes ------------------------------------------------------------------------

namespace {
const char* kCounting = R"CL(
kernel void count_items(global int* counter) { atomic_inc(counter); }
)CL";
int count_items(const cf::ndrange& range) {
  cf::program p = ctx().build(kCounting);
  auto counter = cf::array<int>::from_host(q(), std::vector<int>{0});
  q().launch(p.kernel("count_items"), range, counter);
  return counter.to_host(q())[0];
}
}  // namespace

TEST(launcher_exact, runs_exactly_the_global_size_asked_for) {
  EXPECT_EQ(count_items(cf::ndrange(1001)), 1001);
  EXPECT_EQ(count_items(cf::ndrange(1)), 1);
  EXPECT_EQ(count_items(cf::ndrange(1024)), 1024);
  EXPECT_EQ(count_items(cf::ndrange(33, 7)), 33 * 7);
  EXPECT_EQ(count_items(cf::ndrange(5, 3, 7)), 5 * 3 * 7);
  EXPECT_EQ(count_items(cf::ndrange(1000).with_local(8)), 1000);
  // Rounding up is an explicit opt-in.
  EXPECT_EQ(count_items(cf::ndrange::padded(1001).with_local(8)), 1008);
  EXPECT_GE(count_items(cf::ndrange::padded(1001)), 1001);
  EXPECT_CLFORGE_ERROR(count_items(cf::ndrange(1001).with_local(8)),
                       {"count_items", "1001", "not a multiple of local size 8", "padded"});
}

TEST(launcher_exact, a_work_item_count_that_overflows_is_an_error) {
  const std::size_t big = std::size_t(1) << 40;
  EXPECT_CLFORGE_ERROR(count_items(cf::ndrange(big, big, big)),
                       {"ndrange", "does not fit in size_t"});
  EXPECT_CLFORGE_ERROR((void)cf::ndrange(big, big, big).total(), {"does not fit"});
}

// ---- slices ------------------------------------------------------------------------------------

TEST(slice_step, slice_none_as_step_means_one) {
  std::vector<int> host(10);
  std::iota(host.begin(), host.end(), 0);
  auto x = cf::array<int>::from_host(q(), host);
  cf::reduction_kernel<int> sum(ctx(), "global const int* x", "x[i]", "a + b", "0");
  EXPECT_EQ(sum(q(), cf::slice(0, cf::slice_none, cf::slice_none), x), 45);
  EXPECT_EQ(sum(q(), cf::slice(cf::slice_none, cf::slice_none, cf::slice_none), x), 45);
  EXPECT_EQ(sum(q(), cf::slice(2, 5, cf::slice_none), x), 2 + 3 + 4);
}

// ---- polygon labels and coordinates ----------------------------------------------------------

TEST(polygon_labels, a_label_type_too_small_for_the_polygon_count_is_refused) {
  cf::polygon_mask pm(ctx());
  std::vector<std::vector<cf::point2f>> polygons;
  for (int p = 0; p < 256; ++p) polygons.push_back({{0, 0}, {16, 0}, {16, 16}});
  cf::array<std::uint8_t> image8(q(), 16 * 16);
  EXPECT_CLFORGE_ERROR(pm.labels_into(q(), polygons, image8, 16, 16),
                       {"256 polygons", "uchar", "at most 255"});
  // 255 polygons fit in 8 bits, and a 32-bit image takes 256.
  polygons.pop_back();
  pm.labels_into(q(), polygons, image8, 16, 16);
  std::vector<std::uint8_t> labels8 = image8.to_host(q());
  EXPECT_EQ(labels8[1 * 16 + 14], 255);
  polygons.push_back({{0, 0}, {16, 0}, {16, 16}});
  cf::array<std::uint32_t> image32(q(), 16 * 16);
  pm.labels_into(q(), polygons, image32, 16, 16);
  EXPECT_EQ(image32.to_host(q())[1 * 16 + 14], 256u);
}

TEST(polygon_coordinates, edges_whose_span_overflows_float_are_refused) {
  cf::polygon_mask pm(ctx());
  const std::vector<cf::point2f> huge = {{-3e38f, 1}, {3e38f, 1}, {0, 30}};
  EXPECT_CLFORGE_ERROR(pm(q(), huge, 32, 32),
                       {"polygon_mask", "edge from vertex 0", "float range"});
  // Large but safe coordinates still give the reference mask.
  const std::vector<cf::point2f> large = {{-1e38f, 1}, {1e38f, 1}, {16, 30}};
  EXPECT_EQ(pm(q(), large, 32, 32).to_host(q()), cf::polygon_mask_reference(large, 32, 32));
}

// ---- arrays of another context ---------------------------------------------------------------

TEST(other_context, arrays_of_another_context_are_refused_before_enqueue) {
  cf::context other = cf::context::create_default();
  cf::queue other_q(other);
  auto foreign = cf::array<float>::from_host(other_q, std::vector<float>(64, 1.0f));
  auto foreign_int = cf::array<int>::from_host(other_q, std::vector<int>(64, 1));
  auto mine = cf::array<float>::from_host(q(), std::vector<float>(64, 1.0f));
  cf::array<float> mine_result(q(), 1);
  cf::array<int> mine_int(q(), 64);

  cf::elementwise_kernel copy(ctx(), "global const float* x, global float* y", "y[i] = x[i]");
  EXPECT_CLFORGE_ERROR(copy(q(), foreign, mine), {"argument 1 (x)", "another OpenCL context"});
  EXPECT_CLFORGE_ERROR(copy(q(), mine, foreign), {"argument 2 (y)", "another OpenCL context"});
  EXPECT_CLFORGE_ERROR(cf::sum(q(), foreign), {"another OpenCL context"});
  EXPECT_CLFORGE_ERROR(cf::sum(q(), foreign, mine_result), {"another OpenCL context"});
  cf::array<float> foreign_result(other_q, 1);
  EXPECT_CLFORGE_ERROR(cf::sum(q(), mine, foreign_result),
                       {"the result array", "another OpenCL context"});
  EXPECT_CLFORGE_ERROR(cf::inclusive_scan(q(), foreign_int, mine_int), {"another OpenCL context"});
  EXPECT_CLFORGE_ERROR(cf::copy_if(q(), foreign_int, mine_int, "x > 0"),
                       {"another OpenCL context"});
  cf::polygon_mask pm(ctx());
  cf::array<std::uint8_t> foreign_image(other_q, 8 * 8);
  EXPECT_CLFORGE_ERROR(
      pm.mask_into(q(), {{0, 0}, {8, 0}, {8, 8}}, foreign_image, 8, 8, std::uint8_t{1}),
      {"the image array", "another OpenCL context"});
  cf::program p = ctx().build(kCounting);
  EXPECT_CLFORGE_ERROR(q().launch(p.kernel("count_items"), cf::ndrange(4), foreign_int),
                       {"argument 0", "another OpenCL context"});
  // The same calls with this context's arrays work.
  copy(q(), mine, mine);
  EXPECT_EQ(cf::sum(q(), mine), 64.0f);
}

// An empty array has no buffer for a launch to check, and the calls launch nothing for it; its
// context is still known, so every call refuses it as it refuses a non-empty one. A
// default-constructed array (no context) is an empty input of any context.
TEST(other_context, empty_arrays_of_another_context_are_refused_too) {
  cf::context other = cf::context::create_default();
  cf::queue other_q(other);
  cf::array<float> foreign(other_q, 0), foreign_y(other_q, 0), mine(q(), 0);
  cf::array<cl_uint> foreign_keys(other_q, 0);
  cf::array<int> foreign_int(other_q, 0), mine_int(q(), 0);
  cf::array<float> result(q(), 2);
  const char* other_context = "belongs to another OpenCL context than the queue";
  EXPECT_CLFORGE_ERROR(cf::sum(q(), foreign), {"clforge::sum: x", other_context});
  EXPECT_CLFORGE_ERROR(cf::sum(q(), foreign, result), {"clforge::sum: x", other_context});
  EXPECT_CLFORGE_ERROR(cf::dot(q(), mine, foreign_y), {"clforge::dot: y", other_context});
  EXPECT_CLFORGE_ERROR(cf::max(q(), foreign, result), {"clforge::max: x", other_context});
  EXPECT_CLFORGE_ERROR(cf::inclusive_scan(q(), foreign_int, mine_int),
                       {"argument 1 (in)", other_context});
  EXPECT_CLFORGE_ERROR(cf::copy_if(q(), mine, foreign, "x > 0"),
                       {"copy_if: the output array", other_context});
  EXPECT_CLFORGE_ERROR(cf::unique(q(), foreign, mine), {"unique: the input array", other_context});
  EXPECT_CLFORGE_ERROR(cf::sort(q(), foreign_keys), {"sort: the keys array", other_context});
  cf::array<float> values(q(), 0);
  EXPECT_CLFORGE_ERROR(cf::sort_by_key(q(), foreign_keys, values),
                       {"the keys array", other_context});
  EXPECT_CLFORGE_ERROR(cf::histogram(q(), foreign, 4, 0.0f, 1.0f),
                       {"argument 1 (x)", other_context});
  EXPECT_CLFORGE_ERROR(cf::gather(q(), foreign_int, mine, mine),
                       {"gather: the indices array", other_context});
  EXPECT_CLFORGE_ERROR(cf::random::uniform(q(), foreign, 1), {"the array", other_context});
  cf::elementwise_kernel copy(ctx(), "global const float* x, global float* y", "y[i] = x[i]");
  EXPECT_CLFORGE_ERROR(copy(q(), foreign, mine), {"argument 1 (x)", other_context});
  cf::reduction_kernel<float> total(ctx(), "global const float* x", "x[i]", "a + b", "0.0f");
  EXPECT_CLFORGE_ERROR(total(q(), foreign), {"argument 1 (x)", other_context});
  EXPECT_CLFORGE_ERROR(foreign.fill(q(), 1.0f), {"array::fill: the array", other_context});
  EXPECT_CLFORGE_ERROR(foreign.to_host(q()), {"array::read: the array", other_context});
  // On their own context the same calls are empty and fine.
  EXPECT_EQ(cf::sum(other_q, foreign), 0.0f);
  EXPECT_EQ(cf::copy_if(other_q, foreign, foreign_y, "x > 0"), 0u);
  cf::sort(other_q, foreign_keys);

  cf::array<float> none, none_out;
  cf::array<cl_uint> no_keys;
  EXPECT_EQ(cf::sum(q(), none), 0.0f);
  EXPECT_EQ(cf::copy_if(q(), none, none_out, "x > 0"), 0u);
  cf::sort(q(), no_keys);
  cf::random::uniform(q(), none, 1);
  EXPECT_TRUE(none.to_host(q()).empty());
  EXPECT_CLFORGE_ERROR(none.ctx().info(), {"clforge::context::info", "empty context handle"});
}

// A non-empty array's own commands on another context's queue: the same message, not the
// driver's CL_INVALID_CONTEXT.
TEST(other_context, array_commands_name_the_array) {
  cf::context other = cf::context::create_default();
  cf::queue other_q(other);
  auto foreign = cf::array<float>::from_host(other_q, std::vector<float>{1, 2, 3});
  auto mine = cf::array<float>::from_host(q(), std::vector<float>{4, 5, 6});
  const char* other_context = "belongs to another OpenCL context than the queue";
  EXPECT_CLFORGE_ERROR(foreign.fill(q(), 0.0f), {"array::fill: the array", other_context});
  EXPECT_CLFORGE_ERROR(foreign.to_host(q()), {"array::read: the array", other_context});
  const float three[] = {0, 0, 0};
  EXPECT_CLFORGE_ERROR(foreign.write(q(), three, 0, 3), {"array::write: the array", other_context});
  EXPECT_CLFORGE_ERROR(foreign.clone(q()), {"array::copy_to: the source array", other_context});
  EXPECT_CLFORGE_ERROR(mine.copy_to(q(), foreign), {"the destination array", other_context});
  EXPECT_EQ(foreign.to_host(other_q), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(mine.to_host(q()), (std::vector<float>{4, 5, 6}));
}

// ---- kernel names and scalar ranges ----------------------------------------------------------

TEST(kernel_names, names_longer_than_the_limit_are_refused) {
  cf::kernel_options o;
  o.name = std::string(245, 'k');
  EXPECT_CLFORGE_ERROR(cf::elementwise_kernel(ctx(), "global int* y", "y[i] = 1", o),
                       {"245 characters", "at most 128"});
  o.name = std::string(cf::max_template_name_length, 'k');
  cf::elementwise_kernel longest(ctx(), "global int* y", "y[i] = 7", o);
  cf::array<int> y(q(), 3);
  longest(q(), y);
  EXPECT_EQ(y.to_host(q()), (std::vector<int>{7, 7, 7}));
  cf::scan_options so;
  so.name = std::string(245, 's');
  EXPECT_CLFORGE_ERROR(
      cf::scan_kernel<int>(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                           "y[i] = item", cf::scan_kind::inclusive, so),
      {"scan_kernel", "245 characters"});
  cf::program p = ctx().build(kCounting);
  EXPECT_CLFORGE_ERROR(p.kernel(std::string(300, 'z')), {"300 characters", "at most 200"});
  // The longest name program::kernel accepts reaches the driver (which does not know it).
  EXPECT_CLFORGE_ERROR(p.kernel(std::string(cf::max_kernel_name_length, 'z')),
                       {"clCreateKernel", "CL_INVALID_KERNEL_NAME"});
}

// PoCL names a file `<kernel name>.so` in its kernel cache and aborted the process when that
// name passed the file-name limit (kernel names of 253 characters and more, when the program
// cache read the binaries). Every path that builds a program refuses such names first; on the
// old code the child process died, so the cases run there.
TEST(kernel_names, long_names_in_any_built_source_are_an_error_never_an_abort) {
  if (!in_child()) {
    EXPECT_EQ(run_self("kernel_names.long_names_in_any_built_source_are_an_error_never_an_abort",
                       {"CLFORGE_DEFECTS_CHILD=1"}),
              0);
    return;
  }
  const std::string body = "(global int* x) { x[get_global_id(0)] = 5; }\n";
  for (std::size_t length = 249; length <= 300; ++length) {
    const std::string name(length, 'n'), size = std::to_string(length) + " characters";
    // Raw source, with the comment and attribute forms the name check must see through.
    EXPECT_CLFORGE_ERROR(ctx().build("kernel void " + name + body),
                         {"context::build", size, "at most 200"});
    EXPECT_CLFORGE_ERROR(ctx().build("/* kernel void short_name( */ __kernel "
                                     "__attribute__((reqd_work_group_size(1, 1, 1))) void " +
                                     name + body),
                         {"context::build", size});
    // A template's own name, and a kernel its preamble declares.
    cf::kernel_options o;
    o.name = name;
    EXPECT_CLFORGE_ERROR(cf::elementwise_kernel(ctx(), "global int* y", "y[i] = 1", o),
                         {"elementwise_kernel", size, "at most 128"});
    cf::kernel_options with_preamble;
    with_preamble.preamble = "kernel void " + name + body;
    EXPECT_CLFORGE_ERROR(cf::elementwise_kernel(ctx(), "global int* y", "y[i] = 1", with_preamble),
                         {"elementwise_kernel", "context::build", size});
    // The tuner's custom kernels.
    cf::tuner::kernel_space space;
    space.source = "kernel void " + name + body;
    space.kernel_name = name;
    space.parameters = {{"UNUSED", {"0"}}};
    space.launch = [](const cf::queue&, const cf::kernel&, const cf::tuner::point&) {
      return cf::event();
    };
    space.check = [](const cf::queue&, const cf::tuner::point&) { return true; };
    EXPECT_CLFORGE_ERROR(cf::tuner::tune(q(), space), {"clforge::tuner::tune", size});
  }
  // A name an object-like macro spells is checked before the compiler sees it (NVIDIA's driver
  // corrupted the heap building one of 280 characters); one a function-like macro makes is seen
  // only by the compiler: the built program's kernel names are checked before anything reads
  // its binaries (lengths NVIDIA's driver builds safely).
  for (std::size_t length : {252, 253, 255, 300, 4000}) {
    const std::string name(length, 'm');
    EXPECT_CLFORGE_ERROR(
        ctx().build("#define NAME " + name + "\n#define OTHER NAME\n" + "kernel void OTHER" + body),
        {"context::build", std::to_string(length) + " characters"});
  }
  for (std::size_t length : {201, 252, 255, 260}) {
    const std::string name(length, 'f');
    EXPECT_CLFORGE_ERROR(ctx().build("#define NAME(x) x\nkernel void NAME(" + name + ")" + body),
                         {"context::build", std::to_string(length) + " characters"});
  }
  // The longest accepted name builds and runs.
  const std::string longest(cf::max_kernel_name_length, 'k');
  cf::program p = ctx().build("kernel void " + longest + body);
  cf::array<int> x(q(), 2);
  q().launch(p.kernel(longest), cf::ndrange(2), x);
  EXPECT_EQ(x.to_host(q()), (std::vector<int>{5, 5}));
}

TEST(kernel_names, declared_names_are_read_outside_comments_and_literals) {
  using cf::detail::declared_kernel_names;
  EXPECT_EQ(declared_kernel_names("kernel void a(global int* x) {}\n__kernel void b() {}"),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(declared_kernel_names("// kernel void c()\n/* kernel void d() */ constant char* s = "
                                  "\"kernel void e()\"; kernel void f() {}"),
            (std::vector<std::string>{"f"}));
  EXPECT_EQ(declared_kernel_names("__kernel __attribute__((reqd_work_group_size(64, 1, 1))) "
                                  "void g(global float* y) {}"),
            (std::vector<std::string>{"g"}));
  EXPECT_EQ(declared_kernel_names("void helper(int kernel_size) {}"), std::vector<std::string>{});
  EXPECT_EQ(declared_kernel_names("kernel void h("), (std::vector<std::string>{"h"}));
  EXPECT_EQ(declared_kernel_names("/* unterminated kernel void i("), std::vector<std::string>{});
}

TEST(scalar_range, a_finite_value_too_large_for_float_is_refused) {
  cf::elementwise_kernel set(ctx(), "float v, global float* y", "y[i] = v");
  cf::array<float> y(q(), 2);
  EXPECT_CLFORGE_ERROR(set(q(), 1e300, y), {"argument 1 (v, float)", "does not fit"});
  EXPECT_CLFORGE_ERROR(set(q(), -1e39, y), {"does not fit"});
  set(q(), 1e30, y);
  EXPECT_EQ(y.to_host(q())[0], 1e30f);
  set(q(), std::numeric_limits<double>::infinity(), y);  // infinity is a value floats hold
  EXPECT_TRUE(std::isinf(y.to_host(q())[0]));
}

// ---- device choice -----------------------------------------------------------------------------

TEST(device_choice, a_number_is_an_index_and_words_match_whole) {
  auto make = [](std::size_t p, std::size_t d, std::string platform, std::string name,
                 std::string version, cl_device_type type) {
    cf::device_info info;
    info.platform_index = p;
    info.device_index = d;
    info.platform_name = std::move(platform);
    info.name = std::move(name);
    info.platform_version = std::move(version);
    info.type = type;
    return info;
  };
  const std::vector<cf::device_info> machine = {
      make(0, 0, "Portable Computing Language", "cpu-skylake-avx512-Intel Xeon",
           "OpenCL 3.0 PoCL 5.0", CL_DEVICE_TYPE_CPU),
      make(1, 0, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", "OpenCL 3.0 CUDA", CL_DEVICE_TYPE_GPU),
      make(1, 1, "NVIDIA CUDA", "NVIDIA A100", "OpenCL 3.0 CUDA", CL_DEVICE_TYPE_GPU),
      make(2, 0, "Xilinx", "fpga0", "OpenCL 1.2", CL_DEVICE_TYPE_ACCELERATOR),
  };
  EXPECT_EQ(cf::choose_device("0", machine), 0u);
  EXPECT_EQ(cf::choose_device("1", machine), 1u);
  EXPECT_EQ(cf::choose_device("3", machine), 3u);  // not the H100 by the "3" of "HBM3"
  EXPECT_CLFORGE_ERROR(cf::choose_device("5", machine), {"no device number 5", "there are 4"});
  EXPECT_CLFORGE_ERROR(cf::choose_device(".", machine), {"Devices on this machine:"});
  EXPECT_CLFORGE_ERROR(cf::choose_device("h10", machine), {"whole word"});
  EXPECT_CLFORGE_ERROR(cf::choose_device("vidi", machine), {"whole word"});
  EXPECT_EQ(cf::choose_device("h100", machine), 1u);
  EXPECT_EQ(cf::choose_device("A100", machine), 2u);
  EXPECT_EQ(cf::choose_device("nvidia cuda", machine), 1u);
  EXPECT_EQ(cf::choose_device("pocl", machine), 0u);
  EXPECT_EQ(cf::choose_device("xeon", machine), 0u);
}

// ---- the disk cache's damaged entries ----------------------------------------------------------

namespace {
struct disk_cache : ::testing::Test {
  fs::path dir;
  std::string saved;
  void SetUp() override {
    const char* s = std::getenv("CLFORGE_CACHE_DIR");
    saved = s ? s : "";
    dir = fs::temp_directory_path() / ("clforge-defects-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
    ::setenv("CLFORGE_CACHE_DIR", dir.c_str(), 1);
  }
  void TearDown() override {
    fs::remove_all(dir);
    if (saved.empty())
      ::unsetenv("CLFORGE_CACHE_DIR");
    else
      ::setenv("CLFORGE_CACHE_DIR", saved.c_str(), 1);
  }
  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".clbin") out.push_back(e.path());
    return out;
  }
  static std::string source(int v) {
    return "kernel void k" + std::to_string(v) + "(global int* x) { x[0] = " + std::to_string(v) +
           "; }\n";
  }
  static int run_kernel(const cf::context& c, int v) {
    cf::queue cq(c);
    cf::array<int> x(cq, 1);
    cq.launch(c.build(source(v)).kernel("k" + std::to_string(v)), cf::ndrange(1), x);
    return x.to_host(cq)[0];
  }
};
}  // namespace

TEST_F(disk_cache, an_entry_with_a_huge_size_is_deleted_unread) {
  {
    cf::context c = cf::context::create_default();
    EXPECT_EQ(run_kernel(c, 1), 1);
  }
  ASSERT_EQ(entries().size(), 1u);
  const fs::path entry = entries()[0];
  fs::resize_file(entry, std::uintmax_t(1) << 40);  // sparse: 1 TiB apparent size
  cf::context c = cf::context::create_default();
  EXPECT_EQ(run_kernel(c, 1), 1);
  EXPECT_EQ(c.program_cache_stats().disk_rejects, 1u);
  EXPECT_EQ(c.program_cache_stats().compiles, 1u);
  ASSERT_TRUE(fs::exists(entry));  // rebuilt and written again, at its normal size
  EXPECT_LT(fs::file_size(entry), std::uintmax_t(1) << 30);
}

TEST_F(disk_cache, stale_temporaries_are_removed_when_the_directory_is_opened) {
  const fs::path stale = dir / "0123456789abcdef0123456789abcdef.clbin.tmp.4242.0";
  const fs::path fresh = dir / "0123456789abcdef0123456789abcdef.clbin.tmp.4243.0";
  // Build claims (see program_cache.cpp) left by a process killed while it built.
  const fs::path stale_lock = dir / "00000000000000000000000000000001.clbin.lock";
  const fs::path fresh_lock = dir / "00000000000000000000000000000002.clbin.lock";
  std::ofstream(stale) << "partial";
  std::ofstream(fresh) << "partial";
  std::ofstream{stale_lock};
  std::ofstream{fresh_lock};
  struct utimbuf old_times {};
  old_times.actime = old_times.modtime = std::time(nullptr) - 3600;
  ASSERT_EQ(::utime(stale.c_str(), &old_times), 0);
  ASSERT_EQ(::utime(stale_lock.c_str(), &old_times), 0);
  cf::context c = cf::context::create_default();
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh));  // may belong to a process writing right now
  EXPECT_FALSE(fs::exists(stale_lock));
  EXPECT_TRUE(fs::exists(fresh_lock));
}

// A lock file a killed process left keeps its old time when the next build claims it: a process
// opening the directory then removed it as stale while it was held, and built the same program
// at the same moment under a new lock file (what the claim is there to prevent).
TEST_F(disk_cache, a_claimed_lock_file_is_not_stale_however_old_it_was) {
  const fs::path lock = dir / "00000000000000000000000000000003.clbin.lock";
  std::ofstream{lock};
  struct utimbuf old_times {};
  old_times.actime = old_times.modtime = std::time(nullptr) - 3600;
  ASSERT_EQ(::utime(lock.c_str(), &old_times), 0);
  const cf::detail::file_claim first(lock.string(), 1);
  ASSERT_TRUE(first.held());
  cf::context c = cf::context::create_default();  // opens the directory: removes stale files
  EXPECT_TRUE(fs::exists(lock));
  const cf::detail::file_claim second(lock.string(), 1);
  EXPECT_FALSE(second.held());
}

TEST_F(disk_cache, an_entry_replaced_by_a_directory_is_skipped_and_the_cache_stays_on) {
  {
    cf::context c = cf::context::create_default();
    EXPECT_EQ(run_kernel(c, 2), 2);
  }
  ASSERT_EQ(entries().size(), 1u);
  const fs::path entry = entries()[0];
  fs::remove(entry);
  fs::create_directories(entry / "inside");
  cf::context c = cf::context::create_default();
  EXPECT_EQ(run_kernel(c, 2), 2);  // compiled: the directory is no entry
  EXPECT_EQ(run_kernel(c, 3), 3);  // another program is still written to disk
  EXPECT_EQ(c.program_cache_stats().disk_writes, 1u);
  EXPECT_TRUE(fs::is_directory(entry));
  cf::context again = cf::context::create_default();
  EXPECT_EQ(run_kernel(again, 3), 3);
  EXPECT_EQ(again.program_cache_stats().disk_hits, 1u);
}

// ---- fresh processes ---------------------------------------------------------------------------

// PoCL's first platform enumeration in a process is racy: threads creating their first contexts
// at once were told there was no device. Runs in a child process, where nothing has enumerated.
TEST(fresh_process, concurrent_create_default_all_succeed) {
  if (in_child()) {
    constexpr int kThreads = 8;
    std::atomic<int> ok{0};
    const std::vector<std::string> thrown = clforge_test::on_threads(kThreads, [&](int) {
      cf::context c = cf::context::create_default();
      if (c) ++ok;
    });
    EXPECT_EQ(thrown, std::vector<std::string>(kThreads));
    EXPECT_EQ(ok.load(), kThreads);
    return;
  }
#if defined(__SANITIZE_ADDRESS__)
  // Under AddressSanitizer the child's PoCL threads trip the sanitizer's own CHECK ("unable to
  // unmap") at thread exit; the test runs in the main suite.
  GTEST_SKIP() << "fresh PoCL processes with threads are not run under AddressSanitizer";
#endif
  // Several fresh processes: the race did not show every time.
  for (int run = 0; run < 3; ++run)
    ASSERT_EQ(run_self("fresh_process.concurrent_create_default_all_succeed",
                       {"CLFORGE_DEFECTS_CHILD=1"}),
              0)
        << "run " << run;
}

// With no OpenCL platform (an empty ICD directory) the error says so and how to install one.
TEST(fresh_process, no_opencl_platform_is_a_clear_error) {
  if (in_child()) {
    std::string message = error_of([] { cf::context::create_default(); });
    EXPECT_NE(message.find("no OpenCL platform found"), std::string::npos) << message;
    EXPECT_NE(message.find("pocl-opencl-icd"), std::string::npos) << message;
    EXPECT_NE(message.find("OCL_ICD_VENDORS"), std::string::npos) << message;
    return;
  }
  const fs::path empty = fs::temp_directory_path() / ("clforge-no-icd-" + std::to_string(getpid()));
  fs::create_directories(empty);
  const std::string vendors = "OCL_ICD_VENDORS=" + empty.string();
  EXPECT_EQ(run_self("fresh_process.no_opencl_platform_is_a_clear_error",
                     {"CLFORGE_DEFECTS_CHILD=1", vendors}),
            0);
#ifdef CLFORGE_INFO_TOOL
  // clforge-info says the same.
  const std::string out =
      (fs::temp_directory_path() / ("clforge-no-icd-" + std::to_string(getpid()) + ".txt"))
          .string();
  const std::string command = vendors + " " CLFORGE_INFO_TOOL " > " + out + " 2>&1";
  EXPECT_NE(std::system(command.c_str()), 0);
  std::ifstream in(out);
  std::string printed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(printed.find("no OpenCL platform found"), std::string::npos) << printed;
  fs::remove(out);
#endif
  fs::remove_all(empty);
}
