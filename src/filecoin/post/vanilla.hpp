// The PoSt vanilla proof as Curio sends it: one bincode FallbackPoStSectorProof per sector in the
// request's `vanilla_proofs` (filecoin-proofs types/mod.rs; layout with byte offsets in post-snap.md
// §2.1/§2.2):
//
//   u64 sector_id ‖ comm_r (32) ‖ u64 S ‖ S × SectorProof{ u64 C ‖ C × MerkleProof ‖ comm_c ‖ comm_r_last }
//
// Serde does not check tree arities (an 8-8-2 proof decodes into an 8-8-0 type), so the reader checks
// the shape of everything against the registered proof: exactly one SectorProof, exactly
// vanilla_challenges inclusion proofs, the ProofData variant of the tree shape (Single 8-0-0, Sub
// 8-8-0, Top 8-8-2), the level count and 7 (or 1) siblings per level, positions below the arity, and
// no trailing bytes. Lengths are checked against the bytes that remain and the configuration's shape
// (one SectorProof, vanilla_challenges proofs, the level count, 7 siblings) before anything is
// allocated (formats/bincode.hpp, element_limits.hpp). Errors
// name the sector (its index in the request and its id) and the field. The file form the tools read
// (raw or a JSON array of base64 blobs) is filecoin/common/vanilla_file.hpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/common/merkle_proof.hpp"
#include "filecoin/post/config.hpp"

namespace cuzk::filecoin::post {

// storage-proofs-post SectorProof: the inclusion proofs of one sector's challenged leaves in tree R,
// and the two commitments comm_r = Poseidon2(comm_c, comm_r_last) is made of.
struct SectorProof {
  std::vector<VanillaMerkleProof> inclusion_proofs;
  Bytes32 comm_c{}, comm_r_last{};
};

// filecoin-proofs FallbackPoStSectorProof (the `vanilla_proof.sectors` wrapper flattened).
struct FallbackPostSectorProof {
  std::uint64_t sector_id = 0;
  Bytes32 comm_r{};
  std::vector<SectorProof> sectors;  // exactly 1 after parse_sector_proof
};

// Decodes one blob and checks its shape against `config` (see above). `index` is the blob's position in
// the request (for the message: "vanilla_proofs[3] (sector 17): ...").
Result<FallbackPostSectorProof> parse_sector_proof(std::span<const std::uint8_t> bytes, const PostConfig& config,
                                                   std::size_t index);
std::vector<std::uint8_t> write_sector_proof(const FallbackPostSectorProof& p);
std::size_t sector_proof_bincode_size(const FallbackPostSectorProof& p);

// The exact encoded size of one sector's proof for `config` (post-snap.md §2.2: Window 2 KiB 5,680 …
// 32 GiB 24,960; Winning 32 GiB 164,064).
std::size_t expected_sector_proof_size(const PostConfig& config);

}  // namespace cuzk::filecoin::post
