// Several devices on one host (docs/daemon.md, "Several GPUs"), without a GPU: simulated devices of
// given speeds (a start() sleeps, then the CPU backend proves, so every proof is real and verified),
// one of which can fail — with a fault the executor blames on the device (a sticky CUDA error) or
// with the work's own error. Checks: partitions of one proof spread over the devices by their speed;
// a failing device is taken out of service with its partition re-queued on another, not lost; an
// error that is not the device's fails only its job; with no device left every job ends with one
// clear error and nothing hangs; a key copy that fails on a blamed device is left out.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "engine/kinds/builtin_kinds.hpp"
#include "server/status_render.hpp"
#include "test_executor.hpp"
#include "test_kind.hpp"
#include "test_util.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

// One simulated device: each start() takes `per_partition`; the `fail_at`-th call (1-based) fails
// with `error`, and from then on the device is faulty when `blame` is set (device_fault says so).
struct SimDevice {
  std::chrono::milliseconds per_partition{10};
  int fail_at = 0;   // 0: never
  int hang_at = 0;   // this call (1-based) runs until the backend's cancel check says stop; 0: never
  int stuck_at = 0;  // this call (1-based) ignores the cancel and runs until `unstick` (a kernel that never returns)
  std::atomic<bool> unstick{false};
  std::atomic<bool> late_garbage{false};  // the stuck call's late answer is a wrong proof
  std::atomic<int> probe_faults{0};       // probes (device_fault while healthy) that still find it faulty
  bool blame = true;
  std::string error = "CUDA error: an illegal memory access was encountered in msm_h";
  std::atomic<int> calls{0};
  std::atomic<bool> faulty{false};

  // Every partition carries the same witness: the CPU backend's MSM results, computed once, so
  // that a start() costs its sleep only (finish() still blinds each proof with fresh r, s).
  Result<groth16::PendingProof> proof(const groth16::R1csShape& shape, std::span<const math::Fr> w,
                                      const groth16::ProvingKey& key) {
    std::lock_guard<std::mutex> g(mu);
    if (!cached) {
      auto r = groth16::make_cpu_backend()->start(shape, w, key);
      if (!r) return r;
      cached = *r;
    }
    return *cached;
  }
  std::mutex mu;
  std::optional<groth16::PendingProof> cached;
};

class SimBackend final : public groth16::Backend {
 public:
  explicit SimBackend(SimDevice& d) : d_(d) {}
  std::string name() const override { return "sim"; }
  using groth16::Backend::start;
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, std::span<const math::Fr> w,
                                      const groth16::ProvingKey& key) override {
    const int n = ++d_.calls;
    if (d_.faulty) return Error{"CUDA error: an illegal memory access was encountered (sticky)"};
    if (n == d_.stuck_at) {
      while (!d_.unstick.load()) std::this_thread::sleep_for(1ms);
      auto late = d_.proof(shape, w, key);  // a late answer: its partition was given to another task
      if (late && d_.late_garbage.load()) late->a_acc = late->a_acc + late->a_acc;
      return late;
    }
    if (n == d_.hang_at) {  // a hang the backend's checks can still leave: only the cancel ends it
      const auto cancelled = cancel_check();
      while (!(cancelled && cancelled())) std::this_thread::sleep_for(1ms);
      return Error{"cancelled"};
    }
    std::this_thread::sleep_for(d_.per_partition);
    if (n == d_.fail_at) {
      if (d_.blame) d_.faulty = true;
      return Error{d_.error};
    }
    return d_.proof(shape, w, key);
  }

 private:
  SimDevice& d_;
};

// Simulated devices on the host (engine::make_host_executor); device_fault blames a faulty one.
struct SimExecutor {
  explicit SimExecutor(std::map<std::uint32_t, SimDevice*> devices) : d(std::move(devices)) {}
  std::shared_ptr<Executor> make() {
    return engine::make_host_executor(
        "sim", MemoryModel::kHost,
        [this](BackendSlot slot) -> std::unique_ptr<groth16::Backend> {
          if (slot.lane) return groth16::make_cpu_backend();
          return std::make_unique<SimBackend>(*d.at(slot.device));
        },
        [this](std::uint32_t device) -> std::optional<std::string> {
          asked++;
          auto it = d.find(device);
          if (it == d.end()) return std::nullopt;
          if (!it->second->faulty) {
            if (it->second->probe_faults.load() <= 0) return std::nullopt;
            --it->second->probe_faults;
            return "the device does not answer";
          }
          return "cudaErrorIllegalAddress: an illegal memory access was encountered";
        });
  }
  std::map<std::uint32_t, SimDevice*> d;
  std::atomic<int> asked{0};
};

EngineOptions two_devices(std::shared_ptr<Executor> ex) {
  EngineOptions o = small_options();
  o.devices = {0, 1};
  o.executor = std::move(ex);
  return o;
}

// Counts each job's results as they are published (on_done runs once per published result).
struct ResultCounter {
  std::mutex mu;
  std::map<std::string, int> n;
  void watch(const std::shared_ptr<Job>& job) {
    const std::string id = Engine::id_of(job);
    Engine::on_done(job, [this, id] {
      std::lock_guard<std::mutex> g(mu);
      n[id]++;
    });
  }
  int of(const std::string& id) {
    std::lock_guard<std::mutex> g(mu);
    return n[id];
  }
};

const DeviceSnapshot& device_of(const StatusSnapshot& s, std::uint32_t ordinal) {
  for (const auto& d : s.devices)
    if (d.ordinal == ordinal) return d;
  static const DeviceSnapshot none{};
  ADD_FAILURE() << "no device " << ordinal << " in the status";
  return none;
}

struct Fixture {
  SimDevice d0, d1;
  TestKindControl kind;
  std::shared_ptr<SimExecutor> ex;
  ResultCounter results;
  std::mutex out_mu;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> outs;   // on_device_out: (ordinal, left)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> backs;  // on_device_back: (ordinal, in service)
  std::function<void(EngineOptions&)> tweak;                   // before the engine starts
  // Last, so destroyed first: its threads (which run the on_done and on_device_out callbacks into
  // the members above) are joined before those members go.
  std::unique_ptr<Engine> e;

  void start(std::uint32_t partitions) {
    ex = std::make_shared<SimExecutor>(std::map<std::uint32_t, SimDevice*>{{0, &d0}, {1, &d1}});
    EngineOptions o = two_devices(ex->make());
    o.on_device_out = [this](std::uint32_t ordinal, const std::string&, std::uint32_t left) {
      std::lock_guard<std::mutex> g(out_mu);
      outs.emplace_back(ordinal, left);
    };
    o.on_device_back = [this](std::uint32_t ordinal, std::uint32_t in_service) {
      std::lock_guard<std::mutex> g(out_mu);
      backs.emplace_back(ordinal, in_service);
    };
    if (tweak) tweak(o);
    e = std::make_unique<Engine>(std::move(o));
    ASSERT_TRUE(e->srs().register_zkey("mulchain", test::zkey_of("mulchain")));
    kind.partitions = partitions;
    e->register_kind(kTestKind, std::make_shared<TestKind>(kind));
  }
  std::vector<std::shared_ptr<Job>> submit(const std::string& prefix, int count) {
    std::vector<std::shared_ptr<Job>> jobs;
    for (int i = 0; i < count; ++i) {
      auto s = e->submit(test_request(prefix + std::to_string(i)));
      EXPECT_TRUE(s) << s.error();
      if (!s) continue;
      results.watch(s->job);
      jobs.push_back(s->job);
    }
    return jobs;
  }
};

TEST(Devices, PartitionsOfOneProofSpreadOverTheDevicesByTheirSpeed) {
  Fixture f;
  f.d0.per_partition = 10ms;
  f.d1.per_partition = 30ms;  // a third of device 0's speed
  f.start(48);
  auto jobs = f.submit("spread-", 1);
  ASSERT_EQ(jobs.size(), 1u);
  JobResult r = f.e->wait(jobs[0], 60s);
  ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;  // 48 partition proofs, each verified
  EXPECT_EQ(r.proof.size(), 48u * 192u);
  const StatusSnapshot s = f.e->status();
  const auto& a = device_of(s, 0);
  const auto& b = device_of(s, 1);
  EXPECT_EQ(a.partitions + b.partitions, 48u);
  EXPECT_EQ(int(a.partitions), f.d0.calls.load());
  EXPECT_EQ(int(b.partitions), f.d1.calls.load());
  // Each device takes the next partition when it frees: about 3 : 1 (36 : 12). Wide bounds, as the
  // 2-core CI machine's scheduling jitter is of the order of a partition.
  EXPECT_GE(b.partitions, 6u) << "the slower device got too little";
  EXPECT_GE(a.partitions, 2 * b.partitions) << a.partitions << " : " << b.partitions;
  EXPECT_TRUE(a.in_service && b.in_service);
  EXPECT_GT(a.busy_s, 0.3);  // at least 36 x 10 ms
  EXPECT_GT(b.busy_s, 0.15);
  EXPECT_EQ(f.ex->asked.load(), 0);  // nothing failed, no device was suspected
  EXPECT_TRUE(test::eventually([&] { return f.results.of("spread-0") == 1; }));
}

TEST(Devices, AFailingDeviceIsTakenOutOfServiceAndItsPartitionIsProvedOnAnother) {
  Fixture f;
  f.d0.per_partition = 5ms;
  f.d1.per_partition = 5ms;
  f.d1.fail_at = 3;  // device 1's third partition: a sticky error
  f.start(4);
  auto jobs = f.submit("survive-", 8);
  for (auto& j : jobs) {
    JobResult r = f.e->wait(j, 60s);
    EXPECT_EQ(r.status, ResultStatus::kCompleted) << Engine::id_of(j) << ": " << r.error;
    EXPECT_EQ(r.proof.size(), 4u * 192u);
  }
  const StatusSnapshot s = f.e->status();
  const auto& a = device_of(s, 0);
  const auto& b = device_of(s, 1);
  EXPECT_TRUE(a.in_service);
  EXPECT_FALSE(b.in_service);
  EXPECT_EQ(b.fault, "cudaErrorIllegalAddress: an illegal memory access was encountered");
  EXPECT_EQ(b.requeued, 1u);
  EXPECT_EQ(b.partitions, 2u);  // the two before the failure
  EXPECT_EQ(f.d1.calls.load(), 3) << "a device out of service was given more work";
  {
    std::lock_guard<std::mutex> g(f.out_mu);
    EXPECT_EQ(f.outs, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 1}}));  // once, one left
  }
  EXPECT_EQ(a.partitions, 30u);  // 32 partitions in all, the failed one proved again on device 0
  EXPECT_EQ(s.completed, 8u);
  EXPECT_EQ(s.failed, 0u);
  for (auto& j : jobs) {
    EXPECT_TRUE(test::eventually([&] { return f.results.of(Engine::id_of(j)) == 1; })) << Engine::id_of(j);
  }
  EXPECT_TRUE(test::eventually([&] { return f.e->budget().used(MemoryBudget::kPartition) == 0; }));
  // The outputs say so: /metrics and /status.
  const std::string m = server::prometheus_text(s, f.e->kinds());
  EXPECT_NE(m.find("cuzk_gpu_in_service{device=\"1\"} 0"), std::string::npos) << m;
  EXPECT_NE(m.find("cuzk_gpu_in_service{device=\"0\"} 1"), std::string::npos);
  EXPECT_NE(m.find("cuzk_gpu_requeued_partitions_total{device=\"1\"} 1"), std::string::npos);
  EXPECT_NE(m.find("cuzk_gpu_partitions_total{device=\"0\"} 30"), std::string::npos);
  EXPECT_NE(m.find("cuzk_gpu_busy_seconds_total{device=\"0\"} "), std::string::npos);
  const std::string j = server::status_json(s, f.e->kinds());
  EXPECT_NE(j.find("\"in_service\":false"), std::string::npos) << j;
  EXPECT_NE(j.find("cudaErrorIllegalAddress"), std::string::npos);
  // New work goes to device 0 alone.
  auto more = f.submit("after-", 2);
  for (auto& x : more) EXPECT_EQ(f.e->wait(x, 60s).status, ResultStatus::kCompleted);
  EXPECT_EQ(f.d1.calls.load(), 3);
}

// A hung device (issue 41 item 7): a partition that holds device 1 past its limit (4 x the key's
// measured time, at least 200 ms) marks the device suspect and is cancelled there; the device goes
// out of service and the partition is proved on device 0, so every job completes once. Probes every
// 100 ms: the first two still find it faulty, the third healthy, and it is back in service, taking
// work again.
TEST(Devices, AHungDeviceIsSuspectedItsPartitionMovesAndAProbeBringsItBack) {
  Fixture f;
  f.d0.per_partition = 5ms;
  f.d1.per_partition = 5ms;
  f.d1.hang_at = 3;
  f.d1.probe_faults = 2;
  f.tweak = [](EngineOptions& o) {
    o.hang_multiple = 4;
    o.hang_min = 200ms;
    o.probe_after = 100ms;
  };
  f.start(4);
  const auto t0 = std::chrono::steady_clock::now();
  auto jobs = f.submit("hang-", 4);
  for (auto& j : jobs) {
    JobResult r = f.e->wait(j, 60s);
    EXPECT_EQ(r.status, ResultStatus::kCompleted) << Engine::id_of(j) << ": " << r.error;
    EXPECT_EQ(r.proof.size(), 4u * 192u);
  }
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 200ms) << "the hung partition was given up before its limit";
  StatusSnapshot s = f.e->status();
  EXPECT_EQ(device_of(s, 1).requeued, 1u);
  EXPECT_EQ(device_of(s, 1).partitions, 2u);   // the two before the hang
  EXPECT_EQ(device_of(s, 0).partitions, 14u);  // 16 in all, the hung one again here
  EXPECT_EQ(s.completed, 4u);
  for (auto& j : jobs)
    EXPECT_TRUE(test::eventually([&] { return f.results.of(Engine::id_of(j)) == 1; })) << Engine::id_of(j);
  {
    std::lock_guard<std::mutex> g(f.out_mu);
    EXPECT_EQ(f.outs, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 1}}));
  }
  // Back after the third probe (~300 ms): out of service until then, its fault naming the hang.
  ASSERT_TRUE(test::eventually([&] { return device_of(f.e->status(), 1).in_service; }, 10s));
  s = f.e->status();
  EXPECT_EQ(device_of(s, 1).returned, 1u);
  EXPECT_FALSE(device_of(s, 1).suspect);
  EXPECT_EQ(f.d1.probe_faults.load(), 0);
  // on_device_back runs after the device is marked in service (outside the engine's lock)
  EXPECT_TRUE(test::eventually([&] {
    std::lock_guard<std::mutex> g(f.out_mu);
    return !f.backs.empty();
  }));
  {
    std::lock_guard<std::mutex> g(f.out_mu);
    EXPECT_EQ(f.backs, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 2}}));
  }
  const std::string m = server::prometheus_text(s, f.e->kinds());
  EXPECT_NE(m.find("cuzk_gpu_returned_total{device=\"1\"} 1"), std::string::npos) << m;
  EXPECT_NE(m.find("cuzk_gpu_in_service{device=\"1\"} 1"), std::string::npos);
  // It takes work again.
  f.d0.per_partition = 40ms;
  auto more = f.submit("after-", 2);
  for (auto& x : more) EXPECT_EQ(f.e->wait(x, 60s).status, ResultStatus::kCompleted);
  EXPECT_GT(f.d1.calls.load(), 3);
}

// A stuck call's device lets it go before the engine stops, whatever the test found.
struct Unstick {
  SimDevice& d;
  ~Unstick() { d.unstick = true; }
};
// The watch of the stuck-call tests: a 200 ms floor, 4x the measured time, no probes (a device out stays out).
void stuck_watch(EngineOptions& o) {
  o.hang_multiple = 4;
  o.hang_min = 200ms;
  o.probe_after = 0ms;
}

// A partition stuck in a kernel (its backend never looks at the cancel): at 1.5x its limit its device
// leaves service and the partition is synthesized again as a new task for the other device, so every
// job completes, each with one result; the stuck call's late proof is dropped and changes nothing.
TEST(Devices, APartitionStuckInAKernelIsProvedAgainOnAnotherDeviceWhichLeavesService) {
  Fixture f;
  f.d0.per_partition = 5ms;
  f.d1.per_partition = 5ms;
  f.d1.stuck_at = 2;
  Unstick unstick{f.d1};
  f.tweak = stuck_watch;
  f.start(4);
  const auto t0 = std::chrono::steady_clock::now();
  auto jobs = f.submit("stuck-", 3);
  for (auto& j : jobs) EXPECT_EQ(f.e->wait(j, 60s).status, ResultStatus::kCompleted);
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(took, 300ms) << "given up before 1.5x its limit";
  EXPECT_LT(took, 10s);
  StatusSnapshot s = f.e->status();
  EXPECT_FALSE(device_of(s, 1).in_service);
  EXPECT_TRUE(device_of(s, 1).suspect);
  EXPECT_EQ(device_of(s, 1).requeued, 1u);
  EXPECT_EQ(f.d1.calls.load(), 2) << "nothing more went to the stuck device";
  // The stuck call returns a proof late: it is dropped, every job keeps its one result.
  f.d1.unstick = true;
  std::this_thread::sleep_for(100ms);
  for (auto& j : jobs) EXPECT_EQ(f.results.of(Engine::id_of(j)), 1) << Engine::id_of(j);
  auto more = f.submit("after-", 2);
  for (auto& x : more) EXPECT_EQ(f.e->wait(x, 60s).status, ResultStatus::kCompleted);
  EXPECT_FALSE(device_of(f.e->status(), 1).in_service);
}

// The stuck call answers, with a wrong proof, before the partition's new task is done: the answer is
// dropped, and the job completes with the new task's proof (taking the late one would fail its
// self-check).
TEST(Devices, ALateAnswerOfAStuckCallIsDroppedEvenWhenItComesFirst) {
  Fixture f;
  f.d0.per_partition = 400ms;  // the new task takes a while
  f.d1.per_partition = 5ms;
  f.d1.stuck_at = 1;
  f.d1.late_garbage = true;
  Unstick unstick{f.d1};
  f.tweak = stuck_watch;
  f.start(1);
  auto jobs = f.submit("late-", 2);
  // As soon as the stuck device is out of service (its partition re-queued), the call answers.
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (device_of(f.e->status(), 1).in_service && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(2ms);
  ASSERT_FALSE(device_of(f.e->status(), 1).in_service);
  f.d1.unstick = true;
  for (auto& j : jobs) {
    const JobResult r = f.e->wait(j, 60s);
    EXPECT_EQ(r.status, ResultStatus::kCompleted) << r.error;
  }
  std::this_thread::sleep_for(100ms);  // the results' callbacks run after wait() returns
  for (auto& j : jobs) EXPECT_EQ(f.results.of(Engine::id_of(j)), 1) << Engine::id_of(j);
}

// The same with no device left to take the partition (the other one failed before): the job gets its
// one answer, FAILED naming the hung device and saying to submit again.
TEST(Devices, APartitionStuckOnTheLastDeviceInServiceFailsItsJobOnce) {
  Fixture f;
  f.d0.per_partition = 5ms;
  f.d0.faulty = true;         // fails its first partition (which goes to device 1): out of service
  f.d1.per_partition = 50ms;  // busy while the first jobs queue, so device 0 takes one of them
  f.d1.stuck_at = 7;          // six first jobs, then the stuck one
  Unstick unstick{f.d1};
  f.tweak = stuck_watch;
  f.start(1);
  auto first = f.submit("first-", 6);
  for (auto& j : first) ASSERT_EQ(f.e->wait(j, 60s).status, ResultStatus::kCompleted);
  ASSERT_FALSE(device_of(f.e->status(), 0).in_service);
  ASSERT_EQ(f.d1.calls.load(), 6);
  auto jobs = f.submit("stuck-", 1);
  JobResult r = f.e->wait(jobs[0], 60s);
  EXPECT_EQ(r.status, ResultStatus::kFailed);
  EXPECT_NE(r.error.find("partition 0: GPU 1 hung"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("no device is left in service, submit the job again"), std::string::npos) << r.error;
  f.d1.unstick = true;
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(f.results.of(Engine::id_of(jobs[0])), 1);
}

// A partition slower than usual but within its limit is left alone: no suspicion, nothing moves.
TEST(Devices, APartitionWithinItsHangLimitIsLeftAlone) {
  Fixture f;
  f.d0.per_partition = 5ms;
  f.d1.per_partition = 5ms;
  f.tweak = [](EngineOptions& o) {
    o.hang_multiple = 100;
    o.hang_min = 500ms;
    o.probe_after = 100ms;
  };
  f.start(4);
  auto warm = f.submit("warm-", 1);
  ASSERT_EQ(f.e->wait(warm[0], 60s).status, ResultStatus::kCompleted);
  f.d1.per_partition = 150ms;  // 30x the measured 5 ms, under the 500 ms floor
  auto jobs = f.submit("slow-", 2);
  for (auto& j : jobs) EXPECT_EQ(f.e->wait(j, 60s).status, ResultStatus::kCompleted);
  const StatusSnapshot s = f.e->status();
  EXPECT_TRUE(device_of(s, 1).in_service);
  EXPECT_FALSE(device_of(s, 1).suspect);
  EXPECT_EQ(device_of(s, 1).requeued, 0u);
  EXPECT_EQ(f.ex->asked.load(), 0);
}

TEST(Devices, AnErrorThatIsNotTheDevicesFailsOnlyItsJobAndTheDeviceStays) {
  Fixture f;
  f.d1.fail_at = 1;
  f.d1.blame = false;  // the executor finds the device healthy: the partition's own failure
  f.d1.error = "GPU prover: the witness has 7 inputs, the key 9";
  f.d0.per_partition = 40ms;  // so that device 1 takes the first partition it can
  f.start(2);
  auto jobs = f.submit("own-", 3);
  int failed = 0, completed = 0;
  for (auto& j : jobs) {
    JobResult r = f.e->wait(j, 60s);
    if (r.status == ResultStatus::kFailed) {
      ++failed;
      EXPECT_EQ(r.error.rfind("partition ", 0), 0u) << r.error;
      EXPECT_NE(r.error.find(" backend (sim) failed: GPU prover: the witness has 7 inputs, the key 9"),
                std::string::npos)
          << r.error;
    } else {
      ++completed;
      EXPECT_EQ(r.status, ResultStatus::kCompleted) << r.error;
    }
    EXPECT_TRUE(test::eventually([&] { return f.results.of(Engine::id_of(j)) == 1; }));
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(completed, 2);
  const StatusSnapshot s = f.e->status();
  EXPECT_TRUE(device_of(s, 1).in_service);
  EXPECT_EQ(device_of(s, 1).requeued, 0u);
  EXPECT_GE(f.ex->asked.load(), 1);
  EXPECT_GE(f.d1.calls.load(), 2) << "device 1 kept proving after a failure that was not its own";
}

TEST(Devices, WithNoDeviceLeftEveryJobEndsWithOneClearErrorAndNothingHangs) {
  Fixture f;
  f.d0.fail_at = 1;
  f.d1.fail_at = 1;
  f.d0.per_partition = 20ms;
  f.d1.per_partition = 20ms;
  f.start(3);
  auto jobs = f.submit("doomed-", 10);
  for (auto& j : jobs) {
    JobResult r = f.e->wait(j, 30s);
    ASSERT_EQ(r.status, ResultStatus::kFailed) << Engine::id_of(j) << ": " << r.error;
    EXPECT_NE(r.error.find("no GPU left"), std::string::npos) << r.error;
    EXPECT_TRUE(test::eventually([&] { return f.results.of(Engine::id_of(j)) == 1; }));
  }
  StatusSnapshot s = f.e->status();
  EXPECT_FALSE(device_of(s, 0).in_service);
  EXPECT_FALSE(device_of(s, 1).in_service);
  EXPECT_EQ(s.failed, 10u);
  // Later submissions end the same way, at once (they never wait for a device).
  const auto t0 = std::chrono::steady_clock::now();
  JobResult late = f.e->prove(test_request("late"));
  EXPECT_EQ(late.status, ResultStatus::kFailed);
  const std::string why =
      ": no GPU left in service (GPU 0: cudaErrorIllegalAddress: an illegal memory access was "
      "encountered; GPU 1: cudaErrorIllegalAddress: an illegal memory access was encountered)";
  ASSERT_GT(late.error.size(), why.size());
  EXPECT_EQ(late.error.substr(late.error.size() - why.size()), why) << late.error;  // whichever of its 3 came first
  EXPECT_EQ(late.error.rfind("partition ", 0), 0u) << late.error;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_TRUE(test::eventually([&] { return f.e->budget().used(MemoryBudget::kPartition) == 0; }));
  EXPECT_TRUE(test::eventually([&] {  // the dropped partitions are no longer counted in progress
    for (const auto& q : f.e->status().queues)
      if (q.in_progress) return false;
    return true;
  }));
  EXPECT_EQ(f.d0.calls.load() + f.d1.calls.load(), 2) << "a device out of service was given work";
  std::lock_guard<std::mutex> g(f.out_mu);
  ASSERT_EQ(f.outs.size(), 2u);  // the daemon's health turns NOT_SERVING at the second (none left)
  EXPECT_EQ(f.outs[0].second + f.outs[1].second, 1u);
  EXPECT_EQ(std::min(f.outs[0].second, f.outs[1].second), 0u);
}

// A copy of a key that fails on a device the executor blames: the key is served by the other
// device, and the blamed one is out of service (not the whole load failed).
TEST(Devices, AKeyCopyThatFailsOnABlamedDeviceIsLeftOut) {
  test::CopyExecutor::Options co;
  co.refuse_device = 1;
  co.refused_device_is_faulty = true;
  auto ex = std::make_shared<test::CopyExecutor>(co);
  Engine e(two_devices(ex));
  ASSERT_TRUE(e.srs().register_zkey("mulchain", test::zkey_of("mulchain")));
  for (int i = 0; i < 3; ++i) {  // the generic kind: its partitions prove from the slot's copy
    ProofRequest req;
    req.request_id = "one-copy-" + std::to_string(i);
    req.proof_kind = static_cast<std::uint32_t>(ProofKind::kGenericGroth16);
    req.circuit_id = "mulchain";
    req.witness_wtns = test::read_file(test::fixture("mulchain", "witness.wtns"));
    JobResult r = e.prove(std::move(req));
    ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;
  }
  EXPECT_EQ(ex->ledger->proofs_with_copy.load(), 3);
  EXPECT_EQ(ex->ledger->wrong_copy.load(), 0);
  EXPECT_EQ(ex->ledger->made.load(), 1);  // device 0's copy only
  const StatusSnapshot s = e.status();
  EXPECT_TRUE(device_of(s, 0).in_service);
  EXPECT_FALSE(device_of(s, 1).in_service);
  EXPECT_EQ(device_of(s, 1).fault, "device 1 is full and faulty");
  EXPECT_EQ(device_of(s, 0).partitions, 3u);
  // Without the blame the load fails as before, naming the device (srs_manager_test covers it).
}

// The GPU lane's device fails under an urgent partition: the partition goes to the other device's
// main backend, the lane (on the failed device) takes nothing more, and later urgent partitions skip it.
TEST(Devices, APartitionOnTheLaneOfAFailingDeviceIsProvedByAnotherDevice) {
  test::CopyExecutor::Options co;
  co.lane_copies = true;  // a GPU lane
  co.fail_device = 1;
  auto ex = std::make_shared<test::CopyExecutor>(co);
  EngineOptions o = two_devices(ex);
  o.lane_devices = {1};  // the lane beside device 1 only, so the first urgent partition takes it
  Engine e(std::move(o));
  ASSERT_TRUE(e.srs().register_zkey("mulchain", test::zkey_of("mulchain")));
  for (int i = 0; i < 2; ++i) {
    ProofRequest req;
    req.request_id = "urgent-" + std::to_string(i);
    req.proof_kind = static_cast<std::uint32_t>(ProofKind::kGenericGroth16);
    req.priority = static_cast<std::uint32_t>(Priority::kCritical);
    req.circuit_id = "mulchain";
    req.witness_wtns = test::read_file(test::fixture("mulchain", "witness.wtns"));
    JobResult r = e.prove(std::move(req));
    ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;
  }
  EXPECT_EQ(ex->ledger->failed_starts.load(), 1);  // the lane's one call, and none after it
  EXPECT_EQ(ex->ledger->proofs_with_copy.load(), 2);
  EXPECT_EQ(ex->ledger->wrong_copy.load(), 0);
  const StatusSnapshot s = e.status();
  EXPECT_TRUE(device_of(s, 0).in_service);
  EXPECT_FALSE(device_of(s, 1).in_service);
  EXPECT_EQ(device_of(s, 1).fault, "cudaErrorLaunchFailure: unspecified launch failure");
  EXPECT_EQ(device_of(s, 1).requeued, 1u);
  EXPECT_EQ(device_of(s, 0).partitions, 2u);
  EXPECT_EQ(s.lane_partitions, 0u);
}

}  // namespace
}  // namespace cuzk::engine
