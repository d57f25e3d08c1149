#include "filecoin/common/merkle_path.hpp"

#include <vector>

namespace cuzk::filecoin {

Result<math::Fr> fr_from_bytes32(const Bytes32& b, const std::string& where) {
  auto x = math::Fr::from_bytes_le(b);
  if (!x) return Error{where + ": not a field element (value >= r)"};
  return *x;
}

Bytes32 fr_to_bytes32(const math::Fr& x) {
  Bytes32 b;
  x.to_bytes_le(b);
  return b;
}

Result<circuit::MerkleProof> to_circuit_path(const VanillaMerkleProof& p, std::span<const std::size_t> arities,
                                             const std::string& where) {
  const InclusionPath levels = p.all_levels();
  if (levels.size() != arities.size())
    return Error{where + ": path has " + std::to_string(levels.size()) + " levels, the tree has " +
                 std::to_string(arities.size())};
  circuit::MerkleProof out;
  out.positions.reserve(levels.size());
  out.siblings.reserve(levels.size());
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const std::string at = where + ".path[" + std::to_string(l) + "]";
    if (levels[l].hashes.size() + 1 != arities[l])
      return Error{at + ": " + std::to_string(levels[l].hashes.size()) + " sibling hashes, expected " +
                   std::to_string(arities[l] - 1)};
    if (levels[l].index >= arities[l])
      return Error{at + ".index: " + std::to_string(levels[l].index) + " is not below the arity " +
                   std::to_string(arities[l])};
    out.positions.push_back(std::size_t(levels[l].index));
    std::vector<math::Fr> sib;
    sib.reserve(levels[l].hashes.size());
    for (std::size_t k = 0; k < levels[l].hashes.size(); ++k) {
      auto v = fr_from_bytes32(levels[l].hashes[k], at + ".hashes[" + std::to_string(k) + "]");
      if (!v) return Error{v.error()};
      sib.push_back(*v);
    }
    out.siblings.push_back(std::move(sib));
  }
  auto leaf = fr_from_bytes32(p.leaf, where + ".leaf");
  if (!leaf) return Error{leaf.error()};
  auto root = fr_from_bytes32(p.root, where + ".root");
  if (!root) return Error{root.error()};
  out.leaf = *leaf;
  out.root = *root;
  return out;
}

PathResult hash_path(const circuit::MerkleProof& path, circuit::TreeHash hash) {
  PathResult r{path.leaf, 0};
  std::uint64_t stride = 1;
  std::vector<math::Fr> children;
  for (std::size_t l = 0; l < path.positions.size(); ++l) {
    children = path.siblings[l];
    children.insert(children.begin() + std::ptrdiff_t(path.positions[l]), r.root);
    r.root = circuit::tree_hash_native(hash, children);
    r.index += path.positions[l] * stride;
    stride *= children.size();
  }
  return r;
}

math::Fr comm_r_of(const math::Fr& comm_c, const math::Fr& comm_r_last) {
  const math::Fr pre[2] = {comm_c, comm_r_last};
  return circuit::tree_hash_native(circuit::TreeHash::kPoseidon, std::span<const math::Fr>(pre, 2));
}

}  // namespace cuzk::filecoin
