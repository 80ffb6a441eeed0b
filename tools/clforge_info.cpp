// SPDX-License-Identifier: MIT
// clforge-info: the OpenCL devices on this machine, the one CLFORGE_DEVICE selects, and where
// the program cache lives, the policies clforge-tune stored for the chosen device; --json prints
// the same for scripts.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <clforge/clforge.hpp>

#include "cli.hpp"

namespace {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void print_json(const std::vector<clforge::device_info>& infos, std::size_t chosen,
                const std::string& spec, const std::string& choice_error) {
  std::printf("{\n  \"clforge_version\": %s,\n  \"devices\": [",
              json_string(CLFORGE_VERSION_STRING).c_str());
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const clforge::device_info& d = infos[i];
    std::printf(
        "%s\n    {\"platform_index\": %zu, \"device_index\": %zu, \"name\": %s, \"vendor\": %s, "
        "\"platform\": %s, \"platform_version\": %s, \"driver_version\": %s, "
        "\"opencl_c_version\": %s, \"type\": %s, \"compute_units\": %u, "
        "\"max_work_group_size\": %zu, \"global_mem_bytes\": %zu, \"max_alloc_bytes\": %zu, "
        "\"local_mem_bytes\": %zu, \"fp64\": %s}",
        i ? "," : "", d.platform_index, d.device_index, json_string(d.name).c_str(),
        json_string(d.vendor).c_str(), json_string(d.platform_name).c_str(),
        json_string(d.platform_version).c_str(), json_string(d.driver_version).c_str(),
        json_string(d.opencl_c_version).c_str(), json_string(d.type_name()).c_str(),
        d.compute_units, d.max_work_group_size, d.global_mem_bytes, d.max_alloc_bytes,
        d.local_mem_bytes, d.has_fp64 ? "true" : "false");
  }
  std::printf("\n  ],\n  \"device_spec\": %s,\n", json_string(spec).c_str());
  if (chosen < infos.size())
    std::printf("  \"chosen\": {\"platform_index\": %zu, \"device_index\": %zu},\n",
                infos[chosen].platform_index, infos[chosen].device_index);
  else
    std::printf("  \"chosen\": null,\n  \"error\": %s,\n", json_string(choice_error).c_str());
  const std::string cache = clforge::program_cache_directory();
  std::printf("  \"cache_directory\": %s,\n  \"tuned\": [",
              cache.empty() ? "null" : json_string(cache).c_str());
  if (chosen < infos.size()) {
    const auto tuned = clforge::tuner::stored(infos[chosen]);
    for (std::size_t k = 0; k < tuned.size(); ++k)
      std::printf(
          "%s\n    {\"template\": %s, \"problem\": %s, \"policy\": %s, "
          "\"default_seconds\": %.9g, \"tuned_seconds\": %.9g}",
          k ? "," : "", json_string(tuned[k].primitive).c_str(),
          json_string(tuned[k].problem).c_str(), json_string(tuned[k].policy).c_str(),
          tuned[k].default_seconds, tuned[k].tuned_seconds);
  }
  std::printf("\n  ]\n}\n");
}

// The policies clforge-tune stored for the chosen device (the templates use them).
void print_tuned(const clforge::device_info& info) {
  const std::vector<clforge::tuner::stored_result> tuned = clforge::tuner::stored(info);
  if (tuned.empty()) {
    std::printf("tuned policies: none (the tuning table applies; clforge-tune searches them)\n");
    return;
  }
  std::printf("tuned policies (clforge-tune; CLFORGE_TUNE=off ignores them):\n");
  for (const auto& t : tuned)
    std::printf("  %-12s %-14s %.2fx the default  %s\n", t.primitive.c_str(), t.problem.c_str(),
                t.tuned_seconds > 0 ? t.default_seconds / t.tuned_seconds : 0.0, t.policy.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::string spec = std::getenv("CLFORGE_DEVICE") ? std::getenv("CLFORGE_DEVICE") : "";
  bool json = false;
  CLI::App app(
      "clforge-info: lists OpenCL platforms and devices; '*' marks the one SPEC (default: "
      "$CLFORGE_DEVICE) selects.",
      "clforge-info");
  clforge_cli::add_version(app);
  app.add_option("-d,--device", spec, "device spec: gpu, cpu, pocl, nvidia, P:D ...");
  app.add_flag("--json", json, "print devices, the chosen one and the cache directory as JSON");
  if (int status = clforge_cli::parse(app, argc, argv); status >= 0) return status;
  try {
    std::vector<clforge::device_entry> devices = clforge::list_devices();
    std::vector<clforge::device_info> infos;
    for (const auto& d : devices) infos.push_back(d.info);
    std::size_t chosen = infos.size();
    std::string choice_error;
    try {
      chosen = clforge::choose_device(spec, infos);
    } catch (const clforge::error& e) {
      choice_error = e.what();
    }
    if (json) {
      print_json(infos, chosen, spec, choice_error);
      return choice_error.empty() ? 0 : 1;
    }
    std::printf("%zu OpenCL device(s)\n", infos.size());
    for (std::size_t i = 0; i < infos.size(); ++i) {
      const clforge::device_info& d = infos[i];
      std::printf("%s %zu:%zu  %s\n", i == chosen ? "*" : " ", d.platform_index, d.device_index,
                  d.name.c_str());
      std::printf("      platform      %s (%s)\n", d.platform_name.c_str(),
                  d.platform_version.c_str());
      std::printf("      type          %s, %u compute units\n", d.type_name().c_str(),
                  d.compute_units);
      std::printf("      driver        %s, %s\n", d.driver_version.c_str(),
                  d.opencl_c_version.c_str());
      std::printf("      memory        %.2f GiB global, %.2f GiB max allocation, %zu KiB local\n",
                  d.global_mem_bytes / 1073741824.0, d.max_alloc_bytes / 1073741824.0,
                  d.local_mem_bytes / 1024);
      std::printf("      work-group    up to %zu items;  fp64: %s\n", d.max_work_group_size,
                  d.has_fp64 ? "yes" : "no");
    }
    const std::string cache = clforge::program_cache_directory();
    std::printf("program cache: %s\n", cache.empty() ? "off" : cache.c_str());
    if (!choice_error.empty()) {
      std::cerr << "clforge-info: " << choice_error << '\n';
      return 1;
    }
    std::printf("CLFORGE_DEVICE=\"%s\" selects %zu:%zu\n", spec.c_str(),
                infos[chosen].platform_index, infos[chosen].device_index);
    print_tuned(infos[chosen]);
  } catch (const std::exception& e) {
    std::cerr << "clforge-info: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
