// Deadlines under load (docs/daemon.md, "Deadlines under load"): urgent work never waits for
// capacity held or queued by lower-priority work, except the partition holding the device, and a
// small urgent partition runs on the lane beside it. Each test fills a stage with NORMAL work held
// at a latch (no sleeps, no timing asserts), submits a CRITICAL job, and checks that it completes
// while the NORMAL work is still held; then releases everything and checks that every job has
// exactly one result and every reservation came back.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/kinds/builtin_kinds.hpp"
#include "formats/snarkjs_wtns.hpp"
#include "groth16/verifier.hpp"
#include "server/status_render.hpp"
#include "test_executor.hpp"
#include "test_util.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
constexpr std::uint32_t kLatchKind = 5001;

// A latch per stage: jobs whose request id is listed are held there until release() (or their
// cancellation); `arrived` counts who reached it.
struct Latch {
  std::mutex mu;
  std::condition_variable cv;
  std::set<std::string> held;
  std::multiset<std::string> arrived;

  void hold(std::initializer_list<std::string> ids) {
    std::lock_guard<std::mutex> g(mu);
    held.insert(ids.begin(), ids.end());
  }
  void release_all() {
    {
      std::lock_guard<std::mutex> g(mu);
      held.clear();
    }
    cv.notify_all();
  }
  void pass(const std::string& id, const CancelToken& cancel = {}) {
    std::unique_lock<std::mutex> lk(mu);
    arrived.insert(id);
    cv.notify_all();
    while (held.count(id) && !cancel.cancelled()) cv.wait_for(lk, 1ms);
  }
  bool reached(const std::string& id) {
    std::lock_guard<std::mutex> g(mu);
    return arrived.count(id) > 0;
  }
};

struct Latches {
  Latch prepare, synthesis, backend, verify;
  std::uint64_t partition_bytes = 1u << 20;
  void release_all() {
    for (Latch* l : {&prepare, &synthesis, &backend, &verify}) l->release_all();
  }
};

// The CPU backend behind the backend latch. A backend sees no request ids, so the kind records whose
// witness each partition carries (`owner`, keyed by the witness's data pointer).
class LatchedBackend final : public groth16::Backend {
 public:
  LatchedBackend(Latches& l, std::mutex& mu, std::map<const void*, std::string>& owner)
      : l_(l), mu_(mu), owner_(owner) {}
  std::string name() const override { return "latched-cpu"; }
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, std::span<const math::Fr> w,
                                      const groth16::ProvingKey& key) override {
    std::string id;
    {
      std::lock_guard<std::mutex> g(mu_);
      auto it = owner_.find(w.data());
      if (it != owner_.end()) id = it->second;
    }
    l_.backend.pass(id);
    return cpu_->start(shape, w, key);
  }

 private:
  Latches& l_;
  std::mutex& mu_;
  std::map<const void*, std::string>& owner_;
  std::unique_ptr<groth16::Backend> cpu_ = groth16::make_cpu_backend();
};

// One partition proving the "mulchain" fixture; prepare, synthesis and verify pass their latches.
class LatchPrepared final : public PreparedJob {
 public:
  LatchPrepared(std::string id, SrsLease lease, std::vector<math::Fr> w, Latches& l, std::mutex& mu,
                std::map<const void*, std::string>& owner)
      : id_(std::move(id)), lease_(std::move(lease)), w_(std::move(w)), l_(l), mu_(mu), owner_(owner) {}
  ~LatchPrepared() override {
    std::lock_guard<std::mutex> g(mu_);
    for (const void* p : mine_) {
      auto it = owner_.find(p);
      if (it != owner_.end() && it->second == id_) owner_.erase(it);  // the address may have been reused
    }
  }
  std::uint32_t num_partitions() const override { return 1; }
  PartitionMemory partition_memory(std::uint32_t) const override { return {l_.partition_bytes, 4096}; }
  Result<SynthesizedPartition> synthesize(std::uint32_t, const CancelToken& cancel) override {
    l_.synthesis.pass(id_, cancel);
    if (cancel.cancelled()) return Error{"cancelled"};
    SynthesizedPartition s;
    s.shape = &lease_->shape;
    s.key = &lease_->pk;
    s.witness = w_;
    {
      std::lock_guard<std::mutex> g(mu_);
      const void* p = std::get<std::vector<math::Fr>>(s.witness).data();
      owner_[p] = id_;
      mine_.push_back(p);
    }
    return s;
  }
  const groth16::ProvingKey& key(std::uint32_t) const override { return lease_->pk; }
  Status verify(std::span<const groth16::Proof> proofs) override {
    l_.verify.pass(id_);
    std::vector<math::Fr> pub(w_.begin() + 1, w_.begin() + 1 + lease_->n_public);
    for (auto& p : proofs) {
      auto ok = groth16::verify(lease_->pk.vk, pub, p);
      if (!ok || !*ok) return Error{"latch kind: the proof does not verify"};
    }
    return ok_status();
  }

 private:
  std::string id_;
  SrsLease lease_;
  std::vector<math::Fr> w_;
  Latches& l_;
  std::mutex& mu_;
  std::map<const void*, std::string>& owner_;
  std::vector<const void*> mine_;
};

class LatchKind final : public JobKind {
 public:
  LatchKind(Latches& l, std::mutex& mu, std::map<const void*, std::string>& owner) : l_(l), mu_(mu), owner_(owner) {}
  std::string name() const override { return "latch-kind"; }
  Result<std::unique_ptr<PreparedJob>> prepare(std::shared_ptr<const ProofRequest> req, PrepareContext& ctx) override {
    l_.prepare.pass(req->request_id, ctx.cancel);
    auto lease = ctx.srs.acquire("mulchain");
    if (!lease) return Error{lease.error()};
    auto w = formats::read_wtns(test::fixture("mulchain", "witness.wtns"));
    if (!w) return Error{w.error()};
    return std::unique_ptr<PreparedJob>(
        std::make_unique<LatchPrepared>(req->request_id, std::move(*lease), std::move(*w), l_, mu_, owner_));
  }

 private:
  Latches& l_;
  std::mutex& mu_;
  std::map<const void*, std::string>& owner_;
};

// An engine with one worker per stage, the latch kind, and a latched CPU backend on the device.
struct Rig {
  Latches latches;
  std::mutex owner_mu;
  std::map<const void*, std::string> owner;
  std::unique_ptr<Engine> engine;

  explicit Rig(std::function<void(EngineOptions&)> tweak = {}) {
    EngineOptions o;
    kinds::register_builtin_kinds(o.kinds);
    o.memory_budget_bytes = 256u << 20;
    o.srs_min_idle = 0ms;
    o.prepare_workers = 1;
    o.synthesis_workers = 1;
    o.workers_per_device = 1;
    o.finalizer_threads = 1;
    o.executor = test::factory_executor([this](BackendSlot slot) {
      if (slot.lane) return groth16::make_cpu_backend();  // the CPU lane
      return std::unique_ptr<groth16::Backend>(std::make_unique<LatchedBackend>(latches, owner_mu, owner));
    });
    if (tweak) tweak(o);
    engine = std::make_unique<Engine>(o);
    EXPECT_TRUE(engine->srs().register_zkey("mulchain", test::zkey_of("mulchain")));
    EXPECT_TRUE(engine->srs().preload("mulchain"));  // no key load inside the tests
    engine->register_kind(kLatchKind, std::make_shared<LatchKind>(latches, owner_mu, owner));
  }
  ~Rig() {
    latches.release_all();
    engine.reset();
  }
  std::shared_ptr<Job> submit(const std::string& id, Priority p) {
    ProofRequest r;
    r.request_id = id;
    r.proof_kind = kLatchKind;
    r.priority = static_cast<std::uint32_t>(p);
    auto s = engine->submit(std::move(r));
    EXPECT_TRUE(s) << s.error();
    return s ? s->job : nullptr;
  }
  bool finished(const std::shared_ptr<Job>& j) const { return Engine::result_of(j).has_value(); }
  std::uint32_t sched_depth() const { return engine->status().sched_depth; }
  std::uint32_t backend_queue() const { return engine->status().backend_queue; }
  // The busy slot of `stage` that works on job `id`, if any.
  bool busy_in(const std::string& stage, const std::string& id) const {
    for (const auto& w : engine->status().workers)
      if (w.stage_name() == stage && w.job_id == id) return true;
    return false;
  }
  // Releases everything and checks one COMPLETED result per job and no reservation left.
  void finish_all(const std::vector<std::shared_ptr<Job>>& jobs) {
    latches.release_all();
    for (const auto& j : jobs) {
      JobResult r = engine->wait(j, 60s);
      EXPECT_EQ(r.status, ResultStatus::kCompleted) << r.job_id << ": " << r.error;
      EXPECT_EQ(r.proof.size(), 192u);
    }
    EXPECT_TRUE(engine->drain(10s));
    auto s = engine->status();
    EXPECT_EQ(s.completed, jobs.size());
    EXPECT_EQ(s.failed + s.cancelled, 0u);
    EXPECT_TRUE(test::eventually([&] { return engine->budget().used(MemoryBudget::kPartition) == 0; }));
  }
};

// The device held by a NORMAL partition, the only normal synthesis slot held by another, a third
// NORMAL partition queued: a CRITICAL small job is prepared, synthesized in its reserved slot,
// proved on the CPU lane (no device lock) and verified while all three are still where they were.
TEST(Urgent, SmallCriticalJobRunsOnTheLaneWhileNormalWorkHoldsSlotsAndDevice) {
  Rig rig([](EngineOptions& o) {
    o.lane_devices = {0};  // the CPU lane (no lane_backend_factory)
    o.lane = LaneKind::kCpu;
  });
  rig.latches.backend.hold({"n0"});
  rig.latches.synthesis.hold({"n1"});
  auto n0 = rig.submit("n0", Priority::kNormal);
  ASSERT_TRUE(test::eventually([&] { return rig.latches.backend.reached("n0"); }));  // n0 holds the device
  auto n1 = rig.submit("n1", Priority::kNormal);
  ASSERT_TRUE(test::eventually([&] { return rig.latches.synthesis.reached("n1"); }));  // and the synthesis slot
  auto n2 = rig.submit("n2", Priority::kNormal);
  ASSERT_TRUE(test::eventually([&] { return rig.sched_depth() == 1; }));  // n2 waits for a slot

  auto crit = rig.submit("crit", Priority::kCritical);
  JobResult r = rig.engine->wait(crit, 60s);
  ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;
  EXPECT_EQ(r.proof.size(), 192u);
  // Nothing it bypassed has moved.
  EXPECT_FALSE(rig.finished(n0) || rig.finished(n1) || rig.finished(n2));
  EXPECT_TRUE(rig.busy_in("backend", "n0"));
  EXPECT_TRUE(rig.busy_in("synthesis", "n1"));
  EXPECT_EQ(rig.sched_depth(), 1u);
  EXPECT_FALSE(rig.latches.backend.reached("crit")) << "the small urgent partition used the device's backend";
  auto s = rig.engine->status();
  EXPECT_EQ(s.lane, "cpu");
  EXPECT_EQ(s.lane_partitions, 1u);
  std::uint64_t lane_done = 0;
  for (const auto& w : s.workers)
    if (w.stage == WorkerStage::kLane) lane_done += w.items_done;
  EXPECT_EQ(lane_done, 1u);
  rig.finish_all({n0, n1, n2, crit});
  EXPECT_EQ(rig.engine->status().lane_partitions, 1u);  // the NORMAL ones used the device
  // Shown in /status and /metrics.
  const std::string json = server::status_json(rig.engine->status(), rig.engine->kinds());
  EXPECT_NE(json.find("\"urgent\":{\"lane\":\"cpu\",\"lane_queue\":0,\"lane_partitions\":1,"
                      "\"headroom_bytes\":{\"urgent\":0,\"small\":1048576}}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"stage\":\"lane\""), std::string::npos);
  const std::string metrics = server::prometheus_text(rig.engine->status(), rig.engine->kinds());
  for (const char* m : {"cuzk_lane_partitions_total 1\n", "cuzk_stage_queue_length{stage=\"lane\"} 0\n",
                        "cuzk_workers_busy{stage=\"synthesis-urgent\"} 0\n", "cuzk_workers_busy{stage=\"lane\"} 0\n"})
    EXPECT_NE(metrics.find(m), std::string::npos) << m;
}

// Without a lane, an urgent partition waits only for the partition holding the device: the backend
// queue is full of NORMAL work (bound 1) and the normal backend workers are busy or idle waiting for
// the device, yet it passes the bound and is the next to get the device, before the NORMAL
// partition queued ahead of it (with two workers per device, the second one does not take that
// partition while the device is busy: the next partition is chosen when the device frees).
class UrgentBoundary : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(UrgentBoundary, UrgentPartitionTakesTheDeviceAtTheNextBoundary) {
  Rig rig([](EngineOptions& o) {
    o.backend_queue_depth = 1;
    o.workers_per_device = GetParam();
  });
  rig.latches.backend.hold({"n0"});
  rig.latches.synthesis.hold({"n2"});
  auto n0 = rig.submit("n0", Priority::kNormal);
  ASSERT_TRUE(test::eventually([&] { return rig.latches.backend.reached("n0"); }));
  auto n1 = rig.submit("n1", Priority::kNormal);
  ASSERT_TRUE(test::eventually([&] { return rig.backend_queue() == 1; }));  // n1 fills the queue
  auto n2 = rig.submit("n2", Priority::kNormal);
  ASSERT_TRUE(test::eventually([&] { return rig.latches.synthesis.reached("n2"); }));
  auto n3 = rig.submit("n3", Priority::kNormal);
  ASSERT_TRUE(test::eventually([&] { return rig.sched_depth() == 1; }));  // both normal slots taken

  auto crit = rig.submit("crit", Priority::kCritical);
  ASSERT_TRUE(test::eventually([&] { return rig.backend_queue() == 2; }))  // past the bound
      << "the urgent partition is not waiting for the device";
  EXPECT_FALSE(rig.finished(crit));
  rig.latches.backend.release_all();  // n0's partition ends: the device goes to crit, then n1
  JobResult rc = rig.engine->wait(crit, 60s);
  ASSERT_EQ(rc.status, ResultStatus::kCompleted) << rc.error;
  JobResult r1 = rig.engine->wait(n1, 60s);
  ASSERT_EQ(r1.status, ResultStatus::kCompleted) << r1.error;
  JobResult r0 = rig.engine->wait(n0, 60s);
  ASSERT_EQ(r0.status, ResultStatus::kCompleted) << r0.error;
  EXPECT_LE(r0.partitions[0].backend_end, rc.partitions[0].backend_locked);
  EXPECT_LT(rc.partitions[0].backend_locked, r1.partitions[0].backend_locked)
      << "the NORMAL partition queued first got the device first";
  EXPECT_EQ(rig.engine->status().lane_partitions, 0u);
  rig.finish_all({n0, n1, n2, n3, crit});
}

INSTANTIATE_TEST_SUITE_P(Urgent, UrgentBoundary, ::testing::Values(1u, 2u));

// The only preparer busy with a NORMAL job (e.g. a PoRep C1's vanilla checks): a CRITICAL job is
// prepared by the preparer reserved for its level.
TEST(Urgent, UrgentJobIsPreparedWhileThePreparerIsBusy) {
  Rig rig;
  rig.latches.prepare.hold({"n0"});
  auto n0 = rig.submit("n0", Priority::kNormal);
  ASSERT_TRUE(test::eventually([&] { return rig.latches.prepare.reached("n0"); }));
  auto n1 = rig.submit("n1", Priority::kNormal);  // queued behind it
  auto crit = rig.submit("crit", Priority::kCritical);
  JobResult r = rig.engine->wait(crit, 60s);
  ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;
  EXPECT_FALSE(rig.finished(n0) || rig.finished(n1));
  EXPECT_FALSE(rig.latches.prepare.reached("n1"));
  rig.finish_all({n0, n1, crit});
}

// The only finalizer busy self-verifying a NORMAL job: a CRITICAL job is finalized by the
// finalizer reserved for urgent work.
TEST(Urgent, UrgentJobIsFinalizedWhileTheFinalizerIsBusy) {
  Rig rig;
  rig.latches.verify.hold({"n0"});
  auto n0 = rig.submit("n0", Priority::kNormal);
  ASSERT_TRUE(test::eventually([&] { return rig.latches.verify.reached("n0"); }));
  auto crit = rig.submit("crit", Priority::kCritical);
  JobResult r = rig.engine->wait(crit, 60s);
  ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;
  EXPECT_FALSE(rig.finished(n0));
  EXPECT_TRUE(rig.busy_in("finalize", "n0"));
  rig.finish_all({n0, crit});
}

// Memory: NORMAL partitions leave the urgent headroom free, so a CRITICAL partition finds its
// reservation while they hold everything else; the headroom is ignored by a lone partition.
TEST(Urgent, NormalPartitionsLeaveTheUrgentHeadroom) {
  std::uint64_t part = 0;
  {
    Rig probe;  // how much the budget has left once the key is resident
    part = (probe.engine->budget().total() - probe.engine->budget().used()) / 3 + 1;  // two fit, three do not
  }
  Rig rig([&](EngineOptions& o) {
    o.synthesis_workers = 3;
    o.urgent_memory_reserve = part;
    o.measure_partition_memory = false;  // reservations are exactly `part`
  });
  rig.latches.partition_bytes = part;
  rig.latches.synthesis.hold({"n0", "n1"});
  auto n0 = rig.submit("n0", Priority::kNormal);  // alone: the headroom does not apply
  ASSERT_TRUE(test::eventually([&] { return rig.latches.synthesis.reached("n0"); }));
  auto n1 = rig.submit("n1", Priority::kNormal);  // would fit, but not with the headroom kept
  ASSERT_TRUE(test::eventually([&] { return rig.sched_depth() == 1; }));
  EXPECT_FALSE(rig.latches.synthesis.reached("n1"));
  auto crit = rig.submit("crit", Priority::kCritical);
  JobResult r = rig.engine->wait(crit, 60s);
  ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;
  EXPECT_FALSE(rig.finished(n0) || rig.finished(n1));
  EXPECT_LE(rig.engine->budget().peak(), rig.engine->budget().total());
  rig.finish_all({n0, n1, crit});
}

// "auto": the headroom is learned from the urgent partitions prepared so far.
TEST(Urgent, AutoHeadroomIsTheLargestUrgentPartition) {
  Rig rig([](EngineOptions& o) {
    o.lane_devices = {0};
    o.lane_max_domain_log2 = 1;  // mulchain's domain is larger: urgent, not small
  });
  rig.latches.partition_bytes = 3u << 20;
  EXPECT_EQ(rig.engine->status().urgent_headroom_bytes[1], 0u);
  auto crit = rig.submit("crit", Priority::kHigh);
  ASSERT_EQ(rig.engine->wait(crit, 60s).status, ResultStatus::kCompleted);
  auto s = rig.engine->status();
  EXPECT_EQ(s.urgent_headroom_bytes[1], 3u << 20);
  EXPECT_EQ(s.urgent_headroom_bytes[2], 0u);
  EXPECT_EQ(s.lane_partitions, 0u);  // too large for the lane
}

// A queue full of unfinished NORMAL jobs does not refuse an urgent one.
TEST(Urgent, UrgentJobsAreAdmittedApart) {
  Rig rig([](EngineOptions& o) { o.max_active_jobs = 2; });
  rig.latches.prepare.hold({"n0"});
  auto n0 = rig.submit("n0", Priority::kNormal);
  auto n1 = rig.submit("n1", Priority::kNormal);
  ProofRequest r;
  r.request_id = "n2";
  r.proof_kind = kLatchKind;
  auto refused = rig.engine->submit(r);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), "too many unfinished jobs (2); try again later");
  auto crit = rig.submit("crit", Priority::kCritical);
  ASSERT_TRUE(crit);
  ASSERT_EQ(rig.engine->wait(crit, 60s).status, ResultStatus::kCompleted);
  rig.finish_all({n0, n1, crit});
}

// urgent_priority unset: HIGH and CRITICAL only go first, as before (no reserved capacity).
TEST(Urgent, OffMeansPriorityOrderOnly) {
  Rig rig([](EngineOptions& o) {
    o.urgent_priority.reset();
    o.urgent_memory_reserve = 64u << 20;  // kept for nothing, so ignored
    o.lane_devices = {0};                 // no lane without urgent work
  });
  EXPECT_EQ(rig.engine->status().urgent_headroom_bytes, (std::array<std::uint64_t, 3>{0, 0, 0}));
  EXPECT_EQ(rig.engine->status().lane, "");
  rig.latches.synthesis.hold({"n0"});
  auto n0 = rig.submit("n0", Priority::kNormal);
  ASSERT_TRUE(test::eventually([&] { return rig.latches.synthesis.reached("n0"); }));
  auto crit = rig.submit("crit", Priority::kCritical);
  ASSERT_TRUE(test::eventually([&] { return rig.sched_depth() == 1; }));  // waits for the slot
  EXPECT_FALSE(rig.latches.synthesis.reached("crit"));
  for (const auto& w : rig.engine->status().workers) EXPECT_FALSE(w.urgent) << w.stage_name();
  rig.finish_all({n0, crit});
}

// Cancelling NORMAL work held at every stage while urgent work passes it leaves exactly one result
// per job and no reservation.
TEST(Urgent, CancelWhileUrgentWorkPassesEndsEveryJobOnce) {
  Rig rig([](EngineOptions& o) { o.lane_devices = {0}; });
  rig.latches.backend.hold({"n0"});
  rig.latches.synthesis.hold({"n1"});
  auto n0 = rig.submit("n0", Priority::kNormal);
  ASSERT_TRUE(test::eventually([&] { return rig.latches.backend.reached("n0"); }));
  auto n1 = rig.submit("n1", Priority::kNormal);
  ASSERT_TRUE(test::eventually([&] { return rig.latches.synthesis.reached("n1"); }));
  std::vector<std::shared_ptr<Job>> crit;
  for (int i = 0; i < 5; ++i) crit.push_back(rig.submit("crit" + std::to_string(i), Priority::kCritical));
  EXPECT_TRUE(rig.engine->cancel("n1").was_running);
  for (auto& c : crit) ASSERT_EQ(rig.engine->wait(c, 60s).status, ResultStatus::kCompleted);
  EXPECT_TRUE(rig.engine->cancel("n0").was_running);
  rig.latches.release_all();
  EXPECT_EQ(rig.engine->wait(n0, 60s).status, ResultStatus::kCancelled);
  EXPECT_EQ(rig.engine->wait(n1, 60s).status, ResultStatus::kCancelled);
  EXPECT_TRUE(rig.engine->drain(10s));
  auto s = rig.engine->status();
  EXPECT_EQ(s.completed, 5u);
  EXPECT_EQ(s.cancelled, 2u);
  EXPECT_EQ(s.lane_partitions, 5u);
  EXPECT_TRUE(test::eventually([&] { return rig.engine->budget().used(MemoryBudget::kPartition) == 0; }));
}

// Where a key goes when loaded (key_placement): a copy on every device's main backend that proves
// from copies, the lane's too when the key fits the lane (any urgent partition of it may take the
// lane), and the decoded bases on the host when a slot that may prove it proves from host memory.
TEST(Urgent, KeyPlacementFollowsTheSlotsThatMayProveTheKey) {
  EngineOptions o;
  o.devices = {0, 1};
  LoadedKey big, small;
  big.pk.domain_log2 = 27;
  small.pk.domain_log2 = 19;
  auto cpu = make_cpu_executor();
  for (const LoadedKey* k : {&big, &small}) {
    auto p = key_placement(o, *cpu, *k);  // the CPU backend: host bases, no copies
    EXPECT_TRUE(p.host_bases);
    EXPECT_TRUE(p.copies.empty());
  }
  EXPECT_TRUE(may_decode_bases(o, *cpu));
  test::CopyExecutor gpu_cpu_lane({}), gpu_gpu_lane({false, 1u << 20, true});
  using Slots = std::vector<BackendSlot>;
  auto p = key_placement(o, gpu_cpu_lane, big);  // no lane: the devices' copies only
  EXPECT_FALSE(p.host_bases);
  EXPECT_EQ(p.copies, (Slots{{0, false}, {1, false}}));
  EXPECT_FALSE(may_decode_bases(o, gpu_cpu_lane));  // no key is decoded: loads reserve no decoded bases
  o.lane_devices = {0};
  EXPECT_TRUE(may_decode_bases(o, gpu_cpu_lane));  // a small key may be: reserved for every load
  EXPECT_FALSE(may_decode_bases(o, gpu_gpu_lane));
  p = key_placement(o, gpu_cpu_lane, big);  // too large for the lane
  EXPECT_FALSE(p.host_bases);
  EXPECT_EQ(p.copies, (Slots{{0, false}, {1, false}}));
  p = key_placement(o, gpu_cpu_lane, small);  // the CPU lane may prove it: host bases too
  EXPECT_TRUE(p.host_bases);
  EXPECT_EQ(p.copies, (Slots{{0, false}, {1, false}}));
  p = key_placement(o, gpu_gpu_lane, small);  // the GPU lane: its own copy
  EXPECT_FALSE(p.host_bases);
  EXPECT_EQ(p.copies, (Slots{{0, false}, {1, false}, {0, true}}));
  o.urgent_priority.reset();  // no urgent work: no lane
  p = key_placement(o, gpu_gpu_lane, small);
  EXPECT_EQ(p.copies, (Slots{{0, false}, {1, false}}));
}

}  // namespace
}  // namespace cuzk::engine
