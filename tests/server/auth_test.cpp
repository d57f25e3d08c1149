// Access control of the gRPC service (server/auth.hpp, issue 28 item 1), in process: real servers on
// a unix socket and TCP ports driven through the generated C++ stub, with bearer tokens, TLS from a
// CA this test makes with the openssl CLI, the socket file's mode and group, path confinement and
// the admin-only operations.
#include <gtest/gtest.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <sstream>

#include "cuzk/v1/proving.grpc.pb.h"
#include "apps/cuzk-daemon/config.hpp"
#include "engine/engine.hpp"
#include "engine/kinds/builtin_kinds.hpp"
#include "engine/types.hpp"
#include "server/auth.hpp"
#include "server/grpc_server.hpp"
#include "health_check.hpp"

namespace cuzk::server {
namespace {

namespace fs = std::filesystem;
namespace pb = ::cuzk::v1;
using namespace std::chrono_literals;
using grpc::StatusCode;

const std::string kClient = "client-token-0123456789abcdef";
const std::string kAdmin = "admin-token-0123456789abcdef!";
const std::string kWrong = "client-token-0123456789abcdeX";  // the client token's length, one byte off

std::string fixture(const std::string& c, const std::string& f) {
  return std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/snarkjs/" + c + "/" + f;
}
std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
void spit(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// A fresh directory under /tmp, removed with the object.
struct TempDir {
  std::string path;
  TempDir() {
    std::string t = "/tmp/cuzk-auth-XXXXXX";
    path = ::mkdtemp(t.data()) ? t : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

std::unique_ptr<grpc::ClientContext> ctx(const std::optional<std::string>& token) {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() + 60s);
  if (token) c->AddMetadata("authorization", "Bearer " + *token);
  return c;
}

pb::SubmitProofRequest generic_bytes(const std::string& id) {
  pb::SubmitProofRequest r;
  r.set_request_id(id);
  r.set_proof_kind(pb::GENERIC_GROTH16);
  r.set_circuit_id("bits");
  r.set_witness_wtns(slurp(fixture("bits", "witness.wtns")));
  return r;
}
pb::SubmitProofRequest generic_path(const std::string& path) {
  pb::SubmitProofRequest r;
  r.set_proof_kind(pb::GENERIC_GROTH16);
  r.set_circuit_id("bits");
  r.set_witness_path(path);
  return r;
}

class AuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path.empty());
    engine::EngineOptions o;
    engine::kinds::register_builtin_kinds(o.kinds);
    o.memory_budget_bytes = 256u << 20;
    o.srs_min_idle = 0ms;
    engine_ = std::make_unique<engine::Engine>(o);
    ASSERT_TRUE(engine_->srs().register_zkey("bits", fixture("bits", "bits.zkey")));
    sock_ = tmp_.path + "/cuzk.sock";
    allowed_ = tmp_.path + "/allowed";
    fs::create_directories(allowed_);
    fs::copy_file(fixture("bits", "witness.wtns"), allowed_ + "/witness.wtns");
    fs::copy_file(fixture("linear", "linear.zkey"), allowed_ + "/linear.zkey");
    fs::copy_file(fixture("mulchain", "mulchain.zkey"), allowed_ + "/mulchain.zkey");
    spit(tmp_.path + "/secret.txt", "SECRETBYTES-0123456789");
    spit(allowed_ + "/fake.wtns", "root:x:0:0:root:/root:/bin/bash\n");
    fs::create_symlink(tmp_.path + "/secret.txt", allowed_ + "/link.wtns");
    fs::create_directories(tmp_.path + "/allowed2");  // shares the allowed directory's prefix
    fs::copy_file(fixture("bits", "witness.wtns"), tmp_.path + "/allowed2/witness.wtns");
  }
  void TearDown() override {
    if (server_) server_->shutdown(1s);
    server_.reset();
    engine_.reset();
  }

  // Starts the server on the unix socket and one TCP port with `so`'s access options.
  void start(ServerOptions so) {
    so.listen = {"unix://" + sock_, "127.0.0.1:0"};
    auto s = GrpcServer::start(*engine_, so);
    ASSERT_TRUE(s) << s.error();
    server_ = std::move(*s);
    unix_ = pb::ProvingEngine::NewStub(grpc::CreateChannel("unix:" + sock_, grpc::InsecureChannelCredentials()));
    tcp_ = pb::ProvingEngine::NewStub(grpc::CreateChannel(server_->endpoints()[1], grpc::InsecureChannelCredentials()));
  }
  ServerOptions tokens() const {
    ServerOptions so;
    so.auth.client_token = kClient;
    so.auth.admin_token = kAdmin;
    so.auth.allowed_dirs = {allowed_};
    return so;
  }

  TempDir tmp_;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<GrpcServer> server_;
  std::string sock_, allowed_;
  std::unique_ptr<pb::ProvingEngine::Stub> unix_, tcp_;
};

// Every ProvingEngine RPC once, with `token` (nullopt: none); returns each call's status by name.
std::map<std::string, grpc::Status> call_every_rpc(pb::ProvingEngine::Stub& s,
                                                   const std::optional<std::string>& token) {
  std::map<std::string, grpc::Status> out;
  {
    pb::SubmitProofResponse r;
    out["SubmitProof"] = s.SubmitProof(ctx(token).get(), generic_bytes(""), &r);
  }
  {
    pb::AwaitProofRequest q;
    q.set_job_id("nope");
    pb::AwaitProofResponse r;
    out["AwaitProof"] = s.AwaitProof(ctx(token).get(), q, &r);
  }
  {
    pb::ProveRequest q;
    *q.mutable_submit() = generic_bytes("");
    pb::ProveResponse r;
    out["Prove"] = s.Prove(ctx(token).get(), q, &r);
  }
  {
    pb::CancelProofRequest q;
    q.set_job_id("nope");
    pb::CancelProofResponse r;
    out["CancelProof"] = s.CancelProof(ctx(token).get(), q, &r);
  }
  {
    pb::GetStatusResponse r;
    out["GetStatus"] = s.GetStatus(ctx(token).get(), pb::GetStatusRequest(), &r);
  }
  {
    pb::GetMetricsResponse r;
    out["GetMetrics"] = s.GetMetrics(ctx(token).get(), pb::GetMetricsRequest(), &r);
  }
  {
    pb::PreloadSrsRequest q;
    q.set_circuit_id("bits");
    pb::PreloadSrsResponse r;
    out["PreloadSRS"] = s.PreloadSRS(ctx(token).get(), q, &r);
  }
  {
    pb::EvictSrsRequest q;
    q.set_circuit_id("nope");
    pb::EvictSrsResponse r;
    out["EvictSRS"] = s.EvictSRS(ctx(token).get(), q, &r);
  }
  {
    pb::RegisterCircuitRequest q;
    q.set_circuit_id("nope");
    q.set_zkey_path("/nope.zkey");
    pb::RegisterCircuitResponse r;
    out["RegisterCircuit"] = s.RegisterCircuit(ctx(token).get(), q, &r);
  }
  return out;
}

TEST_F(AuthTest, TcpRefusesEveryRpcWithoutTheToken) {
  start(tokens());
  for (const std::optional<std::string>& bad :
       {std::optional<std::string>(), std::optional<std::string>(kWrong), std::optional<std::string>("x")}) {
    auto all = call_every_rpc(*tcp_, bad);
    ASSERT_EQ(all.size(), 9u);
    for (const auto& [rpc, st] : all) {
      EXPECT_EQ(st.error_code(), StatusCode::UNAUTHENTICATED) << rpc << " with " << bad.value_or("no token");
      EXPECT_EQ(st.error_message().find('\n'), std::string::npos);
      EXPECT_EQ(st.error_message(),
                bad ? "invalid token"
                    : "missing credentials: send the metadata \"authorization: Bearer <token>\" (Curio's cuzk "
                      "client sends none: give Curio the daemon's unix socket)");
    }
  }
  // Not the bearer scheme at all.
  auto c = ctx(std::nullopt);
  c->AddMetadata("authorization", "Basic " + kClient);
  pb::GetStatusResponse r;
  auto st = tcp_->GetStatus(c.get(), pb::GetStatusRequest(), &r);
  EXPECT_EQ(st.error_code(), StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(st.error_message(), "malformed authorization metadata: expected \"Bearer <token>\"");
  // Nothing was submitted by any of them.
  pb::GetStatusResponse s;
  ASSERT_TRUE(unix_->GetStatus(ctx(std::nullopt).get(), pb::GetStatusRequest(), &s).ok());
  EXPECT_EQ(s.total_proofs_completed() + s.total_proofs_failed() + s.jobs_queued() + s.jobs_running(), 0u);
  // Health stays open (load balancers probe it without credentials).
  EXPECT_EQ(test::health(grpc::CreateChannel(server_->endpoints()[1], grpc::InsecureChannelCredentials())), "SERVING");
}

TEST_F(AuthTest, TheRightTokenWorksAndUnixNeedsNone) {
  start(tokens());
  for (const auto& token : {kClient, kAdmin}) {
    auto all = call_every_rpc(*tcp_, token);
    EXPECT_TRUE(all["GetStatus"].ok()) << all["GetStatus"].error_message();
    EXPECT_TRUE(all["GetMetrics"].ok());
    EXPECT_TRUE(all["SubmitProof"].ok()) << all["SubmitProof"].error_message();
    EXPECT_TRUE(all["Prove"].ok()) << all["Prove"].error_message();
    EXPECT_TRUE(all["CancelProof"].ok());
    EXPECT_TRUE(all["PreloadSRS"].ok()) << all["PreloadSRS"].error_message();
    EXPECT_EQ(all["AwaitProof"].error_code(), StatusCode::NOT_FOUND);
    EXPECT_EQ(all["EvictSRS"].error_code(), token == kAdmin ? StatusCode::NOT_FOUND : StatusCode::PERMISSION_DENIED)
        << all["EvictSRS"].error_message();
    EXPECT_EQ(all["RegisterCircuit"].error_code(), StatusCode::PERMISSION_DENIED);  // /nope.zkey is outside
  }
  // "bearer" in any case, as RFC 6750 has it.
  auto c = ctx(std::nullopt);
  c->AddMetadata("authorization", "bEaReR " + kClient);
  pb::ProveRequest q;
  *q.mutable_submit() = generic_bytes("lower-case");
  pb::ProveResponse r;
  ASSERT_TRUE(tcp_->Prove(c.get(), q, &r).ok());
  EXPECT_EQ(r.result().status(), pb::AwaitProofResponse::COMPLETED) << r.result().error_message();
  EXPECT_EQ(r.result().proof().size(), 192u);
  // The unix socket: admin without a token (EvictSRS of an unknown id reaches the lookup).
  auto all = call_every_rpc(*unix_, std::nullopt);
  EXPECT_TRUE(all["Prove"].ok());
  EXPECT_EQ(all["EvictSRS"].error_code(), StatusCode::NOT_FOUND);
  // Each SubmitProof and Prove ran: 2 per token, the lower-case Prove, 2 over the unix socket.
  ASSERT_TRUE(engine_->drain(60s));
  pb::GetStatusResponse s;
  ASSERT_TRUE(tcp_->GetStatus(ctx(kClient).get(), pb::GetStatusRequest(), &s).ok());
  EXPECT_EQ(s.total_proofs_completed(), 7u);
  EXPECT_EQ(s.total_proofs_failed(), 0u);
}

TEST_F(AuthTest, TcpWithoutATokenRefusesToStartUnlessInsecure) {
  ServerOptions so;
  so.listen = {"unix://" + sock_, "127.0.0.1:0"};
  auto s = GrpcServer::start(*engine_, so);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(),
            "listen 127.0.0.1:0: a TCP listener needs a bearer token (auth.token_file) or auth.insecure = true");
  EXPECT_EQ(::access(sock_.c_str(), F_OK), -1) << "nothing was bound";
  EXPECT_FALSE(check_listeners(so));
  so.listen = {"unix://" + sock_};
  EXPECT_TRUE(check_listeners(so)) << "a unix socket alone needs no token";
  so.listen = {"127.0.0.1:0"};
  so.auth.admin_token = kAdmin;
  EXPECT_TRUE(check_listeners(so)) << "an admin token alone is a token";
  so.auth = {};
  so.auth.insecure = true;
  auto t = GrpcServer::start(*engine_, so);
  ASSERT_TRUE(t) << t.error();
  // insecure: TCP callers are clients without a token; admin-only calls stay refused.
  auto stub = pb::ProvingEngine::NewStub(grpc::CreateChannel((*t)->endpoints()[0], grpc::InsecureChannelCredentials()));
  auto all = call_every_rpc(*stub, std::nullopt);
  EXPECT_TRUE(all["GetStatus"].ok());
  EXPECT_TRUE(all["Prove"].ok());
  EXPECT_EQ(all["EvictSRS"].error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(all["EvictSRS"].error_message(),
            "EvictSRS needs the admin scope (the admin token, or the daemon's unix socket)");
  (*t)->shutdown(0ms);
}

TEST_F(AuthTest, TlsRoundTripWithATestCa) {
  // A CA and a server certificate for localhost / 127.0.0.1, made here (P-256: quick).
  const std::string d = tmp_.path;
  const std::string cmd =
      "cd '" + d +
      "' && exec >openssl.log 2>&1 && "
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem "
      "-days 2 -subj /CN=cuzk-test-ca && "
      "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out server.csr "
      "-subj /CN=localhost && "
      "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > ext.cnf && "
      "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 "
      "-extfile ext.cnf && "
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout other.key -out other.pem "
      "-days 2 -subj /CN=another-ca";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "openssl (Debian package openssl): " << slurp(d + "/openssl.log");
  ServerOptions so = tokens();
  so.tls_cert_pem = slurp(d + "/server.pem");
  so.tls_key_pem = slurp(d + "/server.key");
  start(so);
  grpc::SslCredentialsOptions co;
  co.pem_root_certs = slurp(d + "/ca.pem");
  grpc::ChannelArguments args;
  args.SetSslTargetNameOverride("localhost");
  auto tls =
      pb::ProvingEngine::NewStub(grpc::CreateCustomChannel(server_->endpoints()[1], grpc::SslCredentials(co), args));
  pb::ProveRequest q;
  *q.mutable_submit() = generic_bytes("over-tls");
  pb::ProveResponse r;
  auto st = tls->Prove(ctx(kClient).get(), q, &r);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(r.result().status(), pb::AwaitProofResponse::COMPLETED);
  EXPECT_EQ(r.result().proof().size(), 192u);
  pb::GetStatusResponse s;
  EXPECT_EQ(tls->GetStatus(ctx(std::nullopt).get(), pb::GetStatusRequest(), &s).error_code(),
            StatusCode::UNAUTHENTICATED);
  // Plain text to the TLS port gets nowhere; the unix socket stays plain.
  auto c = ctx(kClient);
  c->set_deadline(std::chrono::system_clock::now() + 3s);
  EXPECT_EQ(tcp_->GetStatus(c.get(), pb::GetStatusRequest(), &s).error_code(), StatusCode::UNAVAILABLE);
  EXPECT_TRUE(unix_->GetStatus(ctx(std::nullopt).get(), pb::GetStatusRequest(), &s).ok());
  // A client that does not trust the CA is refused at the handshake.
  grpc::SslCredentialsOptions other;
  other.pem_root_certs = slurp(d + "/other.pem");
  auto untrusting =
      pb::ProvingEngine::NewStub(grpc::CreateCustomChannel(server_->endpoints()[1], grpc::SslCredentials(other), args));
  auto c2 = ctx(kClient);
  c2->set_deadline(std::chrono::system_clock::now() + 3s);
  EXPECT_EQ(untrusting->GetStatus(c2.get(), pb::GetStatusRequest(), &s).error_code(), StatusCode::UNAVAILABLE);
}

TEST_F(AuthTest, UnixSocketModeAndGroup) {
  ServerOptions so = tokens();
  so.unix_socket_group = std::to_string(::getgid());
  start(so);
  struct stat st {};
  ASSERT_EQ(::stat(sock_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0660u);
  EXPECT_EQ(st.st_gid, ::getgid());
  server_->shutdown(0ms);
  server_.reset();
  so.unix_socket_mode = 0600;
  so.unix_socket_group = "";
  start(so);
  ASSERT_EQ(::stat(sock_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  server_->shutdown(0ms);
  server_.reset();
  so.unix_socket_group = "no-such-group-cuzk";
  so.listen = {"unix://" + sock_};
  auto s = GrpcServer::start(*engine_, so);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error(), "unix socket group \"no-such-group-cuzk\": no such group");
}

// A refusal's message: PERMISSION_DENIED, one line, none of the secret file's bytes.
void expect_refused(const grpc::Status& st, const std::string& want) {
  EXPECT_EQ(st.error_code(), StatusCode::PERMISSION_DENIED) << st.error_message();
  EXPECT_NE(st.error_message().find(want), std::string::npos) << st.error_message();
  EXPECT_EQ(st.error_message().find("SECRET"), std::string::npos) << st.error_message();
  EXPECT_EQ(st.error_message().find('\n'), std::string::npos);
}

TEST_F(AuthTest, PathsAreConfinedToTheAllowedDirectories) {
  start(tokens());
  const std::string secret = tmp_.path + "/secret.txt";
  auto prove = [&](pb::ProvingEngine::Stub& stub, const std::optional<std::string>& token, const std::string& path,
                   pb::ProveResponse* r) {
    pb::ProveRequest q;
    *q.mutable_submit() = generic_path(path);
    return stub.Prove(ctx(token).get(), q, r);
  };
  const std::string outside = "not under an allowed directory (auth.allowed_dirs)";
  for (auto* stub : {tcp_.get(), unix_.get()}) {  // with allowed_dirs set, the unix socket is confined too
    pb::ProveResponse r;
    expect_refused(prove(*stub, kClient, secret, &r), "witness_path \"" + secret + "\": " + outside);
    expect_refused(prove(*stub, kClient, "/etc/passwd", &r), outside);
    expect_refused(prove(*stub, kClient, "allowed/witness.wtns", &r),
                   "witness_path \"allowed/witness.wtns\": must be an absolute path");
    expect_refused(prove(*stub, kClient, allowed_ + "/../secret.txt", &r), outside);
    expect_refused(prove(*stub, kClient, allowed_ + "/link.wtns", &r), outside);               // a symlink pointing out
    expect_refused(prove(*stub, kClient, tmp_.path + "/allowed2/witness.wtns", &r), outside);  // a prefix, not a parent
  }
  // Inside: proved from the resolved path.
  pb::ProveResponse ok;
  ASSERT_TRUE(prove(*tcp_, kClient, allowed_ + "/./sub/../witness.wtns", &ok).ok());
  EXPECT_EQ(ok.result().status(), pb::AwaitProofResponse::COMPLETED) << ok.result().error_message();
  // Inside but not a wtns file: the job fails without showing the bytes found.
  pb::ProveResponse fake;
  ASSERT_TRUE(prove(*tcp_, kClient, allowed_ + "/fake.wtns", &fake).ok());
  EXPECT_EQ(fake.result().status(), pb::AwaitProofResponse::FAILED);
  EXPECT_NE(fake.result().error_message().find("not a 'wtns' file"), std::string::npos)
      << fake.result().error_message();
  EXPECT_EQ(fake.result().error_message().find("root:"), std::string::npos) << fake.result().error_message();
  // SubmitProof and RegisterCircuit are confined the same way.
  pb::SubmitProofResponse sr;
  expect_refused(tcp_->SubmitProof(ctx(kClient).get(), generic_path(secret), &sr), outside);
  pb::RegisterCircuitRequest reg;
  reg.set_circuit_id("stolen");
  reg.set_zkey_path(secret);
  pb::RegisterCircuitResponse rr;
  expect_refused(tcp_->RegisterCircuit(ctx(kClient).get(), reg, &rr), "zkey_path \"" + secret + "\": " + outside);
  // A path over the limit is refused before anything looks at it.
  pb::ProveResponse r;
  auto st = prove(*tcp_, kClient, "/" + std::string(5000, 'a'), &r);
  EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), "witness_path: 5001 bytes, the limit is 4096");
}

TEST_F(AuthTest, WithoutAllowedDirsOnlyTheUnixSocketNamesFiles) {
  ServerOptions so = tokens();
  so.auth.allowed_dirs.clear();
  start(so);
  pb::ProveRequest q;
  *q.mutable_submit() = generic_path(allowed_ + "/witness.wtns");
  pb::ProveResponse r;
  expect_refused(tcp_->Prove(ctx(kAdmin).get(), q, &r),
                 "witness_path: file paths are not accepted over TCP on this daemon (no auth.allowed_dirs)");
  ASSERT_TRUE(unix_->Prove(ctx(std::nullopt).get(), q, &r).ok());
  EXPECT_EQ(r.result().status(), pb::AwaitProofResponse::COMPLETED) << r.result().error_message();
}

TEST_F(AuthTest, ReplaceEvictAndCancelOfOthersNeedTheAdminScope) {
  start(tokens());
  auto reg = [&](const std::optional<std::string>& token, pb::ProvingEngine::Stub& stub, const std::string& file,
                 pb::RegisterCircuitResponse* r) {
    pb::RegisterCircuitRequest q;
    q.set_circuit_id("c1");
    q.set_zkey_path(allowed_ + "/" + file);
    return stub.RegisterCircuit(ctx(token).get(), q, r);
  };
  pb::RegisterCircuitResponse rr;
  ASSERT_TRUE(reg(kClient, *tcp_, "linear.zkey", &rr).ok());  // a new id: any client
  EXPECT_FALSE(rr.replaced());
  ASSERT_TRUE(reg(kClient, *tcp_, "linear.zkey", &rr).ok());  // the same file again: no change
  auto st = reg(kClient, *tcp_, "mulchain.zkey", &rr);
  EXPECT_EQ(st.error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(st.error_message(),
            "replacing circuit \"c1\" needs the admin scope (the admin token, or the daemon's unix socket)");
  EXPECT_EQ(*engine_->srs().key_path("c1"), fs::canonical(allowed_ + "/linear.zkey").string());
  ASSERT_TRUE(reg(kAdmin, *tcp_, "mulchain.zkey", &rr).ok());
  EXPECT_TRUE(rr.replaced());
  ASSERT_TRUE(reg(std::nullopt, *unix_, "linear.zkey", &rr).ok());
  EXPECT_TRUE(rr.replaced());

  // EvictSRS: admin token or the unix socket.
  pb::PreloadSrsRequest pq;
  pq.set_circuit_id("bits");
  pb::PreloadSrsResponse pr;
  ASSERT_TRUE(tcp_->PreloadSRS(ctx(kClient).get(), pq, &pr).ok());  // preloading is harmless: any client
  pb::EvictSrsRequest eq;
  eq.set_circuit_id("bits");
  pb::EvictSrsResponse er;
  EXPECT_EQ(tcp_->EvictSRS(ctx(kClient).get(), eq, &er).error_code(), StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(tcp_->EvictSRS(ctx(kAdmin).get(), eq, &er).ok());
  EXPECT_TRUE(er.was_loaded());
  ASSERT_TRUE(unix_->EvictSRS(ctx(std::nullopt).get(), eq, &er).ok());
  EXPECT_FALSE(er.was_loaded());

  // CancelProof: a client cancels its own jobs; another's needs the admin scope.
  pb::SubmitProofResponse sr;
  for (const auto& [id, stub, token] : {std::tuple{"by-admin", tcp_.get(), std::optional<std::string>(kAdmin)},
                                        std::tuple{"by-unix", unix_.get(), std::optional<std::string>()},
                                        std::tuple{"by-client", tcp_.get(), std::optional<std::string>(kClient)},
                                        std::tuple{"by-client-2", tcp_.get(), std::optional<std::string>(kClient)}}) {
    ASSERT_TRUE(stub->SubmitProof(ctx(token).get(), generic_bytes(id), &sr).ok()) << id;
  }
  auto cancel = [&](pb::ProvingEngine::Stub& stub, const std::optional<std::string>& token, const std::string& id,
                    pb::CancelProofResponse* r) {
    pb::CancelProofRequest q;
    q.set_job_id(id);
    return stub.CancelProof(ctx(token).get(), q, r);
  };
  pb::CancelProofResponse cr;
  for (const char* other : {"by-admin", "by-unix"}) {
    st = cancel(*tcp_, kClient, other, &cr);
    EXPECT_EQ(st.error_code(), StatusCode::PERMISSION_DENIED) << other;
    EXPECT_EQ(st.error_message(),
              "cancelling a job another client submitted needs the admin scope (the admin token, or the daemon's unix "
              "socket)");
  }
  ASSERT_TRUE(cancel(*tcp_, kClient, "by-client", &cr).ok());
  EXPECT_TRUE(cr.found());
  ASSERT_TRUE(cancel(*tcp_, kAdmin, "by-unix", &cr).ok());
  EXPECT_TRUE(cr.found());
  ASSERT_TRUE(cancel(*unix_, std::nullopt, "by-client-2", &cr).ok());
  EXPECT_TRUE(cr.found());
  ASSERT_TRUE(cancel(*tcp_, kClient, "no-such-job", &cr).ok());
  EXPECT_FALSE(cr.found());
  // The refused cancels left their jobs alone: by-admin ends as it would have.
  pb::AwaitProofRequest aq;
  aq.set_job_id("by-admin");
  pb::AwaitProofResponse ar;
  ASSERT_TRUE(tcp_->AwaitProof(ctx(kClient).get(), aq, &ar).ok());
  EXPECT_EQ(ar.status(), pb::AwaitProofResponse::COMPLETED) << ar.error_message();
}

TEST_F(AuthTest, StringsAreBoundedAtTheRpcEdge) {
  start(tokens());
  pb::SubmitProofResponse sr;
  auto st = tcp_->SubmitProof(ctx(kClient).get(), generic_bytes(std::string(257, 'r')), &sr);
  EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), "request_id: 257 bytes, the limit is 256");
  ASSERT_TRUE(tcp_->SubmitProof(ctx(kClient).get(), generic_bytes(std::string(256, 'r')), &sr).ok());
  auto big = generic_bytes("");
  big.set_circuit_id(std::string(1000, 'c'));
  st = tcp_->SubmitProof(ctx(kClient).get(), big, &sr);
  EXPECT_EQ(st.error_message(), "circuit_id: 1000 bytes, the limit is 256");
  pb::AwaitProofRequest aq;
  // Job ids may be a request_id plus "@<content tag>" (docs/daemon.md, "Idempotency"): 256 + 32.
  aq.set_job_id(std::string(289, 'j'));
  pb::AwaitProofResponse ar;
  st = tcp_->AwaitProof(ctx(kClient).get(), aq, &ar);
  EXPECT_EQ(st.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), "job_id: 289 bytes, the limit is 288");
  // An unknown id within the limit is echoed cut to 64 bytes, unprintable bytes as '?'.
  aq.set_job_id(std::string("\x01\n") + std::string(198, 'j'));
  st = tcp_->AwaitProof(ctx(kClient).get(), aq, &ar);
  EXPECT_EQ(st.error_code(), StatusCode::NOT_FOUND);
  EXPECT_EQ(st.error_message(), "unknown job id: ??" + std::string(62, 'j') + "...(200 bytes)");
  pb::PreloadSrsRequest pq;
  pq.set_circuit_id(std::string(257, 'p'));
  pb::PreloadSrsResponse pr;
  EXPECT_EQ(tcp_->PreloadSRS(ctx(kClient).get(), pq, &pr).error_message(), "circuit_id: 257 bytes, the limit is 256");
  pb::CancelProofRequest cq;
  cq.set_job_id(std::string(289, 'x'));
  pb::CancelProofResponse cr;
  EXPECT_EQ(tcp_->CancelProof(ctx(kClient).get(), cq, &cr).error_code(), StatusCode::INVALID_ARGUMENT);
}

// ---- the pieces, without a server

TEST(Auth, TokenFiles) {
  TempDir d;
  const std::string f = d.path + "/token";
  spit(f, "  \n" + kClient + "\n\n");
  ::chmod(f.c_str(), 0600);
  std::string warning = "x";
  auto t = read_token_file(f, &warning);
  ASSERT_TRUE(t) << t.error();
  EXPECT_EQ(*t, kClient);
  EXPECT_EQ(warning, "");
  ::chmod(f.c_str(), 0640);
  ASSERT_TRUE(read_token_file(f, &warning));
  EXPECT_EQ(warning, f + ": the token file is readable by its group");
  ::chmod(f.c_str(), 0644);
  EXPECT_EQ(read_token_file(f).error(),
            f + ": the token file is readable by every user; chmod 0600 (or 0640 for a group)");
  ::chmod(f.c_str(), 0600);
  spit(f, " \n\t");
  EXPECT_EQ(read_token_file(f).error(), f + ": the token file is empty");
  spit(f, "short");
  EXPECT_EQ(read_token_file(f).error(), f + ": the token is 5 characters; use at least 16 (e.g. openssl rand -hex 32)");
  spit(f, kClient + " " + kAdmin);
  EXPECT_NE(read_token_file(f).error().find("whitespace or non-printable bytes inside"), std::string::npos);
  EXPECT_NE(read_token_file(d.path + "/none").error().find("cannot read the token file"), std::string::npos);
}

TEST(Auth, IdentifyAndScopes) {
  AuthOptions o;
  o.client_token = kClient;
  o.admin_token = kAdmin;
  auto a = Authenticator::create(o);
  ASSERT_TRUE(a) << a.error();
  auto u = a->identify("unix:/run/curio/cuzk.sock", std::nullopt);
  ASSERT_TRUE(u);
  EXPECT_TRUE(u->admin());
  EXPECT_EQ(u->identity, "unix");
  auto c = a->identify("ipv4:127.0.0.1:5000", "Bearer " + kClient);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->admin());
  EXPECT_EQ(c->identity, "client");
  auto ad = a->identify("ipv6:[::1]:5000", "Bearer " + kAdmin);
  ASSERT_TRUE(ad);
  EXPECT_TRUE(ad->admin());
  EXPECT_FALSE(a->identify("ipv4:127.0.0.1:5000", "Bearer " + kWrong));
  EXPECT_FALSE(a->identify("ipv4:127.0.0.1:5000", "Bearer " + kClient + "x"));
  EXPECT_FALSE(a->identify("ipv4:127.0.0.1:5000", "Bearer "));
  EXPECT_FALSE(a->identify("ipv4:127.0.0.1:5000", std::nullopt));
  o.admin_token = kClient;
  EXPECT_EQ(Authenticator::create(o).error(),
            "the client and admin tokens are the same; give each scope its own token");
  o = {};
  o.allowed_dirs = {"relative/dir"};
  EXPECT_EQ(Authenticator::create(o).error(), "allowed directory \"relative/dir\": must be an absolute path");
  o.allowed_dirs = {"/no/such/dir/cuzk"};
  EXPECT_NE(Authenticator::create(o).error().find("allowed directory /no/such/dir/cuzk: "), std::string::npos);
}

TEST(Auth, AllowedDirReachedThroughASymlink) {
  // allowed_dirs names a symlink to the real folder: paths through either name are accepted, and the
  // engine gets the real one.
  TempDir d;
  fs::create_directories(d.path + "/real");
  spit(d.path + "/real/w.wtns", "x");
  fs::create_directory_symlink(d.path + "/real", d.path + "/zk");
  AuthOptions o;
  o.allowed_dirs = {d.path + "/zk/"};
  auto a = Authenticator::create(o);
  ASSERT_TRUE(a) << a.error();
  Caller c;
  const std::string real = fs::canonical(d.path + "/real/w.wtns").string();
  EXPECT_EQ(*a->resolve("witness_path", d.path + "/zk/w.wtns", c), real);
  EXPECT_EQ(*a->resolve("witness_path", d.path + "/real/w.wtns", c), real);
  EXPECT_EQ(a->resolve("witness_path", d.path + "/zk", c).ok(), true);  // the folder itself; the engine refuses it
  EXPECT_FALSE(a->resolve("witness_path", d.path + "/zkx/w.wtns", c));
}

// Issue 41 item 6: the file is opened where its path is checked, and the descriptor is what the
// engine reads: swapping a folder of the allowed directory for a symlink afterwards changes nothing
// read, and a new request through the symlink is refused. Non-regular files are refused at once.
TEST(Auth, TheFileOpenedIsTheFileChecked) {
  TempDir d;
  fs::create_directories(d.path + "/allowed/sub");
  fs::create_directories(d.path + "/outside");
  spit(d.path + "/allowed/sub/w.wtns", "CHECKED");
  spit(d.path + "/outside/w.wtns", "SECRET");
  AuthOptions o;
  o.allowed_dirs = {d.path + "/allowed"};
  auto a = Authenticator::create(o);
  ASSERT_TRUE(a) << a.error();
  Caller c;
  auto opened = a->open("witness_path", d.path + "/allowed/sub/w.wtns", c);
  ASSERT_TRUE(opened) << opened.error();
  engine::OpenFile f(opened->fd);
  fs::rename(d.path + "/allowed/sub", d.path + "/allowed/sub.old");
  fs::create_directory_symlink(d.path + "/outside", d.path + "/allowed/sub");
  EXPECT_EQ(slurp(f.path()), "CHECKED");
  auto again = a->open("witness_path", d.path + "/allowed/sub/w.wtns", c);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(again.error().find("not under an allowed directory"), std::string::npos) << again.error();
  ASSERT_EQ(::mkfifo((d.path + "/allowed/fifo").c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  auto fifo = a->open("witness_path", d.path + "/allowed/fifo", c);
  ASSERT_FALSE(fifo);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  EXPECT_NE(fifo.error().find("not a regular file"), std::string::npos) << fifo.error();
  auto dir = a->open("witness_path", d.path + "/allowed/sub.old", c);
  ASSERT_FALSE(dir);
  EXPECT_NE(dir.error().find("not a regular file"), std::string::npos) << dir.error();
  auto missing = a->open("witness_path", d.path + "/allowed/none.wtns", c);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("cannot open: No such file or directory"), std::string::npos) << missing.error();
}

TEST(Auth, ConfigKeys) {
  auto c = apps::parse_config(R"(
[auth]
token_file = "/etc/cuzk/token"
admin_token_file = "/etc/cuzk/admin-token"
tls_cert = "/etc/cuzk/cert.pem"
tls_key = "/etc/cuzk/key.pem"
insecure = true
unix_socket_mode = "0640"
unix_socket_group = "curio"
allowed_dirs = ["/data/zk", "/var/tmp/cuzk"]
max_jobs_per_client = 50
)",
                              "t.toml");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->token_file, "/etc/cuzk/token");
  EXPECT_EQ(c->admin_token_file, "/etc/cuzk/admin-token");
  EXPECT_EQ(c->tls_cert, "/etc/cuzk/cert.pem");
  EXPECT_EQ(c->tls_key, "/etc/cuzk/key.pem");
  EXPECT_TRUE(c->insecure);
  EXPECT_EQ(c->unix_socket_mode, 0640u);
  EXPECT_EQ(c->unix_socket_group, "curio");
  EXPECT_EQ(c->allowed_dirs, (std::vector<std::string>{"/data/zk", "/var/tmp/cuzk"}));
  EXPECT_EQ(c->max_jobs_per_client, 50u);
  EXPECT_TRUE(c->warnings.empty());
  auto d = apps::parse_config("", "t.toml");
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->insecure);
  EXPECT_EQ(d->unix_socket_mode, 0660u);
  EXPECT_TRUE(d->allowed_dirs.empty());
  EXPECT_EQ(d->max_jobs_per_client, 1000u);
  EXPECT_EQ(apps::parse_config("[auth]\nunix_socket_group = 1000\n", "t.toml")->unix_socket_group, "1000");
  EXPECT_EQ(apps::parse_config("[auth]\nunix_socket_mode = 660\n", "t.toml").error(),
            "t.toml:2: auth.unix_socket_mode: expected an octal mode as a string, such as \"0660\"");
  EXPECT_EQ(apps::parse_config("[auth]\nunix_socket_mode = \"0689\"\n", "t.toml").error(),
            "t.toml:2: auth.unix_socket_mode: expected an octal mode as a string, such as \"0660\"");
  EXPECT_EQ(apps::parse_config("[auth]\ntls_cert = \"/c.pem\"\n", "t.toml").error(),
            "t.toml:2: auth.tls_cert: tls_cert and tls_key go together (PEM certificate and its key)");
  EXPECT_EQ(apps::parse_config("[auth]\nallowed_dirs = [\"data\"]\n", "t.toml").error(),
            "t.toml:2: auth.allowed_dirs: \"data\" is not an absolute path");
}

}  // namespace
}  // namespace cuzk::server
