// SPDX-License-Identifier: MIT
// The airfoil-like example's free stream and its serial reference: the kernels of kernels.hpp
// element after element, through the same maps (main.cpp and main_mpi.cpp check against it).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "kernels.hpp"
#include "mesh.hpp"

namespace airfoil {

// The free stream: Mach 0.4 along the channel.
inline std::vector<double> free_stream() {
  const double mach = 0.4, r = 1.0, p = 1.0;
  const double u = std::sqrt(gam * p / r) * mach;
  const double e = p / (r * gm1) + 0.5 * u * u;
  return {r, r * u, 0.0, r * e};
}

// The serial reference: the same kernels element after element, through the same maps.
struct reference {
  const mesh& m;
  std::vector<double> q, qold, adt, res;
  const std::vector<double> qinf = free_stream();

  explicit reference(const mesh& mesh)
      : m(mesh), qold(4 * mesh.cells), adt(mesh.cells), res(4 * mesh.cells, 0.0) {
    for (std::size_t c = 0; c < m.cells; ++c) q.insert(q.end(), qinf.begin(), qinf.end());
  }
  const double* x(int node) const { return &m.x[2 * std::size_t(node)]; }

  double iteration() {
    for (std::size_t c = 0; c < m.cells; ++c) save_soln(&q[4 * c], &qold[4 * c]);
    double rms = 0.0;
    for (int k = 0; k < 2; ++k) {
      for (std::size_t c = 0; c < m.cells; ++c) {
        double corners[8];
        for (int n = 0; n < 4; ++n) {
          corners[2 * n] = x(m.cell_nodes[4 * c + n])[0];
          corners[2 * n + 1] = x(m.cell_nodes[4 * c + n])[1];
        }
        adt_calc(corners, &q[4 * c], &adt[c]);
      }
      for (std::size_t e = 0; e < m.edges; ++e) {
        const std::size_t c1 = m.edge_cells[2 * e], c2 = m.edge_cells[2 * e + 1];
        res_calc(x(m.edge_nodes[2 * e]), x(m.edge_nodes[2 * e + 1]), &q[4 * c1], &q[4 * c2],
                 &adt[c1], &adt[c2], &res[4 * c1], &res[4 * c2]);
      }
      for (std::size_t e = 0; e < m.bedges; ++e) {
        const std::size_t c = m.bedge_cell[e];
        bres_calc(x(m.bedge_nodes[2 * e]), x(m.bedge_nodes[2 * e + 1]), &q[4 * c], &adt[c],
                  &res[4 * c], &m.bound[e], qinf.data());
      }
      for (std::size_t c = 0; c < m.cells; ++c)
        update(&qold[4 * c], &q[4 * c], &res[4 * c], &adt[c], &rms);
    }
    return std::sqrt(rms / double(m.cells));
  }
};

}  // namespace airfoil
