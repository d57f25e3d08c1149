#include "server/status_render.hpp"

#include <cstdio>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

namespace cuzk::server {
namespace {

using engine::Micros;
using engine::StatusSnapshot;
using Json = nlohmann::ordered_json;

std::uint64_t ms_between(Micros a, Micros b) { return b > a ? (b - a + 500) / 1000 : 0; }

const char* partition_state(const engine::PartitionTimes& t) {
  return t.finalize_end     ? "done"
         : t.finalize_start ? "finalizing"
         : t.backend_end    ? "finalize_queue"
         : t.backend_start  ? "gpu"
         : t.synth_end      ? "synth_done"
         : t.synth_start    ? "synthesizing"
         : t.dispatched     ? "dispatched"
                            : "pending";
}

}  // namespace

std::string status_json(const StatusSnapshot& s, const engine::KindRegistry& reg) {
  auto ms_of = [&](Micros a, Micros b) -> std::uint64_t { return a ? ms_between(a, b ? b : s.now) : 0; };
  Json o;
  o["uptime_secs"] = s.uptime_s;
  o["backend"] = s.backend;
  o["gpu_memory_bytes"] = s.gpu_bytes;
  o["accepting"] = s.accepting;
  o["memory"] = {{"total_bytes", s.budget_bytes},
                 {"used_bytes", s.used_bytes},
                 {"available_bytes", s.budget_bytes - std::min(s.budget_bytes, s.used_bytes)},
                 {"peak_bytes", s.peak_bytes},
                 {"srs_bytes", s.srs_bytes},
                 {"partition_bytes", s.partition_bytes},
                 {"waiters", s.budget_waiters},
                 {"process_rss_bytes", s.rss_bytes},
                 {"process_peak_rss_bytes", s.peak_rss_bytes}};
  std::uint32_t synth_active = 0;
  for (auto& w : s.workers)
    if (w.stage == "synthesis" && !w.job_id.empty()) ++synth_active;
  o["synthesis"] = {{"max_concurrent", s.synthesis_workers}, {"active", synth_active}};
  o["queues"] = {{"jobs_queued", s.jobs_queued},           {"jobs_preparing", s.jobs_preparing},
                 {"jobs_running", s.jobs_running},         {"partitions_scheduled", s.sched_depth},
                 {"synthesis_queue", s.synth_queue},       {"backend_queue", s.backend_queue},
                 {"finalize_queue", s.finalize_queue}};
  // Deadlines under load (docs/daemon.md): the urgent lane and the memory headroom urgent work keeps.
  o["urgent"] = {{"lane", s.lane},
                 {"lane_queue", s.lane_queue},
                 {"lane_partitions", s.lane_partitions},
                 {"headroom_bytes", {{"urgent", s.urgent_headroom_bytes[1]}, {"small", s.urgent_headroom_bytes[2]}}}};
  Json pipelines = Json::array();
  for (const auto& j : s.jobs) {
    Json parts = Json::array();
    for (const auto& t : j.times) {
      parts.push_back({{"index", t.index},
                       {"state", partition_state(t)},
                       {"synth_ms", ms_of(t.synth_start, t.synth_end)},
                       {"gpu_ms", ms_of(t.backend_start, t.backend_end)}});
    }
    pipelines.push_back({{"job_id", j.id},
                         {"proof_kind", reg.name(j.kind)},
                         {"priority", engine::priority_name(j.priority)},
                         {"state", j.state},
                         {"circuit_id", j.circuit_id},
                         {"started_secs_ago", j.age_ms / 1000},
                         {"total_partitions", j.partitions},
                         {"partitions_done", j.partitions_done},
                         {"partitions", std::move(parts)}});
  }
  o["pipelines"] = std::move(pipelines);
  Json workers = Json::array();
  for (const auto& w : s.workers) {
    workers.push_back({{"stage", w.stage},
                       {"worker_id", w.id},
                       {"device", w.device},
                       {"state", w.job_id.empty() ? "idle" : "busy"},
                       {"current_job", w.job_id},
                       {"current_partition", w.partition},
                       {"busy_ms", w.busy_ms},
                       {"items_done", w.items_done}});
  }
  o["workers"] = std::move(workers);
  Json srs = Json::array();
  for (const auto& e : s.srs) {
    srs.push_back({{"circuit_id", e.id},
                   {"tier", engine::tier_name(e.tier)},
                   {"bytes", e.bytes},
                   {"ref_count", e.refs},
                   {"idle_ms", e.idle_ms},
                   {"load_ms", e.load_ms},
                   {"evictable", e.tier != engine::SrsTier::kCold && e.refs == 0},
                   {"path", e.path}});
  }
  o["allocations"] = {{"srs", std::move(srs)}};
  Json sizing = Json::array();
  for (const auto& [k, z] : s.sizing) {
    sizing.push_back({{"job", k}, {"model_bytes", z.model_bytes}, {"measured_bytes", z.measured_bytes},
                      {"samples", z.samples}});
  }
  o["partition_memory"] = std::move(sizing);
  Json by_kind = Json::object();
  for (const auto& [k, c] : s.by_kind) {
    by_kind[reg.name(k)] = {{"completed", c.completed}, {"failed", c.failed}, {"cancelled", c.cancelled}};
  }
  o["counters"] = {{"total_completed", s.completed},
                   {"total_failed", s.failed},
                   {"total_cancelled", s.cancelled},
                   {"by_kind", std::move(by_kind)},
                   {"queue_depth", s.sched_depth + s.jobs_queued}};
  return o.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string prometheus_text(const StatusSnapshot& s, const engine::KindRegistry& reg) {
  std::ostringstream o;
  auto family = [&](const char* name, const char* type, const char* help) {
    o << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
  };
  auto gauge = [&](const char* name, const char* help, auto value) {
    family(name, "gauge", help);
    o << name << ' ' << value << '\n';
  };
  auto num = [](double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.6g", v);
    return std::string(b);
  };
  // Every kind the engine serves appears, with zeros, so the series exist from the start.
  std::map<std::uint32_t, engine::KindCounters> kinds = s.by_kind;
  for (const auto& row : reg.rows()) kinds[row.wire];
  auto kind_label = [&](std::uint32_t k) { return reg.label(k); };

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
  gauge("cuzk_uptime_seconds", "Seconds since the daemon started.", s.uptime_s);
  family("cuzk_queue_depth", "gauge", "Jobs waiting to be prepared plus partitions waiting for memory or a worker.");
  std::uint32_t waiting = 0;
  for (auto& q : s.queues) waiting += q.pending;
  o << "cuzk_queue_depth " << waiting << '\n';
  gauge("cuzk_running_jobs", "Jobs being prepared or proved.", (s.jobs_preparing + s.jobs_running));
  gauge("cuzk_gpu_workers", "Backend workers (all devices).", s.backend_workers);
  family("cuzk_backend_info", "gauge", "The proving backend in use (label backend).");
  o << "cuzk_backend_info{backend=\"" << s.backend << "\"} 1\n";
  gauge("cuzk_gpu_memory_bytes", "Device memory held by the backends (keys, shapes, buffers).", s.gpu_bytes);
  family("cuzk_stage_queue_length", "gauge", "Items waiting in each bounded pipeline queue.");
  o << "cuzk_stage_queue_length{stage=\"scheduler\"} " << s.sched_depth << '\n';
  o << "cuzk_stage_queue_length{stage=\"synthesis\"} " << s.synth_queue << '\n';
  o << "cuzk_stage_queue_length{stage=\"backend\"} " << s.backend_queue << '\n';
  o << "cuzk_stage_queue_length{stage=\"finalize\"} " << s.finalize_queue << '\n';
  o << "cuzk_stage_queue_length{stage=\"lane\"} " << s.lane_queue << '\n';
  family("cuzk_lane_partitions_total", "counter",
         "Partitions proved on the urgent lane, beside the partition holding the device.");
  o << "cuzk_lane_partitions_total " << s.lane_partitions << '\n';
  family("cuzk_workers_busy", "gauge", "Busy workers by stage (the reserved urgent workers as <stage>-urgent).");
  std::map<std::string, int> busy{{"prepare", 0}, {"synthesis", 0}, {"backend", 0}, {"finalize", 0}};
  for (auto& w : s.workers) busy[w.stage] += w.job_id.empty() ? 0 : 1;
  for (auto& [st, n] : busy) o << "cuzk_workers_busy{stage=\"" << st << "\"} " << n << '\n';
  gauge("cuzk_memory_budget_bytes", "Total memory budget.", s.budget_bytes);
  family("cuzk_memory_used_bytes", "gauge", "Memory reserved from the budget, by holder.");
  o << "cuzk_memory_used_bytes{holder=\"srs\"} " << s.srs_bytes << '\n';
  o << "cuzk_memory_used_bytes{holder=\"partitions\"} " << s.partition_bytes << '\n';
  o << "cuzk_memory_used_bytes{holder=\"other\"} " << (s.used_bytes - std::min(s.used_bytes, s.srs_bytes + s.partition_bytes)) << '\n';
  gauge("cuzk_memory_peak_bytes", "Highest memory reserved from the budget since start.", s.peak_bytes);
  gauge("cuzk_memory_waiters", "Reservations blocked waiting for memory.", s.budget_waiters);
  gauge("cuzk_process_resident_memory_bytes", "Resident set size of the daemon.", s.rss_bytes);
  gauge("cuzk_process_peak_resident_memory_bytes", "Peak resident set size of the daemon.", s.peak_rss_bytes);
  family("cuzk_partition_memory_bytes", "gauge",
         "Partition memory per job kind and circuit: the model, and the peak measured on solo partitions.");
  for (auto& [k, z] : s.sizing) {
    o << "cuzk_partition_memory_bytes{job=\"" << k << "\",source=\"model\"} " << z.model_bytes << '\n';
    o << "cuzk_partition_memory_bytes{job=\"" << k << "\",source=\"measured\"} " << z.measured_bytes << '\n';
  }
  family("cuzk_srs_loaded_bytes", "gauge", "Bytes held by each loaded proving key.");
  for (auto& e : s.srs) o << "cuzk_srs_loaded_bytes{circuit_id=\"" << e.id << "\",tier=\"" << engine::tier_name(e.tier) << "\"} " << e.bytes << '\n';
  family("cuzk_srs_references", "gauge", "Jobs holding each proving key.");
  for (auto& e : s.srs) o << "cuzk_srs_references{circuit_id=\"" << e.id << "\"} " << e.refs << '\n';
  return o.str();
}

}  // namespace cuzk::server
