// What the engine reports about itself: one snapshot, built under the engine's lock by
// Engine::status() and rendered elsewhere (server/status_render.hpp: the /status JSON and the
// Prometheus text), so that a renderer never sees the engine's internals and every output agrees.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/srs_manager.hpp"
#include "engine/types.hpp"

namespace cuzk::engine {

// What a worker thread does. The reserved urgent workers of a stage carry WorkerSnapshot::urgent.
enum class WorkerStage : std::uint8_t { kPrepare, kSynthesis, kBackend, kLane, kFinalize };

constexpr const char* to_string(WorkerStage s) {
  switch (s) {
    case WorkerStage::kPrepare: return "prepare";
    case WorkerStage::kSynthesis: return "synthesis";
    case WorkerStage::kBackend: return "backend";
    case WorkerStage::kLane: return "lane";
    case WorkerStage::kFinalize: return "finalize";
  }
  return "unknown";
}

struct WorkerSnapshot {
  WorkerStage stage = WorkerStage::kPrepare;
  bool urgent = false;  // reserved for urgent work (the lane's synthesis workers too)
  std::uint32_t id = 0;
  std::uint32_t device = 0;
  std::string job_id;
  std::uint32_t kind = 0;
  std::uint32_t partition = 0;
  std::uint64_t busy_ms = 0;
  std::uint64_t items_done = 0;
  // The name the status outputs show: the stage, "-urgent" added for a reserved worker, so that the
  // gRPC status lists one GPU entry per (normal) backend worker as the Rust daemon does.
  std::string stage_name() const { return std::string(to_string(stage)) + (urgent ? "-urgent" : ""); }
};

// One device of EngineOptions::devices: in service until a failure the executor blamed on it.
struct DeviceSnapshot {
  std::uint32_t ordinal = 0;
  bool in_service = true;
  std::string fault;             // why it was taken out of service
  double busy_s = 0;             // held by a backend worker since the start (busy % over uptime)
  std::uint64_t partitions = 0;  // proved on it (main backends; the lane's are lane_partitions)
  std::uint64_t requeued = 0;    // failed on it and handed to another device
  bool suspect = false;          // a partition there ran past its hang limit (EngineOptions::hang_multiple)
  std::uint64_t returned = 0;    // times a probe found it healthy and put it back in service
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

// Upper bounds (seconds) of the proof-duration histogram: from a 0.1 s WinningPoSt on a GPU to a
// ~20 min 32 GiB PoRep on the CPU backend (5 s is a bound: the WinningPoSt p95 alert reads it).
inline constexpr std::array<double, 17> kDurationBuckets = {0.05, 0.1, 0.25, 0.5, 1,   2.5,  5,    10,  20,
                                                            30,   60,  120,  300, 600, 1200, 1800, 3600};

struct KindCounters {
  std::uint64_t completed = 0, failed = 0, cancelled = 0;
  double duration_sum_s = 0;  // completed proofs, submission to result, since the start (monotonic)
  std::uint64_t duration_count = 0;
  // duration_le[i]: completed proofs that took at most kDurationBuckets[i] (cumulative, as
  // Prometheus' le buckets; +Inf is duration_count).
  std::array<std::uint64_t, kDurationBuckets.size()> duration_le{};

  void observe_duration(double seconds) {
    duration_sum_s += seconds;
    ++duration_count;
    for (std::size_t i = 0; i < kDurationBuckets.size(); ++i)
      if (seconds <= kDurationBuckets[i]) ++duration_le[i];
  }
};

struct PartitionSizing {
  std::uint64_t model_bytes = 0;     // what the kind computes (after partition_memory_factor)
  std::uint64_t measured_bytes = 0;  // largest peak-RSS growth of a solo partition
  std::uint64_t samples = 0;
};

// The one by_kind key of every wire proof_kind no registered kind serves.
inline constexpr std::uint32_t kUnknownKind = 0xffffffffu;

struct StatusSnapshot {
  std::uint64_t uptime_s = 0;
  Micros now = 0;
  std::string backend;
  bool accepting = true;
  std::uint64_t completed = 0, failed = 0, cancelled = 0;
  std::map<std::uint32_t, KindCounters> by_kind;  // jobs of unknown kinds count under kUnknownKind
  // memory
  std::uint64_t budget_bytes = 0, used_bytes = 0, peak_bytes = 0, srs_bytes = 0, partition_bytes = 0;
  std::uint32_t budget_waiters = 0;
  // requests' bytes held by unfinished jobs, of their slice of the budget; parse bounds held now
  std::uint64_t request_bytes = 0, request_budget_bytes = 0, parse_bytes = 0;
  std::uint64_t rss_bytes = 0, peak_rss_bytes = 0;
  std::uint64_t gpu_bytes = 0;  // the keys' device copies + the backends' proof buffers (Executor)
  // pipeline
  std::uint32_t jobs_queued = 0, jobs_preparing = 0, jobs_running = 0;
  std::uint32_t sched_depth = 0, synth_queue = 0, backend_queue = 0, finalize_queue = 0;
  std::uint32_t synthesis_workers = 0, backend_workers = 0, finalizers = 0;
  // the urgent lane (docs/daemon.md, "Deadlines under load"): its backend ("" when there is none),
  // partitions waiting for it and proved on it; the memory headroom per urgency (normal, urgent, small)
  std::string lane;
  std::uint32_t lane_queue = 0;
  std::uint64_t lane_partitions = 0;
  std::array<std::uint64_t, 3> urgent_headroom_bytes{};
  std::vector<DeviceSnapshot> devices;  // EngineOptions::devices, in order
  std::vector<QueueSnapshot> queues;
  std::vector<WorkerSnapshot> workers;
  std::vector<JobSnapshot> jobs;
  std::vector<SrsInfo> srs;
  // stage time totals over finished partitions (seconds) and their count
  double stage_sum_s[4] = {};  // queue (scheduled -> dispatched), synthesis, backend, finalize
  std::uint64_t stage_count = 0;
  std::map<std::string, PartitionSizing> sizing;  // "<kind>/<circuit>"
};

}  // namespace cuzk::engine
