// SPDX-License-Identifier: MIT
// op::par_loop's plans (op_plan.cpp, kernels/op_plan.cl): what a set and a map hold, and the
// colourings of loops that write through maps, built on the device and kept with the set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "clforge/op.hpp"

namespace clforge::op::detail {

/// What one colouring is kept for: the plan's kind, its unit and the targets of the range.
struct plan_key {
  bool by_units = false;        // block plan: units of `unit` elements (else elements, unit 1)
  bool thread_colours = false;  // block plan of several work-items: elements within units too
  std::size_t unit = 1;
  std::size_t first = 0, count = 0;  // the range of the set
  /// One source of targets: target `index` of each element through `through` (or all its
  /// targets), numbered from the first target of its dat's group.
  struct source {
    std::shared_ptr<const map_state> through;
    std::size_t index = 0;
    bool all = false;
    std::size_t offset = 0;
  };
  std::vector<source> sources;
  std::size_t targets = 0;  // all groups' targets

  /// The text the set's cache is keyed by.
  std::string text() const;
};

/// A colouring of a range: `order` lists elements (colour plan) or units (block plan), colour
/// after colour; colour c is order[offsets[c] .. offsets[c + 1]).
struct plan {
  std::vector<std::size_t> offsets;
  array<cl_uint> order;
  array<cl_uint> thread_colour;  // per element of the range (thread colours)
  array<cl_uint> unit_colours;   // per unit: how many thread colours it has
  double build_seconds = 0;
  std::size_t colours() const { return offsets.empty() ? 0 : offsets.size() - 1; }
};

struct set_state {
  std::size_t owned = 0, exec_halo = 0, nonexec_halo = 0;
  std::string name, what;
  // The plans of loops over this set (plan_key::text -> plan), each built once.
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const plan>> plans;
  // Held while a plan is built: one build at a time per set (threads building the same plan at
  // once on their own queues gave a wrong plan on the H100; the others wait and take it).
  std::mutex build_mutex;
};

struct map_state {
  set from, to;
  std::size_t arity = 0;
  std::string name, what;
  array<cl_int> values;
  std::uint64_t id = 0;  // distinct for every map made in the process (plan keys)
};

/// The plan of `key` on `caller`'s context: from the set's cache, else built (on a queue of its
/// own, finished before the plan is kept, so that any queue may use it). `reused` says which.
std::shared_ptr<const plan> find_plan(const queue& q, set_state& s, const plan_key& key,
                                      bool& reused);

/// The first value of `values` outside [0, limit), checked on the device; -1 when none.
long long first_bad_value(const queue& q, const array<cl_int>& values, std::size_t limit);

}  // namespace clforge::op::detail
