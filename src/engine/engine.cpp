#include "engine/engine.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include "engine/porep_kind.hpp"
#include "engine/units.hpp"

namespace cuzk::engine {

using Clock = std::chrono::steady_clock;

// ------------------------------------------------------------------------------------------ Job

class Job {
 public:
  enum class State { kQueued, kPreparing, kRunning, kDone };

  std::string id;
  std::uint64_t seq = 0;
  std::uint32_t kind = 0;
  Priority priority = Priority::kNormal;
  std::shared_ptr<const ProofRequest> req;
  std::size_t fingerprint = 0;
  Micros submitted = 0;
  std::atomic<bool> stop{false};  // set once the job has a terminal result: work on it stops
  bool claimed = false;           // under mu: a terminal result is being published (exactly once)

  mutable std::mutex mu;
  std::condition_variable cv;
  State state = State::kQueued;
  std::optional<JobResult> result;
  Micros finished_at = 0;
  std::shared_ptr<PreparedJob> prepared;  // tasks hold copies; dropped when the job finishes
  std::string circuit_id;
  std::uint32_t num_parts = 0;
  std::uint32_t parts_done = 0;
  std::vector<PartitionTimes> times;
  std::vector<std::optional<groth16::Proof>> proofs;
  std::uint64_t srs_load_ms = 0;
};

std::optional<JobResult> Engine::result_of(const std::shared_ptr<Job>& job) {
  if (!job) return std::nullopt;
  std::lock_guard<std::mutex> g(job->mu);
  return job->result;
}

std::string Engine::id_of(const std::shared_ptr<Job>& job) { return job ? job->id : std::string(); }

// ------------------------------------------------------------------------------------ helpers

namespace {

struct Key {
  int prio;  // negated priority: smaller runs first
  std::uint64_t seq;
  std::uint32_t index;
  bool operator<(const Key& o) const {
    if (prio != o.prio) return prio < o.prio;
    if (seq != o.seq) return seq < o.seq;
    return index < o.index;
  }
  bool operator==(const Key& o) const { return prio == o.prio && seq == o.seq && index == o.index; }
};

Key key_of(const Job& j, std::uint32_t index) { return Key{-static_cast<int>(j.priority), j.seq, index}; }

// A device's lock, handed to the waiting worker whose partition ranks first (priority, job arrival,
// partition), not to whichever thread wins a plain mutex race: a CRITICAL partition that reaches
// the device queue behind NORMAL ones still gets the device next.
class DeviceLock {
 public:
  void lock(const Key& k) {
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
  std::set<Key> waiting_;
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

// Resets the kernel's peak-RSS mark (VmHWM) to the current RSS (Linux "clear_refs" value 5).
bool reset_peak_rss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.flush();
  return bool(f);
}

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

std::uint64_t read_proc_status_kb(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(field);
  while (std::getline(f, line)) {
    if (line.compare(0, n, field) == 0) {
      return std::strtoull(line.c_str() + n, nullptr, 10) * 1024;
    }
  }
  return 0;
}

std::uint64_t ms_between(Micros a, Micros b) { return b > a ? (b - a + 500) / 1000 : 0; }

std::string json_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size() + 2);
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += c;
        }
    }
  }
  return o;
}

}  // namespace

std::uint64_t process_rss_bytes() { return read_proc_status_kb("VmRSS:"); }
std::uint64_t process_peak_rss_bytes() { return read_proc_status_kb("VmHWM:"); }

std::uint64_t system_memory_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("MemTotal:", 0) == 0) return std::strtoull(line.c_str() + 9, nullptr, 10) * 1024;
  }
  return 0;
}

std::string make_uuid_v4() {
  static thread_local std::mt19937_64 rng{std::random_device{}() ^ (std::uint64_t(std::random_device{}()) << 32)};
  std::uint64_t a = rng(), b = rng();
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", unsigned(a >> 32), unsigned((a >> 16) & 0xffff),
                unsigned(a & 0xffff), unsigned(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

// ------------------------------------------------------------------------------------ Impl

struct Engine::Impl {
  Engine& eng;
  const EngineOptions& opt;
  MemoryBudget& budget;
  SrsManager& srs;
  const Clock::time_point start = Clock::now();

  mutable std::mutex mu;  // queues, job table, workers, counters
  std::condition_variable prepare_cv, dispatch_cv, synth_cv, backend_cv, backend_space_cv, final_cv,
      final_space_cv, idle_cv, janitor_cv;
  bool stopping = false;
  bool accepting = true;
  std::uint64_t next_seq = 1;
  std::uint64_t kick = 0;
  std::uint64_t last_failed_kick = ~std::uint64_t(0);

  std::map<std::uint32_t, std::shared_ptr<JobKind>> kinds;
  std::map<std::string, std::shared_ptr<Job>> jobs;        // unfinished and retained finished jobs
  std::deque<std::pair<Micros, std::string>> finished;     // completion order, for pruning
  std::uint32_t active = 0;                                 // unfinished jobs

  std::map<Key, std::shared_ptr<Job>> prepare_q;
  std::map<Key, TaskPtr> sched_q;
  std::deque<TaskPtr> synth_q;
  std::uint32_t free_synth_slots = 0;
  std::map<Key, TaskPtr> backend_q;
  std::deque<TaskPtr> final_q;
  std::uint32_t backend_cap = 0, final_cap = 0;
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

  Impl(Engine& e, const EngineOptions& o, MemoryBudget& b, SrsManager& s) : eng(e), opt(o), budget(b), srs(s) {}

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
      ++kick;
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

  // ---- terminal results

  JobResult build_result(Job& j, ResultStatus st, std::string proof, std::string error, std::uint64_t verify_ms) {
    JobResult r;
    r.job_id = j.id;
    r.status = st;
    r.proof = std::move(proof);
    r.error = std::move(error);
    r.proof_kind = j.kind;
    r.num_partitions = j.num_parts;
    r.submitted = j.submitted;
    r.completed = now();
    r.total_ms = ms_between(r.submitted, r.completed);
    r.srs_load_ms = j.srs_load_ms;
    r.verify_ms = verify_ms;
    r.partitions = j.times;
    Micros first_dispatch = 0;
    std::uint64_t synth_us = 0, gpu_us = 0;
    for (const auto& t : j.times) {
      if (t.dispatched && (!first_dispatch || t.dispatched < first_dispatch)) first_dispatch = t.dispatched;
      if (t.synth_end > t.synth_start && t.synth_start) synth_us += t.synth_end - t.synth_start;
      Micros gpu_end = t.finalize_end ? t.finalize_end : t.backend_end;
      if (t.backend_start && gpu_end > t.backend_start) gpu_us += gpu_end - t.backend_start;
    }
    r.synthesis_ms = (synth_us + 500) / 1000;
    r.gpu_compute_ms = (gpu_us + 500) / 1000;
    if (first_dispatch) {
      std::uint64_t waited = ms_between(r.submitted, first_dispatch);
      r.queue_wait_ms = waited > r.srs_load_ms ? waited - r.srs_load_ms : 0;
    } else {
      r.queue_wait_ms = r.total_ms > r.srs_load_ms ? r.total_ms - r.srs_load_ms : 0;
    }
    return r;
  }

  // Sets the job's one terminal result; false if it already had one. Drops its queued work.
  bool finish(const std::shared_ptr<Job>& job, ResultStatus st, std::string proof, std::string error,
              std::uint64_t verify_ms = 0) {
    std::shared_ptr<PreparedJob> prepared;
    std::shared_ptr<const ProofRequest> request;
    JobResult r;
    {
      std::lock_guard<std::mutex> g(job->mu);
      if (job->claimed) return false;
      job->claimed = true;
      job->stop.store(true);
      r = build_result(*job, st, std::move(proof), std::move(error), verify_ms);
      job->finished_at = r.completed;
      prepared = std::move(job->prepared);
      // A retained result must not keep the inputs (a PoRep C1 input is ~50 MB); the fingerprint
      // still recognises a resubmission.
      request = std::move(job->req);
      job->proofs.clear();
    }

    std::vector<TaskPtr> dropped;
    {
      std::lock_guard<std::mutex> g(mu);
      for (auto it = prepare_q.begin(); it != prepare_q.end();) {
        it = it->second == job ? prepare_q.erase(it) : std::next(it);
      }
      for (auto* q : {&sched_q, &backend_q}) {
        for (auto it = q->begin(); it != q->end();) {
          if (it->second->job == job) {
            dropped.push_back(std::move(it->second));
            it = q->erase(it);
          } else {
            ++it;
          }
        }
      }
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
      ++kick;
    }
    if (st != ResultStatus::kCompleted) {
      timeline(st == ResultStatus::kCancelled ? "JOB_CANCELLED" : "JOB_FAILED", job->id, r.error);
    } else {
      timeline("JOB_DONE", job->id, "total_ms=" + std::to_string(r.total_ms));
    }
    // Published only now, so that whoever sees the result also sees the counters.
    {
      std::lock_guard<std::mutex> g(job->mu);
      job->result = r;
      job->state = Job::State::kDone;
    }
    job->cv.notify_all();
    backend_space_cv.notify_all();
    final_space_cv.notify_all();
    dispatch_cv.notify_all();
    idle_cv.notify_all();
    janitor_cv.notify_all();
    dropped.clear();   // reservations go back here, outside every lock
    prepared.reset();  // and the proving-key lease
    request.reset();
    return true;
  }

  void fail(const std::shared_ptr<Job>& job, std::string error) {
    finish(job, ResultStatus::kFailed, {}, std::move(error));
  }

  // ---- stage threads

  void prepare_loop(std::size_t slot) {
    while (true) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lk(mu);
        prepare_cv.wait(lk, [&] { return stopping || !prepare_q.empty(); });
        if (stopping) return;
        job = prepare_q.begin()->second;
        prepare_q.erase(prepare_q.begin());
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
      if (job->claimed) return;
      job->state = Job::State::kPreparing;
      req = job->req;
    }
    std::shared_ptr<JobKind> kind;
    {
      std::lock_guard<std::mutex> g(mu);
      auto it = kinds.find(job->kind);
      if (it != kinds.end()) kind = it->second;
    }
    if (!kind) return fail(job, "unknown proof_kind " + std::to_string(job->kind));
    PrepareContext ctx{srs, CancelToken(&job->stop), 0, opt.allow_witness_paths, opt.backend_name};
    auto prepared = kind->prepare(std::move(req), ctx);
    if (!prepared) return fail(job, prepared.error());
    std::shared_ptr<PreparedJob> p(std::move(*prepared));
    const std::uint32_t n = p->num_partitions();
    if (n == 0) return fail(job, kind->name() + ": the job has no partitions");
    const std::string sizing_key = kind->name() + "/" + p->circuit_id();
    std::uint64_t measured = 0;
    std::vector<PartitionMemory> mems(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      PartitionMemory m = p->partition_memory(i);
      m.full = std::uint64_t(double(m.full) * opt.partition_memory_factor);
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
      if (job->claimed) return;
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
        sched_q.emplace(key_of(*job, i), std::move(task));
      }
      ++kick;
    }
    dispatch_cv.notify_all();
  }

  void dispatch_loop() {
    while (true) {
      Key head{};
      std::uint64_t bytes = 0, seen = 0;
      TaskPtr drop;
      {
        std::unique_lock<std::mutex> lk(mu);
        auto ready = [&] { return stopping || (!sched_q.empty() && free_synth_slots > 0 && kick != last_failed_kick); };
        if (!ready()) {
          // A key that becomes evictable only with time (min_idle) wakes nobody: re-check now and then.
          dispatch_cv.wait_for(lk, std::chrono::milliseconds(200), ready);
          if (!ready()) {
            last_failed_kick = ~std::uint64_t(0);
            continue;
          }
        }
        if (stopping) return;
        auto it = sched_q.begin();
        if (it->second->job->stop.load()) {
          drop = std::move(it->second);
          sched_q.erase(it);
        } else {
          head = it->first;
          bytes = it->second->mem.full;
          seen = kick;
        }
      }
      if (drop) continue;  // destroyed outside the lock

      // A proving key waiting for memory that draining partitions would free goes first.
      std::optional<Reservation> res;
      std::uint64_t waiting = budget.head_waiter_bytes();
      if (!(waiting && waiting <= budget.total() - budget.used(MemoryBudget::kSrs))) {
        res = budget.try_reserve(bytes, MemoryBudget::kPartition, /*jump_queue=*/true);
      }
      std::unique_lock<std::mutex> lk(mu);
      if (!res) {
        last_failed_kick = seen;
        continue;
      }
      auto it = sched_q.begin();
      if (stopping || it == sched_q.end() || !(it->first == head) || free_synth_slots == 0) {
        lk.unlock();
        res.reset();
        continue;
      }
      TaskPtr t = std::move(it->second);
      sched_q.erase(it);
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
      synth_q.push_back(std::move(t));
      lk.unlock();
      synth_cv.notify_one();
    }
  }

  void end_in_progress(std::uint32_t kind) {
    auto it = in_progress_by_kind.find(kind);
    if (it != in_progress_by_kind.end() && it->second > 0) it->second--;
  }

  void synth_loop(std::size_t slot, std::int32_t worker) {
    while (true) {
      TaskPtr t;
      {
        std::unique_lock<std::mutex> lk(mu);
        synth_cv.wait(lk, [&] { return stopping || !synth_q.empty(); });
        if (stopping) return;
        t = std::move(synth_q.front());
        synth_q.pop_front();
        slot_busy(slot, *t->job, t->index);
      }
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
        Micros end = now();
        std::uint64_t synth_ms = 0;
        {
          std::lock_guard<std::mutex> g(job->mu);
          job->times[t->index].synth_end = end;
          synth_ms = ms_between(job->times[t->index].synth_start, end);
        }
        if (!r) {
          if (!job->stop.load()) {
            fail(job, "partition " + std::to_string(t->index) + " synthesis failed: " + r.error());
          }
        } else {
          timeline("SYNTH_END", job->id, pdetail + ",synth_ms=" + std::to_string(synth_ms));
          t->synth = std::move(*r);
          std::unique_lock<std::mutex> lk(mu);
          backend_space_cv.wait(lk, [&] { return stopping || job->stop.load() || backend_q.size() < backend_cap; });
          if (!stopping && !job->stop.load()) {
            Key k = key_of(*job, t->index);
            backend_q.emplace(k, std::move(t));
            handed_off = true;
            lk.unlock();
            backend_cv.notify_one();
            timeline("GPU_QUEUE", job->id, pdetail);
          }
        }
      }
      std::uint32_t kind = job->kind;
      t.reset();  // a dropped task returns its reservation here, outside the lock
      {
        std::lock_guard<std::mutex> g(mu);
        if (!handed_off) end_in_progress(kind);
        ++free_synth_slots;
        ++kick;
        slot_idle(slot);
      }
      dispatch_cv.notify_all();
    }
  }

  void backend_loop(std::size_t slot, std::int32_t worker, std::uint32_t device_index) {
    std::unique_ptr<groth16::Backend> backend =
        opt.backend_factory ? opt.backend_factory(opt.devices[device_index]) : groth16::make_cpu_backend();
    const std::uint32_t device = opt.devices[device_index];
    while (true) {
      TaskPtr t;
      {
        std::unique_lock<std::mutex> lk(mu);
        backend_cv.wait(lk, [&] { return stopping || !backend_q.empty(); });
        if (stopping) return;
        t = std::move(backend_q.begin()->second);
        backend_q.erase(backend_q.begin());
        slot_busy(slot, *t->job, t->index);
      }
      backend_space_cv.notify_one();
      auto job = t->job;
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
          if (!job->stop.load()) {
            r = t->synth->start(*backend);
          } else {
            r = Error{"cancelled"};
          }
          {
            std::lock_guard<std::mutex> g(job->mu);  // stamped before the device is released
            job->times[t->index].backend_end = now();
          }
          if (t->probe && partitions_in_flight.load() == 1) {
            std::uint64_t hwm = process_peak_rss_bytes();
            std::uint64_t grown = hwm > t->probe_rss0 ? hwm - t->probe_rss0 : 0;
            std::lock_guard<std::mutex> g(mu);
            auto& sz = sizing[t->sizing_key];
            sz.measured_bytes = std::max(sz.measured_bytes, grown);
            sz.samples++;
            tracked_peak_rss = std::max(tracked_peak_rss, hwm);
          }
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
            fail(job, "partition " + std::to_string(t->index) + " backend (" + backend->name() + ") failed: " + r.error());
          }
        } else {
          t->pending = *r;
          std::unique_lock<std::mutex> lk(mu);
          final_space_cv.wait(lk, [&] { return stopping || job->stop.load() || final_q.size() < final_cap; });
          if (!stopping && !job->stop.load()) {
            final_q.push_back(std::move(t));
            handed_off = true;
            lk.unlock();
            final_cv.notify_one();
          }
        }
      }
      std::uint32_t kind = job->kind;
      t.reset();
      {
        std::lock_guard<std::mutex> g(mu);
        if (!handed_off) end_in_progress(kind);
        slot_idle(slot);
      }
    }
  }

  void finalize_loop(std::size_t slot, std::int32_t worker) {
    while (true) {
      TaskPtr t;
      {
        std::unique_lock<std::mutex> lk(mu);
        final_cv.wait(lk, [&] { return stopping || !final_q.empty(); });
        if (stopping) return;
        t = std::move(final_q.front());
        final_q.pop_front();
        slot_busy(slot, *t->job, t->index);
      }
      final_space_cv.notify_one();
      auto job = t->job;
      if (!job->stop.load()) {
        {
          std::lock_guard<std::mutex> g(job->mu);
          job->times[t->index].finalize_start = now();
          job->times[t->index].finalizer = worker;
        }
        groth16::ProofRandomness rs = opt.randomness ? opt.randomness() : groth16::ProofRandomness::random();
        groth16::Proof proof = groth16::finish(*t->pending, t->prepared->key(t->index), rs);
        bool all_done = false;
        std::vector<groth16::Proof> proofs;
        {
          std::lock_guard<std::mutex> g(job->mu);
          auto& tm = job->times[t->index];
          tm.finalize_end = now();
          if (!job->claimed && !job->proofs[t->index]) {
            job->proofs[t->index] = proof;
            all_done = ++job->parts_done == job->num_parts;
            if (all_done) {
              for (auto& p : job->proofs) proofs.push_back(*p);
            }
          }
        }
        PartitionTimes tm;
        {
          std::lock_guard<std::mutex> g(job->mu);
          tm = job->times[t->index];
        }
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
      std::uint32_t kind = job->kind;
      t.reset();
      {
        std::lock_guard<std::mutex> g(mu);
        end_in_progress(kind);
        slot_idle(slot);
      }
    }
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
        if (it->second->claimed && !it->second->result) break;  // being published; next tick
        if (it->second->result && it->second->finished_at == at) {
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
  srs_ = std::make_unique<SrsManager>(
      *budget_, SrsManager::Options{options_.param_cache, options_.srs_min_idle, options_.on_key_unloaded});
  impl_ = std::make_unique<Impl>(*this, options_, *budget_, *srs_);
  Impl& im = *impl_;

  budget_->set_evictor([this](std::uint64_t needed) { return srs_->evict_idle(needed); });
  budget_->add_listener([&im] { im.kick_dispatcher(); });

  im.kinds[static_cast<std::uint32_t>(ProofKind::kGenericGroth16)] = make_generic_groth16_kind();
  for (ProofKind k : {ProofKind::kPoRepC2, ProofKind::kSnapUpdate, ProofKind::kWindowPoSt, ProofKind::kWinningPoSt}) {
    im.kinds[static_cast<std::uint32_t>(k)] = make_unsupported_filecoin_kind(k);
  }
  if (auto porep = make_porep_c2_kind()) im.kinds[static_cast<std::uint32_t>(ProofKind::kPoRepC2)] = porep;

  const std::uint32_t backend_workers = std::uint32_t(options_.devices.size()) * options_.workers_per_device;
  im.backend_cap = options_.backend_queue_depth ? options_.backend_queue_depth : 2 * backend_workers;
  im.final_cap = backend_workers + options_.finalizer_threads;
  im.free_synth_slots = options_.synthesis_workers;
  for (std::size_t d = 0; d < options_.devices.size(); ++d) im.device_lock.push_back(std::make_unique<DeviceLock>());

  std::lock_guard<std::mutex> g(im.mu);
  for (std::uint32_t i = 0; i < options_.prepare_workers; ++i) {
    std::size_t s = im.add_slot("prepare", i, 0);
    im.threads.emplace_back([&im, s] { im.prepare_loop(s); });
  }
  im.threads.emplace_back([&im] { im.dispatch_loop(); });
  for (std::uint32_t i = 0; i < options_.synthesis_workers; ++i) {
    std::size_t s = im.add_slot("synthesis", i, 0);
    im.threads.emplace_back([&im, s, i] { im.synth_loop(s, std::int32_t(i)); });
  }
  std::uint32_t w = 0;
  for (std::uint32_t d = 0; d < options_.devices.size(); ++d) {
    for (std::uint32_t k = 0; k < options_.workers_per_device; ++k, ++w) {
      std::size_t s = im.add_slot("backend", w, options_.devices[d]);
      im.threads.emplace_back([&im, s, w, d] { im.backend_loop(s, std::int32_t(w), d); });
    }
  }
  for (std::uint32_t i = 0; i < options_.finalizer_threads; ++i) {
    std::size_t s = im.add_slot("finalize", i, 0);
    im.threads.emplace_back([&im, s, i] { im.finalize_loop(s, std::int32_t(i)); });
  }
  im.threads.emplace_back([&im] { im.janitor_loop(); });
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
  impl_->kinds[kind] = std::move(impl);
}

Micros Engine::now_us() const { return impl_->now(); }

Result<SubmitOutcome> Engine::submit(ProofRequest request) {
  Impl& im = *impl_;
  if (request.request_id.empty()) request.request_id = make_uuid_v4();
  // Fingerprint of everything that defines the proof, to tell a retry from an id collision.
  std::size_t fp = std::hash<std::string_view>{}(request.vanilla_proof);
  auto mix = [&fp](std::size_t h) { fp ^= h + 0x9e3779b97f4a7c15ULL + (fp << 6) + (fp >> 2); };
  mix(request.proof_kind);
  mix(request.sector_size);
  mix(request.registered_proof);
  mix(request.sector_number);
  mix(request.miner_id);
  mix(request.partition_index);
  for (const auto& v : request.vanilla_proofs) mix(std::hash<std::string_view>{}(v));
  for (const std::string* s : {&request.randomness, &request.comm_r_old, &request.comm_r_new, &request.comm_d_new,
                               &request.circuit_id, &request.witness_wtns, &request.witness_path}) {
    mix(std::hash<std::string_view>{}(*s));
  }

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
      auto r = result_of(existing);
      if (!r || r->status == ResultStatus::kCompleted) {
        out.job_id = existing->id;
        out.joined = true;
        out.job = existing;
        return out;
      }
      // A failed or cancelled run is retried as a new run under the same id.
      im.jobs.erase(it);
    }
    if (!im.accepting) return Error{"the daemon is shutting down and accepts no new jobs"};
    if (im.active >= options_.max_active_jobs) {
      return Error{"too many unfinished jobs (" + std::to_string(im.active) + "); try again later"};
    }
    job = std::make_shared<Job>();
    job->id = request.request_id;
    job->seq = im.next_seq++;
    job->kind = request.proof_kind;
    job->priority = resolve_priority(request.priority, request.proof_kind);
    job->fingerprint = fp;
    job->submitted = im.now();
    job->req = std::make_shared<const ProofRequest>(std::move(request));
    im.jobs[job->id] = job;
    ++im.active;
    unknown_kind = im.kinds.count(job->kind) == 0;
    if (!unknown_kind) {
      // Jobs served first: those queued ahead of it, and those already past the prepare queue.
      Key k = key_of(*job, 0);
      std::uint32_t ahead = 0;
      for (auto& [qk, _] : im.prepare_q)
        if (qk < k) ++ahead;
      std::uint32_t past_prepare = im.active - 1 - std::min<std::uint32_t>(im.active - 1, std::uint32_t(im.prepare_q.size()));
      out.queue_position = ahead + past_prepare;
      im.prepare_q.emplace(k, job);
    }
  }
  if (unknown_kind) {
    im.fail(job, "unknown proof_kind " + std::to_string(job->kind) +
                     " (expected 1 POREP_SEAL_COMMIT, 2 SNAP_DEALS_UPDATE, 3 WINDOW_POST_PARTITION, 4 WINNING_POST or "
                     "1000 GENERIC_GROTH16)");
  } else {
    im.prepare_cv.notify_one();
    im.timeline("JOB_QUEUED", job->id, "kind=" + kind_name(job->kind) + ",priority=" + priority_name(job->priority));
  }
  out.job_id = job->id;
  out.job = job;
  return out;
}

JobResult Engine::wait(const std::shared_ptr<Job>& job, std::chrono::milliseconds timeout,
                       const std::function<bool()>& abandon) {
  const auto deadline = timeout.count() > 0 ? Clock::now() + timeout : Clock::time_point::max();
  std::unique_lock<std::mutex> lk(job->mu);
  while (!job->result) {
    auto now = Clock::now();
    if (now >= deadline || (abandon && abandon())) {
      JobResult r;
      r.job_id = job->id;
      r.status = ResultStatus::kTimeout;
      r.proof_kind = job->kind;
      r.error = now >= deadline ? "timed out after " + std::to_string(timeout.count()) + " ms; the job is still running"
                                : "the caller stopped waiting";
      return r;
    }
    auto slice = now + std::chrono::milliseconds(abandon ? 50 : 1000);
    job->cv.wait_until(lk, std::min(deadline, slice));
  }
  return *job->result;
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
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    if (impl_->stopping) return;
    impl_->accepting = false;
  }
  cancel_all("the daemon is shutting down");
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    impl_->stopping = true;
  }
  for (auto* cv : {&impl_->prepare_cv, &impl_->dispatch_cv, &impl_->synth_cv, &impl_->backend_cv,
                   &impl_->backend_space_cv, &impl_->final_cv, &impl_->final_space_cv, &impl_->janitor_cv}) {
    cv->notify_all();
  }
  for (auto& t : impl_->threads) t.join();
  impl_->threads.clear();
  // Tasks left in queues are dropped here, outside the lock; their reservations return to the budget.
  std::map<Key, TaskPtr> s, b;
  std::deque<TaskPtr> sy, f;
  std::map<Key, std::shared_ptr<Job>> p;
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    s.swap(impl_->sched_q);
    b.swap(impl_->backend_q);
    sy.swap(impl_->synth_q);
    f.swap(impl_->final_q);
    p.swap(impl_->prepare_q);
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
  s.sched_depth = std::uint32_t(im.sched_q.size());
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
  for (auto& [k, j] : im.prepare_q) q[j->kind].pending++;
  for (auto& [k, t] : im.sched_q) q[t->job->kind].pending++;
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

std::string Engine::status_json() const {
  StatusSnapshot s = status();
  std::ostringstream o;
  auto kv = [&](const char* k, auto v, bool comma = true) { o << '"' << k << "\":" << v << (comma ? "," : ""); };
  auto ks = [&](const char* k, const std::string& v, bool comma = true) {
    o << '"' << k << "\":\"" << json_escape(v) << '"' << (comma ? "," : "");
  };
  auto ms_of = [&](Micros a, Micros b) -> std::uint64_t {
    if (!a) return 0;
    return ms_between(a, b ? b : s.now);
  };
  o << '{';
  kv("uptime_secs", s.uptime_s);
  ks("backend", s.backend);
  kv("gpu_memory_bytes", s.gpu_bytes);
  kv("accepting", s.accepting ? "true" : "false");
  o << "\"memory\":{";
  kv("total_bytes", s.budget_bytes);
  kv("used_bytes", s.used_bytes);
  kv("available_bytes", s.budget_bytes - std::min(s.budget_bytes, s.used_bytes));
  kv("peak_bytes", s.peak_bytes);
  kv("srs_bytes", s.srs_bytes);
  kv("partition_bytes", s.partition_bytes);
  kv("waiters", s.budget_waiters);
  kv("process_rss_bytes", s.rss_bytes);
  kv("process_peak_rss_bytes", s.peak_rss_bytes, false);
  o << "},\"synthesis\":{";
  std::uint32_t synth_active = 0;
  for (auto& w : s.workers)
    if (w.stage == "synthesis" && !w.job_id.empty()) ++synth_active;
  kv("max_concurrent", s.synthesis_workers);
  kv("active", synth_active, false);
  o << "},\"queues\":{";
  kv("jobs_queued", s.jobs_queued);
  kv("jobs_preparing", s.jobs_preparing);
  kv("jobs_running", s.jobs_running);
  kv("partitions_scheduled", s.sched_depth);
  kv("synthesis_queue", s.synth_queue);
  kv("backend_queue", s.backend_queue);
  kv("finalize_queue", s.finalize_queue, false);
  o << "},\"pipelines\":[";
  for (std::size_t i = 0; i < s.jobs.size(); ++i) {
    const auto& j = s.jobs[i];
    o << (i ? "," : "") << '{';
    ks("job_id", j.id);
    ks("proof_kind", kind_name(j.kind));
    ks("priority", priority_name(j.priority));
    ks("state", j.state);
    ks("circuit_id", j.circuit_id);
    kv("started_secs_ago", j.age_ms / 1000);
    kv("total_partitions", j.partitions);
    kv("partitions_done", j.partitions_done);
    o << "\"partitions\":[";
    for (std::size_t p = 0; p < j.times.size(); ++p) {
      const auto& t = j.times[p];
      const char* state = t.finalize_end ? "done"
                          : t.finalize_start ? "finalizing"
                          : t.backend_end ? "finalize_queue"
                          : t.backend_start ? "gpu"
                          : t.synth_end ? "synth_done"
                          : t.synth_start ? "synthesizing"
                          : t.dispatched ? "dispatched"
                                         : "pending";
      o << (p ? "," : "") << '{';
      kv("index", t.index);
      ks("state", state);
      kv("synth_ms", ms_of(t.synth_start, t.synth_end));
      kv("gpu_ms", ms_of(t.backend_start, t.backend_end), false);
      o << '}';
    }
    o << "]}";
  }
  o << "],\"workers\":[";
  for (std::size_t i = 0; i < s.workers.size(); ++i) {
    const auto& w = s.workers[i];
    o << (i ? "," : "") << '{';
    ks("stage", w.stage);
    kv("worker_id", w.id);
    kv("device", w.device);
    ks("state", w.job_id.empty() ? "idle" : "busy");
    ks("current_job", w.job_id);
    kv("current_partition", w.partition);
    kv("busy_ms", w.busy_ms);
    kv("items_done", w.items_done, false);
    o << '}';
  }
  o << "],\"allocations\":{\"srs\":[";
  for (std::size_t i = 0; i < s.srs.size(); ++i) {
    const auto& e = s.srs[i];
    o << (i ? "," : "") << '{';
    ks("circuit_id", e.id);
    ks("tier", tier_name(e.tier));
    kv("bytes", e.bytes);
    kv("ref_count", e.refs);
    kv("idle_ms", e.idle_ms);
    kv("load_ms", e.load_ms);
    kv("evictable", (e.tier != SrsTier::kCold && e.refs == 0) ? "true" : "false");
    ks("path", e.path, false);
    o << '}';
  }
  o << "]},\"partition_memory\":[";
  {
    bool first_sz = true;
    for (auto& [k, z] : s.sizing) {
      o << (first_sz ? "" : ",") << '{';
      ks("job", k);
      kv("model_bytes", z.model_bytes);
      kv("measured_bytes", z.measured_bytes);
      kv("samples", z.samples, false);
      o << '}';
      first_sz = false;
    }
  }
  o << "],\"counters\":{";
  kv("total_completed", s.completed);
  kv("total_failed", s.failed);
  kv("total_cancelled", s.cancelled);
  o << "\"by_kind\":{";
  bool first = true;
  for (auto& [k, c] : s.by_kind) {
    o << (first ? "" : ",") << '"' << kind_name(k) << "\":{";
    kv("completed", c.completed);
    kv("failed", c.failed);
    kv("cancelled", c.cancelled, false);
    o << '}';
    first = false;
  }
  o << "},";
  kv("queue_depth", s.sched_depth + s.jobs_queued, false);
  o << "}}";
  return o.str();
}

std::string Engine::prometheus_text() const {
  StatusSnapshot s = status();
  std::ostringstream o;
  auto family = [&](const char* name, const char* type, const char* help) {
    o << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
  };
  auto num = [](double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.6g", v);
    return std::string(b);
  };
  // Every kind the engine serves appears, with zeros, so the series exist from the start.
  std::map<std::uint32_t, KindCounters> kinds = s.by_kind;
  for (std::uint32_t k : {1u, 2u, 3u, 4u, 1000u}) kinds[k];

  family("cuzk_proofs_completed_total", "counter", "Proofs completed since the daemon started.");
  o << "cuzk_proofs_completed_total " << s.completed << '\n';
  family("cuzk_proofs_failed_total", "counter", "Proofs failed since the daemon started.");
  o << "cuzk_proofs_failed_total " << s.failed << '\n';
  family("cuzk_proofs_cancelled_total", "counter", "Proofs cancelled since the daemon started.");
  o << "cuzk_proofs_cancelled_total " << s.cancelled << '\n';
  family("cuzk_proofs_completed_by_kind_total", "counter", "Proofs completed, by proof kind.");
  for (auto& [k, c] : kinds) o << "cuzk_proofs_completed_by_kind_total{proof_kind=\"" << kind_label(k) << "\"} " << c.completed << '\n';
  family("cuzk_proofs_failed_by_kind_total", "counter", "Proofs failed, by proof kind.");
  for (auto& [k, c] : kinds) o << "cuzk_proofs_failed_by_kind_total{proof_kind=\"" << kind_label(k) << "\"} " << c.failed << '\n';
  family("cuzk_proofs_cancelled_by_kind_total", "counter", "Proofs cancelled, by proof kind.");
  for (auto& [k, c] : kinds) o << "cuzk_proofs_cancelled_by_kind_total{proof_kind=\"" << kind_label(k) << "\"} " << c.cancelled << '\n';
  family("cuzk_proof_duration_seconds", "summary", "Submission-to-result time of completed proofs.");
  for (auto& [k, c] : kinds) {
    o << "cuzk_proof_duration_seconds_sum{proof_kind=\"" << kind_label(k) << "\"} " << num(c.duration_sum_s) << '\n';
    o << "cuzk_proof_duration_seconds_count{proof_kind=\"" << kind_label(k) << "\"} " << c.duration_count << '\n';
  }
  family("cuzk_partition_stage_seconds", "summary", "Time finished partitions spent in each pipeline stage.");
  const char* stages[4] = {"queue", "synthesis", "backend", "finalize"};
  for (int i = 0; i < 4; ++i) {
    o << "cuzk_partition_stage_seconds_sum{stage=\"" << stages[i] << "\"} " << num(s.stage_sum_s[i]) << '\n';
    o << "cuzk_partition_stage_seconds_count{stage=\"" << stages[i] << "\"} " << s.stage_count << '\n';
  }
  family("cuzk_uptime_seconds", "gauge", "Seconds since the daemon started.");
  o << "cuzk_uptime_seconds " << s.uptime_s << '\n';
  family("cuzk_queue_depth", "gauge", "Jobs waiting to be prepared plus partitions waiting for memory or a worker.");
  std::uint32_t waiting = 0;
  for (auto& q : s.queues) waiting += q.pending;
  o << "cuzk_queue_depth " << waiting << '\n';
  family("cuzk_running_jobs", "gauge", "Jobs being prepared or proved.");
  o << "cuzk_running_jobs " << (s.jobs_preparing + s.jobs_running) << '\n';
  family("cuzk_gpu_workers", "gauge", "Backend workers (all devices).");
  o << "cuzk_gpu_workers " << s.backend_workers << '\n';
  family("cuzk_backend_info", "gauge", "The proving backend in use (label backend).");
  o << "cuzk_backend_info{backend=\"" << s.backend << "\"} 1\n";
  family("cuzk_gpu_memory_bytes", "gauge", "Device memory held by the backends (keys, shapes, buffers).");
  o << "cuzk_gpu_memory_bytes " << s.gpu_bytes << '\n';
  family("cuzk_stage_queue_length", "gauge", "Items waiting in each bounded pipeline queue.");
  o << "cuzk_stage_queue_length{stage=\"scheduler\"} " << s.sched_depth << '\n';
  o << "cuzk_stage_queue_length{stage=\"synthesis\"} " << s.synth_queue << '\n';
  o << "cuzk_stage_queue_length{stage=\"backend\"} " << s.backend_queue << '\n';
  o << "cuzk_stage_queue_length{stage=\"finalize\"} " << s.finalize_queue << '\n';
  family("cuzk_workers_busy", "gauge", "Busy workers by stage.");
  std::map<std::string, int> busy{{"prepare", 0}, {"synthesis", 0}, {"backend", 0}, {"finalize", 0}};
  for (auto& w : s.workers)
    if (!w.job_id.empty()) busy[w.stage]++;
  for (auto& [st, n] : busy) o << "cuzk_workers_busy{stage=\"" << st << "\"} " << n << '\n';
  family("cuzk_memory_budget_bytes", "gauge", "Total memory budget.");
  o << "cuzk_memory_budget_bytes " << s.budget_bytes << '\n';
  family("cuzk_memory_used_bytes", "gauge", "Memory reserved from the budget, by holder.");
  o << "cuzk_memory_used_bytes{holder=\"srs\"} " << s.srs_bytes << '\n';
  o << "cuzk_memory_used_bytes{holder=\"partitions\"} " << s.partition_bytes << '\n';
  o << "cuzk_memory_used_bytes{holder=\"other\"} " << (s.used_bytes - std::min(s.used_bytes, s.srs_bytes + s.partition_bytes)) << '\n';
  family("cuzk_memory_peak_bytes", "gauge", "Highest memory reserved from the budget since start.");
  o << "cuzk_memory_peak_bytes " << s.peak_bytes << '\n';
  family("cuzk_memory_waiters", "gauge", "Reservations blocked waiting for memory.");
  o << "cuzk_memory_waiters " << s.budget_waiters << '\n';
  family("cuzk_process_resident_memory_bytes", "gauge", "Resident set size of the daemon.");
  o << "cuzk_process_resident_memory_bytes " << s.rss_bytes << '\n';
  family("cuzk_process_peak_resident_memory_bytes", "gauge", "Peak resident set size of the daemon.");
  o << "cuzk_process_peak_resident_memory_bytes " << s.peak_rss_bytes << '\n';
  family("cuzk_partition_memory_bytes", "gauge",
         "Partition memory per job kind and circuit: the model, and the peak measured on solo partitions.");
  for (auto& [k, z] : s.sizing) {
    o << "cuzk_partition_memory_bytes{job=\"" << k << "\",source=\"model\"} " << z.model_bytes << '\n';
    o << "cuzk_partition_memory_bytes{job=\"" << k << "\",source=\"measured\"} " << z.measured_bytes << '\n';
  }
  family("cuzk_srs_loaded_bytes", "gauge", "Bytes held by each loaded proving key.");
  for (auto& e : s.srs) o << "cuzk_srs_loaded_bytes{circuit_id=\"" << e.id << "\",tier=\"" << tier_name(e.tier) << "\"} " << e.bytes << '\n';
  family("cuzk_srs_references", "gauge", "Jobs holding each proving key.");
  for (auto& e : s.srs) o << "cuzk_srs_references{circuit_id=\"" << e.id << "\"} " << e.refs << '\n';
  return o.str();
}

}  // namespace cuzk::engine
