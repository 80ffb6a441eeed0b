// SPDX-License-Identifier: MIT
#include "clforge/context.hpp"

#include "clforge/error.hpp"
#include "context_state.hpp"

namespace clforge {

namespace detail {
context_state::context_state(cl::Context context, cl::Device dev)
    : handle(std::move(context)),
      device(std::move(dev)),
      info(query_device_info(device)),
      pool(std::make_shared<memory_pool>(handle, info.max_alloc_bytes)),
      cache(handle, device, info) {}
}  // namespace detail

context context::create_default() {
  return context(default_device());
}

context context::create(std::string_view spec) {
  return context(select_device(spec));
}

context::context(const cl::Device& device) {
  cl::Context handle =
      detail::translate_cl_errors([&] { return cl::Context(device); }, "creating a context");
  state_ = std::make_shared<detail::context_state>(std::move(handle), device);
}

context::context(const cl::Context& existing, const cl::Device& device)
    : state_(std::make_shared<detail::context_state>(existing, device)) {
  std::vector<cl::Device> members = detail::translate_cl_errors(
      [&] { return existing.getInfo<CL_CONTEXT_DEVICES>(); }, "wrapping an OpenCL context");
  for (const cl::Device& d : members)
    if (d() == device()) return;
  throw error("context: the given device does not belong to the given OpenCL context");
}

context context::wrap(cl_context existing, cl_device_id device) {
  return context(cl::Context(existing, /*retainObject=*/true),
                 cl::Device(device, /*retainObject=*/true));
}

namespace {
// An empty handle (default-constructed, or of a default-constructed or moved-from array) is a
// clear error, not a null dereference.
detail::context_state& state_of(const std::shared_ptr<detail::context_state>& state,
                                const char* what) {
  if (!state)
    throw error(std::string("clforge::context::") + what +
                ": an empty context handle (default-constructed or moved from); make one with "
                "context::create_default, context::create or an array of a real context");
  return *state;
}
}  // namespace

const cl::Context& context::cl() const {
  return state_of(state_, "cl").handle;
}
const cl::Device& context::device() const {
  return state_of(state_, "device").device;
}
const device_info& context::info() const {
  return state_of(state_, "info").info;
}

program context::build(const std::string& source, const std::string& options) const {
  return state_of(state_, "build").cache.build(source, options);
}

cache_stats context::program_cache_stats() const {
  return state_of(state_, "program_cache_stats").cache.stats();
}
memory_pool& context::pool() const {
  return *state_of(state_, "pool").pool;
}

std::shared_ptr<void> context::attachment(
    const std::string& key, const std::function<std::shared_ptr<void>()>& make) const {
  if (!state_) throw error("context::attachment: empty context");
  std::lock_guard<std::mutex> lock(state_->attachments_mutex);
  auto found = state_->attachments.find(key);
  if (found != state_->attachments.end()) return found->second;
  std::shared_ptr<void> made = make();
  state_->attachments.emplace(key, made);
  return made;
}

namespace detail {
struct context_access {
  static context weak(const context& ctx) {
    // The aliasing constructor with an empty owner: points at the state, owns nothing.
    return context(std::shared_ptr<context_state>(std::shared_ptr<void>(), ctx.state_.get()));
  }
};
context weak_context(const context& ctx) {
  return context_access::weak(ctx);
}

namespace {
struct keyed_store {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<void>, std::less<>> objects;
};
}  // namespace

std::shared_ptr<void> per_context(const context& ctx, const std::string& store,
                                  const std::string& key,
                                  const std::function<std::shared_ptr<void>()>& make) {
  auto objects = std::static_pointer_cast<keyed_store>(ctx.attachment(
      store, [] { return std::static_pointer_cast<void>(std::make_shared<keyed_store>()); }));
  {
    std::lock_guard<std::mutex> lock(objects->mutex);
    auto found = objects->objects.find(key);
    if (found != objects->objects.end()) return found->second;
  }
  std::shared_ptr<void> made = make();  // builds outside the lock
  std::lock_guard<std::mutex> lock(objects->mutex);
  return objects->objects.emplace(key, std::move(made)).first->second;
}
}  // namespace detail

}  // namespace clforge
