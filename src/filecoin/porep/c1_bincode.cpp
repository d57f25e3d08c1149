#include "filecoin/porep/c1_bincode.hpp"

#include <bit>
#include <cstring>
#include <stdexcept>

#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/config.hpp"
#include "formats/bincode.hpp"

namespace cuzk::filecoin::porep {

using formats::JsonPath;

namespace {

// Smallest encodings (bytes), used to bound lengths by the remaining input.
constexpr std::size_t kMinPathElement = 8 + 8;                // u64 k, u64 index
constexpr std::size_t kMinMerkle = 4 + 8 + 32 + 32;           // variant + Single{root, leaf, empty path}
constexpr std::size_t kMinColumnProof = 4 + 8 + kMinMerkle;   // index, rows len, proof
constexpr std::size_t kMinLabeling = 8 + 4 + 8;               // parents len, layer_index, node
constexpr std::size_t kMinChallenge = 2 * kMinMerkle + kMinColumnProof + 8 + 8 + 8 + kMinLabeling;
constexpr std::size_t kMinPartition = 8;

// The C1's structure over the generic cursor (formats/bincode.hpp), field paths as in the JSON form.
class BinReader : public formats::BincodeReader {
 public:
  using BincodeReader::BincodeReader;

  bool b32(const JsonPath& p, Bytes32& v) { return raw(p, v.data(), 32); }
  bool b32_vec(const JsonPath& p, std::vector<Bytes32>& out) { return fixed_vec(p, out); }

  bool inclusion_path(const JsonPath& p, InclusionPath& out) {
    const JsonPath pp = p.child("path");
    std::uint64_t k;
    if (!len(pp, kMinPathElement, k)) return false;
    out.resize(k);
    for (std::uint64_t i = 0; i < k; ++i) {
      const JsonPath e = pp.child(i);
      if (!b32_vec(e.child("hashes"), out[i].hashes)) return false;
      if (!u64(e.child("index"), out[i].index)) return false;
    }
    return true;
  }

  bool merkle(const JsonPath& p, VanillaMerkleProof& m) {
    const JsonPath data = p.child("data");
    const std::size_t at = pos();
    std::uint32_t v;
    if (!u32(data, v)) return false;
    m.base.clear();
    m.sub.clear();
    m.top.clear();
    switch (v) {
      case 0: {
        m.kind = MerkleProofKind::kSingle;
        const JsonPath s = data.child("Single");
        return b32(s.child("root"), m.root) && b32(s.child("leaf"), m.leaf) && inclusion_path(s.child("path"), m.base);
      }
      case 1: {
        m.kind = MerkleProofKind::kSub;
        const JsonPath s = data.child("Sub");
        return inclusion_path(s.child("base_proof"), m.base) && inclusion_path(s.child("sub_proof"), m.sub) &&
               b32(s.child("root"), m.root) && b32(s.child("leaf"), m.leaf);
      }
      case 2: {
        m.kind = MerkleProofKind::kTop;
        const JsonPath s = data.child("Top");
        return inclusion_path(s.child("base_proof"), m.base) && inclusion_path(s.child("sub_proof"), m.sub) &&
               inclusion_path(s.child("top_proof"), m.top) && b32(s.child("root"), m.root) && b32(s.child("leaf"), m.leaf);
      }
      default:
        return fail_at(at, data, "unknown ProofData variant " + std::to_string(v) + " (expected 0 Single, 1 Sub, 2 Top)");
    }
  }

  bool column(const JsonPath& p, ColumnProof& c) {
    const JsonPath col = p.child("column");
    return u32(col.child("index"), c.index) && b32_vec(col.child("rows"), c.rows) &&
           merkle(p.child("inclusion_proof"), c.inclusion_proof);
  }
  bool columns(const JsonPath& p, std::vector<ColumnProof>& out) {
    std::uint64_t k;
    if (!len(p, kMinColumnProof, k)) return false;
    out.resize(k);
    for (std::uint64_t i = 0; i < k; ++i)
      if (!column(p.child(i), out[i])) return false;
    return true;
  }
  bool labeling(const JsonPath& p, LabelingProof& l) {
    return b32_vec(p.child("parents"), l.parents) && u32(p.child("layer_index"), l.layer_index) &&
           u64(p.child("node"), l.node);
  }

  bool challenge(const JsonPath& p, ChallengeProof& c) {
    if (!merkle(p.child("comm_d_proofs"), c.comm_d_proofs)) return false;
    if (!merkle(p.child("comm_r_last_proof"), c.comm_r_last_proof)) return false;
    const JsonPath rcp = p.child("replica_column_proofs");
    if (!column(rcp.child("c_x"), c.c_x)) return false;
    if (!columns(rcp.child("drg_parents"), c.drg_parents)) return false;
    if (!columns(rcp.child("exp_parents"), c.exp_parents)) return false;
    const JsonPath lp = p.child("labeling_proofs");
    std::uint64_t k;
    if (!len(lp, kMinLabeling, k)) return false;
    c.labeling_proofs.resize(k);
    for (std::uint64_t i = 0; i < k; ++i)
      if (!labeling(lp.child(i), c.labeling_proofs[i])) return false;
    return labeling(p.child("encoding_proof"), c.encoding_proof);
  }

  bool c1(C1Output& out) {
    const JsonPath root = formats::root_path();
    const JsonPath vp = root.child("vanilla_proofs");
    std::uint64_t parts;
    if (!len(vp, kMinPartition, parts)) return false;
    out.vanilla_proofs.resize(parts);
    for (std::uint64_t i = 0; i < parts; ++i) {
      const JsonPath pp = vp.child(i);
      std::uint64_t k;
      if (!len(pp, kMinChallenge, k)) return false;
      out.vanilla_proofs[i].resize(k);
      for (std::uint64_t j = 0; j < k; ++j)
        if (!challenge(pp.child(j), out.vanilla_proofs[i][j])) return false;
    }
    if (!b32(root.child("comm_r"), out.comm_r) || !b32(root.child("comm_d"), out.comm_d) ||
        !b32(root.child("replica_id"), out.replica_id) || !b32(root.child("seed"), out.seed) ||
        !b32(root.child("ticket"), out.ticket))
      return false;
    return end(root, "the C1 output");
  }
};

// ------------------------------------------------------------------------------------------------

std::size_t path_size(const InclusionPath& p) {
  std::size_t n = 8;
  for (const PathElement& e : p) n += 16 + 32 * e.hashes.size();
  return n;
}
std::size_t merkle_size(const VanillaMerkleProof& m) {
  std::size_t n = 4 + 64 + path_size(m.base);
  if (m.kind != MerkleProofKind::kSingle) n += path_size(m.sub);
  if (m.kind == MerkleProofKind::kTop) n += path_size(m.top);
  return n;
}
std::size_t column_size(const ColumnProof& c) { return 4 + 8 + 32 * c.rows.size() + merkle_size(c.inclusion_proof); }
std::size_t labeling_size(const LabelingProof& l) { return 8 + 32 * l.parents.size() + 4 + 8; }

class BinWriter : public formats::BincodeWriter {
 public:
  using BincodeWriter::BincodeWriter;

  void b32(const Bytes32& b) { raw(b.data(), 32); }
  void b32_vec(const std::vector<Bytes32>& v) { fixed_vec(v); }
  void path(const InclusionPath& p) {
    u64(p.size());
    for (const PathElement& e : p) {
      b32_vec(e.hashes);
      u64(e.index);
    }
  }
  void merkle(const VanillaMerkleProof& m) {
    u32(static_cast<std::uint32_t>(m.kind));
    switch (m.kind) {
      case MerkleProofKind::kSingle:
        b32(m.root);
        b32(m.leaf);
        path(m.base);
        break;
      case MerkleProofKind::kSub:
        path(m.base);
        path(m.sub);
        b32(m.root);
        b32(m.leaf);
        break;
      case MerkleProofKind::kTop:
        path(m.base);
        path(m.sub);
        path(m.top);
        b32(m.root);
        b32(m.leaf);
        break;
    }
  }
  void column(const ColumnProof& c) {
    u32(c.index);
    b32_vec(c.rows);
    merkle(c.inclusion_proof);
  }
  void labeling(const LabelingProof& l) {
    b32_vec(l.parents);
    u32(l.layer_index);
    u64(l.node);
  }
  std::vector<std::uint8_t> finish(std::size_t expected) && {
    if (pos() != expected) throw std::logic_error("c1 bincode: size mismatch");
    return std::move(*this).BincodeWriter::finish();
  }
};

}  // namespace

std::size_t c1_bincode_size(const C1Output& c1) {
  std::size_t n = 8 + 5 * 32;
  for (const auto& part : c1.vanilla_proofs) {
    n += 8;
    for (const ChallengeProof& p : part) {
      n += merkle_size(p.comm_d_proofs) + merkle_size(p.comm_r_last_proof) + column_size(p.c_x) + 16;
      for (const ColumnProof& c : p.drg_parents) n += column_size(c);
      for (const ColumnProof& c : p.exp_parents) n += column_size(c);
      n += 8;
      for (const LabelingProof& l : p.labeling_proofs) n += labeling_size(l);
      n += labeling_size(p.encoding_proof);
    }
  }
  return n;
}

std::vector<std::uint8_t> write_c1_bincode(const C1Output& c1) {
  const std::size_t size = c1_bincode_size(c1);
  BinWriter w(size);
  w.u64(c1.vanilla_proofs.size());
  for (const auto& part : c1.vanilla_proofs) {
    w.u64(part.size());
    for (const ChallengeProof& p : part) {
      w.merkle(p.comm_d_proofs);
      w.merkle(p.comm_r_last_proof);
      w.column(p.c_x);
      w.u64(p.drg_parents.size());
      for (const ColumnProof& c : p.drg_parents) w.column(c);
      w.u64(p.exp_parents.size());
      for (const ColumnProof& c : p.exp_parents) w.column(c);
      w.u64(p.labeling_proofs.size());
      for (const LabelingProof& l : p.labeling_proofs) w.labeling(l);
      w.labeling(p.encoding_proof);
    }
  }
  w.b32(c1.comm_r);
  w.b32(c1.comm_d);
  w.b32(c1.replica_id);
  w.b32(c1.seed);
  w.b32(c1.ticket);
  return std::move(w).finish(size);
}

Result<std::string> infer_registered_proof(const C1Output& c1) {
  if (c1.vanilla_proofs.empty() || c1.vanilla_proofs[0].empty())
    return Error{"cannot infer the registered proof: no challenge proofs"};
  const VanillaMerkleProof& d = c1.vanilla_proofs[0][0].comm_d_proofs;
  const std::size_t levels = d.base.size() + d.sub.size() + d.top.size();
  if (levels >= 40) return Error{"cannot infer the registered proof: tree D has " + std::to_string(levels) + " levels"};
  const std::uint64_t nodes = std::uint64_t(1) << levels;
  const PorepConfig* v11 = nullptr;
  const PorepConfig* ni = nullptr;
  for (const PorepConfig& c : all_porep_configs()) {
    if (c.nodes != nodes) continue;
    if (c.variant == PorepVariant::kV1_1) v11 = &c;
    if (c.variant == PorepVariant::kNonInteractive) ni = &c;
  }
  if (v11 == nullptr)
    return Error{"cannot infer the registered proof: tree D depth " + std::to_string(levels) +
                 " (vanilla_proofs[0][0].comm_d_proofs) matches no sector size"};
  if (ni != nullptr && c1.vanilla_proofs.size() == ni->partitions && ni->partitions != v11->partitions) return ni->name;
  return v11->name;
}

Result<C1Output> parse_c1_bincode(std::span<const std::uint8_t> bytes, std::string registered_proof_for_shape) {
  if (!registered_proof_for_shape.empty()) {
    bool known = false;
    for (const PorepConfig& c : all_porep_configs()) known = known || c.name == registered_proof_for_shape;
    if (!known) return Error{"bincode: unknown registered proof '" + registered_proof_for_shape + "'"};
  }
  C1Output out;
  BinReader r(bytes);
  if (!r.c1(out)) return Error{std::move(r.err)};
  if (registered_proof_for_shape.empty()) {
    auto inferred = infer_registered_proof(out);
    if (!inferred) return Error{"bincode: " + inferred.error()};
    registered_proof_for_shape = std::move(inferred.value());
  }
  out.registered_proof = std::move(registered_proof_for_shape);
  out.vanilla_key = vanilla_key_for(out.registered_proof);
  return out;
}

}  // namespace cuzk::filecoin::porep
