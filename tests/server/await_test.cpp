// Waiting costs no thread (issue 28 item 5): AwaitProof and Prove on gRPC's callback API, with a
// timer for timeout_ms, and the per-client limit on unfinished jobs. Jobs are held in a test kind's
// prepare() until released, so every wait is on a job that is queued or preparing.
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "cuzk/v1/proving.grpc.pb.h"
#include "engine/engine.hpp"
#include "engine/kinds/builtin_kinds.hpp"
#include "server/grpc_server.hpp"

namespace cuzk::server {
namespace {

namespace pb = ::cuzk::v1;
using namespace std::chrono_literals;
using grpc::StatusCode;

constexpr std::uint32_t kHold = 77;

// prepare() waits until release() (or the job's cancellation), then fails the job.
class HoldKind final : public engine::JobKind {
 public:
  std::string name() const override { return "hold"; }
  Result<std::unique_ptr<engine::PreparedJob>> prepare(std::shared_ptr<const engine::ProofRequest>,
                                                       engine::PrepareContext& ctx) override {
    std::unique_lock<std::mutex> lk(mu_);
    while (!released_ && !ctx.cancel.cancelled()) cv_.wait_for(lk, 10ms);
    return Error{"hold: released"};
  }
  void release() {
    std::lock_guard<std::mutex> g(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
};

std::size_t threads() {
  std::size_t n = 0;
  for (auto& e : std::filesystem::directory_iterator("/proc/self/task")) (void)e, ++n;
  return n;
}

class AwaitTest : public ::testing::Test {
 protected:
  void start(std::uint32_t max_jobs_per_client = 1000, bool hold_is_deadline_bound = false) {
    engine::EngineOptions o;
    o.memory_budget_bytes = 64u << 20;
    if (hold_is_deadline_bound) o.cancel_abandoned = std::vector<std::uint32_t>{kHold};
    engine_ = std::make_unique<engine::Engine>(o);
    hold_ = std::make_shared<HoldKind>();
    engine_->register_kind(kHold, hold_);
    sock_ = "/tmp/cuzk-await-test-" + std::to_string(::getpid()) + ".sock";
    ServerOptions so;
    so.listen = {"unix://" + sock_, "127.0.0.1:0"};
    so.auth.insecure = true;
    so.max_jobs_per_client = max_jobs_per_client;
    auto s = GrpcServer::start(*engine_, so);
    ASSERT_TRUE(s) << s.error();
    server_ = std::move(*s);
    tcp_ = pb::ProvingEngine::NewStub(grpc::CreateChannel(server_->endpoints()[1], grpc::InsecureChannelCredentials()));
    unix_ = pb::ProvingEngine::NewStub(grpc::CreateChannel("unix:" + sock_, grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    if (hold_) hold_->release();
    if (server_) server_->shutdown(1s);
    server_.reset();
    engine_.reset();
  }
  grpc::Status submit(pb::ProvingEngine::Stub& stub, const std::string& id, pb::Priority prio = pb::NORMAL,
                      pb::SubmitProofResponse* out = nullptr) {
    pb::SubmitProofRequest r;
    r.set_request_id(id);
    r.set_proof_kind(static_cast<pb::ProofKind>(kHold));
    r.set_priority(prio);
    pb::SubmitProofResponse resp;
    grpc::ClientContext c;
    auto st = stub.SubmitProof(&c, r, &resp);
    if (out) *out = resp;
    return st;
  }

  std::unique_ptr<engine::Engine> engine_;
  std::shared_ptr<HoldKind> hold_;
  std::unique_ptr<GrpcServer> server_;
  std::string sock_;
  std::unique_ptr<pb::ProvingEngine::Stub> tcp_, unix_;
};

TEST_F(AwaitTest, ThreeHundredAwaitsCostNoThreadEach) {
  start();
  constexpr int kJobs = 300;
  for (int i = 0; i < kJobs; ++i) ASSERT_TRUE(submit(*tcp_, "job-" + std::to_string(i)).ok()) << i;
  // One await first, so that gRPC's callback threads exist before the count.
  {
    grpc::ClientContext c;
    pb::AwaitProofRequest q;
    q.set_job_id("job-0");
    q.set_timeout_ms(10);
    pb::AwaitProofResponse r;
    ASSERT_TRUE(tcp_->AwaitProof(&c, q, &r).ok());
    EXPECT_EQ(r.status(), pb::AwaitProofResponse::TIMEOUT);
  }
  const std::size_t before = threads();
  // 300 awaits at once through the client's callback API (no client thread each either): the even
  // ones wait without a timeout, the odd ones time out after 1.5 s.
  struct Call {
    grpc::ClientContext ctx;
    pb::AwaitProofRequest req;
    pb::AwaitProofResponse resp;
    grpc::Status st;
    std::atomic<bool> done{false};
  };
  std::vector<std::unique_ptr<Call>> calls;
  std::atomic<int> finished{0};
  for (int i = 0; i < kJobs; ++i) {
    auto c = std::make_unique<Call>();
    c->ctx.set_deadline(std::chrono::system_clock::now() + 60s);
    c->req.set_job_id("job-" + std::to_string(i));
    c->req.set_timeout_ms(i % 2 ? 1500 : 0);
    Call* p = c.get();
    tcp_->async()->AwaitProof(&p->ctx, &p->req, &p->resp, [p, &finished](grpc::Status st) {
      p->st = std::move(st);
      p->done = true;
      ++finished;
    });
    calls.push_back(std::move(c));
  }
  std::this_thread::sleep_for(700ms);  // every call reached the server and waits there
  const std::size_t during = threads();
  std::printf("threads: %zu before, %zu with %d awaits waiting\n", before, during, kJobs);
  EXPECT_EQ(finished.load(), 0);
  EXPECT_LT(during, before + 50) << before << " threads before, " << during << " with 300 awaits waiting";
  // The timed ones return TIMEOUT on time; the others keep waiting.
  for (int t = 0; t < 500 && finished.load() < kJobs / 2; ++t) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(finished.load(), kJobs / 2);
  for (int i = 1; i < kJobs; i += 2) {
    ASSERT_TRUE(calls[i]->done) << i;
    ASSERT_TRUE(calls[i]->st.ok()) << calls[i]->st.error_message();
    EXPECT_EQ(calls[i]->resp.status(), pb::AwaitProofResponse::TIMEOUT);
    EXPECT_EQ(calls[i]->resp.error_message(), "timed out after 1500 ms; the job is still running");
    EXPECT_EQ(calls[i]->resp.job_id(), "job-" + std::to_string(i));
  }
  for (int i = 0; i < kJobs; i += 2) EXPECT_FALSE(calls[i]->done) << i;
  // Released, every job ends and every waiting call returns its result.
  hold_->release();
  for (int t = 0; t < 3000 && finished.load() < kJobs; ++t) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(finished.load(), kJobs);
  for (int i = 0; i < kJobs; i += 2) {
    ASSERT_TRUE(calls[i]->st.ok()) << calls[i]->st.error_message();
    EXPECT_EQ(calls[i]->resp.status(), pb::AwaitProofResponse::FAILED);
    EXPECT_EQ(calls[i]->resp.error_message(), "hold: released");
  }
  EXPECT_LT(threads(), before + 50);
}

TEST_F(AwaitTest, HugeTimeoutsWaitAndCancelledCallsLetTheJobRun) {
  start();
  ASSERT_TRUE(submit(*tcp_, "held").ok());
  // 2^62 ms used to overflow the clock and time out at once; now it waits (clamped to 1 hour).
  {
    grpc::ClientContext c;
    c.set_deadline(std::chrono::system_clock::now() + 400ms);
    pb::AwaitProofRequest q;
    q.set_job_id("held");
    q.set_timeout_ms(std::uint64_t(1) << 62);
    pb::AwaitProofResponse r;
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(tcp_->AwaitProof(&c, q, &r).error_code(), StatusCode::DEADLINE_EXCEEDED);
    EXPECT_GE(std::chrono::steady_clock::now() - t0, 350ms);
  }
  // Prove on the same request: the caller goes away, the job continues.
  {
    grpc::ClientContext c;
    c.set_deadline(std::chrono::system_clock::now() + 300ms);
    pb::ProveRequest q;
    q.mutable_submit()->set_request_id("held");
    q.mutable_submit()->set_proof_kind(static_cast<pb::ProofKind>(kHold));
    q.mutable_submit()->set_priority(pb::NORMAL);
    pb::ProveResponse r;
    EXPECT_EQ(tcp_->Prove(&c, q, &r).error_code(), StatusCode::DEADLINE_EXCEEDED);
  }
  pb::GetStatusResponse s;
  {
    grpc::ClientContext c;
    ASSERT_TRUE(tcp_->GetStatus(&c, pb::GetStatusRequest(), &s).ok());
  }
  EXPECT_EQ(s.jobs_queued() + s.jobs_running(), 1u);
  EXPECT_EQ(s.total_proofs_failed() + s.total_proofs_cancelled(), 0u);
  // A Prove that stays to the end gets the result; an AwaitProof of a finished job returns at once.
  std::thread release([this] {
    std::this_thread::sleep_for(200ms);
    hold_->release();
  });
  {
    grpc::ClientContext c;
    pb::ProveRequest q;
    q.mutable_submit()->set_request_id("held");
    q.mutable_submit()->set_proof_kind(static_cast<pb::ProofKind>(kHold));
    q.mutable_submit()->set_priority(pb::NORMAL);
    pb::ProveResponse r;
    ASSERT_TRUE(tcp_->Prove(&c, q, &r).ok());
    EXPECT_EQ(r.result().status(), pb::AwaitProofResponse::FAILED);
    EXPECT_EQ(r.result().error_message(), "hold: released");
  }
  release.join();
  grpc::ClientContext c;
  pb::AwaitProofRequest q;
  q.set_job_id("held");
  q.set_timeout_ms(std::uint64_t(1) << 62);
  pb::AwaitProofResponse r;
  ASSERT_TRUE(tcp_->AwaitProof(&c, q, &r).ok());
  EXPECT_EQ(r.status(), pb::AwaitProofResponse::FAILED);
}

// Curio's WindowPoSt Prove is cancelled when the deadline closes (issue 38): a deadline-bound job
// that nobody else waits for is cancelled with it; one another call waits for, or that a SubmitProof
// created, keeps running.
TEST_F(AwaitTest, AbandonedDeadlineBoundProveCancelsItsJob) {
  start(1000, /*hold_is_deadline_bound=*/true);
  auto prove = [&](const std::string& id, std::chrono::milliseconds deadline) {
    grpc::ClientContext c;
    c.set_deadline(std::chrono::system_clock::now() + deadline);
    pb::ProveRequest q;
    q.mutable_submit()->set_request_id(id);
    q.mutable_submit()->set_proof_kind(static_cast<pb::ProofKind>(kHold));
    q.mutable_submit()->set_priority(pb::HIGH);
    pb::ProveResponse r;
    return tcp_->Prove(&c, q, &r).error_code();
  };
  auto await = [&](const std::string& id, std::uint64_t timeout_ms) {
    grpc::ClientContext c;
    pb::AwaitProofRequest q;
    q.set_job_id(id);
    q.set_timeout_ms(timeout_ms);
    pb::AwaitProofResponse r;
    EXPECT_TRUE(tcp_->AwaitProof(&c, q, &r).ok());
    return r;
  };
  // Alone: the job ends CANCELLED, saying why, soon after the call. (The server learns of the
  // deadline a moment after the client: an AwaitProof sent at once would be a waiter of its own.)
  EXPECT_EQ(prove("wdpost-1000-0-[1 2 3 4 5 6 7 8]", 300ms), StatusCode::DEADLINE_EXCEEDED);
  auto job = engine_->find("wdpost-1000-0-[1 2 3 4 5 6 7 8]");
  ASSERT_TRUE(job);
  for (int i = 0; i < 500 && !engine::Engine::result_of(job); ++i) std::this_thread::sleep_for(10ms);
  auto r = await("wdpost-1000-0-[1 2 3 4 5 6 7 8]", 5000);
  EXPECT_EQ(r.status(), pb::AwaitProofResponse::CANCELLED);
  EXPECT_NE(r.error_message().find("abandoned"), std::string::npos) << r.error_message();
  // With an AwaitProof waiting too, the Prove's end leaves the job running.
  std::atomic<bool> awaited{false};
  pb::AwaitProofResponse late;
  std::thread waiter([&] {
    std::this_thread::sleep_for(100ms);
    late = await("winpost-1000-00aa11bb22cc33dd", 0);
    awaited = true;
  });
  EXPECT_EQ(prove("winpost-1000-00aa11bb22cc33dd", 400ms), StatusCode::DEADLINE_EXCEEDED);
  EXPECT_FALSE(awaited.load());
  // A SubmitProof job is never cancelled as abandoned, even when a Prove that joined it goes away.
  ASSERT_TRUE(submit(*tcp_, "wdpost-1000-0-[9 9 9 9 9 9 9 9]", pb::HIGH).ok());
  EXPECT_EQ(prove("wdpost-1000-0-[9 9 9 9 9 9 9 9]", 200ms), StatusCode::DEADLINE_EXCEEDED);
  EXPECT_EQ(await("wdpost-1000-0-[9 9 9 9 9 9 9 9]", 300).status(), pb::AwaitProofResponse::TIMEOUT);
  hold_->release();
  waiter.join();
  EXPECT_EQ(late.status(), pb::AwaitProofResponse::FAILED);  // the hold kind's end: it ran on
  EXPECT_EQ(late.error_message(), "hold: released");
  EXPECT_EQ(await("wdpost-1000-0-[9 9 9 9 9 9 9 9]", 5000).error_message(), "hold: released");
  pb::GetStatusResponse s;
  grpc::ClientContext c;
  ASSERT_TRUE(tcp_->GetStatus(&c, pb::GetStatusRequest(), &s).ok());
  EXPECT_EQ(s.total_proofs_cancelled(), 1u);
}

TEST_F(AwaitTest, UnfinishedJobsPerClientAreLimited) {
  start(3);
  for (const char* id : {"a", "b", "c"}) ASSERT_TRUE(submit(*tcp_, id).ok()) << id;
  pb::SubmitProofResponse joined;
  ASSERT_TRUE(submit(*tcp_, "a", pb::NORMAL, &joined).ok()) << "the same job again takes no slot";
  EXPECT_TRUE(joined.joined_existing());
  auto st = submit(*tcp_, "d");
  EXPECT_EQ(st.error_code(), StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(st.error_message(), "client \"client\" has 3 unfinished jobs, its limit (auth.max_jobs_per_client)");
  // Urgent work is counted apart (a PoRep backlog must not refuse a WinningPoSt), with the same limit.
  for (const char* id : {"u1", "u2", "u3"}) ASSERT_TRUE(submit(*tcp_, id, pb::CRITICAL).ok()) << id;
  st = submit(*tcp_, "u4", pb::CRITICAL);
  EXPECT_EQ(st.error_code(), StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(st.error_message(), "client \"client\" has 3 unfinished urgent jobs, its limit (auth.max_jobs_per_client)");
  // Another identity has its own count.
  ASSERT_TRUE(submit(*unix_, "from-unix").ok());
  // Ended jobs give their slots back.
  hold_->release();
  ASSERT_TRUE(engine_->drain(30s));
  for (const char* id : {"d", "e", "f"}) EXPECT_TRUE(submit(*tcp_, id).ok()) << id;
}

}  // namespace
}  // namespace cuzk::server
