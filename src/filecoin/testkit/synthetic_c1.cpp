// SYNTHETIC TEST DATA generator (see synthetic_c1.hpp for the construction and why it is consistent).
#include "filecoin/testkit/synthetic_c1.hpp"

#include "filecoin/porep/c1_json.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/parallel.hpp"
#include "circuit/poseidon.hpp"
#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/ids.hpp"
#include "filecoin/porep/labels.hpp"
#include "filecoin/common/sha.hpp"
#include "filecoin/testkit/sparse_tree.hpp"
#include "filecoin/testkit/tree.hpp"
#include "filecoin/testkit/vanilla.hpp"

namespace cuzk::filecoin::testkit {

using namespace porep;  // the PoRep vocabulary (graph, labels, C1 model) this tooling builds on
namespace {

// Domain tags of the pseudo-random values (one PRF, keyed by position, so that the result does not
// depend on the order in which values are drawn or on the thread count).
enum Tag : std::uint8_t { kTagData = 'D', kTagLabel = 'L', kTagTreeC = 'C', kTagTreeR = 'R' };

// SHA-254("cuzk-synthetic-c1" ‖ tag ‖ rng_seed ‖ a ‖ b): a canonical field element (< 2^254 < r).
Bytes32 prf(Tag tag, std::uint64_t rng_seed, std::uint64_t a, std::uint64_t b) {
  static constexpr char kDomain[] = "cuzk-synthetic-c1";
  std::uint8_t msg[sizeof(kDomain) - 1 + 1 + 24];
  std::size_t o = 0;
  for (std::size_t i = 0; i + 1 < sizeof(kDomain); ++i) msg[o++] = std::uint8_t(kDomain[i]);
  msg[o++] = tag;
  for (std::uint64_t v : {rng_seed, a, b})
    for (int i = 0; i < 8; ++i) msg[o++] = std::uint8_t(v >> (8 * i));
  return sha254(msg);
}

Bytes32 sha254_pair(const Bytes32& a, const Bytes32& b) {
  std::uint8_t msg[64];
  std::copy(a.begin(), a.end(), msg);
  std::copy(b.begin(), b.end(), msg + 32);
  return sha254(msg);
}

// Tree D of periodic data: leaves n = block[n mod 2^k]. Levels 0..k are the block's own tree; above,
// every node of height j is h_j (all subtrees of height j are equal), h_{j+1} = SHA-254(h_j ‖ h_j).
class PeriodicShaTree {
 public:
  PeriodicShaTree(std::vector<Bytes32> block, unsigned height) : block_(std::move(block)) {
    block_log2_ = unsigned(std::countr_zero(block_.leaves().size()));
    mask_ = (std::uint64_t(1) << block_log2_) - 1;
    upper_.push_back(block_.root());
    for (unsigned j = block_log2_; j < height; ++j) upper_.push_back(sha254_pair(upper_.back(), upper_.back()));
  }
  const Bytes32& root() const { return upper_.back(); }
  const Bytes32& leaf(std::uint64_t n) const { return block_.leaves()[n & mask_]; }
  porep::VanillaMerkleProof proof(std::uint64_t n) const {
    porep::VanillaMerkleProof p = block_.proof(n & mask_);
    p.root = root();
    for (std::size_t j = 0; j + 1 < upper_.size(); ++j) {
      porep::PathElement e;
      e.index = (n >> (block_log2_ + j)) & 1;
      e.hashes.push_back(upper_[j]);  // the sibling subtree has the same content
      p.base.push_back(std::move(e));
    }
    return p;
  }

 private:
  ShaTree block_;
  unsigned block_log2_ = 0;
  std::uint64_t mask_ = 0;
  std::vector<Bytes32> upper_;  // h_k .. h_height
};

// Pseudo-random siblings of a sparse tree (tag kTagTreeC or kTagTreeR), keyed by level and index.
SparsePoseidonTree::SiblingFn tree_siblings(Tag tag, std::uint64_t rng_seed) {
  return [tag, rng_seed](std::size_t level, std::uint64_t index) {
    return fr_from_bytes(prf(tag, rng_seed, level, index));
  };
}

using Column = std::vector<Bytes32>;  // rows of layers 1..L

unsigned data_block_log2(const porep::PorepConfig& cfg, const SyntheticC1Options& opt) {
  return std::clamp(opt.data_block_log2, 1u, unsigned(std::countr_zero(cfg.nodes)));
}

}  // namespace

Bytes32 synthetic_data_node(const porep::PorepConfig& cfg, const SyntheticC1Options& opt, std::uint64_t node) {
  if (opt.zero_data) return Bytes32{};
  return prf(kTagData, opt.rng_seed, node & ((std::uint64_t(1) << data_block_log2(cfg, opt)) - 1), 0);
}

bool synthetic_c1_supported(const porep::PorepConfig& cfg) {
  return cfg.variant == porep::PorepVariant::kV1 || cfg.variant == porep::PorepVariant::kV1_1;
}

porep::C1Output synthetic_c1(const porep::PorepConfig& cfg, const SyntheticC1Options& opt, SyntheticC1Stats* stats,
                             const SyntheticC1Progress& on_progress) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!synthetic_c1_supported(cfg))
    throw std::invalid_argument("synthetic C1: " + cfg.name +
                                " is not supported: its challenges depend on comm_r, which cannot be fixed before the "
                                "challenged nodes are known without sealing the sector (use a V1 or V1_1 proof)");
  if (cfg.layers == 0 || cfg.layers > 16) throw std::invalid_argument("synthetic C1: unsupported layer count");
  const std::uint64_t nodes = cfg.nodes;
  if (nodes < 4 || !std::has_single_bit(nodes))
    throw std::invalid_argument("synthetic C1: node count must be a power of two");
  const unsigned height = unsigned(std::countr_zero(nodes));
  const std::size_t L = cfg.layers;

  // Data and tree D (periodic data: see the header) → comm_d → replica_id → the challenges.
  std::vector<Bytes32> block(std::size_t(1) << data_block_log2(cfg, opt));
  parallel_for(
      block.size(), [&](std::size_t i) { block[i] = synthetic_data_node(cfg, opt, i); }, 4096);
  const PeriodicShaTree tree_d(std::move(block), height);
  const Bytes32 comm_d = tree_d.root();
  const Bytes32 rid = replica_id(opt.prover_id, opt.sector_id, opt.ticket, comm_d, porep_id(cfg));
  std::vector<std::vector<std::uint64_t>> challenges(cfg.partitions);
  for (std::size_t p = 0; p < cfg.partitions; ++p)
    challenges[p] = partition_challenges(cfg, rid, opt.seed, Bytes32{} /* comm_r: unused by V1/V1_1 */, p);

  // The challenged nodes (sorted, distinct) and their parents.
  std::vector<std::uint64_t> challenged;
  for (const auto& cs : challenges) challenged.insert(challenged.end(), cs.begin(), cs.end());
  std::sort(challenged.begin(), challenged.end());
  challenged.erase(std::unique(challenged.begin(), challenged.end()), challenged.end());
  const Graph graph(cfg);
  std::vector<std::array<std::uint32_t, kDegree>> parents(challenged.size());
  parallel_for(
      challenged.size(), [&](std::size_t i) { graph.parents(challenged[i], parents[i].data()); }, 4);

  // One column per node. Challenged nodes first (rows filled below); then the parents that are not
  // challenged: node 0 gets its true labels (it has no parents), any other node pseudo-random labels.
  std::unordered_map<std::uint64_t, Column> columns;
  columns.reserve(challenged.size() * (kDegree + 1));
  for (std::uint64_t c : challenged) columns.emplace(c, Column(L));
  std::size_t shared = 0;
  {
    std::unordered_set<std::uint64_t> counted;
    std::vector<std::uint64_t> fresh;
    for (std::size_t i = 0; i < challenged.size(); ++i) {
      for (std::size_t j = 0; j < kDegree; ++j) {
        const std::uint64_t p = parents[i][j];
        if (j < kDrgDegree && p >= challenged[i])
          throw std::logic_error("synthetic C1: DRG parent " + std::to_string(p) + " of node " +
                                 std::to_string(challenged[i]) + " is not below it");
        auto [it, inserted] = columns.try_emplace(p, Column(L));
        if (inserted) fresh.push_back(p);
        else if (std::binary_search(challenged.begin(), challenged.end(), p) && counted.insert(p).second) ++shared;
      }
    }
    parallel_for(
        fresh.size(),
        [&](std::size_t i) {
          const std::uint64_t n = fresh[i];
          Column& col = columns.at(n);
          for (std::size_t l = 1; l <= L; ++l)
            col[l - 1] = n == 0 ? label_hash(rid, std::uint32_t(l), 0, {}) : prf(kTagLabel, opt.rng_seed, n, l);
        },
        16);
  }
  // Labels of the challenged nodes, exactly as SDR computes them: layer by layer, and within a layer
  // in increasing node order, so a challenged DRG parent (always a smaller node) already has its
  // layer-ℓ label and every expander parent its layer-(ℓ−1) label (see the header).
  for (std::size_t l = 1; l <= L; ++l) {
    for (std::size_t i = 0; i < challenged.size(); ++i) {
      std::vector<Bytes32> own;
      own.reserve(kDegree);
      for (std::size_t j = 0; j < kDrgDegree; ++j) own.push_back(columns.at(parents[i][j])[l - 1]);
      if (l > 1)
        for (std::size_t j = kDrgDegree; j < kDegree; ++j) own.push_back(columns.at(parents[i][j])[l - 2]);
      const auto expanded = expand_parent_labels(own);
      columns.at(challenged[i])[l - 1] = label_hash(rid, std::uint32_t(l), challenged[i], expanded);
    }
    if (on_progress) on_progress("labels", l, L);
  }

  // Tree C over the column hashes, tree R over label_L + data of the challenged nodes.
  const circuit::TreeShape shape = cfg.tree_rc_shape();
  if (shape.num_leaves() != nodes) throw std::logic_error("synthetic C1: tree R/C shape does not cover the sector");
  std::unordered_map<std::uint64_t, Fr> c_leaves, r_leaves;
  {
    std::vector<std::uint64_t> keys;
    keys.reserve(columns.size());
    for (const auto& kv : columns) keys.push_back(kv.first);
    std::vector<Fr> hashes(keys.size());
    const circuit::PoseidonConstants& pc = circuit::poseidon_constants(L);
    parallel_for(
        keys.size(),
        [&](std::size_t i) {
          Fr rows[16];
          const Column& col = columns.at(keys[i]);
          for (std::size_t l = 0; l < L; ++l) rows[l] = fr_from_bytes(col[l]);
          hashes[i] = circuit::poseidon_hash(pc, std::span<const Fr>(rows, L));
        },
        8);
    c_leaves.reserve(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) c_leaves.emplace(keys[i], hashes[i]);
    for (std::uint64_t c : challenged)
      r_leaves.emplace(c, fr_from_bytes(columns.at(c)[L - 1]) + fr_from_bytes(tree_d.leaf(c)));
  }
  const SparsePoseidonTree tree_c(shape, std::move(c_leaves), tree_siblings(kTagTreeC, opt.rng_seed));
  const SparsePoseidonTree tree_r(shape, std::move(r_leaves), tree_siblings(kTagTreeR, opt.rng_seed));
  const Fr pair[2] = {tree_c.root(), tree_r.root()};
  const Bytes32 comm_r = fr_to_bytes(circuit::poseidon_hash(circuit::poseidon_constants(2), pair));

  // The vanilla proofs, laid out as commit phase 1 does (vanilla.cpp challenge_proof).
  auto column_proof = [&](std::uint64_t node) {
    porep::ColumnProof c;
    c.index = std::uint32_t(node);
    c.rows = columns.at(node);
    c.inclusion_proof = tree_c.proof(node);
    return c;
  };
  auto challenge_proof = [&](std::uint64_t node) {
    const auto at = std::lower_bound(challenged.begin(), challenged.end(), node);
    const std::size_t i = std::size_t(at - challenged.begin());
    const auto& par = parents[i];
    porep::ChallengeProof p;
    p.comm_d_proofs = tree_d.proof(node);
    p.comm_r_last_proof = tree_r.proof(node);
    p.c_x = column_proof(node);
    for (std::size_t j = 0; j < kDrgDegree; ++j) p.drg_parents.push_back(column_proof(par[j]));
    for (std::size_t j = kDrgDegree; j < kDegree; ++j) p.exp_parents.push_back(column_proof(par[j]));
    add_labeling_proofs(p, node, L, par.data(), [&columns](std::size_t layer, std::uint32_t n) -> const Bytes32& {
      return columns.at(n)[layer - 1];
    });
    return p;
  };

  porep::C1Output out;
  out.registered_proof = cfg.name;
  out.vanilla_key = porep::vanilla_key_for(cfg.name);
  out.comm_r = comm_r;
  out.comm_d = comm_d;
  out.replica_id = rid;
  out.seed = opt.seed;
  out.ticket = opt.ticket;
  for (const auto& cs : challenges) {
    std::vector<porep::ChallengeProof> proofs(cs.size());
    parallel_for(
        cs.size(), [&](std::size_t i) { proofs[i] = challenge_proof(cs[i]); }, 1);
    out.vanilla_proofs.push_back(std::move(proofs));
    if (on_progress) on_progress("vanilla proofs", out.vanilla_proofs.size(), challenges.size());
  }

  if (stats) {
    stats->challenged_nodes = challenged.size();
    stats->columns = columns.size();
    stats->shared_columns = shared;
    stats->tree_c_nodes = tree_c.materialized();
    stats->tree_r_nodes = tree_r.materialized();
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return out;
}

}  // namespace cuzk::filecoin::testkit
