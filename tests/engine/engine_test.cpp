// The engine end to end on the CPU backend: real generic-groth16 proofs from the snarkjs fixtures,
// and test kinds (gated or failing synthesis) for scheduling, cancellation and fault behaviour.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "engine/job.hpp"
#include "engine/kinds/builtin_kinds.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/snarkjs_wtns.hpp"
#include "groth16/verifier.hpp"
#include "server/status_render.hpp"
#include "groth16/prover.hpp"
#include "test_executor.hpp"
#include "test_kind.hpp"
#include "test_util.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
constexpr std::uint32_t kGeneric = static_cast<std::uint32_t>(ProofKind::kGenericGroth16);

const char* kCircuits[] = {"bits", "linear", "mulchain", "multi_public"};

void register_fixtures(Engine& e) {
  for (const char* c : kCircuits) ASSERT_TRUE(e.srs().register_zkey(c, test::zkey_of(c)));
}

ProofRequest generic_request(const std::string& circuit, const std::string& id = "", Priority prio = Priority::kNormal,
                             const char* witness = "witness.wtns") {
  ProofRequest r;
  r.request_id = id;
  r.proof_kind = kGeneric;
  r.priority = static_cast<std::uint32_t>(prio);
  r.circuit_id = circuit;
  r.witness_wtns = test::read_file(test::fixture(circuit, witness));
  return r;
}

// Checks a COMPLETED generic result against the fixture's verification key and public inputs.
void expect_valid_proof(const JobResult& r, const std::string& circuit) {
  ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;
  auto vk = formats::read_verification_key_json(test::fixture(circuit, "verification_key.json"));
  ASSERT_TRUE(vk) << vk.error();
  auto pub = formats::read_public_json(test::fixture(circuit, "public.json"));
  ASSERT_TRUE(pub) << pub.error();
  ASSERT_EQ(r.proof.size(), 192u);
  auto proof = groth16::Proof::from_bytes(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(r.proof.data()), r.proof.size()));
  ASSERT_TRUE(proof) << proof.error();
  // snarkjs' JSON key lacks beta_g1/delta_g1 (unused by verification).
  auto ok = groth16::verify(vk->vk, *pub, *proof);
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_TRUE(*ok) << circuit << ": the returned proof does not verify";
}

// ------------------------------------------------------------------------------------------------

// Issue 41 item 6: a witness the server opened when it checked the path is read through that
// descriptor, never by its name again (here the name no longer exists at all).
TEST(Engine, WitnessIsReadFromTheFileOpenedAtTheCheck) {
  Engine e(small_options());
  register_fixtures(e);
  ProofRequest r = generic_request("mulchain");
  r.witness_wtns.clear();
  r.witness_path = "/nonexistent/cuzk/witness.wtns";
  const int fd = ::open(test::fixture("mulchain", "witness.wtns").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  r.witness_file = std::make_shared<const OpenFile>(fd);
  expect_valid_proof(e.prove(r), "mulchain");
}

TEST(Engine, GenericProofsForEveryFixture) {
  Engine e(small_options());
  register_fixtures(e);
  for (const char* c : kCircuits) {
    JobResult r = e.prove(generic_request(c));
    expect_valid_proof(r, c);
    EXPECT_EQ(r.num_partitions, 1u);
    ASSERT_EQ(r.partitions.size(), 1u);
    const auto& t = r.partitions[0];
    EXPECT_TRUE(t.queued && t.dispatched && t.synth_start && t.synth_end && t.backend_start && t.backend_locked &&
                t.backend_end && t.finalize_start && t.finalize_end);
    EXPECT_LE(t.queued, t.dispatched);
    EXPECT_LE(t.dispatched, t.synth_start);
    EXPECT_LE(t.synth_end, t.backend_start);
    EXPECT_LE(t.backend_end, t.finalize_start);
    EXPECT_LE(t.finalize_end, r.completed);
    EXPECT_GE(t.synth_worker, 0);
    EXPECT_GE(t.backend_worker, 0);
    EXPECT_GE(t.finalizer, 0);
  }
  auto s = e.status();
  EXPECT_EQ(s.completed, 4u);
  EXPECT_EQ(s.failed, 0u);
  EXPECT_EQ(e.budget().used(MemoryBudget::kPartition), 0u);
  EXPECT_GT(e.budget().used(MemoryBudget::kSrs), 0u);  // keys stay resident
  EXPECT_LE(e.budget().peak(), e.budget().total());
}

// An executor whose backends prove from copies (the CUDA backend's model, issue 27): two devices share
// one SrsManager entry per key, each with its own copy; every partition is proved with the copy of
// the device its worker is on, status counts the copies' device memory, and evicting the key drops
// both copies. The host model is unchanged: partitions reserve less under kDevice.
TEST(Engine, TwoDevicesProveWithTheirOwnCopiesOfOneEntry) {
  auto ex = std::make_shared<test::CopyExecutor>(test::CopyExecutor::Options{false, 3u << 20});
  EngineOptions o = small_options();
  o.devices = {0, 1};
  o.workers_per_device = 1;
  o.executor = ex;
  Engine e(o);
  register_fixtures(e);
  std::vector<std::shared_ptr<Job>> jobs;
  for (int i = 0; i < 8; ++i) {
    auto s = e.submit(generic_request(i % 2 ? "bits" : "linear"));
    ASSERT_TRUE(s) << s.error();
    jobs.push_back(s->job);
  }
  for (int i = 0; i < 8; ++i) expect_valid_proof(e.wait(jobs[i]), i % 2 ? "bits" : "linear");
  EXPECT_EQ(ex->ledger->proofs_with_copy.load(), 8);
  EXPECT_EQ(ex->ledger->wrong_copy.load(), 0);
  EXPECT_EQ(ex->ledger->alive.load(), 4);  // two keys x two devices
  for (const SrsInfo& k : e.srs().list()) {
    if (k.id != "bits" && k.id != "linear") continue;
    EXPECT_EQ(k.tier, SrsTier::kDevice) << k.id;
    ASSERT_EQ(k.copies.size(), 2u) << k.id;
  }
  EXPECT_EQ(e.status().gpu_bytes, 4u * (3u << 20));
  Result<SrsManager::EvictOutcome> ev = Error{"not tried"};
  for (int i = 0; i < 200 && !(ev = e.srs().evict("bits")); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(ev) << ev.error();
  EXPECT_EQ(ex->ledger->alive.load(), 2);
  EXPECT_EQ(e.status().gpu_bytes, 2u * (3u << 20));
}

TEST(Engine, WitnessPathAndEmptyRequestIdGetsUuid) {
  Engine e(small_options());
  register_fixtures(e);
  ProofRequest r;
  r.proof_kind = kGeneric;
  r.circuit_id = "linear";
  r.witness_path = test::fixture("linear", "witness.wtns");
  auto s = e.submit(r);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->job_id.size(), 36u);
  EXPECT_EQ(s->job_id[14], '4');
  JobResult res = e.wait(s->job);
  expect_valid_proof(res, "linear");
  EXPECT_EQ(res.job_id, s->job_id);
}

// A client's witness_path naming a device, a FIFO or a /proc file fails that job with one line; the
// engine is not read into exhaustion (it used to read /dev/zero and /proc/self/pagemap to an end
// that never came and abort on bad_alloc) and serves the next job.
TEST(Engine, WitnessPathsThatAreNotRegularFilesFailTheJobOnly) {
  Engine e(small_options());
  register_fixtures(e);
  char dir_tmpl[] = "/tmp/cuzk-witness-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_tmpl), nullptr);
  const std::string fifo = std::string(dir_tmpl) + "/w.wtns";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {std::string("/dev/zero"), std::string("/proc/self/pagemap"), fifo}) {
    ProofRequest r;
    r.proof_kind = kGeneric;
    r.circuit_id = "linear";
    r.witness_path = path;
    JobResult res = e.prove(r);
    EXPECT_EQ(res.status, ResultStatus::kFailed) << path;
    EXPECT_NE(res.error.find(path), std::string::npos) << res.error;
    EXPECT_NE(res.error.find(path.rfind("/proc", 0) == 0 ? "too short" : "not a regular file"), std::string::npos)
        << res.error;
    EXPECT_EQ(res.error.find('\n'), std::string::npos) << res.error;
  }
  std::remove(fifo.c_str());
  ::rmdir(dir_tmpl);
  expect_valid_proof(e.prove(generic_request("linear")), "linear");
}

TEST(Engine, FiftyConcurrentMixedPriorityJobsEachGetExactlyOneResult) {
  Engine e(small_options());
  register_fixtures(e);
  constexpr int kJobs = 50;
  std::vector<std::shared_ptr<Job>> jobs(kJobs);
  std::vector<std::thread> submitters;
  const Priority prios[] = {Priority::kLow, Priority::kNormal, Priority::kHigh, Priority::kCritical};
  for (int t = 0; t < 5; ++t) {
    submitters.emplace_back([&, t] {
      for (int i = t; i < kJobs; i += 5) {
        const char* c = kCircuits[i % 4];
        auto s = e.submit(generic_request(c, "job-" + std::to_string(i), prios[(i / 4) % 4]));
        ASSERT_TRUE(s) << s.error();
        jobs[i] = s->job;
      }
    });
  }
  for (auto& t : submitters) t.join();
  std::vector<JobResult> results(kJobs);
  std::vector<std::thread> waiters;
  for (int i = 0; i < kJobs; ++i) {
    waiters.emplace_back([&, i] { results[i] = e.wait(jobs[i], 60s); });
  }
  for (auto& t : waiters) t.join();
  std::set<std::string> ids;
  for (int i = 0; i < kJobs; ++i) {
    expect_valid_proof(results[i], kCircuits[i % 4]);
    EXPECT_EQ(results[i].job_id, "job-" + std::to_string(i));
    ids.insert(results[i].job_id);
    // A second wait sees the very same result.
    JobResult again = e.wait(jobs[i], 1s);
    EXPECT_EQ(again.proof, results[i].proof);
    EXPECT_EQ(again.completed, results[i].completed);
  }
  EXPECT_EQ(ids.size(), std::size_t(kJobs));
  auto s = e.status();
  EXPECT_EQ(s.completed, std::uint64_t(kJobs));
  EXPECT_EQ(s.failed + s.cancelled, 0u);
  EXPECT_EQ(e.budget().used(MemoryBudget::kPartition), 0u);
  EXPECT_LE(e.budget().peak(), e.budget().total());
}

TEST(Engine, CriticalOvertakesQueuedNormalJobs) {
  EngineOptions o = small_options();
  o.synthesis_workers = 1;  // one job in synthesis at a time: the queue order decides
  o.prepare_workers = 1;
  o.urgent_priority.reset();  // no reserved capacity: the order alone (urgent_test.cpp has the rest)
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  c.gate_open = false;
  c.gated_jobs = {"n0"};
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  std::vector<std::shared_ptr<Job>> normal;
  auto s0 = e.submit(test_request("n0"));
  ASSERT_TRUE(s0);
  ASSERT_TRUE(test::eventually([&] { return c.in_synthesis.load() == 1; }));  // n0 holds the only worker
  for (int i = 1; i <= 5; ++i) {
    auto s = e.submit(test_request("n" + std::to_string(i)));
    ASSERT_TRUE(s);
    normal.push_back(s->job);
  }
  // Let the NORMAL jobs be prepared and queued as partitions before CRITICAL arrives.
  ASSERT_TRUE(test::eventually([&] { return e.status().sched_depth == 5; }));
  auto crit = e.submit(test_request("crit", Priority::kCritical));
  ASSERT_TRUE(crit);
  EXPECT_EQ(crit->queue_position, 6u);  // the five queued NORMAL jobs and n0 are unfinished
  ASSERT_TRUE(test::eventually([&] { return e.status().sched_depth == 6; }));
  c.open();
  JobResult rc = e.wait(crit->job, 30s);
  ASSERT_EQ(rc.status, ResultStatus::kCompleted) << rc.error;
  for (auto& j : normal) {
    JobResult rn = e.wait(j, 30s);
    ASSERT_EQ(rn.status, ResultStatus::kCompleted) << rn.error;
    EXPECT_LT(rc.completed, rn.completed) << "CRITICAL finished after NORMAL " << rn.job_id;
  }
  std::lock_guard<std::mutex> g(c.mu);
  ASSERT_GE(c.order.size(), 2u);
  EXPECT_EQ(c.order[0], "n0");
  EXPECT_EQ(c.order[1], "crit");
}

// Issue 41 item 4: a request's bytes are charged to the requests' slice of the budget from
// submission until its job ends; one that does not fit is refused with kResourceExhausted, and
// fits again once a job ends. The slice is held from the budget.
TEST(Engine, RequestBytesTakeTheirSliceUntilTheJobEndsAndWhatDoesNotFitIsRefused) {
  EngineOptions o = small_options();
  o.request_budget_bytes = 64u << 20;
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  c.gate_open = false;
  c.parse_bytes = 1u << 20;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  EXPECT_EQ(e.status().request_budget_bytes, 64u << 20);
  EXPECT_EQ(e.budget().used(MemoryBudget::kRequests), 64u << 20);  // the slice is part of the budget
  auto big = [](const std::string& id) {
    ProofRequest r = test_request(id);
    r.vanilla_proof.assign(30u << 20, 'x');
    return r;
  };
  auto r1 = e.submit(big("r1"));
  auto r2 = e.submit(big("r2"));
  ASSERT_TRUE(r1 && r2);
  EXPECT_GE(e.status().request_bytes, 60u << 20);
  auto r3 = e.submit(big("r3"));
  ASSERT_FALSE(r3);
  EXPECT_EQ(r3.code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(r3.error().find("memory.request_budget"), std::string::npos) << r3.error();
  EXPECT_NE(r3.error().find("30.00 MiB"), std::string::npos) << r3.error();
  c.open();
  ASSERT_EQ(e.wait(r1->job, 60s).status, ResultStatus::kCompleted);
  ASSERT_EQ(e.wait(r2->job, 60s).status, ResultStatus::kCompleted);
  // given back with the request, just after the result is published
  ASSERT_TRUE(test::eventually([&] { return e.status().request_bytes == 0; }));
  auto again = e.submit(big("r3"));
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(e.wait(again->job, 60s).status, ResultStatus::kCompleted);
}

// Issue 41 item 4: the kind's parse bound is reserved before prepare runs (prepare sees it held),
// waits while partitions hold the budget, and a bound above the whole budget fails the job at once.
TEST(Engine, ParseMemoryIsReservedBeforePrepareAndWaitsForRoom) {
  EngineOptions o = small_options();  // 256 MiB
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  c.gate_open = false;
  c.gated_jobs = {"holder"};
  c.partition_bytes = 200u << 20;
  c.parse_bytes = 100u << 20;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  auto holder = e.submit(test_request("holder"));
  ASSERT_TRUE(holder);
  ASSERT_TRUE(test::eventually([&] { return c.in_synthesis.load() == 1; }));  // 200 MiB held
  EXPECT_EQ(c.parse_seen.load(), 100u << 20);
  auto waiting = e.submit(test_request("waiting"));
  ASSERT_TRUE(waiting);
  ASSERT_TRUE(test::eventually([&] { return e.status().budget_waiters == 1; }));
  EXPECT_EQ(c.prepare_calls.load(), 1);  // not parsed: 200 + 100 MiB do not fit 256
  c.open();
  EXPECT_EQ(e.wait(holder->job, 60s).status, ResultStatus::kCompleted);
  EXPECT_EQ(e.wait(waiting->job, 60s).status, ResultStatus::kCompleted);
  EXPECT_EQ(c.prepare_calls.load(), 2);
  EXPECT_TRUE(test::eventually([&] { return e.budget().used(MemoryBudget::kParse) == 0; }));
  c.parse_bytes = 300u << 20;
  auto too_big = e.submit(test_request("too-big"));
  ASSERT_TRUE(too_big);
  const JobResult r = e.wait(too_big->job, 60s);
  EXPECT_EQ(r.status, ResultStatus::kFailed);
  EXPECT_NE(r.error.find("parsing the request needs 300.00 MiB of memory"), std::string::npos) << r.error;
  EXPECT_EQ(c.prepare_calls.load(), 2);
}

TEST(Engine, ArrivalOrderWithinAPriority) {
  EngineOptions o = small_options();
  o.synthesis_workers = 1;
  o.prepare_workers = 1;
  o.urgent_priority.reset();  // HIGH jobs would otherwise take the urgent slot at once
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  c.gate_open = false;
  c.gated_jobs = {"first"};
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  auto first = e.submit(test_request("first"));
  ASSERT_TRUE(test::eventually([&] { return c.in_synthesis.load() == 1; }));
  std::vector<std::shared_ptr<Job>> jobs;
  const Priority prios[] = {Priority::kLow,  Priority::kHigh, Priority::kNormal,
                            Priority::kHigh, Priority::kLow,  Priority::kNormal};
  for (int i = 0; i < 6; ++i) jobs.push_back(e.submit(test_request("j" + std::to_string(i), prios[i]))->job);
  ASSERT_TRUE(test::eventually([&] { return e.status().sched_depth == 6; }));
  c.open();
  for (auto& j : jobs) ASSERT_EQ(e.wait(j, 30s).status, ResultStatus::kCompleted);
  std::lock_guard<std::mutex> g(c.mu);
  EXPECT_EQ(c.order, (std::vector<std::string>{"first", "j1", "j3", "j2", "j5", "j0", "j4"}));
}

TEST(Engine, CancelMidSynthesisFreesItsReservation) {
  Engine e(small_options());
  register_fixtures(e);
  TestKindControl c;
  c.spin_until_cancelled = true;
  c.partition_bytes = 100u << 20;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  auto s = e.submit(test_request("victim"));
  ASSERT_TRUE(s);
  ASSERT_TRUE(test::eventually([&] { return c.in_synthesis.load() == 1; }));
  EXPECT_EQ(e.budget().used(MemoryBudget::kPartition), 100u << 20);
  auto st = e.status();
  EXPECT_EQ(st.jobs_running, 1u);

  auto out = e.cancel("victim");
  EXPECT_TRUE(out.found);
  EXPECT_TRUE(out.was_running);
  JobResult r = e.wait(s->job, 5s);
  EXPECT_EQ(r.status, ResultStatus::kCancelled);
  EXPECT_EQ(r.error, "cancelled by request");
  ASSERT_TRUE(test::eventually([&] { return e.budget().used(MemoryBudget::kPartition) == 0; }));
  ASSERT_TRUE(test::eventually([&] { return c.in_synthesis.load() == 0; }));
  // A second cancel finds the job but it is no longer running.
  auto again = e.cancel("victim");
  EXPECT_TRUE(again.found);
  EXPECT_FALSE(again.was_running);
  EXPECT_FALSE(e.cancel("never-existed").found);
  // The worker is free again.
  c.spin_until_cancelled = false;
  expect_valid_proof(e.prove(generic_request("mulchain")), "mulchain");
  EXPECT_EQ(e.status().cancelled, 1u);
}

// A backend whose start() runs Control::steps_per_call steps of 20 ms, checking the cancellation
// between them as the real backends do between their transforms and MSMs; or throws, when told to.
class SteppingBackend final : public groth16::Backend {
 public:
  struct Control {
    explicit Control(int n) : steps_per_call(n) {}
    std::atomic<int> steps_per_call;
    std::atomic<int> steps{0}, started{0};
    std::atomic<bool> throw_now{false};
  };
  explicit SteppingBackend(std::shared_ptr<Control> c) : c_(std::move(c)) {}
  std::string name() const override { return "stepping"; }
  using groth16::Backend::start;
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, std::span<const math::Fr> w,
                                      const groth16::ProvingKey& key) override {
    if (c_->throw_now) throw std::runtime_error("device fell off the bus");
    c_->started++;
    const auto cancelled = cancel_check();
    for (int i = 0, n = c_->steps_per_call; i < n; ++i) {
      if (cancelled()) return Error{"cancelled"};
      std::this_thread::sleep_for(20ms);
      c_->steps++;
    }
    return cpu_->start(shape, w, key);
  }

 private:
  std::shared_ptr<Control> c_;
  std::unique_ptr<groth16::Backend> cpu_ = groth16::make_cpu_backend();
};

TEST(Engine, CancelReachesInsideTheBackendAndFreesTheReservationWithinAStep) {
  EngineOptions o = small_options();
  auto ctl = std::make_shared<SteppingBackend::Control>(500);  // 10 s uncancelled
  o.executor = test::factory_executor([ctl](BackendSlot) { return std::make_unique<SteppingBackend>(ctl); });
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  c.partition_bytes = 100u << 20;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  auto s = e.submit(test_request("victim"));
  ASSERT_TRUE(s);
  ASSERT_TRUE(test::eventually([&] { return ctl->steps.load() >= 5; }));  // inside the backend call
  ASSERT_EQ(e.budget().used(MemoryBudget::kPartition), 100u << 20);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(e.cancel("victim").was_running);
  EXPECT_EQ(e.wait(s->job, 5s).status, ResultStatus::kCancelled);
  ASSERT_TRUE(test::eventually([&] { return e.budget().used(MemoryBudget::kPartition) == 0; }));
  const auto freed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(freed_ms, 500) << "the reservation came back " << freed_ms << " ms after the cancel (a step is 20 ms)";
  EXPECT_LT(ctl->steps.load(), 100);
  // The backend worker is free for the next job, which runs every step and verifies.
  const int before = ctl->steps.load();
  ctl->steps_per_call = 5;
  expect_valid_proof(e.prove(generic_request("mulchain")), "mulchain");
  EXPECT_EQ(ctl->steps.load(), before + 5);
}

// An exception anywhere in a job (the kind's prepare, synthesis or verify, or the backend) fails that
// job with one line naming what was thrown; the process and the engine's workers live on.
TEST(Engine, ExceptionsInEveryStageFailTheJobOnly) {
  EngineOptions o = small_options();
  auto ctl = std::make_shared<SteppingBackend::Control>(0);
  o.executor = test::factory_executor([ctl](BackendSlot) { return std::make_unique<SteppingBackend>(ctl); });
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  struct Case {
    const char* stage;
    const char* message;
  };
  const Case cases[] = {
      {"prepare", "prepare: out of memory (std::bad_alloc)"},
      {"synthesis", "partition 0 synthesis failed: unexpected exception: vector too long"},
      {"backend", "partition 0 backend (stepping) failed: unexpected exception: device fell off the bus"},
      {"verify", "self-verification: unexpected exception of unknown type"},
  };
  int n = 0;
  for (const Case& k : cases) {
    c.throw_in = k.stage;
    ctl->throw_now = std::string(k.stage) == "backend";
    JobResult r = e.prove(test_request("throws-" + std::to_string(n++)));
    EXPECT_EQ(r.status, ResultStatus::kFailed) << k.stage;
    EXPECT_EQ(r.error, k.message) << k.stage;
    c.throw_in.clear();
    ctl->throw_now = false;
    // Every worker is still there: a clean job right after proves.
    JobResult ok = e.prove(test_request("clean-" + std::to_string(n)));
    EXPECT_EQ(ok.status, ResultStatus::kCompleted) << "after a throw in " << k.stage << ": " << ok.error;
  }
  EXPECT_EQ(e.status().failed, 4u);
  EXPECT_EQ(e.budget().used(MemoryBudget::kPartition), 0u);
}

// Issue 28's priority rule on the CPU-like executor: CRITICAL and HIGH jobs submitted behind 20
// queued NORMAL jobs (2 partitions of 200 ms each on the one device: 8 s of work) finish first, each
// within one running partition's time plus its own.
TEST(Engine, UrgentJobsBehindTwentyQueuedNormalOnesWaitAtMostOnePartition) {
  EngineOptions o = small_options();
  auto ctl = std::make_shared<SteppingBackend::Control>(10);  // 200 ms a partition
  o.executor = test::factory_executor([ctl](BackendSlot) { return std::make_unique<SteppingBackend>(ctl); });
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  c.partitions = 2;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  std::vector<std::shared_ptr<Job>> normal;
  for (int i = 0; i < 20; ++i) normal.push_back(e.submit(test_request("normal-" + std::to_string(i)))->job);
  ASSERT_TRUE(test::eventually([&] { return ctl->started.load() >= 1; }));
  constexpr auto kPartition = 200ms;
  for (Priority p : {Priority::kCritical, Priority::kHigh}) {
    const std::string id = std::string("urgent-") + priority_name(p);
    const auto t0 = std::chrono::steady_clock::now();
    auto s = e.submit(test_request(id, p));
    ASSERT_TRUE(s);
    JobResult r = e.wait(s->job, 30s);
    const auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;
    // One running partition, then its own two (the urgent job's partitions run back to back).
    EXPECT_LT(took, kPartition + 2 * kPartition + 400ms)
        << id << " took " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
    int normal_done = 0;
    for (auto& j : normal) normal_done += j->current_result() ? 1 : 0;
    EXPECT_LE(normal_done, 4) << id << " finished after " << normal_done << " NORMAL jobs";
  }
  for (auto& j : normal) EXPECT_EQ(e.wait(j, 60s).status, ResultStatus::kCompleted);
}

TEST(Engine, CancelQueuedJobDropsItsPartitions) {
  EngineOptions o = small_options();
  o.synthesis_workers = 1;
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  c.gate_open = false;
  c.gated_jobs = {"blocker"};
  c.partitions = 4;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  auto blocker = e.submit(test_request("blocker"));
  ASSERT_TRUE(test::eventually([&] { return c.in_synthesis.load() == 1; }));
  auto queued = e.submit(test_request("queued"));
  ASSERT_TRUE(test::eventually([&] { return e.status().sched_depth >= 4 + 3; }));
  EXPECT_TRUE(e.cancel("queued").was_running);
  EXPECT_EQ(e.wait(queued->job, 5s).status, ResultStatus::kCancelled);
  EXPECT_EQ(e.status().sched_depth, 3u);  // only the blocker's remaining partitions
  c.open();
  JobResult r = e.wait(blocker->job, 30s);
  ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;
  EXPECT_EQ(r.proof.size(), 4u * 192u);
  EXPECT_EQ(c.synth_calls.load(), 4);  // the cancelled job never reached synthesis
  ASSERT_TRUE(test::eventually([&] { return e.budget().used(MemoryBudget::kPartition) == 0; }));
}

TEST(Engine, DuplicateRequestIdJoinsInsteadOfDoublingWork) {
  Engine e(small_options());
  register_fixtures(e);
  TestKindControl c;
  c.gate_open = false;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  auto a = e.submit(test_request("porep-1000-7"));
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->joined);
  ASSERT_TRUE(test::eventually([&] { return c.in_synthesis.load() == 1; }));
  auto b = e.submit(test_request("porep-1000-7"));
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->joined);
  EXPECT_EQ(a->job, b->job);
  // The same id with different content is another job (the next test), never merged.
  ProofRequest other = test_request("porep-1000-7");
  other.sector_number = 99;
  auto second = e.submit(other);
  ASSERT_TRUE(second) << second.error();
  EXPECT_FALSE(second->joined);
  EXPECT_NE(second->job, a->job);
  c.open();
  JobResult ra = e.wait(a->job, 30s), rb = e.wait(b->job, 30s);
  ASSERT_EQ(ra.status, ResultStatus::kCompleted) << ra.error;
  EXPECT_EQ(ra.proof, rb.proof);
  ASSERT_EQ(e.wait(second->job, 30s).status, ResultStatus::kCompleted);
  // A retry after completion returns the stored result without proving again.
  auto c2 = e.submit(test_request("porep-1000-7"));
  ASSERT_TRUE(c2);
  EXPECT_TRUE(c2->joined);
  EXPECT_EQ(e.wait(c2->job, 1s).proof, ra.proof);
  EXPECT_EQ(c.synth_calls.load(), 2);
  EXPECT_EQ(e.status().completed, 2u);
}

// Curio sends every WindowPoSt partition of a miner's deadline under one request_id
// (wdpost-<miner>-0-<randomness[:8] as %d>), each with other sectors (issue 38). A job is its
// request_id and its content: each content is proved on its own, under request_id@<content tag>
// while the plain id is taken, and a retry of either joins its own job.
TEST(Engine, SameIdWithOtherContentIsAJobOfItsOwn) {
  Engine e(small_options());
  register_fixtures(e);
  TestKindControl c;
  c.gate_open = false;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  const std::string id = "wdpost-1000-0-[12 34 56 78 90 21 43 65]";
  auto partition = [&](std::uint64_t sector) {
    ProofRequest r = test_request(id, Priority::kHigh);
    r.sector_number = sector;
    return r;
  };
  auto tagged = [&](std::uint64_t sector) { return id + "@" + content_tag(partition(sector).content_digest()); };
  // Concurrently: both partitions run, each under its own job id.
  auto p1 = e.submit(partition(1));
  auto p2 = e.submit(partition(2));
  ASSERT_TRUE(p1 && p2);
  EXPECT_EQ(p1->job_id, id);
  EXPECT_EQ(p2->job_id, tagged(2));
  EXPECT_EQ(p2->job_id.size(), id.size() + 9);  // "@" and 8 hex digits
  EXPECT_FALSE(p1->joined || p2->joined);
  // Retries (Curio's task retries) join their own job, whichever id it has.
  auto r1 = e.submit(partition(1)), r2 = e.submit(partition(2));
  ASSERT_TRUE(r1 && r2);
  EXPECT_TRUE(r1->joined && r2->joined);
  EXPECT_EQ(r1->job, p1->job);
  EXPECT_EQ(r2->job, p2->job);
  EXPECT_EQ(e.find(tagged(2)), p2->job);
  c.open();
  JobResult a = e.wait(p1->job, 30s), b = e.wait(p2->job, 30s);
  ASSERT_EQ(a.status, ResultStatus::kCompleted) << a.error;
  ASSERT_EQ(b.status, ResultStatus::kCompleted) << b.error;
  EXPECT_EQ(a.job_id, id);
  EXPECT_EQ(b.job_id, tagged(2));
  EXPECT_NE(a.proof, b.proof);
  // One after the other: a third partition while the first two's results are kept.
  JobResult third = e.prove(partition(3));
  ASSERT_EQ(third.status, ResultStatus::kCompleted) << third.error;
  EXPECT_EQ(third.job_id, tagged(3));
  EXPECT_EQ(c.sectors, (std::multiset<std::uint64_t>{1, 2, 3}));  // each content synthesized once
  // A retry after completion reads its own stored result.
  auto late = e.submit(partition(2));
  ASSERT_TRUE(late);
  EXPECT_TRUE(late->joined);
  EXPECT_EQ(e.wait(late->job, 1s).proof, b.proof);
  EXPECT_EQ(e.status().completed, 3u);
}

// A request_id may itself look like a tagged id: a job never joins another's by id alone, so a
// content whose tagged id is taken by a different request takes the next one (@tag-2).
TEST(Engine, TaggedIdTakenByAnotherRequestIsSkipped) {
  Engine e(small_options());
  register_fixtures(e);
  TestKindControl c;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  ProofRequest a = test_request("snap-1000-5"), b = test_request("snap-1000-5");
  a.sector_number = 5;
  b.sector_number = 6;
  const std::string b_tagged = "snap-1000-5@" + content_tag(b.content_digest());
  ProofRequest squatter = test_request(b_tagged);
  squatter.sector_number = 7;
  ASSERT_EQ(e.prove(squatter).status, ResultStatus::kCompleted);
  ASSERT_EQ(e.prove(a).status, ResultStatus::kCompleted);
  JobResult rb = e.prove(b);
  ASSERT_EQ(rb.status, ResultStatus::kCompleted) << rb.error;
  EXPECT_EQ(rb.job_id, b_tagged + "-2");
  auto again = e.submit(b);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->joined);
  EXPECT_EQ(again->job_id, b_tagged + "-2");
  EXPECT_EQ(c.sectors, (std::multiset<std::uint64_t>{5, 6, 7}));
}

// A Prove call that waits for a deadline-bound job (WindowPoSt, WinningPoSt) and is cancelled by
// its caller, with nobody else waiting, cancels the job: its proof is worth nothing after the
// deadline (issue 38, scheduler.cancel_abandoned). Other callers, SubmitProof, other kinds and
// ends that are not the caller's leaving keep it running.
TEST(Engine, AbandonedDeadlineJobIsCancelled) {
  EngineOptions o = small_options();
  o.cancel_abandoned = std::vector<std::uint32_t>{kTestKind};
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  c.gate_open = false;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  const SubmitOptions waiting{Follow::kWaiting};
  auto req = [](const std::string& id, std::uint64_t sector) {
    ProofRequest r = test_request(id, Priority::kCritical);
    r.sector_number = sector;
    return r;
  };

  // Alone: cancelled at once, with the reason; its synthesis stops at its next check.
  auto lone = e.submit(req("winpost-1000-00aa11bb22cc33dd", 1), waiting);
  ASSERT_TRUE(lone);
  ASSERT_TRUE(test::eventually([&] { return c.in_synthesis.load() == 1; }));
  EXPECT_TRUE(e.release_waiter(lone->job, /*caller_left=*/true));
  JobResult r = e.wait(lone->job, 5s);
  EXPECT_EQ(r.status, ResultStatus::kCancelled);
  EXPECT_NE(r.error.find("abandoned"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("scheduler.cancel_abandoned"), std::string::npos) << r.error;
  ASSERT_TRUE(test::eventually([&] { return c.in_synthesis.load() == 0; }));
  // The same request again (a retry) runs it again rather than joining the cancelled run.
  auto retry = e.submit(req("winpost-1000-00aa11bb22cc33dd", 1), waiting);
  ASSERT_TRUE(retry);
  EXPECT_FALSE(retry->joined);

  // Two waiters: the first leaving keeps it; the second leaving cancels it.
  auto w1 = e.submit(req("wdpost-1000-0-[1 2 3 4 5 6 7 8]", 2), waiting);
  auto w2 = e.submit(req("wdpost-1000-0-[1 2 3 4 5 6 7 8]", 2), waiting);
  ASSERT_TRUE(w1 && w2);
  EXPECT_TRUE(w2->joined);
  EXPECT_FALSE(e.release_waiter(w1->job, true));
  EXPECT_FALSE(Engine::result_of(w1->job));
  EXPECT_TRUE(e.release_waiter(w2->job, true));
  EXPECT_EQ(e.wait(w1->job, 5s).status, ResultStatus::kCancelled);

  // An AwaitProof waiter counts as one too.
  auto w3 = e.submit(req("wdpost-1000-0-[9 9 9 9 9 9 9 9]", 3), waiting);
  ASSERT_TRUE(w3);
  e.add_waiter(w3->job);
  EXPECT_FALSE(e.release_waiter(w3->job, true));
  EXPECT_FALSE(Engine::result_of(w3->job));

  // A SubmitProof job (fetched later) is never cancelled this way, even when a Prove joins it.
  auto sub = e.submit(req("wdpost-1000-0-[5 5 5 5 5 5 5 5]", 4));
  auto joined = e.submit(req("wdpost-1000-0-[5 5 5 5 5 5 5 5]", 4), waiting);
  ASSERT_TRUE(sub && joined);
  EXPECT_FALSE(e.release_waiter(joined->job, true));
  // A wait that ends without the caller leaving (its result, a timeout of its own) cancels nothing.
  auto kept = e.submit(req("winpost-1000-1111111111111111", 5), waiting);
  ASSERT_TRUE(kept);
  EXPECT_FALSE(e.release_waiter(kept->job, /*caller_left=*/false));

  c.open();
  for (auto* s : {&retry, &w3, &sub, &kept}) {
    JobResult done = e.wait((*s)->job, 30s);
    EXPECT_EQ(done.status, ResultStatus::kCompleted) << done.job_id << ": " << done.error;
  }
  EXPECT_FALSE(e.release_waiter(w3->job, true));  // the last AwaitProof leaving a finished job: nothing
  EXPECT_EQ(e.status().cancelled, 2u);
}

// The default is data: the kinds whose row is deadline_bound (the two PoSt kinds); a kind without
// it (here the test kind, PoRep and SnapDeals in the daemon) keeps running so that the caller's
// retry picks up the stored result.
TEST(Engine, AbandonedJobOfAKindNotDeadlineBoundKeepsRunning) {
  EngineOptions o = small_options();
  EXPECT_EQ(o.kinds.deadline_bound(), (std::vector<std::uint32_t>{std::uint32_t(ProofKind::kWindowPoSt),
                                                                  std::uint32_t(ProofKind::kWinningPoSt)}));
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  c.gate_open = false;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  auto porep = e.submit(test_request("porep-1000-9"), {Follow::kWaiting});
  ASSERT_TRUE(porep);
  EXPECT_FALSE(e.release_waiter(porep->job, true));
  c.open();
  auto retry = e.submit(test_request("porep-1000-9"), {Follow::kWaiting});
  ASSERT_TRUE(retry);
  EXPECT_TRUE(retry->joined);
  EXPECT_EQ(e.wait(retry->job, 30s).status, ResultStatus::kCompleted);
  EXPECT_EQ(c.synth_calls.load(), 1);
}

// A caller at its job limit is answered only when its request joins a job (join_only).
TEST(Engine, JoinOnlyJoinsOrSaysNotFound) {
  Engine e(small_options());
  register_fixtures(e);
  TestKindControl c;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  auto none = e.submit(test_request("porep-1000-10"), {Follow::kLater, /*join_only=*/true});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.code(), ErrorCode::kNotFound);
  ASSERT_EQ(e.prove(test_request("porep-1000-10")).status, ResultStatus::kCompleted);
  auto stored = e.submit(test_request("porep-1000-10"), {Follow::kLater, true});
  ASSERT_TRUE(stored);
  EXPECT_TRUE(stored->joined);
}

// A failed or cancelled run is retried under the same request_id, with a corrected payload (issue
// 28: Curio's ids are deterministic) or the same one; until then the old result stays readable. A
// completed job keeps its id (other content then gets request_id@<tag>).
TEST(Engine, FailedOrCancelledRunIsRetriedUnderTheSameId) {
  Engine e(small_options());
  register_fixtures(e);
  TestKindControl c;
  c.fail_partition = 0;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  JobResult r1 = e.prove(test_request("porep-1000-8"));
  ASSERT_EQ(r1.status, ResultStatus::kFailed);
  auto old = e.find("porep-1000-8");
  ASSERT_TRUE(old);
  EXPECT_EQ(Engine::result_of(old)->status, ResultStatus::kFailed);  // readable until resubmitted
  c.fail_partition = -1;
  ProofRequest corrected = test_request("porep-1000-8");
  corrected.sector_number = 8;  // a different payload
  auto s = e.submit(corrected);
  ASSERT_TRUE(s) << s.error();
  EXPECT_FALSE(s->joined);
  EXPECT_EQ(e.wait(s->job, 30s).status, ResultStatus::kCompleted);
  ProofRequest third = test_request("porep-1000-8");
  third.sector_number = 9;
  auto other = e.submit(third);  // completed: the id is kept; other content is a job of its own
  ASSERT_TRUE(other) << other.error();
  EXPECT_FALSE(other->joined);
  EXPECT_EQ(other->job_id, "porep-1000-8@" + content_tag(third.content_digest()));
  EXPECT_EQ(e.wait(other->job, 30s).status, ResultStatus::kCompleted);
  EXPECT_EQ(Engine::result_of(e.find("porep-1000-8"))->status, ResultStatus::kCompleted);

  {
    std::lock_guard<std::mutex> g(c.mu);
    c.gate_open = false;
  }
  auto run = e.submit(test_request("snap-1000-3"));
  ASSERT_TRUE(run);
  ASSERT_TRUE(test::eventually([&] { return c.in_synthesis.load() == 1; }));
  EXPECT_TRUE(e.cancel("snap-1000-3").was_running);
  EXPECT_EQ(e.wait(run->job, 30s).status, ResultStatus::kCancelled);
  c.open();
  auto s2 = e.submit(test_request("snap-1000-3"));  // the same payload again
  ASSERT_TRUE(s2) << s2.error();
  EXPECT_FALSE(s2->joined);
  EXPECT_EQ(e.wait(s2->job, 30s).status, ResultStatus::kCompleted);
}

TEST(Engine, FailedPartitionFailsTheJobOnceAndCancelsSiblings) {
  EngineOptions o = small_options();
  o.synthesis_workers = 1;
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  c.partitions = 6;
  c.fail_partition = 1;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  JobResult r = e.prove(test_request("doomed"));
  EXPECT_EQ(r.status, ResultStatus::kFailed);
  EXPECT_EQ(r.error, "partition 1 synthesis failed: injected failure");
  EXPECT_TRUE(r.proof.empty());
  ASSERT_TRUE(test::eventually([&] { return e.budget().used(MemoryBudget::kPartition) == 0; }));
  EXPECT_LE(c.synth_calls.load(), 3);  // partitions after the failure were dropped, not synthesized
  auto s = e.status();
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(s.completed, 0u);
  EXPECT_EQ(s.sched_depth, 0u);
}

TEST(Engine, MultiPartitionProofsAssembleInOrder) {
  Engine e(small_options());
  register_fixtures(e);
  TestKindControl c;
  c.partitions = 5;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  JobResult r = e.prove(test_request("five"));
  ASSERT_EQ(r.status, ResultStatus::kCompleted) << r.error;
  EXPECT_EQ(r.proof.size(), 5u * 192u);
  ASSERT_EQ(r.partitions.size(), 5u);
  for (std::uint32_t i = 0; i < 5; ++i) EXPECT_EQ(r.partitions[i].index, i);
  auto proofs = groth16::split_proofs(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(r.proof.data()), r.proof.size()));
  ASSERT_TRUE(proofs);
  EXPECT_EQ(proofs->size(), 5u);
  EXPECT_GE(r.gpu_compute_ms, 0u);
}

TEST(Engine, MalformedRequestsFailWithClearMessagesAndTheEngineKeepsServing) {
  Engine e(small_options());
  register_fixtures(e);
  auto expect_failed = [&](ProofRequest r, const std::string& needle) {
    JobResult res = e.prove(std::move(r));
    EXPECT_EQ(res.status, ResultStatus::kFailed) << needle;
    EXPECT_NE(res.error.find(needle), std::string::npos) << "expected \"" << needle << "\"; error was: " << res.error;
  };
  ProofRequest r;
  r.proof_kind = 7;
  expect_failed(r, "unknown proof_kind 7");
  r.proof_kind = 0;
  expect_failed(r, "unknown proof_kind 0");

  ProofRequest porep;
  porep.proof_kind = 1;
  // PoRep C1s are parsed strictly (porep::parse_c1_any); the error names the format and the field.
  // (tests/engine/porep_kind_test.cpp proves a real one and refuses one that fails the vanilla checks.)
  expect_failed(porep, "porep-c2: vanilla_proof is empty");
  porep.vanilla_proof = "garbage\x01\x02";
  expect_failed(porep, "porep-c2: vanilla_proof: bincode: ");
  porep.vanilla_proof = R"({"SectorNum":1,"SectorSize":2048})";
  expect_failed(porep, "porep-c2: vanilla_proof: Curio wrapper JSON: (document): missing field 'Phase1Out'");
  porep.vanilla_proof = R"({"SectorNum":1,"Phase1Out":"!!!!","SectorSize":2048})";
  expect_failed(porep, "porep-c2: vanilla_proof: Curio wrapper JSON: Phase1Out: base64: invalid character '!'");
  porep.vanilla_proof = R"({"SectorNum":1,"Phase1Out":"eyJhIjoxfQ==","SectorSize":2048})";
  expect_failed(porep, "porep-c2: vanilla_proof: Curio wrapper JSON: Phase1Out: a: unknown field");

  ProofRequest win;
  win.proof_kind = 4;
  win.randomness = "short";
  expect_failed(win, "winning-post: randomness must be 32 bytes, got 5");
  win.randomness = std::string(32, '\0');
  expect_failed(win, "vanilla_proofs is empty");
  win.vanilla_proofs = {"x"};
  expect_failed(win, "winning-post: vanilla_proofs[0]: ");
  // (tests/engine/post_kind_test.cpp proves real PoSt jobs and refuses each malformed field.)

  ProofRequest wpost;
  wpost.proof_kind = 3;
  wpost.randomness = std::string(32, '\1');
  wpost.vanilla_proofs = {"x"};
  expect_failed(wpost, "window-post: registered_proof 0 is StackedDrgWinning2KiBV1, a winning-post proof");

  ProofRequest snap;
  snap.proof_kind = 2;
  snap.vanilla_proofs = {"p"};
  snap.comm_r_old = std::string(32, 'a');
  snap.comm_r_new = std::string(31, 'b');
  expect_failed(snap, "snap-update: comm_r_new must be 32 bytes, got 31");
  snap.comm_r_new = std::string(32, 'b');
  snap.comm_d_new = std::string(32, 'c');
  expect_failed(snap, "snap-update: vanilla_proofs[0]");
  // (tests/engine/snap_kind_test.cpp proves real SnapDeals jobs and refuses each malformed field.)

  ProofRequest g = generic_request("mulchain");
  g.circuit_id = "no-such-circuit";
  expect_failed(g, "unknown circuit id \"no-such-circuit\"");
  g = generic_request("mulchain");
  g.witness_wtns = "definitely not a witness";
  expect_failed(g, "bad magic");
  g.witness_wtns = test::read_file(test::fixture("mulchain", "witness.wtns")).substr(0, 100);
  expect_failed(g, "generic-groth16:");  // truncated .wtns
  g = generic_request("mulchain");
  g.witness_wtns = test::read_file(test::fixture("bits", "witness.wtns"));
  expect_failed(g, "the witness has 141 values but circuit \"mulchain\" has 203 variables");
  g = generic_request("mulchain");
  g.witness_path = "/also/set";
  expect_failed(g, "give exactly one of witness_wtns");
  g = generic_request("mulchain");
  g.circuit_id.clear();
  expect_failed(g, "circuit_id is empty");
  // A witness of the right size that does not satisfy the circuit: caught by the self-check.
  {
    auto w = formats::read_wtns(test::fixture("mulchain", "witness.wtns"));
    ASSERT_TRUE(w);
    (*w)[5] = (*w)[5] + math::Fr::one();
    std::string path = ::testing::TempDir() + "/tampered.wtns";
    ASSERT_TRUE(formats::write_wtns(path, *w));
    ProofRequest t = generic_request("mulchain");
    t.witness_wtns = test::read_file(path);
    expect_failed(t, "self-check failed: the witness does not satisfy circuit \"mulchain\"");
  }
  auto s = e.status();
  EXPECT_EQ(s.completed, 0u);
  EXPECT_GE(s.failed, 18u);
  // Still serving.
  expect_valid_proof(e.prove(generic_request("bits")), "bits");
  EXPECT_EQ(e.budget().used(MemoryBudget::kPartition), 0u);
}

TEST(Engine, BudgetHoldsWhenSubmissionsOutnumberIt) {
  // Room for two partitions at a time; forty jobs.
  EngineOptions o = small_options();
  Engine probe(o);
  register_fixtures(probe);
  ASSERT_TRUE(probe.srs().preload("mulchain"));
  const std::uint64_t key = probe.srs().loaded_bytes();
  o.memory_budget_bytes = 3 * key + 2 * (8u << 20);
  o.partition_memory_factor = 1.0;
  o.synthesis_workers = 4;
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  c.partition_bytes = 8u << 20;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  std::atomic<bool> done{false};
  std::uint64_t max_partitions = 0;
  std::thread sampler([&] {
    while (!done) {
      max_partitions = std::max(max_partitions, e.budget().used(MemoryBudget::kPartition));
      std::this_thread::sleep_for(200us);
    }
  });
  std::vector<std::shared_ptr<Job>> jobs;
  for (int i = 0; i < 40; ++i) jobs.push_back(e.submit(test_request("b" + std::to_string(i)))->job);
  for (auto& j : jobs) ASSERT_EQ(e.wait(j, 60s).status, ResultStatus::kCompleted);
  done = true;
  sampler.join();
  EXPECT_LE(e.budget().peak(), e.budget().total());
  // Two full partitions, plus the small after-start remainders of partitions still finalizing.
  EXPECT_LE(max_partitions, 2u * (8u << 20) + 4 * 4096u);
  EXPECT_EQ(e.budget().used(MemoryBudget::kPartition), 0u);
}

TEST(Engine, PartitionLargerThanTheBudgetFailsInsteadOfHanging) {
  Engine e(small_options());
  register_fixtures(e);
  TestKindControl c;
  c.partition_bytes = 1ull << 40;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  JobResult r = e.prove(test_request("huge"));
  EXPECT_EQ(r.status, ResultStatus::kFailed);
  EXPECT_NE(r.error.find("but the whole memory budget is"), std::string::npos) << r.error;
}

TEST(Engine, AwaitTimeoutAndAbandon) {
  Engine e(small_options());
  register_fixtures(e);
  TestKindControl c;
  c.gate_open = false;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  auto s = e.submit(test_request("slow"));
  auto t0 = std::chrono::steady_clock::now();
  JobResult r = e.wait(s->job, 50ms);
  EXPECT_EQ(r.status, ResultStatus::kTimeout);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 50ms);
  std::atomic<bool> gone{true};
  EXPECT_EQ(e.wait(s->job, 0ms, [&] { return gone.load(); }).status, ResultStatus::kTimeout);
  // A timeout of 2^62 ms is no deadline (it used to overflow the clock and time out at once): the
  // waiter stays until its caller leaves.
  const auto polls = std::make_shared<std::atomic<int>>(0);
  JobResult huge = e.wait(s->job, std::chrono::milliseconds(std::int64_t(1) << 62), [polls] { return ++*polls > 3; });
  EXPECT_EQ(huge.status, ResultStatus::kTimeout);
  EXPECT_EQ(huge.error, "the caller stopped waiting");
  c.open();
  EXPECT_EQ(e.wait(s->job, 30s).status, ResultStatus::kCompleted);
}

TEST(Engine, ResultsExpireAfterTheirTtl) {
  EngineOptions o = small_options();
  o.result_ttl = 50ms;
  Engine e(o);
  register_fixtures(e);
  auto s = e.submit(generic_request("linear", "short-lived"));
  ASSERT_EQ(e.wait(s->job, 30s).status, ResultStatus::kCompleted);
  EXPECT_TRUE(test::eventually([&] { return e.find("short-lived") == nullptr; }, 3s));
}

TEST(Engine, ShutdownCancelsWhatIsLeftAndRefusesNewWork) {
  auto e = std::make_unique<Engine>(small_options());
  register_fixtures(*e);
  TestKindControl c;
  c.gate_open = false;
  e->register_kind(kTestKind, std::make_shared<TestKind>(c));
  std::vector<std::shared_ptr<Job>> jobs;
  for (int i = 0; i < 5; ++i) jobs.push_back(e->submit(test_request("s" + std::to_string(i)))->job);
  EXPECT_FALSE(e->drain(20ms));
  e->stop_accepting();
  auto refused = e->submit(generic_request("bits"));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("shutting down"), std::string::npos);
  e->shutdown();
  for (auto& j : jobs) {
    auto r = Engine::result_of(j);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, ResultStatus::kCancelled);
  }
  EXPECT_EQ(e->budget().used(MemoryBudget::kPartition), 0u);
  e.reset();
}

TEST(Engine, DrainWaitsForRunningJobs) {
  Engine e(small_options());
  register_fixtures(e);
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(e.submit(generic_request(kCircuits[i % 4])));
  e.stop_accepting();
  EXPECT_TRUE(e.drain(60s));
  EXPECT_EQ(e.status().completed, 6u);
}

TEST(Engine, StatusJsonAndMetrics) {
  std::vector<std::string> lines;
  std::mutex mu;
  EngineOptions o = small_options();
  o.timeline_sink = [&](const std::string& l) {
    std::lock_guard<std::mutex> g(mu);
    lines.push_back(l);
  };
  Engine e(o);
  register_fixtures(e);
  ASSERT_EQ(e.prove(generic_request("bits", "m1")).status, ResultStatus::kCompleted);
  ProofRequest bad;
  bad.proof_kind = 3;
  ASSERT_EQ(e.prove(bad).status, ResultStatus::kFailed);
  std::string j = server::status_json(e.status(), e.kinds());
  for (const char* k : {"\"uptime_secs\":", "\"memory\":{\"total_bytes\":", "\"pipelines\":[", "\"workers\":[",
                        "\"allocations\":{\"srs\":[", "\"circuit_id\":\"bits\"", "\"tier\":\"host\"",
                        "\"total_completed\":1", "\"total_failed\":1", "\"generic-groth16\":{\"completed\":1"}) {
    EXPECT_NE(j.find(k), std::string::npos) << k << " missing from " << j;
  }
  std::string m = server::prometheus_text(e.status(), e.kinds());
  for (const char* k :
       {"# TYPE cuzk_proofs_completed_total counter\ncuzk_proofs_completed_total 1\n", "cuzk_proofs_failed_total 1\n",
        "cuzk_proofs_completed_by_kind_total{proof_kind=\"generic_groth16\"} 1\n",
        "cuzk_proofs_failed_by_kind_total{proof_kind=\"window_post\"} 1\n",
        "cuzk_proof_duration_seconds_count{proof_kind=\"generic_groth16\"} 1\n",
        "# TYPE cuzk_memory_budget_bytes gauge\n", "cuzk_gpu_workers 2\n",
        "cuzk_srs_loaded_bytes{circuit_id=\"bits\",tier=\"host\"}"}) {
    EXPECT_NE(m.find(k), std::string::npos) << k << " missing from\n" << m;
  }
  std::lock_guard<std::mutex> g(mu);
  std::set<std::string> events;
  for (auto& l : lines) {
    ASSERT_EQ(l.rfind("TIMELINE,", 0), 0u) << l;
    auto a = l.find(',', 9), b = l.find(',', a + 1);
    events.insert(l.substr(a + 1, b - a - 1));
  }
  for (const char* ev : {"JOB_QUEUED", "SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP", "GPU_START", "GPU_END",
                         "JOB_DONE", "JOB_FAILED"}) {
    EXPECT_TRUE(events.count(ev)) << ev;
  }
}

TEST(Engine, PartitionSizingRecordsModelAndSoloMeasurement) {
  Engine e(small_options());
  register_fixtures(e);
  // Sequential jobs: each partition runs alone, so it is measured.
  for (int i = 0; i < 3; ++i) ASSERT_EQ(e.prove(generic_request("mulchain")).status, ResultStatus::kCompleted);
  auto s = e.status();
  auto it = s.sizing.find("generic-groth16/mulchain");
  ASSERT_NE(it, s.sizing.end());
  EXPECT_GT(it->second.model_bytes, 4u << 20);  // includes the 4 MiB MSM allowance
  EXPECT_GE(it->second.samples, 1u);            // /proc/self/clear_refs is writable here
  EXPECT_GE(s.peak_rss_bytes, s.rss_bytes);
  EXPECT_NE(
      server::status_json(e.status(), e.kinds()).find("\"partition_memory\":[{\"job\":\"generic-groth16/mulchain\""),
      std::string::npos);
  EXPECT_NE(server::prometheus_text(e.status(), e.kinds())
                .find("cuzk_partition_memory_bytes{job=\"generic-groth16/mulchain\",source=\"model\"}"),
            std::string::npos);
}

TEST(Engine, SelfVerifyCanBeTurnedOff) {
  EngineOptions o = small_options();
  o.self_verify = false;
  Engine e(o);
  register_fixtures(e);
  JobResult r = e.prove(generic_request("multi_public"));
  expect_valid_proof(r, "multi_public");
  EXPECT_EQ(r.verify_ms, 0u);
}

TEST(Engine, MaxActiveJobsBoundsTheQueue) {
  EngineOptions o = small_options();
  o.max_active_jobs = 3;
  Engine e(o);
  register_fixtures(e);
  TestKindControl c;
  c.gate_open = false;
  e.register_kind(kTestKind, std::make_shared<TestKind>(c));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(e.submit(test_request("q" + std::to_string(i))));
  auto refused = e.submit(test_request("q3"));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("too many unfinished jobs"), std::string::npos);
  EXPECT_TRUE(e.submit(test_request("q0")));  // joining an existing job is always fine
  c.open();
  EXPECT_TRUE(e.drain(30s));
}

}  // namespace
}  // namespace cuzk::engine
