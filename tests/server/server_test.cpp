// The gRPC service in process: a real server on a unix socket and a TCP port, driven through the
// generated C++ stub.
#include <gtest/gtest.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <future>

#include <atomic>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "engine/kinds/builtin_kinds.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include "engine/engine.hpp"
#include "server/grpc_server.hpp"
#include "server/http_status.hpp"
#include "server/listen_address.hpp"
#include "health_check.hpp"

namespace cuzk::server {
namespace {

namespace pb = ::cuzk::v1;
using namespace std::chrono_literals;

std::string fixture(const std::string& c, const std::string& f) {
  return std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/snarkjs/" + c + "/" + f;
}
std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine::EngineOptions o;
    engine::kinds::register_builtin_kinds(o.kinds);
    o.memory_budget_bytes = 256u << 20;
    o.srs_min_idle = 0ms;
    engine_ = std::make_unique<engine::Engine>(o);
    for (const char* c : {"bits", "linear", "mulchain", "multi_public"}) {
      ASSERT_TRUE(engine_->srs().register_zkey(c, fixture(c, std::string(c) + ".zkey")));
    }
    sock_ = "/tmp/cuzk-server-test-" + std::to_string(::getpid()) + ".sock";
    ServerOptions so;
    so.listen = {"unix://" + sock_, "127.0.0.1:0"};
    // TCP without tokens, files under the fixtures (auth_test.cpp tests the access rules).
    so.auth.insecure = true;
    so.auth.allowed_dirs = {std::string(CUZK_SOURCE_DIR) + "/tests/fixtures"};
    auto s = GrpcServer::start(*engine_, so);
    ASSERT_TRUE(s) << s.error();
    server_ = std::move(*s);
    ASSERT_EQ(server_->endpoints().size(), 2u);
    EXPECT_EQ(server_->endpoints()[0], "unix://" + sock_);
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(512 << 20);
    args.SetMaxSendMessageSize(512 << 20);
    unix_ = pb::ProvingEngine::NewStub(
        grpc::CreateCustomChannel("unix:" + sock_, grpc::InsecureChannelCredentials(), args));
    tcp_ = pb::ProvingEngine::NewStub(
        grpc::CreateCustomChannel(server_->endpoints()[1], grpc::InsecureChannelCredentials(), args));
  }
  void TearDown() override {
    if (server_) server_->shutdown(1s);
    EXPECT_NE(::access(sock_.c_str(), F_OK), 0) << "socket file left behind";
    server_.reset();
    engine_.reset();
  }

  pb::SubmitProofRequest generic(const std::string& circuit, const std::string& id = "",
                                 pb::Priority prio = pb::PRIORITY_UNSPECIFIED) {
    pb::SubmitProofRequest r;
    r.set_request_id(id);
    r.set_proof_kind(pb::GENERIC_GROTH16);
    r.set_priority(prio);
    r.set_circuit_id(circuit);
    r.set_witness_wtns(slurp(fixture(circuit, "witness.wtns")));
    return r;
  }

  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<GrpcServer> server_;
  std::string sock_;
  std::unique_ptr<pb::ProvingEngine::Stub> unix_, tcp_;
};

TEST_F(ServerTest, ProveOverUnixSocketAndTcp) {
  for (auto* stub : {unix_.get(), tcp_.get()}) {
    grpc::ClientContext ctx;
    pb::ProveRequest req;
    *req.mutable_submit() = generic("mulchain");
    pb::ProveResponse resp;
    auto st = stub->Prove(&ctx, req, &resp);
    ASSERT_TRUE(st.ok()) << st.error_message();
    const auto& r = resp.result();
    EXPECT_EQ(r.status(), pb::AwaitProofResponse::COMPLETED) << r.error_message();
    EXPECT_EQ(r.proof().size(), 192u);
    EXPECT_EQ(r.job_id().size(), 36u);  // empty request_id: a UUID
    EXPECT_EQ(r.proof_kind(), "generic-groth16");
    EXPECT_EQ(r.partitions_size(), 1);
    EXPECT_GE(r.total_ms(), r.gpu_compute_ms());
  }
}

TEST_F(ServerTest, FiftyConcurrentProveCallsEachGetOneResult) {
  const char* circuits[] = {"bits", "linear", "mulchain", "multi_public"};
  const pb::Priority prios[] = {pb::LOW, pb::NORMAL, pb::HIGH, pb::CRITICAL, pb::PRIORITY_UNSPECIFIED};
  std::vector<std::thread> ts;
  std::vector<pb::AwaitProofResponse> results(50);
  std::vector<grpc::Status> status(50);
  for (int i = 0; i < 50; ++i) {
    ts.emplace_back([&, i] {
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + 120s);
      pb::ProveRequest req;
      *req.mutable_submit() = generic(circuits[i % 4], "c-" + std::to_string(i), prios[i % 5]);
      pb::ProveResponse resp;
      status[i] = (i % 2 ? unix_ : tcp_)->Prove(&ctx, req, &resp);
      results[i] = resp.result();
    });
  }
  for (auto& t : ts) t.join();
  std::set<std::string> ids;
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(status[i].ok()) << status[i].error_message();
    EXPECT_EQ(results[i].status(), pb::AwaitProofResponse::COMPLETED) << results[i].error_message();
    EXPECT_EQ(results[i].job_id(), "c-" + std::to_string(i));
    ids.insert(results[i].job_id());
  }
  EXPECT_EQ(ids.size(), 50u);
  grpc::ClientContext ctx;
  pb::GetStatusResponse st;
  ASSERT_TRUE(tcp_->GetStatus(&ctx, pb::GetStatusRequest(), &st).ok());
  EXPECT_EQ(st.total_proofs_completed(), 50u);
  EXPECT_EQ(st.total_proofs_failed(), 0u);
}

TEST_F(ServerTest, SubmitAwaitCancelAndErrors) {
  // Unknown job: NOT_FOUND.
  {
    grpc::ClientContext ctx;
    pb::AwaitProofRequest req;
    req.set_job_id("nope");
    pb::AwaitProofResponse resp;
    EXPECT_EQ(tcp_->AwaitProof(&ctx, req, &resp).error_code(), grpc::StatusCode::NOT_FOUND);
  }
  // Missing submit: INVALID_ARGUMENT.
  {
    grpc::ClientContext ctx;
    pb::ProveResponse resp;
    EXPECT_EQ(tcp_->Prove(&ctx, pb::ProveRequest(), &resp).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  // Submit, duplicate joins, await.
  {
    grpc::ClientContext c1, c2, c3;
    pb::SubmitProofResponse r1, r2;
    ASSERT_TRUE(tcp_->SubmitProof(&c1, generic("bits", "sub-1"), &r1).ok());
    ASSERT_TRUE(tcp_->SubmitProof(&c2, generic("bits", "sub-1"), &r2).ok());
    EXPECT_EQ(r1.job_id(), "sub-1");
    EXPECT_FALSE(r1.joined_existing());
    EXPECT_TRUE(r2.joined_existing());
    pb::AwaitProofRequest a;
    a.set_job_id("sub-1");
    pb::AwaitProofResponse resp;
    ASSERT_TRUE(tcp_->AwaitProof(&c3, a, &resp).ok());
    EXPECT_EQ(resp.status(), pb::AwaitProofResponse::COMPLETED);
  }
  // Same id, different request: a job of its own, under sub-1@<content tag> (docs/daemon.md,
  // "Idempotency"), and its own result.
  {
    grpc::ClientContext ctx, c2;
    pb::SubmitProofResponse r;
    ASSERT_TRUE(tcp_->SubmitProof(&ctx, generic("linear", "sub-1"), &r).ok());
    EXPECT_FALSE(r.joined_existing());
    EXPECT_EQ(r.job_id().rfind("sub-1@", 0), 0u) << r.job_id();
    EXPECT_EQ(r.job_id().size(), std::string("sub-1@").size() + 8);
    pb::AwaitProofRequest a;
    a.set_job_id(r.job_id());
    pb::AwaitProofResponse resp;
    ASSERT_TRUE(tcp_->AwaitProof(&c2, a, &resp).ok());
    EXPECT_EQ(resp.status(), pb::AwaitProofResponse::COMPLETED) << resp.error_message();
    EXPECT_EQ(resp.job_id(), r.job_id());
  }
  // Cancel of a finished job: found, not running.
  {
    grpc::ClientContext ctx;
    pb::CancelProofRequest c;
    c.set_job_id("sub-1");
    pb::CancelProofResponse r;
    ASSERT_TRUE(tcp_->CancelProof(&ctx, c, &r).ok());
    EXPECT_FALSE(r.was_running());
    EXPECT_TRUE(r.found());
  }
  // Filecoin kinds: FAILED, not an RPC error.
  {
    grpc::ClientContext ctx;
    pb::ProveRequest req;
    req.mutable_submit()->set_proof_kind(pb::WINDOW_POST_PARTITION);
    req.mutable_submit()->set_registered_proof(13);
    req.mutable_submit()->set_randomness(std::string(32, '\0'));
    req.mutable_submit()->add_vanilla_proofs("x");
    pb::ProveResponse resp;
    ASSERT_TRUE(tcp_->Prove(&ctx, req, &resp).ok());
    EXPECT_EQ(resp.result().status(), pb::AwaitProofResponse::FAILED);
    EXPECT_EQ(resp.result().error_message().rfind("window-post: vanilla_proofs[0]: ", 0), 0u)
        << resp.result().error_message();
  }
}

TEST_F(ServerTest, AbandonedProveCallLeavesTheJobRunning) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 1ms);
  pb::ProveRequest req;
  *req.mutable_submit() = generic("mulchain", "abandoned");
  pb::ProveResponse resp;
  auto st = tcp_->Prove(&ctx, req, &resp);
  EXPECT_FALSE(st.ok());
  // The job (if the request arrived at all) finishes; a retry with the same id joins or reruns it.
  grpc::ClientContext ctx2;
  pb::ProveResponse resp2;
  ASSERT_TRUE(tcp_->Prove(&ctx2, req, &resp2).ok());
  EXPECT_EQ(resp2.result().status(), pb::AwaitProofResponse::COMPLETED);
}

TEST_F(ServerTest, SrsRpcsAndStatus) {
  {
    grpc::ClientContext ctx;
    pb::RegisterCircuitRequest r;
    r.set_circuit_id("lin2");
    r.set_zkey_path(fixture("linear", "linear.zkey"));
    r.set_preload(true);
    pb::RegisterCircuitResponse resp;
    ASSERT_TRUE(tcp_->RegisterCircuit(&ctx, r, &resp).ok());
    EXPECT_EQ(resp.num_vars(), 57u);
    EXPECT_EQ(resp.num_public(), 5u);
  }
  {
    grpc::ClientContext ctx;
    pb::RegisterCircuitRequest r;
    r.set_circuit_id("bad");
    r.set_zkey_path(fixture("linear", "no-such.zkey"));
    pb::RegisterCircuitResponse resp;
    auto st = tcp_->RegisterCircuit(&ctx, r, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(st.error_message().find("zkey file not found"), std::string::npos) << st.error_message();
  }
  {
    grpc::ClientContext ctx;
    pb::PreloadSrsRequest r;
    r.set_circuit_id("lin2");
    pb::PreloadSrsResponse resp;
    ASSERT_TRUE(tcp_->PreloadSRS(&ctx, r, &resp).ok());
    EXPECT_TRUE(resp.already_loaded());
  }
  {
    grpc::ClientContext ctx;
    pb::PreloadSrsRequest r;
    r.set_circuit_id("porep-32g");  // known id, parameter file absent
    pb::PreloadSrsResponse resp;
    auto st = tcp_->PreloadSRS(&ctx, r, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_NE(st.error_message().find("parameter file not found"), std::string::npos) << st.error_message();
  }
  {
    grpc::ClientContext ctx;
    pb::GetStatusResponse st;
    ASSERT_TRUE(tcp_->GetStatus(&ctx, pb::GetStatusRequest(), &st).ok());
    EXPECT_EQ(st.backend(), "cpu");
    ASSERT_EQ(st.gpus_size(), 2);  // one entry per backend worker, as the Rust daemon lists GPU workers
    EXPECT_EQ(st.gpus(0).name(), "cpu");
    EXPECT_EQ(st.gpus(1).name(), "cpu");
    bool found = false;
    for (const auto& s : st.loaded_srs()) {
      if (s.circuit_id() == "lin2") {
        found = true;
        EXPECT_EQ(s.tier(), pb::SRSStatus::HOT);
        EXPECT_EQ(s.tier_name(), "host");
        EXPECT_GT(s.size_bytes(), 0u);
      }
    }
    EXPECT_TRUE(found);
    EXPECT_EQ(st.memory().budget_bytes(), 256u << 20);
    EXPECT_GT(st.memory().process_rss_bytes(), 0u);
    EXPECT_GE(st.workers_size(), 7);
  }
  {
    grpc::ClientContext ctx;
    pb::EvictSrsRequest r;
    r.set_circuit_id("lin2");
    pb::EvictSrsResponse resp;
    ASSERT_TRUE(unix_->EvictSRS(&ctx, r, &resp).ok());  // admin only: the unix socket is
    EXPECT_TRUE(resp.was_loaded());
    EXPECT_GT(resp.freed_bytes(), 0u);
  }
  {
    grpc::ClientContext ctx;
    pb::GetMetricsResponse m;
    ASSERT_TRUE(tcp_->GetMetrics(&ctx, pb::GetMetricsRequest(), &m).ok());
    EXPECT_NE(m.prometheus_text().find("# TYPE cuzk_proofs_completed_total counter"), std::string::npos);
  }
}

TEST_F(ServerTest, RefusalsWhileShuttingDown) {
  engine_->stop_accepting();
  grpc::ClientContext ctx;
  pb::ProveRequest req;
  *req.mutable_submit() = generic("bits");
  pb::ProveResponse resp;
  auto st = tcp_->Prove(&ctx, req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE);
  grpc::ClientContext ctx2;
  pb::GetStatusResponse s;
  ASSERT_TRUE(tcp_->GetStatus(&ctx2, pb::GetStatusRequest(), &s).ok());
  EXPECT_TRUE(s.draining());
}

TEST_F(ServerTest, HealthServiceFollowsSetServing) {
  const std::string tcp = server_->endpoints()[1];
  EXPECT_EQ(test::health(tcp, ""), "SERVING");
  EXPECT_EQ(test::health(tcp, "cuzk.v1.ProvingEngine"), "SERVING");
  EXPECT_EQ(test::health("unix:" + sock_, ""), "SERVING");
  EXPECT_EQ(test::health(tcp, "no.such.Service"), "error " + std::to_string(grpc::StatusCode::NOT_FOUND));
  server_->set_serving(false);
  EXPECT_EQ(test::health(tcp, ""), "NOT_SERVING");
  EXPECT_EQ(test::health(tcp, "cuzk.v1.ProvingEngine"), "NOT_SERVING");
  server_->set_serving(true);
  EXPECT_EQ(test::health(tcp, "cuzk.v1.ProvingEngine"), "SERVING");
}

TEST(ServerDevices, GetStatusListsEachDeviceFromTheProvider) {
  engine::EngineOptions o;
  engine::kinds::register_builtin_kinds(o.kinds);
  o.memory_budget_bytes = 64u << 20;
  o.devices = {0, 1};
  o.workers_per_device = 2;
  engine::Engine e(o);
  ServerOptions so;
  so.listen = {"127.0.0.1:0"};
  so.auth.insecure = true;
  int calls = 0;
  so.devices = [&calls] {
    ++calls;
    return std::vector<DeviceInfo>{{0, "NVIDIA H200", 150ull << 30, 140ull << 30, 9, 0},
                                   {1, "NVIDIA H100 PCIe", 80ull << 30, 1ull << 30, 9, 0}};
  };
  auto srv = GrpcServer::start(e, so);
  ASSERT_TRUE(srv) << srv.error();
  auto stub =
      pb::ProvingEngine::NewStub(grpc::CreateChannel((*srv)->endpoints()[0], grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  pb::GetStatusResponse st;
  ASSERT_TRUE(stub->GetStatus(&ctx, pb::GetStatusRequest(), &st).ok());
  ASSERT_EQ(st.gpus_size(), 2);  // per device, not per backend worker (4 of them)
  EXPECT_EQ(st.gpus(0).ordinal(), 0u);
  EXPECT_EQ(st.gpus(0).name(), "NVIDIA H200");
  EXPECT_EQ(st.gpus(0).vram_total_bytes(), 150ull << 30);
  EXPECT_EQ(st.gpus(0).vram_free_bytes(), 140ull << 30);
  EXPECT_EQ(st.gpus(1).ordinal(), 1u);
  EXPECT_EQ(st.gpus(1).name(), "NVIDIA H100 PCIe");
  EXPECT_EQ(st.gpus(1).vram_free_bytes(), 1ull << 30);
  EXPECT_EQ(st.gpus(1).current_job_id(), "");  // idle
  EXPECT_EQ(calls, 1);
  grpc::ClientContext ctx2;
  pb::GetMetricsResponse m;
  ASSERT_TRUE(stub->GetMetrics(&ctx2, pb::GetMetricsRequest(), &m).ok());
  EXPECT_NE(m.prometheus_text().find("cuzk_gpu_info{device=\"1\",name=\"NVIDIA H100 PCIe\"} 1\n"), std::string::npos);
  EXPECT_NE(m.prometheus_text().find("cuzk_gpu_memory_free_bytes{device=\"1\"} 1073741824\n"), std::string::npos);
  EXPECT_EQ(calls, 2);
  (*srv)->shutdown(0ms);
}

TEST(ServerStart, BadAddressesAndLiveSockets) {
  engine::EngineOptions o;
  o.memory_budget_bytes = 64u << 20;
  engine::Engine e(o);
  ServerOptions so;
  so.listen = {"not an address"};
  EXPECT_FALSE(GrpcServer::start(e, so));
  std::string sock = "/tmp/cuzk-server-live-" + std::to_string(::getpid()) + ".sock";
  so.listen = {"unix://" + sock};
  auto a = GrpcServer::start(e, so);
  ASSERT_TRUE(a) << a.error();
  auto b = GrpcServer::start(e, so);
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().find("another process is already listening"), std::string::npos) << b.error();
  (*a)->shutdown(0ms);
  // A regular file where the socket should be is never removed.
  { std::ofstream(sock) << "precious"; }
  auto c = GrpcServer::start(e, so);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().find("is not a socket"), std::string::npos) << c.error();
  ::unlink(sock.c_str());
}

TEST(ListenAddress, Forms) {
  auto a = parse_listen_address("unix:///run/curio/cuzk.sock");
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->unix_socket);
  EXPECT_EQ(a->grpc_target(), "unix:/run/curio/cuzk.sock");
  auto b = parse_listen_address("http://127.0.0.1:9820");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->grpc_target(), "127.0.0.1:9820");
  EXPECT_FALSE(parse_listen_address("9820"));
}

TEST(HttpStatus, ServesStatusAndMetrics) {
  auto h = HttpStatusServer::start("127.0.0.1:0",
                                   {[] { return std::string("{\"ok\":true}"); }, [] { return std::string("m 1\n"); }});
  ASSERT_TRUE(h) << h.error();
  EXPECT_GT((*h)->port(), 0);
  (*h)->stop();
  EXPECT_FALSE(HttpStatusServer::start("unix:///tmp/x.sock", {}));
}

}  // namespace
}  // namespace cuzk::server
