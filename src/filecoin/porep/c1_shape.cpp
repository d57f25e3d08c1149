#include "filecoin/porep/c1_shape.hpp"

#include <bit>
#include <stdexcept>

#include "filecoin/porep/c1_json.hpp"
#include "math/ff/bls12_381.hpp"

namespace cuzk::filecoin::porep {

using detail::JsonPath;

namespace {

constexpr std::size_t kDrgParents = 6;
constexpr std::size_t kExpParents = 8;
constexpr std::size_t kLabelParents = 37;

enum class Domain { kSha, kFr, kLabel };

const char* kind_name(MerkleProofKind k) {
  switch (k) {
    case MerkleProofKind::kSingle: return "Single";
    case MerkleProofKind::kSub: return "Sub";
    case MerkleProofKind::kTop: return "Top";
  }
  return "?";
}

class Checker {
 public:
  Checker(const C1Output& c1, const PorepConfig& cfg) : c1_(c1), cfg_(cfg) {
    d_levels_ = std::size_t(std::countr_zero(cfg.nodes));
    const auto rc = cfg.tree_rc_shape();
    rc_base_levels_ = rc.base_levels;
    rc_kind_ = cfg.sub_arity == 0 ? MerkleProofKind::kSingle
                                  : (cfg.top_arity == 0 ? MerkleProofKind::kSub : MerkleProofKind::kTop);
  }

  std::string err;

  bool run() {
    const JsonPath root = detail::root_path();
    if (c1_.registered_proof != cfg_.name)
      return fail(root.child("registered_proof"),
                  "'" + c1_.registered_proof + "' does not match the configuration '" + cfg_.name + "'");
    const std::string key = vanilla_key_for(cfg_.name);
    const JsonPath vp = root.child("vanilla_proofs");
    const JsonPath vk =
        vp.child(c1_.vanilla_key.empty() ? std::string_view("(no variant)") : std::string_view(c1_.vanilla_key));
    if (c1_.vanilla_key != key)
      return fail(vk,
                  "VanillaSealProof variant does not match registered_proof " + cfg_.name + " (expected " + key + ")");
    if (c1_.vanilla_proofs.size() != cfg_.partitions)
      return fail(vk, "expected " + std::to_string(cfg_.partitions) + " partitions, got " +
                          std::to_string(c1_.vanilla_proofs.size()));
    for (std::size_t p = 0; p < c1_.vanilla_proofs.size(); ++p) {
      const auto& part = c1_.vanilla_proofs[p];
      const JsonPath pp = vk.child(p);
      if (part.size() != cfg_.challenges_per_partition)
        return fail(pp, "expected " + std::to_string(cfg_.challenges_per_partition) + " challenge proofs, got " +
                            std::to_string(part.size()));
    }
    for (std::size_t p = 0; p < c1_.vanilla_proofs.size(); ++p) {
      const JsonPath pp = vk.child(p);
      for (std::size_t c = 0; c < c1_.vanilla_proofs[p].size(); ++c)
        if (!challenge_proof(pp.child(c), c1_.vanilla_proofs[p][c])) return false;
    }
    return value(root.child("comm_r"), c1_.comm_r, Domain::kFr) &&
           value(root.child("comm_d"), c1_.comm_d, Domain::kSha) &&
           value(root.child("replica_id"), c1_.replica_id, Domain::kFr);
    // seed and ticket are arbitrary 32-byte strings.
  }

 private:
  const C1Output& c1_;
  const PorepConfig& cfg_;
  std::size_t d_levels_ = 0, rc_base_levels_ = 0;
  MerkleProofKind rc_kind_ = MerkleProofKind::kSingle;
  const Bytes32* comm_r_last_ = nullptr;  // root of the first tree-R proof
  const Bytes32* comm_c_ = nullptr;       // root of the first column proof
  std::string comm_r_last_where_, comm_c_where_;

  bool fail(const JsonPath& p, const std::string& msg) {
    err = p.str() + ": " + msg;
    return false;
  }

  bool value(const JsonPath& p, const Bytes32& b, Domain d) {
    switch (d) {
      case Domain::kSha:
        if (b[31] & 0xc0) return fail(p, "bits 254/255 set (not a trimmed SHA-256 domain value)");
        return true;
      case Domain::kLabel:
        if (b[31] & 0xc0) return fail(p, "bits 254/255 set (labels are trimmed SHA-256 outputs)");
        return true;
      case Domain::kFr:
        if (b[31] < 0x73) return true;  // r = 0x73ed...: anything with a smaller top byte is canonical
        if (!math::Fr::from_bytes_le(b).has_value()) return fail(p, "not a canonical field element (>= r)");
        return true;
    }
    return true;
  }

  struct Segment {
    const InclusionPath* path;
    const char* name;
    std::size_t levels;
    std::size_t arity;
  };

  // Checks one Merkle proof; `node` receives the leaf index its path opens.
  bool merkle(const JsonPath& p, const VanillaMerkleProof& m, bool tree_d, std::uint64_t& node) {
    const MerkleProofKind want = tree_d ? MerkleProofKind::kSingle : rc_kind_;
    const JsonPath data = p.child("data");
    if (m.kind != want)
      return fail(data, std::string("expected a ") + kind_name(want) + " proof, got " + kind_name(m.kind));
    const JsonPath body = data.child(kind_name(m.kind));
    const Domain dom = tree_d ? Domain::kSha : Domain::kFr;
    Segment segs[3];
    std::size_t nsegs = 0;
    if (tree_d) {
      segs[nsegs++] = {&m.base, "path", d_levels_, 2};
    } else if (m.kind == MerkleProofKind::kSingle) {
      segs[nsegs++] = {&m.base, "path", rc_base_levels_, cfg_.base_arity};
    } else {
      segs[nsegs++] = {&m.base, "base_proof", rc_base_levels_, cfg_.base_arity};
      segs[nsegs++] = {&m.sub, "sub_proof", 1, cfg_.sub_arity};
      if (m.kind == MerkleProofKind::kTop) segs[nsegs++] = {&m.top, "top_proof", 1, cfg_.top_arity};
    }
    if (m.kind == MerkleProofKind::kSingle && !(m.sub.empty() && m.top.empty()))
      return fail(body, "Single proof carries sub/top levels");
    if (m.kind == MerkleProofKind::kSub && !m.top.empty()) return fail(body, "Sub proof carries top levels");
    if (m.kind == MerkleProofKind::kSingle) {
      if (!value(body.child("root"), m.root, dom) || !value(body.child("leaf"), m.leaf, dom)) return false;
    }
    node = 0;
    std::uint64_t mult = 1;
    for (std::size_t s = 0; s < nsegs; ++s) {
      const Segment& seg = segs[s];
      const JsonPath seg_path = body.child(seg.name);
      const JsonPath path = seg_path.child("path");
      if (seg.path->size() != seg.levels)
        return fail(path,
                    "expected " + std::to_string(seg.levels) + " levels, got " + std::to_string(seg.path->size()));
      for (std::size_t i = 0; i < seg.levels; ++i) {
        const PathElement& e = (*seg.path)[i];
        const JsonPath el = path.child(i);
        const JsonPath hp = el.child("hashes");
        if (e.hashes.size() != seg.arity - 1)
          return fail(hp, "expected " + std::to_string(seg.arity - 1) + " hashes (arity " + std::to_string(seg.arity) +
                              "), got " + std::to_string(e.hashes.size()));
        for (std::size_t j = 0; j < e.hashes.size(); ++j)
          if (!value(hp.child(j), e.hashes[j], dom)) return false;
        if (e.index >= seg.arity)
          return fail(el.child("index"), std::to_string(e.index) + " is not < arity " + std::to_string(seg.arity));
        node += e.index * mult;
        mult *= seg.arity;
      }
    }
    if (m.kind != MerkleProofKind::kSingle) {
      if (!value(body.child("root"), m.root, dom) || !value(body.child("leaf"), m.leaf, dom)) return false;
    }
    return true;
  }

  bool same_root(const JsonPath& p, const VanillaMerkleProof& m, const Bytes32*& first, std::string& first_where,
                 const char* what) {
    const JsonPath data = p.child("data");
    const JsonPath body = data.child(kind_name(m.kind));
    const JsonPath rp = body.child("root");
    if (first == nullptr) {
      first = &m.root;
      first_where = rp.str();
      return true;
    }
    if (m.root != *first)
      return fail(rp, std::string("differs from ") + first_where + " (all " + what + " roots must agree)");
    return true;
  }

  bool column(const JsonPath& p, const ColumnProof& c) {
    const JsonPath col = p.child("column");
    if (c.index >= cfg_.nodes)
      return fail(col.child("index"), std::to_string(c.index) + " is not < nodes " + std::to_string(cfg_.nodes));
    const JsonPath rows = col.child("rows");
    if (c.rows.size() != cfg_.layers)
      return fail(rows,
                  "expected " + std::to_string(cfg_.layers) + " rows (layers), got " + std::to_string(c.rows.size()));
    for (std::size_t i = 0; i < c.rows.size(); ++i)
      if (!value(rows.child(i), c.rows[i], Domain::kLabel)) return false;
    const JsonPath ip = p.child("inclusion_proof");
    std::uint64_t node = 0;
    if (!merkle(ip, c.inclusion_proof, false, node)) return false;
    if (node != c.index)
      return fail(ip, "path opens node " + std::to_string(node) + ", but column.index is " + std::to_string(c.index));
    return same_root(ip, c.inclusion_proof, comm_c_, comm_c_where_, "tree-C (comm_c)");
  }

  bool labeling(const JsonPath& p, const LabelingProof& l, std::uint32_t layer, std::uint64_t challenge) {
    const JsonPath parents = p.child("parents");
    if (l.parents.size() != kLabelParents)
      return fail(parents,
                  "expected " + std::to_string(kLabelParents) + " parents, got " + std::to_string(l.parents.size()));
    for (std::size_t i = 0; i < l.parents.size(); ++i)
      if (!value(parents.child(i), l.parents[i], Domain::kLabel)) return false;
    if (l.layer_index != layer)
      return fail(p.child("layer_index"), std::to_string(l.layer_index) + ", expected " + std::to_string(layer));
    if (l.node != challenge)
      return fail(p.child("node"),
                  std::to_string(l.node) + ", but the challenge (comm_d_proofs) is " + std::to_string(challenge));
    return true;
  }

  bool challenge_proof(const JsonPath& p, const ChallengeProof& cp) {
    // Tree D opens the challenged node; everything else must agree with it.
    const JsonPath dp = p.child("comm_d_proofs");
    std::uint64_t challenge = 0;
    if (!merkle(dp, cp.comm_d_proofs, true, challenge)) return false;
    if (cp.comm_d_proofs.root != c1_.comm_d)
      return fail(dp.child("data").child("Single").child("root"), "differs from comm_d");
    // (challenge < nodes holds by construction: log2(nodes) binary levels.)

    const JsonPath rp = p.child("comm_r_last_proof");
    std::uint64_t node = 0;
    if (!merkle(rp, cp.comm_r_last_proof, false, node)) return false;
    if (node != challenge)
      return fail(rp, "path opens node " + std::to_string(node) + ", but the challenge (comm_d_proofs) is " +
                          std::to_string(challenge));
    if (!same_root(rp, cp.comm_r_last_proof, comm_r_last_, comm_r_last_where_, "tree-R (comm_r_last)")) return false;

    const JsonPath rcp = p.child("replica_column_proofs");
    const JsonPath cx = rcp.child("c_x");
    if (cp.c_x.index != challenge)
      return fail(cx.child("column").child("index"),
                  std::to_string(cp.c_x.index) + ", but the challenge (comm_d_proofs) is " + std::to_string(challenge));
    if (!column(cx, cp.c_x)) return false;
    const JsonPath drg = rcp.child("drg_parents");
    if (cp.drg_parents.size() != kDrgParents)
      return fail(drg, "expected " + std::to_string(kDrgParents) + " DRG parent columns, got " +
                           std::to_string(cp.drg_parents.size()));
    for (std::size_t i = 0; i < cp.drg_parents.size(); ++i)
      if (!column(drg.child(i), cp.drg_parents[i])) return false;
    const JsonPath exp = rcp.child("exp_parents");
    if (cp.exp_parents.size() != kExpParents)
      return fail(exp, "expected " + std::to_string(kExpParents) + " expander parent columns, got " +
                           std::to_string(cp.exp_parents.size()));
    for (std::size_t i = 0; i < cp.exp_parents.size(); ++i)
      if (!column(exp.child(i), cp.exp_parents[i])) return false;

    const JsonPath lp = p.child("labeling_proofs");
    if (cp.labeling_proofs.size() != cfg_.layers)
      return fail(lp, "expected " + std::to_string(cfg_.layers) + " labeling proofs (layers), got " +
                          std::to_string(cp.labeling_proofs.size()));
    for (std::size_t i = 0; i < cp.labeling_proofs.size(); ++i)
      if (!labeling(lp.child(i), cp.labeling_proofs[i], std::uint32_t(i + 1), challenge)) return false;
    return labeling(p.child("encoding_proof"), cp.encoding_proof, std::uint32_t(cfg_.layers), challenge);
  }
};

}  // namespace

Status check_c1_shape(const C1Output& c1, const PorepConfig& cfg) {
  Checker ch(c1, cfg);
  if (!ch.run()) return Error{std::move(ch.err)};
  return ok_status();
}

Status check_c1_shape(const C1Output& c1) {
  for (const PorepConfig& cfg : all_porep_configs())
    if (cfg.name == c1.registered_proof) return check_c1_shape(c1, cfg);
  return Error{"registered_proof: unknown registered proof '" + c1.registered_proof + "'"};
}

}  // namespace cuzk::filecoin::porep
