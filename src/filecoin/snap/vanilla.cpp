#include "filecoin/snap/vanilla.hpp"

#include <stdexcept>
#include <string>

#include "filecoin/common/merkle_proof_fields.hpp"
#include "formats/bincode.hpp"
#include "formats/bincode_fields.hpp"
#include "formats/json_path.hpp"

namespace cuzk::filecoin::snap {
namespace {

using formats::JsonPath;

std::string str(std::uint64_t x) { return std::to_string(x); }

const char* kind_name(MerkleProofKind k) {
  return k == MerkleProofKind::kSingle ? "Single" : k == MerkleProofKind::kSub ? "Sub" : "Top";
}

// The shape one MerkleProof of a ChallengeProof must have: its ProofData variant, the base levels and
// their arity, and the sub / top arity (0 when absent).
struct ProofShape {
  MerkleProofKind kind = MerkleProofKind::kSingle;
  std::size_t base_levels = 0, base_arity = 2, sub_arity = 0, top_arity = 0;
  std::string describe() const {
    if (base_arity == 2) return "tree D (SHA-256 binary, " + str(base_levels) + " levels)";
    return "tree R (" + str(base_arity) + "-" + str(sub_arity) + "-" + str(top_arity) + ", " + str(base_levels) +
           " base levels)";
  }
};

ProofShape tree_r_shape(const SnapGeometry& g) {
  ProofShape s;
  s.kind = g.tree_r.top_arity   ? MerkleProofKind::kTop
           : g.tree_r.sub_arity ? MerkleProofKind::kSub
                                : MerkleProofKind::kSingle;
  s.base_levels = g.tree_r.base_levels;
  s.base_arity = g.tree_r.base_arity;
  s.sub_arity = g.tree_r.sub_arity;
  s.top_arity = g.tree_r.top_arity;
  return s;
}
ProofShape tree_d_shape(const SnapGeometry& g) {
  if (g.variant == UpdateVariant::kPoseidon) return tree_r_shape(g);
  ProofShape s;
  s.base_levels = g.challenge_bits;
  return s;
}

// path(levels, arity): u64 length + per level (u64 count, siblings, u64 index).
std::size_t path_size(std::size_t levels, std::size_t arity) { return 8 + levels * (8 + 32 * (arity - 1) + 8); }
std::size_t merkle_size(const ProofShape& s) {
  std::size_t n = 4 + 64 + path_size(s.base_levels, s.base_arity);
  if (s.sub_arity) n += path_size(1, s.sub_arity);
  if (s.top_arity) n += path_size(1, s.top_arity);
  return n;
}

// The bincode cursor with the shape checks: every count is compared with the geometry before anything
// is allocated, and the first failure is kept as one line (the bincode offset for a short input, the
// field and the expected value for a wrong count).
class PartitionReader {
 public:
  explicit PartitionReader(std::span<const std::uint8_t> b) : r_(b) {}
  std::string err;

  bool fail(const JsonPath& p, const std::string& msg) {
    err = p.str() + ": " + msg;
    return false;
  }
  bool short_input() {
    err = r_.err;
    return false;
  }
  bool b32(const JsonPath& p, Bytes32& out) { return r_.raw(p, out.data(), 32) || short_input(); }
  bool u64(const JsonPath& p, std::uint64_t& v) { return r_.u64(p, v) || short_input(); }
  bool u32(const JsonPath& p, std::uint32_t& v) { return r_.u32(p, v) || short_input(); }
  bool end(const JsonPath& p) { return r_.end(p, "the PartitionProof") || short_input(); }

  // An InclusionPath of exactly `levels` levels of `arity`; `count_at` is where a wrong level count
  // is reported (the proof itself for a Single path, else the sub-path field).
  bool path(const JsonPath& p, const JsonPath& count_at, std::size_t levels, std::size_t arity, InclusionPath& out) {
    std::uint64_t n;
    if (!u64(p, n)) return false;
    if (n != levels) return fail(count_at, str(n) + " levels, expected " + str(levels));
    out.resize(levels);
    for (std::size_t l = 0; l < levels; ++l) {
      const JsonPath e = p.child(std::uint64_t(l));
      const JsonPath hashes = e.child("hashes");
      if (!u64(hashes, n)) return false;
      if (n != arity - 1) return fail(hashes, str(n) + " siblings, arity " + str(arity) + " needs " + str(arity - 1));
      out[l].hashes.resize(arity - 1);
      for (std::size_t k = 0; k < arity - 1; ++k)
        if (!b32(hashes.child(std::uint64_t(k)), out[l].hashes[k])) return false;
      const JsonPath index = e.child("index");
      if (!u64(index, out[l].index)) return false;
      if (out[l].index >= arity) return fail(index, str(out[l].index) + " is not below the arity " + str(arity));
    }
    return true;
  }

  bool merkle(const JsonPath& p, const ProofShape& s, VanillaMerkleProof& m) {
    std::uint32_t v;
    if (!u32(p, v)) return false;
    if (v > 2) return fail(p, "unknown ProofData variant " + str(v) + " (expected 0 Single, 1 Sub, 2 Top)");
    m.kind = MerkleProofKind(v);
    if (m.kind != s.kind)
      return fail(p, std::string("a ") + kind_name(m.kind) + " proof, " + s.describe() + " needs " + kind_name(s.kind));
    if (m.kind == MerkleProofKind::kSingle) {
      const JsonPath path_field = p.child("path");
      return b32(p.child("root"), m.root) && b32(p.child("leaf"), m.leaf) &&
             path(path_field, p, s.base_levels, s.base_arity, m.base);
    }
    const JsonPath base = p.child("base_proof"), sub = p.child("sub_proof"), top = p.child("top_proof");
    if (!path(base, base, s.base_levels, s.base_arity, m.base) || !path(sub, sub, 1, s.sub_arity, m.sub)) return false;
    if (m.kind == MerkleProofKind::kTop && !path(top, top, 1, s.top_arity, m.top)) return false;
    return b32(p.child("root"), m.root) && b32(p.child("leaf"), m.leaf);
  }

 private:
  formats::BincodeReader r_;
};

}  // namespace

std::size_t expected_partition_proof_size(const SnapGeometry& g) {
  const std::size_t challenge = 2 * merkle_size(tree_r_shape(g)) + merkle_size(tree_d_shape(g));
  const std::size_t apex = g.variant == UpdateVariant::kPoseidon ? 0 : 8 + 32 * g.apex_leaf_count;
  return 32 + apex + 8 + g.challenge_count * challenge;
}

Result<PartitionProof> parse_partition_proof(std::span<const std::uint8_t> bytes, const SnapGeometry& g,
                                             std::size_t index) {
  const std::string where = "vanilla_proofs[" + str(index) + "]";
  PartitionReader r(bytes);
  PartitionProof p;
  const JsonPath root = formats::root_path();
  if (!r.b32(root.child("comm_c"), p.comm_c)) return Error{where + ": " + r.err};
  if (g.variant == UpdateVariant::kPartitioned) {
    const JsonPath apex = root.child("apex_leafs");
    std::uint64_t a;
    if (!r.u64(apex, a)) return Error{where + ": " + r.err};
    if (a != g.apex_leaf_count)
      return Error{where + ": apex_leafs: " + str(a) + " apex leaves, expected " + str(g.apex_leaf_count)};
    p.apex_leafs.resize(a);
    for (std::size_t j = 0; j < a; ++j)
      if (!r.b32(apex.child(std::uint64_t(j)), p.apex_leafs[j])) return Error{where + ": " + r.err};
  }
  const JsonPath cps = root.child("challenge_proofs");
  std::uint64_t c;
  if (!r.u64(cps, c)) return Error{where + ": " + r.err};
  if (c != g.challenge_count)
    return Error{where + ": challenge_proofs: " + str(c) + " challenge proofs, expected " + str(g.challenge_count)};
  const ProofShape rs = tree_r_shape(g), ds = tree_d_shape(g);
  p.challenge_proofs.resize(c);
  for (std::size_t i = 0; i < c; ++i) {
    const JsonPath cp = cps.child(std::uint64_t(i));
    ChallengeProof& q = p.challenge_proofs[i];
    if (!r.merkle(cp.child("proof_r_old"), rs, q.proof_r_old) ||
        !r.merkle(cp.child("proof_d_new"), ds, q.proof_d_new) || !r.merkle(cp.child("proof_r_new"), rs, q.proof_r_new))
      return Error{where + ": " + r.err};
  }
  if (!r.end(root)) return Error{where + ": " + r.err};
  return p;
}

std::vector<std::uint8_t> write_partition_proof(const PartitionProof& p, UpdateVariant variant) {
  std::size_t size = 32 + 8;
  if (variant == UpdateVariant::kPartitioned) size += 8 + 32 * p.apex_leafs.size();
  for (const ChallengeProof& q : p.challenge_proofs)
    size += formats::bincode_size(q.proof_r_old) + formats::bincode_size(q.proof_d_new) +
            formats::bincode_size(q.proof_r_new);
  formats::BincodeWriter w(size);
  w.raw(p.comm_c.data(), 32);
  if (variant == UpdateVariant::kPartitioned) w.fixed_vec(p.apex_leafs);
  w.u64(p.challenge_proofs.size());
  for (const ChallengeProof& q : p.challenge_proofs) {
    formats::bincode_write(w, q.proof_r_old);
    formats::bincode_write(w, q.proof_d_new);
    formats::bincode_write(w, q.proof_r_new);
  }
  if (w.pos() != size) throw std::logic_error("PartitionProof bincode: size mismatch");
  return std::move(w).finish();
}

}  // namespace cuzk::filecoin::snap
