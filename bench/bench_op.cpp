// SPDX-License-Identifier: MIT
// op::par_loop on an n x n quad mesh whose nodes are numbered at random, float, in the shapes of
// OP2's Airfoil:
//   edge flux  res_calc: per interior edge the flux between its two cells' states, incremented
//              into both cells (through edge -> nodes and edge -> cells maps)
//   update     per cell q = qold - res / adt and res cleared (direct), with and without the
//              global residual (rms, a reduction)
// against hand-written OpenCL kernels (float increments as compare-and-swap atomics; a colouring
// built on the host with the edges reordered by colour, one launch per colour), OpenMP on CPU
// devices (the same colouring; atomics), and the device copy of the same bytes. Every
// implementation calls the same element functions (kFunctions) and is checked against a serial
// run before it is timed. Sizes: n = 1000 on GPUs (1M cells, 2M edges), 512 on CPU devices, 64
// for --quick. Times are wall clock from an idle queue to its finish, for every implementation
// alike (colourings launch once per colour).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>

#include "harness.hpp"

#ifdef CLFORGE_BENCH_HAVE_OPENMP
#include <omp.h>
#endif

namespace clforge_bench {
namespace {

namespace op = clforge::op;

// The element functions, compiled as C++ here (the serial and OpenMP loops) and, as text, as
// OpenCL C by op::kernel and by the hand-written kernels.
#define CLFORGE_BENCH_OP_FUNCTIONS(...) \
  __VA_ARGS__                           \
  const char* const kFunctions = #__VA_ARGS__;

CLFORGE_BENCH_OP_FUNCTIONS(
    void edge_flux(const float* x1, const float* x2, const float* q1, const float* q2,
                   const float* adt1, const float* adt2, float* res1, float* res2) {
      const float dx = x1[0] - x2[0], dy = x1[1] - x2[1];
      const float r1 = 1.0f / q1[0], r2 = 1.0f / q2[0];
      const float p1 = 0.4f * (q1[3] - 0.5f * r1 * (q1[1] * q1[1] + q1[2] * q1[2]));
      const float p2 = 0.4f * (q2[3] - 0.5f * r2 * (q2[1] * q2[1] + q2[2] * q2[2]));
      const float vol1 = r1 * (q1[1] * dy - q1[2] * dx), vol2 = r2 * (q2[1] * dy - q2[2] * dx);
      const float mu = 0.5f * (adt1[0] + adt2[0]) * 0.05f;
      float f[4];
      f[0] = 0.5f * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]);
      f[1] = 0.5f * (vol1 * q1[1] + p1 * dy + vol2 * q2[1] + p2 * dy) + mu * (q1[1] - q2[1]);
      f[2] = 0.5f * (vol1 * q1[2] - p1 * dx + vol2 * q2[2] - p2 * dx) + mu * (q1[2] - q2[2]);
      f[3] = 0.5f * (vol1 * (q1[3] + p1) + vol2 * (q2[3] + p2)) + mu * (q1[3] - q2[3]);
      for (int k = 0; k < 4; ++k) {
        res1[k] += f[k];
        res2[k] -= f[k];
      }
    }

    void update(const float* qold, float* q, float* res, const float* adt) {
      const float adti = 1.0f / adt[0];
      for (int k = 0; k < 4; ++k) {
        q[k] = qold[k] - adti * res[k];
        res[k] = 0.0f;
      }
    }

    void update_rms(const float* qold, float* q, float* res, const float* adt, float* rms) {
      const float adti = 1.0f / adt[0];
      for (int k = 0; k < 4; ++k) {
        const float del = adti * res[k];
        q[k] = qold[k] - del;
        res[k] = 0.0f;
        rms[0] += del * del;
      }
    })

#undef CLFORGE_BENCH_OP_FUNCTIONS

// The hand-written kernels: one work-item per edge or cell, gathering into private copies as a
// hand-written OP2 kernel does, and calling the same functions.
const char* kHandwritten = R"CLC(
void add_float(volatile global float* p, const float v) {
  uint expected = as_uint(*p);
  for (;;) {
    const uint seen = atomic_cmpxchg((volatile global uint*)p, expected,
                                     as_uint(as_float(expected) + v));
    if (seen == expected) return;
    expected = seen;
  }
}

void gathered_flux(global const float* x, global const float* q, global const float* adt,
                   global const int* en, global const int* ec, const int e, int* c1, int* c2,
                   float* r1, float* r2) {
  const int n1 = en[2 * e], n2 = en[2 * e + 1];
  *c1 = ec[2 * e];
  *c2 = ec[2 * e + 1];
  float x1[2] = {x[2 * n1], x[2 * n1 + 1]}, x2[2] = {x[2 * n2], x[2 * n2 + 1]};
  float q1[4], q2[4];
  vstore4(vload4(*c1, q), 0, q1);
  vstore4(vload4(*c2, q), 0, q2);
  const float a1 = adt[*c1], a2 = adt[*c2];
  for (int k = 0; k < 4; ++k) r1[k] = r2[k] = 0.0f;
  edge_flux(x1, x2, q1, q2, &a1, &a2, r1, r2);
}

kernel void flux_atomics(global const float* x, global const float* q, global const float* adt,
                         global float* res, global const int* en, global const int* ec,
                         const int edges) {
  const int e = get_global_id(0);
  if (e >= edges) return;
  int c1, c2;
  float r1[4], r2[4];
  gathered_flux(x, q, adt, en, ec, e, &c1, &c2, r1, r2);
  for (int k = 0; k < 4; ++k) {
    add_float(res + 4 * c1 + k, r1[k]);
    add_float(res + 4 * c2 + k, r2[k]);
  }
}

// The edges [first, end) of one colour: no two of them share a cell.
kernel void flux_coloured(global const float* x, global const float* q, global const float* adt,
                          global float* res, global const int* en, global const int* ec,
                          const int first, const int end) {
  const int e = first + (int)get_global_id(0);
  if (e >= end) return;
  int c1, c2;
  float r1[4], r2[4];
  gathered_flux(x, q, adt, en, ec, e, &c1, &c2, r1, r2);
  vstore4(vload4(c1, res) + vload4(0, r1), c1, res);
  vstore4(vload4(c2, res) + vload4(0, r2), c2, res);
}

kernel void update_cells(global const float* qold, global float* q, global float* res,
                         global const float* adt, const int cells) {
  const int c = get_global_id(0);
  if (c >= cells) return;
  vstore4(vload4(c, qold) - vload4(c, res) / adt[c], c, q);
  vstore4((float4)(0.0f), c, res);
}
)CLC";

// ---- the mesh --------------------------------------------------------------------------------

struct mesh {
  std::size_t nodes = 0, cells = 0, edges = 0;
  std::vector<float> x, q, adt;
  std::vector<cl_int> en, ec;  // edge -> nodes, edge -> cells (2 each)
};

// n x n quads on the unit square, edges row by row (east, north), nodes numbered at random.
mesh make_mesh(std::size_t n) {
  mesh m;
  m.nodes = (n + 1) * (n + 1);
  m.cells = n * n;
  std::vector<cl_int> number(m.nodes);
  std::iota(number.begin(), number.end(), 0);
  std::shuffle(number.begin(), number.end(), std::mt19937(7));
  const auto node = [&](std::size_t i, std::size_t j) { return number[j * (n + 1) + i]; };
  const auto cell = [&](std::size_t i, std::size_t j) { return cl_int(j * n + i); };
  m.x.resize(2 * m.nodes);
  for (std::size_t j = 0; j <= n; ++j)
    for (std::size_t i = 0; i <= n; ++i) {
      m.x[2 * std::size_t(node(i, j))] = float(i) / float(n);
      m.x[2 * std::size_t(node(i, j)) + 1] = float(j) / float(n);
    }
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < n; ++i) {
      if (i + 1 < n) {
        m.en.insert(m.en.end(), {node(i + 1, j), node(i + 1, j + 1)});
        m.ec.insert(m.ec.end(), {cell(i, j), cell(i + 1, j)});
      }
      if (j + 1 < n) {
        m.en.insert(m.en.end(), {node(i + 1, j + 1), node(i, j + 1)});
        m.ec.insert(m.ec.end(), {cell(i, j), cell(i, j + 1)});
      }
    }
  m.edges = m.ec.size() / 2;
  const std::vector<float> noise = random_floats(5 * m.cells, 9);
  m.q.resize(4 * m.cells);
  m.adt.resize(m.cells);
  for (std::size_t c = 0; c < m.cells; ++c) {
    const float* r = &noise[5 * c];
    m.q[4 * c] = 1.0f + 0.1f * r[0];
    m.q[4 * c + 1] = 0.5f + 0.1f * r[1];
    m.q[4 * c + 2] = 0.05f * r[2];
    m.q[4 * c + 3] = 2.5f + 0.1f * r[3];
    m.adt[c] = 1.5f + r[4];
  }
  return m;
}

std::size_t mesh_side(bool quick) {
  return quick ? 64 : device_is_cpu() ? 512 : 1000;
}

// The hand-built colouring: each edge takes the least colour neither of its cells has yet; the
// edges reordered by colour, offsets[c] the first edge of colour c.
struct colouring {
  std::vector<cl_int> en, ec;
  std::vector<std::size_t> offsets;
  std::size_t colours() const { return offsets.size() - 1; }
};
colouring colour_edges(const mesh& m) {
  std::vector<std::uint64_t> used(m.cells, 0);
  std::vector<int> colour(m.edges);
  int colours = 0;
  for (std::size_t e = 0; e < m.edges; ++e) {
    const std::size_t c1 = std::size_t(m.ec[2 * e]), c2 = std::size_t(m.ec[2 * e + 1]);
    const std::uint64_t taken = used[c1] | used[c2];
    int c = 0;
    while (taken >> c & 1u) ++c;  // a cell has four edges: at most 7 colours
    colour[e] = c;
    used[c1] |= std::uint64_t(1) << c;
    used[c2] |= std::uint64_t(1) << c;
    colours = std::max(colours, c + 1);
  }
  colouring out;
  out.offsets.assign(std::size_t(colours) + 1, 0);
  for (int c : colour) ++out.offsets[std::size_t(c) + 1];
  std::partial_sum(out.offsets.begin(), out.offsets.end(), out.offsets.begin());
  std::vector<std::size_t> next(out.offsets.begin(), out.offsets.end() - 1);
  out.en.resize(m.en.size());
  out.ec.resize(m.ec.size());
  for (std::size_t e = 0; e < m.edges; ++e) {
    const std::size_t to = next[std::size_t(colour[e])]++;
    for (std::size_t k = 0; k < 2; ++k) {
      out.en[2 * to + k] = m.en[2 * e + k];
      out.ec[2 * to + k] = m.ec[2 * e + k];
    }
  }
  return out;
}

// The serial result of one edge-flux loop from res = 0, and the sum of |terms| per value (the
// bound of the rounding of any order of additions).
struct serial_flux {
  std::vector<float> res, magnitude;
};
serial_flux run_serial_flux(const mesh& m) {
  serial_flux s{std::vector<float>(4 * m.cells, 0.0f), std::vector<float>(4 * m.cells, 0.0f)};
  for (std::size_t e = 0; e < m.edges; ++e) {
    const std::size_t c1 = std::size_t(m.ec[2 * e]), c2 = std::size_t(m.ec[2 * e + 1]);
    float r1[4] = {0, 0, 0, 0}, r2[4] = {0, 0, 0, 0};
    edge_flux(&m.x[2 * std::size_t(m.en[2 * e])], &m.x[2 * std::size_t(m.en[2 * e + 1])],
              &m.q[4 * c1], &m.q[4 * c2], &m.adt[c1], &m.adt[c2], r1, r2);
    for (std::size_t k = 0; k < 4; ++k) {
      s.res[4 * c1 + k] += r1[k];
      s.res[4 * c2 + k] += r2[k];
      s.magnitude[4 * c1 + k] += std::fabs(r1[k]);
      s.magnitude[4 * c2 + k] += std::fabs(r2[k]);
    }
  }
  return s;
}

void check_flux(const std::string& who, const std::vector<float>& got, const serial_flux& s) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - s.res[i]) <= 1e-4f * s.magnitude[i] + 1e-30f))
      throw cf::error("bench_op: " + who + " gives res[" + std::to_string(i) + "] = " +
                      std::to_string(got[i]) + ", the serial loop " + std::to_string(s.res[i]));
}

template <class F>
double wall_seconds(const cf::queue& q, F&& f) {
  q.finish();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  q.finish();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---- clforge ---------------------------------------------------------------------------------

// Sets, maps and dats of the mesh on one queue's context.
struct op_mesh {
  op::set nodes, cells, edges;
  op::map edge_nodes, edge_cells;
  op::dat<float> x, q, qold, adt, res;
  op::global<float> rms;
  op_mesh(const cf::queue& queue, const mesh& m)
      : nodes(m.nodes, "nodes"),
        cells(m.cells, "cells"),
        edges(m.edges, "edges"),
        edge_nodes(queue, edges, nodes, 2, m.en, "edge_nodes"),
        edge_cells(queue, edges, cells, 2, m.ec, "edge_cells"),
        x(queue, nodes, 2, m.x, "x"),
        q(queue, cells, 4, m.q, "q"),
        qold(queue, cells, 4, m.q, "qold"),
        adt(queue, cells, 1, m.adt, "adt"),
        res(queue, cells, 4, "res"),
        rms(queue, 1, "rms") {}
};

op::loop flux_loop(const cf::queue& queue, const op_mesh& d) {
  static const op::kernel k(kFunctions, "edge_flux");
  return op::loop(queue, k, d.edges, d.x(op::READ, d.edge_nodes, 0), d.x(op::READ, d.edge_nodes, 1),
                  d.q(op::READ, d.edge_cells, 0), d.q(op::READ, d.edge_cells, 1),
                  d.adt(op::READ, d.edge_cells, 0), d.adt(op::READ, d.edge_cells, 1),
                  d.res(op::INC, d.edge_cells, 0), d.res(op::INC, d.edge_cells, 1));
}

// The harness's context for the table's plan; a new one on its device with `settings` applied.
cf::context own_context(const std::string& settings) {
  if (settings.empty()) return ctx();
  cf::context c(ctx().device());
  cf::tuning::set(c, "par_loop", settings);
  return c;
}

// One clforge variant of the edge flux: its own context when it forces a plan (tuning::set is
// per context), the harness's otherwise.
struct op_variant {
  std::string settings;  // "" for the table's plan
  cf::context c;
  cf::queue q;
  std::unique_ptr<op_mesh> data;
  std::unique_ptr<op::loop> flux;
  op::plan_info plan;
  double first_call = 0, plan_build = 0, second_call = 0;

  op_variant(const std::string& s, const mesh& m)
      : settings(s), c(own_context(s)), q(settings.empty() ? queue() : cf::queue(c)) {
    data = std::make_unique<op_mesh>(q, m);
    flux = std::make_unique<op::loop>(flux_loop(q, *data));
    plan = flux->plan(q, 0, flux->run_size());
    flux->run(q);  // builds the kernel
    q.finish();
    // The plan's cost on a fresh set of the same mesh (the kernel is built by now): the first
    // call builds it, a second loop on the same set finds it.
    op_mesh fresh(q, m);
    first_call = wall_seconds(q, [&] {
      const op::loop l = flux_loop(q, fresh);
      plan_build = l.plan(q, 0, l.run_size()).build_seconds;
      l.run(q);
    });
    second_call = wall_seconds(q, [&] { flux_loop(q, fresh).run(q); });
  }
  std::string name() const {
    return settings.empty() ? "clforge (the table's plan)" : "clforge " + settings;
  }
};

// ---- the reports -----------------------------------------------------------------------------

std::string ms(double seconds) {
  return format("%.3f ms", seconds * 1e3);
}

struct rounds_result {
  std::vector<std::vector<double>> times;
  // time(j) / time(i) per round, then the median: > 1 when i is faster
  double ratio(std::size_t j, std::size_t i) const {
    std::vector<double> r;
    for (std::size_t k = 0; k < times[i].size(); ++k) r.push_back(times[j][k] / times[i][k]);
    return median_of(r);
  }
};

// Each run once per round, the order rotating.
rounds_result run_rounds(std::vector<run_fn>& runs, int rounds) {
  for (run_fn& r : runs) r(), r();  // warm-up
  rounds_result out;
  out.times.resize(runs.size());
  for (int round = 0; round < rounds; ++round)
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const std::size_t j = (k + std::size_t(round)) % runs.size();
      out.times[j].push_back(runs[j]());
    }
  return out;
}

report_table flux_report(bool quick) {
  const std::size_t n = mesh_side(quick);
  const mesh m = make_mesh(n);
  const colouring col = colour_edges(m);
  const serial_flux serial = run_serial_flux(m);
  progress("op: edge flux on " + std::to_string(m.cells) + " cells, " + std::to_string(m.edges) +
           " edges");

  // clforge under the table's plan and under each plan.
  std::vector<std::unique_ptr<op_variant>> variants;
  for (const char* s : {"", "plan=atomics", "plan=colour", "plan=block"})
    variants.push_back(std::make_unique<op_variant>(s, m));
  std::vector<std::string> names;
  std::vector<run_fn> runs;
  for (auto& v : variants) {
    op_variant* p = v.get();
    p->data->res.data().fill(p->q, 0.0f);
    p->flux->run(p->q);
    check_flux(p->name(), p->data->res.to_host(p->q), serial);
    names.push_back(p->name());
    runs.push_back([p] { return wall_seconds(p->q, [p] { p->flux->run(p->q); }); });
  }

  // The hand-written kernels on the harness's queue.
  const cf::queue& hq = queue();
  auto arrays = std::make_shared<std::vector<cf::array<float>>>();
  arrays->push_back(cf::array<float>::from_host(hq, m.x));
  arrays->push_back(cf::array<float>::from_host(hq, m.q));
  arrays->push_back(cf::array<float>::from_host(hq, m.adt));
  arrays->push_back(cf::array<float>(hq, 4 * m.cells));  // res of the atomics
  arrays->push_back(cf::array<float>(hq, 4 * m.cells));  // res of the colouring
  auto maps = std::make_shared<std::vector<cf::array<cl_int>>>();
  for (const std::vector<cl_int>* v : {&m.en, &m.ec, &col.en, &col.ec})
    maps->push_back(cf::array<cl_int>::from_host(hq, *v));
  const cf::program program = ctx().build(std::string(kFunctions) + kHandwritten);
  const cf::kernel atomics = program.kernel("flux_atomics");
  const cf::kernel coloured = program.kernel("flux_coloured");
  const cl_int edges = cl_int(m.edges);
  const auto a = arrays;
  const auto mp = maps;
  const auto run_atomics = [a, mp, atomics, edges] {
    queue().launch(atomics, cf::ndrange::padded(std::size_t(edges)), (*a)[0], (*a)[1], (*a)[2],
                   (*a)[3], (*mp)[0], (*mp)[1], edges);
  };
  const std::vector<std::size_t> offsets = col.offsets;
  const auto run_coloured = [a, mp, coloured, offsets] {
    for (std::size_t c = 0; c + 1 < offsets.size(); ++c)
      queue().launch(coloured, cf::ndrange::padded(offsets[c + 1] - offsets[c]), (*a)[0], (*a)[1],
                     (*a)[2], (*a)[4], (*mp)[2], (*mp)[3], cl_int(offsets[c]),
                     cl_int(offsets[c + 1]));
  };
  (*a)[3].fill(hq, 0.0f);
  (*a)[4].fill(hq, 0.0f);
  run_atomics();
  run_coloured();
  check_flux("the hand-written atomics", (*a)[3].to_host(hq), serial);
  check_flux("the hand-written colouring", (*a)[4].to_host(hq), serial);
  names.push_back("hand-written atomics");
  runs.push_back([&hq, run_atomics] { return wall_seconds(hq, run_atomics); });
  names.push_back("hand-written colouring (" + std::to_string(col.colours()) + " colours)");
  runs.push_back([&hq, run_coloured] { return wall_seconds(hq, run_coloured); });
  std::size_t openmp_first = runs.size();
#ifdef CLFORGE_BENCH_HAVE_OPENMP
  if (device_is_cpu()) {
    auto res = std::make_shared<std::vector<float>>(4 * m.cells);
    auto shared_mesh = std::make_shared<mesh>(m);
    auto shared_col = std::make_shared<colouring>(col);
    const auto gather = [shared_mesh](const cl_int* en, const cl_int* ec, std::size_t e, float* r1,
                                      float* r2, std::size_t& c1, std::size_t& c2) {
      const mesh& mm = *shared_mesh;
      c1 = std::size_t(ec[2 * e]);
      c2 = std::size_t(ec[2 * e + 1]);
      for (int k = 0; k < 4; ++k) r1[k] = r2[k] = 0.0f;
      edge_flux(&mm.x[2 * std::size_t(en[2 * e])], &mm.x[2 * std::size_t(en[2 * e + 1])],
                &mm.q[4 * c1], &mm.q[4 * c2], &mm.adt[c1], &mm.adt[c2], r1, r2);
    };
    const auto omp_coloured = [res, shared_col, gather] {
      const colouring& cc = *shared_col;
      float* out = res->data();
      for (std::size_t c = 0; c < cc.colours(); ++c) {
        const long first = long(cc.offsets[c]), end = long(cc.offsets[c + 1]);
#pragma omp parallel for schedule(static)
        for (long e = first; e < end; ++e) {
          float r1[4], r2[4];
          std::size_t c1, c2;
          gather(cc.en.data(), cc.ec.data(), std::size_t(e), r1, r2, c1, c2);
          for (std::size_t k = 0; k < 4; ++k) {
            out[4 * c1 + k] += r1[k];
            out[4 * c2 + k] += r2[k];
          }
        }
      }
    };
    const auto omp_atomics = [res, shared_mesh, gather] {
      const mesh& mm = *shared_mesh;
      float* out = res->data();
      const long edges_l = long(mm.edges);
#pragma omp parallel for schedule(static)
      for (long e = 0; e < edges_l; ++e) {
        float r1[4], r2[4];
        std::size_t c1, c2;
        gather(mm.en.data(), mm.ec.data(), std::size_t(e), r1, r2, c1, c2);
        for (std::size_t k = 0; k < 4; ++k) {
#pragma omp atomic
          out[4 * c1 + k] += r1[k];
#pragma omp atomic
          out[4 * c2 + k] += r2[k];
        }
      }
    };
    for (auto [name, f] :
         {std::pair<const char*, std::function<void()>>{"openmp colouring", omp_coloured},
          {"openmp atomics", omp_atomics}}) {
      std::fill(res->begin(), res->end(), 0.0f);
      f();
      check_flux(name, *res, serial);
      names.push_back(name);
      runs.push_back([f] {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      });
    }
  }
#endif

  const rounds_result r = run_rounds(runs, quick ? 5 : 21);
  const std::size_t hand_atomics = variants.size(), hand_coloured = variants.size() + 1;
  report_table t;
  t.note = std::to_string(n) + " x " + std::to_string(n) + " quads: " + std::to_string(m.cells) +
           " cells, " + std::to_string(m.edges) + " interior edges, nodes numbered at random; " +
           std::to_string(r.times[0].size()) +
           " rounds, each implementation once per round; ratio = time(reference) / "
           "time(clforge) in the same round, > 1: clforge faster. First call: a new set of the "
           "same mesh, its loop made, planned and run (the kernel already built); second call: "
           "another loop on that set (the plan found).";
  t.columns = {"implementation",
               "plan",
               "time",
               "× hand atomics",
               "× hand colouring",
               "× the better hand",
               "× openmp (better)",
               "first call",
               "of it plan build",
               "second call"};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const bool ours = i < variants.size();
    std::vector<std::string> row = {names[i]};
    if (!ours) {
      row.insert(row.end(), {"-", ms(median_of(r.times[i])), "-", "-", "-", "-", "-", "-", "-"});
      t.rows.push_back(row);
      continue;
    }
    const op_variant& v = *variants[i];
    row.push_back(v.plan.kind + (v.plan.colours ? ", " + std::to_string(v.plan.colours) + " colours"
                                                : std::string()));
    row.push_back(ms(median_of(r.times[i])));
    const double ra = r.ratio(hand_atomics, i), rc = r.ratio(hand_coloured, i);
    row.push_back(format("%.3f", ra));
    row.push_back(format("%.3f", rc));
    row.push_back(format("%.3f", std::min(ra, rc)));
    std::string omp = "-";
    if (runs.size() > openmp_first)
      omp = format("%.3f", std::min(r.ratio(openmp_first, i), r.ratio(openmp_first + 1, i)));
    row.push_back(omp);
    row.push_back(ms(v.first_call));
    row.push_back(ms(v.plan_build));
    row.push_back(ms(v.second_call));
    t.rows.push_back(row);
  }
  return t;
}

report_table update_report(bool quick) {
  const std::size_t n = mesh_side(quick);
  const mesh m = make_mesh(n);
  const cf::queue& q = queue();
  auto d = std::make_shared<op_mesh>(q, m);
  progress("op: the direct update on " + std::to_string(m.cells) + " cells");
  const op::kernel update(kFunctions, "update"), update_rms(kFunctions, "update_rms");
  auto plain = std::make_shared<op::loop>(q, update, d->cells, d->qold(op::READ), d->q(op::WRITE),
                                          d->res(op::RW), d->adt(op::READ));
  auto with_rms =
      std::make_shared<op::loop>(q, update_rms, d->cells, d->qold(op::READ), d->q(op::WRITE),
                                 d->res(op::RW), d->adt(op::READ), d->rms(op::INC));
  // The hand-written update on arrays of its own.
  auto hand = std::make_shared<std::vector<cf::array<float>>>();
  for (const std::vector<float>* v : {&m.q, &m.q, &m.adt})
    hand->push_back(cf::array<float>::from_host(q, *v));
  hand->push_back(cf::array<float>(q, 4 * m.cells));
  const cf::kernel k = ctx().build(std::string(kFunctions) + kHandwritten).kernel("update_cells");
  const cl_int cells = cl_int(m.cells);
  // The device copy of the same bytes: the update reads 9 and writes 8 floats per cell.
  const std::size_t copied = 17 * m.cells / 2;
  auto src =
      std::make_shared<cf::array<float>>(cf::array<float>::from_host(q, random_floats(copied, 1)));
  auto dst = std::make_shared<cf::array<float>>(q, copied);

  // Checked once: q = qold - res / adt with res = 1, res cleared.
  d->res.data().fill(q, 1.0f);
  plain->run(q);
  const std::vector<float> got = d->q.to_host(q), res = d->res.to_host(q);
  // Within a few ulp: OpenCL allows float division 2.5 ulp (NVIDIA's is not correctly rounded).
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - (m.q[i] - 1.0f / m.adt[i / 4])) >
            4e-6f * std::max(1.0f, std::fabs(m.q[i] - 1.0f / m.adt[i / 4])) ||
        res[i] != 0.0f)
      throw cf::error("bench_op: the update gives q[" + std::to_string(i) +
                      "] = " + std::to_string(got[i]));

  std::vector<run_fn> runs = {
      [plain, &q] { return wall_seconds(q, [&] { plain->run(q); }); },
      [with_rms, &q] { return wall_seconds(q, [&] { with_rms->run(q); }); },
      [hand, k, cells, &q] {
        return wall_seconds(q, [&] {
          q.launch(k, cf::ndrange::padded(std::size_t(cells)), (*hand)[0], (*hand)[1], (*hand)[3],
                   (*hand)[2], cells);
        });
      },
      [src, dst, &q] { return wall_seconds(q, [&] { src->copy_to(q, *dst); }); }};
  const rounds_result r = run_rounds(runs, quick ? 5 : 21);
  report_table t;
  t.note = std::to_string(m.cells) +
           " cells; 68 bytes a cell (reads qold, res, adt; writes q, "
           "res); " +
           std::to_string(r.times[0].size()) +
           " rounds; ratio = time(reference) / time(clforge) in the same round. The device copy "
           "moves the same bytes.";
  t.columns = {"loop", "time", "GB/s", "× device copy", "× hand-written"};
  const char* names[] = {"clforge update (direct)", "clforge update + rms (global INC)",
                         "hand-written update", "device copy"};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const double time = median_of(r.times[i]);
    t.rows.push_back({names[i], ms(time), format("%.1f", 68.0 * double(m.cells) / time * 1e-9),
                      i < 2 ? format("%.3f", r.ratio(3, i)) : "-",
                      i < 2 ? format("%.3f", r.ratio(2, i)) : "-"});
  }
  return t;
}

void register_cases() {
  add_report(
      {"op::par_loop edge flux (OP2 res_calc) against hand-written atomics and colouring "
       "and OpenMP, side by side in rounds; the plan's first and second call",
       flux_report});
  add_report(
      {"op::par_loop direct update (OP2 update) against the device copy and a hand-written "
       "kernel, side by side in rounds",
       update_report});
}

}  // namespace
CLFORGE_BENCH_REGISTER(register_cases);
}  // namespace clforge_bench
