// SPDX-License-Identifier: MIT
// Each template's tuning workload, made in the template's own .cpp next to the code it measures
// (lib/tuning/workload.hpp has the interface), and the list that maps each registry row to its
// factory (the tuner reads it, lib/tuner/tune_template.cpp): a new template adds its declaration
// and its line here.
#pragma once

#include <cstddef>
#include <memory>

#include "clforge/queue.hpp"
#include "tuning/workload.hpp"

namespace clforge::detail {

/// A factory: the workload of a problem of about `size` elements (polygon: pixels) on `q`.
using workload_factory = std::unique_ptr<tuning_workload> (*)(const queue& q, std::size_t size);

/// saxpy: y[i] = a * x[i] + y[i] on float32 (elementwise.cpp).
std::unique_ptr<tuning_workload> make_saxpy_workload(const queue& q, std::size_t size);
/// The sum of float32 values, read back (reduction.cpp).
std::unique_ptr<tuning_workload> make_sum_workload(const queue& q, std::size_t size);
/// An inclusive scan of int32 (scan.cpp).
std::unique_ptr<tuning_workload> make_scan_workload(const queue& q, std::size_t size);
/// A 24-vertex polygon mask of about `size` pixels (polygon_mask.cpp).
std::unique_ptr<tuning_workload> make_polygon_workload(const queue& q, std::size_t size);
/// Sorting uint32 keys (sort.cpp).
std::unique_ptr<tuning_workload> make_sort_workload(const queue& q, std::size_t size);
/// A 256-bin histogram of float32 values (histogram.cpp).
std::unique_ptr<tuning_workload> make_histogram_workload(const queue& q, std::size_t size);
/// A 7-point Jacobi sweep of a float32 cube of about `size` points (stencil.cpp).
std::unique_ptr<tuning_workload> make_stencil_workload(const queue& q, std::size_t size);
/// An edge-flux loop (OP2 Airfoil's res_calc shape) on a quad mesh of about `size` edges
/// (op.cpp).
std::unique_ptr<tuning_workload> make_edge_flux_workload(const queue& q, std::size_t size);

/// A registry row (lib/tuning/registry.cpp) and the factory of its template's workload.
struct workload_entry {
  const char* template_name;
  workload_factory make;
};

/// From a registry row to its template's workload: one line per template.
inline constexpr workload_entry workloads[] = {
    {"elementwise", make_saxpy_workload}, {"reduce", make_sum_workload},
    {"scan", make_scan_workload},         {"polygon", make_polygon_workload},
    {"sort", make_sort_workload},         {"histogram", make_histogram_workload},
    {"stencil", make_stencil_workload},   {"par_loop", make_edge_flux_workload},
};

}  // namespace clforge::detail
