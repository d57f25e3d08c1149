#include "filecoin/sdr/verify.hpp"

#include <bit>
#include <stdexcept>
#include <vector>

#include "circuit/poseidon.hpp"
#include "filecoin/sdr/challenges.hpp"
#include "filecoin/sdr/graph.hpp"
#include "filecoin/sdr/labels.hpp"
#include "filecoin/sdr/tree.hpp"
#include "filecoin/sdr/vanilla.hpp"

namespace cuzk::filecoin::sdr {
namespace {

struct Failure {
  std::string what;
};

void require(bool ok, const std::string& what) {
  if (!ok) throw Failure{what};
}

Bytes32 poseidon_of(std::span<const Bytes32> xs) {
  std::vector<Fr> v;
  for (const Bytes32& b : xs) v.push_back(fr_from_bytes(b));
  return fr_to_bytes(circuit::poseidon_hash(circuit::poseidon_constants(v.size()), v));
}

std::size_t levels(const porep::InclusionPath& p, std::size_t arity) {
  for (const auto& e : p) require(e.hashes.size() + 1 == arity, "path element of the wrong arity");
  return p.size();
}

// A tree-C or tree-R proof: the configured shape, the expected leaf index, a consistent root.
void check_rc_proof(const porep::PorepConfig& cfg, const porep::VanillaMerkleProof& p, std::uint64_t leaf,
                    const char* what) {
  const circuit::TreeShape shape = cfg.tree_rc_shape();
  const auto kind = shape.top_arity ? porep::MerkleProofKind::kTop
                                    : shape.sub_arity ? porep::MerkleProofKind::kSub : porep::MerkleProofKind::kSingle;
  require(p.kind == kind, std::string(what) + ": wrong proof kind for the tree shape");
  require(levels(p.base, shape.base_arity) == shape.base_levels, std::string(what) + ": wrong number of base levels");
  require(levels(p.sub, shape.sub_arity ? shape.sub_arity : 1) == (shape.sub_arity ? 1u : 0u), std::string(what) + ": wrong sub level");
  require(levels(p.top, shape.top_arity ? shape.top_arity : 1) == (shape.top_arity ? 1u : 0u), std::string(what) + ": wrong top level");
  require(merkle_proof_leaf_index(p) == leaf, std::string(what) + ": path does not lead to leaf " + std::to_string(leaf));
  require(merkle_root_from_proof(p, circuit::TreeHash::kPoseidon) == p.root, std::string(what) + ": path does not hash to its root");
}

void check_column(const porep::PorepConfig& cfg, const porep::ColumnProof& c, std::uint64_t node, const Bytes32& comm_c,
                  const std::string& what) {
  require(c.index == node, what + ": column index " + std::to_string(c.index) + " != " + std::to_string(node));
  require(c.rows.size() == cfg.layers, what + ": column has " + std::to_string(c.rows.size()) + " rows");
  require(c.inclusion_proof.leaf == poseidon_of(c.rows), what + ": column hash != tree-C leaf");
  check_rc_proof(cfg, c.inclusion_proof, node, what.c_str());
  require(c.inclusion_proof.root == comm_c, what + ": tree-C root != comm_c");
}

void check_challenge(const porep::PorepConfig& cfg, const Graph& g, const porep::C1Output& c1,
                     const porep::ChallengeProof& p, std::uint64_t challenge, const Bytes32& comm_c,
                     const Bytes32& comm_r_last) {
  // Tree D.
  const auto& d = p.comm_d_proofs;
  require(d.kind == porep::MerkleProofKind::kSingle, "comm_d proof is not Single");
  require(levels(d.base, 2) == std::size_t(std::countr_zero(cfg.nodes)), "comm_d proof has the wrong height");
  require(merkle_proof_leaf_index(d) == challenge, "comm_d proof does not lead to the challenge");
  require(d.root == c1.comm_d, "comm_d proof root != comm_d");
  require(merkle_root_from_proof(d, circuit::TreeHash::kSha256) == d.root, "comm_d path does not hash to comm_d");
  // Tree R.
  check_rc_proof(cfg, p.comm_r_last_proof, challenge, "comm_r_last proof");
  require(p.comm_r_last_proof.root == comm_r_last, "comm_r_last proof roots differ between challenges");
  // Columns.
  std::uint32_t parents[kDegree];
  g.parents(challenge, parents);
  check_column(cfg, p.c_x, challenge, comm_c, "c_x");
  require(p.drg_parents.size() == kDrgDegree && p.exp_parents.size() == kExpDegree, "wrong number of parent columns");
  for (std::size_t i = 0; i < kDrgDegree; ++i)
    check_column(cfg, p.drg_parents[i], parents[i], comm_c, "drg parent " + std::to_string(i));
  for (std::size_t i = 0; i < kExpDegree; ++i)
    check_column(cfg, p.exp_parents[i], parents[kDrgDegree + i], comm_c, "exp parent " + std::to_string(i));
  // Labels: each layer's label recomputes from the parents' rows.
  require(p.labeling_proofs.size() == cfg.layers, "wrong number of labeling proofs");
  for (std::size_t layer = 1; layer <= cfg.layers; ++layer) {
    const porep::LabelingProof& lp = p.labeling_proofs[layer - 1];
    const std::string where = "labeling proof layer " + std::to_string(layer);
    require(lp.layer_index == layer && lp.node == challenge, where + ": wrong layer_index/node");
    std::vector<Bytes32> own;
    for (const auto& c : p.drg_parents) own.push_back(c.rows[layer - 1]);
    if (layer > 1)
      for (const auto& c : p.exp_parents) own.push_back(c.rows[layer - 2]);
    const auto expanded = expand_parent_labels(own);
    require(lp.parents.size() == kTotalParents && std::equal(lp.parents.begin(), lp.parents.end(), expanded.begin()),
            where + ": parents differ from the parent columns");
    require(label_hash(c1.replica_id, std::uint32_t(layer), challenge, lp.parents) == p.c_x.rows[layer - 1],
            where + ": does not hash to the column row");
  }
  const porep::LabelingProof& last = p.labeling_proofs.back();
  require(p.encoding_proof.layer_index == last.layer_index && p.encoding_proof.node == last.node &&
              p.encoding_proof.parents == last.parents,
          "encoding proof differs from the last labeling proof");
  // Encoding: replica leaf = label_L + data leaf.
  const Fr key = fr_from_bytes(p.c_x.rows.back()), data = fr_from_bytes(d.leaf);
  require(fr_to_bytes(key + data) == p.comm_r_last_proof.leaf, "tree-R leaf != label_L + data");
}

}  // namespace

std::string verify_c1(const porep::PorepConfig& cfg, const porep::C1Output& c1) {
  try {
    if (c1.registered_proof != cfg.name) return "registered_proof " + c1.registered_proof + " != " + cfg.name;
    if (c1.vanilla_key != vanilla_proof_key(cfg)) return "vanilla proof key " + c1.vanilla_key + " != " + vanilla_proof_key(cfg);
    if (c1.vanilla_proofs.size() != cfg.partitions)
      return std::to_string(c1.vanilla_proofs.size()) + " partitions, expected " + std::to_string(cfg.partitions);
    if (c1.vanilla_proofs.empty() || c1.vanilla_proofs[0].empty()) return "no vanilla proofs";
    const Bytes32 comm_c = c1.vanilla_proofs[0][0].c_x.inclusion_proof.root;
    const Bytes32 comm_r_last = c1.vanilla_proofs[0][0].comm_r_last_proof.root;
    const Bytes32 pair[2] = {comm_c, comm_r_last};
    if (poseidon_of(pair) != c1.comm_r) return "comm_r != Poseidon2(comm_c, comm_r_last)";
    const Graph g(cfg);
    for (std::size_t k = 0; k < c1.vanilla_proofs.size(); ++k) {
      const auto challenges = partition_challenges(cfg, c1.replica_id, c1.seed, c1.comm_r, k);
      const auto& proofs = c1.vanilla_proofs[k];
      if (proofs.size() != challenges.size())
        return "partition " + std::to_string(k) + ": " + std::to_string(proofs.size()) + " proofs, expected " +
               std::to_string(challenges.size());
      for (std::size_t j = 0; j < proofs.size(); ++j) {
        try {
          check_challenge(cfg, g, c1, proofs[j], challenges[j], comm_c, comm_r_last);
        } catch (const Failure& f) {
          return "partition " + std::to_string(k) + " challenge " + std::to_string(j) + " (node " +
                 std::to_string(challenges[j]) + "): " + f.what;
        }
      }
    }
  } catch (const Failure& f) {
    return f.what;
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

}  // namespace cuzk::filecoin::sdr
