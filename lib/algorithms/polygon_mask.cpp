// SPDX-License-Identifier: MIT
#include "clforge/algorithms/polygon_mask.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "clforge/algorithms/polygon_reference.hpp"
#include "clforge/array.hpp"
#include "clforge/detail/codegen.hpp"
#include "clforge/detail/signature.hpp"
#include "clforge/error.hpp"
#include "template_engine.hpp"
#include "tuning/candidate.hpp"
#include "tuning/store.hpp"
#include "tuning/workload.hpp"

namespace clforge {

namespace detail {

// No user parameters: start() names the kernel polygon_mask.
struct polygon_mask_state : template_state {
  context ctx;
  std::size_t max_constant_bytes = 0;
  std::string build_options;  // for the device-side edge table's division
  std::string divide;         // its division statement
  std::string fp64_pragma;
  // The programs built so far, by the values of the template they were rendered from: a call
  // renders the template (and the program cache hashes its text) only for a shape it has not
  // met before. Bounded: past max_programs it starts again (the program cache still has them).
  static constexpr std::size_t max_programs = 64;
  std::mutex mutex;
  struct built {
    program prog;
    int group = 0;  // the group its span or fill kernel runs (it may be below the shape's)
  };
  std::map<std::string, built> programs;
};

namespace {

constexpr std::size_t max_side = std::size_t(1) << 24;  // pixel coordinates exact in float
constexpr int unroll_limit = 64;                        // edges unrolled up to this count

// The shape of one launch: the policy's, with the pixel count for this image's width.
struct polygon_shape {
  std::string kernel = "span";  // "pixel", "span", "fill" or "row"
  int pixels = 1;               // pixels per work-item
  int group = 256;              // work-group size (span, fill)
  bool serial = false;          // span: one work-item lists a row's crossings
  bool grouped() const { return kernel == "span" || kernel == "fill"; }
  // As polygon_mask_options::shape would give it, for messages.
  std::string spec() const {
    if (kernel == "span")
      return "span:" + std::to_string(pixels) + ":" + std::to_string(group) +
             (serial ? ":serial" : ":atomic");
    if (kernel == "fill") return "fill:" + std::to_string(pixels) + ":" + std::to_string(group);
    return kernel + ":" + std::to_string(pixels);
  }
};

[[noreturn]] void fail(const std::string& what) {
  throw error("polygon_mask: " + what);
}

/// The tuned shape (lib/tuning/tables.cpp). Row segments come in two lengths only, so that
/// image widths do not each compile a program.
polygon_shape tuned_shape(const polygon_policy& p, std::size_t width) {
  static const char* const kKernels[] = {"pixel", "span", "fill", "row"};
  polygon_shape s;
  s.kernel = kKernels[static_cast<int>(p.kernel)];
  s.pixels = p.wide_from != 0 && width > p.wide_from ? p.pixels_wide : p.pixels;
  s.group = p.group;
  s.serial = p.serial;
  return s;
}

/// The shape a spec of polygon_mask_options::shape names.
polygon_shape parse_shape(const std::string& text) {
  polygon_shape s;
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ':');) parts.push_back(part);
  auto number = [&](std::size_t i, int fallback) {
    if (parts.size() <= i) return fallback;
    char* end = nullptr;
    long v = std::strtol(parts[i].c_str(), &end, 10);
    if (!end || *end || v < 1 || v > 16384)
      fail("bad kernel shape \"" + text + "\" (a number from 1 to 16384 expected)");
    return static_cast<int>(v);
  };
  if (parts.size() == 4 && parts[0] == "span" && (parts[3] == "serial" || parts[3] == "atomic")) {
    s.serial = parts[3] == "serial";
    parts.pop_back();
  }
  if (parts.empty() ||
      (parts[0] != "pixel" && parts[0] != "span" && parts[0] != "fill" && parts[0] != "row") ||
      parts.size() > 3 || ((parts[0] == "pixel" || parts[0] == "row") && parts.size() > 2))
    fail("bad kernel shape \"" + text +
         "\" (expected pixel[:P], span[:P[:G[:serial|atomic]]], fill[:P[:G]] or row[:P])");
  s.kernel = parts[0];
  s.pixels = number(1, s.kernel == "fill" ? 16 : s.kernel == "row" ? 1024 : 1);
  s.group = number(2, s.kernel == "fill" ? 64 : 256);
  return s;
}

/// The shape for a launch: the option, else the context's tuned policy; checked against the
/// kernels' limits and the device.
polygon_shape launch_shape(const std::string& spec, const context& ctx, std::size_t width) {
  const device_info& info = ctx.info();
  const polygon_shape s =
      spec.empty() ? tuned_shape(tuned<polygon_policy>(ctx), width) : parse_shape(spec);
  const std::string text = spec.empty() ? s.spec() : spec;
  if (s.pixels > (s.kernel == "row" ? 16384 : 256))
    fail("kernel shape \"" + text + "\": too many pixels per work-item");
  if (s.grouped() && s.group > static_cast<int>(info.max_work_group_size))
    fail("kernel shape \"" + text + "\": the device allows at most " +
         std::to_string(info.max_work_group_size) + " work-items per group");
  const std::size_t local_bytes = static_cast<std::size_t>(s.group) * s.pixels * sizeof(cl_int);
  if (s.kernel == "fill" && local_bytes + 64 > info.local_mem_bytes)
    fail("kernel shape \"" + text + "\": needs " + std::to_string(local_bytes) +
         " bytes of local memory, the device has " + std::to_string(info.local_mem_bytes));
  return s;
}

void check_vertices(const std::vector<point2f>& v, std::size_t index, std::size_t count) {
  const std::string which = count > 1 ? "polygon " + std::to_string(index) + ": " : "";
  if (v.size() < 3)
    fail(which + "a polygon needs at least 3 vertices, got " + std::to_string(v.size()));
  if (v.size() > (std::size_t(1) << 30)) fail(which + "too many vertices");
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i].x) || !std::isfinite(v[i].y))
      fail(which + "vertex " + std::to_string(i) + " has a coordinate that is not finite (" +
           std::to_string(v[i].x) + ", " + std::to_string(v[i].y) + ")");
  // The edges' slopes are computed in float from vertex differences: a difference that
  // overflows (vertices near +-3.4e38) would give a silently wrong mask.
  for (std::size_t i = 0; i < v.size(); ++i) {
    const point2f a = v[i], b = v[i + 1 == v.size() ? 0 : i + 1];
    if (!std::isfinite(b.x - a.x) || !std::isfinite(b.y - a.y))
      fail(which + "the edge from vertex " + std::to_string(i) +
           " spans more than the float "
           "range (coordinates up to about 1.7e38 in magnitude are accepted)");
  }
}

// The largest label an image element of OpenCL type `type` holds exactly.
std::uint64_t largest_label(const std::string& type) {
  if (type == "uchar") return 255;
  if (type == "char") return 127;
  if (type == "ushort") return 65535;
  if (type == "short") return 32767;
  if (type == "uint") return 4294967295u;
  if (type == "int") return 2147483647;
  if (type == "float") return std::uint64_t(1) << 24;
  if (type == "half") return 2048;
  return std::uint64_t(1) << 53;  // long, ulong, double
}

/// Rows [first, end) that can hold pixels inside a polygon whose vertices span [ymin, ymax]
/// (widened by one row: the skip only has to be conservative).
void bounding_rows(double ymin, double ymax, std::size_t height, int& first, int& end) {
  const double h = static_cast<double>(height);
  first = static_cast<int>(std::clamp(std::floor(ymin), 0.0, h));
  end = static_cast<int>(std::clamp(std::floor(ymax) + 1.0, 0.0, h));
}

polygon_edge poly_record(int first_edge, int end_edge, int first_row, int end_row) {
  const int values[4] = {first_edge, end_edge, first_row, end_row};
  polygon_edge record;
  static_assert(sizeof record == sizeof values, "edge records are 16 bytes");
  std::memcpy(&record, values, sizeof values);
  return record;
}

std::string store_statement(polygon_store store) {
  switch (store) {
    case polygon_store::mask:
      return "out[i] = (label) ? (value) : (out_t)0";
    case polygon_store::paint:
      return "if (label) out[i] = (value)";
    case polygon_store::label:
      return "out[i] = (out_t)(label)";
  }
  return {};
}

}  // namespace

}  // namespace detail

event polygon_mask::run(const queue& q, const detail::polygon_input& in,
                        const detail::polygon_target& out,
                        const polygon_mask_options& options) const {
  using namespace detail;
  polygon_mask_state& state = *checked_state();
  const std::size_t image_size = out.size, width = out.width, height = out.height;
  const std::string& out_type = out.type;
  const polygon_store store = out.store;
  if (q.ctx().identity() != state.ctx.identity())
    fail("the queue belongs to another context than the polygon_mask");
  require_same_context((*out.image)(), nullptr, q.ctx().get(), "polygon_mask", "the image array");
  if (in.device)
    require_same_context(in.device->get(), nullptr, q.ctx().get(), "polygon_mask",
                         "the vertex array");
  if (width == 0 || height == 0)
    fail("the image is " + std::to_string(width) + "x" + std::to_string(height) +
         "; width and height must be at least 1");
  if (width > max_side || height > max_side)
    fail("the image is " + std::to_string(width) + "x" + std::to_string(height) +
         "; width and height must be at most 2^24");
  if (image_size != width * height)
    fail("the image array has " + std::to_string(image_size) + " elements, a " +
         std::to_string(width) + "x" + std::to_string(height) + " image needs " +
         std::to_string(width * height));
  const bool nonzero = options.rule == fill_rule::non_zero;
  const std::string spec = requested_shape(options);
  polygon_shape shape = launch_shape(spec, state.ctx, width);

  // ---- the table: one int4 per polygon, then the edges ----
  std::vector<polygon_edge> table;
  std::size_t polygons = 0, edges_total = 0;
  if (in.device) {
    const std::size_t floats = in.device->size();
    if (floats % 2 != 0)
      fail("device vertices: the array holds " + std::to_string(floats) +
           " floats; x, y pairs expected");
    if (floats / 2 < 3)
      fail("a polygon needs at least 3 vertices, got " + std::to_string(floats / 2));
    if (floats / 2 > (std::size_t(1) << 30)) fail("too many vertices");
    polygons = 1;
    edges_total = floats / 2;
    table.push_back(poly_record(0, static_cast<int>(edges_total), 0, static_cast<int>(height)));
  } else {
    polygons = in.host.size();
    for (std::size_t p = 0; p < polygons; ++p) {
      check_vertices(*in.host[p], p, polygons);
      edges_total += in.host[p]->size();
    }
    if (edges_total >= (std::size_t(1) << 30)) fail("too many vertices in all");
    if (store == polygon_store::label && polygons > largest_label(out_type))
      fail("labels of " + std::to_string(polygons) + " polygons do not fit in an image of " +
           out_type + " (at most " + std::to_string(largest_label(out_type)) +
           "); use a wider element type, e.g. array<std::uint32_t>");
    table.reserve(polygons + edges_total);
    int first_edge = 0;
    for (std::size_t p = 0; p < polygons; ++p) {
      const std::vector<point2f>& v = *in.host[p];
      double ymin = v[0].y, ymax = v[0].y;
      for (const point2f& pt : v)
        ymin = std::min<double>(ymin, pt.y), ymax = std::max<double>(ymax, pt.y);
      int first_row, end_row;
      bounding_rows(ymin, ymax, height, first_row, end_row);
      const int end_edge = first_edge + static_cast<int>(v.size());
      table.push_back(poly_record(first_edge, end_edge, first_row, end_row));
      first_edge = end_edge;
    }
    for (std::size_t p = 0; p < polygons; ++p) {
      std::vector<polygon_edge> e = polygon_edges(in.host[p]->data(), in.host[p]->size(), nonzero);
      table.insert(table.end(), e.begin(), e.end());
    }
  }
  if (polygons == 0) {  // nothing inside: a mask or label image is all zeros
    if (store == polygon_store::paint) return {};
    return translate_cl_errors([&] {
      cl::Event e;
      const unsigned char zero = 0;
      q.cl().enqueueFillBuffer(*out.image, zero, 0, image_size * out.value_size, nullptr, &e);
      return event(e);
    });
  }

  // ---- the program for this shape ----
  const std::size_t table_bytes = (polygons + edges_total) * sizeof(polygon_edge);
  const bool in_constant = table_bytes <= state.max_constant_bytes;
  const std::size_t baked_edges = polygons == 1 ? edges_total : 0;
  // Whole runs of a work-item's pixels in one aligned store: a scalar pixel type, a run of a
  // vector's length that divides the width (a buffer starts aligned to its largest vector), and
  // a store that writes every pixel (paint leaves pixels outside alone).
  // Pixels per run (the kernel's RUN): span splits a multiple of 16 into runs of 16 side by
  // side across the group; every other kernel takes all of a work-item's pixels as one run.
  const int run = shape.kernel == "span" && shape.pixels % 16 == 0 ? 16 : shape.pixels;
  const bool vector_store = (shape.kernel == "span" || shape.kernel == "pixel") &&
                            (run == 2 || run == 4 || run == 8 || run == 16) &&
                            width % static_cast<std::size_t>(run) == 0 &&
                            store != polygon_store::paint && scalar_type_index(out_type) >= 0;
  template_values values = {
      {"polygons", std::to_string(polygons)},
      {"edges", std::to_string(baked_edges)},
      {"nonzero", nonzero ? "1" : "0"},
      {"pixels", std::to_string(shape.pixels)},
      {"group", std::to_string(shape.group)},
      {"serial", shape.serial ? "1" : "0"},
      {"run", std::to_string(run)},
      {"vector_store", vector_store ? "1" : "0"},
      {"out_type", out_type},
      {"edge_space", in_constant ? "constant" : "global const"},
      {"unroll", baked_edges > 0 && baked_edges <= unroll_limit ? "#pragma unroll" : ""},
      {"store", store_statement(store)},
      {"kernel", shape.kernel},
      {"edge_kernel", in.device ? "1" : "0"},
      {"divide", in.device ? state.divide : ""},
      {"fp64_pragma", in.device ? state.fp64_pragma : ""},
  };
  std::string key;
  for (const auto& [name, value] : values) key += name + "=" + value + "\n";
  polygon_mask_state::built built;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    const auto found = state.programs.find(key);
    if (found != state.programs.end()) built = found->second;
  }
  if (!built.prog) {
    // A tuned group is lowered to what the built kernel runs; a shape the options asked for is
    // refused.
    built.group = static_cast<int>(build_for_group(
        static_cast<std::size_t>(shape.group),
        [&](std::size_t group) {
          values["group"] = std::to_string(group);
          built.prog = build_template(state.ctx, state.who, {}, {{"polygon_mask", values}},
                                      in.device ? state.build_options : std::string());
          if (!shape.grouped()) return group;
          const kernel k = built.prog.kernel("polygon_mask_" + shape.kernel);
          return fitted_group(group, {&k});
        },
        group_sizes::any,
        [&](std::size_t, std::size_t fits) {
          if (!spec.empty())
            fail("kernel shape \"" + spec + "\": the built kernel allows at most " +
                 std::to_string(fits) + " work-items per group on " + state.ctx.info().name);
        }));
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.programs.size() >= polygon_mask_state::max_programs) state.programs.clear();
    state.programs.emplace(std::move(key), built);
  }
  shape.group = built.group;
  const program& prog = built.prog;

  // ---- the table on the device ----
  array<polygon_edge> device_table(q, polygons + edges_total);
  if (in.device) {
    device_table.write(q, table.data(), 0, 1);
    q.launch(prog.kernel("polygon_edges"), ndrange::padded(edges_total), *in.device,
             static_cast<cl_uint>(edges_total), device_table);
  } else {
    device_table.write(q, table.data(), 0, table.size());
  }

  // ---- the launch (the output value is passed as raw bytes of its type) ----
  const std::size_t per_item = static_cast<std::size_t>(shape.pixels);
  ndrange range(1, 1);
  if (shape.grouped()) {
    const std::size_t segment = per_item * static_cast<std::size_t>(shape.group);
    range = ndrange((width + segment - 1) / segment * shape.group, height);
    range.with_local(static_cast<std::size_t>(shape.group), 1);
  } else if (shape.kernel == "row") {
    range = ndrange((width + per_item - 1) / per_item, height);
    range.with_local(1, 1);
  } else {
    range = ndrange((width + per_item - 1) / per_item, height);
  }
  range.with_padding();  // the kernels guard with width and height
  event done = q.launch(prog.kernel("polygon_mask_" + shape.kernel), range, *out.image,
                        static_cast<cl_uint>(width), static_cast<cl_uint>(height),
                        argument_bytes{out.value, out.value_size}, device_table);
  device_table.release_after(q);  // another queue may be next to get its buffer
  return done;
}

polygon_mask::polygon_mask(const context& ctx)
    : state_(std::make_shared<detail::polygon_mask_state>()) {
  state_->start(ctx, "polygon_mask", "polygon_mask", "", "");
  state_->ctx = ctx;
  const cl::Device& dev = ctx.device();
  state_->max_constant_bytes = std::min<std::size_t>(
      dev.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>(), std::size_t(64) << 10);
  const cl_device_fp_config fp = dev.getInfo<CL_DEVICE_SINGLE_FP_CONFIG>();
  // The device-side edge table divides dx / dy; it must round like the host's float division.
  if (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) {
    state_->build_options = "-cl-fp32-correctly-rounded-divide-sqrt";
    state_->divide = "const float k = (hx - lx) / (hy - ly);";
  } else if (ctx.info().has_fp64) {
    // A double quotient of two floats, rounded to float, is the correctly rounded float one.
    state_->fp64_pragma = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable";
    state_->divide = "const float k = (float)((double)(hx - lx) / (double)(hy - ly));";
  } else {
    state_->divide = "const float k = (hx - lx) / (hy - ly);  // device division precision";
  }
}

const context& polygon_mask::ctx() const {
  return checked_state()->ctx;
}

detail::polygon_mask_state* polygon_mask::checked_state() const {
  if (!state_) throw error("polygon_mask: used before being constructed from a context");
  return state_.get();
}

}  // namespace clforge

// ---- the tuner's workload: a 24-vertex polygon mask ------------------------------------------

namespace clforge::detail {

namespace {

struct polygon_data {
  std::size_t side = 0;
  std::vector<point2f> vertices;
  array<std::uint8_t> image;
  std::vector<std::uint8_t> reference;  // the baseline's mask
};

class polygon_trial final : public tuning_trial {
 public:
  // The shape is chosen per launch: the candidate applies around each one. The first launch
  // (and so the build) happens here, on the build thread, into an image of its own.
  polygon_trial(const context& ctx, std::shared_ptr<polygon_data> data, const std::string& settings,
                const queue& own)
      : data_(std::move(data)), settings_(settings), masker_(ctx) {
    candidate_scope scope("polygon", settings_);
    array<std::uint8_t> scratch(own, data_->side * data_->side);
    masker_.mask_into(own, data_->vertices, scratch, data_->side, data_->side);
    own.finish();
  }
  commands run(const queue& q) override {
    candidate_scope scope("polygon", settings_);
    const event e = masker_.mask_into(q, data_->vertices, data_->image, data_->side, data_->side);
    return {e, e};
  }
  std::string check(const queue& q) override {
    data_->image.fill(q, 7);
    run(q);
    std::vector<std::uint8_t> out = data_->image.to_host(q);
    if (data_->reference.empty()) {
      data_->reference = std::move(out);
      return "";
    }
    return first_difference(out, data_->reference, "pixel", "the baseline");
  }

 private:
  std::shared_ptr<polygon_data> data_;
  std::string settings_;
  polygon_mask masker_;
};

// The side of a square image of about `pixels` pixels.
std::size_t side_of(std::size_t pixels) {
  return std::max<std::size_t>(
      16, static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(pixels)))));
}

class polygon_workload final : public tuning_workload {
 public:
  polygon_workload(const queue& q, std::size_t pixels)
      : tuning_workload("uint8/" + size_bucket(side_of(pixels) * side_of(pixels)), 1),
        ctx_(q.ctx()),
        data_(std::make_shared<polygon_data>()) {
    data_->side = side_of(pixels);
    data_->vertices = random_star_polygon(24, data_->side, 7);
    data_->image = array<std::uint8_t>(q, data_->side * data_->side);
  }
  std::unique_ptr<tuning_trial> make(const std::string& settings, const queue& own) const override {
    return std::make_unique<polygon_trial>(ctx_, data_, settings, own);
  }
  // The space has one pixel count for every width: a table's two become the one this problem's
  // width gets.
  void adjust_seed(setting_point& seed, const std::string& table_text) const override {
    const polygon_policy p = policy_from_text<polygon_policy>(table_text, "tuning table");
    seed["pixels"] =
        std::to_string(p.wide_from != 0 && data_->side > p.wide_from ? p.pixels_wide : p.pixels);
    seed["wide_from"] = "0";
  }

 private:
  context ctx_;
  std::shared_ptr<polygon_data> data_;
};

}  // namespace

std::unique_ptr<tuning_workload> polygon_policy::workload(const queue& q, std::size_t size) {
  return std::make_unique<polygon_workload>(q, size);
}

}  // namespace clforge::detail
