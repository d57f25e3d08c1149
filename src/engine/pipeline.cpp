// The engine's stages (see pipeline.hpp): prepare, dispatch, synthesis, backend, finalize, and the
// janitor that drops expired results.
#include <algorithm>

#include "base/exception_barrier.hpp"
#include "engine/log.hpp"
#include "engine/pipeline.hpp"
#include "engine/units.hpp"

namespace cuzk::engine {

using pipeline::key_of;
using pipeline::ms_between;
using Task = pipeline::Task;
using TaskPtr = pipeline::TaskPtr;

Micros Engine::Impl::now() const {
  return Micros(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

void Engine::Impl::stamp(Job& job, std::uint32_t partition, Micros PartitionTimes::*field) const {
  std::lock_guard<std::mutex> g(job.mu);
  job.times[partition].*field = now();
}

void Engine::Impl::timeline(const char* event, const std::string& job, const std::string& detail) {
  if (!opt.timeline_sink) return;
  opt.timeline_sink("TIMELINE," + std::to_string(now() / 1000) + "," + event + "," + job + "," + detail);
}

void Engine::Impl::kick_dispatcher() {
  {
    std::lock_guard<std::mutex> g(mu);
    sched.changed();
  }
  dispatch_cv.notify_all();
}

std::size_t Engine::Impl::add_slot(WorkerStage stage, bool urgent, std::uint32_t id, std::uint32_t device) {
  slots.push_back(Slot{stage, urgent, id, device, {}, 0, 0, 0, 0});
  return slots.size() - 1;
}

void Engine::Impl::slot_busy(std::size_t s, const Job& j, std::uint32_t partition) {
  slots[s].job_id = j.id;
  slots[s].kind = j.kind;
  slots[s].partition = partition;
  slots[s].busy_since = now();
}

void Engine::Impl::slot_idle(std::size_t s) {
  slots[s].job_id.clear();
  slots[s].busy_since = 0;
  slots[s].done++;
}

void Engine::Impl::end_in_progress(std::uint32_t kind) {
  auto it = in_progress_by_kind.find(kind);
  if (it != in_progress_by_kind.end() && it->second > 0) it->second--;
}

bool Engine::Impl::finish(const std::shared_ptr<Job>& job, ResultStatus st, std::string proof, std::string error,
                          std::uint64_t verify_ms) {
  auto claim = job->claim(st, std::move(proof), std::move(error), verify_ms, now());
  if (!claim) return false;
  const JobResult& r = claim->result;
  std::vector<TaskPtr> dropped;
  {
    std::lock_guard<std::mutex> g(mu);
    auto mine = [&](const TaskPtr& t) { return t->job == job; };
    dropped = sched.drop([&](const std::shared_ptr<Job>& j) { return j == job; }, mine);
    for (auto* q : {&backend_q, &lane_q}) {
      for (auto& t : q->drop(mine)) {  // dispatched: counted in progress until now
        end_in_progress(t->job->kind);
        dropped.push_back(std::move(t));
      }
    }
    // Every wire value no kind serves shares one entry, so unknown kinds cannot grow the map.
    auto& kc = by_kind[opt.kinds.find(job->kind) ? job->kind : kUnknownKind];
    if (st == ResultStatus::kCompleted) {
      ++completed;
      ++kc.completed;
      kc.observe_duration(r.total_ms / 1000.0);
    } else if (st == ResultStatus::kCancelled) {
      ++cancelled;
      ++kc.cancelled;
    } else {
      ++failed;
      ++kc.failed;
    }
    if (active > 0) --active;
    if (policy.urgent(job->priority) && active_urgent > 0) --active_urgent;
    finished.emplace_back(r.completed, job->id);
  }
  if (st != ResultStatus::kCompleted) {
    timeline(st == ResultStatus::kCancelled ? "JOB_CANCELLED" : "JOB_FAILED", job->id, r.error);
  } else {
    timeline("JOB_DONE", job->id, "total_ms=" + std::to_string(r.total_ms));
  }
  log_end(*job, r);
  // Published only now, so that whoever sees the result also sees the counters.
  job->publish(std::move(claim->result));
  backend_q.notify_space();
  lane_q.notify_space();
  final_q.notify_space();
  dispatch_cv.notify_all();
  idle_cv.notify_all();
  janitor_cv.notify_all();
  dropped.clear();  // reservations go back here, outside every lock
  claim.reset();    // and the proving-key lease and the request
  return true;
}

void Engine::Impl::log_end(const Job& job, const JobResult& r) const {
  const std::string kind = kind_name(job.kind);
  const double total_s = r.total_ms / 1000.0;
  if (r.status == ResultStatus::kCompleted) {
    log::engine()->info(
        "job {} done: {} in {:.3f} s, {} partition(s), queue wait {} ms, key {} ms, synthesis {} ms, "
        "prove {} ms, verify {} ms",
        job.id, kind, total_s, r.num_partitions, r.queue_wait_ms, r.srs_load_ms, r.synthesis_ms, r.gpu_compute_ms,
        r.verify_ms);
  } else if (r.status == ResultStatus::kCancelled) {
    log::engine()->info("job {} cancelled: {} after {:.3f} s: {}", job.id, kind, total_s, r.error);
  } else {
    log::engine()->error("job {} failed: {} after {:.3f} s: {}", job.id, kind, total_s, r.error);
  }
}

void Engine::Impl::fail(const std::shared_ptr<Job>& job, std::string error) {
  finish(job, ResultStatus::kFailed, {}, std::move(error));
}

void Engine::Impl::prepare_loop(std::size_t slot, std::optional<Priority> at_least) {
  while (true) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lk(mu);
      prepare_cv.wait(lk, [&] { return stopping || sched.has_jobs(at_least); });
      if (stopping) return;
      job = *sched.next_job(at_least);
      slot_busy(slot, *job, 0);
    }
    // The barrier: a kind that throws (an allocation its parser did not bound, say) fails its job only.
    try {
      prepare_one(job);
    } catch (...) {
      fail(job, "prepare: " + current_exception_message());
    }
    {
      std::lock_guard<std::mutex> g(mu);
      slot_idle(slot);
    }
  }
}

void Engine::Impl::prepare_one(const std::shared_ptr<Job>& job) {
  std::shared_ptr<const ProofRequest> req;
  {
    std::lock_guard<std::mutex> g(job->mu);
    if (!job->req) return;  // already claimed
    job->state = Job::State::kPreparing;
    req = job->req;
  }
  std::shared_ptr<JobKind> kind;
  {
    std::lock_guard<std::mutex> g(mu);
    if (const KindRow* row = opt.kinds.find(job->kind)) kind = row->kind;
  }
  if (!kind) return fail(job, opt.kinds.unknown_kind_message(job->kind));
  PrepareContext ctx{srs, CancelToken(&job->stop), 0, opt.allow_witness_paths, opt.executor->memory_model(), {}};
  // The parse's memory first: at once when it fits (ahead of a key load waiting for memory, as
  // partitions go, so that a WinningPoSt never waits behind a PoRep key), else in the FIFO queue
  // until partitions that finish free it.
  const std::uint64_t parse = kind->parse_bytes(*req);
  const std::uint64_t outside_slice = budget.total() - std::min(budget.total(), opt.request_budget_bytes);
  if (parse > outside_slice) {  // could never fit
    return fail(job, kind->name() + ": parsing the request needs " + format_bytes(parse) +
                         " of memory, more than the " + format_bytes(outside_slice) +
                         " of the memory budget outside the requests' slice");
  }
  auto parse_res = [&]() -> Result<Reservation> {
    if (auto r = budget.try_reserve(parse, MemoryBudget::kParse, /*jump_queue=*/true)) return std::move(*r);
    return budget.reserve(parse, MemoryBudget::kParse, ctx.cancel.as_function());
  }();
  if (!parse_res) {
    if (ctx.cancel.cancelled()) return;  // the job has its result already
    return fail(
        job, kind->name() + ": parsing the request needs " + format_bytes(parse) + " of memory: " + parse_res.error());
  }
  ctx.parse = std::move(*parse_res);
  auto prepared = kind->prepare(std::move(req), ctx);
  ctx.parse.reset();
  if (!prepared) return fail(job, prepared.error());
  std::shared_ptr<PreparedJob> p(std::move(*prepared));
  const std::uint32_t n = p->num_partitions();
  if (n == 0) return fail(job, kind->name() + ": the job has no partitions");
  const std::string sizing_key = kind->name() + "/" + p->circuit_id();
  std::vector<PartitionMemory> mems(n);
  std::vector<Urgency> urgency(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    // The key's domain says whether an urgent partition is small enough for the lane.
    urgency[i] = policy.classify(job->priority, p->key(i).domain_log2);
    Result<PartitionMemory> sized = [&] {
      std::lock_guard<std::mutex> g(mu);
      return sizer.size(sizing_key, i, p->partition_memory(i), budget.total());
    }();
    if (!sized) return fail(job, kind->name() + ": " + sized.error());
    const PartitionMemory m = *sized;
    mems[i] = m;
    if (urgency[i] != Urgency::kNormal) {
      std::lock_guard<std::mutex> g(mu);
      auto& h = learned_headroom[std::size_t(urgency[i])];
      h = std::max(h, m.full);
    }
  }
  const Micros t = now();
  {
    std::lock_guard<std::mutex> g(job->mu);
    if (!job->req) return;  // claimed while preparing
    job->prepared = p;
    job->circuit_id = p->circuit_id();
    job->num_parts = n;
    job->proofs.assign(n, std::nullopt);
    job->times.assign(n, PartitionTimes{});
    for (std::uint32_t i = 0; i < n; ++i) {
      job->times[i].index = i;
      job->times[i].queued = t;
    }
    job->srs_load_ms = ctx.srs_load_ms;
    job->state = Job::State::kRunning;
  }
  log::engine()->info("job {} prepared: {}, {} partition(s), key {} (ready in {} ms)", job->id, kind->name(), n,
                      p->circuit_id(), ctx.srs_load_ms);
  {
    std::lock_guard<std::mutex> g(mu);
    if (job->stop.load()) return;
    for (std::uint32_t i = 0; i < n; ++i) {
      auto task = Task::make(job, p, i, mems[i], sizing_key, urgency[i]);
      sched.queue_partition(key_of(*job, i), mems[i].full, std::move(task), urgency[i]);
    }
  }
  dispatch_cv.notify_all();
}

PerUrgency64 Engine::Impl::headroom() const {
  if (!opt.urgent_priority) return {};  // nothing is urgent: nothing is kept for it
  PerUrgency64 h = learned_headroom;
  if (opt.urgent_memory_reserve) h[std::size_t(Urgency::kUrgent)] = *opt.urgent_memory_reserve;
  return h;
}

void Engine::Impl::dispatch_loop() {
  while (true) {
    std::optional<Scheduler<std::shared_ptr<Job>, TaskPtr>::Head> head;
    TaskPtr drop;
    PerUrgency64 room{};
    {
      std::unique_lock<std::mutex> lk(mu);
      auto ready = [&] { return stopping || sched.head(free_slots).has_value(); };
      if (!ready()) {
        // A key that becomes evictable only with time (min_idle) wakes nobody: re-check now and then.
        dispatch_cv.wait_for(lk, std::chrono::milliseconds(200), ready);
        if (!ready()) {
          sched.changed();
          continue;
        }
      }
      if (stopping) return;
      head = sched.head(free_slots);
      if ((*sched.task_of(*head))->job->stop.load()) {
        drop = std::move(*sched.pop(*head));
        head.reset();
      }
      room = headroom();
    }
    if (drop || !head) continue;  // a dropped task is destroyed outside the lock

    std::optional<Reservation> res;
    const BudgetView view{budget.total(), budget.used(MemoryBudget::kSrs), budget.head_waiter_bytes()};
    // Urgent partitions do not hold back for a key load, and lower urgencies leave their headroom.
    if (head->urgency != Urgency::kNormal || !yield_to_key(view)) {
      const std::uint64_t keep = keep_free(head->urgency, room, budget.used(MemoryBudget::kPartition) > 0);
      res = budget.try_reserve(head->bytes, MemoryBudget::kPartition, /*jump_queue=*/true, keep);
    }
    std::unique_lock<std::mutex> lk(mu);
    if (!res) {
      sched.refused(*head);
      continue;
    }
    std::optional<TaskPtr> taken;
    const std::size_t pool = std::size_t(head->pool);
    if (!stopping && free_slots[pool] > 0) taken = sched.take(*head);
    if (!taken) {
      lk.unlock();
      res.reset();
      continue;
    }
    TaskPtr t = std::move(*taken);
    --free_slots[pool];
    t->pool = head->pool;
    t->res = std::move(*res);
    stamp(*t->job, t->index, &PartitionTimes::dispatched);
    in_progress_by_kind[t->job->kind]++;
    t->in_flight.counter = &partitions_in_flight;
    if (partitions_in_flight.fetch_add(1) == 0 && probing && opt.measure_partition_memory) {
      tracked_peak_rss = std::max(tracked_peak_rss, process_peak_rss_bytes());
      if (reset_peak_rss()) {
        t->probe = true;
        t->probe_rss0 = process_rss_bytes();
      } else {
        probing = false;  // not permitted here: keep the model
      }
    }
    const RunKey key = key_of(*t->job, t->index);  // before t is moved from
    synth_q[pool].push_now(key, std::move(t));
  }
}

template <class Q>
bool Engine::Impl::hand_off(Q& next, TaskPtr& t, bool ignore_bound) {
  const std::shared_ptr<Job> job = t->job;
  std::unique_lock<std::mutex> lk(mu);
  return next.push(
      lk, key_of(*job, t->index), t, [&] { return stopping || job->stop.load(); }, ignore_bound);
}

std::uint32_t Engine::Impl::idle_devices() const {
  std::uint32_t n = 0;
  for (std::size_t d = 0; d < device_busy.size(); ++d) n += device_busy[d] || dev[d].out.load() ? 0 : 1;
  return n;
}

std::optional<std::uint32_t> Engine::Impl::index_of(std::uint32_t ordinal) const {
  for (std::uint32_t i = 0; i < opt.devices.size(); ++i)
    if (opt.devices[i] == ordinal) return i;
  return std::nullopt;
}

bool Engine::Impl::in_service_ordinal(std::uint32_t ordinal) const {
  auto i = index_of(ordinal);
  return !i || !dev[*i].out.load();
}

std::uint32_t Engine::Impl::devices_in_service() const {
  std::uint32_t n = 0;
  for (const DeviceState& d : dev) n += d.out.load() ? 0 : 1;
  return n;
}

bool Engine::Impl::lane_usable(std::size_t i) const {
  const std::uint32_t device = opt.lane_devices[i];
  return !opt.executor->uses_copies(BackendSlot{device, true}) ||
         in_service_ordinal(device);  // a CPU lane, or its GPU's
}

bool Engine::Impl::any_lane_usable() const {
  for (std::size_t i = 0; i < opt.lane_devices.size(); ++i)
    if (lane_usable(i)) return true;
  return false;
}

std::string Engine::Impl::no_device_message() const {
  std::string m = "no GPU left in service (";
  for (std::size_t i = 0; i < dev.size(); ++i)
    m += (i ? "; GPU " : "GPU ") + std::to_string(opt.devices[i]) + ": " + dev[i].fault;
  return m + ")";
}

void Engine::Impl::fail_without_device(const std::shared_ptr<Job>& job, const std::string& what) {
  std::string why;
  {
    std::lock_guard<std::mutex> g(mu);
    why = no_device_message();
  }
  fail(job, what + ": " + why);
}

bool Engine::Impl::take_out_of_service(std::uint32_t index, const std::string& fault) {
  std::vector<TaskPtr> stranded;
  std::string why;
  std::uint32_t left = 0;
  {
    std::lock_guard<std::mutex> g(mu);
    DeviceState& d = dev[index];
    if (d.out.load()) return devices_in_service() > 0;
    d.fault = fault;
    d.out.store(true);
    d.out_since = now();
    left = devices_in_service();
    log::engine()->error("GPU {} taken out of service: {}; {} device(s) left in service{}", opt.devices[index], fault,
                         left, left ? ", which take its work" : "");
    if (policy.lane && !any_lane_usable()) {  // the lane's partitions go to the devices instead
      for (auto& t : lane_q.take_all()) {
        const RunKey k = key_of(*t->job, t->index);
        backend_q.push_now(k, std::move(t));
      }
    }
    if (left == 0) {
      why = no_device_message();
      stranded = backend_q.take_all();
      for (auto& t : stranded) end_in_progress(t->job->kind);
    }
  }
  backend_q.wake_all();
  lane_q.wake_all();
  for (auto& t : stranded) fail(t->job, "partition " + std::to_string(t->index) + ": " + why);
  stranded.clear();  // reservations go back outside the lock
  dispatch_cv.notify_all();
  if (opt.on_device_out) opt.on_device_out(opt.devices[index], fault, left);
  return left > 0;
}

std::optional<std::string> Engine::Impl::blame_device(std::uint32_t ordinal) {
  auto index = index_of(ordinal);
  if (!index) return std::nullopt;
  std::optional<std::string> fault;
  try {
    fault = opt.executor->device_fault(ordinal);
  } catch (...) {  // a check that cannot even ask the device
    fault = "checking the device failed: " + current_exception_message();
  }
  if (fault) take_out_of_service(*index, *fault);
  return fault;
}

bool Engine::Impl::copy_failed(BackendSlot slot) {
  if (!blame_device(slot.device)) return false;
  std::lock_guard<std::mutex> g(mu);
  return devices_in_service() > 0;
}

Engine::Impl::Handed Engine::Impl::hand_to_devices(TaskPtr& t, bool ignore_bound) {
  const std::shared_ptr<Job> job = t->job;
  std::unique_lock<std::mutex> lk(mu);
  bool no_device = false;
  const bool queued = backend_q.push(
      lk, key_of(*job, t->index), t,
      [&] {
        no_device = devices_in_service() == 0;
        return stopping || job->stop.load() || no_device;
      },
      ignore_bound);
  return queued ? Handed::kQueued : no_device && !stopping && !job->stop.load() ? Handed::kNoDevice : Handed::kStopped;
}

void Engine::Impl::synthesize(TaskPtr& t, std::int32_t worker) {
  auto job = t->job;
  const std::size_t pool = std::size_t(t->pool);
  const std::string pdetail = "partition=" + std::to_string(t->index);
  bool handed_off = false;
  if (!job->stop.load()) {
    {
      std::lock_guard<std::mutex> g(job->mu);
      job->times[t->index].synth_start = now();
      job->times[t->index].synth_worker = worker;
    }
    timeline("SYNTH_START", job->id, pdetail);
    auto r = guarded("", [&] { return t->prepared->synthesize(t->index, CancelToken(&job->stop)); });
    std::uint64_t synth_ms = 0;
    {
      std::lock_guard<std::mutex> g(job->mu);
      job->times[t->index].synth_end = now();
      synth_ms = ms_between(job->times[t->index].synth_start, job->times[t->index].synth_end);
    }
    if (!r) {
      if (!job->stop.load()) fail(job, "partition " + std::to_string(t->index) + " synthesis failed: " + r.error());
    } else {
      timeline("SYNTH_END", job->id, pdetail + ",synth_ms=" + std::to_string(synth_ms));
      log::engine()->debug("job {} partition {}: synthesized in {} ms", job->id, t->index, synth_ms);
      t->synth = std::move(*r);
      bool lane = false;
      {
        std::lock_guard<std::mutex> g(mu);
        lane = policy.lane && any_lane_usable() &&
               to_lane(t->urgency, opt.lane_only_when_devices_busy, idle_devices(), backend_q.size());
      }
      const bool urgent = t->urgency != Urgency::kNormal;
      // The device is requested from here: the wait for it is the backend queue's (a worker takes
      // a partition only when its device is free), and counts as the partition's device wait.
      stamp(*job, t->index, &PartitionTimes::backend_start);
      if (lane) {
        handed_off = hand_off(lane_q, t, true);
      } else {
        const Handed h = hand_to_devices(t, urgent);
        handed_off = h == Handed::kQueued;
        if (h == Handed::kNoDevice) fail_without_device(job, "partition " + std::to_string(t->index));
      }
      if (handed_off) timeline("GPU_QUEUE", job->id, pdetail + (lane ? ",lane=1" : ""));
    }
  }
  t.reset();  // a dropped task returns its reservation here, outside the lock
  {
    std::lock_guard<std::mutex> g(mu);
    if (!handed_off) end_in_progress(job->kind);
    ++free_slots[pool];
    sched.changed();
  }
  dispatch_cv.notify_all();
}

void Engine::Impl::DeviceClaim::take() {
  im.device_busy[device_index] = 1;
  im.dev[device_index].busy_since = im.now();
  held = true;
}

void Engine::Impl::DeviceClaim::release() {
  if (!held) return;
  held = false;
  {
    std::lock_guard<std::mutex> g(im.mu);
    im.device_busy[device_index] = 0;
    DeviceState& d = im.dev[device_index];
    const Micros t = im.now();
    d.busy_us += t > d.busy_since ? t - d.busy_since : 0;
    d.busy_since = 0;
  }
  im.backend_q.notify_ready();
}

// The device's failure, not the partition's: its witness and reservation go with it to another device
// (a lane's partition too); with none left, take_out_of_service failed the queued ones and this job
// fails once. True when the task was queued (it is the queue's then).
bool Engine::Impl::requeue_after_device_fault(TaskPtr& t, const std::string& backend_name, std::uint32_t device,
                                              const std::string& error, const std::string& wdetail) {
  auto job = t->job;
  t->probe = false;
  {
    std::lock_guard<std::mutex> g(mu);
    if (auto i = index_of(device)) ++dev[*i].requeued;
  }
  stamp(*job, t->index, &PartitionTimes::backend_start);
  const std::uint32_t index = t->index;  // t is the queue's once handed over
  const Handed h = hand_to_devices(t, /*ignore_bound=*/true);
  if (h == Handed::kQueued) {
    log::engine()->warn("job {} partition {}: GPU {} failed ({}); the partition is queued for another device", job->id,
                        index, device, error);
    timeline("GPU_REQUEUE", job->id, wdetail);
  } else if (h == Handed::kNoDevice) {
    fail_without_device(job, "partition " + std::to_string(index) + " backend (" + backend_name + ") failed on GPU " +
                                 std::to_string(device) + ": " + error);
  }
  return h == Handed::kQueued;
}

void Engine::Impl::prove(TaskPtr& t, groth16::Backend& backend, std::int32_t worker, std::uint32_t device,
                         DeviceClaim* claim) {
  auto job = t->job;
  const std::string wdetail =
      "worker=" + std::to_string(worker) + ",partition=" + std::to_string(t->index) + (claim ? "" : ",lane=1");
  bool handed_off = false;
  if (!job->stop.load()) {
    {
      std::lock_guard<std::mutex> g(job->mu);
      auto& tm = job->times[t->index];
      tm.backend_worker = worker;
      tm.device = device;
    }
    timeline("GPU_PICKUP", job->id, wdetail);
    Result<groth16::PendingProof> r = Error{"not run"};
    std::optional<std::string> fault;  // the executor blamed the device for the failure
    bool abandoned = false;            // the watchdog gave the call up as stuck (watchdog_loop)
    {
      // The device (if any) was taken with the item: its wait was the queue's, by priority.
      stamp(*job, t->index, &PartitionTimes::backend_locked);
      timeline("GPU_START", job->id, wdetail);
      Watch watch;  // a partition holding a device is watched for hangs (EngineOptions::hang_multiple)
      if (claim) {
        std::lock_guard<std::mutex> g(mu);
        watch.since = now();
        watch.limit = hang_limit_locked(t->sizing_key);
        watch.job_id = job->id;
        watch.partition = t->index;
        watch.mem = t->mem;
        watch.sizing_key = t->sizing_key;
        watch.urgency = t->urgency;
        dev[claim->device_index].watch = &watch;
      }
      // Checked between the backend's NTTs and MSMs: the job's cancel, or the watch's.
      backend.set_cancel([&job = *job, &watch] { return job.stop.load() || watch.overdue.load(); });
      r = job->stop.load() ? Result<groth16::PendingProof>(Error{"cancelled"}) : guarded("", [&] {
        return t->synth->start(backend, BackendSlot{device, claim == nullptr});
      });
      backend.set_cancel({});
      if (claim) {
        std::lock_guard<std::mutex> g(mu);
        DeviceState& d = dev[claim->device_index];
        d.watch = nullptr;
        abandoned = watch.abandoned.load();
        const double ms = double(now() - watch.since) / 1000.0;
        if (r && !watch.overdue.load()) {
          auto [it, fresh] = backend_ms.try_emplace(t->sizing_key, ms);
          if (!fresh) it->second = 0.7 * it->second + 0.3 * ms;
          d.suspect = false;
        }
      }
      if (!r && !abandoned && watch.overdue.load() && !job->stop.load()) {
        // The watch cancelled it: the device's fault, whatever the backend answered.
        fault = fmt::format("hung: partition {} of job {} held it {:.1f} s, past its limit of {:.1f} s", t->index,
                            job->id, double(now() - watch.since) / 1e6, double(watch.limit) / 1e6);
        take_out_of_service(claim->device_index, *fault);
      }
      stamp(*job, t->index, &PartitionTimes::backend_end);  // stamped before the device is released
      // Asked before the device is released, so that no other worker of a failed device takes work.
      const bool on_device = claim || opt.executor->uses_copies(BackendSlot{device, true});
      if (!r && !abandoned && !fault && !job->stop.load() && on_device) fault = blame_device(device);
      if (t->probe && partitions_in_flight.load() == 1) record_probe(*t);
      t->in_flight.end();
      if (claim) claim->release();
    }
    std::uint64_t gpu_ms = 0;
    {
      std::lock_guard<std::mutex> g(job->mu);
      const auto& tm = job->times[t->index];
      gpu_ms = ms_between(tm.backend_start, tm.backend_end);
    }
    timeline("GPU_END", job->id, wdetail + ",gpu_ms=" + std::to_string(gpu_ms));
    if (abandoned) {
      // The watchdog gave this call up as stuck and the partition has its new task (or its job its
      // answer): what the call returned, proof or error, is dropped with its witness and reservation.
      log::engine()->warn("job {} partition {}: the call given up as stuck on GPU {} returned after all ({}); dropped",
                          job->id, t->index, device, r ? "a proof" : r.error());
    } else if (r)
      log::engine()->debug("job {} partition {}: backend stage {} ms on {} {} (worker {}, device wait included)",
                           job->id, t->index, gpu_ms, claim ? "device" : "lane", device, worker);
    if (abandoned) {
      t->synth.reset();
    } else if (!r && fault && !job->stop.load()) {
      handed_off = requeue_after_device_fault(t, backend.name(), device, r.error(), wdetail);
    } else {
      t->synth.reset();  // the witness is no longer needed
      t->res.release(t->res.bytes() - std::min(t->res.bytes(), t->mem.after_start));
      if (!r) {
        if (!job->stop.load()) {
          fail(job, "partition " + std::to_string(t->index) + " backend (" + backend.name() + ") failed: " + r.error());
        }
      } else {
        t->pending = *r;
        {
          std::lock_guard<std::mutex> g(mu);
          if (!claim) ++lane_partitions;
          else ++dev[claim->device_index].partitions;
        }
        handed_off = hand_off(final_q, t, t->urgency != Urgency::kNormal);
      }
    }
  }
  if (claim) claim->release();  // a cancelled job's item: the device was never used
  t.reset();
  if (!handed_off) {
    std::lock_guard<std::mutex> g(mu);
    end_in_progress(job->kind);
  }
}

void Engine::Impl::backend_worker(std::size_t slot, std::uint32_t worker, std::uint32_t d, bool urgent_only) {
  std::unique_ptr<groth16::Backend> backend = opt.executor->make(BackendSlot{opt.devices[d], false});
  DeviceClaim claim{*this, d};
  run_stage_worker(
      mu, stopping, backend_q,
      [&](const RunKey& k) { return !device_busy[d] && !dev[d].out.load() && (!urgent_only || policy.urgent(k)); },
      [&](const TaskPtr& t) {
        claim.take();
        slot_busy(slot, *t->job, t->index);
      },
      [&](TaskPtr& t) { prove(t, *backend, std::int32_t(worker), opt.devices[d], &claim); }, [&] { slot_idle(slot); });
}

void Engine::Impl::lane_worker(std::size_t slot, std::uint32_t worker, std::size_t lane) {
  const std::uint32_t device = opt.lane_devices[lane];
  std::unique_ptr<groth16::Backend> backend = opt.executor->make(BackendSlot{device, true});
  stage_worker(
      lane_q, slot, [this, lane](const RunKey&) { return lane_usable(lane); },
      [&](TaskPtr& t) { prove(t, *backend, std::int32_t(worker), device, nullptr); });
}

void Engine::Impl::record_probe(const Task& t) {
  std::uint64_t hwm = process_peak_rss_bytes();
  std::uint64_t grown = hwm > t.probe_rss0 ? hwm - t.probe_rss0 : 0;
  std::lock_guard<std::mutex> g(mu);
  sizer.measured(t.sizing_key, grown);
  tracked_peak_rss = std::max(tracked_peak_rss, hwm);
}

void Engine::Impl::finalize(TaskPtr& t, std::int32_t worker) {
  auto job = t->job;
  if (!job->stop.load()) finalize_partition(*t, worker);
  t.reset();
  std::lock_guard<std::mutex> g(mu);
  end_in_progress(job->kind);
}

void Engine::Impl::finalize_partition(Task& t, std::int32_t worker) {
  const std::shared_ptr<Job>& job = t.job;
  {
    std::lock_guard<std::mutex> g(job->mu);
    job->times[t.index].finalize_start = now();
    job->times[t.index].finalizer = worker;
  }
  groth16::ProofRandomness rs = opt.randomness ? opt.randomness() : groth16::ProofRandomness::random();
  Result<groth16::Proof> finished = guarded("finalize", [&]() -> Result<groth16::Proof> {
    return groth16::finish(*t.pending, t.prepared->key(t.index), rs);
  });
  if (!finished) return fail(job, "partition " + std::to_string(t.index) + " " + finished.error());
  const groth16::Proof& proof = *finished;
  PartitionTimes tm;
  {
    std::lock_guard<std::mutex> g(job->mu);
    job->times[t.index].finalize_end = now();
    tm = job->times[t.index];
  }
  std::vector<groth16::Proof> proofs;
  const bool all_done = job->add_proof(t.index, proof, proofs);
  log::engine()->debug("job {} partition {}: finalized in {} ms", job->id, t.index,
                       ms_between(tm.finalize_start, tm.finalize_end));
  {
    std::lock_guard<std::mutex> g(mu);
    stage_sum_s[0] += (tm.dispatched > tm.queued ? tm.dispatched - tm.queued : 0) / 1e6;
    stage_sum_s[1] += (tm.synth_end > tm.synth_start ? tm.synth_end - tm.synth_start : 0) / 1e6;
    stage_sum_s[2] += (tm.backend_end > tm.backend_start ? tm.backend_end - tm.backend_start : 0) / 1e6;
    stage_sum_s[3] += (tm.finalize_end > tm.finalize_start ? tm.finalize_end - tm.finalize_start : 0) / 1e6;
    stage_count++;
  }
  t.pending.reset();
  t.res.reset();
  if (all_done) {
    Micros v0 = now();
    Status st =
        opt.self_verify ? guarded("self-verification", [&] { return t.prepared->verify(proofs); }) : ok_status();
    std::uint64_t verify_ms = ms_between(v0, now());
    if (!st) {
      fail(job, st.error());
    } else {
      auto bytes = groth16::concat_proofs(proofs);
      finish(job, ResultStatus::kCompleted, std::string(bytes.begin(), bytes.end()), {}, verify_ms);
    }
  }
}

template <class Q, class Accept, class Work>
void Engine::Impl::stage_worker(Q& q, std::size_t slot, Accept&& accept, Work&& work) {
  run_stage_worker(
      mu, stopping, q, accept, [&](const TaskPtr& t) { slot_busy(slot, *t->job, t->index); }, work,
      [&] { slot_idle(slot); });
}

// Threads, and their status slots: a stage each (WorkerStage), the reserved ones for urgent work
// marked urgent (shown as "<stage>-urgent": WorkerSnapshot::stage_name), the lane's workers kLane.
void Engine::Impl::start_threads() {
  std::lock_guard<std::mutex> g(mu);
  const bool urgent_on = opt.urgent_priority.has_value();
  for (std::uint32_t i = 0; i < opt.prepare_workers; ++i) {
    std::size_t s = add_slot(WorkerStage::kPrepare, false, i, 0);
    threads.emplace_back([this, s] { prepare_loop(s, std::nullopt); });
  }
  if (urgent_on) {  // one preparer per urgent level: a HIGH prepare never blocks a CRITICAL one
    std::uint32_t id = opt.prepare_workers;
    for (int p = int(*opt.urgent_priority); p <= int(Priority::kCritical); ++p) {
      std::size_t s = add_slot(WorkerStage::kPrepare, true, id++, 0);
      threads.emplace_back([this, s, p] { prepare_loop(s, Priority(p)); });
    }
  }
  threads.emplace_back([this] { dispatch_loop(); });
  std::uint32_t sw = 0;
  for (int pool = 0; pool < kUrgencies; ++pool) {
    for (std::uint32_t i = 0; i < free_slots[std::size_t(pool)]; ++i, ++sw) {
      std::size_t s = add_slot(WorkerStage::kSynthesis, pool != 0, sw, 0);
      threads.emplace_back([this, s, sw, pool] {
        stage_worker(synth_q[std::size_t(pool)], s, AcceptAll{}, [&](TaskPtr& t) { synthesize(t, std::int32_t(sw)); });
      });
    }
  }
  std::uint32_t w = 0;
  for (std::uint32_t d = 0; d < opt.devices.size(); ++d) {
    for (std::uint32_t k = 0; k < opt.workers_per_device; ++k, ++w) {
      std::size_t s = add_slot(WorkerStage::kBackend, false, w, opt.devices[d]);
      threads.emplace_back([this, s, w, d] { backend_worker(s, w, d, false); });
    }
  }
  if (urgent_on) {  // per device one worker for urgent partitions only, so none waits for a free worker
    for (std::uint32_t d = 0; d < opt.devices.size(); ++d, ++w) {
      std::size_t s = add_slot(WorkerStage::kBackend, true, w, opt.devices[d]);
      threads.emplace_back([this, s, w, d] { backend_worker(s, w, d, true); });
    }
  }
  if (policy.lane) {
    for (std::size_t i = 0; i < opt.lane_devices.size(); ++i, ++w) {
      std::size_t s = add_slot(WorkerStage::kLane, false, w, opt.lane_devices[i]);
      threads.emplace_back([this, s, w, i] { lane_worker(s, w, i); });
    }
  }
  for (std::uint32_t i = 0; i < opt.finalizer_threads; ++i) {
    std::size_t s = add_slot(WorkerStage::kFinalize, false, i, 0);
    threads.emplace_back(
        [this, s, i] { stage_worker(final_q, s, AcceptAll{}, [&](TaskPtr& t) { finalize(t, std::int32_t(i)); }); });
  }
  if (urgent_on) {
    const std::uint32_t i = opt.finalizer_threads;
    std::size_t s = add_slot(WorkerStage::kFinalize, true, i, 0);
    threads.emplace_back([this, s, i] {
      stage_worker(
          final_q, s, [this](const RunKey& k) { return policy.urgent(k); },
          [&](TaskPtr& t) { finalize(t, std::int32_t(i)); });
    });
  }
  threads.emplace_back([this] { janitor_loop(); });
  if (!opt.devices.empty() && (opt.hang_multiple > 0 || opt.probe_after.count() > 0))
    threads.emplace_back([this] { watchdog_loop(); });
}

void Engine::Impl::janitor_loop() {
  std::unique_lock<std::mutex> lk(mu);
  const auto tick = std::clamp<std::chrono::milliseconds>(opt.result_ttl / 4, std::chrono::milliseconds(10),
                                                          std::chrono::milliseconds(1000));
  while (!stopping) {
    janitor_cv.wait_for(lk, tick);
    if (stopping) return;
    prune_locked();
  }
}

Micros Engine::Impl::hang_limit_locked(const std::string& sizing_key) const {
  if (opt.hang_multiple <= 0) return 0;
  const double min_ms = double(opt.hang_min.count());
  auto it = backend_ms.find(sizing_key);
  const double expected = it != backend_ms.end() ? it->second : min_ms;
  return Micros(std::max(min_ms, opt.hang_multiple * expected) * 1000.0);
}

void Engine::Impl::watchdog_loop() {
  std::unique_lock<std::mutex> lk(mu);
  const auto tick = std::clamp<std::chrono::milliseconds>(
      std::min(opt.hang_min, opt.probe_after.count() > 0 ? opt.probe_after : opt.hang_min) / 4,
      std::chrono::milliseconds(5), std::chrono::milliseconds(1000));
  const Micros probe_after = Micros(opt.probe_after.count()) * 1000;
  struct Stuck {
    std::uint32_t index;
    std::shared_ptr<Job> job;
    std::uint32_t partition;
    double held_s, limit_s;
    PartitionMemory mem;
    std::string sizing_key;
    Urgency urgency;
  };
  while (!stopping) {
    watchdog_cv.wait_for(lk, tick);
    if (stopping) return;
    std::vector<std::uint32_t> back;  // devices a probe found healthy
    std::vector<Stuck> stuck;         // partitions that did not leave the backend after their cancel
    const Micros t = now();
    for (std::uint32_t i = 0; i < dev.size(); ++i) {
      DeviceState& d = dev[i];
      if (Watch* w = d.watch;
          w && w->limit && w->overdue.load() && !w->abandoned.load() && t > w->since + w->limit + w->limit / 2) {
        w->abandoned.store(true);
        if (auto it = jobs.find(w->job_id); it != jobs.end())
          stuck.push_back({i, it->second, w->partition, double(t - w->since) / 1e6, double(w->limit) / 1e6, w->mem,
                           w->sizing_key, w->urgency});
      }
      if (Watch* w = d.watch; w && w->limit && !w->overdue.load() && t > w->since + w->limit) {
        w->overdue.store(true);
        d.suspect = true;
        log::engine()->error(
            "GPU {} is suspect: job {} partition {} has held it {:.1f} s, past its limit of {:.1f} s "
            "({}x its key's measured time, at least {:.1f} s); it is cancelled there and goes to "
            "another device",
            opt.devices[i], w->job_id, w->partition, double(t - w->since) / 1e6, double(w->limit) / 1e6,
            opt.hang_multiple, double(opt.hang_min.count()) / 1e3);
      }
      if (!d.out.load() || probe_after == 0) continue;
      if (d.probe) {
        std::lock_guard<std::mutex> pg(d.probe->mu);
        if (!d.probe->done) continue;
        if (!d.probe->fault) {
          back.push_back(i);
        } else {
          log::engine()->warn("GPU {} stays out of service: probe says {}", opt.devices[i], *d.probe->fault);
          d.out_since = t;
        }
      } else if (t >= d.out_since + probe_after) {
        auto probe = std::make_shared<Probe>();
        d.probe = probe;
        std::thread([ex = opt.executor, ordinal = opt.devices[i], probe] {
          std::optional<std::string> f;
          try {
            f = ex->device_fault(ordinal);
          } catch (...) {
            f = "checking the device failed: " + current_exception_message();
          }
          std::lock_guard<std::mutex> pg(probe->mu);
          probe->fault = std::move(f);
          probe->done = true;
        }).detach();
        continue;
      }
      d.probe.reset();
    }
    if (!stuck.empty()) {
      // A kernel that never returns cannot be cancelled: the device leaves service without waiting for
      // it, and the partition is synthesized again from its job's inputs as a new task (the stuck
      // worker keeps its witness and reservation until it returns, if ever; what it returns is
      // dropped). With no device left in service, the job gets its one answer now instead.
      lk.unlock();
      for (Stuck& s : stuck) {
        const std::string why = fmt::format("hung: partition {} of job {} did not return {:.1f} s after its cancel",
                                            s.partition, s.job->id, s.held_s - s.limit_s);
        const bool others = take_out_of_service(s.index, why);
        std::shared_ptr<PreparedJob> prepared;
        {
          std::lock_guard<std::mutex> g(s.job->mu);
          prepared = s.job->prepared;
        }
        if (others && prepared && !s.job->stop.load()) {
          log::engine()->error(
              "GPU {} {}; the device leaves service and the partition is synthesized again for "
              "another device",
              opt.devices[s.index], why);
          auto task = Task::make(s.job, std::move(prepared), s.partition, s.mem, std::move(s.sizing_key), s.urgency);
          stamp(*s.job, s.partition, &PartitionTimes::queued);
          {
            std::lock_guard<std::mutex> g(mu);
            ++dev[s.index].requeued;
            sched.queue_partition(key_of(*s.job, s.partition), s.mem.full, std::move(task), s.urgency);
          }
          dispatch_cv.notify_all();
          timeline("GPU_REQUEUE", s.job->id, "partition=" + std::to_string(s.partition) + ",stuck=1");
          continue;
        }
        log::engine()->error("GPU {} {}; the job fails and the device leaves service", opt.devices[s.index], why);
        fail(s.job, fmt::format("partition {}: GPU {} hung ({:.1f} s in the backend, limit {:.1f} s, no answer to "
                                "its cancel); {}, submit the job again",
                                s.partition, opt.devices[s.index], s.held_s, s.limit_s,
                                others ? "the device is out of service" : "no device is left in service"));
      }
      lk.lock();
    }
    if (back.empty()) continue;
    std::uint32_t in_service = 0;
    for (std::uint32_t i : back) {
      DeviceState& d = dev[i];
      log::engine()->warn("GPU {} back in service: a probe found it healthy (out since: {})", opt.devices[i], d.fault);
      d.out.store(false);
      d.fault.clear();
      d.suspect = false;
      ++d.returned;
    }
    in_service = devices_in_service();
    lk.unlock();
    backend_q.wake_all();
    backend_q.notify_ready();
    lane_q.wake_all();
    dispatch_cv.notify_all();
    if (opt.on_device_back)
      for (std::uint32_t i : back) opt.on_device_back(opt.devices[i], in_service);
    lk.lock();
  }
}

void Engine::Impl::prune_locked() {
  const Micros t = now();
  const Micros ttl = Micros(opt.result_ttl.count()) * 1000;
  std::vector<std::shared_ptr<Job>> dead;
  while (!finished.empty()) {
    auto& [at, id] = finished.front();
    bool expired = t >= at + ttl;
    bool too_many = finished.size() > opt.max_results;
    if (!expired && !too_many) break;
    auto it = jobs.find(id);
    // Only drop the table entry if it is still this finished job (an id may have been re-run).
    if (it != jobs.end() && it->second->stop.load()) {
      std::lock_guard<std::mutex> g(it->second->mu);
      if (!it->second->result) break;  // claimed, being published; next tick
      if (it->second->finished_at == at) {
        dead.push_back(it->second);
        jobs.erase(it);
      }
    }
    finished.pop_front();
  }
}

}  // namespace cuzk::engine
