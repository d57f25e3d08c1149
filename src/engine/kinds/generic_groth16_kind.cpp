// generic-groth16 (see generic_groth16_kind.hpp).
#include "engine/kinds/generic_groth16_kind.hpp"

#include <cstring>
#include <filesystem>
#include <mutex>

#include "formats/snarkjs_wtns.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine::kinds {
namespace {

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
    std::uint64_t full = fr * k.n_vars          // witness
                         + fr * 3 * m           // a, b, c
                         + fr * 2 * k.n_vars    // scalar selections
                         + witness_file_bytes_  // .wtns image while parsing
                         + (4u << 20);          // MSM buckets, bookkeeping
    return {full, 64u << 10};
  }

  Result<SynthesizedPartition> synthesize(std::uint32_t, const CancelToken& cancel) override {
    const auto& k = lease_.key();
    Result<std::vector<math::Fr>> w =
        req_->witness_path.empty()
            ? formats::parse_wtns(
                  std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(req_->witness_wtns.data()),
                                                req_->witness_wtns.size()),
                  "witness_wtns")
            : formats::read_wtns(req_->witness_file ? req_->witness_file->path() : req_->witness_path);
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
    s.copies = &lease_.copies();
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
  // A .wtns is read as it is (32 bytes per value, the same size decoded): no DOM, no copy beyond it.
  std::uint64_t parse_bytes(const ProofRequest& req) const override {
    return req.witness_wtns.size() + (std::uint64_t(1) << 20);
  }

  Result<std::unique_ptr<PreparedJob>> prepare(std::shared_ptr<const ProofRequest> req, PrepareContext& ctx) override {
    const std::string k = "generic-groth16: ";
    if (req->circuit_id.empty()) return Error{k + "circuit_id is empty (register a .zkey and name it)"};
    const bool has_bytes = !req->witness_wtns.empty(), has_path = !req->witness_path.empty();
    if (has_bytes == has_path) return Error{k + "give exactly one of witness_wtns (bytes) or witness_path"};
    std::uint64_t wbytes = req->witness_wtns.size();
    if (has_path) {
      if (!ctx.allow_witness_paths) return Error{k + "witness_path is disabled on this daemon; send witness_wtns"};
      // The file the server checked and opened, when it did; the path only for in-process callers.
      const std::string at = req->witness_file ? req->witness_file->path() : req->witness_path;
      std::error_code ec;
      if (std::filesystem::exists(at, ec) && !std::filesystem::is_regular_file(at, ec))
        return Error{k + "witness_path " + req->witness_path + ": not a regular file"};
      auto n = std::filesystem::file_size(at, ec);
      if (ec) return Error{k + "witness_path " + req->witness_path + ": " + ec.message()};
      wbytes = n;
    }
    // Cheap header check before the key is loaded: the wtns magic.
    if (has_bytes && (req->witness_wtns.size() < 4 || std::memcmp(req->witness_wtns.data(), "wtns", 4) != 0)) {
      return Error{k + "witness_wtns is not a .wtns file (bad magic)"};
    }
    ctx.parse.reset();  // see acquire_proving_key
    auto lease = ctx.srs.acquire(req->circuit_id, ctx.cancel.as_function(), &ctx.srs_load_ms);
    if (!lease) return Error{k + lease.error()};
    if ((*lease)->format != KeyFormat::kZkey) {
      return Error{k + "circuit \"" + req->circuit_id + "\" is a Filecoin parameter set, not a .zkey"};
    }
    return std::unique_ptr<PreparedJob>(std::make_unique<GenericPrepared>(req, std::move(*lease), wbytes));
  }
};

}  // namespace

std::shared_ptr<JobKind> make_generic_groth16_kind() { return std::make_shared<GenericGroth16Kind>(); }

}  // namespace cuzk::engine::kinds
