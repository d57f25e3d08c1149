// The engine's status snapshot rendered for people and scrapers: GET /status (JSON, built with
// nlohmann::json so every string is escaped by the library) and GET /metrics / GetMetrics
// (Prometheus text exposition 0.0.4). Both take one Engine::status() snapshot, the kind registry
// (which names the kinds and gives every served kind its zero series from the start) and the devices
// (device_info.hpp; empty on the CPU backend).
//
// Drop-in for the Rust daemon's boards and scripts: every name the Rust daemon exports is here with
// its meaning, beside ours where ours differ (deploy/grafana/ and deploy/prometheus/ read them):
//   /status    uptime_secs, memory{total_bytes,used_bytes,available_bytes}, synthesis{max_concurrent,
//              active}, pipelines[], gpu_workers[{worker_id,gpu_ordinal,state:"idle"|"proving",
//              current_job,current_partition,busy_secs}], allocations{srs[{circuit_id,bytes,
//              last_used_secs_ago,evictable}],pce[]}, counters{total_completed,total_failed,
//              completed_by_kind,failed_by_kind,queue_depth}, buffers{synth_in_flight,
//              provers_in_flight,aux_in_flight,shells_in_flight,pending_handles} (our nearest
//              meanings, status_render.cpp), and gpus[] (ours).
//   /metrics   cuzk_proofs_{completed,failed}_total, cuzk_uptime_seconds, cuzk_queue_depth,
//              cuzk_proofs_{completed,failed}{proof_kind} (untyped: the Rust name has no _total, which
//              promtool wants of a counter), cuzk_proof_duration_seconds{proof_kind} (a histogram
//              over every completed proof since the start, where Rust's summary covers the last 1000),
//              cuzk_running_jobs, cuzk_gpu_workers; per device cuzk_gpu_info{device,name},
//              cuzk_gpu_memory_{total,free}_bytes{device}, cuzk_gpu_busy{device}.
// proof_kind labels are KindRow::label() ("porep_c2", "snap_update", "window_post", "winning_post",
// "generic_groth16"); a wire value no row has counts under the one label "unknown".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/kind_registry.hpp"
#include "engine/status.hpp"
#include "server/device_info.hpp"

namespace cuzk::server {

// One device as the outputs list it: a provider's DeviceInfo, or (no provider, no devices) one
// "cpu" entry per distinct device of the engine's backend workers.
struct DeviceView {
  DeviceInfo info;
  bool gpu = false;    // from the provider
  bool busy = false;   // a backend worker of this device holds a partition
  std::string job_id;  // the first busy worker's job ("" when idle)
  std::uint32_t kind = 0;
  engine::DeviceSnapshot state;  // the engine's record of it (in service, busy time, partitions)
};
std::vector<DeviceView> device_views(const engine::StatusSnapshot& s, const std::vector<DeviceInfo>& devices);

// The workers that prove on a device: backend and backend-urgent, and the urgent lane when it is
// the GPU lane (the CPU lane proves on the host).
bool device_worker(const engine::StatusSnapshot& s, const engine::WorkerSnapshot& w);

std::string status_json(const engine::StatusSnapshot& s, const engine::KindRegistry& kinds,
                        const std::vector<DeviceInfo>& devices = {});
std::string prometheus_text(const engine::StatusSnapshot& s, const engine::KindRegistry& kinds,
                            const std::vector<DeviceInfo>& devices = {});

}  // namespace cuzk::server
