#include "filecoin/testkit/sparse_tree.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "base/parallel.hpp"
#include "circuit/poseidon.hpp"

namespace cuzk::filecoin::testkit {

SparsePoseidonTree::SparsePoseidonTree(const circuit::TreeShape& shape, std::unordered_map<std::uint64_t, Fr> leaves,
                                       const SiblingFn& sibling, bool parallel)
    : shape_(shape), arities_(shape.level_arities()) {
  if (leaves.empty()) throw std::invalid_argument("sparse tree: no leaves");
  levels_.push_back(std::move(leaves));
  for (std::size_t l = 0; l < arities_.size(); ++l) {
    const std::size_t a = arities_[l];
    std::vector<std::uint64_t> groups;
    groups.reserve(levels_[l].size());
    for (const auto& kv : levels_[l]) groups.push_back(kv.first / a);
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    auto& cur = levels_[l];
    for (std::uint64_t g : groups)
      for (std::uint64_t k = 0; k < a; ++k)
        if (!cur.contains(g * a + k)) cur.emplace(g * a + k, sibling(l, g * a + k));
    const circuit::PoseidonConstants& c = circuit::poseidon_constants(a);
    std::vector<Fr> hashed(groups.size());
    auto hash_group = [&](std::size_t i) {
      Fr xs[16];
      for (std::size_t k = 0; k < a; ++k) xs[k] = cur.at(groups[i] * a + k);
      hashed[i] = circuit::poseidon_hash(c, std::span<const Fr>(xs, a));
    };
    if (parallel) {
      parallel_for(groups.size(), hash_group, 8);
    } else {
      for (std::size_t i = 0; i < groups.size(); ++i) hash_group(i);
    }
    std::unordered_map<std::uint64_t, Fr> next;
    next.reserve(groups.size());
    for (std::size_t i = 0; i < groups.size(); ++i) next.emplace(groups[i], hashed[i]);
    levels_.push_back(std::move(next));
  }
  if (levels_.back().size() != 1 || !levels_.back().contains(0))
    throw std::logic_error("sparse tree: did not end in one root");
}

std::size_t SparsePoseidonTree::materialized() const {
  std::size_t n = 0;
  for (const auto& l : levels_) n += l.size();
  return n;
}

VanillaMerkleProof SparsePoseidonTree::proof(std::uint64_t leaf) const {
  if (!levels_.front().contains(leaf)) throw std::logic_error("sparse tree: no path to leaf " + std::to_string(leaf));
  VanillaMerkleProof p;
  p.kind = shape_.top_arity   ? MerkleProofKind::kTop
           : shape_.sub_arity ? MerkleProofKind::kSub
                              : MerkleProofKind::kSingle;
  p.leaf = fr_to_bytes(levels_.front().at(leaf));
  p.root = fr_to_bytes(root());
  std::uint64_t index = leaf;
  for (std::size_t l = 0; l < arities_.size(); ++l) {
    const std::size_t a = arities_[l];
    PathElement e;
    e.index = index % a;
    const std::uint64_t first = index - e.index;
    for (std::uint64_t k = 0; k < a; ++k)
      if (k != e.index) e.hashes.push_back(fr_to_bytes(levels_[l].at(first + k)));
    index /= a;
    if (l < shape_.base_levels) p.base.push_back(std::move(e));
    else if (shape_.sub_arity && l == shape_.base_levels) p.sub.push_back(std::move(e));
    else p.top.push_back(std::move(e));
  }
  return p;
}

}  // namespace cuzk::filecoin::testkit
