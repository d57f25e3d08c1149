// PoRep C2 job kind (see porep_kind.hpp). Built only when the C2 layer is linked
// (CUZK_ENGINE_HAVE_POREP); otherwise make_porep_c2_kind() returns null and the engine keeps the
// validation-only kind.
#include "engine/porep_kind.hpp"

#if CUZK_ENGINE_HAVE_POREP

#include "circuit/constraint_system.hpp"
#include "engine/kinds/filecoin_keys.hpp"
#include "filecoin/c2/c1_values.hpp"
#include "filecoin/c2/porep_prover.hpp"
#include "filecoin/c2/porep_shape.hpp"
#include "filecoin/c2/public_inputs.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "filecoin/porep/stacked_circuit.hpp"
#include "filecoin/sdr/graph.hpp"
#include "groth16/proof.hpp"

namespace cuzk::engine {
namespace {

namespace c2 = filecoin::c2;
namespace porep = filecoin::porep;
using math::Fr;

const std::string kName = "porep-c2";

class PorepPrepared final : public PreparedJob {
 public:
  // The parsed C1 replaces the request's bytes for everything after prepare.
  PorepPrepared(porep::C1Output c1, const porep::PorepConfig& config, SrsLease lease,
                std::vector<std::vector<Fr>> inputs, std::uint64_t compact_bytes, bool device_backend)
      : c1_(std::move(c1)),
        config_(config),
        lease_(std::move(lease)),
        inputs_(std::move(inputs)),
        compact_bytes_(compact_bytes),
        device_backend_(device_backend) {}

  std::uint32_t num_partitions() const override { return std::uint32_t(config_.partitions); }

  // The model, from the partition shape and the witness counts (Fr = 32 bytes; n = variables,
  // m = 2^domain_log2 rows; C = the compact witness: inputs and non-binary aux as Fr, two bitmaps):
  //   synthesis  the compact witness while it grows (vector doubling: <= 3C)
  //   backend    cpu:  C + the dense assignment it expands to (n Fr) + a, b, c padded to m (3m Fr)
  //                    + one m-sized copy while they are resized + the A and B scalar selections
  //                    (<= 2n Fr) + MSM buckets (8 MiB)
  //              cuda: C + 8 MiB (the host holds only the witness until start() returns; the staging
  //                    buffers are the backend's, allocated once; everything else is device memory)
  // and 32 MiB for the C1-derived partition values, the parent columns and allocator slack.
  // StackedDrg2KiBV1_1 (n = 2,685,713, m = 2^22, C = 2,074,496 bytes): cpu model 839 MB (800 MiB);
  // measured in the engine (engine_porep_test, which checks the model exactly and prints both) on 2
  // shared cores, one partition in flight, peak RSS growth from dispatch to the end of the backend
  // call: 647 MB (617 MiB; with the dense witness path before it: 658 MB). cuda model 44 MB (42 MiB).
  // StackedDrg32GiBV1_1 (n = 130,170,221, 98.69 % of aux binary, C = 87.0 MB = 82.9 MiB with the
  // 1.70M non-binary values measured in bench/RESULTS_circuit.md, m = 2^27): cuda model 294 MB
  // (0.27 GiB) per partition in flight — synthesis measured at ~110-120 MiB RSS growth; cpu model
  // 29.8 GB (27.8 GiB), as before (the dense n Fr it expands to replaces the old synthesis copy).
  PartitionMemory partition_memory(std::uint32_t) const override {
    const groth16::R1csShape& s = lease_->shape;
    const std::uint64_t fr = sizeof(Fr);
    const std::uint64_t n = s.num_variables();
    const std::uint64_t m = std::uint64_t(1) << lease_->pk.domain_log2;
    const std::uint64_t compact = compact_bytes_;
    const std::uint64_t synthesis = 3 * compact;
    const std::uint64_t backend = device_backend_ ? compact + (8u << 20)
                                                  : compact + n * fr + 4 * m * fr + 2 * n * fr + (8u << 20);
    return {std::max(synthesis, backend) + (32u << 20), 64u << 10};
  }

  Result<SynthesizedPartition> synthesize(std::uint32_t k, const CancelToken& cancel) override {
    if (cancel.cancelled()) return Error{"cancelled"};
    auto w = c2::synthesize_porep_partition(c1_, config_, k, lease_->shape, inputs_[k], cancel.as_function());
    if (!w) return Error{kName + ": partition " + std::to_string(k) + ": " + w.error()};
    SynthesizedPartition s;
    s.shape = &lease_->shape;
    s.key = &lease_->pk;
    s.witness = std::move(*w);
    return s;
  }

  const groth16::ProvingKey& key(std::uint32_t) const override { return lease_->pk; }

  // c2::verify_porep re-derives the inputs itself: the self-check shares nothing with synthesis but
  // the C1's commitments and randomness (what Curio's verify_seal checks too).
  Status verify(std::span<const groth16::Proof> proofs) override {
    const std::vector<std::uint8_t> bytes = groth16::concat_proofs(proofs);
    const c2::SectorPublic sector{c1_.replica_id, c1_.comm_d, c1_.comm_r, c1_.seed};
    std::size_t failed = 0;
    auto ok = c2::verify_porep(config_, sector, lease_->pk.vk, bytes, &failed);
    if (!ok) return Error{kName + ": self-check: " + ok.error()};
    if (!*ok) return Error{kName + ": self-check failed: partition " + std::to_string(failed) + " does not verify"};
    return ok_status();
  }

  std::string circuit_id() const override { return lease_->id; }

 private:
  porep::C1Output c1_;
  const porep::PorepConfig& config_;
  SrsLease lease_;
  std::vector<std::vector<Fr>> inputs_;  // per partition, ONE excluded
  std::uint64_t compact_bytes_ = 0;      // one partition's compact witness
  bool device_backend_ = false;          // the backend keeps the prover's buffers on the device
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
    auto loaded = porep::parse_c1_any(std::span<const std::uint8_t>(
        reinterpret_cast<const std::uint8_t*>(req->vanilla_proof.data()), req->vanilla_proof.size()));
    if (!loaded) return Error{k + "vanilla_proof: " + loaded.error()};
    if (req->sector_size != 0 && req->sector_size != loaded->sector_size) {
      return Error{k + "sector_size " + std::to_string(req->sector_size) + " disagrees with the C1's sector size " +
                   std::to_string(loaded->sector_size)};
    }
    auto config = c2::config_of(loaded->c1);
    if (!config) return Error{k + "vanilla_proof: " + config.error()};
    if (ctx.cancel.cancelled()) return Error{"cancelled"};
    // The vanilla checks refuse a corrupt C1 before any key is loaded or partition synthesized.
    if (auto st = c2::check_c1(loaded->c1, **config); !st) return Error{k + "vanilla_proof: " + st.error()};
    if (ctx.cancel.cancelled()) return Error{"cancelled"};

    auto id = kinds::filecoin_key_id("porep", (*config)->sector_size);
    if (!id) return Error{k + id.error()};
    auto lease = ctx.srs.acquire(*id, ctx.cancel.as_function(), &ctx.srs_load_ms);
    if (!lease) return Error{k + lease.error()};
    if (!(*lease)->has_proving_key) return Error{k + "proving key " + *id + " has no decoded proving key"};
    // Every variant of one size shares porep-<size>; a variant whose partition circuit differed would
    // show here first.
    if ((*lease)->shape.num_inputs != (*config)->num_public_inputs() + 1) {
      return Error{k + (*config)->name + " has " + std::to_string((*config)->num_public_inputs()) +
                   " public inputs per partition but proving key " + *id + " has " +
                   std::to_string((*lease)->shape.num_inputs - 1)};
    }
    const filecoin::sdr::Graph graph(**config);
    const c2::SectorPublic sector{loaded->c1.replica_id, loaded->c1.comm_d, loaded->c1.comm_r, loaded->c1.seed};
    std::vector<std::vector<Fr>> inputs;
    for (std::size_t p = 0; p < (*config)->partitions; ++p) {
      inputs.push_back(c2::partition_public_inputs(**config, graph, sector, p));
    }
    const auto counts = c2::count_porep_witness(**config);
    if (counts.inputs != (*lease)->shape.num_inputs || counts.aux != (*lease)->shape.num_aux) {
      return Error{k + (*config)->name + ": the circuit allocates " + std::to_string(counts.aux) +
                   " aux variables but proving key " + *id + " has " + std::to_string((*lease)->shape.num_aux)};
    }
    return std::unique_ptr<PreparedJob>(std::make_unique<PorepPrepared>(std::move(loaded->c1), **config,
                                                                        std::move(*lease), std::move(inputs),
                                                                        counts.compact_bytes(), ctx.backend == "cuda"));
  }
};

}  // namespace

std::shared_ptr<JobKind> make_porep_c2_kind() { return std::make_shared<PorepC2Kind>(); }

}  // namespace cuzk::engine

#else

namespace cuzk::engine {
std::shared_ptr<JobKind> make_porep_c2_kind() { return nullptr; }
}  // namespace cuzk::engine

#endif
