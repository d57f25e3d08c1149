// PoRep C2 on top of the Groth16 prover: every partition of a C1, checked, synthesized, proved and
// self-verified against public inputs derived independently of the vanilla proofs; and the
// verification of concatenated partition proofs (what filecoin-proofs' seal_commit_phase2 and
// verify_seal do for the SNARK part).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "base/result.hpp"
#include "filecoin/c2/public_inputs.hpp"
#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/config.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/witness.hpp"

namespace cuzk::filecoin::c2 {

// The registered proof a C1 names, or an error naming the field.
Result<const porep::PorepConfig*> config_of(const porep::C1Output& c1);

struct PartitionTiming {
  double synth_ms = 0, prove_ms = 0, verify_ms = 0;
};

struct PorepProveOptions {
  bool self_verify = true;
  bool c1_checked = false;  // the caller already ran check_c1 (e.g. before loading the key)
  // Called after each partition (for progress output).
  std::function<void(std::size_t partition, const PartitionTiming&)> on_partition;
};

// Checks the C1 (shape, vanilla proofs), then proves every partition with `backend`.
// `shape` must be record_porep_shape(config) and `key` its proving key.
Result<std::vector<groth16::Proof>> prove_porep(const porep::C1Output& c1, const groth16::R1csShape& shape,
                                                const groth16::ProvingKey& key, groth16::Backend& backend,
                                                const PorepProveOptions& opt = {});

// The assignment of partition `partition` in compact form (ONE and the inputs as Fr, binary aux as
// bits: ~0.5 GB instead of 4.17 GB dense for a 32 GiB partition), synthesized from the C1, after
// checking its counts against `shape` and that its public inputs equal `derived_inputs`
// (partition_public_inputs): they are equal unless the vanilla checks were bypassed or the circuit
// code has a bug — refuse rather than prove. `cancelled` (optional) is polled between steps.
Result<groth16::CompactAssignment> synthesize_porep_partition(const porep::C1Output& c1, const porep::PorepConfig& config,
                                                        std::size_t partition, const groth16::R1csShape& shape,
                                                        std::span<const math::Fr> derived_inputs,
                                                        const std::function<bool()>& cancelled = {});

// One partition (no C1 checks: callers that prove partitions separately run check_c1 once).
Result<groth16::Proof> prove_porep_partition(const porep::C1Output& c1, const porep::PorepConfig& config,
                                             std::size_t partition, const groth16::R1csShape& shape,
                                             const groth16::ProvingKey& key, groth16::Backend& backend,
                                             PartitionTiming* timing = nullptr);

// Shape and vanilla checks of a whole C1 (what prove_porep runs first).
Status check_c1(const porep::C1Output& c1, const porep::PorepConfig& config);

// Verifies config.partitions concatenated 192-byte proofs against the derived public inputs.
// Returns false (not an error) when a partition proof does not verify; `failed_partition` says which.
Result<bool> verify_porep(const porep::PorepConfig& config, const SectorPublic& sector,
                          const groth16::VerifyingKey& vk, std::span<const std::uint8_t> proof_bytes,
                          std::size_t* failed_partition = nullptr);

}  // namespace cuzk::filecoin::c2
