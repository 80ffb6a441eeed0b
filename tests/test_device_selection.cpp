// SPDX-License-Identifier: MIT
// CLFORGE_DEVICE parsing and device choice, on made-up device lists and on this machine.
#include <gtest/gtest.h>

#include <clforge/clforge.hpp>

namespace cf = clforge;

namespace {
cf::device_info make(std::size_t p, std::size_t d, std::string platform, std::string name,
                     cl_device_type type) {
  cf::device_info info;
  info.platform_index = p;
  info.device_index = d;
  info.platform_name = std::move(platform);
  info.name = std::move(name);
  info.type = type;
  return info;
}

// A machine with a CPU platform listed before two GPU platforms.
const std::vector<cf::device_info> machine = {
    make(0, 0, "Portable Computing Language", "pthread-skylake", CL_DEVICE_TYPE_CPU),
    make(1, 0, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", CL_DEVICE_TYPE_GPU),
    make(1, 1, "NVIDIA CUDA", "NVIDIA A100", CL_DEVICE_TYPE_GPU),
    make(2, 0, "Xilinx", "fpga0", CL_DEVICE_TYPE_ACCELERATOR),
};

std::string error_of(std::string_view spec, const std::vector<cf::device_info>& list) {
  try {
    cf::choose_device(spec, list);
  } catch (const cf::error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(device_selection, empty_prefers_first_gpu_else_first_device) {
  EXPECT_EQ(cf::choose_device("", machine), 1u);
  EXPECT_EQ(cf::choose_device("   ", machine), 1u);
  std::vector<cf::device_info> cpus_only = {machine[0], machine[3]};
  EXPECT_EQ(cf::choose_device("", cpus_only), 0u);
}

TEST(device_selection, type_words_case_insensitive) {
  EXPECT_EQ(cf::choose_device("gpu", machine), 1u);
  EXPECT_EQ(cf::choose_device("GPU", machine), 1u);
  EXPECT_EQ(cf::choose_device("cpu", machine), 0u);
  EXPECT_EQ(cf::choose_device("Accelerator", machine), 3u);
  std::string e = error_of("gpu", {machine[0]});
  EXPECT_NE(e.find("no gpu device"), std::string::npos) << e;
}

TEST(device_selection, platform_and_device_indices) {
  EXPECT_EQ(cf::choose_device("1:1", machine), 2u);
  EXPECT_EQ(cf::choose_device("0:0", machine), 0u);
  EXPECT_EQ(cf::choose_device(" 2:0 ", machine), 3u);
  std::string e = error_of("1:5", machine);
  EXPECT_NE(e.find("platform:device"), std::string::npos) << e;
}

TEST(device_selection, name_substrings_case_insensitive) {
  EXPECT_EQ(cf::choose_device("nvidia", machine), 1u);
  EXPECT_EQ(cf::choose_device("h100", machine), 1u);
  EXPECT_EQ(cf::choose_device("A100", machine), 2u);
  EXPECT_EQ(cf::choose_device("portable", machine), 0u);
  // PoCL names itself only in its platform version.
  std::vector<cf::device_info> with_version = machine;
  with_version[0].platform_version = "OpenCL 3.0 PoCL 3.1+debian";
  EXPECT_EQ(cf::choose_device("pocl", with_version), 0u);
  // Whole words only: "fpga0" is a word, "fpga" a part of it.
  EXPECT_EQ(cf::choose_device("fpga0", machine), 3u);
  EXPECT_THROW(cf::choose_device("fpga", machine), cf::error);
}

TEST(device_selection, unknown_value_lists_the_devices) {
  std::string e = error_of("radeon", machine);
  EXPECT_NE(e.find("CLFORGE_DEVICE=\"radeon\""), std::string::npos) << e;
  EXPECT_NE(e.find("1:0  NVIDIA CUDA / NVIDIA H100 80GB HBM3 (gpu)"), std::string::npos) << e;
  EXPECT_NE(e.find("0:0  Portable Computing Language / pthread-skylake (cpu)"), std::string::npos)
      << e;
  e = error_of("", {});
  EXPECT_NE(e.find("no OpenCL device"), std::string::npos) << e;
  EXPECT_NE(error_of("1:", machine), "");
  EXPECT_NE(error_of(":1", machine), "");
  EXPECT_NE(error_of("99999999999999999999:0", machine), "");
}

TEST(device_selection, on_this_machine) {
  std::vector<cf::device_entry> devices = cf::list_devices();
  ASSERT_FALSE(devices.empty()) << "no OpenCL device: is pocl-opencl-icd installed?";
  cf::context by_index = cf::context::create(std::to_string(devices[0].info.platform_index) + ":" +
                                             std::to_string(devices[0].info.device_index));
  EXPECT_EQ(by_index.info().name, devices[0].info.name);
  EXPECT_THROW(cf::context::create("no-such-device-anywhere"), cf::error);
  try {
    cf::context::create("no-such-device-anywhere");
  } catch (const cf::error& e) {
    EXPECT_NE(std::string(e.what()).find(devices[0].info.name), std::string::npos) << e.what();
  }
}

TEST(device_selection, environment_variable) {
  std::vector<cf::device_entry> devices = cf::list_devices();
  ASSERT_FALSE(devices.empty());
  ::setenv("CLFORGE_DEVICE", devices.back().info.name.c_str(), 1);
  EXPECT_EQ(cf::context::create_default().info().name, devices.back().info.name);
  ::setenv("CLFORGE_DEVICE", "definitely-not-a-device", 1);
  EXPECT_THROW(cf::context::create_default(), cf::error);
  ::unsetenv("CLFORGE_DEVICE");
}
