#include "filecoin/testkit/random_c1.hpp"

#include <bit>
#include <vector>

#include "filecoin/porep/c1_json.hpp"

namespace cuzk::filecoin::testkit {
namespace {

using namespace porep;

constexpr std::size_t kDrgParents = 6;
constexpr std::size_t kExpParents = 8;
constexpr std::size_t kLabelParents = 37;

// splitmix64: deterministic, fast, good enough for shaped test data.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  Bytes32 bytes() {
    Bytes32 b;
    for (int i = 0; i < 4; ++i) {
      const std::uint64_t x = next();
      for (int k = 0; k < 8; ++k) b[std::size_t(8 * i + k)] = std::uint8_t(x >> (8 * k));
    }
    return b;
  }
  Bytes32 fr() {  // canonical: top byte < 0x73
    Bytes32 b = bytes();
    b[31] = std::uint8_t(b[31] % 0x73);
    return b;
  }
  Bytes32 sha() {
    Bytes32 b = bytes();
    b[31] &= 0x3f;
    return b;
  }
};

}  // namespace

porep::C1Output random_c1_for_tests(const PorepConfig& cfg, std::uint64_t seed) {
  Rng rng{seed ^ 0x6331c1c1c1c1c1c1ULL};
  C1Output c1;
  c1.registered_proof = cfg.name;
  c1.vanilla_key = vanilla_key_for(cfg.name);
  c1.comm_d = rng.sha();
  c1.comm_r = rng.fr();
  c1.replica_id = rng.sha();
  c1.seed = rng.bytes();
  c1.ticket = rng.bytes();
  const Bytes32 comm_c = rng.fr(), comm_r_last = rng.fr();
  const std::size_t d_levels = std::size_t(std::countr_zero(cfg.nodes));
  const std::size_t base_levels = cfg.tree_rc_shape().base_levels;

  auto rc_proof = [&](std::uint64_t node, const Bytes32& root) {
    VanillaMerkleProof m;
    m.kind = cfg.sub_arity == 0 ? MerkleProofKind::kSingle
                                : (cfg.top_arity == 0 ? MerkleProofKind::kSub : MerkleProofKind::kTop);
    m.root = root;
    m.leaf = rng.fr();
    std::uint64_t rest = node;
    auto level = [&](std::size_t arity) {
      PathElement e;
      e.index = rest % arity;
      rest /= arity;
      e.hashes.resize(arity - 1);
      for (auto& h : e.hashes) h = rng.fr();
      return e;
    };
    for (std::size_t i = 0; i < base_levels; ++i) m.base.push_back(level(cfg.base_arity));
    if (cfg.sub_arity) m.sub.push_back(level(cfg.sub_arity));
    if (cfg.top_arity) m.top.push_back(level(cfg.top_arity));
    return m;
  };
  auto column = [&](std::uint64_t node) {
    ColumnProof c;
    c.index = std::uint32_t(node);
    c.rows.resize(cfg.layers);
    for (auto& r : c.rows) r = rng.sha();
    c.inclusion_proof = rc_proof(node, comm_c);
    return c;
  };

  c1.vanilla_proofs.resize(cfg.partitions);
  for (auto& part : c1.vanilla_proofs) {
    part.resize(cfg.challenges_per_partition);
    for (ChallengeProof& p : part) {
      const std::uint64_t challenge = 1 + rng.next() % (cfg.nodes - 1);
      p.comm_d_proofs.kind = MerkleProofKind::kSingle;
      p.comm_d_proofs.root = c1.comm_d;
      p.comm_d_proofs.leaf = rng.sha();
      for (std::size_t i = 0; i < d_levels; ++i) {
        PathElement e;
        e.index = (challenge >> i) & 1;
        e.hashes = {rng.sha()};
        p.comm_d_proofs.base.push_back(std::move(e));
      }
      p.comm_r_last_proof = rc_proof(challenge, comm_r_last);
      p.c_x = column(challenge);
      for (std::size_t i = 0; i < kDrgParents; ++i) p.drg_parents.push_back(column(rng.next() % challenge));
      for (std::size_t i = 0; i < kExpParents; ++i) p.exp_parents.push_back(column(rng.next() % cfg.nodes));
      // Labeling parents as upstream lays them out (filecoin-formats.md §3.3).
      for (std::size_t layer = 1; layer <= cfg.layers; ++layer) {
        std::vector<Bytes32> base;
        for (const ColumnProof& c : p.drg_parents) base.push_back(c.rows[layer - 1]);
        if (layer > 1)
          for (const ColumnProof& c : p.exp_parents) base.push_back(c.rows[layer - 2]);
        LabelingProof l;
        l.layer_index = std::uint32_t(layer);
        l.node = challenge;
        for (std::size_t i = 0; i < kLabelParents; ++i) l.parents.push_back(base[i % base.size()]);
        p.labeling_proofs.push_back(std::move(l));
      }
      p.encoding_proof = p.labeling_proofs.back();
    }
  }
  return c1;
}

}  // namespace cuzk::filecoin::testkit
