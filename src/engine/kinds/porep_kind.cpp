// PoRep C2 job kind (see porep_kind.hpp): a thin adapter of filecoin::porep::PorepJob (which holds
// all the PoRep logic, shared with `cuzk prove-porep`) to engine::PreparedJob.
#include "engine/kinds/porep_kind.hpp"

#include "engine/kinds/filecoin_keys.hpp"
#include "filecoin/porep/porep_job.hpp"

namespace cuzk::engine::kinds {
namespace {

namespace porep = filecoin::porep;

const std::string kName = "porep-c2";

// The engine's view of a porep::PorepJob: the key comes from the SrsManager, everything else from the job.
class PorepPrepared final : public PreparedJob {
 public:
  PorepPrepared(porep::PorepJob job, SrsLease lease, bool device_backend)
      : job_(std::move(job)), lease_(std::move(lease)), device_backend_(device_backend) {}

  std::uint32_t num_partitions() const override { return job_.partitions(); }

  // The model and its measurements: porep::PorepJob::partition_memory.
  PartitionMemory partition_memory(std::uint32_t) const override {
    const auto m = job_.partition_memory(lease_->shape, lease_->pk.domain_log2, device_backend_);
    return {m.full, m.after_start};
  }

  Result<SynthesizedPartition> synthesize(std::uint32_t k, const CancelToken& cancel) override {
    if (cancel.cancelled()) return Error{"cancelled"};
    auto w = job_.synthesize(k, lease_->shape, cancel.as_function());
    if (!w) return Error{kName + ": partition " + std::to_string(k) + ": " + w.error()};
    SynthesizedPartition s;
    s.shape = &lease_->shape;
    s.key = &lease_->pk;
    s.witness = std::move(*w);
    return s;
  }

  const groth16::ProvingKey& key(std::uint32_t) const override { return lease_->pk; }

  Status verify(std::span<const groth16::Proof> proofs) override {
    std::size_t failed = 0;
    auto ok = job_.verify(lease_->pk.vk, proofs, &failed);
    if (!ok) return Error{kName + ": self-check: " + ok.error()};
    if (!*ok) return Error{kName + ": self-check failed: partition " + std::to_string(failed) + " does not verify"};
    return ok_status();
  }

  std::string circuit_id() const override { return lease_->id; }

 private:
  porep::PorepJob job_;
  SrsLease lease_;
  bool device_backend_ = false;  // the backend keeps the prover's buffers on the device
};

class PorepC2Kind final : public JobKind {
 public:
  std::string name() const override { return kName; }

  Result<std::unique_ptr<PreparedJob>> prepare(std::shared_ptr<const ProofRequest> req, PrepareContext& ctx) override {
    const std::string k = kName + ": ";
    if (req->vanilla_proof.empty()) {
      return Error{k + "vanilla_proof is empty (expected a C1: Curio's wrapper JSON {SectorNum, Phase1Out, SectorSize}, "
                       "the C1 JSON or bincode)"};
    }
    auto job = porep::PorepJob::prepare(
        std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(req->vanilla_proof.data()),
                                      req->vanilla_proof.size()),
        req->sector_size, ctx.cancel.as_function());
    if (ctx.cancel.cancelled()) return Error{"cancelled"};
    if (!job) return Error{k + "vanilla_proof: " + job.error()};

    auto id = kinds::filecoin_key_id("porep", job->sector_size());
    if (!id) return Error{k + id.error()};
    auto lease = ctx.srs.acquire(*id, ctx.cancel.as_function(), &ctx.srs_load_ms);
    if (!lease) return Error{k + lease.error()};
    if (!(*lease)->has_proving_key) return Error{k + "proving key " + *id + " has no decoded proving key"};
    if (auto st = job->check_key((*lease)->shape); !st) return Error{k + "proving key " + *id + ": " + st.error()};
    return std::unique_ptr<PreparedJob>(
        std::make_unique<PorepPrepared>(std::move(*job), std::move(*lease), ctx.backend == "cuda"));
  }
};

}  // namespace

std::shared_ptr<JobKind> make_porep_c2_kind() { return std::make_shared<PorepC2Kind>(); }

}  // namespace cuzk::engine::kinds

