#include "filecoin/testkit/snap_vanilla.hpp"

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "base/parallel.hpp"
#include "circuit/poseidon.hpp"
#include "filecoin/common/merkle_path.hpp"
#include "filecoin/snap/challenges.hpp"

namespace cuzk::filecoin::testkit {
namespace {

using circuit::TreeHash;
using snap::SnapGeometry;

std::string str(std::uint64_t x) { return std::to_string(x); }

// The hash of `arity` equal children (every node of a uniform level, every in-block node of tree R new).
Fr hash_equal_children(TreeHash hash, std::size_t arity, const Fr& child) {
  const std::vector<Fr> children(arity, child);
  return circuit::tree_hash_native(hash, children);
}

std::uint64_t splitmix64(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// 254 random bits: always a field element.
Fr random_fr(std::uint64_t& s) {
  Bytes32 b;
  for (std::size_t i = 0; i < 32; i += 8) {
    const std::uint64_t x = splitmix64(s);
    for (std::size_t j = 0; j < 8; ++j) b[i + j] = std::uint8_t(x >> (8 * j));
  }
  trim_to_fr(b);
  return fr_from_bytes(b);
}

// A tree given by node(level, index) (level 0 = leaves) with per-level arities; its proofs in the
// vanilla model: Single with every level, or (tree R shapes) the base levels, the sub level, the top level.
struct VirtualTree {
  std::vector<std::size_t> arities;
  std::size_t base_levels = 0;  // levels past these are the sub level, then the top level
  bool has_sub = false;
  MerkleProofKind kind = MerkleProofKind::kSingle;
  std::function<Fr(std::size_t, std::uint64_t)> node;

  Fr root() const { return node(arities.size(), 0); }

  VanillaMerkleProof proof(std::uint64_t leaf) const {
    VanillaMerkleProof p;
    p.kind = kind;
    p.leaf = fr_to_bytes(node(0, leaf));
    p.root = fr_to_bytes(root());
    std::uint64_t index = leaf;
    for (std::size_t l = 0; l < arities.size(); ++l) {
      const std::size_t a = arities[l];
      PathElement e;
      e.index = index % a;
      const std::uint64_t group = index - e.index;
      for (std::size_t t = 0; t < a; ++t)
        if (t != e.index) e.hashes.push_back(fr_to_bytes(node(l, group + t)));
      index /= a;
      if (kind == MerkleProofKind::kSingle || l < base_levels) p.base.push_back(std::move(e));
      else if (has_sub && l == base_levels) p.sub.push_back(std::move(e));
      else p.top.push_back(std::move(e));
    }
    return p;
  }
};

VirtualTree tree_r_frame(const SnapGeometry& g) {
  VirtualTree t;
  t.arities = g.tree_r.level_arities();
  t.base_levels = g.tree_r.base_levels;
  t.has_sub = g.tree_r.sub_arity != 0;
  t.kind = g.tree_r.top_arity   ? MerkleProofKind::kTop
           : g.tree_r.sub_arity ? MerkleProofKind::kSub
                                : MerkleProofKind::kSingle;
  return t;
}

// A tree whose every level holds one value: leaves all `leaf`.
VirtualTree uniform_tree(VirtualTree frame, TreeHash hash, const Fr& leaf) {
  auto values = std::make_shared<std::vector<Fr>>(1, leaf);
  for (std::size_t a : frame.arities) values->push_back(hash_equal_children(hash, a, values->back()));
  frame.node = [values](std::size_t level, std::uint64_t) { return (*values)[level]; };
  return frame;
}

}  // namespace

std::vector<std::uint8_t> UpdatedSector::new_replica_bytes() const {
  const auto leaves = tree_r_new.leaves();
  std::vector<std::uint8_t> out(leaves.size() * 32);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const Bytes32 b = fr_to_bytes(leaves[i]);
    std::copy(b.begin(), b.end(), out.begin() + std::ptrdiff_t(32 * i));
  }
  return out;
}

Result<UpdatedSector> encode_update(const SnapGeometry& g, std::span<const Bytes32> old_replica, const Bytes32& comm_c,
                                    std::span<const Bytes32> data) {
  if (g.variant != snap::UpdateVariant::kPartitioned)
    return Error{"encode_update: the SnapDeals-Poseidon variant has no SHA-256 tree D (use synthetic_snap_vanilla)"};
  if (old_replica.size() != g.nodes)
    return Error{"encode_update: the old replica has " + str(old_replica.size()) + " nodes, the sector " +
                 str(g.nodes)};
  if (data.size() != g.nodes)
    return Error{"encode_update: the data has " + str(data.size()) + " nodes, the sector " + str(g.nodes)};
  auto c = fr_from_bytes32(comm_c, "encode_update: comm_c");
  if (!c) return Error{c.error()};
  std::vector<Fr> old_nodes(g.nodes), data_nodes(g.nodes);
  for (std::size_t i = 0; i < g.nodes; ++i) {
    auto o = fr_from_bytes32(old_replica[i], "encode_update: old replica node " + str(i));
    if (!o) return Error{o.error()};
    auto d = fr_from_bytes32(data[i], "encode_update: data node " + str(i));
    if (!d) return Error{d.error()};
    old_nodes[i] = *o;
    data_nodes[i] = *d;
  }
  UpdatedSector s;
  s.geometry = g;
  s.comm_c = comm_c;
  s.tree_r_old = PoseidonTree(g.tree_r, old_nodes);
  s.tree_d_new = ShaTree(std::vector<Bytes32>(data.begin(), data.end()));
  s.comm_r_last_old = fr_to_bytes(s.tree_r_old.root());
  const Fr comm_r_old = comm_r_of(*c, s.tree_r_old.root());
  s.comm_r_old = fr_to_bytes(comm_r_old);
  s.comm_d_new = s.tree_d_new.root();
  const Fr phi = snap::phi(fr_from_bytes(s.comm_d_new), comm_r_old);
  std::vector<Fr> rhos(std::size_t(1) << g.h);
  parallel_for(
      rhos.size(), [&](std::size_t b) { rhos[b] = snap::rho(phi, b); }, 64);
  std::vector<Fr> new_nodes(g.nodes);
  parallel_for(
      g.nodes, [&](std::size_t i) { new_nodes[i] = old_nodes[i] + data_nodes[i] * rhos[snap::rho_high(g, i)]; }, 4096);
  s.tree_r_new = PoseidonTree(g.tree_r, std::move(new_nodes));
  s.comm_r_last_new = fr_to_bytes(s.tree_r_new.root());
  s.comm_r_new = fr_to_bytes(comm_r_of(*c, s.tree_r_new.root()));
  return s;
}

snap::PartitionProof snap_partition_proof(const UpdatedSector& s, std::size_t k) {
  const SnapGeometry& g = s.geometry;
  if (k >= g.partitions) throw std::out_of_range("snap_partition_proof: partition past the geometry");
  snap::PartitionProof p;
  p.comm_c = s.comm_c;
  // Apex leaf j = tree D node (k·A + j) at height apex_level: climb the path of its first leaf.
  const std::size_t al = g.apex_level();
  for (std::size_t j = 0; j < g.apex_leaf_count; ++j) {
    const std::uint64_t leaf = (std::uint64_t(k) * g.apex_leaf_count + j) << al;
    const VanillaMerkleProof m = s.tree_d_new.proof(leaf);
    Fr cur = fr_from_bytes(m.leaf);
    for (std::size_t l = 0; l < al; ++l) {  // the first leaf of its subtree is always the left child
      const Fr pair[2] = {cur, fr_from_bytes(m.base[l].hashes[0])};
      cur = circuit::tree_hash_native(TreeHash::kSha256, std::span<const Fr>(pair, 2));
    }
    p.apex_leafs.push_back(fr_to_bytes(cur));
  }
  for (std::uint64_t c : snap::partition_challenges(g, fr_from_bytes(s.comm_r_new), k))
    p.challenge_proofs.push_back({s.tree_r_old.proof(c), s.tree_d_new.proof(c), s.tree_r_new.proof(c)});
  return p;
}

SyntheticSnap synthetic_snap_vanilla(const SnapGeometry& g, std::uint64_t rng_seed) {
  std::uint64_t rng = rng_seed ^ 0x536e617044656d6fULL;  // "SnapDemo"
  const Fr v_old = random_fr(rng), d = random_fr(rng), comm_c = random_fr(rng);
  const bool partitioned = g.variant == snap::UpdateVariant::kPartitioned;

  // Tree D: SHA-256 binary (partitioned) or tree-R-shaped Poseidon (Poseidon variant), uniform.
  VirtualTree frame_d;
  if (partitioned) frame_d.arities.assign(g.challenge_bits, 2);
  else frame_d = tree_r_frame(g);
  const VirtualTree tree_d = uniform_tree(frame_d, partitioned ? TreeHash::kSha256 : TreeHash::kPoseidon, d);
  const VirtualTree tree_r_old = uniform_tree(tree_r_frame(g), TreeHash::kPoseidon, v_old);
  const Fr comm_d_new = tree_d.root();
  const Fr comm_r_old = comm_r_of(comm_c, tree_r_old.root());
  const Fr phi = snap::phi(comm_d_new, comm_r_old);

  // Tree R new: leaf i = v_old + d·ρ(i >> (cb − h)), constant on each of the 2^h blocks. A node whose
  // span lies within a block is one value per (level, block); above, every node is hashed once.
  VirtualTree tree_r_new = tree_r_frame(g);
  const std::size_t block_bits = g.challenge_bits - g.h, blocks = std::size_t(1) << g.h;
  const std::vector<std::size_t>& ar = tree_r_new.arities;
  std::vector<std::uint64_t> span{1};
  for (std::size_t a : ar) span.push_back(span.back() * a);
  auto in_block = std::make_shared<std::vector<std::vector<Fr>>>();            // [level][block]
  auto upper = std::make_shared<std::vector<std::vector<Fr>>>(ar.size() + 1);  // [level][index]
  in_block->emplace_back(blocks);
  parallel_for(
      blocks, [&](std::size_t b) { (*in_block)[0][b] = v_old + d * snap::rho(phi, b); }, 16);
  std::size_t l = 1;
  for (; l <= ar.size() && span[l] <= (std::uint64_t(1) << block_bits); ++l) {
    std::vector<Fr> row(blocks);
    const auto& below = in_block->back();
    parallel_for(
        blocks, [&](std::size_t b) { row[b] = hash_equal_children(TreeHash::kPoseidon, ar[l - 1], below[b]); }, 16);
    in_block->push_back(std::move(row));
  }
  const std::size_t first_upper = l;
  auto node_new = [in_block, upper, span, block_bits, first_upper](std::size_t level, std::uint64_t index) {
    if (level < first_upper) return (*in_block)[level][(index * span[level]) >> block_bits];
    return (*upper)[level][index];
  };
  for (; l <= ar.size(); ++l) {
    std::vector<Fr> row(g.nodes / span[l]);
    parallel_for(
        row.size(),
        [&](std::size_t i) {
          std::vector<Fr> children(ar[l - 1]);
          for (std::size_t t = 0; t < children.size(); ++t) children[t] = node_new(l - 1, i * ar[l - 1] + t);
          row[i] = circuit::tree_hash_native(TreeHash::kPoseidon, children);
        },
        16);
    (*upper)[l] = std::move(row);
  }
  tree_r_new.node = node_new;
  const Fr comm_r_new = comm_r_of(comm_c, tree_r_new.root());

  SyntheticSnap out;
  out.comms = {fr_to_bytes(comm_r_old), fr_to_bytes(comm_r_new), fr_to_bytes(comm_d_new)};
  const Bytes32 apex_leaf = partitioned ? fr_to_bytes(tree_d.node(g.apex_level(), 0)) : Bytes32{};
  for (std::size_t k = 0; k < g.partitions; ++k) {
    snap::PartitionProof p;
    p.comm_c = fr_to_bytes(comm_c);
    if (partitioned) p.apex_leafs.assign(g.apex_leaf_count, apex_leaf);
    for (std::uint64_t c : snap::partition_challenges(g, comm_r_new, k))
      p.challenge_proofs.push_back({tree_r_old.proof(c), tree_d.proof(c), tree_r_new.proof(c)});
    out.partitions.push_back(std::move(p));
  }
  return out;
}

}  // namespace cuzk::filecoin::testkit
