#include "clforge/algorithms/elementwise.hpp"

#include <algorithm>

#include "clforge/detail/codegen.hpp"
#include "snippet_support.hpp"

namespace clforge {

namespace detail {
struct elementwise_state {
  std::string who;  // `elementwise_kernel "name"`, for messages
  std::string name;
  std::vector<parameter> params;
  kernel_shape shape;
  bool check_lengths = true;
  program built;
  kernel contiguous;              // step 1
  kernel strided;                 // any step
  std::size_t gpu_max_items = 0;  // gpu shape: the fixed number of work-items
  std::size_t local_size = 0;
  unsigned vec = 1, ilv = 1;  // gpu shape: indices per work-item (consecutive / a group apart)
};
}  // namespace detail

elementwise_kernel::elementwise_kernel(const context& ctx, const std::string& arguments,
                                       const std::string& operation,
                                       const kernel_options& options) {
  auto state = std::make_shared<detail::elementwise_state>();
  state->name = options.name.empty() ? "elementwise" : options.name;
  detail::check_kernel_name(state->name, "elementwise_kernel");
  state->who = "elementwise_kernel \"" + state->name + "\"";
  state->params = detail::parse_signature(arguments);
  detail::check_parameter_names(state->params, state->who);
  state->shape = options.shape.resolved(ctx.info());
  state->check_lengths = options.check_array_lengths;
  // gpu with groups_per_cu: a fixed number of work-items and a grid-stride loop; otherwise one
  // work-item per index.
  const bool grid_stride =
      state->shape.which == kernel_shape::kind::gpu && state->shape.groups_per_cu != 0;
  // gpu one-item-per-index variants: vec consecutive indices, or ilv indices a group apart
  if (state->shape.which != kernel_shape::kind::gpu || grid_stride) state->shape.vec = 0;
  if (state->shape.vec > 1 || state->shape.which != kernel_shape::kind::gpu || grid_stride)
    state->shape.ilv = 0;
  state->vec = std::max(1u, state->shape.vec);
  state->ilv = std::max(1u, state->shape.ilv);
  state->gpu_max_items = grid_stride ? state->shape.local_size * state->shape.groups_per_cu *
                                           std::max<std::size_t>(1, ctx.info().compute_units)
                                     : 0;

  detail::template_values values{
      {"name", state->name},
      {"strided_name", state->name + "_strided"},
      {"shape", state->shape.describe()},
      {"extensions", detail::fp64_pragma(ctx, state->params, false, state->who)},
      {"preamble", options.preamble},
      {"operation", operation},
      {"count_name", detail::count_name(state->params)},
      {"comma_parameters", detail::comma_parameters(state->params)},
      {"comma_arguments", detail::comma_arguments(state->params)},
      {"grid_stride", grid_stride ? "1" : "0"},
      {"vec", std::to_string(state->vec)},
      {"ilv", std::to_string(state->ilv)},
  };
  state->built = ctx.build(detail::render_kernel("elementwise", values), options.build_options);
  state->contiguous = state->built.kernel(state->name);
  state->strided = state->built.kernel(state->name + "_strided");
  state->local_size = std::max<std::size_t>(
      1, std::min({state->shape.local_size, state->contiguous.work_group_size(),
                   state->strided.work_group_size()}));
  state_ = std::move(state);
}

const std::string& elementwise_kernel::source() const {
  return state_->built.source();
}
const std::string& elementwise_kernel::name() const {
  return state_->name;
}
const kernel_shape& elementwise_kernel::shape() const {
  return state_->shape;
}
const std::string& elementwise_kernel::who() const {
  if (!state_) throw error("elementwise_kernel: called before construction");
  return state_->who;
}
const std::vector<detail::parameter>& elementwise_kernel::parameters() const {
  if (!state_) throw error("elementwise_kernel: called before construction");
  return state_->params;
}

event elementwise_kernel::run(const queue& q, const detail::resolved_range& r,
                              const detail::argument_list& bound) const {
  const detail::elementwise_state& s = *state_;
  detail::check_lengths(bound, r, s.check_lengths);
  if (r.count == 0) return {};
  std::size_t items = static_cast<std::size_t>(r.count);
  if (s.gpu_max_items != 0) items = std::min(items, s.gpu_max_items);
  if (s.vec > 1) items = (items + s.vec - 1) / s.vec;
  if (s.ilv > 1) {
    const std::size_t per_group = s.local_size * s.ilv;
    items = (items + per_group - 1) / per_group * s.local_size;
  }
  const ndrange range = ndrange(items).with_local(s.local_size);
  if (r.step == 1) {
    return detail::launch_with(q, s.contiguous, range, [&](detail::kernel_state& k) {
      detail::set_arg(k, 0, static_cast<cl_ulong>(r.first));
      detail::set_arg(k, 1, static_cast<cl_ulong>(r.count));
      bound.set_on(k.handle(), 2);
    });
  }
  return detail::launch_with(q, s.strided, range, [&](detail::kernel_state& k) {
    detail::set_arg(k, 0, static_cast<cl_ulong>(r.first));
    detail::set_arg(k, 1, static_cast<cl_ulong>(r.step));
    detail::set_arg(k, 2, static_cast<cl_ulong>(r.count));
    bound.set_on(k.handle(), 3);
  });
}

}  // namespace clforge
