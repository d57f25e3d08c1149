#include "filecoin/testkit/tree.hpp"

#include <stdexcept>

#include "base/parallel.hpp"
#include "circuit/poseidon.hpp"
#include "filecoin/common/sha.hpp"

namespace cuzk::filecoin::testkit {

using namespace porep;  // the PoRep vocabulary (graph, labels, C1 model) this tooling builds on
namespace {

Bytes32 sha254_pair(const Bytes32& a, const Bytes32& b) {
  std::uint8_t msg[64];
  std::copy(a.begin(), a.end(), msg);
  std::copy(b.begin(), b.end(), msg + 32);
  return sha254(msg);
}

// One path element: the group of `arity` children around position `index` at a level.
template <class Node, class ToBytes>
porep::PathElement path_element(const std::vector<Node>& level, std::uint64_t index, std::size_t arity,
                                ToBytes to_bytes) {
  porep::PathElement e;
  e.index = index % arity;
  const std::uint64_t group = index - e.index;
  for (std::size_t k = 0; k < arity; ++k)
    if (k != e.index) e.hashes.push_back(to_bytes(level[group + k]));
  return e;
}

}  // namespace

ShaTree::ShaTree(std::vector<Bytes32> leaves) {
  if (leaves.size() < 2 || (leaves.size() & (leaves.size() - 1)))
    throw std::invalid_argument("tree D: leaf count must be a power of two >= 2");
  levels_.push_back(std::move(leaves));
  while (levels_.back().size() > 1) {
    const auto& cur = levels_.back();
    std::vector<Bytes32> next(cur.size() / 2);
    parallel_for(
        next.size(), [&](std::size_t i) { next[i] = sha254_pair(cur[2 * i], cur[2 * i + 1]); }, 4096);
    levels_.push_back(std::move(next));
  }
}

porep::VanillaMerkleProof ShaTree::proof(std::uint64_t leaf) const {
  if (leaf >= levels_.front().size()) throw std::out_of_range("tree D: leaf index out of range");
  porep::VanillaMerkleProof p;
  p.kind = porep::MerkleProofKind::kSingle;
  p.leaf = levels_.front()[leaf];
  p.root = root();
  auto same = [](const Bytes32& b) { return b; };
  for (std::size_t l = 0; l + 1 < levels_.size(); ++l, leaf /= 2)
    p.base.push_back(path_element(levels_[l], leaf, 2, same));
  return p;
}

PoseidonTree::PoseidonTree(const circuit::TreeShape& shape, std::vector<Fr> leaves)
    : shape_(shape), arities_(shape.level_arities()) {
  if (leaves.size() != shape.num_leaves())
    throw std::invalid_argument("poseidon tree: leaf count does not match the shape");
  levels_.push_back(std::move(leaves));
  for (std::size_t a : arities_) {
    const auto& cur = levels_.back();
    const circuit::PoseidonConstants& c = circuit::poseidon_constants(a);
    std::vector<Fr> next(cur.size() / a);
    parallel_for(
        next.size(), [&](std::size_t i) { next[i] = circuit::poseidon_hash(c, std::span(cur).subspan(a * i, a)); },
        256);
    levels_.push_back(std::move(next));
  }
}

porep::VanillaMerkleProof PoseidonTree::proof(std::uint64_t leaf) const {
  if (leaf >= levels_.front().size()) throw std::out_of_range("poseidon tree: leaf index out of range");
  porep::VanillaMerkleProof p;
  p.kind = shape_.top_arity   ? porep::MerkleProofKind::kTop
           : shape_.sub_arity ? porep::MerkleProofKind::kSub
                              : porep::MerkleProofKind::kSingle;
  p.leaf = fr_to_bytes(levels_.front()[leaf]);
  p.root = fr_to_bytes(root());
  auto to_bytes = [](const Fr& x) { return fr_to_bytes(x); };
  for (std::size_t l = 0; l < arities_.size(); ++l) {
    porep::PathElement e = path_element(levels_[l], leaf, arities_[l], to_bytes);
    leaf /= arities_[l];
    // Levels past the base ones are the sub level, then the top level.
    if (l < shape_.base_levels) p.base.push_back(std::move(e));
    else if (shape_.sub_arity && l == shape_.base_levels) p.sub.push_back(std::move(e));
    else p.top.push_back(std::move(e));
  }
  return p;
}

Bytes32 merkle_root_from_proof(const porep::VanillaMerkleProof& proof, circuit::TreeHash hash) {
  Bytes32 cur = proof.leaf;
  for (const porep::PathElement& e : proof.all_levels()) {
    const std::size_t arity = e.hashes.size() + 1;
    if (e.index >= arity) throw std::invalid_argument("merkle proof: index past the arity");
    std::vector<Bytes32> group;
    for (std::size_t k = 0, s = 0; k < arity; ++k) group.push_back(k == e.index ? cur : e.hashes[s++]);
    if (hash == circuit::TreeHash::kSha256) {
      if (arity != 2) throw std::invalid_argument("merkle proof: SHA-256 trees are binary");
      cur = sha254_pair(group[0], group[1]);
    } else {
      std::vector<Fr> xs;
      for (const Bytes32& b : group) xs.push_back(fr_from_bytes(b));
      cur = fr_to_bytes(circuit::poseidon_hash(circuit::poseidon_constants(arity), xs));
    }
  }
  return cur;
}

std::uint64_t merkle_proof_leaf_index(const porep::VanillaMerkleProof& proof) {
  std::uint64_t index = 0, scale = 1;
  for (const porep::PathElement& e : proof.all_levels()) {
    index += e.index * scale;
    scale *= e.hashes.size() + 1;
  }
  return index;
}

}  // namespace cuzk::filecoin::testkit
