// The executables' backend choice (src/apps/common/device_backends.hpp): backend names against what
// the build and the machine have, and the key-residency settings the daemon passes from [gpus].
#include <gtest/gtest.h>

#include <string>

#include "apps/common/device_backends.hpp"

using namespace cuzk::apps;
using cuzk::engine::BackendKind;

namespace {

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

}  // namespace

TEST(AppBackends, ChooseBackendFollowsTheProbe) {
  BackendProbe none, no_device, gpu;
  no_device.cuda_built = true;
  gpu.cuda_built = true;
  gpu.cuda_devices = 1;
  gpu.devices = {judged({0, "NVIDIA H200", 9, 0, std::uint64_t(141) << 30, std::uint64_t(140) << 30, true, ""})};
  EXPECT_EQ(*choose_backend("cpu", gpu), BackendKind::kCpu);
  EXPECT_EQ(*choose_backend("auto", none), BackendKind::kCpu);
  EXPECT_EQ(*choose_backend("auto", no_device), BackendKind::kCpu);
  EXPECT_EQ(*choose_backend("auto", gpu), BackendKind::kCuda);
  EXPECT_EQ(*choose_backend("cuda", gpu), BackendKind::kCuda);
  auto bad = choose_backend("gpu", gpu);
  ASSERT_FALSE(bad);
  EXPECT_TRUE(has(bad.error(), "expected auto, cpu or cuda")) << bad.error();
  auto unbuilt = choose_backend("cuda", none);
  ASSERT_FALSE(unbuilt);
  EXPECT_TRUE(has(unbuilt.error(), "no CUDA backend")) << unbuilt.error();
  auto absent = choose_backend("cuda", no_device);
  ASSERT_FALSE(absent);
  EXPECT_TRUE(has(absent.error(), "no CUDA device")) << absent.error();
}

// The start-up check's verdicts (gpu::device_infos says whether kernels load; judged adds memory):
// a device the build cannot run, or one too small, is not usable, and with no usable device "auto"
// proves on the CPU while "cuda" is an error naming the reason.
TEST(AppBackends, UnusableDevicesLeadToTheCpuBackend) {
  const std::uint64_t gib = std::uint64_t(1) << 30;
  const GpuDevice old_card = judged({0, "Tesla V100", 7, 0, 32 * gib, 31 * gib, false,
                                     "compute capability 7.0 is not in this build (80-real 90a-real)"});
  const GpuDevice small = judged({1, "RTX 3050", 8, 6, 4 * gib, 4 * gib, true, ""});
  const GpuDevice fine = judged({2, "RTX 4090", 8, 9, 24 * gib, 23 * gib, true, ""});
  EXPECT_FALSE(old_card.usable);
  EXPECT_FALSE(small.usable);
  EXPECT_EQ(small.problem, "too little memory (4096 MiB; at least 6144 MiB needed)");
  EXPECT_TRUE(fine.usable);
  EXPECT_EQ(describe(small),
            "GPU 1: RTX 3050, compute 8.6, 4.0 GiB: not used: too little memory (4096 MiB; at least 6144 MiB needed)");
  EXPECT_EQ(describe(fine), "GPU 2: RTX 4090, compute 8.9, 24.0 GiB (23.0 GiB free): usable");
  BackendProbe p;
  p.cuda_built = true;
  p.cuda_devices = 2;
  p.devices = {old_card, small};
  EXPECT_TRUE(p.usable().empty());
  EXPECT_EQ(*choose_backend("auto", p), BackendKind::kCpu);
  auto cuda = choose_backend("cuda", p);
  ASSERT_FALSE(cuda);
  EXPECT_TRUE(has(cuda.error(), "no usable CUDA device")) << cuda.error();
  EXPECT_TRUE(has(cuda.error(), "compute capability 7.0 is not in this build")) << cuda.error();
  p.devices.push_back(fine);
  p.cuda_devices = 3;
  EXPECT_EQ(p.usable(), std::vector<std::uint32_t>{2});
  EXPECT_EQ(*choose_backend("auto", p), BackendKind::kCuda);
}

TEST(AppBackends, HCopiesFromTheConfigOrTheEnvironment) {
  EXPECT_EQ(*resolve_h_copies(2, "4"), 2u);  // the config wins
  EXPECT_EQ(*resolve_h_copies(0, nullptr), 0u);
  EXPECT_EQ(*resolve_h_copies(0, ""), 0u);
  EXPECT_EQ(*resolve_h_copies(0, "0"), 0u);
  EXPECT_EQ(*resolve_h_copies(0, "4"), 4u);
  for (const char* bad : {"5", "-1", "two", "3x", " 3", "99999999999999999999"}) {
    auto r = resolve_h_copies(0, bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_TRUE(has(r.error(), "CUZK_GPU_H_COPIES")) << r.error();
    EXPECT_TRUE(has(r.error(), "from 0 to 4")) << r.error();
  }
}

TEST(AppBackends, CreateChecksNamesAndKeyResidency) {
  auto cpu = DeviceBackends::create(BackendKind::kCpu);
  ASSERT_TRUE(cpu) << cpu.error();
  EXPECT_EQ((*cpu)->name(), "cpu");
  EXPECT_EQ((*cpu)->workspace_bytes(), 0u);
  EXPECT_EQ((*cpu)->memory_model(), cuzk::engine::MemoryModel::kHost);
  EXPECT_FALSE((*cpu)->uses_copies({0, false}));
  // A residency the CUDA backend does not know is refused whether or not this build has CUDA.
  auto bad = DeviceBackends::create(BackendKind::kCuda, {"host", 0, 0});
  ASSERT_FALSE(bad);
  EXPECT_TRUE(has(bad.error(), "key residency: expected auto, resident, streamed or file, got \"host\""))
      << bad.error();
  // The known ones are accepted (a CUDA build creates the backends lazily, without a device).
  for (const char* r : {"auto", "resident", "streamed", "file"}) {
    auto b = DeviceBackends::create(BackendKind::kCuda, {r, 1u << 30, 4096});
    if (b) EXPECT_EQ((*b)->name(), "cuda");
    else EXPECT_TRUE(has(b.error(), "not available")) << r << ": " << b.error();
  }
}
