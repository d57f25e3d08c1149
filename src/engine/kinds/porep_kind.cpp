// PoRep C2 job kind (see porep_kind.hpp): a thin adapter of filecoin::porep::PorepJob (which holds
// all the PoRep logic, shared with `cuzk prove-porep`) to engine::PreparedJob.
#include "engine/kinds/porep_kind.hpp"

#include "engine/kinds/filecoin_keys.hpp"
#include "engine/kinds/partitioned_prepared.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "filecoin/porep/porep_job.hpp"

namespace cuzk::engine::kinds {
namespace {

namespace porep = filecoin::porep;

const std::string kName = "porep-c2";

class PorepC2Kind final : public JobKind {
 public:
  std::string name() const override { return kName; }
  // The C1 parsers' measured bound (c1_io.hpp).
  std::uint64_t parse_bytes(const ProofRequest& req) const override {
    return porep::c1_parse_bytes(req.vanilla_proof.size());
  }

  Result<std::unique_ptr<PreparedJob>> prepare(std::shared_ptr<const ProofRequest> req, PrepareContext& ctx) override {
    const std::string k = kName + ": ";
    if (req->vanilla_proof.empty()) {
      return Error{k +
                   "vanilla_proof is empty (expected a C1: Curio's wrapper JSON {SectorNum, Phase1Out, SectorSize}, "
                   "the C1 JSON or bincode)"};
    }
    auto job = porep::PorepJob::prepare(
        std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(req->vanilla_proof.data()),
                                      req->vanilla_proof.size()),
        req->sector_size, ctx.cancel.as_function());
    if (ctx.cancel.cancelled()) return Error{"cancelled"};
    if (!job) return Error{k + "vanilla_proof: " + job.error()};

    auto lease = acquire_proving_key(ctx, kPorepKeys, job->sector_size(),
                                     [&](const groth16::R1csShape& sh) { return job->check_key(sh); });
    if (!lease) return Error{k + lease.error()};
    return std::unique_ptr<PreparedJob>(std::make_unique<PartitionedPrepared<porep::PorepJob>>(
        kName, std::move(*job), std::move(*lease), ctx.memory_model == MemoryModel::kDevice));
  }
};

}  // namespace

std::shared_ptr<JobKind> make_porep_c2_kind() { return std::make_shared<PorepC2Kind>(); }

}  // namespace cuzk::engine::kinds
