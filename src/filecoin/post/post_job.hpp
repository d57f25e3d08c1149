// One PoSt partition proof (WindowPoSt partition or WinningPoSt), the single orchestration that both
// `cuzk prove-post` and the daemon's window-post / winning-post kinds drive (what filecoin-proofs'
// generate_single_window_post_with_vanilla / generate_winning_post_with_vanilla do, plus the checks
// they skip):
//
//   prepare           decode every FallbackPoStSectorProof (shape checked against the registered
//                     proof), run the vanilla checks (vanilla_check.hpp), derive the public inputs from
//                     the sector ids, comm_r values, randomness and partition index (never from the
//                     vanilla proofs). Touches no key.
//   check_key         the key's shape is this proof's circuit (inputs and aux)
//   partition_memory  the memory model of the one partition
//   synthesize        the witness, sector blocks built on all threads and concatenated; its inputs
//                     compared with the derived ones
//   verify            the proof against inputs re-derived independently of synthesis
//
// partition_index only changes the V1 challenges (sector_index = k·sector_count + i); the circuit is
// always built as partition 0 of the sectors given (the Rust pipeline's k > 0 failure, post-snap.md
// §9.2, does not exist here). Errors are one line naming the sector and field or check.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "filecoin/common/partition_memory.hpp"
#include "filecoin/common/partitioned_job.hpp"
#include "filecoin/post/config.hpp"
#include "filecoin/post/public_inputs.hpp"
#include "filecoin/post/vanilla_check.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/witness.hpp"

namespace cuzk::filecoin::post {

// Memory the partition holds from dispatch until the backend's start() returns (`full`), and what it
// still holds until finish() (`after_start`): filecoin/common/partition_memory.hpp.
using PostPartitionBytes = filecoin::PartitionBytes;

class PostJob {
 public:
  static Result<PostJob> prepare(const PostConfig& config, const Bytes32& randomness, std::uint32_t partition_index,
                                 std::span<const std::span<const std::uint8_t>> vanilla_proofs,
                                 const std::function<bool()>& cancelled = {});

  const PostConfig& config() const { return *config_; }
  const Bytes32& randomness() const { return randomness_; }
  std::uint32_t partition_index() const { return partition_index_; }
  std::span<const CheckedSector> sectors() const { return sectors_; }
  std::vector<PublicSector> public_sectors() const;

  // The partitioned-job interface (filecoin/common/partitioned_job.hpp) with one partition, k = 0:
  // the request's partition_index() is the WindowPoSt partition this job proves.
  std::uint32_t partitions() const { return 1; }
  Status check_key(const groth16::R1csShape& shape) const;
  PostPartitionBytes partition_memory(const groth16::R1csShape& shape, std::uint32_t domain_log2,
                                      bool device_backend) const;
  Result<groth16::CompactAssignment> synthesize(std::uint32_t k, const groth16::R1csShape& shape,
                                                const std::function<bool()>& cancelled = {}) const;
  std::span<const math::Fr> public_inputs(std::uint32_t) const { return inputs_; }  // ONE excluded
  // Ok(false) (and *failed = 0) when the proof does not verify; an error unless exactly one proof.
  Result<bool> verify(const groth16::VerifyingKey& vk, std::span<const groth16::Proof> proofs,
                      std::size_t* failed = nullptr) const;

 private:
  explicit PostJob(const PostConfig& config) : config_(&config) {}

  const PostConfig* config_;
  Bytes32 randomness_{};
  std::uint32_t partition_index_ = 0;
  std::vector<CheckedSector> sectors_;
  std::vector<math::Fr> inputs_;
};

// The witness of the partition circuit over `sectors` (padded/unrolled here), sector blocks on all
// threads; counts and inputs checked against `shape` and `derived_inputs`.
Result<groth16::CompactAssignment> synthesize_post_partition(const PostConfig& config,
                                                             std::span<const CheckedSector> sectors,
                                                             const groth16::R1csShape& shape,
                                                             std::span<const math::Fr> derived_inputs,
                                                             const std::function<bool()>& cancelled = {});

static_assert(filecoin::PartitionedJob<PostJob>);

// Verification of one 192-byte proof without vanilla proofs (cuzk verify-post): Ok(false) when it does
// not verify.
Result<bool> verify_post(const PostConfig& config, const Bytes32& randomness, std::uint32_t partition_index,
                         std::span<const PublicSector> sectors, const groth16::VerifyingKey& vk,
                         std::span<const std::uint8_t> proof_bytes);

}  // namespace cuzk::filecoin::post
