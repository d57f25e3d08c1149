// cuzk-bench: drives a running cuzk-daemon. The human-readable output follows the Rust cuzk-bench
// line for line (cuzk-behaviour.md 3.2); --json prints one JSON document instead.
//
//   cuzk-bench [-a ADDR] [--json] single  -t TYPE [inputs] [--timeline FILE.svg] [--out PROOF]
//   cuzk-bench [-a ADDR] [--json] batch   -t TYPE [inputs] -c COUNT -j CONCURRENCY [--timeline FILE.svg]
//                                         [--proofs-dir DIR]
//   cuzk-bench [-a ADDR] [--json] status | metrics | preload -c ID | evict -c ID | cancel JOB_ID
//   cuzk-bench [-a ADDR] register --circuit-id ID --zkey PATH [--preload]
//   cuzk-bench gen-circuit --constraints N --out DIR [--id NAME] [--seed S]
//
// TYPE: porep | snap | wpost | winning (Filecoin; the inputs are --c1 / --vanilla and the hex
// fields; `batch` takes --c1 more than once and cycles over the files, so a run proves different
// sectors instead of replaying one input) or generic (--circuit-id ID with --wtns FILE, sent inline, or --wtns-path PATH, read by
// the daemon). Exit status: 0 when every proof completed, 1 when any did not, 2 on usage or
// connection errors.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "apps/cuzk-bench/client.hpp"
#include "apps/cuzk-bench/gen_circuit.hpp"
#include "apps/cuzk-bench/timeline_svg.hpp"
#include "engine/engine.hpp"
#include "engine/kinds/builtin_kinds.hpp"
#include "engine/types.hpp"
#include "engine/units.hpp"

namespace cuzk::bench {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct Global {
  std::string addr = "http://127.0.0.1:9820";
  std::string log_level = "info";
  bool json = false;
  std::string max_message = "512MiB";
};

struct ProofArgs {
  std::string type;
  std::vector<std::string> c1;  // single: one file; batch: cycled over
  std::string vanilla;
  std::string out;         // single: write the proof bytes here
  std::string proofs_dir;  // batch: write every completed proof here (and index.tsv)
  std::uint64_t registered_proof = 0, sector_num = 1, miner_id = 1000, sector_size = 0;
  std::uint32_t partition = 0;
  std::string randomness, comm_r_old, comm_r_new, comm_d_new;
  std::string circuit_id, wtns, wtns_path;
  std::string priority;
  std::string request_id;
  std::string timeline;
  std::uint32_t count = 3, concurrency = 1;
};

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "cuzk-bench: %s\n", msg.c_str());
  return 2;
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error{"cannot read " + path};
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Result<std::string> hex_decode(const std::string& flag, std::string h) {
  if (h.rfind("0x", 0) == 0) h = h.substr(2);
  if (h.size() % 2) return Error{flag + ": odd number of hex digits"};
  std::string out;
  for (std::size_t i = 0; i < h.size(); i += 2) {
    auto nib = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    int a = nib(h[i]), b = nib(h[i + 1]);
    if (a < 0 || b < 0) return Error{flag + ": not hex"};
    out.push_back(char(a * 16 + b));
  }
  return out;
}

std::string hex_encode(const std::string& b) {
  static const char* d = "0123456789abcdef";
  std::string o;
  for (unsigned char c : b) {
    o.push_back(d[c >> 4]);
    o.push_back(d[c & 15]);
  }
  return o;
}

std::string base64_decode(const std::string& s, bool& ok) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  ok = s.size() % 4 == 0;
  std::string out;
  for (std::size_t i = 0; ok && i < s.size(); i += 4) {
    int v[4];
    for (int j = 0; j < 4; ++j) v[j] = s[i + j] == '=' ? -2 : val(s[i + j]);
    if (v[0] < 0 || v[1] < 0 || v[2] == -1 || v[3] == -1) {
      ok = false;
      break;
    }
    out.push_back(char((v[0] << 2) | (v[1] >> 4)));
    if (v[2] >= 0) out.push_back(char(((v[1] & 15) << 4) | (v[2] >> 2)));
    if (v[2] >= 0 && v[3] >= 0) out.push_back(char(((v[2] & 3) << 6) | v[3]));
  }
  return out;
}

// The proof kinds and their spellings are the daemon's own table (engine/kinds/builtin_kinds.hpp).
const engine::KindRegistry& kind_table() {
  static const engine::KindRegistry table = [] {
    engine::KindRegistry r;
    engine::kinds::register_builtin_kinds(r);
    return r;
  }();
  return table;
}

Result<std::uint32_t> parse_type(const std::string& t) {
  if (const engine::KindRow* row = kind_table().find(std::string_view(t))) return row->wire;
  std::string names;
  for (const auto& row : kind_table().rows()) names += (names.empty() ? "" : ", ") + row.aliases.front();
  return Error{"unknown proof type: " + t + ". Use: " + names};
}

// The request for the inputs of `a`, with the c1_index-th --c1 file.
Result<engine::ProofRequest> build_request(const ProofArgs& a, std::size_t c1_index = 0) {
  auto kind = parse_type(a.type);
  if (!kind) return Error{kind.error()};
  engine::ProofRequest r;
  r.proof_kind = *kind;
  r.request_id = a.request_id;
  r.sector_size = a.sector_size;
  r.registered_proof = a.registered_proof;
  r.sector_number = a.sector_num;
  r.miner_id = a.miner_id;
  r.partition_index = a.partition;
  if (!a.priority.empty()) {
    std::string p = a.priority;
    std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (p == "low") r.priority = 1;
    else if (p == "normal") r.priority = 2;
    else if (p == "high") r.priority = 3;
    else if (p == "critical") r.priority = 4;
    else return Error{"--priority: expected low, normal, high or critical"};
  }
  if (!a.c1.empty()) {
    auto c1 = read_file(a.c1[c1_index % a.c1.size()]);
    if (!c1) return Error{"--c1: " + c1.error()};
    r.vanilla_proof = std::move(*c1);
  }
  if (!a.vanilla.empty()) {
    auto v = read_file(a.vanilla);
    if (!v) return Error{"--vanilla: " + v.error()};
    // Go's json.Marshal([][]byte): an array of base64 strings; otherwise the file is one proof.
    json j = json::parse(*v, nullptr, false);
    bool parsed = false;
    if (j.is_array()) {
      std::vector<std::string> proofs;
      parsed = true;
      for (auto& e : j) {
        bool ok = false;
        if (e.is_string()) proofs.push_back(base64_decode(e.get<std::string>(), ok));
        if (!ok) {
          parsed = false;
          break;
        }
      }
      if (parsed) r.vanilla_proofs = std::move(proofs);
    }
    if (!parsed) r.vanilla_proofs = {std::move(*v)};
  }
  if (!a.randomness.empty()) {
    auto h = hex_decode("--randomness", a.randomness);
    if (!h) return Error{h.error()};
    r.randomness = *h;
  } else if (*kind == 3 || *kind == 4) {
    r.randomness.assign(32, '\0');
  }
  for (auto [flag, in, out] : {std::tuple{"--comm-r-old", &a.comm_r_old, &r.comm_r_old},
                               std::tuple{"--comm-r-new", &a.comm_r_new, &r.comm_r_new},
                               std::tuple{"--comm-d-new", &a.comm_d_new, &r.comm_d_new}}) {
    if (in->empty()) continue;
    auto h = hex_decode(flag, *in);
    if (!h) return Error{h.error()};
    *out = *h;
  }
  if (*kind == std::uint32_t(engine::ProofKind::kGenericGroth16)) {
    if (a.circuit_id.empty()) return Error{"generic proofs need --circuit-id"};
    if (a.wtns.empty() == a.wtns_path.empty()) return Error{"generic proofs need exactly one of --wtns or --wtns-path"};
    r.circuit_id = a.circuit_id;
    if (!a.wtns.empty()) {
      auto w = read_file(a.wtns);
      if (!w) return Error{"--wtns: " + w.error()};
      r.witness_wtns = std::move(*w);
    }
    r.witness_path = a.wtns_path;
  }
  return r;
}

Result<std::unique_ptr<Client>> connect(const Global& g) {
  auto max = engine::parse_size(g.max_message);
  if (!max) return Error{"--max-message-size: " + max.error()};
  return Client::connect(g.addr, *max);
}

json timings_json(const engine::JobResult& r) {
  json parts = json::array();
  for (const auto& p : r.partitions) {
    parts.push_back({{"index", p.index},
                     {"queued_us", p.queued},
                     {"dispatched_us", p.dispatched},
                     {"synth_start_us", p.synth_start},
                     {"synth_end_us", p.synth_end},
                     {"backend_start_us", p.backend_start},
                     {"backend_locked_us", p.backend_locked},
                     {"backend_end_us", p.backend_end},
                     {"finalize_start_us", p.finalize_start},
                     {"finalize_end_us", p.finalize_end},
                     {"synth_worker", p.synth_worker},
                     {"backend_worker", p.backend_worker},
                     {"finalizer", p.finalizer},
                     {"device", p.device}});
  }
  return {{"total_ms", r.total_ms},       {"queue_ms", r.queue_wait_ms}, {"srs_ms", r.srs_load_ms},
          {"synth_ms", r.synthesis_ms},   {"gpu_ms", r.gpu_compute_ms},  {"verify_ms", r.verify_ms},
          {"submitted_us", r.submitted},  {"completed_us", r.completed}, {"partitions", parts}};
}

Status write_timeline(const std::string& path, const std::vector<TimelineJob>& jobs, const std::string& title) {
  std::ofstream f(path, std::ios::binary);
  if (!f) return Error{"--timeline: cannot write " + path};
  f << render_timeline_svg(jobs, title);
  if (!f) return Error{"--timeline: cannot write " + path};
  return ok_status();
}

// ---------------------------------------------------------------- single

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
    if (auto st = write_timeline(a.timeline, {{"#1", *r}}, "cuzk-bench single: " + kind_table().name(req->proof_kind)); !st) {
      return usage_error(st.error());
    }
  }
  const bool ok = r->status == engine::ResultStatus::kCompleted;
  if (ok && !a.out.empty()) {
    std::ofstream f(a.out, std::ios::binary | std::ios::trunc);
    f.write(r->proof.data(), std::streamsize(r->proof.size()));
    if (!f.flush()) return usage_error("--out: cannot write " + a.out);
  }
  if (g.json) {
    json j = {{"status", engine::status_name(r->status)}, {"job_id", r->job_id}, {"wall_ms", wall_ms},
              {"proof_bytes", r->proof.size()},            {"proof_hex", hex_encode(r->proof)},
              {"error", r->error},                         {"timings", timings_json(*r)}};
    std::printf("%s\n", j.dump(2).c_str());
    return ok ? 0 : 1;
  }
  std::printf("\n=== Proof Result ===\n");
  std::printf("status:    %s\n", engine::status_name(r->status));
  std::printf("job_id:    %s\n", r->job_id.c_str());
  if (ok) {
    std::printf("timings:   total=%llu ms (queue=%llu ms, srs=%llu ms, synth=%llu ms, gpu=%llu ms)\n",
                (unsigned long long)r->total_ms, (unsigned long long)r->queue_wait_ms, (unsigned long long)r->srs_load_ms,
                (unsigned long long)r->synthesis_ms, (unsigned long long)r->gpu_compute_ms);
    std::printf("wall time: %lld ms\n", (long long)wall_ms);
    std::string hex = r->proof.size() <= 256 ? hex_encode(r->proof) : hex_encode(r->proof.substr(0, 128)) + "...";
    std::printf("proof:     %zu bytes (hex: %s)\n", r->proof.size(), hex.c_str());
  } else {
    std::printf("error:     %s\n", r->error.c_str());
  }
  return ok ? 0 : 1;
}

// ---------------------------------------------------------------- batch

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
  std::ofstream index(a.proofs_dir + "/index.tsv", std::ios::trunc);
  for (const auto& p : proofs) {
    const std::string file = a.proofs_dir + "/proof-" + std::to_string(p.index) + ".bin";
    std::ofstream f(file, std::ios::binary | std::ios::trunc);
    f.write(p.proof.data(), std::streamsize(p.proof.size()));
    if (!f.flush()) return Error{"--proofs-dir: cannot write " + file};
    index << p.index << '\t' << p.job_id << '\t' << p.input << '\t' << file << '\n';
  }
  if (!index.flush()) return Error{"--proofs-dir: cannot write " + a.proofs_dir + "/index.tsv"};
  return ok_status();
}

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
          std::printf("  [%u/%u] %s \u2014 %.1fs (prove=%llu ms, queue=%llu ms)\n", printed + 1, a.count, label, it.wall_s,
                      (unsigned long long)it.result.gpu_compute_ms, (unsigned long long)it.result.queue_wait_ms);
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
      j["per_partition_s"] = {{"synthesis", synth_s / parts}, {"device_wait", wait_s / parts},
                              {"device", device_s / parts}, {"finalize", fin_s / parts}};
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
    std::printf("pipeline:      per partition synth=%.3fs device-wait=%.3fs device=%.3fs finalize=%.3fs; device busy %.0f%%\n",
                synth_s / parts, wait_s / parts, device_s / parts, fin_s / parts, 100.0 * device_s / total_s);
  }
  if (peak_rss) std::printf("daemon memory: rss=%s peak=%s\n", engine::format_bytes(rss).c_str(), engine::format_bytes(peak_rss).c_str());
  if (!a.timeline.empty()) std::printf("timeline:      %s\n", a.timeline.c_str());
  return failed ? 1 : 0;
}

// ---------------------------------------------------------------- status and the small commands

int run_status(const Global& g) {
  auto client = connect(g);
  if (!client) return usage_error(client.error());
  auto s = (*client)->status();
  if (!s) return usage_error(s.error());
  if (g.json) {
    json gpus = json::array(), srs = json::array(), queues = json::array(), workers = json::array();
    for (auto& x : s->gpus) gpus.push_back({{"ordinal", x.ordinal}, {"name", x.name}, {"current_job_id", x.job_id}, {"current_proof_kind", x.kind}});
    for (auto& x : s->srs) srs.push_back({{"circuit_id", x.id}, {"tier", x.tier}, {"tier_name", x.tier_name}, {"size_bytes", x.bytes}, {"ref_count", x.refs}});
    for (auto& x : s->queues) queues.push_back({{"proof_kind", x.kind}, {"pending", x.pending}, {"in_progress", x.in_progress}});
    for (auto& x : s->workers) workers.push_back({{"stage", x.stage}, {"worker_id", x.id}, {"device", x.device}, {"current_job_id", x.job_id}, {"busy_ms", x.busy_ms}, {"items_done", x.items_done}});
    json j = {{"uptime_seconds", s->uptime_s}, {"backend", s->backend}, {"draining", s->draining},
              {"total_proofs_completed", s->completed}, {"total_proofs_failed", s->failed},
              {"total_proofs_cancelled", s->cancelled}, {"jobs_queued", s->jobs_queued}, {"jobs_running", s->jobs_running},
              {"memory", {{"budget_bytes", s->budget}, {"used_bytes", s->used}, {"peak_bytes", s->peak},
                          {"srs_bytes", s->srs_bytes}, {"partition_bytes", s->partition_bytes}, {"waiters", s->waiters},
                          {"process_rss_bytes", s->rss}, {"process_peak_rss_bytes", s->peak_rss}}},
              {"gpus", gpus}, {"loaded_srs", srs}, {"queues", queues}, {"workers", workers}};
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("=== cuzk daemon status ===\n");
  std::printf("uptime:           %llus\n", (unsigned long long)s->uptime_s);
  std::printf("proofs completed: %llu\n", (unsigned long long)s->completed);
  std::printf("proofs failed:    %llu\n", (unsigned long long)s->failed);
  std::printf("pinned memory:    %llu / %llu bytes\n", (unsigned long long)s->pinned, (unsigned long long)s->pinned_limit);
  std::printf("\nGPUs:\n");
  for (auto& x : s->gpus) {
    std::string state = x.job_id.empty() ? "idle" : "proving " + x.kind + " (" + x.job_id.substr(0, 8) + ")";
    std::printf("  [%u] %s \u2014 %llu MiB / %llu MiB VRAM \u2014 %s\n", x.ordinal, x.name.c_str(),
                (unsigned long long)(x.vram_free >> 20), (unsigned long long)(x.vram_total >> 20), state.c_str());
  }
  std::printf("\nLoaded SRS:\n");
  for (auto& x : s->srs) {
    std::printf("  %s (tier=%d, size=%llu bytes, refs=%u)\n", x.id.c_str(), x.tier, (unsigned long long)x.bytes, x.refs);
  }
  std::printf("\nQueues:\n");
  for (auto& x : s->queues) std::printf("  %s: pending=%u, in_progress=%u\n", x.kind.c_str(), x.pending, x.in_progress);
  // Beyond the Rust bench's output: the engine's memory and pipeline numbers.
  std::printf("\nMemory:\n");
  std::printf("  budget %s, used %s (keys %s, partitions %s), peak %s, %u waiting\n", engine::format_bytes(s->budget).c_str(),
              engine::format_bytes(s->used).c_str(), engine::format_bytes(s->srs_bytes).c_str(),
              engine::format_bytes(s->partition_bytes).c_str(), engine::format_bytes(s->peak).c_str(), s->waiters);
  std::printf("  process rss %s, peak rss %s\n", engine::format_bytes(s->rss).c_str(), engine::format_bytes(s->peak_rss).c_str());
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
    std::printf("%s\n", json{{"circuit_id", id}, {"already_loaded", r->already_loaded}, {"load_time_ms", r->load_ms}}.dump().c_str());
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
    std::printf("%s\n", json{{"circuit_id", id}, {"was_loaded", r->was_loaded}, {"freed_bytes", r->freed_bytes}}.dump().c_str());
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
    std::printf("%s\n", json{{"circuit_id", id}, {"replaced", r->replaced}, {"num_public", r->n_public},
                             {"num_vars", r->n_vars}, {"num_constraints", r->n_constraints},
                             {"domain_size", r->domain_size}, {"load_time_ms", r->load_ms}}
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

void add_proof_options(CLI::App* sub, ProofArgs& a, bool batch) {
  sub->add_option("-t,--type", a.type, "porep, snap, wpost, winning or generic")->required();
  if (batch) {
    sub->add_option("--c1", a.c1, "PoRep: a C1 file (Curio's wrapper JSON, C1 JSON or bincode); repeat it to cycle over sectors");
  } else {
    sub->add_option("--c1", a.c1, "PoRep: a C1 file (Curio's wrapper JSON, C1 JSON or bincode)");
    sub->add_option("--out", a.out, "write the proof bytes (192 per partition) to this file");
  }
  sub->add_option("--vanilla", a.vanilla, "PoSt/Snap: JSON array of base64 vanilla proofs (or one raw proof)");
  sub->add_option("--registered-proof", a.registered_proof, "registered proof type")->capture_default_str();
  sub->add_option("--sector-num", a.sector_num, "sector number")->capture_default_str();
  sub->add_option("--miner-id", a.miner_id, "miner actor id")->capture_default_str();
  sub->add_option("--sector-size", a.sector_size, "sector size in bytes (0: taken from the input)")->capture_default_str();
  if (!batch) sub->add_option("--partition", a.partition, "WindowPoSt partition index")->capture_default_str();
  sub->add_option("--randomness", a.randomness, "32 bytes hex (PoSt; zeros when omitted)");
  sub->add_option("--comm-r-old", a.comm_r_old, "Snap: 32 bytes hex");
  sub->add_option("--comm-r-new", a.comm_r_new, "Snap: 32 bytes hex");
  sub->add_option("--comm-d-new", a.comm_d_new, "Snap: 32 bytes hex");
  sub->add_option("--circuit-id", a.circuit_id, "generic: a circuit registered with the daemon");
  sub->add_option("--wtns", a.wtns, "generic: .wtns file, sent with the request");
  sub->add_option("--wtns-path", a.wtns_path, "generic: .wtns path the daemon reads itself");
  sub->add_option("--priority", a.priority, "low, normal, high or critical (default: the kind's default)");
  sub->add_option("--request-id", a.request_id,
                  batch ? "request id prefix (ids become PREFIX-1..N; default: a fresh UUID each)"
                        : "request id (default: a fresh UUID)");
  sub->add_option("--timeline", a.timeline, "write the pipeline waterfall of the run as an SVG file");
  if (batch) {
    sub->add_option("-c,--count", a.count, "number of proofs")->capture_default_str();
    sub->add_option("-j,--concurrency", a.concurrency, "proofs in flight at once")->capture_default_str();
    sub->add_option("--proofs-dir", a.proofs_dir, "write each completed proof to DIR/proof-N.bin, listed in DIR/index.tsv");
  }
}

}  // namespace
}  // namespace cuzk::bench

int main(int argc, char** argv) {
  using namespace cuzk::bench;
  CLI::App app{"cuzk-bench: drive and measure a cuzk-daemon"};
  app.require_subcommand(1);
  Global g;
  app.add_option("-a,--addr", g.addr, "daemon address: unix:///path, host:port or http://host:port")->capture_default_str();
  app.add_option("--log-level", g.log_level, "accepted for compatibility");
  app.add_option("--max-message-size", g.max_message, "gRPC message limit")->capture_default_str();
  app.add_flag("--json", g.json, "machine-readable output (one JSON document)");
  int rc = 0;

  ProofArgs single_args, batch_args;
  auto* single = app.add_subcommand("single", "prove once and print the result");
  add_proof_options(single, single_args, false);
  single->callback([&] { rc = run_single(g, single_args); });
  auto* batch = app.add_subcommand("batch", "prove --count times, --concurrency at once, and summarize");
  add_proof_options(batch, batch_args, true);
  batch->callback([&] { rc = run_batch(g, batch_args); });

  app.add_subcommand("status", "daemon status")->callback([&] { rc = run_status(g); });
  app.add_subcommand("metrics", "Prometheus metrics text")->callback([&] { rc = run_metrics(g); });
  std::string circuit;
  auto* preload = app.add_subcommand("preload", "load a proving key (SRS) now");
  preload->add_option("-c,--circuit-id", circuit, "e.g. porep-32g or a registered circuit id")->required();
  preload->callback([&] { rc = run_preload(g, circuit); });
  auto* evict = app.add_subcommand("evict", "drop a loaded proving key that no job uses");
  evict->add_option("-c,--circuit-id", circuit, "circuit id")->required();
  evict->callback([&] { rc = run_evict(g, circuit); });
  std::string job;
  auto* cancel = app.add_subcommand("cancel", "cancel a queued or running job");
  cancel->add_option("job_id", job, "job id (the request id)")->required();
  cancel->callback([&] { rc = run_cancel(g, job); });
  std::string zkey;
  bool reg_preload = false;
  auto* reg = app.add_subcommand("register", "register a snarkjs .zkey for generic proofs");
  reg->add_option("--circuit-id", circuit, "id to register it under")->required();
  reg->add_option("--zkey", zkey, ".zkey path (read by the daemon)")->required();
  reg->add_flag("--preload", reg_preload, "load it now");
  reg->callback([&] { rc = run_register(g, circuit, zkey, reg_preload); });

  std::uint32_t constraints = 0;
  std::string out_dir, gen_id = "chain";
  std::uint64_t seed = 1;
  auto* gen = app.add_subcommand("gen-circuit", "write a TEST-ONLY benchmark circuit: DIR/ID.zkey and DIR/ID.wtns");
  gen->add_option("--constraints", constraints, "number of constraints")->required();
  gen->add_option("--out", out_dir, "output directory")->required();
  gen->add_option("--id", gen_id, "file stem")->capture_default_str();
  gen->add_option("--seed", seed, "seed of the (public, test-only) toxic waste")->capture_default_str();
  gen->callback([&] {
    auto r = gen_circuit(constraints, out_dir, gen_id, seed);
    if (!r) {
      rc = usage_error(r.error());
      return;
    }
    std::printf("wrote %s and %s: %u constraints, %u variables, %.1fs\n", r->zkey.c_str(), r->wtns.c_str(),
                r->constraints, r->variables, r->seconds);
  });

  CLI11_PARSE(app, argc, argv);
  return rc;
}
