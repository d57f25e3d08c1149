// The daemon's start-up plan (apps/cuzk-daemon/plan.hpp) as a specification: a config and a device
// probe in, the backend, the devices, the lane and the operator's warnings out.
#include <gtest/gtest.h>

#include "apps/cuzk-daemon/plan.hpp"

namespace cuzk::apps {
namespace {

GpuDevice gpu(std::uint32_t ordinal, bool usable, std::string problem = "") {
  GpuDevice d;
  d.ordinal = ordinal;
  d.name = "NVIDIA Test";
  d.cc_major = 9;
  d.total_bytes = d.free_bytes = std::uint64_t(80) << 30;
  d.usable = usable;
  d.problem = std::move(problem);
  return d;
}

BackendProbe probe(std::vector<GpuDevice> devices, bool cuda_built = true) {
  BackendProbe p;
  p.cuda_built = cuda_built;
  p.cuda_devices = std::uint32_t(devices.size());
  p.devices = std::move(devices);
  return p;
}

DaemonConfig config(std::string backend, std::vector<std::uint32_t> devices = {}) {
  DaemonConfig c;
  c.budget_auto = false;
  c.total_budget = std::uint64_t(64) << 30;
  c.backend = std::move(backend);
  c.devices = std::move(devices);
  return c;
}

const PlanEnvironment kEnv{16, "", true};

TEST(DaemonPlan, AutoOnACpuOnlyBuildServesOnTheCpuWithoutAWarning) {
  auto p = plan_daemon(config("auto"), probe({}, false), kEnv);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->engine.backend, engine::BackendKind::kCpu);
  EXPECT_EQ(p->engine.devices, std::vector<std::uint32_t>{0});  // the CPU backend's one slot
  EXPECT_EQ(p->engine.lane, engine::LaneKind::kCpu);
  EXPECT_TRUE(p->warnings.empty());
  EXPECT_FALSE(p->cpu_fallback);
}

TEST(DaemonPlan, AutoWithUsableGpusServesOnEveryOneWithAGpuLane) {
  auto p = plan_daemon(config("auto"), probe({gpu(0, true), gpu(1, true)}), kEnv);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->engine.backend, engine::BackendKind::kCuda);
  EXPECT_EQ(p->engine.devices, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(p->engine.lane, engine::LaneKind::kGpu);
  EXPECT_EQ(p->engine.lane_devices, p->engine.devices);
  EXPECT_TRUE(p->warnings.empty());
}

TEST(DaemonPlan, AnUnusableDeviceIsLeftOutOfEveryDeviceWithoutAWarning) {
  // gpus.devices = []: the usable ones serve; the probe's own log line says why the other is not used.
  auto p = plan_daemon(config("cuda"), probe({gpu(0, false, "compute 5.2 has no kernels"), gpu(1, true)}), kEnv);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->engine.devices, std::vector<std::uint32_t>{1});
  EXPECT_TRUE(p->warnings.empty());
}

TEST(DaemonPlan, AListedDeviceThatCannotBeUsedIsLeftOutWithItsReason) {
  auto p = plan_daemon(config("cuda", {0, 1}), probe({gpu(0, true), gpu(1, false, "4.0 GiB, below 6 GiB")}), kEnv);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->engine.backend, engine::BackendKind::kCuda);
  EXPECT_EQ(p->engine.devices, std::vector<std::uint32_t>{0});
  ASSERT_EQ(p->warnings.size(), 1u);
  EXPECT_EQ(p->warnings[0], "gpus.devices: GPU 1 is left out: 4.0 GiB, below 6 GiB");
  EXPECT_FALSE(p->cpu_fallback);
}

TEST(DaemonPlan, NoneOfTheListedDevicesUsableFallsBackToTheCpuNeverToAnotherDaemonsGpu) {
  // GPU 0 is usable but not listed: it belongs to someone else.
  auto p = plan_daemon(config("cuda", {1}), probe({gpu(0, true), gpu(1, false, "kernels do not load")}), kEnv);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->engine.backend, engine::BackendKind::kCpu);
  EXPECT_EQ(p->engine.devices, std::vector<std::uint32_t>{0});  // the CPU slot, not GPU 0
  EXPECT_TRUE(p->cpu_fallback);
  ASSERT_EQ(p->warnings.size(), 2u);
  EXPECT_EQ(p->warnings[0], "gpus.devices: GPU 1 is left out: kernels do not load");
  EXPECT_EQ(p->warnings[1],
            "no usable CUDA device among gpus.devices: proving on the CPU backend (backend.kind = \"cuda\")");
}

TEST(DaemonPlan, NoUsableDeviceAtAllFallsBackToTheCpu) {
  auto p = plan_daemon(config("auto"), probe({gpu(0, false, "driver too old")}), kEnv);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->engine.backend, engine::BackendKind::kCpu);
  EXPECT_TRUE(p->cpu_fallback);
  ASSERT_EQ(p->warnings.size(), 1u);
  EXPECT_EQ(p->warnings[0], "no usable CUDA device: proving on the CPU backend (backend.kind = \"auto\")");
}

TEST(DaemonPlan, CudaAskedOfABuildWithoutItIsAnError) {
  auto p = plan_daemon(config("cuda"), probe({}, false), kEnv);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error(), "backend.kind = \"cuda\": this build has no CUDA backend; use \"cpu\" or \"auto\"");
}

TEST(DaemonPlan, AListedDeviceThatIsNotPresentIsAnError) {
  auto p = plan_daemon(config("cuda", {0, 3}), probe({gpu(0, true)}), kEnv);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error(), "gpus.devices: device 3 does not exist (1 CUDA device(s) present)");
}

TEST(DaemonPlan, CpuAskedStaysOnTheCpuBesideUsableGpus) {
  auto p = plan_daemon(config("cpu", {0}), probe({gpu(0, true)}), kEnv);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->engine.backend, engine::BackendKind::kCpu);
  EXPECT_EQ(p->engine.lane, engine::LaneKind::kCpu);
  EXPECT_TRUE(p->warnings.empty());
  EXPECT_FALSE(p->cpu_fallback);
}

TEST(DaemonPlan, TheLaneFollowsTheConfigAndTheBackend) {
  DaemonConfig c = config("cuda");
  c.urgent_lane = "cpu";
  auto cpu_lane = plan_daemon(c, probe({gpu(0, true)}), kEnv);
  ASSERT_TRUE(cpu_lane) << cpu_lane.error();
  EXPECT_EQ(cpu_lane->engine.lane, engine::LaneKind::kCpu);
  c.urgent_lane = "off";
  auto off = plan_daemon(c, probe({gpu(0, true)}), kEnv);
  ASSERT_TRUE(off) << off.error();
  EXPECT_TRUE(off->engine.lane_devices.empty());
  EXPECT_NE(off->urgent_line.find("lane off"), std::string::npos) << off->urgent_line;
}

TEST(DaemonPlan, KindsParameterCacheAndAbandonedCancellation) {
  DaemonConfig c = config("cpu");
  c.param_cache = "";
  auto p = plan_daemon(c, probe({}), {4, "/var/tmp/params", true});
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->engine.param_cache, "/var/tmp/params");  // FIL_PROOFS_PARAMETER_CACHE when the config names none
  EXPECT_TRUE(p->engine.kinds.find("porep-c2"));
  EXPECT_EQ(p->abandoned_line, "cancelled when abandoned: window-post, winning-post");
  c.cancel_abandoned = std::vector<std::string>{"snap-update"};
  auto snap = plan_daemon(c, probe({}), kEnv);
  ASSERT_TRUE(snap) << snap.error();
  EXPECT_EQ(snap->abandoned_line, "cancelled when abandoned: snap-update");
  c.cancel_abandoned = std::vector<std::string>{"no-such-kind"};
  auto bad = plan_daemon(c, probe({}), kEnv);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().rfind("scheduler.cancel_abandoned: ", 0), 0u) << bad.error();
}

TEST(DaemonPlan, TheCheckConfigSummary) {
  auto p = plan_daemon(config("cpu"), probe({}), {4, "", true});
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->summary(),
            "config ok: budget 64.00 GiB, 4 synthesis workers, 1 device(s) x 2 backend workers, backend cpu\n"
            "deadlines: " +
                p->urgent_line + "; cancelled when abandoned: window-post, winning-post");
}

}  // namespace
}  // namespace cuzk::apps
