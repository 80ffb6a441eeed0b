// SPDX-License-Identifier: MIT
// clforge-info: the OpenCL devices on this machine, the one CLFORGE_DEVICE selects, and where
// the program cache lives, the policies clforge-tune stored for the chosen device; --json prints
// the same for scripts.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <clforge/clforge.hpp>
#include <nlohmann/json.hpp>

#include "cli.hpp"

namespace {

// --json: devices, the chosen one, the cache directory and the stored policies. With no device
// (no OpenCL platform at all, or a spec that matches nothing) the list is empty or "chosen" is
// null, and "error" says why: the output is JSON whatever happened.
nlohmann::json info_json(const std::vector<clforge::device_info>& infos, std::size_t chosen,
                         const std::string& spec, const std::string& error) {
  nlohmann::json devices = nlohmann::json::array();
  for (const clforge::device_info& d : infos)
    devices.push_back({{"platform_index", d.platform_index},
                       {"device_index", d.device_index},
                       {"name", d.name},
                       {"vendor", d.vendor},
                       {"platform", d.platform_name},
                       {"platform_version", d.platform_version},
                       {"driver_version", d.driver_version},
                       {"opencl_c_version", d.opencl_c_version},
                       {"type", d.type_name()},
                       {"compute_units", d.compute_units},
                       {"max_work_group_size", d.max_work_group_size},
                       {"global_mem_bytes", d.global_mem_bytes},
                       {"max_alloc_bytes", d.max_alloc_bytes},
                       {"local_mem_bytes", d.local_mem_bytes},
                       {"fp64", d.has_fp64}});
  nlohmann::json out = {
      {"clforge_version", CLFORGE_VERSION_STRING}, {"devices", devices}, {"device_spec", spec}};
  nlohmann::json tuned = nlohmann::json::array();
  if (chosen < infos.size()) {
    out["chosen"] = {{"platform_index", infos[chosen].platform_index},
                     {"device_index", infos[chosen].device_index}};
    for (const auto& t : clforge::tuner::stored(infos[chosen]))
      tuned.push_back({{"template", t.primitive},
                       {"problem", t.problem},
                       {"policy", t.policy},
                       {"default_seconds", t.default_seconds},
                       {"tuned_seconds", t.tuned_seconds}});
  } else {
    out["chosen"] = nullptr;
  }
  if (!error.empty()) out["error"] = error;
  const std::string cache = clforge::program_cache_directory();
  out["cache_directory"] = cache.empty() ? nlohmann::json(nullptr) : nlohmann::json(cache);
  out["tuned"] = tuned;
  return out;
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
    std::vector<clforge::device_info> infos;
    std::string choice_error;
    try {
      for (const auto& d : clforge::list_devices()) infos.push_back(d.info);
    } catch (const clforge::error& e) {
      if (!json) throw;  // no OpenCL platform: said below, as any failure
      choice_error = e.what();
    }
    std::size_t chosen = infos.size();
    if (choice_error.empty()) {
      try {
        chosen = clforge::choose_device(spec, infos);
      } catch (const clforge::error& e) {
        choice_error = e.what();
      }
    }
    if (json) {
      std::printf("%s\n", info_json(infos, chosen, spec, choice_error).dump(2).c_str());
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
