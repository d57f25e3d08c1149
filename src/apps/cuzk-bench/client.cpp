#include "apps/cuzk-bench/client.hpp"

#include <grpcpp/grpcpp.h>

#include <chrono>

#include "cuzk/v1/proving.grpc.pb.h"
#include "server/listen_address.hpp"

namespace cuzk::bench {
namespace {

namespace pb = ::cuzk::v1;

const char* code_name(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    default: return "ERROR";
  }
}

Error rpc_error(const char* rpc, const grpc::Status& s) {
  return Error{std::string(rpc) + " failed: " + code_name(s.error_code()) + ": " + s.error_message()};
}

void to_pb(const engine::ProofRequest& r, pb::SubmitProofRequest* out) {
  out->set_request_id(r.request_id);
  out->set_proof_kind(static_cast<pb::ProofKind>(r.proof_kind));
  out->set_sector_size(r.sector_size);
  out->set_registered_proof(r.registered_proof);
  out->set_priority(static_cast<pb::Priority>(r.priority));
  out->set_vanilla_proof(r.vanilla_proof);
  for (const auto& v : r.vanilla_proofs) out->add_vanilla_proofs(v);
  out->set_sector_number(r.sector_number);
  out->set_miner_id(r.miner_id);
  out->set_randomness(r.randomness);
  out->set_partition_index(r.partition_index);
  out->set_comm_r_old(r.comm_r_old);
  out->set_comm_r_new(r.comm_r_new);
  out->set_comm_d_new(r.comm_d_new);
  out->set_circuit_id(r.circuit_id);
  out->set_witness_wtns(r.witness_wtns);
  out->set_witness_path(r.witness_path);
}

engine::JobResult from_pb(const pb::AwaitProofResponse& r) {
  engine::JobResult o;
  o.job_id = r.job_id();
  o.status = static_cast<engine::ResultStatus>(r.status());
  o.proof = r.proof();
  o.error = r.error_message();
  o.queue_wait_ms = r.queue_wait_ms();
  o.srs_load_ms = r.srs_load_ms();
  o.synthesis_ms = r.synthesis_ms();
  o.gpu_compute_ms = r.gpu_compute_ms();
  o.total_ms = r.total_ms();
  o.verify_ms = r.verify_ms();
  o.submitted = r.submitted_us();
  o.completed = r.completed_us();
  o.num_partitions = r.num_partitions();
  for (const auto& p : r.partitions()) {
    engine::PartitionTimes t;
    t.index = p.index();
    t.queued = p.queued_us();
    t.dispatched = p.dispatched_us();
    t.synth_start = p.synth_start_us();
    t.synth_end = p.synth_end_us();
    t.backend_start = p.backend_start_us();
    t.backend_locked = p.backend_locked_us();
    t.backend_end = p.backend_end_us();
    t.finalize_start = p.finalize_start_us();
    t.finalize_end = p.finalize_end_us();
    t.synth_worker = p.synth_worker();
    t.backend_worker = p.backend_worker();
    t.finalizer = p.finalizer();
    t.device = p.device();
    o.partitions.push_back(t);
  }
  return o;
}

}  // namespace

struct Client::Impl {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::ProvingEngine::Stub> stub;
  std::string authorization;  // "Bearer <token>", or ""
  // Every call's context: the bearer token when one was given (docs/daemon.md, "Access control").
  void prepare(grpc::ClientContext& ctx) const {
    if (!authorization.empty()) ctx.AddMetadata("authorization", authorization);
  }
};

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

Result<std::unique_ptr<Client>> Client::connect(const std::string& addr, std::uint64_t max_message_bytes,
                                                const Access& access, std::uint64_t connect_timeout_ms) {
  auto a = server::parse_listen_address(addr);
  if (!a) return Error{"--addr: " + a.error()};
  grpc::ChannelArguments args;
  const int limit = static_cast<int>(std::min<std::uint64_t>(max_message_bytes, 0x7fffffff));
  args.SetMaxReceiveMessageSize(limit);
  args.SetMaxSendMessageSize(limit);
  auto impl = std::make_unique<Impl>();
  if (!access.token.empty()) impl->authorization = "Bearer " + access.token;
  std::shared_ptr<grpc::ChannelCredentials> creds = grpc::InsecureChannelCredentials();
  if (!access.tls_ca_pem.empty()) {
    if (a->unix_socket) return Error{"--tls-ca: " + a->display() + " is a unix socket (TLS is for TCP addresses)"};
    grpc::SslCredentialsOptions so;
    so.pem_root_certs = access.tls_ca_pem;
    creds = grpc::SslCredentials(so);
  }
  impl->channel = grpc::CreateCustomChannel(a->grpc_target(), creds, args);
  // Wait until READY, but give up at the first TRANSIENT_FAILURE: nothing is listening there.
  auto deadline = std::chrono::system_clock::now() + std::chrono::milliseconds(connect_timeout_ms);
  auto state = impl->channel->GetState(/*try_to_connect=*/true);
  while (state != GRPC_CHANNEL_READY) {
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN ||
        !impl->channel->WaitForStateChange(state, deadline)) {
      return Error{"cannot connect to the daemon at " + a->display() +
                   (access.tls_ca_pem.empty()
                        ? " (is cuzk-daemon running?)"
                        : " (is cuzk-daemon running, with TLS, and is its certificate signed by --tls-ca?)")};
    }
    state = impl->channel->GetState(true);
  }
  impl->stub = pb::ProvingEngine::NewStub(impl->channel);
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

Result<engine::JobResult> Client::prove(const engine::ProofRequest& req) {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::ProveRequest r;
  to_pb(req, r.mutable_submit());
  pb::ProveResponse resp;
  auto s = impl_->stub->Prove(&ctx, r, &resp);
  if (!s.ok()) return rpc_error("Prove", s);
  return from_pb(resp.result());
}

Result<SubmitReply> Client::submit(const engine::ProofRequest& req) {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::SubmitProofRequest r;
  to_pb(req, &r);
  pb::SubmitProofResponse resp;
  auto s = impl_->stub->SubmitProof(&ctx, r, &resp);
  if (!s.ok()) return rpc_error("SubmitProof", s);
  return SubmitReply{resp.job_id(), resp.queue_position(), resp.joined_existing()};
}

Result<engine::JobResult> Client::await(const std::string& job_id, std::uint64_t timeout_ms) {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::AwaitProofRequest r;
  r.set_job_id(job_id);
  r.set_timeout_ms(timeout_ms);
  pb::AwaitProofResponse resp;
  auto s = impl_->stub->AwaitProof(&ctx, r, &resp);
  if (!s.ok()) return rpc_error("AwaitProof", s);
  return from_pb(resp);
}

Result<CancelReply> Client::cancel(const std::string& job_id) {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::CancelProofRequest r;
  r.set_job_id(job_id);
  pb::CancelProofResponse resp;
  auto s = impl_->stub->CancelProof(&ctx, r, &resp);
  if (!s.ok()) return rpc_error("CancelProof", s);
  return CancelReply{resp.found(), resp.was_running()};
}

Result<StatusReply> Client::status() {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::GetStatusRequest r;
  pb::GetStatusResponse resp;
  auto s = impl_->stub->GetStatus(&ctx, r, &resp);
  if (!s.ok()) return rpc_error("GetStatus", s);
  StatusReply o;
  for (const auto& g : resp.gpus()) {
    o.gpus.push_back(
        {g.ordinal(), g.name(), g.vram_total_bytes(), g.vram_free_bytes(), g.current_job_id(), g.current_proof_kind()});
  }
  for (const auto& x : resp.loaded_srs()) {
    o.srs.push_back({x.circuit_id(), static_cast<int>(x.tier()), x.tier_name(), x.size_bytes(), x.ref_count()});
  }
  for (const auto& q : resp.queues()) o.queues.push_back({q.proof_kind(), q.pending(), q.in_progress()});
  for (const auto& w : resp.workers()) {
    o.workers.push_back(
        {w.stage(), w.worker_id(), w.device(), w.current_job_id(), w.current_partition(), w.busy_ms(), w.items_done()});
  }
  o.completed = resp.total_proofs_completed();
  o.failed = resp.total_proofs_failed();
  o.cancelled = resp.total_proofs_cancelled();
  o.uptime_s = resp.uptime_seconds();
  o.pinned = resp.pinned_memory_bytes();
  o.pinned_limit = resp.pinned_memory_limit_bytes();
  const auto& m = resp.memory();
  o.budget = m.budget_bytes();
  o.used = m.used_bytes();
  o.peak = m.peak_bytes();
  o.srs_bytes = m.srs_bytes();
  o.partition_bytes = m.partition_bytes();
  o.rss = m.process_rss_bytes();
  o.peak_rss = m.process_peak_rss_bytes();
  o.waiters = m.waiters();
  o.jobs_queued = resp.jobs_queued();
  o.jobs_running = resp.jobs_running();
  o.backend = resp.backend();
  o.draining = resp.draining();
  return o;
}

Result<std::string> Client::metrics() {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::GetMetricsRequest r;
  pb::GetMetricsResponse resp;
  auto s = impl_->stub->GetMetrics(&ctx, r, &resp);
  if (!s.ok()) return rpc_error("GetMetrics", s);
  return resp.prometheus_text();
}

Result<PreloadReply> Client::preload(const std::string& circuit_id) {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::PreloadSrsRequest r;
  r.set_circuit_id(circuit_id);
  pb::PreloadSrsResponse resp;
  auto s = impl_->stub->PreloadSRS(&ctx, r, &resp);
  if (!s.ok()) return rpc_error("PreloadSRS", s);
  return PreloadReply{resp.already_loaded(), resp.load_time_ms()};
}

Result<EvictReply> Client::evict(const std::string& circuit_id) {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::EvictSrsRequest r;
  r.set_circuit_id(circuit_id);
  pb::EvictSrsResponse resp;
  auto s = impl_->stub->EvictSRS(&ctx, r, &resp);
  if (!s.ok()) return rpc_error("EvictSRS", s);
  return EvictReply{resp.was_loaded(), resp.freed_bytes()};
}

Result<RegisterReply> Client::register_circuit(const std::string& id, const std::string& zkey_path, bool preload) {
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::RegisterCircuitRequest r;
  r.set_circuit_id(id);
  r.set_zkey_path(zkey_path);
  r.set_preload(preload);
  pb::RegisterCircuitResponse resp;
  auto s = impl_->stub->RegisterCircuit(&ctx, r, &resp);
  if (!s.ok()) return rpc_error("RegisterCircuit", s);
  return RegisterReply{resp.num_public(),  resp.num_vars(), resp.num_constraints(),
                       resp.domain_size(), resp.replaced(), resp.load_time_ms()};
}

}  // namespace cuzk::bench
