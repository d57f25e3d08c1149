// Merkle inclusion (storage-proofs-core gadgets/por.rs PoRCircuit): per level allocate log2(arity)
// index bits (LSB first), allocate the arity-1 siblings, insert the current node, hash (Poseidon of
// that arity, or SHA-256 for binary tree D). After all levels (base, then sub, then top):
// pack_into_inputs(all index bits) and root equality. Level costs: octree 530, quad 387, binary
// Poseidon 314, binary SHA-256 45,382; a path adds 2 rows (packing, equality).
#pragma once

#include <bit>
#include <span>
#include <vector>

#include "circuit/gadgets/insertion.hpp"
#include "circuit/gadgets/poseidon.hpp"
#include "circuit/gadgets/sha256.hpp"
#include "circuit/merkle.hpp"

namespace cuzk::circuit {

// filecoin-hashers hash_multi_leaf_circuit for the tree's hasher.
template <class CS>
AllocatedNum tree_hash_circuit(CS& cs, TreeHash h, std::span<const AllocatedNum> children) {
  if (h == TreeHash::kSha256) return sha256_hash_multi_leaf(cs, children);
  return poseidon_hash_circuit(cs, children, poseidon_constants(children.size()));
}

// One level of SubPath::synthesize; appends the level's index bits to path_bits.
template <class CS>
AllocatedNum por_level(CS& cs, TreeHash h, std::size_t arity, const AllocatedNum& cur, std::size_t position,
                       std::span<const Fr> siblings, std::vector<Boolean>& path_bits) {
  const int nbits = std::countr_zero(arity);
  std::vector<Boolean> bits;
  for (int i = 0; i < nbits; ++i) {
    auto g = cs.ns(Name("index bit", i));
    bits.push_back(Boolean::is(alloc_bit(cs, (position >> i) & 1)));
  }
  path_bits.insert(path_bits.end(), bits.begin(), bits.end());
  std::vector<AllocatedNum> sib;
  for (std::size_t i = 0; i < siblings.size(); ++i) {
    auto g = cs.ns(Name("path element", std::int64_t(i)));
    sib.push_back(alloc_num(cs, siblings[i]));
  }
  auto inserted = insert(cs, cur, bits, sib);
  auto g = cs.ns("computation of commitment hash");
  return tree_hash_circuit(cs, h, inserted);
}

// PoRCircuit::synthesize. `leaf_var` / `root_var`: already allocated nums (Root::Var, as the PoRep
// circuit's enforce_inclusion passes them), or nullptr to allocate from the proof (Root::Val).
// A public root (private_root = false) is also inputized.
template <class CS>
void por_circuit(CS& cs, const TreeShape& shape, const MerkleProof& proof, const AllocatedNum* leaf_var = nullptr,
                 const AllocatedNum* root_var = nullptr, bool private_root = true) {
  auto arities = shape.level_arities();
  assert(arities.size() == proof.positions.size());
  AllocatedNum cur;
  if (leaf_var) {
    cur = *leaf_var;
  } else {
    auto g = cs.ns("value");
    cur = alloc_num(cs, proof.leaf);
  }
  std::vector<Boolean> path_bits;
  std::size_t level = 0;
  auto subpath = [&](const char* name, std::size_t n) {
    auto g = cs.ns(name);
    for (std::size_t i = 0; i < n; ++i, ++level) {
      auto g2 = cs.ns(Name("merkle tree hash", std::int64_t(i)));
      cur = por_level(cs, shape.hash, arities[level], cur, proof.positions[level], proof.siblings[level], path_bits);
    }
  };
  subpath("base", shape.base_levels);
  subpath("sub", shape.sub_arity ? 1 : 0);
  subpath("top", shape.top_arity ? 1 : 0);
  {
    auto g = cs.ns("path");
    pack_into_inputs(cs, path_bits);
  }
  AllocatedNum rt;
  if (root_var) {
    rt = *root_var;
  } else {
    auto g = cs.ns("root_value");
    rt = alloc_num(cs, proof.root);
  }
  enforce_equal(cs, "enforce root is correct", cur, rt);
  if (!private_root) {
    auto g = cs.ns("root");
    inputize(cs, rt);
  }
}

// storage-proofs-core por_no_challenge_input: the index bits are given (consumed LSB first: log2(arity)
// per level, base levels, then sub, then top; every bit used), the siblings are already allocated
// (per level, arity-1 each), and the computed root must equal `root` (row computed·1 = root). No
// public input. Level cost: insert + the tree's hash (octree 527, binary Poseidon 313, SHA 45,381).
template <class CS>
void por_no_challenge_input(CS& cs, const TreeShape& shape, std::span<const Boolean> bits, const AllocatedNum& leaf,
                            const std::vector<std::vector<AllocatedNum>>& path, const AllocatedNum& root) {
  using LC = typename CS::LC;
  const auto arities = shape.level_arities();
  assert(arities.size() == path.size());
  AllocatedNum cur = leaf;
  std::size_t used = 0;
  for (std::size_t level = 0; level < path.size(); ++level) {
    const std::size_t nbits = std::size_t(std::countr_zero(arities[level]));
    assert(path[level].size() + 1 == arities[level]);
    std::vector<AllocatedNum> preimage;
    {
      auto g = cs.ns(Name("merkle proof insert (height)", std::int64_t(level)));
      preimage = insert(cs, cur, bits.subspan(used, nbits), path[level]);
    }
    used += nbits;
    auto g = cs.ns(Name("merkle proof hash (height)", std::int64_t(level)));
    cur = tree_hash_circuit(cs, shape.hash, preimage);
  }
  assert(used == bits.size());
  cs.enforce("calculated root == provided root", LC(cur.var), LC(Var::one()), LC(root.var));
}

}  // namespace cuzk::circuit
