// cuzk-bench status, metrics, preload, evict, cancel, register: the daemon's small RPCs.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "apps/cuzk-bench/common.hpp"
#include "engine/kinds/builtin_kinds.hpp"
#include "engine/process_memory.hpp"
#include "engine/units.hpp"

namespace cuzk::bench {

int run_status(const Global& g) {
  auto client = connect(g);
  if (!client) return usage_error(client.error());
  auto s = (*client)->status();
  if (!s) return usage_error(s.error());
  if (g.json) {
    json gpus = json::array(), srs = json::array(), queues = json::array(), workers = json::array();
    for (auto& x : s->gpus)
      gpus.push_back({{"ordinal", x.ordinal},
                      {"name", x.name},
                      {"vram_total_bytes", x.vram_total},
                      {"vram_free_bytes", x.vram_free},
                      {"current_job_id", x.job_id},
                      {"current_proof_kind", x.kind}});
    for (auto& x : s->srs)
      srs.push_back({{"circuit_id", x.id},
                     {"tier", x.tier},
                     {"tier_name", x.tier_name},
                     {"size_bytes", x.bytes},
                     {"ref_count", x.refs}});
    for (auto& x : s->queues)
      queues.push_back({{"proof_kind", x.kind}, {"pending", x.pending}, {"in_progress", x.in_progress}});
    for (auto& x : s->workers)
      workers.push_back({{"stage", x.stage},
                         {"worker_id", x.id},
                         {"device", x.device},
                         {"current_job_id", x.job_id},
                         {"busy_ms", x.busy_ms},
                         {"items_done", x.items_done}});
    json j = {{"uptime_seconds", s->uptime_s},
              {"backend", s->backend},
              {"draining", s->draining},
              {"total_proofs_completed", s->completed},
              {"total_proofs_failed", s->failed},
              {"total_proofs_cancelled", s->cancelled},
              {"jobs_queued", s->jobs_queued},
              {"jobs_running", s->jobs_running},
              {"memory",
               {{"budget_bytes", s->budget},
                {"used_bytes", s->used},
                {"peak_bytes", s->peak},
                {"srs_bytes", s->srs_bytes},
                {"partition_bytes", s->partition_bytes},
                {"waiters", s->waiters},
                {"process_rss_bytes", s->rss},
                {"process_peak_rss_bytes", s->peak_rss}}},
              {"gpus", gpus},
              {"loaded_srs", srs},
              {"queues", queues},
              {"workers", workers}};
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("=== cuzk daemon status ===\n");
  std::printf("uptime:           %llus\n", (unsigned long long)s->uptime_s);
  std::printf("proofs completed: %llu\n", (unsigned long long)s->completed);
  std::printf("proofs failed:    %llu\n", (unsigned long long)s->failed);
  std::printf("pinned memory:    %llu / %llu bytes\n", (unsigned long long)s->pinned,
              (unsigned long long)s->pinned_limit);
  std::printf("\nGPUs:\n");
  for (auto& x : s->gpus) {
    std::string state = x.job_id.empty() ? "idle" : "proving " + x.kind + " (" + x.job_id.substr(0, 8) + ")";
    std::printf("  [%u] %s \u2014 %llu MiB / %llu MiB VRAM \u2014 %s\n", x.ordinal, x.name.c_str(),
                (unsigned long long)(x.vram_free >> 20), (unsigned long long)(x.vram_total >> 20), state.c_str());
  }
  std::printf("\nLoaded SRS:\n");
  for (auto& x : s->srs) {
    std::printf("  %s (tier=%d, size=%llu bytes, refs=%u)\n", x.id.c_str(), x.tier, (unsigned long long)x.bytes,
                x.refs);
  }
  std::printf("\nQueues:\n");
  for (auto& x : s->queues) std::printf("  %s: pending=%u, in_progress=%u\n", x.kind.c_str(), x.pending, x.in_progress);
  // Beyond the Rust bench's output: the engine's memory and pipeline numbers.
  std::printf("\nMemory:\n");
  std::printf("  budget %s, used %s (keys %s, partitions %s), peak %s, %u waiting\n",
              engine::format_bytes(s->budget).c_str(), engine::format_bytes(s->used).c_str(),
              engine::format_bytes(s->srs_bytes).c_str(), engine::format_bytes(s->partition_bytes).c_str(),
              engine::format_bytes(s->peak).c_str(), s->waiters);
  std::printf("  process rss %s, peak rss %s\n", engine::format_bytes(s->rss).c_str(),
              engine::format_bytes(s->peak_rss).c_str());
  std::printf("\nPipeline:\n");
  std::printf("  backend %s, %u jobs waiting, %u running, %llu cancelled%s\n", s->backend.c_str(), s->jobs_queued,
              s->jobs_running, (unsigned long long)s->cancelled, s->draining ? ", draining" : "");
  return 0;
}

int run_metrics(const Global& g) {
  auto client = connect(g);
  if (!client) return usage_error(client.error());
  auto m = (*client)->metrics();
  if (!m) return usage_error(m.error());
  std::fputs(m->c_str(), stdout);
  return 0;
}

int run_preload(const Global& g, const std::string& id) {
  auto client = connect(g);
  if (!client) return usage_error(client.error());
  auto r = (*client)->preload(id);
  if (!r) return usage_error(r.error());
  if (g.json) {
    std::printf(
        "%s\n",
        json{{"circuit_id", id}, {"already_loaded", r->already_loaded}, {"load_time_ms", r->load_ms}}.dump().c_str());
  } else if (r->already_loaded) {
    std::printf("%s already loaded\n", id.c_str());
  } else {
    std::printf("%s loaded in %llu ms\n", id.c_str(), (unsigned long long)r->load_ms);
  }
  return 0;
}

int run_evict(const Global& g, const std::string& id) {
  auto client = connect(g);
  if (!client) return usage_error(client.error());
  auto r = (*client)->evict(id);
  if (!r) return usage_error(r.error());
  if (g.json) {
    std::printf(
        "%s\n",
        json{{"circuit_id", id}, {"was_loaded", r->was_loaded}, {"freed_bytes", r->freed_bytes}}.dump().c_str());
  } else if (r->was_loaded) {
    std::printf("%s evicted, %llu bytes freed\n", id.c_str(), (unsigned long long)r->freed_bytes);
  } else {
    std::printf("%s was not loaded\n", id.c_str());
  }
  return 0;
}

int run_cancel(const Global& g, const std::string& job) {
  auto client = connect(g);
  if (!client) return usage_error(client.error());
  auto r = (*client)->cancel(job);
  if (!r) return usage_error(r.error());
  if (g.json) {
    std::printf("%s\n", json{{"job_id", job}, {"found", r->found}, {"was_running", r->was_running}}.dump().c_str());
  } else if (r->was_running) {
    std::printf("%s cancelled\n", job.c_str());
  } else if (r->found) {
    std::printf("%s had already finished\n", job.c_str());
  } else {
    std::printf("%s not found\n", job.c_str());
  }
  return r->found ? 0 : 1;
}

int run_register(const Global& g, const std::string& id, const std::string& zkey, bool preload) {
  auto client = connect(g);
  if (!client) return usage_error(client.error());
  auto r = (*client)->register_circuit(id, zkey, preload);
  if (!r) return usage_error(r.error());
  if (g.json) {
    std::printf("%s\n", json{{"circuit_id", id},
                             {"replaced", r->replaced},
                             {"num_public", r->n_public},
                             {"num_vars", r->n_vars},
                             {"num_constraints", r->n_constraints},
                             {"domain_size", r->domain_size},
                             {"load_time_ms", r->load_ms}}
                            .dump()
                            .c_str());
  } else {
    std::printf("%s registered%s", id.c_str(), r->replaced ? " (replaced)" : "");
    if (preload) {
      std::printf(", loaded in %llu ms: %u constraints, %u variables, %u public", (unsigned long long)r->load_ms,
                  r->n_constraints, r->n_vars, r->n_public);
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace cuzk::bench
