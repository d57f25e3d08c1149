#include "filecoin/snap/circuit_values.hpp"

namespace cuzk::filecoin::snap {
namespace {

circuit::MerkleProof dummy_path(std::span<const std::size_t> arities, std::uint64_t seed) {
  circuit::MerkleProof m;
  m.leaf = circuit::Fr::from_u64(seed + 1);
  m.root = circuit::Fr::from_u64(seed + 2);
  for (std::size_t arity : arities) {
    m.positions.push_back(0);
    std::vector<circuit::Fr> sib;
    for (std::size_t k = 0; k + 1 < arity; ++k) sib.push_back(circuit::Fr::from_u64(100 + seed + k));
    m.siblings.push_back(std::move(sib));
  }
  return m;
}

}  // namespace

PartitionValues dummy_partition_values(const SnapGeometry& g, std::size_t k, std::uint64_t seed) {
  PartitionValues v;
  v.k = k;
  v.comm_r_old = circuit::Fr::from_u64(seed + 3);
  v.comm_d_new = circuit::Fr::from_u64(seed + 4);
  v.comm_r_new = circuit::Fr::from_u64(seed + 5);
  v.comm_c = circuit::Fr::from_u64(seed + 6);
  v.root_r_old = circuit::Fr::from_u64(seed + 7);
  v.root_r_new = circuit::Fr::from_u64(seed + 8);
  for (std::size_t i = 0; i < g.apex_leaf_count; ++i) v.apex_leafs.push_back(circuit::Fr::from_u64(seed + 20 + i));
  for (std::size_t i = 0; i < g.partition_bits; ++i) v.partition_path.push_back(circuit::Fr::from_u64(seed + 10 + i));
  const auto r_arities = g.tree_r.level_arities();
  const bool poseidon = g.variant == UpdateVariant::kPoseidon;
  const std::vector<std::size_t> d_arities(poseidon ? 0 : g.apex_level(), 2);
  for (std::size_t c = 0; c < g.challenge_count; ++c) {
    ChallengeValues cv;
    cv.leaf_r_old = circuit::Fr::from_u64(seed + 30 + c);
    cv.leaf_d_new = circuit::Fr::from_u64(seed + 31 + c);
    cv.path_r_old = dummy_path(r_arities, seed + c);
    cv.path_r_new = dummy_path(r_arities, seed + c + 1);
    cv.path_d_new = poseidon ? dummy_path(r_arities, seed + c + 2) : dummy_path(d_arities, seed + c + 2);
    v.challenges.push_back(std::move(cv));
  }
  return v;
}

}  // namespace cuzk::filecoin::snap
