// One SnapDeals update proof (all P partitions), the single orchestration that `cuzk prove-snap` and
// the daemon's snap-deals kind drive (what filecoin-proofs' generate_empty_sector_update_proof_with_vanilla
// and verify_empty_sector_update_proof do, plus the checks they skip):
//
//   prepare           decode every PartitionProof (shape checked against the geometry), check the
//                     commitments are field elements, run the vanilla checks (vanilla_check.hpp), derive
//                     every partition's public inputs from comm_r_old / comm_d_new / comm_r_new (never
//                     from the vanilla proofs). Touches no key.
//   check_key         the key's shape is this size's partition circuit (inputs and aux)
//   partition_memory  the memory model of one partition in flight
//   synthesize(k)     partition k's compact witness, its inputs compared with the derived ones
//   verify            all partition proofs against inputs re-derived independently of synthesis
//
// Output: 192 × P bytes, partition proofs in k order. Errors are one line naming the partition and field.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "filecoin/common/partition_memory.hpp"
#include "filecoin/common/partitioned_job.hpp"
#include "filecoin/common/partition_prover.hpp"
#include "filecoin/snap/circuit_values.hpp"
#include "filecoin/snap/config.hpp"
#include "filecoin/snap/public_inputs.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/witness.hpp"

namespace cuzk::filecoin::snap {

class SnapJob {
 public:
  // vanilla_proofs: one bincode PartitionProof per partition, k order (Poseidon variant: exactly one).
  static Result<SnapJob> prepare(const SnapGeometry& geometry, const SnapCommitments& comms,
                                 std::span<const std::span<const std::uint8_t>> vanilla_proofs,
                                 const std::function<bool()>& cancelled = {});

  const SnapGeometry& geometry() const { return geometry_; }
  std::uint32_t partitions() const { return std::uint32_t(geometry_.partitions); }
  const SnapPublic& public_values() const { return pub_; }
  std::span<const math::Fr> public_inputs(std::uint32_t k) const { return inputs_[k]; }  // ONE excluded
  const PartitionValues& partition_values(std::uint32_t k) const { return values_[k]; }

  Status check_key(const groth16::R1csShape& shape) const;
  filecoin::PartitionBytes partition_memory(const groth16::R1csShape& shape, std::uint32_t domain_log2,
                                            bool device_backend) const;
  Result<groth16::CompactAssignment> synthesize(std::uint32_t k, const groth16::R1csShape& shape,
                                                const std::function<bool()>& cancelled = {}) const;
  // Ok(false) and *failed_partition when a proof does not verify.
  Result<bool> verify(const groth16::VerifyingKey& vk, std::span<const groth16::Proof> proofs,
                      std::size_t* failed_partition = nullptr) const;

 private:
  explicit SnapJob(const SnapGeometry& g) : geometry_(g) {}

  SnapGeometry geometry_;
  SnapPublic pub_;
  std::vector<PartitionValues> values_;
  std::vector<std::vector<math::Fr>> inputs_;
};

static_assert(filecoin::PartitionedJob<SnapJob>);

// The witness of partition k's circuit from checked values; counts and inputs checked against `shape`
// and `derived_inputs`.
Result<groth16::CompactAssignment> synthesize_update_partition(const SnapGeometry& g, const PartitionValues& values,
                                                               const groth16::R1csShape& shape,
                                                               std::span<const math::Fr> derived_inputs,
                                                               const std::function<bool()>& cancelled = {});

// Verification of P concatenated 192-byte proofs without vanilla proofs (cuzk verify-snap): Ok(false)
// when a partition proof does not verify; `failed_partition` says which.
Result<bool> verify_snap(const SnapGeometry& g, const SnapCommitments& comms, const groth16::VerifyingKey& vk,
                         std::span<const std::uint8_t> proof_bytes, std::size_t* failed_partition = nullptr);

}  // namespace cuzk::filecoin::snap
