// The proving engine: jobs, a priority scheduler and the partition pipeline. This file is the
// engine's public face (the threads and stages are pipeline.hpp's; the backends they prove on are the
// Executor's, executor.hpp); the decisions are scheduler.hpp's, a job's exactly-once
// end is job.hpp's, what each kind does is its JobKind's (from the KindRegistry the executable
// fills), and the status it reports is rendered by server/status_render.hpp.
//
//   submit ─▶ Job (idempotent on request_id + content) ─▶ prepare queue (priority, then arrival)
//     ─▶ preparers: JobKind::prepare (validate, acquire proving key)  ─▶ P partition tasks
//     ─▶ scheduler (priority, then job arrival, then partition) ─▶ dispatcher: MemoryBudget reservation
//     ─▶ synthesis workers ─▶ backend queue (bounded, priority) ─▶ backend workers (N per device,
//        each taking the first partition when its device frees; only Backend::start holds the
//        device; small urgent partitions: the urgent lane, beside it) ─▶ finalize queue (bounded,
//        priority) ─▶ finalizers: finish() with fresh r, s; the last partition assembles and
//        self-verifies ─▶ JobResult
//
// Guarantees:
//   * every accepted job ends with exactly one terminal result (COMPLETED, FAILED or CANCELLED),
//     and every waiter sees that same result;
//   * a failed partition fails its job once; the job's queued partitions are dropped and running
//     ones stop at their next check point; every reservation is returned;
//   * nothing big is allocated without a reservation: a partition waits in the scheduler until its
//     memory fits, so over-submission queues instead of exhausting memory;
//   * every queue between stages is bounded (synthesis slots, backend and finalize queues, and the
//     number of unfinished jobs; urgent work apart, see urgent_priority);
//   * urgent work waits for no capacity held or queued by lower priorities but the partition
//     holding its device, and a small urgent partition not even for that (the lane);
//   * a device the executor blames for a failure (Executor::device_fault) is taken out of service
//     and the partition it failed goes to another device, not lost; with none left, every partition
//     waiting for a device fails its job at once (docs/daemon.md, "Several GPUs").
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
#include "engine/executor.hpp"
#include "engine/job_kind.hpp"
#include "engine/kind_registry.hpp"
#include "engine/memory_budget.hpp"
#include "engine/process_memory.hpp"
#include "engine/srs_manager.hpp"
#include "engine/status.hpp"
#include "engine/types.hpp"
#include "groth16/prover.hpp"

namespace cuzk::engine {

struct EngineOptions {
  // The kinds this engine serves and their key loaders (kinds/builtin_kinds.hpp fills the daemon's).
  KindRegistry kinds;
  std::uint64_t memory_budget_bytes = std::uint64_t(4) << 30;
  // The slice of memory_budget_bytes that holds requests' bytes from submission until their job ends
  // (a C1 is ~50 MB): a submission that does not fit what is left of it is refused
  // (kResourceExhausted), so that many large requests at once never take the daemon past its budget;
  // one larger than the whole slice takes all of it.
  // 0: none (requests are not charged); never more than half the budget. The daemon's default
  // (memory.request_budget = "auto"): memory_budget_bytes / 8, at most 4 GiB.
  std::uint64_t request_budget_bytes = 0;
  std::chrono::milliseconds srs_min_idle{std::chrono::minutes(5)};
  std::string param_cache;

  std::uint32_t prepare_workers = 2;
  std::uint32_t synthesis_workers = 2;
  std::vector<std::uint32_t> devices{0};
  std::uint32_t workers_per_device = 2;
  std::uint32_t backend_queue_depth = 0;  // 0: 2 x backend workers
  std::uint32_t finalizer_threads = 2;
  std::uint32_t max_active_jobs = 1024;  // unfinished jobs; more submissions are refused
  bool self_verify = true;
  double partition_memory_factor = 1.0;  // scales every partition reservation
  std::chrono::milliseconds result_ttl{std::chrono::minutes(10)};
  std::size_t max_results = 10000;  // finished results kept (oldest dropped first)
  bool allow_witness_paths = true;
  // Measure solo partitions' peak RSS growth and reserve max(model, 1.1 x measured). Resets the
  // kernel's VmHWM mark while measuring (the engine keeps the true peak for status).
  bool measure_partition_memory = true;

  // ---- urgent work (docs/daemon.md, "Deadlines under load"; the rules are scheduler.hpp's). Work
  // of this priority and above is urgent (nullopt: none is): it never waits for capacity held or
  // queued by lower priorities, except the partition holding a device — it has a preparer per
  // urgent level, urgent_synthesis_workers synthesis slots beyond synthesis_workers, a backend worker
  // per device and a finalizer of its own, passes the backend and finalize queue bounds, is admitted
  // apart from max_active_jobs, does not wait for key loads in the dispatcher, and lower priorities
  // leave it memory headroom. Measured reason: a 32 GiB PoRep partition synthesizes for seconds and
  // holds the device 1.07 s, and a WinningPoSt must finish within its epoch.
  std::optional<Priority> urgent_priority = Priority::kHigh;
  std::uint32_t urgent_synthesis_workers = 1;
  // Memory that non-urgent partitions leave free for urgent ones: unset, the largest urgent
  // partition reservation prepared so far ("auto"); set, this many bytes. Small urgent partitions
  // get the largest of theirs on top, learned the same way. Ignored while no partition holds memory.
  std::optional<std::uint64_t> urgent_memory_reserve;
  // The urgent lane: an urgent partition whose key's domain is at most 2^lane_max_domain_log2 runs
  // on a lane backend, beside the partition holding the device instead of after it. One lane worker
  // per entry of lane_devices (empty: no lane), each with the executor's backend for BackendSlot
  // {device, lane = true}, and lane_synthesis_workers more synthesis slots for such partitions (so a
  // 2^27-row WindowPoSt synthesizing in the urgent slot does not hold them up).
  std::vector<std::uint32_t> lane_devices;
  std::uint32_t lane_max_domain_log2 = 22;
  std::uint32_t lane_synthesis_workers = 1;
  // A lane slower than an idle device (the CPU lane on a GPU machine) is used only while every
  // device is busy or has work queued.
  bool lane_only_when_devices_busy = false;
  LaneKind lane = LaneKind::kOff;  // kOff with lane_devices: from the executor (a GPU lane if it uses copies)

  // Called (on an engine thread, no lock held; it must be quick) each time a device is taken out of
  // service, with the number still in service (docs/daemon.md, "Several GPUs"). The daemon turns its
  // health to NOT_SERVING when none is left.
  std::function<void(std::uint32_t ordinal, const std::string& fault, std::uint32_t left)> on_device_out;
  // Called the same way when a device comes back into service (a probe found it healthy).
  std::function<void(std::uint32_t ordinal, std::uint32_t in_service)> on_device_back;

  // ---- hung devices (docs/daemon.md, "Several GPUs"). A partition that holds a device longer than
  // hang_multiple x its key's measured backend time (the recent average; unmeasured: hang_min), and
  // at least hang_min, marks the device suspect and is cancelled there (the backends check between
  // their stages and MSM pieces); when the call returns the device is taken out of service and the
  // partition goes to another device, as after a fault. A call that never returns (1.5 x the limit)
  // keeps its worker; the device is taken out and the partition synthesized again for another device. hang_multiple 0
  // (the default; the daemon sets its gpus.hang_multiple for the CUDA backend only): no watch.
  double hang_multiple = 0;
  std::chrono::milliseconds hang_min{std::chrono::seconds(60)};
  // A device out of service is asked again (Executor::device_fault, on a thread of its own: a hung
  // device may not answer) this long after it went out, and after each failed probe; healthy, it is
  // back in service. 0: never.
  std::chrono::milliseconds probe_after{std::chrono::minutes(5)};

  // Kinds whose job is cancelled when the last caller waiting for it goes away (its Prove call
  // cancelled: Curio's WindowPoSt deadline closed, or its task was cancelled) and no SubmitProof
  // fetches it later: the proof is worth nothing once its deadline has passed, and it holds a CPU or
  // GPU that other proofs need (docs/daemon.md, "Abandoned calls"). Unset: the kinds whose row is
  // deadline_bound (the two PoSt kinds); the daemon sets it from scheduler.cancel_abandoned.
  std::optional<std::vector<std::uint32_t>> cancel_abandoned;

  BackendKind backend = BackendKind::kCpu;  // as resolved from the config, for status and the daemon's wiring
  // The backends every worker proves on and the uploads of keys into them (executor.hpp); unset:
  // make_cpu_executor(). The daemon's CUDA executor hands every worker of a device a handle to one
  // shared CudaBackend, and the SrsManager keeps each key's copy per device.
  std::shared_ptr<Executor> executor;
  // r and s of every proof; default: groth16::ProofRandomness::random(). Tests inject fixed values.
  std::function<groth16::ProofRandomness()> randomness;
  // Receives "TIMELINE,<ms>,<EVENT>,<job>,<detail>" lines (the Rust daemon's format) when set.
  std::function<void(const std::string&)> timeline_sink;
};

// Where the engine puts a key it loads: a copy on every slot whose backend proves from copies (the
// devices' main backends; the lanes' too when the key's domain fits the lane, which may prove it),
// and its decoded bases on the host when some slot that may prove it does not (the CPU backend, or
// the CPU lane).
// Devices out of service (in_service(ordinal) false) get no copy.
KeyPlacement key_placement(const EngineOptions& o, const Executor& executor, const LoadedKey& key,
                           const std::function<bool(std::uint32_t)>& in_service = {});
// Whether key_placement may ask for host bases for some key (a slot whose backend proves from host
// memory): the key's decoded size is reserved before a load only then.
bool may_decode_bases(const EngineOptions& o, const Executor& executor);

class Job;  // opaque outside the engine

// How the submitter follows its job.
enum class Follow : std::uint8_t {
  kLater,    // SubmitProof, in-process callers: the result is fetched later; never cancelled as abandoned
  kWaiting,  // Prove: the call waits for the result and counts as a waiter until release_waiter
};

struct SubmitOptions {
  Follow follow = Follow::kLater;
  // Only join (or read the stored result of) the job with this request_id and content; make none
  // (the server's answer to a caller at its job limit). No such job: ErrorCode::kNotFound.
  bool join_only = false;
};

struct SubmitOutcome {
  std::string job_id;
  bool joined = false;               // an existing job of this request_id and content (running or finished)
  std::uint32_t queue_position = 0;  // unfinished jobs that will be served before this one
  std::shared_ptr<Job> job;
};

struct CancelOutcome {
  bool found = false;
  bool was_running = false;  // the job existed and had not finished; it is CANCELLED now
};

class Engine {
 public:
  explicit Engine(EngineOptions options);
  ~Engine();  // shutdown(): unfinished jobs end CANCELLED
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Adds or replaces the kind that serves wire value `kind` (tests; the daemon registers its kinds
  // in EngineOptions::kinds). Its loaders are not added: keys it uses must be known already.
  void register_kind(std::uint32_t kind, std::shared_ptr<JobKind> impl);
  const KindRegistry& kinds() const;

  // Accepts a job, or joins the one with the same request_id and content (docs/daemon.md,
  // "Idempotency"): a job's identity is its request_id and its content digest. The same id with other
  // content is another job, with the id request_id@<content tag> while the plain id is taken. A job of
  // the same identity that failed, was cancelled or was abandoned is run again. Errors only when the
  // daemon is not accepting work (kUnavailable), when max_active_jobs unfinished jobs exist
  // (kResourceExhausted), when join_only finds nothing to join (kNotFound), or when request_id /
  // circuit_id exceed kMaxIdBytes or witness_path kMaxPathBytes (they are kept and echoed); a request
  // that is merely invalid is accepted and ends FAILED.
  Result<SubmitOutcome> submit(ProofRequest request, SubmitOptions how = {});
  static constexpr std::size_t kMaxIdBytes = 256;
  // Job ids: a request_id and, for the second and later contents under it, "@" + tag + "-N".
  static constexpr std::size_t kMaxJobIdBytes = kMaxIdBytes + 32;
  static constexpr std::size_t kMaxPathBytes = 4096;

  // One more caller waits for the job (AwaitProof); release_waiter ends its wait.
  void add_waiter(const std::shared_ptr<Job>& job);
  // A waiter (Prove with Follow::kWaiting, or add_waiter) stops waiting. `caller_left`: its call was
  // cancelled by the caller or its deadline passed (not the result, not a timeout of its own). When
  // that leaves no waiter on an unfinished job that no SubmitProof follows, of a kind in
  // cancel_abandoned, the job is cancelled (logged); returns true then.
  bool release_waiter(const std::shared_ptr<Job>& job, bool caller_left);

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
  // ProofRequest::owner of the submission that created the job.
  static std::string owner_of(const std::shared_ptr<Job>& job);
  // Waiting without a thread: `f` runs once the job's result is visible (result_of then has it) — at
  // once when it already is (returns 0), else on the engine thread that ends the job (f must be quick
  // and must not wait); forget_done drops one that has not run. TIMEOUT result for such a waiter
  // that stops waiting (the job keeps running), with `why` as its error.
  static std::uint64_t on_done(const std::shared_ptr<Job>& job, std::function<void()> f);
  static void forget_done(const std::shared_ptr<Job>& job, std::uint64_t handle);
  static JobResult timeout_result(const std::shared_ptr<Job>& job, std::string why);

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
  Micros now_us() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  EngineOptions options_;
  std::unique_ptr<MemoryBudget> budget_;
  std::unique_ptr<MemoryBudget> requests_;  // the requests' slice (request_budget_bytes) ...
  Reservation request_slice_;               // ... held from budget_ for the engine's life
  std::unique_ptr<SrsManager> srs_;
};

}  // namespace cuzk::engine
