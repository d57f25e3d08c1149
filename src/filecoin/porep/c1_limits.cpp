#include "filecoin/porep/c1_limits.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <vector>

#include "filecoin/common/merkle_proof_limits.hpp"
#include "filecoin/porep/c1_json.hpp"

namespace cuzk::filecoin::porep {

namespace {

constexpr std::uint64_t kDrgParents = 6, kExpParents = 8, kLabelParents = 37;

// "StackedDrg32GiBV1_1" -> "32GiB".
std::string size_label(std::string_view name) {
  name.remove_prefix(std::string_view("StackedDrg").size());
  return std::string(name.substr(0, name.find('V')));
}

}  // namespace

C1Limits::C1Limits(std::uint64_t sector_size) {
  label_ = "any registered PoRep proof";
  for (const PorepConfig& c : all_porep_configs()) {
    if (sector_size != 0 && c.sector_size != sector_size) continue;
    if (sector_size != 0) label_ = size_label(c.name);
    partitions_ = std::max<std::uint64_t>(partitions_, c.partitions);
    challenges_ = std::max<std::uint64_t>(challenges_, c.challenges_per_partition);
    layers_ = std::max<std::uint64_t>(layers_, c.layers);
    d_levels_ = std::max<std::uint64_t>(d_levels_, std::uint64_t(std::countr_zero(c.nodes)));
    const circuit::TreeShape rc = c.tree_rc_shape();
    rc_base_levels_ = std::max<std::uint64_t>(rc_base_levels_, rc.base_levels);
    rc_base_siblings_ = std::max<std::uint64_t>(rc_base_siblings_, c.base_arity - 1);
  }
}

const C1Limits* C1Limits::for_vanilla_key(std::string_view key) {
  static const std::vector<std::pair<std::string, std::unique_ptr<C1Limits>>> table = [] {
    std::vector<std::pair<std::string, std::unique_ptr<C1Limits>>> t;
    for (const PorepConfig& c : all_porep_configs()) {
      const std::string k = vanilla_key_for(c.name);
      if (std::none_of(t.begin(), t.end(), [&](const auto& e) { return e.first == k; }))
        t.emplace_back(k, std::make_unique<C1Limits>(c.sector_size));
    }
    return t;
  }();
  for (const auto& [k, limits] : table)
    if (k == key) return limits.get();
  return nullptr;
}

bool C1Limits::is_bytes32(const formats::JsonPath& p) {
  using formats::path_key;
  if (!p.is_key) {
    const std::string_view parent = path_key(p.parent);
    return parent == "hashes" || parent == "rows" || parent == "parents";
  }
  static constexpr std::array<std::string_view, 7> kKeys = {"root",       "leaf", "comm_r", "comm_d",
                                                            "replica_id", "seed", "ticket"};
  return std::find(kKeys.begin(), kKeys.end(), p.key) != kKeys.end();
}

std::uint64_t C1Limits::max_challenge_json_bytes() const {
  // 32-byte values of the largest challenge proof: tree D, tree R, 1 + 6 + 8 columns (rows and a tree
  // C proof), L + 1 labeling / encoding proofs of 37 parents. Compact JSON: <= 160 bytes per value
  // (32 numbers of up to 3 digits, commas, brackets, the keys around them).
  const std::uint64_t tree_d = 2 + d_levels_, tree_rc = 2 + (rc_base_levels_ + 2) * rc_base_siblings_;
  const std::uint64_t values =
      tree_d + tree_rc + (1 + kDrgParents + kExpParents) * (layers_ + tree_rc) + (layers_ + 1) * kLabelParents;
  return 16 * (4096 + values * 160);
}

std::uint64_t C1Limits::max_skeleton_json_bytes() const {
  // The registered proof, five 32-byte values and a placeholder per challenge proof.
  return 16 * (4096 + partitions_ * (challenges_ * 8 + 8));
}

std::uint64_t C1Limits::max_elements(const formats::JsonPath& p) const {
  using formats::path_key;
  if (!p.is_key) {
    // vanilla_proofs[p] (bincode) / vanilla_proofs.<variant>[p] (JSON): one partition's challenges.
    if (path_key(p.parent) == "vanilla_proofs" || path_key(p.parent, 1) == "vanilla_proofs") return challenges_;
    return formats::kNoElementLimit;
  }
  const std::string_view k = p.key;
  if (k == "vanilla_proofs" || path_key(&p, 1) == "vanilla_proofs") return partitions_;
  if (k == "rows" || k == "labeling_proofs") return layers_;
  if (k == "parents") return kLabelParents;
  if (k == "drg_parents") return kDrgParents;
  if (k == "exp_parents") return kExpParents;
  const MerkleVecPlace m = merkle_vec_place(p);
  if (m.what == MerkleVecPlace::kNone) return formats::kNoElementLimit;
  // A sub / top segment: one level of at most 7 siblings whatever the tree (check_c1_shape names a
  // proof of the wrong kind).
  if (m.segment != MerkleVecPlace::kBase) return m.what == MerkleVecPlace::kLevels ? 1 : rc_base_siblings_;
  if (m.proof == "comm_d_proofs") return m.what == MerkleVecPlace::kLevels ? d_levels_ : 1;  // tree D: binary
  // Tree R / tree C (comm_r_last_proof, the columns' inclusion_proof).
  return m.what == MerkleVecPlace::kLevels ? rc_base_levels_ : rc_base_siblings_;
}

}  // namespace cuzk::filecoin::porep
