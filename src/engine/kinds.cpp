// The job kinds built in today: generic-groth16, and the Filecoin kinds' input validation.
#include <cstring>
#include <filesystem>
#include <mutex>

#include <nlohmann/json.hpp>

#include "engine/job_kind.hpp"
#include "engine/units.hpp"
#include "formats/snarkjs_wtns.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine {
namespace {

// ---------------------------------------------------------------- generic-groth16

class GenericPrepared final : public PreparedJob {
 public:
  GenericPrepared(std::shared_ptr<const ProofRequest> req, SrsLease lease, std::uint64_t witness_file_bytes)
      : req_(std::move(req)), lease_(std::move(lease)), witness_file_bytes_(witness_file_bytes) {}

  std::uint32_t num_partitions() const override { return 1; }

  // The CPU backend's working set, from the buffers it allocates: the witness (n_vars Fr), the row
  // evaluations a, b, c padded to the domain (3m Fr, reused in place for H), at most two selected
  // scalar vectors alive at once, and the MSM buckets; plus the .wtns bytes while they are parsed.
  PartitionMemory partition_memory(std::uint32_t) const override {
    const auto& k = lease_.key();
    const std::uint64_t fr = sizeof(math::Fr);
    const std::uint64_t m = std::uint64_t(1) << k.pk.domain_log2;
    std::uint64_t full = fr * k.n_vars            // witness
                         + fr * 3 * m             // a, b, c
                         + fr * 2 * k.n_vars      // scalar selections
                         + witness_file_bytes_    // .wtns image while parsing
                         + (4u << 20);            // MSM buckets, bookkeeping
    return {full, 64u << 10};
  }

  Result<SynthesizedPartition> synthesize(std::uint32_t, const CancelToken& cancel) override {
    const auto& k = lease_.key();
    Result<std::vector<math::Fr>> w = req_->witness_path.empty()
                                          ? formats::parse_wtns(std::span<const std::uint8_t>(
                                                                    reinterpret_cast<const std::uint8_t*>(
                                                                        req_->witness_wtns.data()),
                                                                    req_->witness_wtns.size()),
                                                                "witness_wtns")
                                          : formats::read_wtns(req_->witness_path);
    if (!w) return Error{"generic-groth16: " + w.error()};
    if (cancel.cancelled()) return Error{"cancelled"};
    if (w->size() != k.n_vars) {
      return Error{"generic-groth16: the witness has " + std::to_string(w->size()) + " values but circuit \"" + k.id +
                   "\" has " + std::to_string(k.n_vars) + " variables"};
    }
    {
      std::lock_guard<std::mutex> g(mu_);
      public_inputs_.assign(w->begin() + 1, w->begin() + 1 + std::ptrdiff_t(k.n_public));
    }
    SynthesizedPartition s;
    s.shape = &k.shape;
    s.key = &k.pk;
    s.witness = std::move(*w);
    return s;
  }

  const groth16::ProvingKey& key(std::uint32_t) const override { return lease_.key().pk; }

  Status verify(std::span<const groth16::Proof> proofs) override {
    if (proofs.size() != 1) return Error{"generic-groth16: expected one proof"};
    std::vector<math::Fr> pub;
    {
      std::lock_guard<std::mutex> g(mu_);
      pub = public_inputs_;
    }
    auto ok = groth16::verify(lease_.key().pk.vk, pub, proofs[0]);
    if (!ok) return Error{"generic-groth16: self-check: " + ok.error()};
    if (!*ok) {
      return Error{"generic-groth16: self-check failed: the witness does not satisfy circuit \"" + lease_.key().id +
                   "\" (the proof does not verify)"};
    }
    return ok_status();
  }

  std::string circuit_id() const override { return lease_.key().id; }

 private:
  std::shared_ptr<const ProofRequest> req_;
  SrsLease lease_;
  std::uint64_t witness_file_bytes_;
  std::mutex mu_;
  std::vector<math::Fr> public_inputs_;
};

class GenericGroth16Kind final : public JobKind {
 public:
  std::string name() const override { return "generic-groth16"; }

  Result<std::unique_ptr<PreparedJob>> prepare(std::shared_ptr<const ProofRequest> req,
                                               PrepareContext& ctx) override {
    const std::string k = "generic-groth16: ";
    if (req->circuit_id.empty()) return Error{k + "circuit_id is empty (register a .zkey and name it)"};
    const bool has_bytes = !req->witness_wtns.empty(), has_path = !req->witness_path.empty();
    if (has_bytes == has_path) return Error{k + "give exactly one of witness_wtns (bytes) or witness_path"};
    std::uint64_t wbytes = req->witness_wtns.size();
    if (has_path) {
      if (!ctx.allow_witness_paths) return Error{k + "witness_path is disabled on this daemon; send witness_wtns"};
      std::error_code ec;
      auto n = std::filesystem::file_size(req->witness_path, ec);
      if (ec) return Error{k + "witness_path " + req->witness_path + ": " + ec.message()};
      wbytes = n;
    }
    // Cheap header check before the key is loaded: the wtns magic.
    if (has_bytes && (req->witness_wtns.size() < 4 || std::memcmp(req->witness_wtns.data(), "wtns", 4) != 0)) {
      return Error{k + "witness_wtns is not a .wtns file (bad magic)"};
    }
    auto lease = ctx.srs.acquire(req->circuit_id, ctx.cancel.as_function(), &ctx.srs_load_ms);
    if (!lease) return Error{k + lease.error()};
    if (!(*lease)->has_proving_key) {
      return Error{k + "circuit \"" + req->circuit_id + "\" is a Filecoin parameter set, not a .zkey"};
    }
    return std::unique_ptr<PreparedJob>(std::make_unique<GenericPrepared>(req, std::move(*lease), wbytes));
  }
};

// ---------------------------------------------------------------- Filecoin kinds (validation only)

bool is_base64(const std::string& s) {
  if (s.empty() || s.size() % 4 != 0) return false;
  std::size_t pad = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '=') {
      ++pad;
      if (i + 2 < s.size()) return false;
      continue;
    }
    if (pad) return false;
    if (!(std::isalnum(c) || c == '+' || c == '/')) return false;
  }
  return pad <= 2;
}

std::string decode_base64_prefix(const std::string& s, std::size_t max_out) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i + 3 < s.size() && out.size() < max_out; i += 4) {
    int v[4];
    for (int j = 0; j < 4; ++j) v[j] = val(s[i + j]);
    if (v[0] < 0 || v[1] < 0) break;
    out.push_back(char((v[0] << 2) | (v[1] >> 4)));
    if (v[2] >= 0) out.push_back(char(((v[1] & 15) << 4) | (v[2] >> 2)));
    if (v[3] >= 0) out.push_back(char(((v[2] & 3) << 6) | v[3]));
  }
  return out;
}

bool published_sector_size(std::uint64_t s) {
  return s == 2048 || s == (8ull << 20) || s == (512ull << 20) || s == (32ull << 30) || s == (64ull << 30);
}

Status check_32(const std::string& kind, const char* field, const std::string& v) {
  if (v.size() != 32) {
    return Error{kind + ": " + field + " must be 32 bytes, got " + std::to_string(v.size())};
  }
  return ok_status();
}

Status validate_porep(const ProofRequest& r) {
  const std::string k = "porep-c2";
  if (r.vanilla_proof.empty()) {
    return Error{k + ": vanilla_proof is empty (expected Curio's C1 wrapper JSON {SectorNum, Phase1Out, SectorSize})"};
  }
  nlohmann::json j = nlohmann::json::parse(r.vanilla_proof, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Error{k + ": vanilla_proof is not a JSON object (expected Curio's C1 wrapper {SectorNum, Phase1Out, SectorSize})"};
  }
  for (const char* key : {"SectorNum", "Phase1Out", "SectorSize"}) {
    if (!j.contains(key)) return Error{k + ": vanilla_proof: missing \"" + key + "\""};
  }
  if (!j["SectorNum"].is_number_unsigned()) return Error{k + ": vanilla_proof: \"SectorNum\" is not an unsigned integer"};
  if (!j["SectorSize"].is_number_unsigned()) return Error{k + ": vanilla_proof: \"SectorSize\" is not an unsigned integer"};
  if (!j["Phase1Out"].is_string()) return Error{k + ": vanilla_proof: \"Phase1Out\" is not a base64 string"};
  const auto& p1 = j["Phase1Out"].get_ref<const std::string&>();
  if (!is_base64(p1)) return Error{k + ": vanilla_proof: \"Phase1Out\" is not valid base64"};
  std::string head = decode_base64_prefix(p1, 16);
  std::size_t i = 0;
  while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  if (i >= head.size() || head[i] != '{') {
    return Error{k + ": vanilla_proof: \"Phase1Out\" does not decode to a JSON object (SealCommitPhase1Output)"};
  }
  std::uint64_t ss = j["SectorSize"].get<std::uint64_t>();
  if (!published_sector_size(ss)) {
    return Error{k + ": vanilla_proof: SectorSize " + std::to_string(ss) + " is not a Filecoin sector size"};
  }
  if (r.sector_size != 0 && r.sector_size != ss) {
    return Error{k + ": sector_size " + std::to_string(r.sector_size) + " disagrees with the C1 wrapper's SectorSize " +
                 std::to_string(ss)};
  }
  return ok_status();
}

Status validate_snap(const ProofRequest& r) {
  const std::string k = "snap-update";
  if (r.vanilla_proofs.empty()) return Error{k + ": vanilla_proofs is empty (expected one proof per partition)"};
  for (std::size_t i = 0; i < r.vanilla_proofs.size(); ++i) {
    if (r.vanilla_proofs[i].empty()) return Error{k + ": vanilla_proofs[" + std::to_string(i) + "] is empty"};
  }
  if (auto st = check_32(k, "comm_r_old", r.comm_r_old); !st) return st;
  if (auto st = check_32(k, "comm_r_new", r.comm_r_new); !st) return st;
  if (auto st = check_32(k, "comm_d_new", r.comm_d_new); !st) return st;
  if (r.sector_size != 0 && !published_sector_size(r.sector_size)) {
    return Error{k + ": sector_size " + std::to_string(r.sector_size) + " is not a Filecoin sector size"};
  }
  return ok_status();
}

Status validate_post(const ProofRequest& r, const std::string& k) {
  if (auto st = check_32(k, "randomness", r.randomness); !st) return st;
  if (r.vanilla_proofs.empty()) return Error{k + ": vanilla_proofs is empty (expected one proof per sector)"};
  for (std::size_t i = 0; i < r.vanilla_proofs.size(); ++i) {
    if (r.vanilla_proofs[i].empty()) return Error{k + ": vanilla_proofs[" + std::to_string(i) + "] is empty"};
  }
  if (r.sector_size != 0 && !published_sector_size(r.sector_size)) {
    return Error{k + ": sector_size " + std::to_string(r.sector_size) + " is not a Filecoin sector size"};
  }
  return ok_status();
}

class UnsupportedFilecoinKind final : public JobKind {
 public:
  explicit UnsupportedFilecoinKind(ProofKind k) : kind_(k) {}
  std::string name() const override { return kind_name(kind_); }
  Result<std::unique_ptr<PreparedJob>> prepare(std::shared_ptr<const ProofRequest> req, PrepareContext&) override {
    Status st = ok_status();
    switch (kind_) {
      case ProofKind::kPoRepC2: st = validate_porep(*req); break;
      case ProofKind::kSnapUpdate: st = validate_snap(*req); break;
      case ProofKind::kWindowPoSt: st = validate_post(*req, "window-post"); break;
      case ProofKind::kWinningPoSt: st = validate_post(*req, "winning-post"); break;
      default: break;
    }
    if (!st) return Error{st.error()};
    return Error{"not supported yet: " + name() +
                 " (this daemon has no Filecoin circuits yet; only generic-groth16 jobs can be proved)"};
  }

 private:
  ProofKind kind_;
};

}  // namespace

std::shared_ptr<JobKind> make_generic_groth16_kind() { return std::make_shared<GenericGroth16Kind>(); }
std::shared_ptr<JobKind> make_unsupported_filecoin_kind(ProofKind kind) {
  return std::make_shared<UnsupportedFilecoinKind>(kind);
}

}  // namespace cuzk::engine
