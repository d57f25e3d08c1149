#include "filecoin/post/post_job.hpp"

#include <algorithm>
#include <cstring>

#include "base/parallel.hpp"
#include "circuit/constraint_system.hpp"
#include "filecoin/common/partition_witness.hpp"
#include "filecoin/post/fallback_circuit.hpp"
#include "filecoin/post/shape.hpp"
#include "filecoin/post/vanilla.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::filecoin::post {
Result<groth16::CompactAssignment> synthesize_post_partition(const PostConfig& config,
                                                             std::span<const CheckedSector> sectors,
                                                             const groth16::R1csShape& shape,
                                                             std::span<const math::Fr> derived_inputs,
                                                             const std::function<bool()>& cancelled) {
  const auto params = FallbackPostParams::from_config(config);
  if (sectors.empty()) return Error{"no sectors"};
  // Circuit sector i: Window the request's sector i (the last one again once they run out); Winning
  // the one sector with its i-th challenge only.
  std::vector<PostSectorValues> unrolled;
  if (config.type == PostType::kWinning) {
    const PostSectorValues& s = sectors[0].values;
    unrolled.resize(params.sector_count);
    for (std::size_t i = 0; i < params.sector_count; ++i)
      unrolled[i] = PostSectorValues{s.comm_r, s.comm_c, s.comm_r_last, {s.paths.at(i)}};
  }
  auto circuit_sector = [&](std::size_t i) -> const PostSectorValues& {
    if (!unrolled.empty()) return unrolled[i];
    return sectors[std::min(i, sectors.size() - 1)].values;
  };

  const PostCircuitCounts counts = count_post_circuit(config);
  const std::size_t n = params.sector_count;
  const std::size_t chunks = std::max<std::size_t>(1, std::min(default_threads(), n));
  std::vector<groth16::CompactAssignment> parts(chunks);
  std::atomic<bool> stop{false};
  parallel_chunks(n, chunks, [&](std::size_t b, std::size_t e, std::size_t c) {
    circuit::WitnessBuilder wb;
    const std::uint64_t per_aux = counts.aux / n, per_binary = counts.binary_aux / n;
    const std::size_t scale = c == 0 ? n : e - b;  // chunk 0 becomes the whole witness
    wb.reserve(1 + (counts.inputs - 1) / n * scale, per_aux * scale, (per_aux - per_binary) * scale);
    for (std::size_t i = b; i < e; ++i) {
      if (stop.load(std::memory_order_relaxed) || (cancelled && cancelled())) {
        stop = true;
        return;
      }
      synthesize_post_sector(wb, params, circuit_sector(i), i);
    }
    parts[c] = std::move(wb).finish();
  });
  if (stop) return Error{"cancelled"};
  groth16::CompactAssignment w = std::move(parts[0]);
  for (std::size_t c = 1; c < chunks; ++c) {
    append_witness(w, std::move(parts[c]));
    parts[c] = {};
  }
  if (auto st = check_partition_witness(w, shape, derived_inputs); !st) return Error{st.error()};
  return w;
}

// ---- PostJob.

Result<PostJob> PostJob::prepare(const PostConfig& config, const Bytes32& randomness, std::uint32_t partition_index,
                                 std::span<const std::span<const std::uint8_t>> vanilla_proofs,
                                 const std::function<bool()>& cancelled) {
  if (config.type == PostType::kWinning && partition_index != 0)
    return Error{"partition_index " + std::to_string(partition_index) + ": WinningPoSt has one partition"};
  // The count first: the reservation below is per blob, and a request may carry millions of empty ones.
  if (vanilla_proofs.empty()) return Error{"vanilla_proofs: empty (expected one FallbackPoStSectorProof per sector)"};
  if (config.type == PostType::kWinning && vanilla_proofs.size() != 1)
    return Error{"vanilla_proofs: " + std::to_string(vanilla_proofs.size()) +
                 " sector proofs, WinningPoSt proves exactly one sector"};
  if (vanilla_proofs.size() > config.sector_count)
    return Error{"vanilla_proofs: " + std::to_string(vanilla_proofs.size()) + " sectors, more than the " +
                 std::to_string(config.sector_count) + " of one " + config.name + " partition"};
  std::vector<FallbackPostSectorProof> proofs;
  proofs.reserve(vanilla_proofs.size());
  for (std::size_t i = 0; i < vanilla_proofs.size(); ++i) {
    auto p = parse_sector_proof(vanilla_proofs[i], config, i);
    if (!p) return Error{p.error()};
    proofs.push_back(std::move(*p));
  }
  if (cancelled && cancelled()) return Error{"cancelled"};
  auto checked = check_vanilla_proofs(config, randomness, partition_index, proofs, cancelled);
  if (!checked) return Error{checked.error()};
  proofs = {};
  PostJob job(config);
  job.randomness_ = randomness;
  job.partition_index_ = partition_index;
  job.sectors_ = std::move(*checked);
  auto inputs = partition_public_inputs(config, randomness, job.public_sectors(), partition_index);
  if (!inputs) return Error{inputs.error()};
  job.inputs_ = std::move(*inputs);
  return job;
}

std::vector<PublicSector> PostJob::public_sectors() const {
  std::vector<PublicSector> v;
  v.reserve(sectors_.size());
  for (const auto& s : sectors_) v.push_back(s.pub);
  return v;
}

Status PostJob::check_key(const groth16::R1csShape& shape) const {
  const PostCircuitCounts c = count_post_circuit(*config_);
  if (shape.num_inputs != c.inputs)
    return Error{config_->name + " has " + std::to_string(c.inputs - 1) + " public inputs but the key has " +
                 std::to_string(shape.num_inputs - 1)};
  if (shape.num_aux != c.aux)
    return Error{config_->name + ": the circuit allocates " + std::to_string(c.aux) +
                 " aux variables but the key has " + std::to_string(shape.num_aux)};
  return ok_status();
}

// The model (filecoin/common/partition_memory.hpp) with synthesis holding the chunks and the
// concatenated witness (2C; a PoSt witness is nearly dense: Poseidon states are not bits) and 16 MiB
// for the decoded vanilla values and slack.
PostPartitionBytes PostJob::partition_memory(const groth16::R1csShape& shape, std::uint32_t domain_log2,
                                             bool device_backend) const {
  const std::uint64_t compact = count_post_circuit(*config_).compact_bytes();
  return model_partition_bytes(compact, shape.num_variables(), domain_log2, device_backend, 2 * compact, 16u << 20);
}

Result<groth16::CompactAssignment> PostJob::synthesize(std::uint32_t k, const groth16::R1csShape& shape,
                                                       const std::function<bool()>& cancelled) const {
  if (k != 0) return Error{"partition " + std::to_string(k) + ": a PoSt job has one partition (0)"};
  return synthesize_post_partition(*config_, sectors_, shape, inputs_, cancelled);
}

Result<bool> PostJob::verify(const groth16::VerifyingKey& vk, std::span<const groth16::Proof> proofs,
                             std::size_t* failed) const {
  if (proofs.size() != 1) return Error{std::to_string(proofs.size()) + " proofs, a PoSt job has one partition"};
  if (failed) *failed = 0;
  auto bytes = groth16::concat_proofs(proofs);
  const auto pub = public_sectors();
  return verify_post(*config_, randomness_, partition_index_, pub, vk, bytes);
}

Result<bool> verify_post(const PostConfig& config, const Bytes32& randomness, std::uint32_t partition_index,
                         std::span<const PublicSector> sectors, const groth16::VerifyingKey& vk,
                         std::span<const std::uint8_t> proof_bytes) {
  if (proof_bytes.size() != groth16::kProofBytes)
    return Error{"proof: " + std::to_string(proof_bytes.size()) + " bytes, a " + config.name + " proof is " +
                 std::to_string(groth16::kProofBytes)};
  auto proofs = groth16::split_proofs(proof_bytes);
  if (!proofs) return Error{"proof: " + proofs.error()};
  auto inputs = partition_public_inputs(config, randomness, sectors, partition_index);
  if (!inputs) return Error{inputs.error()};
  if (vk.ic.size() != inputs->size() + 1)
    return Error{"verifying key: " + std::to_string(vk.ic.size()) + " IC points, " + config.name + " needs " +
                 std::to_string(inputs->size() + 1)};
  return groth16::verify(vk, *inputs, (*proofs)[0]);
}

}  // namespace cuzk::filecoin::post
