// Which Vec of a vanilla Merkle proof a path names, for the element limits of the vanilla-proof readers
// (formats/element_limits.hpp). The JSON and bincode readers of merkle_proof_fields.hpp /
// merkle_proof_json.hpp name them
//   <proof>.data.<Single|Sub|Top>.<path|base_proof|sub_proof|top_proof>.path          the levels
//   <proof>.data.<Single|Sub|Top>.<...>.path[i].hashes                                the siblings
// where <proof> is the field holding the proof (comm_d_proofs, inclusion_proof, inclusion_proofs[j]).
#pragma once

#include <string_view>

#include "formats/element_limits.hpp"
#include "formats/json_path.hpp"

namespace cuzk::filecoin {

struct MerkleVecPlace {
  enum What { kNone, kLevels, kSiblings } what = kNone;
  enum Segment { kBase, kSub, kTop } segment = kBase;  // Single's path is the base
  std::string_view proof;  // the key holding the MerkleProof; empty when it is an array element
};

inline MerkleVecPlace merkle_vec_place(const formats::JsonPath& p) {
  using formats::path_key;
  MerkleVecPlace m;
  const formats::JsonPath* levels = &p;
  m.what = MerkleVecPlace::kLevels;
  if (path_key(&p) == "hashes") {
    if (p.parent == nullptr || p.parent->is_key) return {};
    levels = p.parent->parent;
    m.what = MerkleVecPlace::kSiblings;
  }
  if (path_key(levels) != "path") return {};
  const std::string_view seg = path_key(levels, 1), kind = path_key(levels, 2);
  if (kind != "Single" && kind != "Sub" && kind != "Top") return {};
  if (path_key(levels, 3) != "data") return {};
  if (seg == "path" && kind == "Single") {
    m.segment = MerkleVecPlace::kBase;
  } else if (seg == "base_proof") {
    m.segment = MerkleVecPlace::kBase;
  } else if (seg == "sub_proof") {
    m.segment = MerkleVecPlace::kSub;
  } else if (seg == "top_proof") {
    m.segment = MerkleVecPlace::kTop;
  } else {
    return {};
  }
  m.proof = path_key(levels, 4);
  return m;
}

}  // namespace cuzk::filecoin
