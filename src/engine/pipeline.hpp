// The engine's pipeline (private to src/engine/): the threads and stages behind Engine (the backends
// they prove on come from the Executor, executor.hpp). Decisions
// are the Scheduler's (scheduler.hpp), the queues and worker loop are stage.hpp's, a job's end is
// job.hpp's; this struct wires them to the memory budget, the SrsManager, the kinds and the
// backends, and records what status reports. Only engine.cpp (public API, status) and pipeline.cpp
// (the stages) include it.
//
// Urgent work (scheduler.hpp) has capacity of its own at every stage: preparers, a synthesis pool
// per urgency, a backend worker per device, a finalizer, and the lane's workers (small urgent
// partitions, proved without the device). A backend worker takes a partition only when its device
// is free, so the partition that gets the device is chosen at that moment, by priority; nothing
// else waits for a device.
//
// Locking: `mu` guards the scheduler, the stage queues, the job table, the worker slots, the device
// flags and the counters; each job has its own mutex for its result and timings. Reservations are
// never returned while either is held (the budget wakes the dispatcher, which takes `mu`).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "engine/job.hpp"
#include "engine/partition_sizing.hpp"
#include "engine/scheduler.hpp"
#include "engine/stage.hpp"

namespace cuzk::engine {
namespace pipeline {

using Clock = std::chrono::steady_clock;

inline RunKey key_of(const Job& j, std::uint32_t index) { return RunKey::of(j.priority, j.seq, index); }

inline std::uint64_t ms_between(Micros a, Micros b) { return b > a ? (b - a + 500) / 1000 : 0; }

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
  Urgency urgency = Urgency::kNormal;  // scheduler.hpp: what capacity it may use
  Urgency pool = Urgency::kNormal;     // the synthesis pool whose slot it took
  std::string sizing_key;              // "<kind>/<circuit>": where measurements are recorded
  bool probe = false;                  // measuring this partition's memory (it started alone)
  std::uint64_t probe_rss0 = 0;        // RSS when the measurement started

  // A partition to be synthesized: made by prepare for every partition of a job, and again by the
  // watchdog for a partition stuck on a device that left service.
  static std::unique_ptr<Task> make(std::shared_ptr<Job> job, std::shared_ptr<PreparedJob> prepared,
                                    std::uint32_t index, PartitionMemory mem, std::string sizing_key, Urgency urgency) {
    auto t = std::make_unique<Task>();
    t->job = std::move(job);
    t->prepared = std::move(prepared);
    t->index = index;
    t->mem = mem;
    t->sizing_key = std::move(sizing_key);
    t->urgency = urgency;
    return t;
  }
};
using TaskPtr = std::unique_ptr<Task>;

}  // namespace pipeline

struct Engine::Impl {
  using Clock = pipeline::Clock;
  using Task = pipeline::Task;
  using TaskPtr = pipeline::TaskPtr;
  const EngineOptions& opt;
  MemoryBudget& budget;
  SrsManager& srs;
  const Clock::time_point start = Clock::now();

  mutable std::mutex mu;  // scheduler, stage queues, job table, workers, counters
  std::condition_variable prepare_cv, dispatch_cv, idle_cv, janitor_cv, watchdog_cv;
  bool stopping = false;
  bool accepting = true;
  std::uint64_t next_seq = 1;

  std::map<std::string, std::shared_ptr<Job>> jobs;     // unfinished and retained finished jobs
  std::deque<std::pair<Micros, std::string>> finished;  // completion order, for pruning
  std::uint32_t active = 0;                             // unfinished jobs
  std::uint32_t active_urgent = 0;                      // of which urgent (admitted apart)

  Scheduler<std::shared_ptr<Job>, TaskPtr> sched;
  UrgencyPolicy policy;
  // Synthesis: one pool per urgency (scheduler.hpp), each its queue, free slots and workers; the
  // dispatcher feeds a pool only when it has a free slot.
  std::array<StageQueue<TaskPtr, StageOrder::kFifo>, kUrgencies> synth_q;
  PerUrgency32 free_slots{};
  // The device queue: a backend worker takes its first item only while the worker's device is free
  // (device_busy), so that the item that runs next is chosen when the device frees, by priority.
  StageQueue<TaskPtr, StageOrder::kByKey> backend_q;
  std::vector<char> device_busy;  // per device index: a worker holds it (Backend::start running)
  // Per device index (opt.devices): in service until a failure there that the executor blames on the
  // device (Executor::device_fault); then its workers take nothing more and the partition it failed
  // goes back to backend_q for the others. `out` is also read without `mu` (key placement).
  // The partition a backend worker runs on a device, watched for hangs (EngineOptions::hang_multiple):
  // `overdue` cancels it (the backend's cancel check says so). Lives on the worker's stack; under mu.
  struct Watch {
    Micros since = 0, limit = 0;  // limit 0: not watched
    std::atomic<bool> overdue{false};
    // Past 1.5 x its limit, still in the backend after the cancel: stuck in a kernel; its device is
    // taken out of service without waiting for it, and the partition is synthesized again for another
    // device (its job fails when none is left). Whatever the stuck call returns later is dropped.
    std::atomic<bool> abandoned{false};
    std::string job_id;
    std::uint32_t partition = 0;
    // What a new task for the partition needs (the stuck worker keeps its own, witness and reservation).
    PartitionMemory mem;
    std::string sizing_key;
    Urgency urgency = Urgency::kNormal;
  };
  // A probe of a device out of service (Executor::device_fault on a detached thread, which only
  // touches this and the executor: a hung device may never answer).
  struct Probe {
    std::mutex mu;
    bool done = false;
    std::optional<std::string> fault;
  };
  struct DeviceState {
    std::atomic<bool> out{false};
    std::string fault;                           // why it is out
    Micros busy_us = 0;                          // held by a backend worker, in total (status: busy %)
    Micros busy_since = 0;                       // while held
    std::uint64_t partitions = 0, requeued = 0;  // proved here; failed here and handed to another device
    Watch* watch = nullptr;                      // the watched partition running there
    bool suspect = false;                        // a partition there went past its limit
    Micros out_since = 0;                        // when it went out, or was last probed
    std::shared_ptr<Probe> probe;
    std::uint64_t returned = 0;  // brought back by a probe
  };
  // Per sizing key: the recent backend time of one partition on a device (ms, a moving average), the
  // base of the hang limit.
  std::map<std::string, double> backend_ms;
  std::vector<DeviceState> dev;
  StageQueue<TaskPtr, StageOrder::kByKey> lane_q;  // small urgent partitions, for the lane workers
  StageQueue<TaskPtr, StageOrder::kByKey> final_q;
  // Memory headroom: the largest reservation of an urgent / small urgent partition prepared so far
  // (EngineOptions::urgent_memory_reserve replaces the urgent one).
  PerUrgency64 learned_headroom{};
  std::uint64_t lane_partitions = 0;                           // partitions proved on the lane
  std::map<std::uint32_t, std::uint32_t> in_progress_by_kind;  // partitions dispatched, not finalized

  struct Slot {
    WorkerStage stage = WorkerStage::kPrepare;
    bool urgent = false;
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

  // Partition memory (partition_sizing.hpp): the kinds' models and what solo partitions were
  // measured to use (peak RSS growth from dispatch to the end of the backend call, taken only when no
  // other partition was in flight).
  PartitionSizer sizer;
  std::atomic<std::uint32_t> partitions_in_flight{0};
  bool probing = true;
  std::uint64_t tracked_peak_rss = 0;  // peak RSS seen before each reset of the kernel's mark

  std::vector<std::thread> threads;

  Impl(const EngineOptions& o, MemoryBudget& b, SrsManager& s)
      : opt(o), budget(b), srs(s), sizer(o.partition_memory_factor) {}

  Micros now() const;
  // One partition's stage time, now, under its job's lock (the job's timings are read by status).
  void stamp(Job& job, std::uint32_t partition, Micros PartitionTimes::*field) const;

  void timeline(const char* event, const std::string& job, const std::string& detail);

  void kick_dispatcher();

  std::size_t add_slot(WorkerStage stage, bool urgent, std::uint32_t id, std::uint32_t device);
  void slot_busy(std::size_t s, const Job& j, std::uint32_t partition);
  void slot_idle(std::size_t s);
  void end_in_progress(std::uint32_t kind);
  std::string kind_name(std::uint32_t kind) const { return opt.kinds.name(kind); }
  // EngineOptions::cancel_abandoned, or the kind's row's deadline_bound when it is unset (under mu:
  // register_kind changes the rows).
  bool cancels_abandoned(std::uint32_t kind) const {
    if (opt.cancel_abandoned) {
      return std::find(opt.cancel_abandoned->begin(), opt.cancel_abandoned->end(), kind) != opt.cancel_abandoned->end();
    }
    const KindRow* row = opt.kinds.find(kind);
    return row && row->deadline_bound;
  }

  // ---- terminal results

  // Sets the job's one terminal result; false if it already had one. Drops its queued work.
  bool finish(const std::shared_ptr<Job>& job, ResultStatus st, std::string proof, std::string error,
              std::uint64_t verify_ms = 0);

  void fail(const std::shared_ptr<Job>& job, std::string error);
  // The job's end as one operator log line (engine logger): done at info with its timings,
  // cancelled at info with the reason, failed at error with the error.
  void log_end(const Job& job, const JobResult& r) const;

  // ---- prepare

  // A preparer; `at_least` set: one reserved for jobs of that priority and above.
  void prepare_loop(std::size_t slot, std::optional<Priority> at_least);

  void prepare_one(const std::shared_ptr<Job>& job);

  // ---- dispatch: the scheduler's head partition, once its memory is reserved, to synthesis

  void dispatch_loop();
  // The memory headroom of each urgency now (learned, or configured for kUrgent).
  PerUrgency64 headroom() const;

  // Hands a task to the next stage's bounded queue, waiting for space; false when the job ended or
  // the engine stops first (the task is then still the caller's).
  // `ignore_bound`: an urgent task, which lower priorities must not keep out of the queue.
  template <class Q>
  bool hand_off(Q& next, TaskPtr& t, bool ignore_bound);

  // ---- synthesis

  void synthesize(TaskPtr& t, std::int32_t worker);

  // ---- backend: Backend::start, holding the device (device_busy) or on the lane (no device)

  // A backend worker's hold on its device: taken when it pops an item, given back as soon as
  // Backend::start returns, so that the next item is chosen by priority when the device frees.
  struct DeviceClaim {
    Impl& im;
    std::uint32_t device_index;
    bool held = false;
    void take();     // under mu
    void release();  // without mu; wakes the workers waiting for the device
  };
  void backend_worker(std::size_t slot, std::uint32_t worker, std::uint32_t device_index, bool urgent_only);
  void lane_worker(std::size_t slot, std::uint32_t worker, std::size_t lane);  // lane: of opt.lane_devices
  // claim: the device held for this call (nullptr on the lane); released after start().
  void prove(TaskPtr& t, groth16::Backend& backend, std::int32_t worker, std::uint32_t device, DeviceClaim* claim);
  bool requeue_after_device_fault(TaskPtr& t, const std::string& backend_name, std::uint32_t device,
                                  const std::string& error, const std::string& wdetail);
  std::uint32_t idle_devices() const;  // under mu: idle and in service

  // ---- devices out of service (docs/daemon.md, "Several GPUs")

  std::optional<std::uint32_t> index_of(std::uint32_t ordinal) const;  // in opt.devices
  bool in_service_ordinal(std::uint32_t ordinal) const;                // without mu
  std::uint32_t devices_in_service() const;                            // under mu
  // Whether lane worker `i` (of opt.lane_devices) may take work: a CPU lane always, a GPU lane while
  // its device is in service. Under mu.
  bool lane_usable(std::size_t i) const;
  bool any_lane_usable() const;  // under mu
  // Takes a device out of service once, with an error line; the lane's queue moves to the devices
  // when no lane is left, and when no device is left every partition waiting for one fails its job.
  // Without mu; returns whether a device is still in service.
  bool take_out_of_service(std::uint32_t index, const std::string& fault);
  // After a failed start() or upload() on `ordinal` (a GPU lane's too): the executor's verdict, and
  // the device taken out of service when it blames the device. Without mu; nullopt: not the device's fault.
  std::optional<std::string> blame_device(std::uint32_t ordinal);
  // "no GPU left in service (GPU 0: ...; GPU 1: ...)". Under mu.
  std::string no_device_message() const;
  // Fails the job with "<what>: no GPU left in service (...)". Without mu.
  void fail_without_device(const std::shared_ptr<Job>& job, const std::string& what);
  // SrsManager::Options::copy_failed: a copy that failed on a device the executor blames is left out
  // while another device is in service.
  bool copy_failed(BackendSlot slot);
  enum class Handed { kQueued, kStopped, kNoDevice };
  // hand_off to backend_q, refused (the task still the caller's) once no device is in service.
  Handed hand_to_devices(TaskPtr& t, bool ignore_bound);

  // A solo partition's peak RSS growth from dispatch to the end of its backend call.
  void record_probe(const Task& t);

  // ---- finalize: finish() with fresh r, s; the last partition assembles and self-verifies

  void finalize(TaskPtr& t, std::int32_t worker);
  void finalize_partition(Task& t, std::int32_t worker);  // finalize()'s work for a job still running

  // ---- workers

  template <class Q, class Accept, class Work>
  void stage_worker(Q& q, std::size_t slot, Accept&& accept, Work&& work);

  void start_threads();

  void janitor_loop();
  // Marks overdue partitions (hang limits) and probes devices out of service; one thread.
  void watchdog_loop();
  Micros hang_limit_locked(const std::string& sizing_key) const;  // 0: not watched

  void prune_locked();
};

}  // namespace cuzk::engine
