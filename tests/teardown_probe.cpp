// SPDX-License-Identifier: MIT
// A child process for tests/test_teardown.cpp: creates, uses and destroys clforge objects in one
// of several orders and exits; the test runs it many times and expects exit status 0 each time.
//   teardown_probe SCENARIO SALT
// SALT goes into the source of one kernel, so that each process launches a kernel the driver
// has not compiled before: PoCL compiles it on its worker thread at the first launch, and a
// process that ended meanwhile crashed inside LLVM. Exit status 0: done (and every value checked
// was right); 1: a wrong value or an exception; 2: bad arguments.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <clforge/clforge.hpp>

namespace cf = clforge;

namespace {

constexpr std::size_t kSize = 1 << 16;
int salt = 0;

// A kernel no earlier process built: x[i] = x[i] * SALT + i.
cf::kernel salted_kernel(const cf::context& ctx) {
  const std::string source =
      "kernel void teardown_salted(global int* x, uint n) {\n"
      "  uint i = get_global_id(0);\n"
      "  if (i < n) x[i] = x[i] * " +
      std::to_string(salt) + " + (int)i;\n}\n";
  return ctx.build(source).kernel("teardown_salted");
}

// Enqueues work on q and does not wait for it: the salted kernel, an elementwise kernel, a sum
// and random numbers.
void enqueue_without_waiting(const cf::queue& q, cf::array<int>& x, cf::array<float>& f) {
  q.launch(salted_kernel(q.ctx()), cf::ndrange::padded(x.size()), x, cl_uint(x.size()));
  cf::elementwise_kernel twice(q.ctx(), "global int* x", "x[i] = 2 * x[i]");
  twice(q, x);
  cf::random::uniform(q, f, static_cast<std::uint64_t>(salt));
}

bool check_salted(const cf::queue& q, const cf::array<int>& x, int before) {
  const std::vector<int> back = x.to_host(q);
  for (std::size_t i = 0; i < back.size(); ++i)
    if (back[i] != before * salt + static_cast<int>(i)) return false;
  return true;
}

cf::array<int> ones(const cf::queue& q) {
  return cf::array<int>::from_host(q, std::vector<int>(kSize, 1));
}

// A context, a queue, two arrays, and work enqueued on them that nobody waits for.
struct work_in_flight {
  cf::context ctx = cf::context::create_default();
  cf::queue q{ctx};
  cf::array<int> x = ones(q);
  cf::array<float> f{q, kSize};
  work_in_flight() { enqueue_without_waiting(q, x, f); }
};

// Constructed before main, so before the driver is loaded: destroyed at exit after the driver's
// own static objects.
cf::context early_context;
std::optional<cf::queue> early_queue;
std::optional<cf::array<int>> early_array;

cf::context& shared_context() {
  static cf::context c = cf::context::create_default();
  return c;
}
cf::queue& shared_queue() {
  static cf::queue q(shared_context());
  return q;
}

int run(const std::string& scenario) {
  if (scenario == "pending_at_return") {
    work_in_flight work;
    return 0;
  }
  if (scenario == "exit_with_pending") {
    work_in_flight work;
    std::exit(0);  // `work` is not destroyed
  }
  if (scenario == "array_outlives_queue_and_context") {
    std::optional<cf::array<int>> x;
    {
      cf::context ctx = cf::context::create_default();
      cf::queue q(ctx);
      x.emplace(ones(q));
      q.launch(salted_kernel(ctx), cf::ndrange::padded(kSize), *x, cl_uint(kSize));
    }
    cf::queue later(x->ctx());
    return check_salted(later, *x, 1) ? 0 : 1;
  }
  if (scenario == "queue_outlives_context") {
    std::optional<cf::queue> q;
    {
      cf::context ctx = cf::context::create_default();
      q.emplace(ctx);
    }
    cf::array<int> x = ones(*q);
    q->launch(salted_kernel(q->ctx()), cf::ndrange::padded(kSize), x, cl_uint(kSize));
    cf::array<float> f(*q, kSize);
    cf::random::normal(*q, f, 3);
    return check_salted(*q, x, 1) ? 0 : 1;
  }
  if (scenario == "exception_midway") {
    try {
      work_in_flight work;
      work.q.launch(salted_kernel(work.ctx), cf::ndrange(kSize).with_local(7), work.x,
                    cl_uint(kSize));
      return 1;  // the launch above must throw (7 does not divide the size)
    } catch (const cf::error&) {
    }
    try {
      work_in_flight work;
      throw std::runtime_error("the user's own exception");
    } catch (const std::runtime_error&) {
    }
    return 0;
  }
  if (scenario == "other_context") {
    // The shape of the report: the shared context and queue of a test program (function-local
    // statics), a second context and queue, the other-context error, then exit.
    cf::array<int> mine = ones(shared_queue());
    cf::context other = cf::context::create_default();
    cf::queue other_q(other);
    cf::array<float> foreign(other_q, kSize);
    try {
      cf::random::uniform(shared_queue(), foreign, 1);
      return 1;
    } catch (const cf::error&) {
    }
    shared_queue().launch(salted_kernel(shared_context()), cf::ndrange::padded(kSize), mine,
                          cl_uint(kSize));
    cf::random::uniform(other_q, foreign, 2);
    return 0;
  }
  if (scenario == "static_objects") {
    early_context = cf::context::create_default();
    early_queue.emplace(early_context);
    early_array.emplace(ones(*early_queue));
    early_queue->launch(salted_kernel(early_context), cf::ndrange::padded(kSize), *early_array,
                        cl_uint(kSize));
    return 0;
  }
  if (scenario == "threads") {
    cf::context ctx = cf::context::create_default();
    std::vector<std::thread> threads;
    std::vector<std::optional<cf::queue>> queues(3);
    std::vector<std::optional<cf::array<int>>> arrays(3);
    for (int t = 0; t < 3; ++t)
      threads.emplace_back([&, t] {
        queues[t].emplace(ctx);
        arrays[t].emplace(ones(*queues[t]));
        queues[t]->launch(salted_kernel(ctx), cf::ndrange::padded(kSize), *arrays[t],
                          cl_uint(kSize));
      });
    for (std::thread& t : threads) t.join();
    return 0;
  }
  std::fprintf(stderr, "teardown_probe: unknown scenario %s\n", scenario.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 3) return 2;
  salt = std::atoi(argv[2]);
  return run(argv[1]);
} catch (const std::exception& e) {
  std::fprintf(stderr, "teardown_probe: %s\n", e.what());
  return 1;
}
