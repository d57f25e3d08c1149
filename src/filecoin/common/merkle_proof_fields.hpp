// The field declaration of the vanilla Merkle proof (merkle_proof.hpp), shared by every proof family's
// vanilla-proof formats: PathElement as a described struct, and MerkleProof as a bincode and a JSON
// codec (it is an externally tagged enum whose InclusionPath fields are `{ path: Vec<PathElement> }`
// wrappers):
//   u32 variant, then Single: root, leaf, path | Sub: base_proof, sub_proof, root, leaf |
//   Top: base_proof, sub_proof, top_proof, root, leaf.
#pragma once

#include <string>
#include <tuple>

#include "filecoin/common/merkle_proof.hpp"
#include "formats/bincode_fields.hpp"
#include "formats/fields.hpp"
#include "formats/json_fields.hpp"

namespace cuzk::filecoin {

constexpr auto fields(const PathElement*) {
  return std::make_tuple(formats::field("hashes", &PathElement::hashes), formats::field("index", &PathElement::index));
}

}  // namespace cuzk::filecoin

namespace cuzk::formats {

template <>
struct BincodeCodec<filecoin::VanillaMerkleProof> {
  using M = filecoin::VanillaMerkleProof;
  using Path = filecoin::InclusionPath;

  // Single { root, leaf, empty path }.
  static constexpr std::size_t min_size() { return 4 + 32 + 32 + 8; }

  static bool path(BincodeReader& r, const JsonPath& p, Path& out) { return bincode_read(r, p.child("path"), out); }

  static bool read(BincodeReader& r, const JsonPath& p, M& m) {
    const JsonPath data = p.child("data");
    const std::size_t at = r.pos();
    std::uint32_t v;
    if (!r.u32(data, v)) return false;
    m.base.clear();
    m.sub.clear();
    m.top.clear();
    switch (v) {
      case 0: {
        m.kind = filecoin::MerkleProofKind::kSingle;
        const JsonPath s = data.child("Single");
        return bincode_read(r, s.child("root"), m.root) && bincode_read(r, s.child("leaf"), m.leaf) &&
               path(r, s.child("path"), m.base);
      }
      case 1: {
        m.kind = filecoin::MerkleProofKind::kSub;
        const JsonPath s = data.child("Sub");
        return path(r, s.child("base_proof"), m.base) && path(r, s.child("sub_proof"), m.sub) &&
               bincode_read(r, s.child("root"), m.root) && bincode_read(r, s.child("leaf"), m.leaf);
      }
      case 2: {
        m.kind = filecoin::MerkleProofKind::kTop;
        const JsonPath s = data.child("Top");
        return path(r, s.child("base_proof"), m.base) && path(r, s.child("sub_proof"), m.sub) &&
               path(r, s.child("top_proof"), m.top) && bincode_read(r, s.child("root"), m.root) &&
               bincode_read(r, s.child("leaf"), m.leaf);
      }
      default:
        return r.fail_at(at, data,
                         "unknown ProofData variant " + std::to_string(v) + " (expected 0 Single, 1 Sub, 2 Top)");
    }
  }

  static void write(BincodeWriter& w, const M& m) {
    w.u32(static_cast<std::uint32_t>(m.kind));
    if (m.kind == filecoin::MerkleProofKind::kSingle) {
      bincode_write(w, m.root);
      bincode_write(w, m.leaf);
      bincode_write(w, m.base);
      return;
    }
    bincode_write(w, m.base);
    bincode_write(w, m.sub);
    if (m.kind == filecoin::MerkleProofKind::kTop) bincode_write(w, m.top);
    bincode_write(w, m.root);
    bincode_write(w, m.leaf);
  }

  static std::size_t size(const M& m) {
    std::size_t n = 4 + 64 + bincode_size(m.base);
    if (m.kind != filecoin::MerkleProofKind::kSingle) n += bincode_size(m.sub);
    if (m.kind == filecoin::MerkleProofKind::kTop) n += bincode_size(m.top);
    return n;
  }
};

template <>
struct JsonCodec<filecoin::VanillaMerkleProof> {
  using M = filecoin::VanillaMerkleProof;

  static void path(JsonOut& o, const filecoin::InclusionPath& p) {
    o.lit("{\"path\":");
    json_write(o, p);
    o.ch('}');
  }

  // {"data":{"Single":{"root","leaf","path"}}} | {"data":{"Sub":{"base_proof","sub_proof","root","leaf"}}} |
  // {"data":{"Top":{"base_proof","sub_proof","top_proof","root","leaf"}}}
  static void write(JsonOut& o, const M& m) {
    switch (m.kind) {
      case filecoin::MerkleProofKind::kSingle:
        o.lit("{\"data\":{\"Single\":{\"root\":");
        o.bytes(m.root);
        o.lit(",\"leaf\":");
        o.bytes(m.leaf);
        o.lit(",\"path\":");
        path(o, m.base);
        break;
      case filecoin::MerkleProofKind::kSub:
      case filecoin::MerkleProofKind::kTop:
        o.lit(m.kind == filecoin::MerkleProofKind::kSub ? "{\"data\":{\"Sub\":{\"base_proof\":"
                                                        : "{\"data\":{\"Top\":{\"base_proof\":");
        path(o, m.base);
        o.lit(",\"sub_proof\":");
        path(o, m.sub);
        if (m.kind == filecoin::MerkleProofKind::kTop) {
          o.lit(",\"top_proof\":");
          path(o, m.top);
        }
        o.lit(",\"root\":");
        o.bytes(m.root);
        o.lit(",\"leaf\":");
        o.bytes(m.leaf);
        break;
    }
    o.lit("}}}");
  }
};

}  // namespace cuzk::formats
