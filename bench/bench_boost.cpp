// SPDX-License-Identifier: MIT
// Optional peer: the same saxpy, sum, inclusive scan and uint32 sorts through Boost.Compute
// (Debian's libboost-dev), on clforge's own context and queue, in the same run. Built only when
// CMake finds boost/compute.hpp. Boost.Compute's algorithms return no events, so these cases are
// timed on the host clock around the call and a finish (launch latency included).
#include "harness.hpp"

#if __has_include(<boost/compute/core.hpp>)
#include <boost/compute/algorithm/inclusive_scan.hpp>
#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/algorithm/sort_by_key.hpp>
#include <boost/compute/algorithm/transform.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/core.hpp>
#include <boost/compute/lambda.hpp>

#include <chrono>
#include <random>

namespace clforge_bench {
namespace {
namespace bc = boost::compute;

struct boost_side {
  bc::context context{ctx().get()};
  bc::command_queue queue{clforge_bench::queue().get()};
};
boost_side& peer() {
  static boost_side b;
  return b;
}

template <class Body>
double host_seconds(Body&& body) {
  const auto t0 = std::chrono::steady_clock::now();
  body();
  peer().queue.finish();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class T>
std::shared_ptr<bc::vector<T>> upload(const std::vector<T>& host) {
  auto v = std::make_shared<bc::vector<T>>(host.size(), peer().context);
  bc::copy(host.begin(), host.end(), v->begin(), peer().queue);
  return v;
}

void register_cases() {
  add_case({"saxpy", "boost", 12.0, [](std::size_t n) -> run_fn {
              auto x = upload(random_floats(n, 11));
              auto y = upload(random_floats(n, 12));
              return [x, y] {
                using bc::lambda::_1;
                using bc::lambda::_2;
                return host_seconds([&] {
                  bc::transform(x->begin(), x->end(), y->begin(), y->begin(), 2.0f * _1 + _2,
                                peer().queue);
                });
              };
            }});
  add_case({"sum", "boost", 4.0, [](std::size_t n) -> run_fn {
              auto x = upload(random_floats(n, 13));
              return [x] {
                float result = 0;
                return host_seconds(
                    [&] { bc::reduce(x->begin(), x->end(), &result, peer().queue); });
              };
            }});
  for (bool is_float : {false, true}) {
    add_case({is_float ? "inclusive_scan_float32" : "inclusive_scan_int32", "boost", 8.0,
              [is_float](std::size_t n) -> run_fn {
                if (is_float) {
                  auto x = upload(random_floats(n, 14));
                  auto y = std::make_shared<bc::vector<float>>(n, peer().context);
                  return [x, y] {
                    return host_seconds([&] {
                      bc::inclusive_scan(x->begin(), x->end(), y->begin(), peer().queue);
                    });
                  };
                }
                auto x = upload(random_ints(n, 15));
                auto y = std::make_shared<bc::vector<std::int32_t>>(n, peer().context);
                return [x, y] {
                  return host_seconds(
                      [&] { bc::inclusive_scan(x->begin(), x->end(), y->begin(), peer().queue); });
                };
              }});
  }
  // Sorts: each run restores the unsorted keys first (outside the timed region).
  for (bool with_values : {false, true}) {
    add_case({with_values ? "sort_by_key_uint32" : "sort_uint32", "boost", with_values ? 8.0 : 4.0,
              [with_values](std::size_t n) -> run_fn {
                std::mt19937 rng(21);
                std::vector<cl_uint> host(n);
                for (cl_uint& k : host) k = rng();
                auto pristine = upload(host);
                auto keys = std::make_shared<bc::vector<cl_uint>>(n, peer().context);
                auto values =
                    std::make_shared<bc::vector<cl_uint>>(with_values ? n : 0, peer().context);
                return [=] {
                  bc::copy(pristine->begin(), pristine->end(), keys->begin(), peer().queue);
                  peer().queue.finish();
                  return host_seconds([&] {
                    if (with_values)
                      bc::sort_by_key(keys->begin(), keys->end(), values->begin(), peer().queue);
                    else
                      bc::sort(keys->begin(), keys->end(), peer().queue);
                  });
                };
              }});
  }
}
}  // namespace
CLFORGE_BENCH_REGISTER(register_cases);
}  // namespace clforge_bench
#endif
