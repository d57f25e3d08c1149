// One PoRep C2 job, the single orchestration that both `cuzk prove-porep` and the daemon's porep-c2
// kind drive (what filecoin-proofs' seal_commit_phase2 and verify_seal do for the SNARK part):
//
//   prepare           parse the C1 (Curio wrapper JSON, raw C1 JSON or bincode), resolve its registered
//                     proof, check the shape and the vanilla proofs (the failed check named), derive
//                     every partition's public inputs from the commitments and randomness (never from
//                     the vanilla proofs). Touches no key.
//   check_key         the key's partition shape is this size's partition circuit
//   partition_memory  the memory model of one partition in flight
//   synthesize(k)     partition k's compact witness, its inputs compared with the derived ones
//   verify            all partition proofs against inputs re-derived independently of synthesis
//
// prove_porep() is the loop the CLI runs over a PorepJob and a groth16::Backend; the engine runs the
// same steps through its pipeline (engine/porep_kind.cpp adapts PorepJob to engine::PreparedJob).
// Errors are one line naming the field or check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "filecoin/common/partition_memory.hpp"
#include "filecoin/common/partitioned_job.hpp"
#include "filecoin/common/partition_prover.hpp"
#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/public_inputs.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/witness.hpp"

namespace cuzk::filecoin::porep {

// Memory one partition holds from dispatch until the backend's start() returns (`full`), and what it
// still holds until finish() (`after_start`); mirrors engine::PartitionMemory.
using filecoin::PartitionBytes;

class PorepJob {
 public:
  // Any C1 form; expected_sector_size (when nonzero) must equal the C1's. `cancelled` is polled
  // between steps ("cancelled").
  static Result<PorepJob> prepare(std::span<const std::uint8_t> c1_bytes, std::uint64_t expected_sector_size = 0,
                                  const std::function<bool()>& cancelled = {});
  // An already parsed C1.
  static Result<PorepJob> prepare(C1Output c1, const std::function<bool()>& cancelled = {});

  const PorepConfig& config() const { return *config_; }
  std::uint32_t partitions() const { return std::uint32_t(config_->partitions); }
  std::uint64_t sector_size() const { return config_->sector_size; }
  const C1Output& c1() const { return c1_; }
  const SectorPublic& sector() const { return sector_; }

  // The key's shape must be this size's partition circuit: input and aux counts (the message names both).
  Status check_key(const groth16::R1csShape& shape) const;
  // device_backend: the backend keeps a, b, c and H on the device (the host holds only the witness).
  PartitionBytes partition_memory(const groth16::R1csShape& shape, std::uint32_t domain_log2,
                                  bool device_backend) const;
  // `shape` = record_porep_shape(config()) (or the key's, after check_key).
  Result<groth16::CompactAssignment> synthesize(std::uint32_t k, const groth16::R1csShape& shape,
                                                const std::function<bool()>& cancelled = {}) const;
  std::span<const math::Fr> public_inputs(std::uint32_t k) const { return inputs_[k]; }  // ONE excluded
  // Ok(false) and *failed_partition when a proof does not verify.
  Result<bool> verify(const groth16::VerifyingKey& vk, std::span<const groth16::Proof> proofs,
                      std::size_t* failed_partition = nullptr) const;

 private:
  PorepJob(C1Output c1, const PorepConfig& config) : c1_(std::move(c1)), config_(&config) {}

  C1Output c1_;
  const PorepConfig* config_;
  SectorPublic sector_;
  std::vector<std::vector<math::Fr>> inputs_;  // per partition, ONE excluded
};

static_assert(filecoin::PartitionedJob<PorepJob>);

// ---- The steps PorepJob is made of, for callers that hold a C1 and no job (tests, tools).

// The registered proof a C1 names, or an error naming the field.
Result<const PorepConfig*> config_of(const C1Output& c1);
// Shape and vanilla checks of a whole C1 (what prepare runs).
Status check_c1(const C1Output& c1, const PorepConfig& config);
// The compact assignment of partition `partition` (ONE and the inputs as Fr, binary aux as bits: ~0.5 GB
// instead of 4.17 GB dense for a 32 GiB partition), after checking its counts against `shape` and that
// its public inputs equal `derived_inputs` (partition_public_inputs): they are equal unless the vanilla
// checks were bypassed or the circuit code has a bug — refuse rather than prove.
Result<groth16::CompactAssignment> synthesize_porep_partition(const C1Output& c1, const PorepConfig& config,
                                                              std::size_t partition, const groth16::R1csShape& shape,
                                                              std::span<const math::Fr> derived_inputs,
                                                              const std::function<bool()>& cancelled = {});
// Verification of config.partitions concatenated 192-byte proofs without a C1 (cuzk verify-porep).
// Ok(false) (not an error) when a partition proof does not verify; `failed_partition` says which.
Result<bool> verify_porep(const PorepConfig& config, const SectorPublic& sector, const groth16::VerifyingKey& vk,
                          std::span<const std::uint8_t> proof_bytes, std::size_t* failed_partition = nullptr);

}  // namespace cuzk::filecoin::porep
