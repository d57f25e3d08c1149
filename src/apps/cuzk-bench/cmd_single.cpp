// cuzk-bench single: one proof, its result and timings (the Rust bench's lines, or --json).
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
#include "formats/binfile.hpp"
#include "engine/process_memory.hpp"
#include "engine/units.hpp"

namespace cuzk::bench {

int run_single(const Global& g, const ProofArgs& a) {
  if (a.c1.size() > 1) return usage_error("single takes one --c1 file (batch cycles over several)");
  auto req = build_request(a);
  if (!req) return usage_error(req.error());
  if (req->request_id.empty()) req->request_id = engine::make_uuid_v4();
  auto client = connect(g);
  if (!client) return usage_error(client.error());
  auto t0 = Clock::now();
  auto r = (*client)->prove(*req);
  auto wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  if (!r) return usage_error(r.error());
  if (!a.timeline.empty()) {
    if (auto st = write_timeline(a.timeline, {{"#1", *r}}, "cuzk-bench single: " + kind_table().name(req->proof_kind));
        !st) {
      return usage_error(st.error());
    }
  }
  const bool ok = r->status == engine::ResultStatus::kCompleted;
  if (ok && !a.out.empty()) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(r->proof.data());
    if (auto st = formats::write_file_bytes(a.out, {p, r->proof.size()}); !st)
      return usage_error("--out: " + st.error());
  }
  if (g.json) {
    json j = {{"status", engine::status_name(r->status)},
              {"job_id", r->job_id},
              {"wall_ms", wall_ms},
              {"proof_bytes", r->proof.size()},
              {"proof_hex", hex_encode(r->proof)},
              {"error", r->error},
              {"timings", timings_json(*r)}};
    std::printf("%s\n", j.dump(2).c_str());
    return ok ? 0 : 1;
  }
  std::printf("\n=== Proof Result ===\n");
  std::printf("status:    %s\n", engine::status_name(r->status));
  std::printf("job_id:    %s\n", r->job_id.c_str());
  if (ok) {
    std::printf("timings:   total=%llu ms (queue=%llu ms, srs=%llu ms, synth=%llu ms, gpu=%llu ms)\n",
                (unsigned long long)r->total_ms, (unsigned long long)r->queue_wait_ms,
                (unsigned long long)r->srs_load_ms, (unsigned long long)r->synthesis_ms,
                (unsigned long long)r->gpu_compute_ms);
    std::printf("wall time: %lld ms\n", (long long)wall_ms);
    std::string hex = r->proof.size() <= 256 ? hex_encode(r->proof) : hex_encode(r->proof.substr(0, 128)) + "...";
    std::printf("proof:     %zu bytes (hex: %s)\n", r->proof.size(), hex.c_str());
  } else {
    std::printf("error:     %s\n", r->error.c_str());
  }
  return ok ? 0 : 1;
}

}  // namespace cuzk::bench
