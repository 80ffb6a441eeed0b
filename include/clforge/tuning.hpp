// SPDX-License-Identifier: MIT
// clforge::tuning: the work shapes the kernel templates are generated with, per context.
//
// Every template (elementwise, reduce, scan, polygon, sort, histogram, stencil, par_loop) takes
// its policy from the tuning table of the context's device class (NVIDIA, AMD, Intel, other GPU,
// CPU; lib/tuning/tables.cpp), then the result clforge-tune stored for the device (docs/tuning.md;
// CLFORGE_TUNE="off" or "tuned=off", and clforge::tuning::set(ctx, "tuned", "off"), ignore it),
// then the overrides, in this order:
//   CLFORGE_TUNE="table=generic;scan:items=32,group=256;reduce:unroll=8"
//   clforge::tuning::set(ctx, "scan", "items=32,group=256");
//   clforge::tuning::set(ctx, "table", "generic");   // or nvidia, amd, intel, gpu, cpu, auto
// A wrong template, key or value is a clforge::error listing the keys and their bounds.
// tuning::set and tuning::reset take effect at the next call of every template on the context,
// also of those built before (they are rebuilt under the new tuning); CLFORGE_TUNE is read when
// a template is built. The deprecated tuning fields of a template's own options
// (kernel_options::shape, scan_options' tile and chunk fields) and polygon_mask_options::shape
// win over all of it.
#pragma once

#include <string>

#include "clforge/context.hpp"
#include "clforge/export.hpp"

namespace clforge::tuning {

/// Overrides `primitive`'s tuning ("elementwise", "reduce", "scan", "polygon", "sort",
/// "histogram", "stencil", "par_loop") with "key=value,..." for the calls on `ctx` from now on;
/// `primitive` "table" selects a table by name; `primitive` "tuned" with "on" or "off" uses or
/// ignores the stored autotuned results. Later calls win over earlier ones.
CLFORGE_API void set(const context& ctx, const std::string& primitive, const std::string& settings);
/// Forgets every tuning::set of `ctx` (CLFORGE_TUNE still applies).
CLFORGE_API void reset(const context& ctx);
/// The name of the table `ctx` uses now.
CLFORGE_API std::string table(const context& ctx);

}  // namespace clforge::tuning
