// SPDX-License-Identifier: MIT
// Security of the on-disk program cache, beyond tests/test_program_cache.cpp: a directory or
// entry someone else could have written is never used, links and special files planted as
// entries are refused without hanging, foreign entries are rebuilt, and entry names never come
// from user text. Each case runs tests/reliability_probe in a child process.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <clforge/clforge.hpp>

#include "probe.hpp"

namespace fs = std::filesystem;
using clforge_test::probe_result;
using clforge_test::run_probe;
using clforge_test::scratch_dir;

namespace {
const char* const kDiskOff = "clforge: disk cache off (";

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The single entry of `d`, after a probe wrote exactly one.
fs::path only_entry(const scratch_dir& d) {
  auto e = d.entries();
  return e.size() == 1 ? e[0] : fs::path();
}
}  // namespace

TEST(cache_security, directory_writable_by_group_turns_the_disk_cache_off) {
  scratch_dir d("group-writable");
  fs::create_directories(d.path);
  ::chmod(d.path.c_str(), 0770);
  probe_result r = run_probe(d.env(), "", "sec_group_dir", 2);
  EXPECT_EQ(r.ok, 1) << r.err;
  EXPECT_EQ(r.disk_writes, 0);
  EXPECT_EQ(r.count_in_stderr(kDiskOff), 1) << r.err;
  EXPECT_EQ(r.count_in_stderr("is not owned by this user or is writable by group or others"), 1)
      << r.err;
  EXPECT_TRUE(d.entries().empty());
}

TEST(cache_security, directory_owned_by_another_user_turns_the_disk_cache_off) {
  if (!clforge_test::running_as_root()) GTEST_SKIP() << "needs root to chown";
  scratch_dir d("foreign-dir");
  fs::create_directories(d.path);
  ::chmod(d.path.c_str(), 0700);
  ASSERT_EQ(::chown(d.path.c_str(), 65534, 65534), 0);
  probe_result r = run_probe(d.env(), "", "sec_foreign_dir", 2);
  EXPECT_EQ(r.ok, 1) << r.err;
  EXPECT_EQ(r.disk_writes, 0);
  EXPECT_EQ(r.disk_hits, 0);
  EXPECT_EQ(r.count_in_stderr("is not owned by this user"), 1) << r.err;
  EXPECT_TRUE(d.entries().empty());
}

TEST(cache_security, entry_owned_by_another_user_is_ignored) {
  if (!clforge_test::running_as_root()) GTEST_SKIP() << "needs root to chown";
  scratch_dir d("foreign-entry");
  ASSERT_EQ(run_probe(d.env(), "", "sec_foreign_entry", 1).disk_writes, 1);
  ASSERT_EQ(::chown(only_entry(d).c_str(), 65534, 65534), 0);
  probe_result r = run_probe(d.env(), "", "sec_foreign_entry", 1);
  EXPECT_EQ(r.ok, 1) << r.err;
  EXPECT_EQ(r.disk_hits, 0);
  EXPECT_EQ(r.compiles, 1);
  EXPECT_EQ(r.disk_rejects, 1);
}

TEST(cache_security, symlinked_entry_is_refused_and_its_target_untouched) {
  scratch_dir d("symlink");
  ASSERT_EQ(run_probe(d.env(), "", "sec_symlink", 1).disk_writes, 1);
  const fs::path entry = only_entry(d);
  // A valid entry elsewhere, linked in under the entry's name: O_NOFOLLOW refuses it.
  const fs::path target = d.root / "elsewhere.clbin";
  fs::rename(entry, target);
  const std::string before = read_file(target);
  fs::create_symlink(target, entry);
  probe_result r = run_probe(d.env(), "", "sec_symlink", 1);
  EXPECT_EQ(r.ok, 1) << r.err;
  EXPECT_EQ(r.disk_hits, 0);
  EXPECT_EQ(r.compiles, 1);
  EXPECT_EQ(read_file(target), before) << "the link's target was written through";
  EXPECT_FALSE(fs::is_symlink(entry)) << "the rebuild replaces the link itself";
  EXPECT_TRUE(fs::is_regular_file(entry));
}

TEST(cache_security, fifo_planted_as_an_entry_does_not_hang) {
  scratch_dir d("fifo");
  ASSERT_EQ(run_probe(d.env(), "", "sec_fifo", 1).disk_writes, 1);
  const fs::path entry = only_entry(d);
  fs::remove(entry);
  ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0);
  probe_result r = run_probe(d.env(), "", "sec_fifo", 1);  // killed after 120 s if it hangs
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.ok, 1) << r.err;
  EXPECT_EQ(r.disk_hits, 0);
  EXPECT_EQ(r.compiles, 1);
}

TEST(cache_security, foreign_entry_with_a_valid_format_is_rebuilt) {
  scratch_dir d("foreign-key");
  ASSERT_EQ(run_probe(d.env(), "", "sec_key_a", 1).disk_writes, 1);
  const fs::path a = only_entry(d);
  ASSERT_EQ(run_probe(d.env(), "", "sec_key_b", 1).disk_writes, 1);
  fs::path b;
  for (const fs::path& p : d.entries())
    if (p != a) b = p;
  ASSERT_FALSE(b.empty());
  // A's whole, well-formed entry under B's name: the key inside says A, so B is rebuilt.
  fs::copy_file(a, b, fs::copy_options::overwrite_existing);
  probe_result r = run_probe(d.env(), "", "sec_key_b", 1);
  EXPECT_EQ(r.ok, 1) << r.err;
  EXPECT_EQ(r.disk_hits, 0);
  EXPECT_EQ(r.disk_rejects, 1);
  EXPECT_EQ(r.compiles, 1);
  EXPECT_NE(read_file(a), read_file(b)) << "B's entry was replaced by its own";
}

TEST(cache_security, entry_names_are_hex_keys_never_user_text) {
  scratch_dir d("names");
  // Build through the library directly with source and options full of path-like text.
  ::setenv("CLFORGE_CACHE_DIR", d.path.c_str(), 1);
  {
    clforge::context ctx = clforge::context::create_default();
    ctx.build("// ../../../../tmp/evil\nkernel void sec_names(global int* x) { x[0] = 1; }",
              "-DPATH=../../etc/passwd -I/tmp");
  }
  ::unsetenv("CLFORGE_CACHE_DIR");
  const std::regex hex_name("[0-9a-f]{32}\\.clbin");
  auto entries = d.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(std::regex_match(entries[0].filename().string(), hex_name)) << entries[0];
  EXPECT_EQ(fs::status(entries[0]).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}
