// SnapDeals vanilla proofs as Curio sends them: one bincode PartitionProof per partition in the
// request's `vanilla_proofs`, k = 0..P−1 (storage-proofs-update vanilla.rs; proofs-api update.rs;
// layout in post-snap.md §2.3):
//
//   comm_c (32) ‖ u64 A ‖ A × apex leaf (32) ‖ u64 C ‖ C × ChallengeProof
//   ChallengeProof = proof_r_old (MerkleProof, tree R shape) ‖ proof_d_new (Single, cb binary levels)
//                    ‖ proof_r_new (tree R shape)
//
// 32 GiB: 561,768 bytes per partition. The Poseidon variant (poseidon/vanilla.rs) has no apex leaves
// and a tree-R-shaped Poseidon proof_d_new. The reader checks every count against the geometry
// (A, C, ProofData variants, levels, siblings per level, positions below the arity) before it
// allocates and refuses trailing bytes; errors name the partition, the challenge and the field
// ("vanilla_proofs[3]: challenge_proofs[17].proof_d_new: 29 levels, expected 30").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/common/merkle_proof.hpp"
#include "filecoin/snap/config.hpp"

namespace cuzk::filecoin::snap {

struct ChallengeProof {
  VanillaMerkleProof proof_r_old;  // old replica, tree R
  VanillaMerkleProof proof_d_new;  // new data, tree D (SHA-256 binary, Single); Poseidon variant: tree R shape
  VanillaMerkleProof proof_r_new;  // new replica, tree R
};

struct PartitionProof {
  Bytes32 comm_c{};
  std::vector<Bytes32> apex_leafs;  // A (empty for the Poseidon variant)
  std::vector<ChallengeProof> challenge_proofs;
};

// Decodes partition `index`'s blob and checks its shape against `g` (see above).
Result<PartitionProof> parse_partition_proof(std::span<const std::uint8_t> bytes, const SnapGeometry& g,
                                             std::size_t index);
std::vector<std::uint8_t> write_partition_proof(const PartitionProof& p,
                                                UpdateVariant variant = UpdateVariant::kPartitioned);
// The exact encoded size of one partition proof for `g` (2 KiB 15,064; 8 MiB 43,864; 512 MiB 453,064;
// 32 GiB 561,768; 64 GiB 575,528).
std::size_t expected_partition_proof_size(const SnapGeometry& g);

}  // namespace cuzk::filecoin::snap
