// See common.hpp.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "apps/cuzk-bench/common.hpp"
#include "apps/common/input_file.hpp"
#include "base/hex.hpp"
#include "formats/binfile.hpp"
#include "server/auth.hpp"
#include "filecoin/common/vanilla_file.hpp"
#include "engine/kinds/builtin_kinds.hpp"
#include "engine/process_memory.hpp"
#include "engine/units.hpp"

namespace cuzk::bench {

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

Result<std::string> hex_decode(const std::string& flag, std::string_view h) {
  if (h.size() >= 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) h.remove_prefix(2);
  if (h.size() % 2) return Error{flag + ": odd number of hex digits"};
  std::string out(h.size() / 2, '\0');
  if (auto st = hex_decode_into(h, std::span(reinterpret_cast<std::uint8_t*>(out.data()), out.size())); !st)
    return Error{flag + ": " + st.error()};
  return out;
}

std::string hex_encode(const std::string& b) {
  return cuzk::hex_encode(std::span(reinterpret_cast<const std::uint8_t*>(b.data()), b.size()));
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

// --registered-proof: a number as it is, else a name the kind's row knows (PoSt
// StackedDrgWindow32GiBV1_1, Snap StackedDrg32GiBV1); empty: the row's default (the 32 GiB codes).
static Result<std::uint64_t> registered_proof_code(const std::string& text, std::uint32_t kind) {
  const engine::KindRow* row = kind_table().find(kind);
  if (!row) return Error{"--registered-proof: unknown proof kind " + std::to_string(kind)};
  if (text.empty()) return row->default_registered_proof;
  std::uint64_t code = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), code);
  if (ec == std::errc() && end == text.data() + text.size()) return code;
  if (!row->registered_proof_by_name) return Error{"--registered-proof: expected a number, got '" + text + "'"};
  auto c = row->registered_proof_by_name(text);
  if (!c) return Error{"--registered-proof: " + c.error()};
  return *c;
}

// The request for the inputs of `a`, with the c1_index-th --c1 file.
Result<engine::ProofRequest> build_request(const ProofArgs& a, std::size_t c1_index) {
  auto kind = parse_type(a.type);
  if (!kind) return Error{kind.error()};
  const engine::KindRow* row = kind_table().find(*kind);
  if (!row) return Error{"unknown proof kind " + std::to_string(*kind)};
  engine::ProofRequest r;
  r.proof_kind = *kind;
  r.request_id = a.request_id;
  r.sector_size = a.sector_size;
  auto code = registered_proof_code(a.registered_proof, *kind);
  if (!code) return Error{code.error()};
  r.registered_proof = *code;
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
    auto blobs = filecoin::read_vanilla_blobs(std::span(reinterpret_cast<const std::uint8_t*>(v->data()), v->size()));
    if (!blobs) return Error{"--vanilla: " + a.vanilla + ": " + blobs.error()};
    for (const auto& b : *blobs) r.vanilla_proofs.emplace_back(b.begin(), b.end());
  }
  if (!a.randomness.empty()) {
    auto h = hex_decode("--randomness", a.randomness);
    if (!h) return Error{h.error()};
    r.randomness = *h;
  } else if (row->inputs.randomness) {
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
  if (row->inputs.witness) {
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
  Client::Access access;
  if (!g.token_file.empty()) {
    auto t = server::read_token_file(g.token_file);  // the daemon's rules: trimmed, not world-readable
    if (!t) return Error{"--token-file: " + t.error()};
    access.token = std::move(*t);
  }
  if (!g.tls_ca.empty()) {
    auto pem = formats::read_file_bytes(g.tls_ca, 1u << 20);
    if (!pem) return Error{"--tls-ca: " + pem.error()};
    access.tls_ca_pem.assign(pem->begin(), pem->end());
    if (access.tls_ca_pem.find("-----BEGIN ") == std::string::npos)
      return Error{"--tls-ca: " + g.tls_ca + ": not a PEM file"};
  }
  return Client::connect(g.addr, *max, access);
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
  return {{"total_ms", r.total_ms},      {"queue_ms", r.queue_wait_ms}, {"srs_ms", r.srs_load_ms},
          {"synth_ms", r.synthesis_ms},  {"gpu_ms", r.gpu_compute_ms},  {"verify_ms", r.verify_ms},
          {"submitted_us", r.submitted}, {"completed_us", r.completed}, {"partitions", parts}};
}

Status write_timeline(const std::string& path, const std::vector<TimelineJob>& jobs, const std::string& title) {
  const std::string svg = render_timeline_svg(jobs, title);
  if (auto st = formats::write_file_bytes(path, {reinterpret_cast<const std::uint8_t*>(svg.data()), svg.size()}); !st) {
    return Error{"--timeline: " + st.error()};
  }
  return ok_status();
}

void add_proof_options(CLI::App* sub, ProofArgs& a, bool batch) {
  sub->add_option("-t,--type", a.type, "porep, snap, wpost, winning or generic")->required();
  if (batch) {
    sub->add_option("--c1", a.c1,
                    "PoRep: a C1 file (Curio's wrapper JSON, C1 JSON or bincode); repeat it to cycle over sectors")
        ->check(apps::InputFile);
  } else {
    sub->add_option("--c1", a.c1, "PoRep: a C1 file (Curio's wrapper JSON, C1 JSON or bincode)")
        ->check(apps::InputFile);
    sub->add_option("-o,--out", a.out, "write the proof bytes (192 per partition) to this file");
  }
  sub->add_option("--vanilla", a.vanilla, "PoSt/Snap: JSON array of base64 vanilla proofs (or one raw proof)")
      ->check(apps::InputFile);
  sub->add_option("--registered-proof", a.registered_proof,
                  "registered proof: a number, or for PoSt/Snap a name (default: wpost 13, winning 3, snap 3, else 0)");
  sub->add_option("--sector-num", a.sector_num, "sector number")->capture_default_str();
  sub->add_option("--miner-id", a.miner_id, "miner actor id")->capture_default_str();
  sub->add_option("--sector-size", a.sector_size, "sector size in bytes (0: taken from the input)")
      ->capture_default_str();
  sub->add_option("--partition", a.partition, "WindowPoSt partition index")->capture_default_str();
  sub->add_option("--randomness", a.randomness, "32 bytes hex (PoSt; zeros when omitted)");
  sub->add_option("--comm-r-old", a.comm_r_old, "Snap: 32 bytes hex");
  sub->add_option("--comm-r-new", a.comm_r_new, "Snap: 32 bytes hex");
  sub->add_option("--comm-d-new", a.comm_d_new, "Snap: 32 bytes hex");
  sub->add_option("--circuit-id", a.circuit_id, "generic: a circuit registered with the daemon");
  sub->add_option("--wtns", a.wtns, "generic: .wtns file, sent with the request")->check(apps::InputFile);
  sub->add_option("--wtns-path", a.wtns_path, "generic: .wtns path the daemon reads itself");
  sub->add_option("--priority", a.priority, "low, normal, high or critical (default: the kind's default)");
  sub->add_option("--request-id", a.request_id,
                  batch ? "request id prefix (ids become PREFIX-1..N; default: a fresh UUID each)"
                        : "request id (default: a fresh UUID)");
  sub->add_option("--timeline", a.timeline, "write the pipeline waterfall of the run as an SVG file");
  if (batch) {
    sub->add_option("-c,--count", a.count, "number of proofs")->capture_default_str();
    sub->add_option("-j,--concurrency", a.concurrency, "proofs in flight at once")->capture_default_str();
    sub->add_option("--proofs-dir", a.proofs_dir,
                    "write each completed proof to DIR/proof-N.bin, listed in DIR/index.tsv");
  }
}

}  // namespace cuzk::bench
