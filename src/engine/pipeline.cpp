// The engine's stages (see pipeline.hpp): prepare, dispatch, synthesis, backend, finalize, and the
// janitor that drops expired results.
#include <algorithm>

#include "engine/pipeline.hpp"
#include "engine/units.hpp"

namespace cuzk::engine {

using pipeline::key_of;
using pipeline::ms_between;
using pipeline::DeviceLock;
using Task = pipeline::Task;
using TaskPtr = pipeline::TaskPtr;

Micros Engine::Impl::now() const {
  return Micros(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
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

std::size_t Engine::Impl::add_slot(const std::string& stage, std::uint32_t id, std::uint32_t device) {
  slots.push_back(Slot{stage, id, device, {}, 0, 0, 0, 0});
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
    for (auto& t : backend_q.drop(mine)) dropped.push_back(std::move(t));
    auto& kc = by_kind[job->kind];
    if (st == ResultStatus::kCompleted) {
      ++completed;
      ++kc.completed;
      kc.duration_sum_s += r.total_ms / 1000.0;
      kc.duration_count++;
    } else if (st == ResultStatus::kCancelled) {
      ++cancelled;
      ++kc.cancelled;
    } else {
      ++failed;
      ++kc.failed;
    }
    if (active > 0) --active;
    finished.emplace_back(r.completed, job->id);
  }
  if (st != ResultStatus::kCompleted) {
    timeline(st == ResultStatus::kCancelled ? "JOB_CANCELLED" : "JOB_FAILED", job->id, r.error);
  } else {
    timeline("JOB_DONE", job->id, "total_ms=" + std::to_string(r.total_ms));
  }
  // Published only now, so that whoever sees the result also sees the counters.
  job->publish(std::move(claim->result));
  backend_q.notify_space();
  final_q.notify_space();
  dispatch_cv.notify_all();
  idle_cv.notify_all();
  janitor_cv.notify_all();
  dropped.clear();  // reservations go back here, outside every lock
  claim.reset();    // and the proving-key lease and the request
  return true;
}

void Engine::Impl::fail(const std::shared_ptr<Job>& job, std::string error) {
  finish(job, ResultStatus::kFailed, {}, std::move(error));
}

void Engine::Impl::prepare_loop(std::size_t slot) {
  while (true) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lk(mu);
      prepare_cv.wait(lk, [&] { return stopping || sched.has_jobs(); });
      if (stopping) return;
      job = *sched.next_job();
      slot_busy(slot, *job, 0);
    }
    prepare_one(job);
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
  PrepareContext ctx{srs, CancelToken(&job->stop), 0, opt.allow_witness_paths, opt.backend_name};
  auto prepared = kind->prepare(std::move(req), ctx);
  if (!prepared) return fail(job, prepared.error());
  std::shared_ptr<PreparedJob> p(std::move(*prepared));
  const std::uint32_t n = p->num_partitions();
  if (n == 0) return fail(job, kind->name() + ": the job has no partitions");
  const std::string sizing_key = kind->name() + "/" + p->circuit_id();
  std::vector<PartitionMemory> mems(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    PartitionMemory m = p->partition_memory(i);
    m.full = std::uint64_t(double(m.full) * opt.partition_memory_factor);
    std::uint64_t measured = 0;
    {
      std::lock_guard<std::mutex> g(mu);
      auto& sz = sizing[sizing_key];
      sz.model_bytes = std::max(sz.model_bytes, m.full);
      measured = sz.measured_bytes;
    }
    m.full = std::max(m.full, measured + measured / 10);
    m.after_start = std::min(m.full, m.after_start);
    if (m.full > budget.total()) {
      return fail(job, kind->name() + ": partition " + std::to_string(i) + " needs " + format_bytes(m.full) +
                           " but the whole memory budget is " + format_bytes(budget.total()));
    }
    mems[i] = m;
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
  {
    std::lock_guard<std::mutex> g(mu);
    if (job->stop.load()) return;
    for (std::uint32_t i = 0; i < n; ++i) {
      auto task = std::make_unique<Task>();
      task->job = job;
      task->prepared = p;
      task->index = i;
      task->mem = mems[i];
      task->sizing_key = sizing_key;
      sched.queue_partition(key_of(*job, i), mems[i].full, std::move(task));
    }
  }
  dispatch_cv.notify_all();
}

void Engine::Impl::dispatch_loop() {
  while (true) {
    std::optional<Scheduler<std::shared_ptr<Job>, TaskPtr>::Head> head;
    TaskPtr drop;
    {
      std::unique_lock<std::mutex> lk(mu);
      auto ready = [&] { return stopping || sched.head(free_synth_slots).has_value(); };
      if (!ready()) {
        // A key that becomes evictable only with time (min_idle) wakes nobody: re-check now and then.
        dispatch_cv.wait_for(lk, std::chrono::milliseconds(200), ready);
        if (!ready()) {
          sched.changed();
          continue;
        }
      }
      if (stopping) return;
      head = sched.head(free_synth_slots);
      if ((*sched.head_task())->job->stop.load()) {
        drop = std::move(*sched.pop_head());
        head.reset();
      }
    }
    if (drop || !head) continue;  // a dropped task is destroyed outside the lock

    std::optional<Reservation> res;
    const BudgetView view{budget.total(), budget.used(MemoryBudget::kSrs), budget.head_waiter_bytes()};
    if (!yield_to_key(view)) res = budget.try_reserve(head->bytes, MemoryBudget::kPartition, /*jump_queue=*/true);
    std::unique_lock<std::mutex> lk(mu);
    if (!res) {
      sched.refused();
      continue;
    }
    std::optional<TaskPtr> taken;
    if (!stopping && free_synth_slots > 0) taken = sched.take(head->key);
    if (!taken) {
      lk.unlock();
      res.reset();
      continue;
    }
    TaskPtr t = std::move(*taken);
    --free_synth_slots;
    t->res = std::move(*res);
    {
      std::lock_guard<std::mutex> g(t->job->mu);
      t->job->times[t->index].dispatched = now();
    }
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
    synth_q.push_now(key_of(*t->job, t->index), std::move(t));
  }
}

template <class Q>
bool Engine::Impl::hand_off(Q& next, TaskPtr& t) {
  const std::shared_ptr<Job> job = t->job;
  std::unique_lock<std::mutex> lk(mu);
  return next.push(lk, key_of(*job, t->index), t, [&] { return stopping || job->stop.load(); });
}

void Engine::Impl::synthesize(TaskPtr& t, std::int32_t worker) {
  auto job = t->job;
  const std::string pdetail = "partition=" + std::to_string(t->index);
  bool handed_off = false;
  if (!job->stop.load()) {
    {
      std::lock_guard<std::mutex> g(job->mu);
      job->times[t->index].synth_start = now();
      job->times[t->index].synth_worker = worker;
    }
    timeline("SYNTH_START", job->id, pdetail);
    auto r = t->prepared->synthesize(t->index, CancelToken(&job->stop));
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
      t->synth = std::move(*r);
      handed_off = hand_off(backend_q, t);
      if (handed_off) timeline("GPU_QUEUE", job->id, pdetail);
    }
  }
  t.reset();  // a dropped task returns its reservation here, outside the lock
  {
    std::lock_guard<std::mutex> g(mu);
    if (!handed_off) end_in_progress(job->kind);
    ++free_synth_slots;
    sched.changed();
  }
  dispatch_cv.notify_all();
}

void Engine::Impl::prove(TaskPtr& t, groth16::Backend& backend, std::int32_t worker, std::uint32_t device_index) {
  auto job = t->job;
  const std::uint32_t device = opt.devices[device_index];
  const std::string wdetail = "worker=" + std::to_string(worker) + ",partition=" + std::to_string(t->index);
  bool handed_off = false;
  if (!job->stop.load()) {
    {
      std::lock_guard<std::mutex> g(job->mu);
      auto& tm = job->times[t->index];
      tm.backend_start = now();
      tm.backend_worker = worker;
      tm.device = device;
    }
    timeline("GPU_PICKUP", job->id, wdetail);
    Result<groth16::PendingProof> r = Error{"not run"};
    {
      DeviceLock& dev = *device_lock[device_index];
      dev.lock(key_of(*job, t->index));
      struct Unlock {
        DeviceLock& d;
        ~Unlock() { d.unlock(); }
      } unlock_at_exit{dev};
      {
        std::lock_guard<std::mutex> g(job->mu);
        job->times[t->index].backend_locked = now();
      }
      timeline("GPU_START", job->id, wdetail);
      r = job->stop.load() ? Result<groth16::PendingProof>(Error{"cancelled"}) : t->synth->start(backend);
      {
        std::lock_guard<std::mutex> g(job->mu);  // stamped before the device is released
        job->times[t->index].backend_end = now();
      }
      if (t->probe && partitions_in_flight.load() == 1) record_probe(*t);
      t->in_flight.end();
    }
    std::uint64_t gpu_ms = 0;
    {
      std::lock_guard<std::mutex> g(job->mu);
      const auto& tm = job->times[t->index];
      gpu_ms = ms_between(tm.backend_start, tm.backend_end);
    }
    timeline("GPU_END", job->id, wdetail + ",gpu_ms=" + std::to_string(gpu_ms));
    t->synth.reset();  // the witness is no longer needed
    t->res.release(t->res.bytes() - std::min(t->res.bytes(), t->mem.after_start));
    if (!r) {
      if (!job->stop.load()) {
        fail(job, "partition " + std::to_string(t->index) + " backend (" + backend.name() + ") failed: " + r.error());
      }
    } else {
      t->pending = *r;
      handed_off = hand_off(final_q, t);
    }
  }
  t.reset();
  if (!handed_off) {
    std::lock_guard<std::mutex> g(mu);
    end_in_progress(job->kind);
  }
}

void Engine::Impl::record_probe(const Task& t) {
  std::uint64_t hwm = process_peak_rss_bytes();
  std::uint64_t grown = hwm > t.probe_rss0 ? hwm - t.probe_rss0 : 0;
  std::lock_guard<std::mutex> g(mu);
  auto& sz = sizing[t.sizing_key];
  sz.measured_bytes = std::max(sz.measured_bytes, grown);
  sz.samples++;
  tracked_peak_rss = std::max(tracked_peak_rss, hwm);
}

void Engine::Impl::finalize(TaskPtr& t, std::int32_t worker) {
  auto job = t->job;
  if (!job->stop.load()) {
    {
      std::lock_guard<std::mutex> g(job->mu);
      job->times[t->index].finalize_start = now();
      job->times[t->index].finalizer = worker;
    }
    groth16::ProofRandomness rs = opt.randomness ? opt.randomness() : groth16::ProofRandomness::random();
    groth16::Proof proof = groth16::finish(*t->pending, t->prepared->key(t->index), rs);
    PartitionTimes tm;
    {
      std::lock_guard<std::mutex> g(job->mu);
      job->times[t->index].finalize_end = now();
      tm = job->times[t->index];
    }
    std::vector<groth16::Proof> proofs;
    const bool all_done = job->add_proof(t->index, proof, proofs);
    {
      std::lock_guard<std::mutex> g(mu);
      stage_sum_s[0] += (tm.dispatched > tm.queued ? tm.dispatched - tm.queued : 0) / 1e6;
      stage_sum_s[1] += (tm.synth_end > tm.synth_start ? tm.synth_end - tm.synth_start : 0) / 1e6;
      stage_sum_s[2] += (tm.backend_end > tm.backend_start ? tm.backend_end - tm.backend_start : 0) / 1e6;
      stage_sum_s[3] += (tm.finalize_end > tm.finalize_start ? tm.finalize_end - tm.finalize_start : 0) / 1e6;
      stage_count++;
    }
    t->pending.reset();
    t->res.reset();
    if (all_done) {
      Micros v0 = now();
      Status st = opt.self_verify ? t->prepared->verify(proofs) : ok_status();
      std::uint64_t verify_ms = ms_between(v0, now());
      if (!st) {
        fail(job, st.error());
      } else {
        auto bytes = groth16::concat_proofs(proofs);
        finish(job, ResultStatus::kCompleted, std::string(bytes.begin(), bytes.end()), {}, verify_ms);
      }
    }
  }
  t.reset();
  std::lock_guard<std::mutex> g(mu);
  end_in_progress(job->kind);
}

template <class Q, class Work>
void Engine::Impl::stage_worker(Q& q, std::size_t slot, Work&& work) {
  run_stage_worker(
      mu, stopping, q, [&](const TaskPtr& t) { slot_busy(slot, *t->job, t->index); }, work,
      [&] { slot_idle(slot); });
}

void Engine::Impl::start_threads() {
  std::lock_guard<std::mutex> g(mu);
  for (std::uint32_t i = 0; i < opt.prepare_workers; ++i) {
    std::size_t s = add_slot("prepare", i, 0);
    threads.emplace_back([this, s] { prepare_loop(s); });
  }
  threads.emplace_back([this] { dispatch_loop(); });
  for (std::uint32_t i = 0; i < opt.synthesis_workers; ++i) {
    std::size_t s = add_slot("synthesis", i, 0);
    threads.emplace_back([this, s, i] { stage_worker(synth_q, s, [&](TaskPtr& t) { synthesize(t, std::int32_t(i)); }); });
  }
  std::uint32_t w = 0;
  for (std::uint32_t d = 0; d < opt.devices.size(); ++d) {
    for (std::uint32_t k = 0; k < opt.workers_per_device; ++k, ++w) {
      std::size_t s = add_slot("backend", w, opt.devices[d]);
      threads.emplace_back([this, s, w, d] {
        std::unique_ptr<groth16::Backend> backend =
            opt.backend_factory ? opt.backend_factory(opt.devices[d]) : groth16::make_cpu_backend();
        stage_worker(backend_q, s, [&](TaskPtr& t) { prove(t, *backend, std::int32_t(w), d); });
      });
    }
  }
  for (std::uint32_t i = 0; i < opt.finalizer_threads; ++i) {
    std::size_t s = add_slot("finalize", i, 0);
    threads.emplace_back([this, s, i] { stage_worker(final_q, s, [&](TaskPtr& t) { finalize(t, std::int32_t(i)); }); });
  }
  threads.emplace_back([this] { janitor_loop(); });
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
