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

// A Prometheus label value: backslash, double quote and newline escaped (text format 0.0.4).
std::string esc(const std::string& v) {
  std::string o;
  o.reserve(v.size());
  for (char c : v) {
    if (c == '\\' || c == '"') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o;
}

}  // namespace

bool device_worker(const StatusSnapshot& s, const engine::WorkerSnapshot& w) {
  return w.stage == engine::WorkerStage::kBackend || (w.stage == engine::WorkerStage::kLane && s.lane == "gpu");
}

std::vector<DeviceView> device_views(const StatusSnapshot& s, const std::vector<DeviceInfo>& devices) {
  std::vector<DeviceView> out;
  for (const auto& d : devices) {
    DeviceView v;
    v.info = d;
    v.gpu = true;
    out.push_back(std::move(v));
  }
  if (out.empty()) {
    for (const auto& w : s.workers) {
      if (w.stage != engine::WorkerStage::kBackend || w.urgent) continue;
      bool seen = false;
      for (const auto& v : out) seen = seen || v.info.ordinal == w.device;
      if (seen) continue;
      DeviceView v;
      v.info.ordinal = w.device;
      v.info.name = "cpu";
      out.push_back(std::move(v));
    }
  }
  for (auto& v : out) {
    v.state.ordinal = v.info.ordinal;
    for (const auto& d : s.devices)
      if (d.ordinal == v.info.ordinal) v.state = d;
    for (const auto& w : s.workers) {
      if (w.device != v.info.ordinal || w.job_id.empty() || !device_worker(s, w)) continue;
      if (!v.busy) {
        v.job_id = w.job_id;
        v.kind = w.kind;
      }
      v.busy = true;
    }
  }
  return out;
}

std::string status_json(const StatusSnapshot& s, const engine::KindRegistry& reg,
                        const std::vector<DeviceInfo>& devices) {
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
                 {"request_bytes", s.request_bytes},
                 {"request_budget_bytes", s.request_budget_bytes},
                 {"parse_bytes", s.parse_bytes},
                 {"process_rss_bytes", s.rss_bytes},
                 {"process_peak_rss_bytes", s.peak_rss_bytes}};
  // The Rust fields count the synthesis pool; the workers reserved for urgent work (and the lane's)
  // are counted beside them, so that active + urgent_active = buffers.synth_in_flight.
  std::uint32_t synth_active = 0, urgent_workers = 0, urgent_active = 0;
  for (auto& w : s.workers) {
    if (w.stage != engine::WorkerStage::kSynthesis) continue;
    const bool busy = !w.job_id.empty();
    if (w.urgent) {
      ++urgent_workers;
      urgent_active += busy;
    } else {
      synth_active += busy;
    }
  }
  o["synthesis"] = {{"max_concurrent", s.synthesis_workers},
                    {"active", synth_active},
                    {"urgent_workers", urgent_workers},
                    {"urgent_active", urgent_active}};
  o["queues"] = {{"jobs_queued", s.jobs_queued},      {"jobs_preparing", s.jobs_preparing},
                 {"jobs_running", s.jobs_running},    {"partitions_scheduled", s.sched_depth},
                 {"synthesis_queue", s.synth_queue},  {"backend_queue", s.backend_queue},
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
    workers.push_back({{"stage", w.stage_name()},
                       {"worker_id", w.id},
                       {"device", w.device},
                       {"state", w.job_id.empty() ? "idle" : "busy"},
                       {"current_job", w.job_id},
                       {"current_partition", w.partition},
                       {"busy_ms", w.busy_ms},
                       {"items_done", w.items_done}});
  }
  o["workers"] = std::move(workers);
  // The Rust daemon's gpu_workers: the workers that prove on a device, "proving" while they hold a
  // partition; busy_secs is the current busy stretch (null when idle), as in Rust.
  Json gpu_workers = Json::array();
  for (const auto& w : s.workers) {
    if (!device_worker(s, w)) continue;
    const bool busy = !w.job_id.empty();
    gpu_workers.push_back({{"worker_id", w.id},
                           {"gpu_ordinal", w.device},
                           {"state", busy ? "proving" : "idle"},
                           {"current_job", busy ? Json(w.job_id) : Json(nullptr)},
                           {"current_partition", busy ? Json(w.partition) : Json(nullptr)},
                           {"busy_secs", busy ? Json(double(w.busy_ms) / 1000.0) : Json(nullptr)},
                           {"stage", w.stage_name()}});
  }
  o["gpu_workers"] = std::move(gpu_workers);
  Json gpus = Json::array();
  for (const auto& v : device_views(s, devices)) {
    gpus.push_back(
        {{"ordinal", v.info.ordinal},
         {"name", v.info.name},
         {"vram_total_bytes", v.info.total_bytes},
         {"vram_free_bytes", v.info.free_bytes},
         {"busy", v.busy},
         {"current_job", v.job_id},
         {"in_service", v.state.in_service},
         {"fault", v.state.in_service ? Json(nullptr) : Json(v.state.fault)},
         {"busy_secs_total", v.state.busy_s},
         {"partitions", v.state.partitions},
         {"requeued_partitions", v.state.requeued},
         {"suspect", v.state.suspect},
         {"returned_to_service", v.state.returned},
         {"compute_capability",
          v.gpu ? Json(std::to_string(v.info.cc_major) + "." + std::to_string(v.info.cc_minor)) : Json(nullptr)}});
  }
  o["gpus"] = std::move(gpus);
  Json srs = Json::array();
  for (const auto& e : s.srs) {
    Json copies = Json::array();  // the backends' copies, one per device (and lane)
    for (const auto& c : e.copies) {
      copies.push_back({{"device", c.slot.device},
                        {"lane", c.slot.lane},
                        {"tier", engine::tier_name(c.tier)},
                        {"from_file", c.from_file},
                        {"device_bytes", c.device_bytes},
                        {"host_bytes", c.host_bytes},
                        {"planned", groth16::copy_form_name(c.planned)},
                        {"reason", c.reason}});
    }
    srs.push_back({{"circuit_id", e.id},
                   {"copies", std::move(copies)},
                   {"tier", engine::tier_name(e.tier)},
                   {"bytes", e.bytes},
                   {"ref_count", e.refs},
                   {"idle_ms", e.idle_ms},
                   {"last_used_secs_ago", double(e.idle_ms) / 1000.0},
                   {"load_ms", e.load_ms},
                   {"evictable", e.tier != engine::SrsTier::kCold && e.refs == 0},
                   {"path", e.path}});
  }
  // pce: the Rust daemon's pre-compiled circuit cache; ours keeps circuit shapes with their keys.
  o["allocations"] = {{"srs", std::move(srs)}, {"pce", Json::array()}};
  Json sizing = Json::array();
  for (const auto& [k, z] : s.sizing) {
    sizing.push_back(
        {{"job", k}, {"model_bytes", z.model_bytes}, {"measured_bytes", z.measured_bytes}, {"samples", z.samples}});
  }
  o["partition_memory"] = std::move(sizing);
  Json by_kind = Json::object(), completed_by = Json::object(), failed_by = Json::object();
  std::map<std::uint32_t, engine::KindCounters> kinds = s.by_kind;
  for (const auto& row : reg.rows()) kinds[row.wire];
  for (const auto& [k, c] : kinds) {
    if (s.by_kind.count(k))
      by_kind[reg.name(k)] = {{"completed", c.completed}, {"failed", c.failed}, {"cancelled", c.cancelled}};
    completed_by[reg.name(k)] = c.completed;
    failed_by[reg.name(k)] = c.failed;
  }
  o["counters"] = {{"total_completed", s.completed},
                   {"total_failed", s.failed},
                   {"total_cancelled", s.cancelled},
                   {"by_kind", std::move(by_kind)},
                   {"completed_by_kind", std::move(completed_by)},
                   {"failed_by_kind", std::move(failed_by)},
                   {"queue_depth", s.sched_depth + s.jobs_queued}};
  // The Rust daemon's buffers{} count its pipeline's big allocations by stage; ours, from the same
  // snapshot: synth_in_flight = partitions being synthesized; provers_in_flight = synthesized
  // partitions waiting for or on a device (their a/b/c vectors live); pending_handles and
  // shells_in_flight = partitions past the device, waiting for or in finalize; aux_in_flight = both
  // (the witness lives until finalize ends). All go down again (Rust's aux/shells never do).
  std::uint32_t synth_busy = 0, device_busy = 0, final_busy = 0;
  for (const auto& w : s.workers) {
    if (w.job_id.empty()) continue;
    if (w.stage == engine::WorkerStage::kSynthesis) ++synth_busy;
    else if (w.stage == engine::WorkerStage::kBackend || w.stage == engine::WorkerStage::kLane) ++device_busy;
    else if (w.stage == engine::WorkerStage::kFinalize) ++final_busy;
  }
  const std::uint32_t provers = s.backend_queue + s.lane_queue + device_busy, past = s.finalize_queue + final_busy;
  o["buffers"] = {{"synth_in_flight", synth_busy},
                  {"provers_in_flight", provers},
                  {"aux_in_flight", provers + past},
                  {"shells_in_flight", past},
                  {"pending_handles", past}};
  return o.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string prometheus_text(const StatusSnapshot& s, const engine::KindRegistry& reg,
                            const std::vector<DeviceInfo>& devices) {
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
  auto secs = [](double v) {  // sums of seconds: milliseconds kept at any size (Rust's {:.3})
    char b[64];
    std::snprintf(b, sizeof b, "%.3f", v);
    return std::string(b);
  };
  // By label: every kind the engine serves appears, with zeros, so the series exist from the start;
  // a wire value no row has adds to the one label "unknown", so it cannot multiply series.
  std::map<std::string, engine::KindCounters> kinds;
  for (const auto& row : reg.rows()) kinds[row.label()];
  for (const auto& [k, c] : s.by_kind) {
    auto& t = kinds[reg.find(k) ? reg.label(k) : "unknown"];
    t.completed += c.completed;
    t.failed += c.failed;
    t.cancelled += c.cancelled;
    t.duration_sum_s += c.duration_sum_s;
    t.duration_count += c.duration_count;
    for (std::size_t i = 0; i < t.duration_le.size(); ++i) t.duration_le[i] += c.duration_le[i];
  }
  auto per_kind = [&](const char* name, auto field) {
    for (auto& [l, c] : kinds) o << name << "{proof_kind=\"" << esc(l) << "\"} " << field(c) << '\n';
  };

  family("cuzk_proofs_completed_total", "counter", "Proofs completed since the daemon started.");
  o << "cuzk_proofs_completed_total " << s.completed << '\n';
  family("cuzk_proofs_failed_total", "counter", "Proofs failed since the daemon started.");
  o << "cuzk_proofs_failed_total " << s.failed << '\n';
  family("cuzk_proofs_cancelled_total", "counter", "Proofs cancelled since the daemon started.");
  o << "cuzk_proofs_cancelled_total " << s.cancelled << '\n';
  family("cuzk_proofs_completed_by_kind_total", "counter", "Proofs completed, by proof kind.");
  per_kind("cuzk_proofs_completed_by_kind_total", [](auto& c) { return c.completed; });
  family("cuzk_proofs_failed_by_kind_total", "counter", "Proofs failed, by proof kind.");
  per_kind("cuzk_proofs_failed_by_kind_total", [](auto& c) { return c.failed; });
  family("cuzk_proofs_cancelled_by_kind_total", "counter", "Proofs cancelled, by proof kind.");
  per_kind("cuzk_proofs_cancelled_by_kind_total", [](auto& c) { return c.cancelled; });
  // The Rust daemon's names for the two above. A counter's name should end in _total (promtool's
  // lint), and these must not, so they are untyped; their values only grow, like a counter's.
  family("cuzk_proofs_completed", "untyped",
         "Proofs completed, by proof kind: the Rust daemon's name for cuzk_proofs_completed_by_kind_total "
         "(a counter, untyped here because its name has no _total).");
  per_kind("cuzk_proofs_completed", [](auto& c) { return c.completed; });
  family("cuzk_proofs_failed", "untyped",
         "Proofs failed, by proof kind: the Rust daemon's name for cuzk_proofs_failed_by_kind_total "
         "(a counter, untyped here because its name has no _total).");
  per_kind("cuzk_proofs_failed", [](auto& c) { return c.failed; });
  family("cuzk_proof_duration_seconds", "histogram",
         "Submission-to-result time of every proof completed since the daemon started.");
  for (auto& [l, c] : kinds) {
    const std::string k = "proof_kind=\"" + esc(l) + "\"";
    for (std::size_t i = 0; i < engine::kDurationBuckets.size(); ++i)
      o << "cuzk_proof_duration_seconds_bucket{" << k << ",le=\"" << num(engine::kDurationBuckets[i]) << "\"} "
        << c.duration_le[i] << '\n';
    o << "cuzk_proof_duration_seconds_bucket{" << k << ",le=\"+Inf\"} " << c.duration_count << '\n';
    o << "cuzk_proof_duration_seconds_sum{" << k << "} " << secs(c.duration_sum_s) << '\n';
    o << "cuzk_proof_duration_seconds_count{" << k << "} " << c.duration_count << '\n';
  }
  family("cuzk_partition_stage_seconds", "summary", "Time finished partitions spent in each pipeline stage.");
  const char* stages[4] = {"queue", "synthesis", "backend", "finalize"};
  for (int i = 0; i < 4; ++i) {
    o << "cuzk_partition_stage_seconds_sum{stage=\"" << stages[i] << "\"} " << secs(s.stage_sum_s[i]) << '\n';
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
  o << "cuzk_backend_info{backend=\"" << esc(s.backend) << "\"} 1\n";
  gauge("cuzk_gpu_memory_bytes", "Device memory held by the backends (keys, shapes, buffers).", s.gpu_bytes);
  // Per device (the CPU backend's device slots as name "cpu", with 0 bytes).
  const auto views = device_views(s, devices);
  family("cuzk_gpu_info", "gauge", "One series per device the daemon serves (labels device, name); value 1.");
  for (auto& v : views)
    o << "cuzk_gpu_info{device=\"" << v.info.ordinal << "\",name=\"" << esc(v.info.name) << "\"} 1\n";
  family("cuzk_gpu_memory_total_bytes", "gauge", "Device memory of each device.");
  for (auto& v : views)
    o << "cuzk_gpu_memory_total_bytes{device=\"" << v.info.ordinal << "\"} " << v.info.total_bytes << '\n';
  family("cuzk_gpu_memory_free_bytes", "gauge", "Free device memory of each device, as the driver reports it.");
  for (auto& v : views)
    o << "cuzk_gpu_memory_free_bytes{device=\"" << v.info.ordinal << "\"} " << v.info.free_bytes << '\n';
  family("cuzk_gpu_busy", "gauge", "1 while a backend worker of the device holds a partition, else 0.");
  for (auto& v : views) o << "cuzk_gpu_busy{device=\"" << v.info.ordinal << "\"} " << (v.busy ? 1 : 0) << '\n';
  family("cuzk_gpu_in_service", "gauge",
         "1 while the device takes work; 0 once a failure there was blamed on the device (the log says why).");
  for (auto& v : views)
    o << "cuzk_gpu_in_service{device=\"" << v.info.ordinal << "\"} " << (v.state.in_service ? 1 : 0) << '\n';
  family("cuzk_gpu_busy_seconds_total", "counter",
         "Time a backend worker of the device held it (busy % = rate over wall time).");
  for (auto& v : views) {  // milliseconds kept at any uptime (a rate over minutes must not jitter)
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", v.state.busy_s);
    o << "cuzk_gpu_busy_seconds_total{device=\"" << v.info.ordinal << "\"} " << b << '\n';
  }
  family("cuzk_gpu_partitions_total", "counter", "Partitions proved on the device's main backends.");
  for (auto& v : views)
    o << "cuzk_gpu_partitions_total{device=\"" << v.info.ordinal << "\"} " << v.state.partitions << '\n';
  family("cuzk_gpu_requeued_partitions_total", "counter",
         "Partitions that failed on the device with a device fault and were queued for another device.");
  for (auto& v : views)
    o << "cuzk_gpu_requeued_partitions_total{device=\"" << v.info.ordinal << "\"} " << v.state.requeued << '\n';
  family("cuzk_gpu_suspect", "gauge",
         "1 while a partition on the device runs past its hang limit (gpus.hang_multiple), until one completes there.");
  for (auto& v : views)
    o << "cuzk_gpu_suspect{device=\"" << v.info.ordinal << "\"} " << (v.state.suspect ? 1 : 0) << '\n';
  family("cuzk_gpu_returned_total", "counter", "Times a probe found the device healthy and put it back in service.");
  for (auto& v : views)
    o << "cuzk_gpu_returned_total{device=\"" << v.info.ordinal << "\"} " << v.state.returned << '\n';
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
  for (auto& w : s.workers) busy[w.stage_name()] += w.job_id.empty() ? 0 : 1;
  for (auto& [st, n] : busy) o << "cuzk_workers_busy{stage=\"" << st << "\"} " << n << '\n';
  gauge("cuzk_memory_budget_bytes", "Total memory budget.", s.budget_bytes);
  family("cuzk_memory_used_bytes", "gauge", "Memory reserved from the budget, by holder.");
  o << "cuzk_memory_used_bytes{holder=\"srs\"} " << s.srs_bytes << '\n';
  o << "cuzk_memory_used_bytes{holder=\"partitions\"} " << s.partition_bytes << '\n';
  o << "cuzk_memory_used_bytes{holder=\"parse\"} " << s.parse_bytes << '\n';
  o << "cuzk_memory_used_bytes{holder=\"other\"} "
    << (s.used_bytes - std::min(s.used_bytes, s.srs_bytes + s.partition_bytes + s.parse_bytes)) << '\n';
  gauge("cuzk_memory_request_bytes", "Bytes of unfinished jobs' requests, held in the requests' slice of the budget.",
        s.request_bytes);
  gauge("cuzk_memory_request_budget_bytes", "The requests' slice of the budget (memory.request_budget).",
        s.request_budget_bytes);
  gauge("cuzk_memory_peak_bytes", "Highest memory reserved from the budget since start.", s.peak_bytes);
  gauge("cuzk_memory_waiters", "Reservations blocked waiting for memory.", s.budget_waiters);
  gauge("cuzk_process_resident_memory_bytes", "Resident set size of the daemon.", s.rss_bytes);
  gauge("cuzk_process_peak_resident_memory_bytes", "Peak resident set size of the daemon.", s.peak_rss_bytes);
  family("cuzk_partition_memory_bytes", "gauge",
         "Partition memory per job kind and circuit: the model, and the peak measured on solo partitions.");
  for (auto& [k, z] : s.sizing) {
    o << "cuzk_partition_memory_bytes{job=\"" << esc(k) << "\",source=\"model\"} " << z.model_bytes << '\n';
    o << "cuzk_partition_memory_bytes{job=\"" << esc(k) << "\",source=\"measured\"} " << z.measured_bytes << '\n';
  }
  family("cuzk_srs_loaded_bytes", "gauge", "Bytes held by each loaded proving key.");
  for (auto& e : s.srs)
    o << "cuzk_srs_loaded_bytes{circuit_id=\"" << esc(e.id) << "\",tier=\"" << engine::tier_name(e.tier) << "\"} "
      << e.bytes << '\n';
  family("cuzk_srs_copy_bytes", "gauge",
         "Memory of each proving key's copy per device: device memory, or pinned host memory (streamed).");
  for (auto& e : s.srs) {
    for (auto& c : e.copies) {
      const std::string l = "circuit_id=\"" + esc(e.id) + "\",device=\"" + std::to_string(c.slot.device) +
                            (c.slot.lane ? "\",lane=\"1" : "\",lane=\"0") + "\",tier=\"" + engine::tier_name(c.tier) +
                            "\"";
      o << "cuzk_srs_copy_bytes{" << l << ",memory=\"device\"} " << c.device_bytes << '\n';
      o << "cuzk_srs_copy_bytes{" << l << ",memory=\"host\"} " << c.host_bytes << '\n';
    }
  }
  family("cuzk_srs_copy_from_file", "gauge",
         "1 when a key's copy on a device reads part of its bases from the key's file at each proof "
         "(gpus.key_residency = file).");
  for (auto& e : s.srs) {
    for (auto& c : e.copies) {
      o << "cuzk_srs_copy_from_file{circuit_id=\"" << esc(e.id) << "\",device=\"" << c.slot.device << "\",lane=\""
        << (c.slot.lane ? 1 : 0) << "\"} " << (c.from_file ? 1 : 0) << '\n';
    }
  }
  family("cuzk_srs_copy_planned", "gauge",
         "1 for the form the plan across preloaded keys chose for a key's copy on a device (resident, pinned "
         "or file; deadline-bound keys first); no series for a copy placed alone.");
  for (auto& e : s.srs) {
    for (auto& c : e.copies) {
      if (c.planned == groth16::CopyForm::kAny) continue;
      o << "cuzk_srs_copy_planned{circuit_id=\"" << esc(e.id) << "\",device=\"" << c.slot.device << "\",lane=\""
        << (c.slot.lane ? 1 : 0) << "\",form=\"" << groth16::copy_form_name(c.planned) << "\"} 1\n";
    }
  }
  family("cuzk_srs_references", "gauge", "Jobs holding each proving key.");
  for (auto& e : s.srs) o << "cuzk_srs_references{circuit_id=\"" << esc(e.id) << "\"} " << e.refs << '\n';
  return o.str();
}

}  // namespace cuzk::server
