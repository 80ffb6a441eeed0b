// clforge-info: the OpenCL devices on this machine, and the one CLFORGE_DEVICE selects.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <clforge/clforge.hpp>

int main(int argc, char** argv) {
  std::string spec = std::getenv("CLFORGE_DEVICE") ? std::getenv("CLFORGE_DEVICE") : "";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--device" || arg == "-d") && i + 1 < argc) {
      spec = argv[++i];
    } else if (arg.rfind("--device=", 0) == 0) {
      spec = arg.substr(9);
    } else {
      std::cout << "usage: clforge-info [--device SPEC]\n"
                   "Lists OpenCL platforms and devices; '*' marks the one SPEC (default: "
                   "$CLFORGE_DEVICE) selects.\n";
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
  }
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
    if (!choice_error.empty()) {
      std::cerr << "clforge-info: " << choice_error << '\n';
      return 1;
    }
    std::printf("CLFORGE_DEVICE=\"%s\" selects %zu:%zu\n", spec.c_str(),
                infos[chosen].platform_index, infos[chosen].device_index);
  } catch (const std::exception& e) {
    std::cerr << "clforge-info: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
