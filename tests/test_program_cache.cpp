// SPDX-License-Identifier: MIT
// The program cache: memory, then disk, then compile; what invalidates an entry; bad entries.
// Statistics, not timing, tell where a program came from.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>

#include <clforge/clforge.hpp>

#include "program_cache.hpp"  // entry encoding (library-internal)
#include "threads.hpp"

namespace cf = clforge;
namespace fs = std::filesystem;

namespace {
struct probe_result {
  int compiles = -1, disk_hits = -1, memory_hits = -1, writes = -1, rejects = -1, ok = 0;
};

// Fresh, private cache directory per test; CLFORGE_CACHE_DIR points at it.
struct cache_fixture : ::testing::Test {
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("clforge-cache-test-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    ::setenv("CLFORGE_CACHE_DIR", dir.c_str(), 1);
    ::unsetenv("CLFORGE_CACHE");
  }
  void TearDown() override {
    fs::remove_all(dir);
    ::unsetenv("CLFORGE_CACHE");
  }
  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    if (!fs::exists(dir)) return out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
    return out;
  }
  // A kernel name no earlier run has used, so PoCL's own cache does not matter either.
  static std::string fresh_name() {
    static std::mt19937_64 rng(std::random_device{}());
    return "k" + std::to_string(rng() % 1000000000000ull);
  }
  probe_result run_probe(const std::string& name, const std::string& options = "") {
    std::string command = std::string(CLFORGE_CACHE_PROBE) + " " + name + " '" + options + "'";
    probe_result r;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) return r;
    char line[512] = {};
    if (std::fgets(line, sizeof line, pipe))
      std::sscanf(line,
                  "compiles=%d disk_hits=%d memory_hits=%d disk_writes=%d disk_rejects=%d ok=%d",
                  &r.compiles, &r.disk_hits, &r.memory_hits, &r.writes, &r.rejects, &r.ok);
    ::pclose(pipe);
    return r;
  }
};
}  // namespace

TEST_F(cache_fixture, second_process_finds_the_program_on_disk) {
  const std::string name = fresh_name();
  probe_result first = run_probe(name);
  EXPECT_EQ(first.compiles, 1);
  EXPECT_EQ(first.disk_hits, 0);
  EXPECT_EQ(first.writes, 1);
  EXPECT_EQ(first.ok, 1);
  ASSERT_EQ(entries().size(), 1u);
  // Private to the user: directory 0700, entry 0600.
  EXPECT_EQ(fs::status(dir).permissions() & fs::perms::all, fs::perms::owner_all);
  EXPECT_EQ(fs::status(entries()[0]).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);

  probe_result second = run_probe(name);
  EXPECT_EQ(second.compiles, 0);
  EXPECT_EQ(second.disk_hits, 1);
  EXPECT_EQ(second.ok, 1);

  // A different option or a different source misses.
  probe_result other_options = run_probe(name, "-DUNUSED=1");
  EXPECT_EQ(other_options.compiles, 1);
  EXPECT_EQ(other_options.disk_hits, 0);
  probe_result other_source = run_probe(fresh_name());
  EXPECT_EQ(other_source.compiles, 1);
  EXPECT_EQ(entries().size(), 3u);
}

TEST_F(cache_fixture, memory_hits_within_a_process) {
  cf::context ctx = cf::context::create_default();
  const std::string source = "kernel void " + fresh_name() + "(global int* x) { x[0] = 1; }";
  cf::program a = ctx.build(source);
  cf::program b = ctx.build(source);
  EXPECT_EQ(a.cl()(), b.cl()());
  cf::cache_stats s = ctx.program_cache_stats();
  EXPECT_EQ(s.compiles, 1u);
  EXPECT_EQ(s.memory_hits, 1u);
}

TEST_F(cache_fixture, truncated_or_corrupted_entries_are_rebuilt_and_replaced) {
  for (int damage = 0; damage < 3; ++damage) {
    const std::string name = fresh_name();
    ASSERT_EQ(run_probe(name).compiles, 1);
    fs::path entry;
    for (const fs::path& p : entries())
      if (fs::last_write_time(p) >= fs::last_write_time(entry.empty() ? p : entry)) entry = p;
    const auto size = fs::file_size(entry);
    if (damage == 0) {
      fs::resize_file(entry, size / 2);  // truncated
    } else if (damage == 1) {
      std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(size - 10));
      f.put('\x5a').put('\xa5');  // a flipped byte in the binary: bad checksum
    } else {
      std::ofstream f(entry, std::ios::binary | std::ios::trunc);
      f << "not a clforge cache entry at all";
    }
    probe_result again = run_probe(name);
    EXPECT_EQ(again.rejects, 1) << "damage " << damage;
    EXPECT_EQ(again.compiles, 1) << "damage " << damage;
    EXPECT_EQ(again.disk_hits, 0) << "damage " << damage;
    EXPECT_EQ(again.ok, 1) << "damage " << damage;
    probe_result repaired = run_probe(name);  // the rebuild replaced the bad entry
    EXPECT_EQ(repaired.disk_hits, 1) << "damage " << damage;
    EXPECT_EQ(repaired.rejects, 0) << "damage " << damage;
  }
}

TEST_F(cache_fixture, entries_writable_by_others_are_ignored) {
  const std::string name = fresh_name();
  ASSERT_EQ(run_probe(name).compiles, 1);
  ASSERT_EQ(entries().size(), 1u);
  ::chmod(entries()[0].c_str(), 0666);
  probe_result r = run_probe(name);
  EXPECT_EQ(r.disk_hits, 0);
  EXPECT_EQ(r.compiles, 1);
  EXPECT_EQ(r.rejects, 1);
}

TEST_F(cache_fixture, cache_off_leaves_no_files) {
  ::setenv("CLFORGE_CACHE", "off", 1);
  probe_result r = run_probe(fresh_name());
  EXPECT_EQ(r.compiles, 1);
  EXPECT_EQ(r.writes, 0);
  EXPECT_FALSE(fs::exists(dir)) << "CLFORGE_CACHE=off created " << dir;
}

TEST_F(cache_fixture, many_threads_one_program_compile_once) {
  cf::context ctx = cf::context::create_default();
  const std::string name = fresh_name();
  const std::string source = "kernel void " + name +
                             "(ulong n, global int* x) { if (get_global_id(0) < n) "
                             "x[get_global_id(0)] = 7; }";
  const std::vector<std::string> thrown = clforge_test::on_threads(8, [&](int) {
    cf::queue q(ctx);
    cf::array<int> x(q, 64);
    q.launch(ctx.build(source).kernel(name), cf::ndrange(64), cl_ulong(64), x);
    for (int v : x.to_host(q))
      if (v != 7) throw std::runtime_error("an element is " + std::to_string(v) + ", not 7");
  });
  EXPECT_EQ(thrown, std::vector<std::string>(8));
  cf::cache_stats s = ctx.program_cache_stats();
  EXPECT_EQ(s.compiles, 1u);
  EXPECT_EQ(s.memory_hits, 7u);
}

TEST_F(cache_fixture, processes_compiling_the_same_program_at_once_all_succeed) {
  const std::string name = fresh_name();
  std::vector<std::thread> processes;
  std::vector<probe_result> results(4);
  for (int p = 0; p < 4; ++p) processes.emplace_back([&, p] { results[p] = run_probe(name); });
  for (auto& t : processes) t.join();
  for (const probe_result& r : results) {
    EXPECT_EQ(r.ok, 1);
    EXPECT_EQ(r.compiles + r.disk_hits, 1);
  }
  std::size_t clbin = 0;
  for (const fs::path& p : entries()) clbin += p.extension() == ".clbin";
  EXPECT_EQ(clbin, 1u) << "one entry per program, no temporary files left";
  EXPECT_EQ(entries().size(), 1u);
}

TEST(cache_entry, encoding_round_trip_and_checks) {
  cf::detail::cache_key key{0x0123456789abcdefull, 0xfedcba9876543210ull};
  const std::string binary = std::string(
      "\x7f"
      "ELF binary bytes \0 with a zero",
      31);
  std::string entry = cf::detail::encode_cache_entry(key, binary);
  std::string out;
  ASSERT_TRUE(cf::detail::decode_cache_entry(key, entry, out));
  EXPECT_EQ(out, binary);
  EXPECT_EQ(key.hex(), "0123456789abcdeffedcba9876543210");

  cf::detail::cache_key other = key;
  other.low ^= 1;
  EXPECT_FALSE(cf::detail::decode_cache_entry(other, entry, out));  // foreign key
  for (std::size_t cut = 0; cut < entry.size(); cut += 7)
    EXPECT_FALSE(cf::detail::decode_cache_entry(key, entry.substr(0, cut), out)) << cut;
  for (std::size_t i = 0; i < entry.size(); ++i) {
    std::string flipped = entry;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x01);
    EXPECT_FALSE(cf::detail::decode_cache_entry(key, flipped, out)) << "byte " << i;
  }
  EXPECT_FALSE(cf::detail::decode_cache_entry(key, entry + "x", out));
}

TEST(cache_directory, resolution_order) {
  ::setenv("CLFORGE_CACHE_DIR", "/tmp/a/", 1);
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(cf::detail::resolve_cache_directory(), "/tmp/a");
  ::unsetenv("CLFORGE_CACHE_DIR");
  EXPECT_EQ(cf::detail::resolve_cache_directory(), "/tmp/xdg/clforge");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(cf::detail::resolve_cache_directory(), "/home/someone/.cache/clforge");
  ::setenv("CLFORGE_CACHE", "OFF", 1);
  EXPECT_EQ(cf::detail::resolve_cache_directory(), "");
  ::unsetenv("CLFORGE_CACHE");
}
