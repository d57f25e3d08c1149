// WindowPoSt and WinningPoSt job kinds (see post_kind.hpp): thin adapters of filecoin::post::PostJob
// (which holds all the PoSt logic, shared with `cuzk prove-post`) to engine::PreparedJob, through the
// one adapter every family's job has (PartitionedPrepared, with one partition).
#include "engine/kinds/post_kind.hpp"

#include <algorithm>
#include <cstring>

#include "engine/kinds/filecoin_keys.hpp"
#include "engine/kinds/partitioned_prepared.hpp"
#include "filecoin/post/challenges.hpp"
#include "filecoin/post/config.hpp"
#include "filecoin/post/post_job.hpp"

namespace cuzk::engine::kinds {
namespace {

namespace post = filecoin::post;

std::string str(std::uint64_t x) { return std::to_string(x); }

class PostKind final : public JobKind {
 public:
  explicit PostKind(post::PostType type) : type_(type) {}

  std::string name() const override { return type_ == post::PostType::kWinning ? "winning-post" : "window-post"; }

  Result<std::unique_ptr<PreparedJob>> prepare(std::shared_ptr<const ProofRequest> req, PrepareContext& ctx) override {
    const std::string name = this->name();
    const std::string k = name + ": ";
    const bool winning = type_ == post::PostType::kWinning;
    const char* codes = winning ? "0-4" : "5-14";

    auto config = post::post_config_by_code(req->registered_proof);
    if (!config) return Error{k + "registered_proof: " + config.error()};
    const post::PostConfig& cfg = **config;
    if (cfg.type != type_) {
      return Error{k + "registered_proof " + str(cfg.code) + " is " + cfg.name + ", a " + cfg.kind_name() + " proof (" +
                   name + " takes " + codes + ")"};
    }
    if (req->sector_size != 0 && req->sector_size != cfg.sector_size) {
      return Error{k + "sector_size " + str(req->sector_size) + " disagrees with registered_proof " + str(cfg.code) +
                   " (" + cfg.name + ": " + str(cfg.sector_size) + ")"};
    }
    if (req->randomness.size() != 32)
      return Error{k + "randomness must be 32 bytes, got " + str(req->randomness.size())};
    filecoin::Bytes32 randomness{};
    std::memcpy(randomness.data(), req->randomness.data(), 32);
    if (auto st = post::check_fr(randomness, "randomness"); !st) return Error{k + st.error()};

    // Counted before any blob is decoded.
    const std::size_t n = req->vanilla_proofs.size();
    if (n == 0) return Error{k + "vanilla_proofs is empty (expected one FallbackPoStSectorProof per sector)"};
    if (winning && n != 1)
      return Error{k + "vanilla_proofs: " + str(n) + " sector proofs, WinningPoSt proves exactly one sector"};
    if (n > cfg.sector_count) {
      return Error{k + "vanilla_proofs: " + str(n) + " sectors, more than the " + str(cfg.sector_count) + " of one " +
                   cfg.name + " partition"};
    }
    std::vector<std::span<const std::uint8_t>> blobs;
    blobs.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string& b = req->vanilla_proofs[i];
      if (b.empty()) return Error{k + "vanilla_proofs[" + str(i) + "] is empty"};
      blobs.emplace_back(reinterpret_cast<const std::uint8_t*>(b.data()), b.size());
    }

    auto job = post::PostJob::prepare(cfg, randomness, req->partition_index, blobs, ctx.cancel.as_function());
    if (ctx.cancel.cancelled()) return Error{"cancelled"};
    if (!job) return Error{k + job.error()};

    auto lease = acquire_proving_key(ctx, winning ? kWinningPostKeys : kWindowPostKeys, cfg.sector_size,
                                     [&](const groth16::R1csShape& sh) { return job->check_key(sh); });
    if (!lease) return Error{k + lease.error()};
    return std::unique_ptr<PreparedJob>(std::make_unique<PartitionedPrepared<post::PostJob>>(
        name, std::move(*job), std::move(*lease), ctx.memory_model == MemoryModel::kDevice));
  }

 private:
  post::PostType type_;
};

}  // namespace

std::shared_ptr<JobKind> make_window_post_kind() { return std::make_shared<PostKind>(post::PostType::kWindow); }
std::shared_ptr<JobKind> make_winning_post_kind() { return std::make_shared<PostKind>(post::PostType::kWinning); }

}  // namespace cuzk::engine::kinds
