// SYNTHETIC TEST DATA trees: a Poseidon tree (base-sub-top shape) of which only the opened paths
// exist, for test inputs at production sizes (synthetic C1s, synthetic PoSt sectors) where the full
// tree (2^30 leaves at 32 GiB) cannot be built. Per level a map index → value: every group of `arity`
// children that contains a known node is completed with siblings from `sibling(level, index)`
// (pseudo-random, chosen by the caller so that values do not depend on the order they are drawn in),
// hashed, and its parent becomes known one level up; a node shared by several paths is computed once,
// so all paths agree on every node they share and every proof hashes to the one root.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "circuit/merkle.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/common/merkle_proof.hpp"

namespace cuzk::filecoin::testkit {

class SparsePoseidonTree {
 public:
  using SiblingFn = std::function<Fr(std::size_t level, std::uint64_t index)>;

  // `leaves`: the opened leaves (index → value), at least one. `parallel`: hash each level on all
  // threads (false when the caller already runs one tree per thread).
  SparsePoseidonTree(const circuit::TreeShape& shape, std::unordered_map<std::uint64_t, Fr> leaves,
                     const SiblingFn& sibling, bool parallel = true);

  const Fr& root() const { return levels_.back().at(0); }
  // Materialized nodes over all levels.
  std::size_t materialized() const;
  // The proof of an opened leaf in the vanilla model (Single, or Sub/Top: base levels, sub, top);
  // throws std::logic_error for a leaf that was not opened.
  VanillaMerkleProof proof(std::uint64_t leaf) const;

 private:
  circuit::TreeShape shape_;
  std::vector<std::size_t> arities_;
  std::vector<std::unordered_map<std::uint64_t, Fr>> levels_;
};

}  // namespace cuzk::filecoin::testkit
