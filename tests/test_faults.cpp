// SPDX-License-Identifier: MIT
// Faults: the device running out of memory (faked through the pool's test hook: drivers such as
// PoCL allocate lazily and never refuse), and a cache directory that is missing, read-only or
// full (clforge works from memory and says so once). See docs/errors.md, "Faults".
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <clforge/clforge.hpp>

#include "expect_error.hpp"
#include "probe.hpp"

namespace cf = clforge;
namespace fs = std::filesystem;
using clforge_test::probe_result;
using clforge_test::run_probe;
using clforge_test::scratch_dir;

namespace {
// Fails the first `failures` creations with `code`, then calls clCreateBuffer.
struct failing_allocator {
  failing_allocator(int failures, cl_int code) : failures(failures), code(code) {}
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  int failures;
  cl_int code;
  cf::memory_pool::create_function function() const {
    auto calls = this->calls;
    int failures = this->failures;
    cl_int code = this->code;
    return [calls, failures, code](cl_context c, cl_mem_flags flags, std::size_t bytes, void* host,
                                   cl_int* status) -> cl_mem {
      if (calls->fetch_add(1) < failures) {
        *status = code;
        return nullptr;
      }
      return clCreateBuffer(c, flags, bytes, host, status);
    };
  }
};

struct faults : ::testing::Test {
  static cf::context& ctx() {
    static cf::context c = cf::context::create_default();
    return c;
  }
  cf::queue q{ctx()};
  void TearDown() override { ctx().pool().set_create_function_for_testing({}); }

  // The program keeps working: allocate, launch, read back.
  void expect_still_working() {
    static cf::program p =
        ctx().build("kernel void twice(global int* x) { x[get_global_id(0)] *= 2; }");
    auto x = cf::array<int>::from_host(q, std::vector<int>{1, 2, 3});
    q.launch(p.kernel("twice"), cf::ndrange(3).with_local(1), x);
    EXPECT_EQ(x.to_host(q), (std::vector<int>{2, 4, 6}));
  }
};
}  // namespace

TEST_F(faults, allocation_failure_frees_the_pool_and_retries_once) {
  cf::memory_pool& pool = ctx().pool();
  pool.release_all();
  { cf::array<float> kept(q, 1 << 16); }  // returned to the pool: held
  ASSERT_GT(pool.stats().held_bytes, 0u);
  const std::size_t retries = pool.stats().retries;

  failing_allocator one_failure{1, CL_MEM_OBJECT_ALLOCATION_FAILURE};
  pool.set_create_function_for_testing(one_failure.function());
  cf::array<float> fresh(q, 3 << 16);  // another size class: not served from the pool
  EXPECT_EQ(one_failure.calls->load(), 2) << "one failure, one retry";
  EXPECT_EQ(pool.stats().held_bytes, 0u) << "the retry came after freeing what the pool kept";
  EXPECT_EQ(pool.stats().retries, retries + 1);
  std::vector<float> data(fresh.size(), 2.5f);
  fresh.write(q, data.data(), 0, data.size());
  EXPECT_EQ(fresh.to_host(q), data);
}

TEST_F(faults, out_of_memory_twice_is_a_clear_error_and_the_program_keeps_working) {
  cf::memory_pool& pool = ctx().pool();
  { cf::array<int> kept(q, 1000); }
  for (cl_int code : {CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES}) {
    failing_allocator always{1000, code};
    pool.set_create_function_for_testing(always.function());
    const std::string bytes = std::to_string(cf::memory_pool::size_class(5000 * sizeof(int)));
    EXPECT_CLFORGE_ERROR(
        cf::array<int>(q, 5000),
        {"clCreateBuffer failed: " + std::string(cf::error_name(code)),
         "allocating " + bytes + " bytes: the device is out of memory even after clforge freed the",
         "retried once", "The device ran out of memory or resources"});
    EXPECT_EQ(always.calls->load(), 2) << "exactly one retry";
    pool.set_create_function_for_testing({});
    expect_still_working();
  }
}

TEST_F(faults, other_allocation_errors_are_not_retried) {
  ctx().pool().release_all();  // nothing kept: every allocation creates a buffer
  failing_allocator invalid{1000, CL_INVALID_BUFFER_SIZE};
  ctx().pool().set_create_function_for_testing(invalid.function());
  EXPECT_CLFORGE_ERROR(cf::array<char>(q, 77),
                       {"clCreateBuffer failed: CL_INVALID_BUFFER_SIZE", "allocating 256 bytes"});
  EXPECT_EQ(invalid.calls->load(), 1);
}

TEST(faults_messages, out_of_memory_at_an_enqueue_says_why) {
  // OpenCL allocates a buffer when a command first uses it: the failure can come at any enqueue.
  for (cl_int code : {CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES})
    EXPECT_CLFORGE_ERROR(
        cf::detail::throw_cl_error("clEnqueueNDRangeKernel", code, "kernel \"k\""),
        {"clEnqueueNDRangeKernel failed", cf::error_name(code), "kernel \"k\"",
         "buffers are allocated when a command first uses them", "context::pool().release_all()"});
  EXPECT_EQ(clforge_test::error_message([] {
              cf::detail::throw_cl_error("clFinish", CL_INVALID_VALUE);
            }).find("ran out of memory"),
            std::string::npos);
}

// ---- the cache directory ---------------------------------------------------------------------

const char* const kDiskOff = "clforge: disk cache off (";
const char* const kFromMemory = "programs are cached in memory only";

TEST(cache_directory_faults, missing_directory_and_parents_are_created_private) {
  scratch_dir d("missing");
  const fs::path nested = d.path / "a" / "b";
  probe_result r = run_probe("CLFORGE_CACHE_DIR=" + nested.string(), "", "fault_missing", 2);
  EXPECT_EQ(r.ok, 1) << r.err;
  EXPECT_EQ(r.disk_writes, 2);
  EXPECT_EQ(r.count_in_stderr(kDiskOff), 0) << r.err;
  EXPECT_EQ(fs::status(nested).permissions() & fs::perms::all, fs::perms::owner_all);
}

TEST(cache_directory_faults, read_only_directory_works_from_memory_and_says_so_once) {
  scratch_dir d("read-only");
  fs::create_directories(d.path);
  ::chmod(d.path.c_str(), 0500);
  std::string env = d.env(), flags;
  if (clforge_test::running_as_root()) {
    // Root writes anywhere; a read-only directory needs another user. PoCL needs a cache of
    // its own that this user can write.
    const fs::path pocl = d.root / "pocl";
    fs::create_directories(pocl);
    ::chmod(pocl.c_str(), 0777);
    ::chmod(d.root.c_str(), 0755);
    ASSERT_EQ(::chown(d.path.c_str(), 65534, 65534), 0);
    env += " POCL_CACHE_DIR=" + pocl.string() + " HOME=" + pocl.string();
    flags = "--as-nobody";
  }
  probe_result r = run_probe(env, flags, "fault_read_only", 4);
  EXPECT_EQ(r.ok, 1) << r.err;
  EXPECT_EQ(r.compiles, 4);
  EXPECT_EQ(r.disk_writes, 0);
  EXPECT_EQ(r.count_in_stderr(kDiskOff), 1) << r.err;  // two contexts, four programs: once
  EXPECT_EQ(r.count_in_stderr("is not writable"), 1) << r.err;
  EXPECT_EQ(r.count_in_stderr(kFromMemory), 1) << r.err;
  EXPECT_TRUE(d.entries().empty());
}

TEST(cache_directory_faults, full_disk_works_from_memory_and_says_so_once) {
  scratch_dir d("full");
  // Every write() into the directory fails with ENOSPC (tests/fault_inject.cpp).
  probe_result r =
      run_probe(d.env() + " CLFORGE_TEST_ENOSPC_DIR=" + d.path.string(), "", "fault_full", 4);
  EXPECT_EQ(r.ok, 1) << r.err;
  EXPECT_EQ(r.compiles, 4);
  EXPECT_EQ(r.disk_writes, 0);
  EXPECT_EQ(r.count_in_stderr(kDiskOff), 1) << r.err;
  EXPECT_EQ(r.count_in_stderr("cannot write " + d.path.string() + ": No space left on device"), 1)
      << r.err;
  EXPECT_TRUE(d.entries().empty()) << "no partial or temporary files are left";
}

TEST(cache_directory_faults, full_tmpfs_works_from_memory_and_says_so_once) {
  // The same on a real full file system: a small tmpfs in a private mount namespace, filled up
  // with a filler file before the probe runs (entry sizes differ by driver: NVIDIA's PTX
  // entries fit where PoCL's do not). Needs root and permission to mount; skipped otherwise.
  if (!clforge_test::running_as_root() || std::system("unshare -m true >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here";
  scratch_dir d("tmpfs");
  fs::create_directories(d.path);
  ::chmod(d.path.c_str(), 0700);
  const std::string probe = CLFORGE_RELIABILITY_PROBE;
  const std::string err_file = (d.root / "stderr").string();
  const std::string command = "unshare -m sh -c 'mount -t tmpfs -o size=16k,mode=0700 tmpfs " +
                              d.path.string() + " && (cat /dev/zero > " + d.path.string() +
                              "/filler 2>/dev/null; true) && " + d.env() + " timeout 120 " + probe +
                              " fault_tmpfs 4' 2>" + err_file;
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char line[512] = {};
  probe_result r;
  if (std::fgets(line, sizeof line, pipe))
    std::sscanf(line, "compiles=%d disk_hits=%d disk_writes=%d disk_rejects=%d ok=%d", &r.compiles,
                &r.disk_hits, &r.disk_writes, &r.disk_rejects, &r.ok);
  ::pclose(pipe);
  std::ifstream in(err_file);
  std::stringstream text;
  text << in.rdbuf();
  r.err = text.str();
  EXPECT_EQ(r.ok, 1) << r.err;
  EXPECT_EQ(r.compiles, 4);
  EXPECT_EQ(r.disk_writes, 0);
  EXPECT_EQ(r.count_in_stderr(kDiskOff), 1) << r.err;
  EXPECT_EQ(r.count_in_stderr("No space left on device"), 1) << r.err;
}
