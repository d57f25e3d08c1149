#include "filecoin/porep/vanilla_check.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "base/parallel.hpp"
#include "circuit/merkle.hpp"
#include "circuit/poseidon.hpp"
#include "filecoin/porep/c1_values.hpp"
#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/labels.hpp"

namespace cuzk::filecoin::porep {
namespace {

using math::Fr;

std::string str(std::uint64_t x) { return std::to_string(x); }

// Hashes the path from its leaf and checks: the node it opens is `node`, the result equals the
// proof's own root, and that root equals `expected_root`.
Status check_path(const porep::VanillaMerkleProof& p, circuit::TreeHash hash, std::span<const std::size_t> arities,
                  std::uint64_t node, const Fr& expected_root, const char* root_name, const std::string& where) {
  auto path = to_circuit_path(p, arities, where);
  if (!path) return Error{path.error()};
  const PathResult r = hash_path(*path, hash);
  const std::uint64_t index = r.index;
  const Fr& cur = r.root;
  if (index != node) return Error{where + ": the path opens node " + str(index) + ", expected node " + str(node)};
  if (cur != path->root) return Error{where + ": the path does not hash to its root"};
  if (path->root != expected_root) return Error{where + ".root: differs from " + root_name};
  return ok_status();
}

Fr column_hash(const std::vector<Fr>& rows) {
  return circuit::poseidon_hash(circuit::poseidon_constants(rows.size()), std::span<const Fr>(rows));
}

Result<std::vector<Fr>> column_rows(const porep::ColumnProof& c, std::size_t layers, const std::string& where) {
  if (c.rows.size() != layers) return Error{where + ".column.rows: expected " + str(layers) + " rows"};
  std::vector<Fr> rows;
  for (std::size_t l = 0; l < layers; ++l) {
    auto v = fr_from_bytes32(c.rows[l], where + ".column.rows[" + str(l) + "]");
    if (!v) return Error{v.error()};
    rows.push_back(*v);
  }
  return rows;
}

// A parent column: the right node, and its hash opens that node in tree C.
Status check_column(const porep::ColumnProof& c, std::uint64_t node, const porep::PorepConfig& config,
                    std::span<const std::size_t> rc_arities, const Fr& comm_c, const std::string& where) {
  if (c.index != node)
    return Error{where + ".column.index: " + str(c.index) + ", but the graph says node " + str(node)};
  auto rows = column_rows(c, config.layers, where);
  if (!rows) return Error{rows.error()};
  auto leaf = fr_from_bytes32(c.inclusion_proof.leaf, where + ".inclusion_proof.leaf");
  if (!leaf) return Error{leaf.error()};
  if (*leaf != column_hash(*rows)) return Error{where + ".inclusion_proof.leaf: is not the hash of the column's rows"};
  return check_path(c.inclusion_proof, circuit::TreeHash::kPoseidon, rc_arities, node, comm_c, "comm_c",
                    where + ".inclusion_proof");
}

// The 37 parent labels of a layer's label (filecoin-formats.md §6.6): layer 1: the 6 DRG-parent
// labels of layer 1 six times, then the first again; layer ℓ > 1: q0..q5 the DRG parents at ℓ,
// q6..q13 the expander parents at ℓ−1, then q0..q13, q0..q13, q0..q8.
std::vector<Bytes32> expanded_parents(const porep::ChallengeProof& p, std::size_t layer) {
  std::vector<Bytes32> q;
  for (const auto& c : p.drg_parents) q.push_back(c.rows[layer - 1]);
  if (layer > 1)
    for (const auto& c : p.exp_parents) q.push_back(c.rows[layer - 2]);
  std::vector<Bytes32> out;
  while (out.size() < 37) out.push_back(q[out.size() % q.size()]);
  return out;
}

}  // namespace

namespace {

// The checks of partition `partition`'s challenges [first, end) (end clamped to the partition's).
Status check_challenges(const porep::C1Output& c1, const porep::PorepConfig& config, const porep::Graph& graph,
                        std::size_t partition, std::size_t first, std::size_t end) {
  if (partition >= c1.vanilla_proofs.size()) return Error{"vanilla_proofs: no partition " + str(partition)};
  const auto& proofs = c1.vanilla_proofs[partition];
  const std::string base = "vanilla_proofs." + c1.vanilla_key + "[" + str(partition) + "]";
  const auto d_arities = config.tree_d_shape().level_arities();
  const auto rc_arities = config.tree_rc_shape().level_arities();
  const std::size_t L = config.layers;

  auto comm_d = fr_from_bytes32(c1.comm_d, "comm_d");
  if (!comm_d) return Error{comm_d.error()};
  auto comm_r = fr_from_bytes32(c1.comm_r, "comm_r");
  if (!comm_r) return Error{comm_r.error()};
  if (proofs.size() != config.challenges_per_partition)
    return Error{base + ": " + str(proofs.size()) + " challenge proofs, expected " +
                 str(config.challenges_per_partition)};
  // The roots every proof of the sector must open (from the first proof of the first partition).
  if (c1.vanilla_proofs.empty() || c1.vanilla_proofs[0].empty()) return Error{"vanilla_proofs: empty"};
  auto comm_r_last = fr_from_bytes32(c1.vanilla_proofs[0][0].comm_r_last_proof.root,
                                     "vanilla_proofs." + c1.vanilla_key + "[0][0].comm_r_last_proof.root");
  if (!comm_r_last) return Error{comm_r_last.error()};
  auto comm_c =
      fr_from_bytes32(c1.vanilla_proofs[0][0].c_x.inclusion_proof.root,
                      "vanilla_proofs." + c1.vanilla_key + "[0][0].replica_column_proofs.c_x.inclusion_proof.root");
  if (!comm_c) return Error{comm_c.error()};
  const Fr rc[2] = {*comm_c, *comm_r_last};
  if (circuit::tree_hash_native(circuit::TreeHash::kPoseidon, rc) != *comm_r)
    return Error{"comm_r: is not Poseidon(comm_c, comm_r_last) of the vanilla proofs"};

  const auto challenges = porep::partition_challenges(config, c1.replica_id, c1.seed, c1.comm_r, partition);
  for (std::size_t i = first; i < std::min(end, proofs.size()); ++i) {
    const auto& p = proofs[i];
    const std::string at = base + "[" + str(i) + "]";
    const std::string cols = at + ".replica_column_proofs";
    if (p.labeling_proofs.size() != L) return Error{at + ".labeling_proofs: expected " + str(L) + " proofs"};
    const std::uint64_t node = p.labeling_proofs[0].node;
    if (node != challenges[i])
      return Error{at + ".labeling_proofs[0].node: challenged node " + str(node) + " is not the challenge " +
                   str(challenges[i]) + " derived from replica_id and seed"};
    // Tree D: the data node.
    if (auto st = check_path(p.comm_d_proofs, circuit::TreeHash::kSha256, d_arities, node, *comm_d, "comm_d",
                             at + ".comm_d_proofs");
        !st)
      return st;
    // Parent columns are the graph's parents of the node and open in tree C.
    std::uint32_t drg[6], exp[8];
    graph.drg_parents(node, drg);
    graph.exp_parents(node, exp);
    if (p.drg_parents.size() != 6 || p.exp_parents.size() != 8)
      return Error{cols + ": expected 6 drg_parents and 8 exp_parents"};
    for (std::size_t k = 0; k < 6; ++k)
      if (auto st = check_column(p.drg_parents[k], drg[k], config, rc_arities, *comm_c,
                                 cols + ".drg_parents[" + str(k) + "]");
          !st)
        return st;
    for (std::size_t k = 0; k < 8; ++k)
      if (auto st = check_column(p.exp_parents[k], exp[k], config, rc_arities, *comm_c,
                                 cols + ".exp_parents[" + str(k) + "]");
          !st)
        return st;
    // The challenged column: its labels recompute from the parents, and it opens in tree C.
    if (auto st = check_column(p.c_x, node, config, rc_arities, *comm_c, cols + ".c_x"); !st) return st;
    for (std::size_t layer = 1; layer <= L; ++layer) {
      const auto parents = expanded_parents(p, layer);
      const Bytes32 label = porep::label_hash(c1.replica_id, std::uint32_t(layer), node, parents);
      if (label != p.c_x.rows[layer - 1])
        return Error{cols + ".c_x.column.rows[" + str(layer - 1) + "]: is not the layer-" + str(layer) +
                     " label computed from the parents' columns"};
      const auto& lp = p.labeling_proofs[layer - 1];
      const std::string lat = at + ".labeling_proofs[" + str(layer - 1) + "]";
      if (lp.layer_index != layer || lp.node != node) return Error{lat + ": layer_index/node do not match"};
      if (lp.parents != parents) return Error{lat + ".parents: differ from the parents' columns"};
    }
    if (p.encoding_proof.layer_index != L || p.encoding_proof.node != node ||
        p.encoding_proof.parents != p.labeling_proofs[L - 1].parents)
      return Error{at + ".encoding_proof: does not repeat the last labeling proof"};
    // Tree R: the replica node is label_L + data.
    auto data = fr_from_bytes32(p.comm_d_proofs.leaf, at + ".comm_d_proofs.leaf");
    auto label_l = fr_from_bytes32(p.c_x.rows[L - 1], cols + ".c_x.column.rows");
    auto r_leaf = fr_from_bytes32(p.comm_r_last_proof.leaf, at + ".comm_r_last_proof.leaf");
    if (!data || !label_l || !r_leaf) return Error{at + ": non-canonical leaf"};
    if (*r_leaf != *label_l + *data)
      return Error{at + ".comm_r_last_proof.leaf: is not the encoding label_L + data of the node"};
    if (auto st = check_path(p.comm_r_last_proof, circuit::TreeHash::kPoseidon, rc_arities, node, *comm_r_last,
                             "comm_r_last", at + ".comm_r_last_proof");
        !st)
      return st;
  }
  return ok_status();
}

}  // namespace

Status check_vanilla_partition(const porep::C1Output& c1, const porep::PorepConfig& config, const porep::Graph& graph,
                               std::size_t partition) {
  return check_challenges(c1, config, graph, partition, 0, SIZE_MAX);
}

Status check_vanilla_proofs(const porep::C1Output& c1, const porep::PorepConfig& config, const porep::Graph& graph) {
  if (c1.vanilla_proofs.size() != config.partitions)
    return Error{"vanilla_proofs: " + str(c1.vanilla_proofs.size()) + " partitions, " + config.name + " has " +
                 str(config.partitions)};
  // Every challenge of every partition on its own (32 GiB: 180 of ~7 ms each, 1.3 s on one core),
  // on all threads; the error reported is that of the first failing challenge in file order, as
  // the serial loop would report it.
  const std::size_t per = std::max<std::size_t>(config.challenges_per_partition, 1);
  const std::size_t items = c1.vanilla_proofs.size() * per;
  std::vector<Status> errors(items, ok_status());
  std::atomic<std::size_t> first_bad{items};
  parallel_for(
      items,
      [&](std::size_t item) {
        if (item > first_bad.load(std::memory_order_relaxed)) return;  // an earlier one failed already
        const std::size_t k = item / per, i = item % per;
        // Each item also runs its partition's own checks (counts, roots; cheap), so a partition-wide
        // error is the one its first item reports.
        Status st = check_challenges(c1, config, graph, k, i, i + 1);
        if (st) return;
        errors[item] = std::move(st);
        std::size_t cur = first_bad.load();
        while (item < cur && !first_bad.compare_exchange_weak(cur, item)) {}
      },
      1);
  const std::size_t bad = first_bad.load();
  return bad < items ? errors[bad] : ok_status();
}

}  // namespace cuzk::filecoin::porep
