#include "filecoin/snap/snap_job.hpp"

#include "circuit/constraint_system.hpp"
#include "filecoin/common/merkle_path.hpp"
#include "filecoin/common/partition_witness.hpp"
#include "filecoin/snap/shape.hpp"
#include "filecoin/snap/update_circuit.hpp"
#include "filecoin/snap/update_poseidon_circuit.hpp"
#include "filecoin/snap/vanilla.hpp"
#include "filecoin/snap/vanilla_check.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::filecoin::snap {
namespace {

std::string size_error(const SnapGeometry& g, std::size_t got) {
  return "proof: " + std::to_string(got) + " bytes, a " + std::to_string(g.nodes * 32) + "-byte sector's " +
         to_string(g.variant) + " proof is " + std::to_string(g.partitions) + " partition proofs of " +
         std::to_string(groth16::kProofBytes) + " bytes";
}

}  // namespace

Result<groth16::CompactAssignment> synthesize_update_partition(const SnapGeometry& g, const PartitionValues& values,
                                                               const groth16::R1csShape& shape,
                                                               std::span<const math::Fr> derived_inputs,
                                                               const std::function<bool()>& cancelled) {
  if (cancelled && cancelled()) return Error{"cancelled"};
  circuit::Witness w = circuit::build_witness([&](auto& cs) {
    if (g.variant == UpdateVariant::kPoseidon) synthesize_update_poseidon_circuit(cs, g, values);
    else synthesize_update_circuit(cs, g, values);
  });
  if (cancelled && cancelled()) return Error{"cancelled"};
  if (auto st = check_partition_witness(w, shape, derived_inputs); !st) return Error{st.error()};
  return w;
}

Result<bool> verify_snap(const SnapGeometry& g, const SnapCommitments& comms, const groth16::VerifyingKey& vk,
                         std::span<const std::uint8_t> proof_bytes, std::size_t* failed_partition) {
  if (proof_bytes.size() != g.partitions * groth16::kProofBytes) return Error{size_error(g, proof_bytes.size())};
  auto pub = check_commitments(comms);
  if (!pub) return Error{pub.error()};
  auto proofs = groth16::split_proofs(proof_bytes);
  if (!proofs) return Error{"proof: " + proofs.error()};
  if (vk.ic.size() != SnapGeometry::kNumPublicInputs + 1)
    return Error{"verifying key: " + std::to_string(vk.ic.size()) + " IC points, a SnapDeals partition needs " +
                 std::to_string(SnapGeometry::kNumPublicInputs + 1)};
  for (std::size_t k = 0; k < proofs->size(); ++k) {
    auto ok = groth16::verify(vk, partition_public_inputs(g, *pub, k), (*proofs)[k]);
    if (!ok) return Error{"partition " + std::to_string(k) + ": " + ok.error()};
    if (!*ok) {
      if (failed_partition) *failed_partition = k;
      return false;
    }
  }
  return true;
}

// ---- SnapJob.

Result<SnapJob> SnapJob::prepare(const SnapGeometry& geometry, const SnapCommitments& comms,
                                 std::span<const std::span<const std::uint8_t>> vanilla_proofs,
                                 const std::function<bool()>& cancelled) {
  if (vanilla_proofs.size() != geometry.partitions)
    return Error{"vanilla_proofs: " + std::to_string(vanilla_proofs.size()) + " partition proofs, a " +
                 std::to_string(geometry.nodes * 32) + "-byte sector's update has " +
                 std::to_string(geometry.partitions)};
  auto pub = check_commitments(comms);
  if (!pub) return Error{pub.error()};
  std::vector<PartitionProof> proofs;
  proofs.reserve(vanilla_proofs.size());
  for (std::size_t k = 0; k < vanilla_proofs.size(); ++k) {
    auto p = parse_partition_proof(vanilla_proofs[k], geometry, k);
    if (!p) return Error{p.error()};
    proofs.push_back(std::move(*p));
  }
  if (cancelled && cancelled()) return Error{"cancelled"};
  auto values = check_partition_proofs(geometry, *pub, proofs, cancelled);
  if (!values) return Error{values.error()};
  SnapJob job(geometry);
  job.pub_ = *pub;
  job.values_ = std::move(*values);
  for (std::size_t k = 0; k < geometry.partitions; ++k)
    job.inputs_.push_back(partition_public_inputs(geometry, *pub, k));
  return job;
}

Status SnapJob::check_key(const groth16::R1csShape& shape) const {
  const UpdateCircuitCounts c = count_update_circuit(geometry_);
  const std::string what =
      std::string(to_string(geometry_.variant)) + " " + std::to_string(geometry_.nodes * 32) + "-byte";
  if (shape.num_inputs != c.inputs)
    return Error{what + " partition has " + std::to_string(c.inputs - 1) + " public inputs but the key has " +
                 std::to_string(shape.num_inputs - 1)};
  if (shape.num_aux != c.aux)
    return Error{what + " partition allocates " + std::to_string(c.aux) + " aux variables but the key has " +
                 std::to_string(shape.num_aux)};
  return ok_status();
}

// The model (filecoin/common/partition_memory.hpp) with synthesis holding the growing compact witness
// (vector doubling: <= 3C) and 32 MiB for the checked partition values and slack.
filecoin::PartitionBytes SnapJob::partition_memory(const groth16::R1csShape& shape, std::uint32_t domain_log2,
                                                   bool device_backend) const {
  const std::uint64_t compact = count_update_circuit(geometry_).compact_bytes();
  return model_partition_bytes(compact, shape.num_variables(), domain_log2, device_backend, 3 * compact, 32u << 20);
}

Result<groth16::CompactAssignment> SnapJob::synthesize(std::uint32_t k, const groth16::R1csShape& shape,
                                                       const std::function<bool()>& cancelled) const {
  if (k >= values_.size()) return Error{"partition " + std::to_string(k) + " of " + std::to_string(values_.size())};
  return synthesize_update_partition(geometry_, values_[k], shape, inputs_[k], cancelled);
}

// The inputs are re-derived by verify_snap from the commitments alone.
Result<bool> SnapJob::verify(const groth16::VerifyingKey& vk, std::span<const groth16::Proof> proofs,
                             std::size_t* failed_partition) const {
  const std::vector<std::uint8_t> bytes = groth16::concat_proofs(proofs);
  SnapCommitments comms{fr_to_bytes32(pub_.comm_r_old), fr_to_bytes32(pub_.comm_r_new), fr_to_bytes32(pub_.comm_d_new)};
  return verify_snap(geometry_, comms, vk, bytes, failed_partition);
}

}  // namespace cuzk::filecoin::snap
