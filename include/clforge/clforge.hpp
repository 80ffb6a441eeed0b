// SPDX-License-Identifier: MIT
// clforge: run-time code generation for OpenCL in C++. Include this one header.
#pragma once

#include "clforge/array.hpp"
#include "clforge/context.hpp"
#include "clforge/device.hpp"
#include "clforge/error.hpp"
#include "clforge/event.hpp"
#include "clforge/field.hpp"
#include "clforge/log.hpp"
#include "clforge/memory_pool.hpp"
#include "clforge/program.hpp"
#include "clforge/queue.hpp"
#include "clforge/tuner.hpp"
#include "clforge/tuning.hpp"
#include "clforge/types.hpp"
#include "clforge/version.hpp"

#include "clforge/algorithms/elementwise.hpp"
#include "clforge/algorithms/histogram.hpp"
#include "clforge/algorithms/polygon_mask.hpp"
#include "clforge/algorithms/reduction.hpp"
#include "clforge/algorithms/scan.hpp"
#include "clforge/algorithms/selection.hpp"
#include "clforge/algorithms/sort.hpp"
#include "clforge/algorithms/stencil.hpp"
#include "clforge/op.hpp"

#include "clforge/array_expr.hpp"
#include "clforge/complex.hpp"
#include "clforge/random.hpp"
