// SPDX-License-Identifier: MIT
#include "clforge/device.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
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
  // One enumeration at a time in this process: a driver's first enumeration can be racy (PoCL's
  // is: threads enumerating at once in a fresh process were told there was no device).
  static std::mutex enumeration;
  std::lock_guard<std::mutex> lock(enumeration);
  cl_uint count = 0;
  const cl_int code = clGetPlatformIDs(0, nullptr, &count);
  if (code == CL_PLATFORM_NOT_FOUND_KHR || (code == CL_SUCCESS && count == 0)) {
    throw error(
        "no OpenCL platform found: install an OpenCL driver (an ICD), e.g. `apt-get install "
        "pocl-opencl-icd` for CPUs, or the GPU vendor's OpenCL driver, and check that "
        "/etc/OpenCL/vendors (or $OCL_ICD_VENDORS) lists it");
  }
  detail::check(code, "clGetPlatformIDs");
  std::vector<cl::Platform> platforms;
  detail::translate_cl_errors([&] { cl::Platform::get(&platforms); }, "listing OpenCL platforms");
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

bool is_word_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// Whether `wanted` (lowercase) occurs in `text` starting and ending at word boundaries.
bool contains_words(std::string_view text, const std::string& wanted) {
  const std::string haystack = lowercase(text);
  for (std::size_t at = haystack.find(wanted); at != std::string::npos;
       at = haystack.find(wanted, at + 1)) {
    const std::size_t end = at + wanted.size();
    const bool starts =
        at == 0 || !is_word_character(haystack[at - 1]) || !is_word_character(wanted.front());
    const bool ends = end == haystack.size() || !is_word_character(haystack[end]) ||
                      !is_word_character(wanted.back());
    if (starts && ends) return true;
  }
  return false;
}

[[noreturn]] void throw_no_match(std::string_view spec, const std::vector<device_info>& all,
                                 const std::string& why) {
  std::ostringstream out;
  out << "CLFORGE_DEVICE=\"" << spec << "\": " << why << ". Devices on this machine:";
  if (all.empty()) out << " none (is an OpenCL driver installed, e.g. pocl-opencl-icd?)";
  for (const device_info& d : all) out << "\n  " << d.describe();
  out << "\nUse \"gpu\", \"cpu\", \"accelerator\", a device number, \"P:D\" or whole words of a "
         "platform or device name.";
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
  if (!spec.empty() && spec.size() <= 9 &&
      std::all_of(spec.begin(), spec.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    // A bare number is the device's position in the list (clforge-info's order).
    const std::size_t index = std::stoul(std::string(spec));
    if (index < all.size()) return index;
    throw_no_match(raw_spec, all,
                   "no device number " + std::to_string(index) + " (there are " +
                       std::to_string(all.size()) + ")");
  }
  if (parse_indices(spec, platform, device)) {
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i].platform_index == platform && all[i].device_index == device) return i;
    throw_no_match(raw_spec, all, "no device with these platform:device indices");
  }
  // Names first; then vendor and platform version, where PoCL calls itself "PoCL" (its
  // platform is named "Portable Computing Language"). The text must match whole words, so a
  // stray "1" or "." does not pick a device by a digit of its name.
  bool has_word_character = false;
  for (char c : wanted) has_word_character = has_word_character || is_word_character(c);
  if (has_word_character) {
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (contains_words(all[i].name, wanted) || contains_words(all[i].platform_name, wanted))
        return i;
    }
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (contains_words(all[i].vendor, wanted) || contains_words(all[i].platform_version, wanted))
        return i;
    }
  }
  throw_no_match(raw_spec, all, "no platform or device name contains it as a whole word");
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
