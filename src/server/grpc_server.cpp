// cuzk.v1.ProvingEngine over the engine. AwaitProof and Prove use gRPC's callback API and wait
// without a thread (Waiter); the other RPCs return at once or nearly (a key load for PreloadSRS and
// RegisterCircuit with preload) and use the synchronous API. Every handler first identifies its
// caller (auth.hpp), then bounds the strings it will look at.
#include "server/grpc_server.hpp"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpc/support/log.h>
#include <grpcpp/health_check_service_interface.h>
#include <grp.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

#include "cuzk/v1/proving.grpc.pb.h"
#include "engine/srs_manager.hpp"
#include "server/listen_address.hpp"
#include "server/status_render.hpp"
#include "server/timers.hpp"

namespace cuzk::server {
namespace {

namespace pb = ::cuzk::v1;
using engine::Engine;
using engine::JobResult;
using engine::ProofRequest;
using engine::ResultStatus;
using grpc::ServerContext;
using grpc::Status;
using grpc::StatusCode;

// Moves the byte fields out of the request (the handler owns it for the call; a PoRep C1 input is
// ~50 MB and should not be copied).
ProofRequest to_engine(pb::SubmitProofRequest& r) {
  ProofRequest e;
  e.request_id = r.request_id();
  e.proof_kind = static_cast<std::uint32_t>(r.proof_kind());
  e.sector_size = r.sector_size();
  e.registered_proof = r.registered_proof();
  e.priority = static_cast<std::uint32_t>(r.priority());
  e.vanilla_proof = std::move(*r.mutable_vanilla_proof());
  e.vanilla_proofs.reserve(r.vanilla_proofs_size());
  for (auto& v : *r.mutable_vanilla_proofs()) e.vanilla_proofs.push_back(std::move(v));
  e.sector_number = r.sector_number();
  e.miner_id = r.miner_id();
  e.randomness = std::move(*r.mutable_randomness());
  e.partition_index = r.partition_index();
  e.comm_r_old = std::move(*r.mutable_comm_r_old());
  e.comm_r_new = std::move(*r.mutable_comm_r_new());
  e.comm_d_new = std::move(*r.mutable_comm_d_new());
  e.circuit_id = r.circuit_id();
  e.witness_wtns = std::move(*r.mutable_witness_wtns());
  e.witness_path = r.witness_path();
  return e;
}

void fill_result(const JobResult& r, const engine::KindRegistry& kinds, pb::AwaitProofResponse* out) {
  out->set_job_id(r.job_id);
  out->set_status(static_cast<pb::AwaitProofResponse::Status>(r.status));
  out->set_error_message(r.error);
  out->set_proof_kind(kinds.name(r.proof_kind));
  if (r.status == ResultStatus::kCompleted) {
    out->set_proof(r.proof);
    out->set_queue_wait_ms(r.queue_wait_ms);
    out->set_srs_load_ms(r.srs_load_ms);
    out->set_synthesis_ms(r.synthesis_ms);
    out->set_gpu_compute_ms(r.gpu_compute_ms);
    out->set_total_ms(r.total_ms);
    out->set_verify_ms(r.verify_ms);
  } else if (r.status == ResultStatus::kTimeout) {
    return;  // no timings for a job still running
  } else {
    out->set_total_ms(r.total_ms);
  }
  out->set_submitted_us(r.submitted);
  out->set_completed_us(r.completed);
  out->set_num_partitions(r.num_partitions);
  for (const auto& t : r.partitions) {
    auto* p = out->add_partitions();
    p->set_index(t.index);
    p->set_queued_us(t.queued);
    p->set_dispatched_us(t.dispatched);
    p->set_synth_start_us(t.synth_start);
    p->set_synth_end_us(t.synth_end);
    p->set_backend_start_us(t.backend_start);
    p->set_backend_locked_us(t.backend_locked);
    p->set_backend_end_us(t.backend_end);
    p->set_finalize_start_us(t.finalize_start);
    p->set_finalize_end_us(t.finalize_end);
    p->set_synth_worker(t.synth_worker);
    p->set_backend_worker(t.backend_worker);
    p->set_finalizer(t.finalizer);
    p->set_device(t.device);
  }
}

// The engine's refusals by their code (base/result.hpp), never by their words.
Status submit_error(const Error& e) {
  switch (e.code) {
    case ErrorCode::kUnavailable: return Status(StatusCode::UNAVAILABLE, e.message);
    case ErrorCode::kResourceExhausted: return Status(StatusCode::RESOURCE_EXHAUSTED, e.message);
    case ErrorCode::kNotFound: return Status(StatusCode::NOT_FOUND, e.message);
    case ErrorCode::kPermissionDenied: return Status(StatusCode::PERMISSION_DENIED, e.message);
    case ErrorCode::kFailedPrecondition: return Status(StatusCode::FAILED_PRECONDITION, e.message);
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kUnspecified: break;
  }
  return Status(StatusCode::INVALID_ARGUMENT, e.message);
}

std::shared_ptr<spdlog::logger> log() {
  auto l = spdlog::get("server");
  return l ? l : spdlog::default_logger();
}

// The caller's bearer metadata, if sent.
std::optional<std::string_view> authorization(const grpc::ServerContextBase& ctx) {
  const auto& md = ctx.client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) return std::nullopt;
  return std::string_view(it->second.data(), it->second.size());
}

// OK, or INVALID_ARGUMENT naming the field and the limit.
Status bounded(const char* field, const std::string& value, std::size_t limit) {
  if (value.size() <= limit) return Status::OK;
  return Status(StatusCode::INVALID_ARGUMENT, std::string(field) + ": " + std::to_string(value.size()) +
                                                  " bytes, the limit is " + std::to_string(limit));
}

Status needs_admin(const std::string& what) {
  return Status(StatusCode::PERMISSION_DENIED,
                what + " needs the admin scope (the admin token, or the daemon's unix socket)");
}

Result<gid_t> group_id(const std::string& g) {
  if (!g.empty() && std::all_of(g.begin(), g.end(), [](unsigned char c) { return std::isdigit(c); })) {
    if (g.size() > 9) return Error{"unix socket group " + g + ": out of range"};
    return gid_t(std::stoul(g));
  }
  std::vector<char> buf(16384);
  group grp{};
  group* out = nullptr;
  const int rc = ::getgrnam_r(g.c_str(), &grp, buf.data(), buf.size(), &out);
  if (rc != 0 || !out) return Error{"unix socket group \"" + g + "\": no such group"};
  return out->gr_gid;
}

pb::SRSStatus::Tier wire_tier(engine::SrsTier t) {
  switch (t) {
    case engine::SrsTier::kDevice:
    case engine::SrsTier::kPinned:
    case engine::SrsTier::kHost: return pb::SRSStatus::HOT;
    case engine::SrsTier::kMapped: return pb::SRSStatus::WARM;
    case engine::SrsTier::kCold: return pb::SRSStatus::COLD;
  }
  return pb::SRSStatus::COLD;
}

constexpr std::chrono::milliseconds kMaxAwaitTimeout = std::chrono::hours(1);

// A call finished with `st` without waiting.
grpc::ServerUnaryReactor* refuse(grpc::CallbackServerContext* ctx, const Status& st) {
  auto* r = ctx->DefaultReactor();
  r->Finish(st);
  return r;
}

// One waiting AwaitProof or Prove call. Finished exactly once — by the job's end (Engine::on_done,
// on the engine thread that ends it), its timeout (Timers) or the call's cancellation (OnCancel) —
// and the first of them drops the other two. The reactor gRPC holds owns the Waiter; the callbacks
// hold weak pointers, so one that fires after the call is gone does nothing. The call is one of the
// job's waiters (Engine::add_waiter, or a Prove's Follow::kWaiting) until it ends; a cancelled call
// tells the engine, which cancels a deadline-bound job nobody else waits for (release_waiter).
class Waiter : public std::enable_shared_from_this<Waiter> {
 public:
  Waiter(std::shared_ptr<engine::Job> job, std::function<void(const JobResult&)> fill)
      : job_(std::move(job)), fill_(std::move(fill)) {}
  Status on_cancel;  // the call's status when the client cancels or goes away

  // Returns the reactor for the handler to return. `timers` null: no timeout. The engine outlives
  // every call (the daemon drains the engine before it stops the server, and stops the server
  // before the engine).
  grpc::ServerUnaryReactor* start(Engine& e, Timers* timers, std::chrono::milliseconds timeout, std::string why) {
    engine_ = &e;
    reactor_ = new Reactor(shared_from_this());
    std::weak_ptr<Waiter> weak = weak_from_this();
    if (timers) {
      timers_ = timers;
      auto r = Engine::timeout_result(job_, std::move(why));
      const auto h = timers->at(Timers::Clock::now() + timeout, [weak, r = std::move(r)] {
        if (auto w = weak.lock()) w->end(Status::OK, &r);
      });
      std::lock_guard<std::mutex> g(mu_);
      timer_ = h;
    }
    // May run at once (the job has ended), which finishes the call before it is returned: allowed.
    Reactor* reactor = reactor_;
    const auto h = Engine::on_done(job_, [weak] {
      if (auto w = weak.lock()) w->end(Status::OK, nullptr);
    });
    bool ended;
    {
      std::lock_guard<std::mutex> g(mu_);
      ended = ended_;
      done_ = h;
    }
    if (ended) Engine::forget_done(job_, h);
    return reactor;
  }

 private:
  class Reactor final : public grpc::ServerUnaryReactor {
   public:
    explicit Reactor(std::shared_ptr<Waiter> w) : w_(std::move(w)) {}
    void OnCancel() override { w_->end(w_->on_cancel, nullptr); }
    void OnDone() override { delete this; }

   private:
    std::shared_ptr<Waiter> w_;
  };

  // The first call finishes the RPC: `st` when not OK (the call was cancelled), else the job's
  // result (or `timeout`'s).
  void end(const Status& st, const JobResult* timeout) {
    Reactor* r;
    std::uint64_t timer, done;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (ended_) return;
      ended_ = true;
      r = reactor_;
      reactor_ = nullptr;
      timer = timer_;
      done = done_;
    }
    if (timer) timers_->cancel(timer);
    if (done) Engine::forget_done(job_, done);
    engine_->release_waiter(job_, /*caller_left=*/!st.ok());
    if (st.ok()) {
      auto result = timeout ? std::optional<JobResult>(*timeout) : Engine::result_of(job_);
      fill_(*result);
    }
    r->Finish(st);  // the reactor (and this Waiter with it) may be gone once this returns
  }

  std::shared_ptr<engine::Job> job_;
  std::function<void(const JobResult&)> fill_;
  Engine* engine_ = nullptr;
  Timers* timers_ = nullptr;
  std::mutex mu_;
  bool ended_ = false;                  // under mu_
  Reactor* reactor_ = nullptr;          // under mu_ once started; valid until ended_
  std::uint64_t timer_ = 0, done_ = 0;  // under mu_
};

using ServiceBase = pb::ProvingEngine::WithCallbackMethod_AwaitProof<
    pb::ProvingEngine::WithCallbackMethod_Prove<pb::ProvingEngine::Service>>;

class Service final : public ServiceBase {
 public:
  Service(Engine& e, DeviceProvider devices, Authenticator auth, std::uint32_t max_jobs_per_client)
      : e_(e),
        devices_(std::move(devices)),
        auth_(std::move(auth)),
        limits_(std::make_shared<ClientLimits>(max_jobs_per_client)) {}

  Status SubmitProof(ServerContext* ctx, const pb::SubmitProofRequest* req, pb::SubmitProofResponse* resp) override {
    Caller caller;
    if (auto st = identify(*ctx, &caller); !st.ok()) return st;
    engine::SubmitOutcome s;
    if (auto st = submit(caller, const_cast<pb::SubmitProofRequest&>(*req), engine::Follow::kLater, &s); !st.ok()) {
      return st;
    }
    resp->set_job_id(s.job_id);
    resp->set_queue_position(s.queue_position);
    resp->set_joined_existing(s.joined);
    return Status::OK;
  }

  // AwaitProof and Prove hold no thread while they wait (Waiter below): the job's end, the timeout
  // (a Timers entry) or the call's cancellation finishes the call, whichever comes first.
  grpc::ServerUnaryReactor* AwaitProof(grpc::CallbackServerContext* ctx, const pb::AwaitProofRequest* req,
                                       pb::AwaitProofResponse* resp) override {
    if (auto st = authenticated(*ctx); !st.ok()) return refuse(ctx, st);
    if (auto st = bounded("job_id", req->job_id(), kMaxJobIdBytes); !st.ok()) return refuse(ctx, st);
    auto job = e_.find(req->job_id());
    if (!job) return refuse(ctx, Status(StatusCode::NOT_FOUND, "unknown job id: " + echo(req->job_id())));
    const engine::KindRegistry& kinds = e_.kinds();
    auto w = std::make_shared<Waiter>(job, [resp, &kinds](const JobResult& r) { fill_result(r, kinds, resp); });
    e_.add_waiter(job);
    w->on_cancel = Status(StatusCode::CANCELLED, "call cancelled");
    // 0 = no timeout; others at most kMaxAwaitTimeout (a larger one used to overflow the clock).
    const std::uint64_t asked = req->timeout_ms();
    const auto timeout = std::min<std::chrono::milliseconds>(
        std::chrono::milliseconds(std::min<std::uint64_t>(asked, 1ull << 40)), kMaxAwaitTimeout);
    std::string why = "timed out after " + std::to_string(timeout.count()) + " ms; the job is still running";
    if (asked > std::uint64_t(kMaxAwaitTimeout.count())) why += " (AwaitProof timeouts are clamped to 1 h)";
    return w->start(e_, asked ? &timers_ : nullptr, timeout, std::move(why));
  }

  grpc::ServerUnaryReactor* Prove(grpc::CallbackServerContext* ctx, const pb::ProveRequest* req,
                                  pb::ProveResponse* resp) override {
    Caller caller;
    if (auto st = identify(*ctx, &caller); !st.ok()) return refuse(ctx, st);
    if (!req->has_submit()) return refuse(ctx, Status(StatusCode::INVALID_ARGUMENT, "missing submit field"));
    engine::SubmitOutcome s;
    if (auto st = submit(caller, *const_cast<pb::ProveRequest*>(req)->mutable_submit(), engine::Follow::kWaiting, &s);
        !st.ok()) {
      return refuse(ctx, st);
    }
    const engine::KindRegistry& kinds = e_.kinds();
    auto w = std::make_shared<Waiter>(
        s.job, [resp, &kinds](const JobResult& r) { fill_result(r, kinds, resp->mutable_result()); });
    // If the caller goes away, a PoRep or SnapDeals job keeps running (Curio retries with the same
    // request_id and then joins it); a PoSt job nobody else waits for is cancelled
    // (scheduler.cancel_abandoned, Engine::release_waiter).
    w->on_cancel = Status(StatusCode::CANCELLED, "call cancelled");
    return w->start(e_, nullptr, {}, {});
  }

  Status CancelProof(ServerContext* ctx, const pb::CancelProofRequest* req, pb::CancelProofResponse* resp) override {
    Caller caller;
    if (auto st = identify(*ctx, &caller); !st.ok()) return st;
    if (auto st = bounded("job_id", req->job_id(), kMaxJobIdBytes); !st.ok()) return st;
    auto job = e_.find(req->job_id());
    if (!job) {
      resp->set_found(false);
      return Status::OK;
    }
    if (!caller.admin() && Engine::owner_of(job) != caller.identity) {
      return needs_admin("cancelling a job another client submitted");
    }
    auto out = e_.cancel(req->job_id());
    resp->set_was_running(out.was_running);
    resp->set_found(out.found);
    return Status::OK;
  }

  Status GetStatus(ServerContext* ctx, const pb::GetStatusRequest*, pb::GetStatusResponse* resp) override {
    if (auto st = authenticated(*ctx); !st.ok()) return st;
    engine::StatusSnapshot s = e_.status();
    const std::vector<DeviceInfo> devices = devices_ ? devices_() : std::vector<DeviceInfo>{};
    if (!devices.empty()) {
      // One entry per device: its name and memory, and the job a backend worker of it is proving.
      for (const auto& v : device_views(s, devices)) {
        auto* g = resp->add_gpus();
        g->set_ordinal(v.info.ordinal);
        g->set_name(v.info.name);
        g->set_vram_total_bytes(v.info.total_bytes);
        g->set_vram_free_bytes(v.info.free_bytes);
        g->set_current_job_id(v.job_id);
        g->set_current_proof_kind(v.busy ? e_.kinds().name(v.kind) : "");
      }
    } else {
      // The CPU backend: one entry per backend worker (the Rust daemon lists its GPU workers).
      for (const auto& w : s.workers) {
        if (w.stage != engine::WorkerStage::kBackend || w.urgent) continue;
        auto* g = resp->add_gpus();
        g->set_ordinal(w.device);
        g->set_name("cpu");
        g->set_current_job_id(w.job_id);
        g->set_current_proof_kind(w.job_id.empty() ? "" : e_.kinds().name(w.kind));
      }
    }
    for (const auto& k : s.srs) {
      auto* x = resp->add_loaded_srs();
      x->set_circuit_id(k.id);
      x->set_tier(wire_tier(k.tier));
      x->set_size_bytes(k.bytes);
      x->set_ref_count(k.refs);
      x->set_tier_name(engine::tier_name(k.tier));
      x->set_idle_ms(k.idle_ms);
      x->set_path(k.path);
      x->set_load_time_ms(k.load_ms);
    }
    for (const auto& q : s.queues) {
      auto* x = resp->add_queues();
      x->set_proof_kind(e_.kinds().name(q.kind));
      x->set_pending(q.pending);
      x->set_in_progress(q.in_progress);
    }
    resp->set_total_proofs_completed(s.completed);
    resp->set_total_proofs_failed(s.failed);
    resp->set_uptime_seconds(s.uptime_s);
    resp->set_pinned_memory_bytes(0);  // no pinned tier on the CPU backend
    resp->set_pinned_memory_limit_bytes(0);
    auto* m = resp->mutable_memory();
    m->set_budget_bytes(s.budget_bytes);
    m->set_used_bytes(s.used_bytes);
    m->set_peak_bytes(s.peak_bytes);
    m->set_srs_bytes(s.srs_bytes);
    m->set_partition_bytes(s.partition_bytes);
    m->set_waiters(s.budget_waiters);
    m->set_process_rss_bytes(s.rss_bytes);
    m->set_process_peak_rss_bytes(s.peak_rss_bytes);
    for (const auto& w : s.workers) {
      auto* x = resp->add_workers();
      x->set_stage(w.stage_name());
      x->set_worker_id(w.id);
      x->set_device(w.device);
      x->set_current_job_id(w.job_id);
      x->set_current_partition(w.partition);
      x->set_busy_ms(w.busy_ms);
      x->set_items_done(w.items_done);
    }
    resp->set_total_proofs_cancelled(s.cancelled);
    resp->set_backend(s.backend);
    resp->set_draining(!s.accepting);
    resp->set_jobs_queued(s.jobs_queued + s.jobs_preparing);
    resp->set_jobs_running(s.jobs_running);
    return Status::OK;
  }

  Status GetMetrics(ServerContext* ctx, const pb::GetMetricsRequest*, pb::GetMetricsResponse* resp) override {
    if (auto st = authenticated(*ctx); !st.ok()) return st;
    resp->set_prometheus_text(
        prometheus_text(e_.status(), e_.kinds(), devices_ ? devices_() : std::vector<DeviceInfo>{}));
    return Status::OK;
  }

  // Any caller: loading a known key is what a job would do anyway, and the memory budget bounds it.
  Status PreloadSRS(ServerContext* ctx, const pb::PreloadSrsRequest* req, pb::PreloadSrsResponse* resp) override {
    if (auto st = authenticated(*ctx); !st.ok()) return st;
    if (auto st = bounded("circuit_id", req->circuit_id(), kMaxIdBytes); !st.ok()) return st;
    if (!e_.srs().known(req->circuit_id())) {
      return Status(StatusCode::NOT_FOUND, "unknown circuit ID: " + echo(req->circuit_id()));
    }
    auto r = e_.srs().preload(req->circuit_id());
    if (!r) return Status(StatusCode::FAILED_PRECONDITION, r.error());
    resp->set_already_loaded(r->already_loaded);
    resp->set_load_time_ms(r->load_ms);
    return Status::OK;
  }

  // Admin only: an evicted key costs the next job its load time (a 32 GiB PoRep key: minutes).
  Status EvictSRS(ServerContext* ctx, const pb::EvictSrsRequest* req, pb::EvictSrsResponse* resp) override {
    Caller caller;
    if (auto st = identify(*ctx, &caller); !st.ok()) return st;
    if (!caller.admin()) return needs_admin("EvictSRS");
    if (auto st = bounded("circuit_id", req->circuit_id(), kMaxIdBytes); !st.ok()) return st;
    if (!e_.srs().known(req->circuit_id())) {
      return Status(StatusCode::NOT_FOUND, "unknown circuit ID: " + echo(req->circuit_id()));
    }
    auto r = e_.srs().evict(req->circuit_id());
    if (!r) return Status(StatusCode::FAILED_PRECONDITION, r.error());
    resp->set_was_loaded(r->was_loaded);
    resp->set_freed_bytes(r->freed_bytes);
    return Status::OK;
  }

  // A new id (or the same file again) for any caller; replacing an id's file needs the admin scope.
  Status RegisterCircuit(ServerContext* ctx, const pb::RegisterCircuitRequest* req,
                         pb::RegisterCircuitResponse* resp) override {
    Caller caller;
    if (auto st = identify(*ctx, &caller); !st.ok()) return st;
    if (auto st = bounded("circuit_id", req->circuit_id(), kMaxIdBytes); !st.ok()) return st;
    if (auto st = bounded("zkey_path", req->zkey_path(), kMaxPathBytes); !st.ok()) return st;
    auto path = auth_.resolve("zkey_path", req->zkey_path(), caller);
    if (!path) return Status(StatusCode::PERMISSION_DENIED, path.error());
    bool replaced = false;
    if (auto st = e_.srs().register_zkey(req->circuit_id(), *path, &replaced, caller.admin()); !st) {
      if (st.code() == ErrorCode::kPermissionDenied) {  // another file under the id: the admin's to replace
        return needs_admin("replacing circuit \"" + echo(req->circuit_id()) + "\"");
      }
      return Status(StatusCode::INVALID_ARGUMENT, st.error());
    }
    resp->set_replaced(replaced);
    if (req->preload()) {
      std::uint64_t ms = 0;
      auto lease = e_.srs().acquire(req->circuit_id(), {}, &ms);
      if (!lease) return Status(StatusCode::FAILED_PRECONDITION, lease.error());
      resp->set_num_public((*lease)->n_public);
      resp->set_num_vars((*lease)->n_vars);
      resp->set_num_constraints((*lease)->n_constraints);
      resp->set_domain_size((*lease)->domain_size);
      resp->set_load_time_ms(ms);
    }
    return Status::OK;
  }

 private:
  // The caller of this RPC, or UNAUTHENTICATED.
  Status identify(const grpc::ServerContextBase& ctx, Caller* out) const {
    auto c = auth_.identify(ctx.peer(), authorization(ctx));
    if (!c) return Status(StatusCode::UNAUTHENTICATED, c.error());
    *out = std::move(*c);
    return Status::OK;
  }

  Status authenticated(const grpc::ServerContextBase& ctx) const {
    Caller c;
    return identify(ctx, &c);
  }

  // Bounds, path confinement and the owner, then Engine::submit (errors as gRPC statuses).
  Status submit(const Caller& caller, pb::SubmitProofRequest& r, engine::Follow follow, engine::SubmitOutcome* out) {
    if (auto st = bounded("request_id", r.request_id(), kMaxIdBytes); !st.ok()) return st;
    if (auto st = bounded("circuit_id", r.circuit_id(), kMaxIdBytes); !st.ok()) return st;
    if (auto st = bounded("witness_path", r.witness_path(), kMaxPathBytes); !st.ok()) return st;
    // The witness file is opened here, where its path is checked, and read by the engine through
    // that descriptor: nothing swapped in afterwards (a symlink out of the allowed directories) is read.
    std::shared_ptr<const engine::OpenFile> witness;
    if (!r.witness_path().empty()) {
      auto p = auth_.open("witness_path", r.witness_path(), caller);
      if (!p) return submit_error(p.failure());
      witness = std::make_shared<const engine::OpenFile>(p->fd);
      r.set_witness_path(p->path);
    }
    ProofRequest e = to_engine(r);
    e.witness_file = std::move(witness);
    e.owner = caller.identity;
    // The caller's unfinished jobs, urgent ones counted apart (as the engine admits them apart from
    // max_active_jobs): a slot is taken before the submission and given back when the job ends.
    const engine::Priority prio = e_.kinds().priority(e.priority, e.proof_kind);
    const auto& urgent_from = e_.options().urgent_priority;
    const ClientLimits::Key key{caller.identity, urgent_from && prio >= *urgent_from};
    // At the limit, a retry that joins its job (or reads its stored result) is still answered.
    const bool slot = limits_->take(key);
    auto s = e_.submit(std::move(e), {follow, /*join_only=*/!slot});
    if (slot && (!s || s->joined)) limits_->give_back(key);  // refused, or the same job again: no new job
    if (!s && !slot && s.code() == ErrorCode::kNotFound) {
      return Status(StatusCode::RESOURCE_EXHAUSTED,
                    "client \"" + caller.identity + "\" has " + std::to_string(limits_->limit) + " unfinished " +
                        (key.second ? "urgent " : "") + "jobs, its limit (auth.max_jobs_per_client)");
    }
    if (!s) return submit_error(s.failure());
    if (!s->joined) Engine::on_done(s->job, [l = limits_, key] { l->give_back(key); });
    *out = std::move(*s);
    return Status::OK;
  }

  // Unfinished jobs per caller identity and urgency; shared with the jobs' end callbacks, which may
  // run after the service is gone.
  struct ClientLimits {
    using Key = std::pair<std::string, bool>;
    explicit ClientLimits(std::uint32_t l) : limit(l) {}
    const std::uint32_t limit;  // 0 = none
    std::mutex mu;
    std::map<Key, std::uint32_t> unfinished;
    bool take(const Key& k, bool force = false) {
      std::lock_guard<std::mutex> g(mu);
      auto& n = unfinished[k];
      if (limit && n >= limit && !force) return false;
      ++n;
      return true;
    }
    void give_back(const Key& k) {
      std::lock_guard<std::mutex> g(mu);
      auto it = unfinished.find(k);
      if (it != unfinished.end() && --it->second == 0) unfinished.erase(it);
    }
  };

  Engine& e_;
  DeviceProvider devices_;
  Authenticator auth_;
  std::shared_ptr<ClientLimits> limits_;
  Timers timers_;
};

}  // namespace

struct GrpcServer::Impl {
  std::unique_ptr<Service> service;
  std::unique_ptr<grpc::Server> server;
  std::vector<std::string> endpoints;
  std::vector<std::string> socket_files;
  bool stopped = false;
};

GrpcServer::GrpcServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GrpcServer::~GrpcServer() { shutdown(std::chrono::milliseconds(0)); }

cuzk::Status check_listeners(const ServerOptions& options) {
  if (options.listen.empty()) return Error{"no listen address"};
  auto auth = Authenticator::create(options.auth);
  if (!auth) return Error{auth.error()};
  if (options.tls_cert_pem.empty() != options.tls_key_pem.empty()) {
    return Error{"TLS needs both a certificate and its key"};
  }
  if (options.unix_socket_mode > 0777) return Error{"unix socket mode above 0777"};
  if (!options.unix_socket_group.empty()) {
    if (auto g = group_id(options.unix_socket_group); !g) return Error{g.error()};
  }
  for (const auto& l : options.listen) {
    auto a = parse_listen_address(l);
    if (!a) return Error{"listen " + l + ": " + a.error()};
    if (!a->unix_socket && !auth->has_tokens() && !options.auth.insecure) {
      return Error{"listen " + l + ": a TCP listener needs a bearer token (auth.token_file) or auth.insecure = true"};
    }
  }
  return ok_status();
}

Result<std::unique_ptr<GrpcServer>> GrpcServer::start(Engine& engine, const ServerOptions& options) {
  if (auto st = check_listeners(options); !st) return Error{st.error()};
  auto auth = Authenticator::create(options.auth);
  if (!auth) return Error{auth.error()};
  std::optional<gid_t> group;
  if (!options.unix_socket_group.empty()) group = *group_id(options.unix_socket_group);
  std::vector<ListenAddress> addrs;
  for (const auto& l : options.listen) addrs.push_back(*parse_listen_address(l));
  const bool tls = !options.tls_cert_pem.empty();
  for (const auto& a : addrs) {
    if (a.unix_socket) continue;
    if (!auth->has_tokens()) {
      log()->warn(
          "listen {}: TCP callers need no token (auth.insecure = true); anyone who can connect may prove, "
          "and name no file",
          a.display());
    } else {
      if (!tls) {
        log()->warn("listen {}: tokens travel in clear text (no auth.tls_cert); keep the port on a trusted network",
                    a.display());
      }
      // Curio's client (lib/cuzk/client.go) sends no token and no TLS: it cannot use this listener.
      log()->info(
          "listen {}: callers need a bearer token; Curio's cuzk client sends none, so point Curio's "
          "[Cuzk] Address at a unix socket of this daemon (docs/operator.md, \"Running behind Curio\")",
          a.display());
    }
  }

  auto impl = std::make_unique<Impl>();
  impl->service = std::make_unique<Service>(engine, options.devices, std::move(*auth), options.max_jobs_per_client);
  // Both are process-wide switches read by the next ServerBuilder; setting them again is harmless.
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder b;
  const int limit = static_cast<int>(std::min<std::uint64_t>(options.max_message_bytes, 0x7fffffff));
  b.SetMaxReceiveMessageSize(limit);
  b.SetMaxSendMessageSize(limit);
  if (options.memory_quota_bytes) {
    grpc::ResourceQuota quota("cuzk-server");
    quota.Resize(std::size_t(options.memory_quota_bytes));
    b.SetResourceQuota(quota);
  }
  b.RegisterService(impl->service.get());
  std::shared_ptr<grpc::ServerCredentials> tcp_creds = grpc::InsecureServerCredentials();
  if (tls) {
    grpc::SslServerCredentialsOptions so(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
    so.pem_key_cert_pairs.push_back({options.tls_key_pem, options.tls_cert_pem});
    tcp_creds = grpc::SslServerCredentials(so);
  }
  std::vector<std::unique_ptr<int>> ports;
  for (std::size_t i = 0; i < addrs.size(); ++i) {
    const auto& a = addrs[i];
    if (a.unix_socket) {
      if (auto st = prepare_unix_socket(a.path); !st) return Error{"listen " + options.listen[i] + ": " + st.error()};
      impl->socket_files.push_back(a.path);
    }
    ports.push_back(std::make_unique<int>(0));
    b.AddListeningPort(a.grpc_target(), a.unix_socket ? grpc::InsecureServerCredentials() : tcp_creds,
                       ports.back().get());
  }
  // The sockets are bound by BuildAndStart with the process umask: 0177 for that moment, so that no
  // socket is ever wider than 0600 before the chmod below (the umask is process-wide; nothing else
  // creates files while the daemon starts its servers).
  const mode_t old_umask = impl->socket_files.empty() ? 0 : ::umask(0177);
  impl->server = b.BuildAndStart();
  if (!impl->socket_files.empty()) ::umask(old_umask);
  auto fail = [&](std::string msg) -> Error {
    if (impl->server) {
      impl->server->Shutdown();
      impl->server->Wait();
    }
    for (const auto& f : impl->socket_files) ::unlink(f.c_str());
    return Error{std::move(msg)};
  };
  if (!impl->server) {
    std::string all;
    for (auto& l : options.listen) all += (all.empty() ? "" : ", ") + l;
    return fail("cannot listen on " + all + " (address in use or not permitted?)");
  }
  for (const auto& f : impl->socket_files) {
    if (group && ::chown(f.c_str(), uid_t(-1), *group) != 0) {
      return fail("unix socket " + f + ": cannot give it group " + options.unix_socket_group + ": " +
                  std::strerror(errno));
    }
    if (::chmod(f.c_str(), mode_t(options.unix_socket_mode)) != 0) {
      return fail("unix socket " + f + ": chmod: " + std::strerror(errno));
    }
  }
  for (std::size_t i = 0; i < addrs.size(); ++i) {
    if (addrs[i].unix_socket) {
      impl->endpoints.push_back(addrs[i].display());
    } else {
      if (*ports[i] == 0) return fail("cannot listen on " + options.listen[i]);
      impl->endpoints.push_back(addrs[i].host + ":" + std::to_string(*ports[i]));
    }
  }
  auto server = std::unique_ptr<GrpcServer>(new GrpcServer(std::move(impl)));
  server->set_serving(true);
  return server;
}

const std::vector<std::string>& GrpcServer::endpoints() const { return impl_->endpoints; }

void GrpcServer::set_serving(bool serving) {
  if (!impl_ || impl_->stopped) return;
  grpc::HealthCheckServiceInterface* h = impl_->server->GetHealthCheckService();
  if (!h) return;
  h->SetServingStatus(serving);  // every service name, "" included
  h->SetServingStatus(pb::ProvingEngine::service_full_name(), serving);
}

void GrpcServer::shutdown(std::chrono::milliseconds grace) {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  impl_->server->Shutdown(std::chrono::system_clock::now() + grace);
  impl_->server->Wait();
  for (const auto& f : impl_->socket_files) ::unlink(f.c_str());
}

void route_grpc_logs_to_spdlog() {
  gpr_set_log_function([](gpr_log_func_args* a) {
    auto log = spdlog::get("server");
    if (!log) log = spdlog::default_logger();
    const auto level = a->severity == GPR_LOG_SEVERITY_ERROR  ? spdlog::level::err
                       : a->severity == GPR_LOG_SEVERITY_INFO ? spdlog::level::info
                                                              : spdlog::level::debug;
    log->log(level, "grpc: {} ({}:{})", a->message ? a->message : "", a->file ? a->file : "?", a->line);
  });
}

}  // namespace cuzk::server
