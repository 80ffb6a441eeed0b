#include "clforge/device.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "clforge/error.hpp"

namespace clforge {

std::string device_info::type_name() const {
  if (type & CL_DEVICE_TYPE_GPU) return "gpu";
  if (type & CL_DEVICE_TYPE_CPU) return "cpu";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

std::string device_info::describe() const {
  std::ostringstream out;
  out << platform_index << ':' << device_index << "  " << platform_name << " / " << name << " ("
      << type_name() << ")";
  return out.str();
}

device_info query_device_info(const cl::Device& device) {
  return detail::translate_cl_errors([&] {
    device_info info;
    cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>(), /*retainObject=*/true);
    info.platform_name = platform.getInfo<CL_PLATFORM_NAME>();
    info.platform_version = platform.getInfo<CL_PLATFORM_VERSION>();
    info.name = device.getInfo<CL_DEVICE_NAME>();
    info.vendor = device.getInfo<CL_DEVICE_VENDOR>();
    info.driver_version = device.getInfo<CL_DRIVER_VERSION>();
    info.opencl_c_version = device.getInfo<CL_DEVICE_OPENCL_C_VERSION>();
    info.type = device.getInfo<CL_DEVICE_TYPE>();
    info.compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    info.max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    info.global_mem_bytes = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
    info.max_alloc_bytes = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    info.local_mem_bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    info.has_fp64 = device.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0;
    // Some drivers pad names with spaces or a trailing NUL.
    for (std::string* s : {&info.platform_name, &info.name, &info.vendor, &info.driver_version}) {
      while (!s->empty() &&
             (s->back() == '\0' || std::isspace(static_cast<unsigned char>(s->back()))))
        s->pop_back();
    }
    return info;
  });
}

std::vector<device_entry> list_devices() {
  std::vector<cl::Platform> platforms;
  cl_int code = cl::Platform::get(&platforms);
  // No ICD installed, or none registered: an empty list, and the caller reports it.
  if (code != CL_SUCCESS || platforms.empty()) return {};
  std::vector<device_entry> out;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> devices;
    try {
      platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error&) {
      continue;  // CL_DEVICE_NOT_FOUND: a platform without devices
    }
    for (std::size_t d = 0; d < devices.size(); ++d) {
      device_entry entry{devices[d], query_device_info(devices[d])};
      entry.info.platform_index = p;
      entry.info.device_index = d;
      out.push_back(std::move(entry));
    }
  }
  return out;
}

namespace {
std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "P:D" with decimal digits on both sides; false for anything else.
bool parse_indices(std::string_view s, std::size_t& platform, std::size_t& device) {
  std::size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == s.size()) return false;
  auto parse = [](std::string_view digits, std::size_t& value) {
    if (digits.size() > 9) return false;  // no overflow; nobody has a billion devices
    value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + static_cast<std::size_t>(c - '0');
    }
    return true;
  };
  return parse(s.substr(0, colon), platform) && parse(s.substr(colon + 1), device);
}

[[noreturn]] void throw_no_match(std::string_view spec, const std::vector<device_info>& all,
                                 const std::string& why) {
  std::ostringstream out;
  out << "CLFORGE_DEVICE=\"" << spec << "\": " << why << ". Devices on this machine:";
  if (all.empty()) out << " none (is an OpenCL driver installed, e.g. pocl-opencl-icd?)";
  for (const device_info& d : all) out << "\n  " << d.describe();
  out << "\nUse \"gpu\", \"cpu\", \"accelerator\", \"P:D\" or part of a platform or device name.";
  throw error(out.str());
}
}  // namespace

std::size_t choose_device(std::string_view raw_spec, const std::vector<device_info>& all) {
  std::string_view spec = trim(raw_spec);
  if (all.empty()) throw_no_match(raw_spec, all, "no OpenCL device found");
  auto first_of_type = [&](cl_device_type type) -> std::size_t {
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i].type & type) return i;
    return all.size();
  };
  if (spec.empty()) {
    std::size_t gpu = first_of_type(CL_DEVICE_TYPE_GPU);
    return gpu < all.size() ? gpu : 0;
  }
  const std::string wanted = lowercase(spec);
  const std::pair<const char*, cl_device_type> types[] = {
      {"gpu", CL_DEVICE_TYPE_GPU},
      {"cpu", CL_DEVICE_TYPE_CPU},
      {"accelerator", CL_DEVICE_TYPE_ACCELERATOR}};
  for (const auto& [word, type] : types) {
    if (wanted != word) continue;
    std::size_t i = first_of_type(type);
    if (i == all.size()) throw_no_match(raw_spec, all, std::string("no ") + word + " device");
    return i;
  }
  std::size_t platform = 0, device = 0;
  if (parse_indices(spec, platform, device)) {
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i].platform_index == platform && all[i].device_index == device) return i;
    throw_no_match(raw_spec, all, "no device with these platform:device indices");
  }
  // Names first; then vendor and platform version, where PoCL calls itself "PoCL" (its
  // platform is named "Portable Computing Language").
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (lowercase(all[i].name).find(wanted) != std::string::npos ||
        lowercase(all[i].platform_name).find(wanted) != std::string::npos)
      return i;
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (lowercase(all[i].vendor).find(wanted) != std::string::npos ||
        lowercase(all[i].platform_version).find(wanted) != std::string::npos)
      return i;
  }
  throw_no_match(raw_spec, all, "no platform or device name contains it");
}

cl::Device select_device(std::string_view spec) {
  std::vector<device_entry> entries = list_devices();
  std::vector<device_info> infos;
  infos.reserve(entries.size());
  for (const device_entry& e : entries) infos.push_back(e.info);
  return entries[choose_device(spec, infos)].device;
}

cl::Device default_device() {
  const char* env = std::getenv("CLFORGE_DEVICE");
  return select_device(env ? env : "");
}

}  // namespace clforge
