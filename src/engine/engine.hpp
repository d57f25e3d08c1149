// The proving engine: jobs, a priority scheduler and the partition pipeline (ARCHITECTURE.md).
//
//   submit ─▶ Job (idempotent on request_id) ─▶ prepare queue (priority, then arrival)
//     ─▶ preparers: JobKind::prepare (validate, acquire proving key)  ─▶ P partition tasks
//     ─▶ scheduler (priority, then job arrival, then partition) ─▶ dispatcher: MemoryBudget reservation
//     ─▶ synthesis workers ─▶ backend queue (bounded, priority) ─▶ backend workers (N per device;
//        only Backend::start runs under the device lock) ─▶ finalize queue (bounded) ─▶ finalizers:
//        finish() with fresh r, s; the last partition assembles and self-verifies ─▶ JobResult
//
// Guarantees:
//   * every accepted job ends with exactly one terminal result (COMPLETED, FAILED or CANCELLED),
//     and every waiter sees that same result;
//   * a failed partition fails its job once; the job's queued partitions are dropped and running
//     ones stop at their next check point; every reservation is returned;
//   * nothing big is allocated without a reservation: a partition waits in the scheduler until its
//     memory fits, so over-submission queues instead of exhausting memory;
//   * every queue between stages is bounded (synthesis slots, backend and finalize queues, and the
//     number of unfinished jobs).
// Threading: one mutex guards the queues and the job table; each job has its own mutex for its
// result and timings. Reservations are never returned while either is held (the budget wakes the
// dispatcher, which takes the engine mutex).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/job_kind.hpp"
#include "engine/memory_budget.hpp"
#include "engine/srs_manager.hpp"
#include "engine/types.hpp"
#include "groth16/prover.hpp"

namespace cuzk::engine {

struct EngineOptions {
  std::uint64_t memory_budget_bytes = std::uint64_t(4) << 30;
  std::chrono::milliseconds srs_min_idle{std::chrono::minutes(5)};
  std::string param_cache;

  std::uint32_t prepare_workers = 2;
  std::uint32_t synthesis_workers = 2;
  std::vector<std::uint32_t> devices{0};
  std::uint32_t workers_per_device = 2;
  std::uint32_t backend_queue_depth = 0;  // 0: 2 x backend workers
  std::uint32_t finalizer_threads = 2;
  std::uint32_t max_active_jobs = 1024;   // unfinished jobs; more submissions are refused
  bool self_verify = true;
  double partition_memory_factor = 1.0;   // scales every partition reservation
  std::chrono::milliseconds result_ttl{std::chrono::minutes(10)};
  std::size_t max_results = 10000;        // finished results kept (oldest dropped first)
  bool allow_witness_paths = true;
  // Measure solo partitions' peak RSS growth and reserve max(model, 1.1 x measured). Resets the
  // kernel's VmHWM mark while measuring (the engine keeps the true peak for status).
  bool measure_partition_memory = true;

  std::string backend_name = "cpu";
  // Called once per backend worker with its device; default: groth16::make_cpu_backend(). The
  // daemon's CUDA factory hands every worker of a device a handle to one shared CudaBackend (one
  // key upload per device; its start() serializes the workers).
  std::function<std::unique_ptr<groth16::Backend>(std::uint32_t device)> backend_factory;
  // Device memory the backends hold (keys, shapes, buffers), for status; unset: not reported.
  std::function<std::uint64_t()> device_memory_bytes;
  // Called when the SrsManager drops a loaded key (SrsManager::Options::on_unload): the daemon
  // frees the backends' copies of it there.
  std::function<void(const LoadedKey&)> on_key_unloaded;
  // r and s of every proof; default: groth16::ProofRandomness::random(). Tests inject fixed values.
  std::function<groth16::ProofRandomness()> randomness;
  // Receives "TIMELINE,<ms>,<EVENT>,<job>,<detail>" lines (the Rust daemon's format) when set.
  std::function<void(const std::string&)> timeline_sink;
};

class Job;  // opaque outside the engine

struct SubmitOutcome {
  std::string job_id;
  bool joined = false;            // the request_id named an existing job (running or finished)
  std::uint32_t queue_position = 0;  // unfinished jobs that will be served before this one
  std::shared_ptr<Job> job;
};

struct CancelOutcome {
  bool found = false;
  bool was_running = false;  // the job existed and had not finished; it is CANCELLED now
};

struct WorkerSnapshot {
  std::string stage;  // "synthesis", "backend", "finalize", "prepare"
  std::uint32_t id = 0;
  std::uint32_t device = 0;
  std::string job_id;
  std::uint32_t kind = 0;
  std::uint32_t partition = 0;
  std::uint64_t busy_ms = 0;
  std::uint64_t items_done = 0;
};

struct QueueSnapshot {
  std::uint32_t kind = 0;
  std::uint32_t pending = 0;      // jobs waiting to be prepared + partitions waiting for dispatch
  std::uint32_t in_progress = 0;  // partitions between dispatch and the end of finalize
};

struct JobSnapshot {
  std::string id;
  std::uint32_t kind = 0;
  Priority priority = Priority::kNormal;
  std::string state;  // "queued", "preparing", "running"
  std::string circuit_id;
  std::uint32_t partitions = 0;
  std::uint32_t partitions_done = 0;
  std::uint64_t age_ms = 0;
  std::vector<PartitionTimes> times;
};

struct KindCounters {
  std::uint64_t completed = 0, failed = 0, cancelled = 0;
  double duration_sum_s = 0;  // completed proofs, submission to result
  std::uint64_t duration_count = 0;
};

struct PartitionSizing {
  std::uint64_t model_bytes = 0;     // what the kind computes (after partition_memory_factor)
  std::uint64_t measured_bytes = 0;  // largest peak-RSS growth of a solo partition
  std::uint64_t samples = 0;
};

struct StatusSnapshot {
  std::uint64_t uptime_s = 0;
  Micros now = 0;
  std::string backend;
  bool accepting = true;
  std::uint64_t completed = 0, failed = 0, cancelled = 0;
  std::map<std::uint32_t, KindCounters> by_kind;
  // memory
  std::uint64_t budget_bytes = 0, used_bytes = 0, peak_bytes = 0, srs_bytes = 0, partition_bytes = 0;
  std::uint32_t budget_waiters = 0;
  std::uint64_t rss_bytes = 0, peak_rss_bytes = 0;
  std::uint64_t gpu_bytes = 0;  // EngineOptions::device_memory_bytes (0 when not reported)
  // pipeline
  std::uint32_t jobs_queued = 0, jobs_preparing = 0, jobs_running = 0;
  std::uint32_t sched_depth = 0, synth_queue = 0, backend_queue = 0, finalize_queue = 0;
  std::uint32_t synthesis_workers = 0, backend_workers = 0, finalizers = 0;
  std::vector<QueueSnapshot> queues;
  std::vector<WorkerSnapshot> workers;
  std::vector<JobSnapshot> jobs;
  std::vector<SrsInfo> srs;
  // stage time totals over finished partitions (seconds) and their count
  double stage_sum_s[4] = {};  // queue (scheduled -> dispatched), synthesis, backend, finalize
  std::uint64_t stage_count = 0;
  std::map<std::string, PartitionSizing> sizing;  // "<kind>/<circuit>"
};

class Engine {
 public:
  explicit Engine(EngineOptions options);
  ~Engine();  // shutdown(): unfinished jobs end CANCELLED
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Adds or replaces the kind that serves wire value `kind` (generic-groth16 and the four Filecoin
  // kinds are registered by the constructor).
  void register_kind(std::uint32_t kind, std::shared_ptr<JobKind> impl);

  // Accepts a job (or joins the one with the same request_id). Errors only when the daemon is not
  // accepting work, when max_active_jobs unfinished jobs exist, or when the request_id is in use by a
  // different request; a request that is merely invalid is accepted and ends FAILED.
  Result<SubmitOutcome> submit(ProofRequest request);

  // Waits for the job's result. On timeout (0 = none) the result has status TIMEOUT; the job keeps
  // running. `abandon` (polled) lets a caller stop waiting (e.g. its RPC was cancelled) — also TIMEOUT.
  JobResult wait(const std::shared_ptr<Job>& job, std::chrono::milliseconds timeout = std::chrono::milliseconds(0),
                 const std::function<bool()>& abandon = {});
  // Looks a job up by id (unfinished, or finished and still retained).
  std::shared_ptr<Job> find(const std::string& job_id) const;
  // submit + wait; a refused submission becomes a FAILED result.
  JobResult prove(ProofRequest request);
  // The terminal result, if the job has one.
  static std::optional<JobResult> result_of(const std::shared_ptr<Job>& job);
  static std::string id_of(const std::shared_ptr<Job>& job);

  CancelOutcome cancel(const std::string& job_id, const std::string& reason = "cancelled by request");
  void cancel_all(const std::string& reason);

  // Stop taking new jobs (submit() then fails); running ones continue.
  void stop_accepting();
  bool accepting() const;
  // Waits until no job is unfinished; false on timeout.
  bool drain(std::chrono::milliseconds timeout);
  // Cancels what is left and stops every thread. Idempotent.
  void shutdown();

  SrsManager& srs() { return *srs_; }
  MemoryBudget& budget() { return *budget_; }
  const EngineOptions& options() const { return options_; }

  StatusSnapshot status() const;
  std::string status_json() const;      // GET /status
  std::string prometheus_text() const;  // GetMetrics, GET /metrics
  Micros now_us() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  EngineOptions options_;
  std::unique_ptr<MemoryBudget> budget_;
  std::unique_ptr<SrsManager> srs_;
};

// Process memory from /proc/self/status (VmRSS, VmHWM), 0 when unavailable.
std::uint64_t process_rss_bytes();
std::uint64_t process_peak_rss_bytes();
// Total physical memory (MemTotal of /proc/meminfo), 0 when unavailable.
std::uint64_t system_memory_bytes();
// A random UUIDv4 string.
std::string make_uuid_v4();

}  // namespace cuzk::engine
