#include "engine/engine.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "engine/job.hpp"
#include "engine/scheduler.hpp"
#include "engine/stage.hpp"
#include "engine/units.hpp"

namespace cuzk::engine {

using Clock = std::chrono::steady_clock;

std::optional<JobResult> Engine::result_of(const std::shared_ptr<Job>& job) {
  return job ? job->current_result() : std::nullopt;
}

std::string Engine::id_of(const std::shared_ptr<Job>& job) { return job ? job->id : std::string(); }

namespace {

RunKey key_of(const Job& j, std::uint32_t index) { return RunKey::of(j.priority, j.seq, index); }

std::uint64_t ms_between(Micros a, Micros b) { return b > a ? (b - a + 500) / 1000 : 0; }

// A device's lock, handed to the waiting worker whose partition ranks first (priority, job arrival,
// partition), not to whichever thread wins a plain mutex race: a CRITICAL partition that reaches
// the device queue behind NORMAL ones still gets the device next.
class DeviceLock {
 public:
  void lock(const RunKey& k) {
    std::unique_lock<std::mutex> lk(mu_);
    waiting_.insert(k);
    cv_.wait(lk, [&] { return !busy_ && *waiting_.begin() == k; });
    waiting_.erase(waiting_.begin());
    busy_ = true;
  }
  void unlock() {
    {
      std::lock_guard<std::mutex> g(mu_);
      busy_ = false;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool busy_ = false;
  std::set<RunKey> waiting_;
};

// Counts a partition as in flight from dispatch until its backend call returned (or it is dropped).
struct InFlight {
  std::atomic<std::uint32_t>* counter = nullptr;
  void end() {
    if (counter) counter->fetch_sub(1);
    counter = nullptr;
  }
  ~InFlight() { end(); }
};

// One partition on its way through the stages.
struct Task {
  std::shared_ptr<Job> job;
  std::shared_ptr<PreparedJob> prepared;
  std::uint32_t index = 0;
  PartitionMemory mem;
  Reservation res;
  std::optional<SynthesizedPartition> synth;
  std::optional<groth16::PendingProof> pending;
  InFlight in_flight;
  std::string sizing_key;        // "<kind>/<circuit>": where measurements are recorded
  bool probe = false;            // measuring this partition's memory (it started alone)
  std::uint64_t probe_rss0 = 0;  // RSS when the measurement started
};
using TaskPtr = std::unique_ptr<Task>;

}  // namespace

// ------------------------------------------------------------------------------------ Impl

struct Engine::Impl {
  const EngineOptions& opt;
  MemoryBudget& budget;
  SrsManager& srs;
  const Clock::time_point start = Clock::now();

  mutable std::mutex mu;  // scheduler, stage queues, job table, workers, counters
  std::condition_variable prepare_cv, dispatch_cv, idle_cv, janitor_cv;
  bool stopping = false;
  bool accepting = true;
  std::uint64_t next_seq = 1;

  std::map<std::string, std::shared_ptr<Job>> jobs;     // unfinished and retained finished jobs
  std::deque<std::pair<Micros, std::string>> finished;  // completion order, for pruning
  std::uint32_t active = 0;                              // unfinished jobs

  Scheduler<std::shared_ptr<Job>, TaskPtr> sched;
  StageQueue<TaskPtr, StageOrder::kFifo> synth_q;
  std::uint32_t free_synth_slots = 0;
  StageQueue<TaskPtr, StageOrder::kByKey> backend_q;
  StageQueue<TaskPtr, StageOrder::kFifo> final_q;
  std::map<std::uint32_t, std::uint32_t> in_progress_by_kind;  // partitions dispatched, not finalized

  struct Slot {
    std::string stage;
    std::uint32_t id = 0, device = 0;
    std::string job_id;
    std::uint32_t kind = 0, partition = 0;
    Micros busy_since = 0;
    std::uint64_t done = 0;
  };
  std::vector<Slot> slots;

  std::uint64_t completed = 0, failed = 0, cancelled = 0;
  std::map<std::uint32_t, KindCounters> by_kind;
  double stage_sum_s[4] = {};
  std::uint64_t stage_count = 0;

  // Partition memory: the kind's model and what solo partitions were measured to use (peak RSS
  // growth from dispatch to the end of the backend call, taken only when no other partition was in
  // flight). Reservations are max(model, 1.1 x measured).
  std::map<std::string, PartitionSizing> sizing;
  std::atomic<std::uint32_t> partitions_in_flight{0};
  bool probing = true;
  std::uint64_t tracked_peak_rss = 0;  // peak RSS seen before each reset of the kernel's mark

  std::vector<std::unique_ptr<DeviceLock>> device_lock;
  std::vector<std::thread> threads;

  Impl(const EngineOptions& o, MemoryBudget& b, SrsManager& s) : opt(o), budget(b), srs(s) {}

  Micros now() const {
    return Micros(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
  }

  void timeline(const char* event, const std::string& job, const std::string& detail) {
    if (!opt.timeline_sink) return;
    opt.timeline_sink("TIMELINE," + std::to_string(now() / 1000) + "," + event + "," + job + "," + detail);
  }

  void kick_dispatcher() {
    {
      std::lock_guard<std::mutex> g(mu);
      sched.changed();
    }
    dispatch_cv.notify_all();
  }

  std::size_t add_slot(const std::string& stage, std::uint32_t id, std::uint32_t device) {
    slots.push_back(Slot{stage, id, device, {}, 0, 0, 0, 0});
    return slots.size() - 1;
  }
  void slot_busy(std::size_t s, const Job& j, std::uint32_t partition) {
    slots[s].job_id = j.id;
    slots[s].kind = j.kind;
    slots[s].partition = partition;
    slots[s].busy_since = now();
  }
  void slot_idle(std::size_t s) {
    slots[s].job_id.clear();
    slots[s].busy_since = 0;
    slots[s].done++;
  }
  void end_in_progress(std::uint32_t kind) {
    auto it = in_progress_by_kind.find(kind);
    if (it != in_progress_by_kind.end() && it->second > 0) it->second--;
  }
  std::string kind_name(std::uint32_t kind) const { return opt.kinds.name(kind); }

  // ---- terminal results

  // Sets the job's one terminal result; false if it already had one. Drops its queued work.
  bool finish(const std::shared_ptr<Job>& job, ResultStatus st, std::string proof, std::string error,
              std::uint64_t verify_ms = 0) {
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

  void fail(const std::shared_ptr<Job>& job, std::string error) {
    finish(job, ResultStatus::kFailed, {}, std::move(error));
  }

  // ---- prepare

  void prepare_loop(std::size_t slot) {
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

  void prepare_one(const std::shared_ptr<Job>& job) {
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

  // ---- dispatch: the scheduler's head partition, once its memory is reserved, to synthesis

  void dispatch_loop() {
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

  // Hands a task to the next stage's bounded queue, waiting for space; false when the job ended or
  // the engine stops first (the task is then still the caller's).
  template <class Q>
  bool hand_off(Q& next, TaskPtr& t) {
    const std::shared_ptr<Job> job = t->job;
    std::unique_lock<std::mutex> lk(mu);
    return next.push(lk, key_of(*job, t->index), t, [&] { return stopping || job->stop.load(); });
  }

  // ---- synthesis

  void synthesize(TaskPtr& t, std::int32_t worker) {
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

  // ---- backend: Backend::start under the device lock

  void prove(TaskPtr& t, groth16::Backend& backend, std::int32_t worker, std::uint32_t device_index) {
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

  // A solo partition's peak RSS growth from dispatch to the end of its backend call.
  void record_probe(const Task& t) {
    std::uint64_t hwm = process_peak_rss_bytes();
    std::uint64_t grown = hwm > t.probe_rss0 ? hwm - t.probe_rss0 : 0;
    std::lock_guard<std::mutex> g(mu);
    auto& sz = sizing[t.sizing_key];
    sz.measured_bytes = std::max(sz.measured_bytes, grown);
    sz.samples++;
    tracked_peak_rss = std::max(tracked_peak_rss, hwm);
  }

  // ---- finalize: finish() with fresh r, s; the last partition assembles and self-verifies

  void finalize(TaskPtr& t, std::int32_t worker) {
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

  // ---- workers

  template <class Q, class Work>
  void stage_worker(Q& q, std::size_t slot, Work&& work) {
    run_stage_worker(
        mu, stopping, q, [&](const TaskPtr& t) { slot_busy(slot, *t->job, t->index); }, work,
        [&] { slot_idle(slot); });
  }

  void start_threads() {
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

  void janitor_loop() {
    std::unique_lock<std::mutex> lk(mu);
    const auto tick = std::clamp<std::chrono::milliseconds>(opt.result_ttl / 4, std::chrono::milliseconds(10),
                                                            std::chrono::milliseconds(1000));
    while (!stopping) {
      janitor_cv.wait_for(lk, tick);
      if (stopping) return;
      prune_locked();
    }
  }

  void prune_locked() {
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
};

// ------------------------------------------------------------------------------------ Engine

Engine::Engine(EngineOptions options) : options_(std::move(options)) {
  if (options_.devices.empty()) options_.devices = {0};
  options_.prepare_workers = std::max<std::uint32_t>(1, options_.prepare_workers);
  options_.synthesis_workers = std::max<std::uint32_t>(1, options_.synthesis_workers);
  options_.workers_per_device = std::max<std::uint32_t>(1, options_.workers_per_device);
  options_.finalizer_threads = std::max<std::uint32_t>(1, options_.finalizer_threads);
  if (options_.partition_memory_factor <= 0) options_.partition_memory_factor = 1.0;
  budget_ = std::make_unique<MemoryBudget>(options_.memory_budget_bytes);
  srs_ = std::make_unique<SrsManager>(*budget_, SrsManager::Options{options_.param_cache, options_.srs_min_idle,
                                                                     options_.on_key_unloaded,
                                                                     options_.kinds.loaders()});
  impl_ = std::make_unique<Impl>(options_, *budget_, *srs_);
  Impl& im = *impl_;

  budget_->set_evictor([this](std::uint64_t needed) { return srs_->evict_idle(needed); });
  budget_->add_listener([&im] { im.kick_dispatcher(); });

  const std::uint32_t backend_workers = std::uint32_t(options_.devices.size()) * options_.workers_per_device;
  im.backend_q.set_capacity(options_.backend_queue_depth ? options_.backend_queue_depth : 2 * backend_workers);
  im.final_q.set_capacity(backend_workers + options_.finalizer_threads);
  im.free_synth_slots = options_.synthesis_workers;
  for (std::size_t d = 0; d < options_.devices.size(); ++d) im.device_lock.push_back(std::make_unique<DeviceLock>());
  im.start_threads();
}

Engine::~Engine() {
  shutdown();
  // The budget's callbacks point into impl_ and srs_: detach them before either goes.
  budget_->detach_callbacks();
  impl_.reset();  // what is left returns its reservations to the budget, which is still alive
  srs_.reset();
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

Result<SubmitOutcome> Engine::submit(ProofRequest request) {
  Impl& im = *impl_;
  if (request.request_id.empty()) request.request_id = make_uuid_v4();
  const std::size_t fp = request.fingerprint();

  std::shared_ptr<Job> job;
  bool unknown_kind = false;
  SubmitOutcome out;
  {
    std::lock_guard<std::mutex> g(im.mu);
    auto it = im.jobs.find(request.request_id);
    if (it != im.jobs.end()) {
      auto& existing = it->second;
      if (existing->fingerprint != fp) {
        return Error{"request_id \"" + request.request_id + "\" is already used by a different request"};
      }
      auto r = existing->current_result();
      if (!r || r->status == ResultStatus::kCompleted) {
        out.job_id = existing->id;
        out.joined = true;
        out.job = existing;
        return out;
      }
      // A failed or cancelled run is retried as a new run under the same id.
      im.jobs.erase(it);
    }
    if (auto st = admit(im.accepting, im.active, options_.max_active_jobs); !st) return Error{st.error()};
    job = std::make_shared<Job>();
    job->id = request.request_id;
    job->seq = im.next_seq++;
    job->kind = request.proof_kind;
    job->priority = options_.kinds.priority(request.priority, request.proof_kind);
    job->fingerprint = fp;
    job->submitted = im.now();
    job->req = std::make_shared<const ProofRequest>(std::move(request));
    im.jobs[job->id] = job;
    ++im.active;
    unknown_kind = options_.kinds.find(job->kind) == nullptr;
    if (!unknown_kind) {
      const RunKey k = key_of(*job, 0);
      out.queue_position = im.sched.position(k, im.active);
      im.sched.queue_job(k, job);
    }
  }
  if (unknown_kind) {
    im.fail(job, options_.kinds.unknown_kind_message(job->kind));
  } else {
    im.prepare_cv.notify_one();
    im.timeline("JOB_QUEUED", job->id,
                "kind=" + im.kind_name(job->kind) + ",priority=" + priority_name(job->priority));
  }
  out.job_id = job->id;
  out.job = job;
  return out;
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
  auto s = submit(std::move(request));
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
  std::lock_guard<std::mutex> g(impl_->mu);
  impl_->accepting = false;
}

bool Engine::accepting() const {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->accepting;
}

bool Engine::drain(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lk(impl_->mu);
  return impl_->idle_cv.wait_for(lk, timeout, [&] { return impl_->active == 0; });
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
  for (auto* cv : {&im.prepare_cv, &im.dispatch_cv, &im.janitor_cv}) cv->notify_all();
  im.synth_q.wake_all();
  im.backend_q.wake_all();
  im.final_q.wake_all();
  for (auto& t : im.threads) t.join();
  im.threads.clear();
  // Tasks left in queues are dropped here, outside the lock; their reservations return to the budget.
  std::pair<std::vector<std::shared_ptr<Job>>, std::vector<TaskPtr>> queued;
  std::vector<TaskPtr> staged;
  {
    std::lock_guard<std::mutex> g(im.mu);
    queued = im.sched.take_all();
    for (auto* q : {&im.synth_q, &im.final_q})
      for (auto& t : q->take_all()) staged.push_back(std::move(t));
    for (auto& t : im.backend_q.take_all()) staged.push_back(std::move(t));
  }
}

// ------------------------------------------------------------------------------------ status

StatusSnapshot Engine::status() const {
  Impl& im = *impl_;
  StatusSnapshot s;
  s.backend = options_.backend_name;
  if (options_.device_memory_bytes) s.gpu_bytes = options_.device_memory_bytes();
  s.budget_bytes = budget_->total();
  s.used_bytes = budget_->used();
  s.peak_bytes = budget_->peak();
  s.srs_bytes = budget_->used(MemoryBudget::kSrs);
  s.partition_bytes = budget_->used(MemoryBudget::kPartition);
  s.budget_waiters = budget_->waiters();
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
  s.synth_queue = std::uint32_t(im.synth_q.size());
  s.backend_queue = std::uint32_t(im.backend_q.size());
  s.finalize_queue = std::uint32_t(im.final_q.size());
  s.synthesis_workers = options_.synthesis_workers;
  s.backend_workers = std::uint32_t(options_.devices.size()) * options_.workers_per_device;
  s.finalizers = options_.finalizer_threads;
  for (int i = 0; i < 4; ++i) s.stage_sum_s[i] = im.stage_sum_s[i];
  s.peak_rss_bytes = std::max(s.peak_rss_bytes, im.tracked_peak_rss);
  s.sizing = im.sizing;
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
    js.state = j->state == Job::State::kQueued ? "queued" : j->state == Job::State::kPreparing ? "preparing" : "running";
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
