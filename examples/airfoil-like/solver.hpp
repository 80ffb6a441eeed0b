// SPDX-License-Identifier: MIT
// The airfoil-like solver on the device, as main.cpp (clforge::op, one process) and main_mpi.cpp
// (clforge::mpi::op, over the ranks) both run it: the two layers' sets, maps, dats and globals
// are made and passed to a loop alike, so the data, the kernels and the loops of one iteration
// are written once here; only par_loop differs and is passed in.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <clforge/op.hpp>

#include "kernels.hpp"
#include "mesh.hpp"
#include "reference.hpp"  // free_stream

namespace airfoil {

// The solver's sets and maps, made by the caller (op's constructors or mpi::op's mesh).
template <class Set>
struct sets {
  Set nodes, cells, edges, bedges;
};
template <class Map>
struct maps {
  Map pcell, pedge, pecell, pbedge, pbecell;
};

// Set, Map, Dat and Global: op's or mpi::op's set, map, dat and global.
template <class Set, class Map, template <class> class Dat, template <class> class Global>
struct device_solver {
  Set nodes, cells, edges, bedges;
  Map pcell, pedge, pecell, pbedge, pbecell;
  Dat<double> x, p_q, qold, adt, res;
  Dat<int> bound;
  Global<double> qinf, rms;
  // The kernels: the same text as the reference's functions.
  const std::string code = std::string(constants) + kernels;
  const clforge::op::kernel save_soln{code, "save_soln"}, adt_calc{code, "adt_calc"},
      res_calc{code, "res_calc"}, bres_calc{code, "bres_calc"}, update{code, "update"};

  // `q0` is the initial state, every cell's four values (the reference's).
  device_solver(const clforge::queue& queue, const mesh& m, const std::vector<double>& q0,
                const sets<Set>& s, const maps<Map>& mp)
      : nodes(s.nodes),
        cells(s.cells),
        edges(s.edges),
        bedges(s.bedges),
        pcell(mp.pcell),
        pedge(mp.pedge),
        pecell(mp.pecell),
        pbedge(mp.pbedge),
        pbecell(mp.pbecell),
        x(queue, nodes, 2, m.x, "x"),
        p_q(queue, cells, 4, q0, "q"),
        qold(queue, cells, 4, "qold"),
        adt(queue, cells, 1, "adt"),
        res(queue, cells, 4, "res"),
        bound(queue, bedges, 1, m.bound, "bound"),
        qinf(queue, free_stream(), "qinf"),
        rms(queue, 1, "rms"),
        cell_count(m.cells) {}

  // One iteration, reference::iteration's on the device: save the state, then twice the time
  // steps, the fluxes across interior and boundary edges and the update. Returns the residual
  // (read back). `par_loop` runs one loop: op::par_loop or mpi::op::par_loop.
  template <class ParLoop>
  double iteration(const clforge::queue& queue, ParLoop par_loop) {
    namespace op = clforge::op;
    par_loop(queue, save_soln, cells, p_q(op::READ), qold(op::WRITE));
    rms.assign(queue, {0.0});
    for (int k = 0; k < 2; ++k) {
      par_loop(queue, adt_calc, cells, x(op::READ, pcell.all()), p_q(op::READ), adt(op::WRITE));
      par_loop(queue, res_calc, edges, x(op::READ, pedge, 0), x(op::READ, pedge, 1),
               p_q(op::READ, pecell, 0), p_q(op::READ, pecell, 1), adt(op::READ, pecell, 0),
               adt(op::READ, pecell, 1), res(op::INC, pecell, 0), res(op::INC, pecell, 1));
      par_loop(queue, bres_calc, bedges, x(op::READ, pbedge, 0), x(op::READ, pbedge, 1),
               p_q(op::READ, pbecell, 0), adt(op::READ, pbecell, 0), res(op::INC, pbecell, 0),
               bound(op::READ), qinf(op::READ));
      par_loop(queue, update, cells, qold(op::READ), p_q(op::WRITE), res(op::RW), adt(op::READ),
               rms(op::INC));
    }
    return std::sqrt(rms.value(queue)[0] / double(cell_count));
  }

 private:
  std::size_t cell_count;
};

// The largest difference between a final state and the reference's, every cell's four values
// each against the largest magnitude of its component (the y momentum passes through 0).
inline double state_difference(const std::vector<double>& state,
                               const std::vector<double>& reference) {
  double scale[4] = {0, 0, 0, 0}, difference = 0;
  for (std::size_t i = 0; i < state.size(); ++i)
    scale[i % 4] = std::max(scale[i % 4], std::fabs(reference[i]));
  for (std::size_t i = 0; i < state.size(); ++i)
    difference = std::max(difference, std::fabs(state[i] - reference[i]) / scale[i % 4]);
  return difference;
}

}  // namespace airfoil
