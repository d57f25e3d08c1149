// Reading the vanilla Merkle proof from JSON (the strict reader of formats/json_reader.hpp): MerkleProof
// is an externally tagged enum { data: Single | Sub | Top }, its InclusionPaths `{ path: [...] }`
// wrappers; PathElement comes from its field declaration (merkle_proof_fields.hpp). Header-only: the
// including library links simdjson.
#pragma once

#include <array>
#include <string_view>

#include "filecoin/common/merkle_proof_fields.hpp"
#include "formats/json_reader.hpp"

namespace cuzk::formats {

template <>
struct JsonReadCodec<filecoin::VanillaMerkleProof> {
  using M = filecoin::VanillaMerkleProof;
  using Element = simdjson::dom::element;

  static bool path(StrictJsonReader& r, Element e, const JsonPath& p, filecoin::InclusionPath& out) {
    static constexpr std::array<std::string_view, 1> kFields = {"path"};
    return r.object(e, p, kFields, 0, [&](std::size_t, Element v, const JsonPath& c) { return r.read(v, c, out); });
  }

  static bool read(StrictJsonReader& r, Element e, const JsonPath& p, M& out) {
    static constexpr std::array<std::string_view, 1> kFields = {"data"};
    return r.object(e, p, kFields, 0, [&](std::size_t, Element v, const JsonPath& c) {
      static constexpr std::array<std::string_view, 3> kKinds = {"Single", "Sub", "Top"};
      return r.variant(v, c, kKinds, "ProofData", [&](std::size_t k, Element pv, const JsonPath& pc) {
        out.kind = static_cast<filecoin::MerkleProofKind>(k);
        out.base.clear();
        out.sub.clear();
        out.top.clear();
        if (k == 0) {
          static constexpr std::array<std::string_view, 3> kSingle = {"root", "leaf", "path"};
          return r.object(pv, pc, kSingle, 0, [&](std::size_t i, Element fv, const JsonPath& fc) {
            if (i == 0) return r.bytes(fv, fc, out.root);
            if (i == 1) return r.bytes(fv, fc, out.leaf);
            return path(r, fv, fc, out.base);
          });
        }
        if (k == 1) {
          static constexpr std::array<std::string_view, 4> kSub = {"base_proof", "sub_proof", "root", "leaf"};
          return r.object(pv, pc, kSub, 0, [&](std::size_t i, Element fv, const JsonPath& fc) {
            if (i == 0) return path(r, fv, fc, out.base);
            if (i == 1) return path(r, fv, fc, out.sub);
            if (i == 2) return r.bytes(fv, fc, out.root);
            return r.bytes(fv, fc, out.leaf);
          });
        }
        static constexpr std::array<std::string_view, 5> kTop = {"base_proof", "sub_proof", "top_proof", "root",
                                                                 "leaf"};
        return r.object(pv, pc, kTop, 0, [&](std::size_t i, Element fv, const JsonPath& fc) {
          if (i == 0) return path(r, fv, fc, out.base);
          if (i == 1) return path(r, fv, fc, out.sub);
          if (i == 2) return path(r, fv, fc, out.top);
          if (i == 3) return r.bytes(fv, fc, out.root);
          return r.bytes(fv, fc, out.leaf);
        });
      });
    });
  }
};

}  // namespace cuzk::formats
