// cuzk-bench batch: --count proofs, --concurrency at once; per-proof timing, throughput, the steady-state
// pace, and optionally every proof written out.
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
namespace {

struct BatchItem {
  std::string input;  // the --c1 file of this proof ("" for other inputs)
  bool done = false;
  bool rpc_ok = false;
  std::string rpc_error;
  engine::JobResult result;
  double wall_s = 0;
  double end_s = 0;  // when its result came, in seconds since the batch started
};

// (index from 1, job id, input file, proof bytes) of every completed proof.
struct SavedProof {
  std::size_t index;
  std::string job_id, input, proof;
};
std::vector<SavedProof> items_proofs(const std::vector<BatchItem>& items) {
  std::vector<SavedProof> out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& it = items[i];
    if (it.rpc_ok && it.result.status == engine::ResultStatus::kCompleted) {
      out.push_back({i + 1, it.result.job_id, it.input, it.result.proof});
    }
  }
  return out;
}

// DIR/proof-N.bin for proof N, and DIR/index.tsv with one "N <tab> job id <tab> input <tab> proof file"
// line each, so a script can check every proof against the input it was made from.
Status write_proofs(const ProofArgs& a, const std::vector<SavedProof>& proofs) {
  std::error_code ec;
  std::filesystem::create_directories(a.proofs_dir, ec);
  if (ec) return Error{"--proofs-dir: cannot create " + a.proofs_dir + ": " + ec.message()};
  // Each file replaced all at once (formats::write_file_bytes); the index last, so it never lists a
  // proof file that is not there.
  std::string index;
  for (const auto& p : proofs) {
    const std::string file = a.proofs_dir + "/proof-" + std::to_string(p.index) + ".bin";
    const auto* b = reinterpret_cast<const std::uint8_t*>(p.proof.data());
    if (auto st = formats::write_file_bytes(file, {b, p.proof.size()}); !st)
      return Error{"--proofs-dir: " + st.error()};
    index += std::to_string(p.index) + '\t' + p.job_id + '\t' + p.input + '\t' + file + '\n';
  }
  const auto* ib = reinterpret_cast<const std::uint8_t*>(index.data());
  if (auto st = formats::write_file_bytes(a.proofs_dir + "/index.tsv", {ib, index.size()}); !st) {
    return Error{"--proofs-dir: " + st.error()};
  }
  return ok_status();
}
}  // namespace

int run_batch(const Global& g, const ProofArgs& a) {
  if (a.count == 0) return usage_error("--count must be at least 1");
  if (a.concurrency == 0) return usage_error("--concurrency must be at least 1");
  if (a.c1.size() > 1 && a.count < a.c1.size()) {
    return usage_error("--count " + std::to_string(a.count) + " is less than the " + std::to_string(a.c1.size()) +
                       " --c1 files");
  }
  // One request per input file, read once; proof i uses bases[i % files].
  std::vector<engine::ProofRequest> bases;
  for (std::size_t f = 0; f < std::max<std::size_t>(1, a.c1.size()); ++f) {
    auto r = build_request(a, f);
    if (!r) return usage_error(r.error());
    bases.push_back(std::move(*r));
  }
  const engine::ProofRequest* base = &bases[0];
  auto client = connect(g);
  if (!client) return usage_error(client.error());
  const std::string type = kind_table().name(base->proof_kind);
  const bool tty = !g.json && ::isatty(STDERR_FILENO);
  if (!g.json) {
    std::printf("=== Batch Benchmark ===\n");
    std::printf("proof type:  %s\n", type.c_str());
    std::printf("count:       %u\n", a.count);
    std::printf("concurrency: %u\n", a.concurrency);
    if (a.c1.size() > 1) std::printf("inputs:      %zu C1 files, cycled\n", a.c1.size());
    std::printf("\n");
    std::fflush(stdout);
  }
  std::vector<BatchItem> items(a.count);
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<std::uint32_t> next{0}, in_flight{0};
  const auto t_start = Clock::now();
  std::vector<std::thread> workers;
  for (std::uint32_t w = 0; w < std::min(a.concurrency, a.count); ++w) {
    workers.emplace_back([&] {
      while (true) {
        std::uint32_t i = next++;
        if (i >= a.count) return;
        engine::ProofRequest req = bases[i % bases.size()];
        req.request_id = a.request_id.empty() ? engine::make_uuid_v4() : a.request_id + "-" + std::to_string(i + 1);
        in_flight++;
        auto t0 = Clock::now();
        auto r = (*client)->prove(req);
        double wall = std::chrono::duration<double>(Clock::now() - t0).count();
        in_flight--;
        std::lock_guard<std::mutex> lk(mu);
        BatchItem& it = items[i];
        it.done = true;
        if (!a.c1.empty()) it.input = a.c1[i % a.c1.size()];
        else if (!a.vanilla.empty()) it.input = a.vanilla;  // PoSt / Snap
        it.wall_s = wall;
        it.end_s = std::chrono::duration<double>(Clock::now() - t_start).count();
        if (r) {
          it.rpc_ok = true;
          it.result = std::move(*r);
        } else {
          it.rpc_error = r.error();
          it.result.job_id = req.request_id;
        }
        cv.notify_all();
      }
    });
  }
  // Print results in submission order as they arrive; a live progress line on a terminal.
  std::uint32_t printed = 0, done = 0, failed_so_far = 0;
  {
    std::unique_lock<std::mutex> lk(mu);
    while (printed < a.count) {
      cv.wait_for(lk, std::chrono::milliseconds(250));
      done = 0;
      failed_so_far = 0;
      for (auto& it : items) {
        if (!it.done) continue;
        ++done;
        if (!it.rpc_ok || it.result.status != engine::ResultStatus::kCompleted) ++failed_so_far;
      }
      if (tty) std::fprintf(stderr, "\r\033[K");
      while (printed < a.count && items[printed].done) {
        const BatchItem& it = items[printed];
        if (!g.json) {
          const char* label = it.rpc_ok ? engine::status_name(it.result.status) : "ERROR";
          std::printf("  [%u/%u] %s \u2014 %.1fs (prove=%llu ms, queue=%llu ms)\n", printed + 1, a.count, label,
                      it.wall_s, (unsigned long long)it.result.gpu_compute_ms,
                      (unsigned long long)it.result.queue_wait_ms);
          if (!it.rpc_ok) std::printf("         error: %s\n", it.rpc_error.c_str());
          else if (it.result.status != engine::ResultStatus::kCompleted) {
            std::printf("         error: %s\n", it.result.error.c_str());
          }
          std::fflush(stdout);
        }
        ++printed;
      }
      if (tty && printed < a.count) {
        double el = std::chrono::duration<double>(Clock::now() - t_start).count();
        std::fprintf(stderr, "  progress: %u/%u done (%u failed), %u in flight, %.1fs", done, a.count, failed_so_far,
                     in_flight.load(), el);
        std::fflush(stderr);
      }
    }
  }
  for (auto& t : workers) t.join();
  const double total_s = std::chrono::duration<double>(Clock::now() - t_start).count();
  if (!a.proofs_dir.empty()) {
    if (auto st = write_proofs(a, items_proofs(items)); !st) return usage_error(st.error());
  }

  std::uint32_t completed = 0;
  double wsum = 0, wmin = 1e300, wmax = 0, psum = 0, pmin = 1e300, pmax = 0;
  std::vector<double> ends;  // completion times, for the steady-state pace below
  for (auto& it : items) {
    if (!it.rpc_ok || it.result.status != engine::ResultStatus::kCompleted) continue;
    ++completed;
    ends.push_back(it.end_s);
    double p = it.result.gpu_compute_ms / 1000.0;
    wsum += it.wall_s;
    wmin = std::min(wmin, it.wall_s);
    wmax = std::max(wmax, it.wall_s);
    psum += p;
    pmin = std::min(pmin, p);
    pmax = std::max(pmax, p);
  }
  const std::uint32_t failed = a.count - completed;
  // The pace once the first `concurrency` results are in: those proofs also paid what a daemon sets
  // up once (buffers, a key or shape not preloaded), so over a short batch total_s / completed
  // understates it. Needs more completions than proofs in flight.
  std::sort(ends.begin(), ends.end());
  const std::uint32_t warm = std::min(a.concurrency, a.count);
  const bool has_steady = ends.size() > warm && warm > 0;
  const double steady_span = has_steady ? ends.back() - ends[warm - 1] : 0;
  const double steady_s = has_steady ? steady_span / double(ends.size() - warm) : 0;
  // Where the time went, from the daemon's per-partition timestamps (extension fields).
  double synth_s = 0, wait_s = 0, device_s = 0, fin_s = 0, verify_s = 0;
  std::uint64_t parts = 0;
  for (auto& it : items) {
    if (!it.rpc_ok || it.result.status != engine::ResultStatus::kCompleted) continue;
    verify_s += it.result.verify_ms / 1000.0;
    for (const auto& p : it.result.partitions) {
      ++parts;
      auto d = [](engine::Micros x, engine::Micros y) { return y > x && x ? (y - x) / 1e6 : 0.0; };
      synth_s += d(p.synth_start, p.synth_end);
      wait_s += d(p.backend_start, p.backend_locked);
      device_s += d(p.backend_locked, p.backend_end);
      fin_s += d(p.finalize_start, p.finalize_end);
    }
  }
  std::uint64_t peak_rss = 0, rss = 0;
  if (auto st = (*client)->status()) {
    peak_rss = st->peak_rss;
    rss = st->rss;
  }
  if (!a.timeline.empty()) {
    std::vector<TimelineJob> tj;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i].rpc_ok) tj.push_back({"#" + std::to_string(i + 1), items[i].result});
    }
    char title[160];
    std::snprintf(title, sizeof title, "cuzk-bench batch: %s, count %u, concurrency %u", type.c_str(), a.count,
                  a.concurrency);
    if (auto st = write_timeline(a.timeline, tj, title); !st) return usage_error(st.error());
  }
  if (g.json) {
    json proofs = json::array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      const auto& it = items[i];
      json p = {{"index", i + 1},
                {"job_id", it.result.job_id},
                {"status", it.rpc_ok ? engine::status_name(it.result.status) : "ERROR"},
                {"wall_s", it.wall_s},
                {"prove_ms", it.result.gpu_compute_ms},
                {"queue_ms", it.result.queue_wait_ms},
                {"error", it.rpc_ok ? it.result.error : it.rpc_error},
                {"timings", timings_json(it.result)}};
      proofs.push_back(p);
    }
    json j = {{"proof_type", type},
              {"count", a.count},
              {"concurrency", a.concurrency},
              {"total_s", total_s},
              {"completed", completed},
              {"failed", failed},
              {"daemon_rss_bytes", rss},
              {"daemon_peak_rss_bytes", peak_rss},
              {"proofs", proofs}};
    if (parts) {
      j["per_partition_s"] = {{"synthesis", synth_s / parts},
                              {"device_wait", wait_s / parts},
                              {"device", device_s / parts},
                              {"finalize", fin_s / parts}};
      j["device_busy_fraction"] = device_s / total_s;
    }
    if (completed) {
      j["verify_s_avg"] = verify_s / completed;
      j["wall_s"] = {{"avg", wsum / completed}, {"min", wmin}, {"max", wmax}};
      j["prove_s"] = {{"avg", psum / completed}, {"min", pmin}, {"max", pmax}};
      j["proofs_per_min"] = completed / total_s * 60.0;
      j["s_per_proof"] = total_s / completed;
      if (has_steady) j["s_per_proof_steady"] = steady_s;
    }
    std::printf("%s\n", j.dump(2).c_str());
    return failed ? 1 : 0;
  }
  std::printf("\n=== Batch Summary ===\n");
  std::printf("total time:    %.1fs\n", total_s);
  std::printf("completed:     %u\n", completed);
  std::printf("failed:        %u\n", failed);
  if (completed) {
    std::printf("wall time:     avg=%.1fs min=%.1fs max=%.1fs\n", wsum / completed, wmin, wmax);
    std::printf("prove time:    avg=%.1fs min=%.1fs max=%.1fs\n", psum / completed, pmin, pmax);
    std::printf("throughput:    %.3f proofs/min (%.1fs/proof)\n", completed / total_s * 60.0, total_s / completed);
    if (has_steady) {
      std::printf("steady state:  %.1fs/proof after the first %u results (%zu more in %.1fs)\n", steady_s, warm,
                  ends.size() - warm, steady_span);
    }
  }
  if (parts) {
    std::printf(
        "pipeline:      per partition synth=%.3fs device-wait=%.3fs device=%.3fs finalize=%.3fs; device busy %.0f%%\n",
        synth_s / parts, wait_s / parts, device_s / parts, fin_s / parts, 100.0 * device_s / total_s);
  }
  if (peak_rss)
    std::printf("daemon memory: rss=%s peak=%s\n", engine::format_bytes(rss).c_str(),
                engine::format_bytes(peak_rss).c_str());
  if (!a.timeline.empty()) std::printf("timeline:      %s\n", a.timeline.c_str());
  return failed ? 1 : 0;
}

}  // namespace cuzk::bench
