// storage-proofs-core's MerkleProof as it appears in vanilla proofs (filecoin-formats.md §3.3): the
// type that PoRep's C1, the PoSt vanilla proofs and SnapDeals' partition proofs all carry, declared
// once here (with its JSON / bincode field declaration in merkle_proof_fields.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "filecoin/common/bytes32.hpp"

namespace cuzk::filecoin {

// InclusionPath element: the arity-1 siblings in order (current node removed) and the current node's
// position 0..arity-1. Elements are listed leaf → root.
struct PathElement {
  std::vector<Bytes32> hashes;
  std::uint64_t index = 0;
};
using InclusionPath = std::vector<PathElement>;

// MerkleProof { data: Single{root, leaf, path} | Sub{base_proof, sub_proof, root, leaf} |
// Top{base_proof, sub_proof, top_proof, root, leaf} }.
enum class MerkleProofKind : std::uint32_t { kSingle = 0, kSub = 1, kTop = 2 };

struct VanillaMerkleProof {
  MerkleProofKind kind = MerkleProofKind::kSingle;
  Bytes32 root{}, leaf{};
  InclusionPath base;  // Single: the whole path; Sub/Top: the base levels
  InclusionPath sub;   // Sub/Top only (one level)
  InclusionPath top;   // Top only (one level)

  // All levels leaf → root (base, then sub, then top).
  InclusionPath all_levels() const {
    InclusionPath p = base;
    p.insert(p.end(), sub.begin(), sub.end());
    p.insert(p.end(), top.begin(), top.end());
    return p;
  }
};

}  // namespace cuzk::filecoin
