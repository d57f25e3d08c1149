#include "filecoin/porep/porep_job.hpp"

#include <algorithm>

#include "circuit/constraint_system.hpp"
#include "filecoin/common/partition_witness.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "filecoin/porep/c1_shape.hpp"
#include "filecoin/porep/c1_values.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/shape.hpp"
#include "filecoin/porep/stacked_circuit.hpp"
#include "filecoin/porep/vanilla_check.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::filecoin::porep {
namespace {

SectorPublic sector_public(const C1Output& c1) { return {c1.replica_id, c1.comm_d, c1.comm_r, c1.seed}; }

}  // namespace

// ---- The steps.

Result<const PorepConfig*> config_of(const C1Output& c1) {
  try {
    return &porep_config_by_name(c1.registered_proof);
  } catch (const std::invalid_argument& e) {
    return Error{std::string("registered_proof: ") + e.what()};
  }
}

Status check_c1(const C1Output& c1, const PorepConfig& config) {
  if (auto st = check_c1_shape(c1, config); !st) return st;
  Graph graph(config);
  return check_vanilla_proofs(c1, config, graph);
}

Result<groth16::CompactAssignment> synthesize_porep_partition(const C1Output& c1, const PorepConfig& config,
                                                              std::size_t partition, const groth16::R1csShape& shape,
                                                              std::span<const math::Fr> derived_inputs,
                                                              const std::function<bool()>& cancelled) {
  auto stop = [&] { return cancelled && cancelled(); };
  auto values = partition_values(c1, config, partition);
  if (!values) return Error{values.error()};
  if (stop()) return Error{"cancelled"};
  const auto params = StackedCircuitParams::from_config(config);
  circuit::Witness w = circuit::build_witness([&](auto& cs) { synthesize_stacked_circuit(cs, params, *values); });
  *values = {};
  if (stop()) return Error{"cancelled"};
  if (auto st = check_partition_witness(w, shape, derived_inputs); !st) return Error{st.error()};
  return w;
}

Result<bool> verify_porep(const PorepConfig& config, const SectorPublic& sector, const groth16::VerifyingKey& vk,
                          std::span<const std::uint8_t> proof_bytes, std::size_t* failed_partition) {
  if (proof_bytes.size() != config.partitions * groth16::kProofBytes)
    return Error{"proof: " + std::to_string(proof_bytes.size()) + " bytes, " + config.name + " needs " +
                 std::to_string(config.partitions) + " partition proofs of " + std::to_string(groth16::kProofBytes) +
                 " bytes"};
  auto proofs = groth16::split_proofs(proof_bytes);
  if (!proofs) return Error{"proof: " + proofs.error()};
  Graph graph(config);
  for (std::size_t k = 0; k < proofs->size(); ++k) {
    const auto inputs = partition_public_inputs(config, graph, sector, k);
    auto ok = groth16::verify(vk, inputs, (*proofs)[k]);
    if (!ok) return Error{"partition " + std::to_string(k) + ": " + ok.error()};
    if (!*ok) {
      if (failed_partition) *failed_partition = k;
      return false;
    }
  }
  return true;
}

// ---- PorepJob.

Result<PorepJob> PorepJob::prepare(std::span<const std::uint8_t> c1_bytes, std::uint64_t expected_sector_size,
                                   const std::function<bool()>& cancelled) {
  auto loaded = parse_c1_any(c1_bytes, expected_sector_size);
  if (!loaded) return Error{loaded.error()};
  if (expected_sector_size != 0 && expected_sector_size != loaded->sector_size)
    return Error{"sector_size " + std::to_string(expected_sector_size) + " disagrees with the C1's sector size " +
                 std::to_string(loaded->sector_size)};
  return prepare(std::move(loaded->c1), cancelled);
}

Result<PorepJob> PorepJob::prepare(C1Output c1, const std::function<bool()>& cancelled) {
  auto stop = [&] { return cancelled && cancelled(); };
  auto config = config_of(c1);
  if (!config) return Error{config.error()};
  if (stop()) return Error{"cancelled"};
  // The shape and vanilla checks refuse a corrupt C1 before any key is loaded or partition synthesized.
  if (auto st = check_c1_shape(c1, **config); !st) return Error{st.error()};
  const Graph graph(**config);
  if (auto st = check_vanilla_proofs(c1, **config, graph); !st) return Error{st.error()};
  if (stop()) return Error{"cancelled"};
  PorepJob job(std::move(c1), **config);
  job.sector_ = sector_public(job.c1_);
  job.inputs_.reserve(job.config_->partitions);
  for (std::size_t p = 0; p < job.config_->partitions; ++p)
    job.inputs_.push_back(partition_public_inputs(*job.config_, graph, job.sector_, p));
  return job;
}

Status PorepJob::check_key(const groth16::R1csShape& shape) const {
  // Every variant of one size shares one key; a variant whose partition circuit differed shows here.
  if (shape.num_inputs != config_->num_public_inputs() + 1)
    return Error{config_->name + " has " + std::to_string(config_->num_public_inputs()) +
                 " public inputs per partition but the key has " + std::to_string(shape.num_inputs - 1)};
  const auto counts = count_porep_witness(*config_);
  if (counts.inputs != shape.num_inputs || counts.aux != shape.num_aux)
    return Error{config_->name + ": the circuit allocates " + std::to_string(counts.aux) +
                 " aux variables but the key has " + std::to_string(shape.num_aux)};
  return ok_status();
}

// The model (filecoin/common/partition_memory.hpp) with the compact witness C while it grows (vector
// doubling: <= 3C) and 32 MiB for the C1-derived partition values, the parent columns and slack.
// StackedDrg2KiBV1_1 (n = 2,685,713, m = 2^22, C = 2,074,496 bytes): cpu model 839 MB (800 MiB);
// measured in the engine (engine_porep_test, which checks the model exactly and prints both) on 2
// shared cores, one partition in flight, peak RSS growth from dispatch to the end of the backend
// call: 647 MB (617 MiB; with the dense witness path before it: 658 MB). cuda model 44 MB (42 MiB).
// StackedDrg32GiBV1_1 (n = 130,170,221, 98.69 % of aux binary, C = 87.0 MB = 82.9 MiB with the
// 1.70M non-binary values measured in bench/RESULTS_circuit.md, m = 2^27): cuda model 294 MB
// (0.27 GiB) per partition in flight — synthesis measured at ~110-120 MiB RSS growth; cpu model
// 29.8 GB (27.8 GiB), as before (the dense n Fr it expands to replaces the old synthesis copy).
PartitionBytes PorepJob::partition_memory(const groth16::R1csShape& shape, std::uint32_t domain_log2,
                                          bool device_backend) const {
  const std::uint64_t compact = count_porep_witness(*config_).compact_bytes();
  return model_partition_bytes(compact, shape.num_variables(), domain_log2, device_backend, 3 * compact, 32u << 20);
}

Result<groth16::CompactAssignment> PorepJob::synthesize(std::uint32_t k, const groth16::R1csShape& shape,
                                                        const std::function<bool()>& cancelled) const {
  if (k >= inputs_.size()) return Error{"partition " + std::to_string(k) + " of " + std::to_string(inputs_.size())};
  return synthesize_porep_partition(c1_, *config_, k, shape, inputs_[k], cancelled);
}

// The inputs are re-derived by verify_porep itself: the self-check shares nothing with synthesis but
// the C1's commitments and randomness (what Curio's verify_seal checks too).
Result<bool> PorepJob::verify(const groth16::VerifyingKey& vk, std::span<const groth16::Proof> proofs,
                              std::size_t* failed_partition) const {
  const std::vector<std::uint8_t> bytes = groth16::concat_proofs(proofs);
  return verify_porep(*config_, sector_, vk, bytes, failed_partition);
}

}  // namespace cuzk::filecoin::porep
