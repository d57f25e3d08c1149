// SnapDeals job kind (see snap_kind.hpp): a thin adapter of filecoin::snap::SnapJob (which holds all
// the SnapDeals logic, shared with `cuzk prove-snap`) to engine::PreparedJob.
#include "engine/kinds/snap_kind.hpp"

#include <cstring>

#include "engine/kinds/filecoin_keys.hpp"
#include "engine/kinds/partitioned_prepared.hpp"
#include "filecoin/snap/config.hpp"
#include "filecoin/snap/snap_job.hpp"

namespace cuzk::engine::kinds {
namespace {

namespace snap = filecoin::snap;

const std::string kName = "snap-update";

std::string str(std::uint64_t x) { return std::to_string(x); }

Result<filecoin::Bytes32> commitment(const std::string& field, const std::string& v) {
  if (v.size() != 32) return Error{field + " must be 32 bytes, got " + str(v.size())};
  filecoin::Bytes32 b{};
  std::memcpy(b.data(), v.data(), 32);
  return b;
}

class SnapUpdateKind final : public JobKind {
 public:
  std::string name() const override { return kName; }

  Result<std::unique_ptr<PreparedJob>> prepare(std::shared_ptr<const ProofRequest> req, PrepareContext& ctx) override {
    const std::string k = kName + ": ";
    auto config = snap::update_config_by_code(req->registered_proof);
    if (!config) return Error{k + "registered_proof: " + config.error()};
    const snap::UpdateConfig& cfg = **config;
    if (req->sector_size != 0 && req->sector_size != cfg.sector_size) {
      return Error{k + "sector_size " + str(req->sector_size) + " disagrees with registered_proof " + str(cfg.code) +
                   " (" + cfg.name + ": " + str(cfg.sector_size) + ")"};
    }
    snap::SnapCommitments comms;
    for (auto [field, value, out] : {std::tuple{"comm_r_old", &req->comm_r_old, &comms.comm_r_old},
                                     std::tuple{"comm_r_new", &req->comm_r_new, &comms.comm_r_new},
                                     std::tuple{"comm_d_new", &req->comm_d_new, &comms.comm_d_new}}) {
      auto b = commitment(field, *value);
      if (!b) return Error{k + b.error()};
      *out = *b;
    }
    // Counted before any blob is decoded.
    const std::size_t n = req->vanilla_proofs.size();
    if (n != cfg.geometry.partitions) {
      return Error{k + "vanilla_proofs: " + str(n) + " partition proofs, " + cfg.name + " has " +
                   str(cfg.geometry.partitions) + " partitions"};
    }
    std::vector<std::span<const std::uint8_t>> blobs;
    blobs.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string& b = req->vanilla_proofs[i];
      if (b.empty()) return Error{k + "vanilla_proofs[" + str(i) + "] is empty"};
      blobs.emplace_back(reinterpret_cast<const std::uint8_t*>(b.data()), b.size());
    }

    auto job = snap::SnapJob::prepare(cfg.geometry, comms, blobs, ctx.cancel.as_function());
    if (ctx.cancel.cancelled()) return Error{"cancelled"};
    if (!job) return Error{k + job.error()};
    auto lease = acquire_proving_key(ctx, kSnapKeys, cfg.sector_size,
                                     [&](const groth16::R1csShape& s) { return job->check_key(s); });
    if (!lease) return Error{k + lease.error()};
    return std::unique_ptr<PreparedJob>(std::make_unique<PartitionedPrepared<snap::SnapJob>>(
        kName, std::move(*job), std::move(*lease), ctx.memory_model == MemoryModel::kDevice));
  }
};

}  // namespace

std::shared_ptr<JobKind> make_snap_update_kind() { return std::make_shared<SnapUpdateKind>(); }

}  // namespace cuzk::engine::kinds
