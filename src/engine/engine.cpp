// Engine's public API and its status snapshot; the threads and stages are pipeline.hpp/.cpp's.
#include "engine/engine.hpp"

#include <algorithm>
#include <tuple>

#include "engine/log.hpp"
#include "engine/pipeline.hpp"
#include "engine/units.hpp"

namespace cuzk::engine {

using Clock = std::chrono::steady_clock;

std::optional<JobResult> Engine::result_of(const std::shared_ptr<Job>& job) {
  return job ? job->current_result() : std::nullopt;
}

std::string Engine::id_of(const std::shared_ptr<Job>& job) { return job ? job->id : std::string(); }
std::string Engine::owner_of(const std::shared_ptr<Job>& job) { return job ? job->owner : std::string(); }
std::uint64_t Engine::on_done(const std::shared_ptr<Job>& job, std::function<void()> f) {
  return job->on_done(std::move(f));
}
void Engine::forget_done(const std::shared_ptr<Job>& job, std::uint64_t handle) { job->forget_done(handle); }
JobResult Engine::timeout_result(const std::shared_ptr<Job>& job, std::string why) {
  JobResult r;
  r.job_id = job->id;
  r.status = ResultStatus::kTimeout;
  r.proof_kind = job->kind;
  r.error = std::move(why);
  return r;
}

using pipeline::key_of;
using pipeline::ms_between;
using pipeline::TaskPtr;

KeyPlacement key_placement(const EngineOptions& o, const Executor& executor, const LoadedKey& key,
                           const std::function<bool(std::uint32_t)>& in_service) {
  KeyPlacement p;
  p.host_bases = false;
  auto add = [&](BackendSlot slot) {
    if (executor.uses_copies(slot)) {
      if (!in_service || in_service(slot.device)) p.copies.push_back(slot);
      return;
    }
    p.host_bases = true;
  };
  for (std::uint32_t d : o.devices) add({d, false});
  // Any urgent partition of a small enough key may take the lane (scheduler.hpp), whatever its kind.
  if (o.urgent_priority && key.pk.domain_log2 <= o.lane_max_domain_log2)
    for (std::uint32_t d : o.lane_devices) add({d, true});
  return p;
}

bool may_decode_bases(const EngineOptions& o, const Executor& executor) {
  for (std::uint32_t d : o.devices)
    if (!executor.uses_copies({d, false})) return true;
  if (o.urgent_priority)
    for (std::uint32_t d : o.lane_devices)
      if (!executor.uses_copies({d, true})) return true;
  return false;
}

// ------------------------------------------------------------------------------------ Engine

Engine::Engine(EngineOptions options) : options_(std::move(options)) {
  if (options_.devices.empty()) options_.devices = {0};
  options_.prepare_workers = std::max<std::uint32_t>(1, options_.prepare_workers);
  options_.synthesis_workers = std::max<std::uint32_t>(1, options_.synthesis_workers);
  options_.workers_per_device = std::max<std::uint32_t>(1, options_.workers_per_device);
  options_.finalizer_threads = std::max<std::uint32_t>(1, options_.finalizer_threads);
  if (options_.partition_memory_factor <= 0) options_.partition_memory_factor = 1.0;
  if (!options_.executor) options_.executor = make_cpu_executor();
  if (options_.lane_devices.empty() || !options_.urgent_priority) options_.lane_devices.clear();
  budget_ = std::make_unique<MemoryBudget>(options_.memory_budget_bytes);
  {
    const std::uint64_t total = options_.memory_budget_bytes;
    const std::uint64_t slice = std::min(options_.request_budget_bytes, total / 2);
    options_.request_budget_bytes = slice;
    requests_ = std::make_unique<MemoryBudget>(slice);
    if (slice) request_slice_ = std::move(*budget_->try_reserve(slice, MemoryBudget::kRequests));
  }
  SrsManager::Options so;
  so.param_cache = options_.param_cache;
  so.min_idle = options_.srs_min_idle;
  so.executor = options_.executor;
  so.placement = [this](const LoadedKey& k) {
    return key_placement(options_, *options_.executor, k,
                         [this](std::uint32_t d) { return !impl_ || impl_->in_service_ordinal(d); });
  };
  so.may_decode_bases = [this] { return may_decode_bases(options_, *options_.executor); };
  so.copy_failed = [this](BackendSlot slot) { return impl_ && impl_->copy_failed(slot); };
  so.loaders = options_.kinds.loaders();
  {
    std::vector<std::shared_ptr<const KeyLoader>> deadline;  // the deadline-bound kinds' loaders
    for (std::uint32_t k : options_.kinds.deadline_bound())
      if (const KindRow* row = options_.kinds.find(k))
        deadline.insert(deadline.end(), row->loaders.begin(), row->loaders.end());
    so.deadline_bound = [deadline](std::string_view id) {
      return std::any_of(deadline.begin(), deadline.end(), [&](const auto& l) { return l->parse(id).has_value(); });
    };
  }
  srs_ = std::make_unique<SrsManager>(*budget_, std::move(so));
  impl_ = std::make_unique<Impl>(options_, *budget_, *srs_);
  Impl& im = *impl_;

  budget_->set_evictor([this](std::uint64_t needed) { return srs_->evict_idle(needed); });
  budget_->add_listener([&im] { im.kick_dispatcher(); });

  const std::uint32_t backend_workers = std::uint32_t(options_.devices.size()) * options_.workers_per_device;
  im.backend_q.set_capacity(options_.backend_queue_depth ? options_.backend_queue_depth : 2 * backend_workers);
  im.final_q.set_capacity(backend_workers + options_.finalizer_threads);
  if (!options_.lane_devices.empty() && options_.lane == LaneKind::kOff)
    options_.lane = options_.executor->uses_copies({options_.lane_devices[0], true}) ? LaneKind::kGpu : LaneKind::kCpu;
  im.policy = UrgencyPolicy{options_.urgent_priority, !options_.lane_devices.empty(), options_.lane_max_domain_log2};
  im.free_slots = {options_.synthesis_workers, options_.urgent_priority ? options_.urgent_synthesis_workers : 0,
                   im.policy.lane ? options_.lane_synthesis_workers : 0};
  im.device_busy.assign(options_.devices.size(), 0);
  im.dev = std::vector<Impl::DeviceState>(options_.devices.size());
  im.start_threads();
}

Engine::~Engine() {
  shutdown();
  // The budget's callbacks point into impl_ and srs_: detach them before either goes.
  budget_->detach_callbacks();
  impl_.reset();  // what is left returns its reservations to the budget, which is still alive
  srs_.reset();
  request_slice_.reset();
  requests_.reset();
  budget_.reset();
}

void Engine::register_kind(std::uint32_t kind, std::shared_ptr<JobKind> impl) {
  std::lock_guard<std::mutex> g(impl_->mu);
  KindRow row;
  if (const KindRow* old = options_.kinds.find(kind)) row = *old;
  row.wire = kind;
  if (row.name.empty()) row.name = impl->name();
  row.kind = std::move(impl);
  options_.kinds.put(std::move(row));
}

const KindRegistry& Engine::kinds() const { return options_.kinds; }

Micros Engine::now_us() const { return impl_->now(); }

namespace {

bool ended_badly(const Job& j) {
  auto r = j.current_result();
  return r && r->status != ResultStatus::kCompleted;
}

// Where a request goes in the job table: the ids a request_id may have are the plain id, then
// id@<tag>, id@<tag>-2, ... (the tag from the content digest, so a retry finds its job again).
struct IdSlot {
  std::string id;              // the job of this content's id, else where a new job goes
  std::shared_ptr<Job> same;   // the job of this request_id and content, if any
  std::shared_ptr<Job> other;  // a job of this request_id with other content (for the log line)
};

IdSlot find_slot(const std::map<std::string, std::shared_ptr<Job>>& jobs, const std::string& request_id,
                 const ContentDigest& digest) {
  IdSlot s;
  const std::string tagged = request_id + "@" + content_tag(digest);
  for (std::uint32_t n = 0;; ++n) {
    const std::string id = n == 0 ? request_id : n == 1 ? tagged : tagged + "-" + std::to_string(n);
    auto it = jobs.find(id);
    if (it == jobs.end()) {
      if (s.id.empty()) s.id = id;
      if (n == 0) continue;  // the plain id expired; a tagged one may still hold this content
      return s;
    }
    const std::shared_ptr<Job>& j = it->second;
    if (j->digest == digest) {
      s.id = id;
      s.same = j;
      return s;
    }
    if (!s.other) s.other = j;
    // A failed or cancelled run of other content gives its id up (a corrected C1 under Curio's
    // porep-<miner>-<sector> keeps the plain id); a running or completed one keeps it.
    if (s.id.empty() && ended_badly(*j)) s.id = id;
  }
}

}  // namespace

Result<SubmitOutcome> Engine::submit(ProofRequest request, SubmitOptions how) {
  Impl& im = *impl_;
  // Ids and names are kept for the job's life and echoed in logs and errors: bounded.
  for (const auto& [field, value, limit] :
       {std::tuple<const char*, const std::string&, std::size_t>{"request_id", request.request_id, kMaxIdBytes},
        {"circuit_id", request.circuit_id, kMaxIdBytes},
        {"witness_path", request.witness_path, kMaxPathBytes}}) {
    if (value.size() > limit) {
      return Error{std::string(field) + " is " + std::to_string(value.size()) + " bytes; at most " +
                       std::to_string(limit) + " are accepted",
                   ErrorCode::kInvalidArgument};
    }
  }
  if (request.request_id.empty()) request.request_id = make_uuid_v4();
  const ContentDigest digest = request.content_digest();  // outside the lock: a C1 is ~50 MB

  std::shared_ptr<Job> job;
  bool unknown_kind = false;
  SubmitOutcome out;
  {
    std::lock_guard<std::mutex> g(im.mu);
    IdSlot slot = find_slot(im.jobs, request.request_id, digest);
    // Joined unless it failed or was cancelled, or is being cancelled as abandoned.
    const bool rerun = slot.same && (slot.same->current_result() ? ended_badly(*slot.same) : slot.same->abandoned);
    if (slot.same && !rerun) {
      Job& existing = *slot.same;
      if (how.follow == Follow::kWaiting) ++existing.waiters;
      else existing.fetched_later = true;
      log::engine()->debug("job {}: the same request again, joined the {} job", existing.id,
                           existing.current_result() ? "finished" : "running");
      out.job_id = existing.id;
      out.joined = true;
      out.job = slot.same;
      return out;
    }
    if (how.join_only) {
      return Error{"no job of request_id \"" + request.request_id + "\" with this content to join",
                   ErrorCode::kNotFound};
    }
    // Urgent jobs are counted apart: unfinished PoRep jobs never refuse a WinningPoSt.
    const Priority prio = options_.kinds.priority(request.priority, request.proof_kind);
    const bool urgent = im.policy.urgent(prio);
    if (auto st =
            admit(im.accepting, urgent ? im.active_urgent : im.active - im.active_urgent, options_.max_active_jobs);
        !st) {
      log::engine()->warn("job {} ({}) refused: {}", request.request_id, options_.kinds.name(request.proof_kind),
                          st.error());
      return st.failure();
    }
    // The request's bytes, held until its job ends, in the requests' slice of the budget (if any). A
    // request larger than the whole slice takes all of it (so it is taken only when no other is held:
    // the slice plus one largest message is what gRPC's quota allows too).
    const std::uint64_t held = request.held_bytes();
    auto charge = requests_->total()
                      ? requests_->try_reserve(std::min(held, requests_->total()), MemoryBudget::kRequests,
                                               /*jump_queue=*/true)
                      : std::optional<Reservation>(Reservation());
    if (!charge) {
      const std::string why = "memory for requests is full: this request's " + format_bytes(held) + " do not fit the " +
                              format_bytes(requests_->total() - std::min(requests_->total(), requests_->used())) +
                              " left of the " + format_bytes(requests_->total()) +
                              " that unfinished jobs' requests may hold (memory.request_budget); retry later";
      log::engine()->warn("job {} ({}) refused: {}", request.request_id, options_.kinds.name(request.proof_kind), why);
      return Error{why, ErrorCode::kResourceExhausted};
    }
    if (auto it = im.jobs.find(slot.id); it != im.jobs.end()) {
      // Run again under its id: this content's failed, cancelled or abandoned run, or a failed or
      // cancelled run of other content (whose result stays readable until now).
      const Job& old = *it->second;
      const auto r = old.current_result();
      const char* why = !r ? "was abandoned" : r->status == ResultStatus::kCancelled ? "was cancelled" : "failed";
      log::engine()->info("job {}: its last run {}; running it again{}", old.id, why,
                          slot.same ? "" : " with the new request");
      if (slot.other == it->second) slot.other = nullptr;
      im.jobs.erase(it);
    }
    job = std::make_shared<Job>();
    job->id = slot.id;
    job->request_id = request.request_id;
    job->seq = im.next_seq++;
    job->kind = request.proof_kind;
    job->priority = prio;
    job->digest = digest;
    job->submitted = im.now();
    job->owner = request.owner;
    if (how.follow == Follow::kWaiting) job->waiters = 1;
    else job->fetched_later = true;
    if (slot.other) {
      // Curio sends every WindowPoSt partition of a deadline under one id (wdpost-<miner>-0-<rand>).
      log::engine()->info(
          "job {}: request_id \"{}\" is also job {} with other content; this request is a job "
          "of its own",
          job->id, job->request_id, slot.other->id);
    }
    job->req = std::make_shared<const ProofRequest>(std::move(request));
    job->request_charge = std::move(*charge);
    im.jobs[job->id] = job;
    ++im.active;
    if (urgent) ++im.active_urgent;
    unknown_kind = options_.kinds.find(job->kind) == nullptr;
    if (!unknown_kind) {
      const RunKey k = key_of(*job, 0);
      out.queue_position = im.sched.position(k, im.active);
      im.sched.queue_job(k, job);
    }
  }
  log::engine()->info("job {} accepted: {}, priority {}, {} job(s) ahead", job->id, im.kind_name(job->kind),
                      priority_name(job->priority), out.queue_position);
  if (unknown_kind) {
    im.fail(job, options_.kinds.unknown_kind_message(job->kind));
  } else {
    im.prepare_cv.notify_all();  // preparers differ in what they take
    im.timeline("JOB_QUEUED", job->id, "kind=" + im.kind_name(job->kind) + ",priority=" + priority_name(job->priority));
  }
  out.job_id = job->id;
  out.job = job;
  return out;
}

void Engine::add_waiter(const std::shared_ptr<Job>& job) {
  std::lock_guard<std::mutex> g(impl_->mu);
  ++job->waiters;
}

bool Engine::release_waiter(const std::shared_ptr<Job>& job, bool caller_left) {
  Impl& im = *impl_;
  {
    std::lock_guard<std::mutex> g(im.mu);
    if (job->waiters > 0) --job->waiters;
    if (!caller_left || job->waiters > 0 || job->fetched_later || job->abandoned || job->stop.load()) return false;
    if (!im.cancels_abandoned(job->kind)) return false;
    job->abandoned = true;  // under mu: a request that joins from now on runs it again instead
  }
  const std::string why =
      "abandoned: the call waiting for it was cancelled by its caller and nobody else waits "
      "for it (scheduler.cancel_abandoned includes " +
      im.kind_name(job->kind) + ")";
  log::engine()->info("job {}: {}; cancelling it", job->id, why);
  return im.finish(job, ResultStatus::kCancelled, {}, why);
}

JobResult Engine::wait(const std::shared_ptr<Job>& job, std::chrono::milliseconds timeout,
                       const std::function<bool()>& abandon) {
  return job->wait(timeout, abandon);
}

std::shared_ptr<Job> Engine::find(const std::string& job_id) const {
  std::lock_guard<std::mutex> g(impl_->mu);
  auto it = impl_->jobs.find(job_id);
  return it == impl_->jobs.end() ? nullptr : it->second;
}

JobResult Engine::prove(ProofRequest request) {
  std::string id = request.request_id;
  std::uint32_t kind = request.proof_kind;
  auto s = submit(std::move(request));  // Follow::kLater: an in-process caller never abandons
  if (!s) {
    JobResult r;
    r.job_id = id;
    r.status = ResultStatus::kFailed;
    r.error = s.error();
    r.proof_kind = kind;
    return r;
  }
  return wait(s->job);
}

CancelOutcome Engine::cancel(const std::string& job_id, const std::string& reason) {
  auto job = find(job_id);
  CancelOutcome out;
  if (!job) return out;
  out.found = true;
  out.was_running = impl_->finish(job, ResultStatus::kCancelled, {}, reason);
  return out;
}

void Engine::cancel_all(const std::string& reason) {
  std::vector<std::shared_ptr<Job>> all;
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    for (auto& [_, j] : impl_->jobs)
      if (!j->stop.load()) all.push_back(j);
  }
  for (auto& j : all) impl_->finish(j, ResultStatus::kCancelled, {}, reason);
}

void Engine::stop_accepting() {
  std::uint32_t active = 0;
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    if (!impl_->accepting) return;
    impl_->accepting = false;
    active = impl_->active;
  }
  log::engine()->info("no longer accepting jobs ({} unfinished)", active);
}

bool Engine::accepting() const {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->accepting;
}

bool Engine::drain(std::chrono::milliseconds timeout) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lk(impl_->mu);
  const std::uint32_t at_start = impl_->active;
  if (at_start == 0) return true;
  lk.unlock();
  log::engine()->info("draining: {} unfinished job(s), waiting up to {} ms", at_start, timeout.count());
  lk.lock();
  const bool drained = impl_->idle_cv.wait_for(lk, timeout, [&] { return impl_->active == 0; });
  const std::uint32_t left = impl_->active;
  lk.unlock();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  if (drained) log::engine()->info("drained in {} ms: no unfinished jobs", ms);
  else log::engine()->warn("drain timed out after {} ms: {} job(s) left", ms, left);
  return drained;
}

void Engine::shutdown() {
  if (!impl_) return;
  Impl& im = *impl_;
  {
    std::lock_guard<std::mutex> g(im.mu);
    if (im.stopping) return;
    im.accepting = false;
  }
  cancel_all("the daemon is shutting down");
  {
    std::lock_guard<std::mutex> g(im.mu);
    im.stopping = true;
  }
  for (auto* cv : {&im.prepare_cv, &im.dispatch_cv, &im.janitor_cv, &im.watchdog_cv}) cv->notify_all();
  for (auto& q : im.synth_q) q.wake_all();
  im.backend_q.wake_all();
  im.lane_q.wake_all();
  im.final_q.wake_all();
  for (auto& t : im.threads) t.join();
  im.threads.clear();
  // Tasks left in queues are dropped here, outside the lock; their reservations return to the budget.
  std::pair<std::vector<std::shared_ptr<Job>>, std::vector<TaskPtr>> queued;
  std::vector<TaskPtr> staged;
  {
    std::lock_guard<std::mutex> g(im.mu);
    queued = im.sched.take_all();
    for (auto& q : im.synth_q)
      for (auto& t : q.take_all()) staged.push_back(std::move(t));
    for (auto* q : {&im.backend_q, &im.lane_q, &im.final_q})
      for (auto& t : q->take_all()) staged.push_back(std::move(t));
  }
}

// ------------------------------------------------------------------------------------ status

StatusSnapshot Engine::status() const {
  Impl& im = *impl_;
  StatusSnapshot s;
  s.backend = backend_name(options_.backend);
  s.gpu_bytes = options_.executor->workspace_bytes();
  for (const SrsInfo& k : srs_->list())
    for (const SrsCopyInfo& c : k.copies) s.gpu_bytes += c.device_bytes;
  s.budget_bytes = budget_->total();
  s.used_bytes = budget_->used();
  s.peak_bytes = budget_->peak();
  s.srs_bytes = budget_->used(MemoryBudget::kSrs);
  s.partition_bytes = budget_->used(MemoryBudget::kPartition);
  s.budget_waiters = budget_->waiters();
  s.parse_bytes = budget_->used(MemoryBudget::kParse);
  s.request_bytes = requests_->used();
  s.request_budget_bytes = requests_->total();
  s.rss_bytes = process_rss_bytes();
  s.peak_rss_bytes = process_peak_rss_bytes();
  s.srs = srs_->list();
  std::lock_guard<std::mutex> g(im.mu);
  s.now = im.now();
  s.uptime_s = s.now / 1000000;
  s.accepting = im.accepting;
  s.completed = im.completed;
  s.failed = im.failed;
  s.cancelled = im.cancelled;
  s.by_kind = im.by_kind;
  s.sched_depth = std::uint32_t(im.sched.queued_partitions());
  s.synth_queue = 0;
  for (const auto& q : im.synth_q) s.synth_queue += std::uint32_t(q.size());
  s.lane = options_.lane_devices.empty() ? "" : lane_name(options_.lane);
  s.lane_queue = std::uint32_t(im.lane_q.size());
  s.lane_partitions = im.lane_partitions;
  s.urgent_headroom_bytes = im.headroom();
  for (std::size_t i = 0; i < im.dev.size(); ++i) {
    const Impl::DeviceState& d = im.dev[i];
    DeviceSnapshot ds;
    ds.ordinal = options_.devices[i];
    ds.in_service = !d.out.load();
    ds.fault = d.fault;
    ds.busy_s = double(d.busy_us + (d.busy_since && s.now > d.busy_since ? s.now - d.busy_since : 0)) / 1e6;
    ds.partitions = d.partitions;
    ds.requeued = d.requeued;
    ds.suspect = d.suspect;
    ds.returned = d.returned;
    s.devices.push_back(std::move(ds));
  }
  s.backend_queue = std::uint32_t(im.backend_q.size());
  s.finalize_queue = std::uint32_t(im.final_q.size());
  s.synthesis_workers = options_.synthesis_workers;
  s.backend_workers = std::uint32_t(options_.devices.size()) * options_.workers_per_device;
  s.finalizers = options_.finalizer_threads;
  for (int i = 0; i < 4; ++i) s.stage_sum_s[i] = im.stage_sum_s[i];
  s.peak_rss_bytes = std::max(s.peak_rss_bytes, im.tracked_peak_rss);
  s.sizing = im.sizer.table();
  s.stage_count = im.stage_count;
  std::map<std::uint32_t, QueueSnapshot> q;
  im.sched.for_each_job([&](const std::shared_ptr<Job>& j) { q[j->kind].pending++; });
  im.sched.for_each_partition([&](const TaskPtr& t) { q[t->job->kind].pending++; });
  for (auto& [k, n] : im.in_progress_by_kind)
    if (n) q[k].in_progress += n;
  for (auto& [k, v] : q) {
    QueueSnapshot qs = v;
    qs.kind = k;
    s.queues.push_back(qs);
  }
  for (const auto& sl : im.slots) {
    WorkerSnapshot w;
    w.stage = sl.stage;
    w.urgent = sl.urgent;
    w.id = sl.id;
    w.device = sl.device;
    w.job_id = sl.job_id;
    w.kind = sl.kind;
    w.partition = sl.partition;
    w.busy_ms = sl.busy_since ? ms_between(sl.busy_since, s.now) : 0;
    w.items_done = sl.done;
    s.workers.push_back(std::move(w));
  }
  for (auto& [id, j] : im.jobs) {
    if (j->stop.load()) continue;
    std::lock_guard<std::mutex> jg(j->mu);
    JobSnapshot js;
    js.id = id;
    js.kind = j->kind;
    js.priority = j->priority;
    js.state = j->state == Job::State::kQueued      ? "queued"
               : j->state == Job::State::kPreparing ? "preparing"
                                                    : "running";
    if (j->state == Job::State::kQueued) ++s.jobs_queued;
    else if (j->state == Job::State::kPreparing) ++s.jobs_preparing;
    else ++s.jobs_running;
    js.circuit_id = j->circuit_id;
    js.partitions = j->num_parts;
    js.partitions_done = j->parts_done;
    js.age_ms = ms_between(j->submitted, s.now);
    js.times = j->times;
    s.jobs.push_back(std::move(js));
  }
  return s;
}

}  // namespace cuzk::engine
