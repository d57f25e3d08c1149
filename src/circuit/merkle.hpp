// Native Merkle trees as Filecoin builds them (merkletree crate + filecoin-hashers): the twin of
// gadgets/por.hpp. A base-sub-top tree (e.g. 8-8-2) is a tree whose levels have arities
// [base × L, sub, top] with the leaf index split into consecutive little-endian bit groups, so one
// list of level arities describes every shape.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "math/ff/bls12_381.hpp"

namespace cuzk::circuit {

using math::Fr;

enum class TreeHash { kSha256, kPoseidon };

struct TreeShape {
  TreeHash hash = TreeHash::kPoseidon;
  std::size_t base_arity = 8, base_levels = 0, sub_arity = 0, top_arity = 0;

  std::vector<std::size_t> level_arities() const;
  std::size_t num_leaves() const;
};

// Hash of one group of children: SHA-254 of their 32-byte LE encodings (tree D), or Poseidon with the
// MerkleTree tag of arity children.size().
Fr tree_hash_native(TreeHash h, std::span<const Fr> children);

// An inclusion proof: per level (bottom up) the position of the path node in its group and the
// other arity-1 children in order.
struct MerkleProof {
  Fr leaf;
  std::vector<std::size_t> positions;
  std::vector<std::vector<Fr>> siblings;
  Fr root;
};

class NativeMerkleTree {
 public:
  NativeMerkleTree(const TreeShape& shape, std::vector<Fr> leaves);
  const Fr& root() const { return levels_.back()[0]; }
  MerkleProof proof(std::size_t leaf_index) const;
  const TreeShape& shape() const { return shape_; }

 private:
  TreeShape shape_;
  std::vector<std::size_t> arities_;
  std::vector<std::vector<Fr>> levels_;
};

}  // namespace cuzk::circuit
