#include "filecoin/snap/vanilla_check.hpp"

#include <atomic>
#include <mutex>
#include <string>

#include "base/parallel.hpp"
#include "circuit/poseidon.hpp"
#include "filecoin/common/merkle_path.hpp"
#include "filecoin/snap/challenges.hpp"

namespace cuzk::filecoin::snap {
namespace {

using circuit::TreeHash;
using math::Fr;

std::string str(std::uint64_t x) { return std::to_string(x); }

Fr sha_pair(const Fr& l, const Fr& r) {
  const Fr c[2] = {l, r};
  return circuit::tree_hash_native(TreeHash::kSha256, std::span<const Fr>(c, 2));
}

// The node a path reaches at `level` from `value` at level `from` (levels [from, level) hashed).
Fr climb(const circuit::MerkleProof& p, TreeHash hash, std::size_t from, std::size_t level, Fr value) {
  std::vector<Fr> children;
  for (std::size_t l = from; l < level; ++l) {
    children = p.siblings[l];
    children.insert(children.begin() + std::ptrdiff_t(p.positions[l]), value);
    value = circuit::tree_hash_native(hash, children);
  }
  return value;
}

// What every challenge of a partition is checked against.
struct PartitionContext {
  const SnapGeometry& g;
  const SnapPublic& pub;
  std::size_t k;
  std::string where;  // "vanilla_proofs[k]"
  Fr phi, root_r_old, root_r_new;
  std::vector<std::size_t> arities_r, arities_d;
  TreeHash hash_d;
  std::vector<std::vector<Fr>> apex_rows;  // row 0 = the A apex leaves, row ab = the apex root
  std::vector<std::uint64_t> challenges;
};

// One opened path: shape and values, hashes to its own root and to `root`, opens node c.
Result<circuit::MerkleProof> check_path(const VanillaMerkleProof& m, std::span<const std::size_t> arities,
                                        TreeHash hash, const Fr& root, const char* root_name, std::uint64_t c,
                                        const std::string& at) {
  auto path = to_circuit_path(m, arities, at);
  if (!path) return Error{path.error()};
  const PathResult r = hash_path(*path, hash);
  if (r.root != path->root) return Error{at + ": the path does not hash to its root"};
  if (path->root != root) return Error{at + ".root: differs from " + std::string(root_name)};
  if (r.index != c) return Error{at + ": opens node " + str(r.index) + ", the challenge is node " + str(c)};
  return path;
}

Result<ChallengeValues> check_challenge(const PartitionContext& x, const ChallengeProof& q, std::size_t i,
                                        const circuit::MerkleProof* path_d_0) {
  const SnapGeometry& g = x.g;
  const std::uint64_t c = x.challenges[i];
  const std::string at = x.where + ": challenge_proofs[" + str(i) + "]";
  ChallengeValues v;
  auto r_old = check_path(q.proof_r_old, x.arities_r, TreeHash::kPoseidon, x.root_r_old,
                          "challenge_proofs[0].proof_r_old.root", c, at + ".proof_r_old");
  if (!r_old) return Error{r_old.error()};
  auto d_new = check_path(q.proof_d_new, x.arities_d, x.hash_d, x.pub.comm_d_new, "comm_d_new", c, at + ".proof_d_new");
  if (!d_new) return Error{d_new.error()};
  auto r_new = check_path(q.proof_r_new, x.arities_r, TreeHash::kPoseidon, x.root_r_new,
                          "challenge_proofs[0].proof_r_new.root", c, at + ".proof_r_new");
  if (!r_new) return Error{r_new.error()};
  const Fr rho_c = rho(x.phi, rho_high(g, c));
  if (r_new->leaf != r_old->leaf + d_new->leaf * rho_c)
    return Error{at + ": proof_r_new.leaf is not proof_r_old.leaf + proof_d_new.leaf·ρ(" + str(rho_high(g, c)) +
                 ") (node " + str(c) + ")"};

  if (g.variant == UpdateVariant::kPartitioned) {
    const std::size_t al = g.apex_level(), pl = g.challenge_bits - g.partition_bits;
    const std::size_t a = (c >> al) & (g.apex_leaf_count - 1);
    const Fr node = climb(*d_new, TreeHash::kSha256, 0, al, d_new->leaf);
    if (node != x.apex_rows[0][a])
      return Error{at + ".proof_d_new: its tree D node at height " + str(al) + " differs from apex_leafs[" + str(a) +
                   "]"};
    for (std::size_t j = 0; al + j < pl; ++j) {
      const std::uint64_t idx = a >> j;
      if (d_new->siblings[al + j][0] != x.apex_rows[j][idx ^ 1])
        return Error{at + ".proof_d_new.path[" + str(al + j) + "]: the sibling differs from the apex tree's node " +
                     str(idx ^ 1) + " at apex row " + str(j)};
    }
    if (path_d_0)
      for (std::size_t l = pl; l < g.challenge_bits; ++l)
        if (d_new->siblings[l] != path_d_0->siblings[l] || d_new->positions[l] != path_d_0->positions[l])
          return Error{at + ".proof_d_new.path[" + str(l) + "]: the partition path differs from challenge_proofs[0]'s"};
    d_new->siblings.resize(al);
    d_new->positions.resize(al);
    d_new->root = node;  // the apex leaf this part of the path reaches
  }
  v.leaf_r_old = r_old->leaf;
  v.leaf_d_new = d_new->leaf;
  v.path_r_old = std::move(*r_old);
  v.path_r_new = std::move(*r_new);
  v.path_d_new = std::move(*d_new);
  return v;
}

}  // namespace

Result<PartitionValues> check_partition_proof(const SnapGeometry& g, const SnapPublic& pub, const PartitionProof& proof,
                                              std::size_t k) {
  const bool partitioned = g.variant == UpdateVariant::kPartitioned;
  PartitionContext x{g, pub, k, "vanilla_proofs[" + str(k) + "]", {}, {}, {}, {}, {}, TreeHash::kSha256, {}, {}};
  if (k >= g.partitions)
    return Error{x.where + ": partition " + str(k) + " is past the " + str(g.partitions) + " partitions"};
  const std::size_t want_a = partitioned ? g.apex_leaf_count : 0;
  if (proof.apex_leafs.size() != want_a)
    return Error{x.where + ": apex_leafs: " + str(proof.apex_leafs.size()) + " apex leaves, expected " + str(want_a)};
  if (proof.challenge_proofs.size() != g.challenge_count)
    return Error{x.where + ": challenge_proofs: " + str(proof.challenge_proofs.size()) +
                 " challenge proofs, expected " + str(g.challenge_count)};

  PartitionValues out;
  out.k = k;
  out.comm_r_old = pub.comm_r_old;
  out.comm_d_new = pub.comm_d_new;
  out.comm_r_new = pub.comm_r_new;
  auto comm_c = fr_from_bytes32(proof.comm_c, x.where + ": comm_c");
  if (!comm_c) return Error{comm_c.error()};
  out.comm_c = *comm_c;
  const ChallengeProof& q0 = proof.challenge_proofs[0];
  auto root_old = fr_from_bytes32(q0.proof_r_old.root, x.where + ": challenge_proofs[0].proof_r_old.root");
  if (!root_old) return Error{root_old.error()};
  auto root_new = fr_from_bytes32(q0.proof_r_new.root, x.where + ": challenge_proofs[0].proof_r_new.root");
  if (!root_new) return Error{root_new.error()};
  x.root_r_old = out.root_r_old = *root_old;
  x.root_r_new = out.root_r_new = *root_new;
  if (comm_r_of(out.comm_c, out.root_r_old) != pub.comm_r_old)
    return Error{x.where + ": comm_r_old is not Poseidon(comm_c, challenge_proofs[0].proof_r_old.root)"};
  if (comm_r_of(out.comm_c, out.root_r_new) != pub.comm_r_new)
    return Error{x.where + ": comm_r_new is not Poseidon(comm_c, challenge_proofs[0].proof_r_new.root)"};

  x.phi = phi(pub.comm_d_new, pub.comm_r_old);
  x.arities_r = g.tree_r.level_arities();
  if (partitioned) {
    x.arities_d.assign(g.challenge_bits, 2);
    x.hash_d = TreeHash::kSha256;
    std::vector<Fr> row;
    for (std::size_t j = 0; j < proof.apex_leafs.size(); ++j) {
      auto v = fr_from_bytes32(proof.apex_leafs[j], x.where + ": apex_leafs[" + str(j) + "]");
      if (!v) return Error{v.error()};
      row.push_back(*v);
    }
    out.apex_leafs = row;
    x.apex_rows.push_back(std::move(row));
    while (x.apex_rows.back().size() > 1) {
      const auto& cur = x.apex_rows.back();
      std::vector<Fr> next(cur.size() / 2);
      for (std::size_t j = 0; j < next.size(); ++j) next[j] = sha_pair(cur[2 * j], cur[2 * j + 1]);
      x.apex_rows.push_back(std::move(next));
    }
  } else {
    x.arities_d = x.arities_r;
    x.hash_d = TreeHash::kPoseidon;
  }
  x.challenges = partition_challenges(g, pub.comm_r_new, k);

  out.challenges.resize(g.challenge_count);
  // The partition path every challenge must share is challenge 0's; the apex root must climb it to
  // comm_d_new (checked first, so that a wrong apex leaf is named as such).
  circuit::MerkleProof path_d_0;
  if (partitioned) {
    const std::size_t pl = g.challenge_bits - g.partition_bits;
    auto full = to_circuit_path(q0.proof_d_new, x.arities_d, x.where + ": challenge_proofs[0].proof_d_new");
    if (!full) return Error{full.error()};
    path_d_0 = std::move(*full);
    if (climb(path_d_0, TreeHash::kSha256, pl, g.challenge_bits, x.apex_rows.back()[0]) != pub.comm_d_new)
      return Error{x.where +
                   ": apex_leafs: their apex root does not climb challenge_proofs[0]'s partition path to "
                   "comm_d_new"};
    for (std::size_t l = pl; l < g.challenge_bits; ++l) out.partition_path.push_back(path_d_0.siblings[l][0]);
  }
  auto first = check_challenge(x, q0, 0, nullptr);
  if (!first) return Error{first.error()};
  out.challenges[0] = std::move(*first);

  std::mutex mu;
  std::size_t first_bad = g.challenge_count;
  std::string first_error;
  parallel_for(
      g.challenge_count - 1,
      [&](std::size_t j) {
        const std::size_t i = j + 1;
        auto r = check_challenge(x, proof.challenge_proofs[i], i, partitioned ? &path_d_0 : nullptr);
        if (r) {
          out.challenges[i] = std::move(*r);
          return;
        }
        std::lock_guard<std::mutex> lock(mu);
        if (i < first_bad) {  // report the first failing challenge in order
          first_bad = i;
          first_error = r.error();
        }
      },
      4);
  if (first_bad < g.challenge_count) return Error{first_error};
  return out;
}

Result<std::vector<PartitionValues>> check_partition_proofs(const SnapGeometry& g, const SnapPublic& pub,
                                                            std::span<const PartitionProof> proofs,
                                                            const std::function<bool()>& cancelled) {
  if (proofs.size() != g.partitions)
    return Error{"vanilla_proofs: " + str(proofs.size()) + " partition proofs, expected " + str(g.partitions) +
                 " (one per partition, k order)"};
  std::vector<PartitionValues> out;
  out.reserve(proofs.size());
  for (std::size_t k = 0; k < proofs.size(); ++k) {
    if (cancelled && cancelled()) return Error{"cancelled"};
    auto v = check_partition_proof(g, pub, proofs[k], k);
    if (!v) return Error{v.error()};
    out.push_back(std::move(*v));
  }
  return out;
}

}  // namespace cuzk::filecoin::snap
