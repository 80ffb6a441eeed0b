// SPDX-License-Identifier: MIT
// The mesh of the airfoil-like example: a channel with a bump on its lower wall, cut into nx x ny
// quadrilateral cells, with the maps OP2's Airfoil uses. Nodes are numbered at random, so every
// access through a map really is indirect; cells and edges are numbered row by row (neighbours
// near each other, as a mesh renumbered for locality would be).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <random>
#include <vector>

namespace airfoil {

struct mesh {
  std::size_t nodes = 0, cells = 0, edges = 0, bedges = 0;
  std::vector<double> x;         // 2 per node
  std::vector<int> cell_nodes;   // pcell: 4 nodes per cell, counter-clockwise
  std::vector<int> edge_nodes;   // pedge: 2 nodes per interior edge
  std::vector<int> edge_cells;   // pecell: the cells on either side
  std::vector<int> bedge_nodes;  // pbedge: 2 nodes per boundary edge
  std::vector<int> bedge_cell;   // pbecell: the cell inside
  std::vector<int> bound;        // per boundary edge: 1 wall, 2 far field (inflow, outflow)
};

// The channel [0, 3] x [0, 1]; a bump of height 0.1 on the lower wall between x = 1 and x = 2.
// Edge orientation follows Airfoil: for nodes x1, x2 the normal (y1 - y2, x2 - x1) points from
// the first cell into the second, or out of the domain at a boundary.
inline mesh channel_with_bump(std::size_t nx, std::size_t ny, unsigned seed) {
  mesh m;
  m.nodes = (nx + 1) * (ny + 1);
  m.cells = nx * ny;
  std::vector<int> number(m.nodes);
  std::iota(number.begin(), number.end(), 0);
  std::shuffle(number.begin(), number.end(), std::mt19937(seed));
  const auto node = [&](std::size_t i, std::size_t j) { return number[j * (nx + 1) + i]; };
  const auto cell = [&](std::size_t i, std::size_t j) { return int(j * nx + i); };
  const double pi = 3.14159265358979323846;
  m.x.resize(2 * m.nodes);
  for (std::size_t j = 0; j <= ny; ++j)
    for (std::size_t i = 0; i <= nx; ++i) {
      const double x = 3.0 * double(i) / double(nx);
      const double bump = x > 1.0 && x < 2.0 ? 0.1 * std::sin(pi * (x - 1.0)) : 0.0;
      m.x[2 * std::size_t(node(i, j))] = x;
      m.x[2 * std::size_t(node(i, j)) + 1] = bump + (1.0 - bump) * double(j) / double(ny);
    }
  for (std::size_t j = 0; j < ny; ++j)
    for (std::size_t i = 0; i < nx; ++i) {
      m.cell_nodes.insert(m.cell_nodes.end(),
                          {node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)});
      if (i + 1 < nx) {  // east: from (i, j) into (i + 1, j)
        m.edge_nodes.insert(m.edge_nodes.end(), {node(i + 1, j + 1), node(i + 1, j)});
        m.edge_cells.insert(m.edge_cells.end(), {cell(i, j), cell(i + 1, j)});
      }
      if (j + 1 < ny) {  // north: from (i, j) into (i, j + 1)
        m.edge_nodes.insert(m.edge_nodes.end(), {node(i, j + 1), node(i + 1, j + 1)});
        m.edge_cells.insert(m.edge_cells.end(), {cell(i, j), cell(i, j + 1)});
      }
    }
  const auto boundary = [&](int n1, int n2, int c, int kind) {
    m.bedge_nodes.insert(m.bedge_nodes.end(), {n1, n2});
    m.bedge_cell.push_back(c);
    m.bound.push_back(kind);
  };
  for (std::size_t i = 0; i < nx; ++i) {
    boundary(node(i + 1, 0), node(i, 0), cell(i, 0), 1);         // lower wall
    boundary(node(i, ny), node(i + 1, ny), cell(i, ny - 1), 1);  // upper wall
  }
  for (std::size_t j = 0; j < ny; ++j) {
    boundary(node(0, j), node(0, j + 1), cell(0, j), 2);         // inflow
    boundary(node(nx, j + 1), node(nx, j), cell(nx - 1, j), 2);  // outflow
  }
  m.edges = m.edge_cells.size() / 2;
  m.bedges = m.bound.size();
  return m;
}

}  // namespace airfoil
