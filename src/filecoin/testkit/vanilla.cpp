#include "filecoin/testkit/vanilla.hpp"

#include "filecoin/porep/c1_json.hpp"

#include <stdexcept>

#include "base/parallel.hpp"
#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/labels.hpp"

namespace cuzk::filecoin::testkit {

using namespace porep;  // the PoRep vocabulary (graph, labels, C1 model) this tooling builds on

void add_labeling_proofs(porep::ChallengeProof& p, std::uint64_t node, std::size_t layers,
                         const std::uint32_t parents[kDegree],
                         const std::function<const Bytes32&(std::size_t layer, std::uint32_t parent)>& label) {
  for (std::size_t layer = 1; layer <= layers; ++layer) {
    // Layer 1 hashes only the DRG parents; later layers add the expander parents of the layer below.
    std::vector<Bytes32> own;
    for (std::size_t i = 0; i < kDrgDegree; ++i) own.push_back(label(layer, parents[i]));
    if (layer > 1)
      for (std::size_t i = kDrgDegree; i < kDegree; ++i) own.push_back(label(layer - 1, parents[i]));
    const auto expanded = expand_parent_labels(own);
    porep::LabelingProof lp;
    lp.parents.assign(expanded.begin(), expanded.end());
    lp.layer_index = std::uint32_t(layer);
    lp.node = node;
    p.labeling_proofs.push_back(std::move(lp));
  }
  p.encoding_proof = p.labeling_proofs.back();
}

porep::ColumnProof column_proof(const SealedSector& s, std::uint32_t node) {
  porep::ColumnProof c;
  c.index = node;
  for (std::size_t l = 1; l <= s.config.layers; ++l) c.rows.push_back(s.label(l, node));
  c.inclusion_proof = s.tree_c.proof(node);
  return c;
}

porep::ChallengeProof challenge_proof(const SealedSector& s, const Graph& g, std::uint64_t challenge) {
  if (challenge == 0 || challenge >= s.config.nodes) throw std::out_of_range("challenge_proof: challenge out of range");
  porep::ChallengeProof p;
  p.comm_d_proofs = s.tree_d.proof(challenge);
  p.comm_r_last_proof = s.tree_r.proof(challenge);
  std::uint32_t parents[kDegree];
  g.parents(challenge, parents);
  p.c_x = column_proof(s, std::uint32_t(challenge));
  for (std::size_t i = 0; i < kDrgDegree; ++i) p.drg_parents.push_back(column_proof(s, parents[i]));
  for (std::size_t i = kDrgDegree; i < kDegree; ++i) p.exp_parents.push_back(column_proof(s, parents[i]));
  add_labeling_proofs(p, challenge, s.config.layers, parents,
                      [&s](std::size_t layer, std::uint32_t n) -> const Bytes32& { return s.label(layer, n); });
  return p;
}

porep::C1Output commit_phase1(const SealedSector& s, const Bytes32& seed) {
  porep::C1Output out;
  out.registered_proof = s.config.name;
  out.vanilla_key = porep::vanilla_key_for(s.config.name);
  out.comm_r = s.comm_r;
  out.comm_d = s.comm_d;
  out.replica_id = s.replica_id;
  out.seed = seed;
  out.ticket = s.ticket;
  const Graph g(s.config);
  for (std::size_t k = 0; k < s.config.partitions; ++k) {
    const auto challenges = partition_challenges(s.config, s.replica_id, seed, s.comm_r, k);
    std::vector<porep::ChallengeProof> proofs(challenges.size());
    parallel_for(
        challenges.size(), [&](std::size_t i) { proofs[i] = challenge_proof(s, g, challenges[i]); }, 1);
    out.vanilla_proofs.push_back(std::move(proofs));
  }
  return out;
}

porep::C1Output seal_commit_phase1(const porep::PorepConfig& config, const SealInputs& inputs) {
  return commit_phase1(seal(config, inputs), inputs.seed);
}

}  // namespace cuzk::filecoin::testkit
