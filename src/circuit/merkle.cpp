#include "circuit/merkle.hpp"

#include <cassert>
#include <stdexcept>

#include "circuit/poseidon.hpp"
#include "circuit/sha256_native.hpp"

namespace cuzk::circuit {

std::vector<std::size_t> TreeShape::level_arities() const {
  std::vector<std::size_t> a(base_levels, base_arity);
  if (sub_arity) a.push_back(sub_arity);
  if (top_arity) a.push_back(top_arity);
  return a;
}

std::size_t TreeShape::num_leaves() const {
  std::size_t n = 1;
  for (auto a : level_arities()) n *= a;
  return n;
}

Fr tree_hash_native(TreeHash h, std::span<const Fr> children) {
  if (h == TreeHash::kPoseidon) return poseidon_hash(poseidon_constants(children.size()), children);
  std::vector<std::uint8_t> bytes;
  for (const Fr& c : children) {
    auto b = fr_to_le_bytes(c);
    bytes.insert(bytes.end(), b.begin(), b.end());
  }
  return fr_from_le_bytes(sha254(bytes));
}

NativeMerkleTree::NativeMerkleTree(const TreeShape& shape, std::vector<Fr> leaves)
    : shape_(shape), arities_(shape.level_arities()) {
  if (leaves.size() != shape.num_leaves()) throw std::invalid_argument("leaf count does not match the tree shape");
  levels_.push_back(std::move(leaves));
  for (std::size_t a : arities_) {
    const auto& cur = levels_.back();
    std::vector<Fr> next;
    for (std::size_t k = 0; k < cur.size(); k += a)
      next.push_back(tree_hash_native(shape.hash, std::span(cur).subspan(k, a)));
    levels_.push_back(std::move(next));
  }
}

MerkleProof NativeMerkleTree::proof(std::size_t index) const {
  MerkleProof p;
  p.leaf = levels_[0].at(index);
  for (std::size_t l = 0; l < arities_.size(); ++l) {
    std::size_t a = arities_[l], group = index / a * a;
    p.positions.push_back(index % a);
    std::vector<Fr> sib;
    for (std::size_t k = 0; k < a; ++k) {
      if (k != index % a) sib.push_back(levels_[l][group + k]);
    }
    p.siblings.push_back(std::move(sib));
    index /= a;
  }
  p.root = root();
  return p;
}

}  // namespace cuzk::circuit
