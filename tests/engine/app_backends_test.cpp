// The executables' backend choice (src/apps/common/device_backends.hpp): backend names against what
// the build and the machine have, and the key-residency settings the daemon passes from [gpus].
#include <gtest/gtest.h>

#include <string>

#include "apps/common/device_backends.hpp"

using namespace cuzk::apps;

namespace {

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

}  // namespace

TEST(AppBackends, ChooseBackendFollowsTheProbe) {
  const BackendProbe none{false, 0, ""}, no_device{true, 0, ""}, gpu{true, 1, "H200"};
  EXPECT_EQ(*choose_backend("cpu", gpu), "cpu");
  EXPECT_EQ(*choose_backend("auto", none), "cpu");
  EXPECT_EQ(*choose_backend("auto", no_device), "cpu");
  EXPECT_EQ(*choose_backend("auto", gpu), "cuda");
  EXPECT_EQ(*choose_backend("cuda", gpu), "cuda");
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
  auto cpu = DeviceBackends::create("cpu");
  ASSERT_TRUE(cpu) << cpu.error();
  EXPECT_EQ((*cpu)->name(), "cpu");
  EXPECT_EQ((*cpu)->device_bytes(), 0u);
  auto unknown = DeviceBackends::create("tpu");
  ASSERT_FALSE(unknown);
  EXPECT_TRUE(has(unknown.error(), "not available")) << unknown.error();
  // A residency the CUDA backend does not know is refused whether or not this build has CUDA.
  auto bad = DeviceBackends::create("cuda", {"host", 0, 0});
  ASSERT_FALSE(bad);
  EXPECT_TRUE(has(bad.error(), "key residency: expected auto, resident or streamed, got \"host\"")) << bad.error();
  // The known ones are accepted (a CUDA build creates the backends lazily, without a device).
  for (const char* r : {"auto", "resident", "streamed"}) {
    auto b = DeviceBackends::create("cuda", {r, 1u << 30, 4096});
    if (b) EXPECT_EQ((*b)->name(), "cuda");
    else EXPECT_TRUE(has(b.error(), "not available")) << r << ": " << b.error();
  }
}
