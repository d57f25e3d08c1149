// The sector's Merkle trees, built level by level in parallel and kept whole so that vanilla proofs
// can be cut from them (filecoin-formats.md §6.7, §6.8, §3.3):
//  * ShaTree: tree D, binary, parent = SHA-254(left ‖ right), leaves = the padded data nodes;
//  * PoseidonTree: trees C and R, Poseidon (MerkleTree tag) with the base-sub-top level arities of a
//    TreeShape; a leaf index splits into consecutive little-endian digit groups, so one list of
//    arities covers 8-0-0, 8-8-0 and 8-8-2.
// Proofs are returned in the C1 data model (porep::VanillaMerkleProof: Single, or Sub/Top with the
// base levels, then the sub level, then the top level).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "circuit/merkle.hpp"
#include "filecoin/porep/c1.hpp"
#include "filecoin/common/bytes32.hpp"

namespace cuzk::filecoin::testkit {

class ShaTree {
 public:
  ShaTree() = default;
  explicit ShaTree(std::vector<Bytes32> leaves);  // leaves.size() a power of two >= 2
  const Bytes32& root() const { return levels_.back()[0]; }
  std::span<const Bytes32> leaves() const { return levels_.front(); }
  std::size_t height() const { return levels_.size() - 1; }
  porep::VanillaMerkleProof proof(std::uint64_t leaf) const;

 private:
  std::vector<std::vector<Bytes32>> levels_;
};

class PoseidonTree {
 public:
  PoseidonTree() = default;
  PoseidonTree(const circuit::TreeShape& shape, std::vector<Fr> leaves);
  const Fr& root() const { return levels_.back()[0]; }
  std::span<const Fr> leaves() const { return levels_.front(); }
  const circuit::TreeShape& shape() const { return shape_; }
  porep::VanillaMerkleProof proof(std::uint64_t leaf) const;

 private:
  circuit::TreeShape shape_;
  std::vector<std::size_t> arities_;
  std::vector<std::vector<Fr>> levels_;
};

// Recomputes the root from a proof's leaf and path (the vanilla verifier's check); for tests and
// self-checks. `hash` selects SHA-254 (tree D) or Poseidon.
Bytes32 merkle_root_from_proof(const porep::VanillaMerkleProof& proof, circuit::TreeHash hash);
// The leaf index a path encodes: Σ index_j · Π(lower arities).
std::uint64_t merkle_proof_leaf_index(const porep::VanillaMerkleProof& proof);

}  // namespace cuzk::filecoin::testkit
