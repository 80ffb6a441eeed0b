// SPDX-License-Identifier: MIT
// scan_kernel's reduce-then-scan algorithm (kernels/scan_rts.cl; CPUs): reduce per chunk, scan
// the chunk sums, scan again; no work-group ever waits for another.
#include <algorithm>

#include "scan_engine.hpp"

namespace clforge::detail {

void build_rts(const context& ctx, scan_engine& e, const requested_tile& asked,
               const scan_policy& policy, template_values& values, const scan_options& options) {
  const scan_value_type& type = e.type;
  const device_info& info = ctx.info();
  check_bound(e.who, "chunk_granularity", asked.granularity, 0, kMaxChunkValue);
  check_bound(e.who, "max_chunks", asked.max_chunks, 0, kMaxChunkValue);
  check_bound(e.who, "lanes", asked.lanes, 0, kMaxLanes);
  e.granularity = asked.granularity ? asked.granularity : policy.granularity;
  const bool floating = type.name == "float" || type.name == "double" || type.name == "half";
  e.lanes = asked.lanes ? asked.lanes : floating ? policy.lanes_floating : policy.lanes;
  e.max_chunks = asked.max_chunks ? asked.max_chunks
                 : policy.chunks_per_cu
                     ? std::max<std::size_t>(1, policy.chunks_per_cu * info.compute_units) * e.lanes
                     : policy.max_chunks;
  e.rts_local = policy.rts_group;
  values["lanes"] = std::to_string(e.lanes);
  values["reduce_name"] = e.name + "_reduce";
  values["spine_name"] = e.name + "_spine";
  e.prog = build_template(ctx, e.who, {}, {{"scan_rts", values}}, options.build_options);
  e.main = e.prog.kernel(e.name);
  e.reduce = e.prog.kernel(e.name + "_reduce");
  e.spine = e.prog.kernel(e.name + "_spine");
  // A compiler may give the kernels fewer work-items than the tuned group (registers); the
  // chunks do not depend on the group, so it is lowered to what they allow.
  e.rts_local = fitted_group(e.rts_local, {&e.main, &e.reduce});
}

event scan_engine::run_rts(const queue& q, std::size_t n, const argument_list& args,
                           event* first) const {
  std::size_t chunk = round_up((n + max_chunks - 1) / max_chunks, granularity);
  const std::size_t chunks = (n + chunk - 1) / chunk;
  // Back to the pool fenced by this queue when the call returns (another queue may be next).
  const queue_temporary sums(q, std::max<std::size_t>((chunks + 1) * type.size, 8));
  const queue_temporary heads(q, std::max<std::size_t>(chunks, 8));
  const ndrange range = ndrange::padded((chunks + lanes - 1) / lanes).with_local(rts_local);
  // The reduce and main kernels both take the user's arguments, then n, chunk, chunks, sums.
  const cl_ulong count = n, chunk_size = chunk, chunk_count = chunks;
  *first = q.launch(reduce, range, args, count, chunk_size, chunk_count, *sums, *heads);
  order_point(q);
  q.launch(spine, ndrange(1).with_local(1), chunk_count, *sums, *heads);
  order_point(q);
  return q.launch(main, range, args, count, chunk_size, chunk_count, *sums);
}

}  // namespace clforge::detail
