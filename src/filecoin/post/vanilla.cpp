#include "filecoin/post/vanilla.hpp"

#include <algorithm>
#include <stdexcept>

#include "filecoin/common/merkle_proof_fields.hpp"
#include "filecoin/common/merkle_proof_limits.hpp"
#include "formats/bincode_fields.hpp"
#include "formats/json_path.hpp"

namespace cuzk::filecoin::post {

constexpr auto fields(const SectorProof*) {
  using formats::field;
  return std::make_tuple(field("inclusion_proofs", &SectorProof::inclusion_proofs),
                         field("comm_c", &SectorProof::comm_c), field("comm_r_last", &SectorProof::comm_r_last));
}

// FallbackPoStSectorProof { sector_id, comm_r, vanilla_proof: Proof { sectors } }.
constexpr auto fields(const FallbackPostSectorProof*) {
  using formats::field;
  return std::make_tuple(field("sector_id", &FallbackPostSectorProof::sector_id),
                         field("comm_r", &FallbackPostSectorProof::comm_r),
                         formats::group("vanilla_proof", field("sectors", &FallbackPostSectorProof::sectors)));
}

namespace {

std::string str(std::uint64_t x) { return std::to_string(x); }

// The most elements each Vec of a FallbackPoStSectorProof may have for `config` (the exact counts are
// checked after decoding, with their own messages): one SectorProof, vanilla_challenges inclusion
// proofs, base_levels levels (one for a sub / top path), at most 7 siblings.
class PostLimits final : public formats::ElementLimits {
 public:
  explicit PostLimits(const PostConfig& c) : c_(c) {}
  std::uint64_t max_elements(const formats::JsonPath& p) const override {
    const std::string_view k = formats::path_key(&p);
    if (k == "sectors") return 1;
    if (k == "inclusion_proofs") return c_.vanilla_challenges;
    const MerkleVecPlace m = merkle_vec_place(p);
    if (m.what == MerkleVecPlace::kSiblings) return 7;
    if (m.what == MerkleVecPlace::kLevels) return m.segment == MerkleVecPlace::kBase ? c_.base_levels : 1;
    return formats::kNoElementLimit;
  }
  std::string_view expected_for() const override { return c_.name; }

 private:
  const PostConfig& c_;
};

MerkleProofKind expected_kind(const PostConfig& c) {
  return c.top_arity ? MerkleProofKind::kTop : c.sub_arity ? MerkleProofKind::kSub : MerkleProofKind::kSingle;
}
const char* kind_name(MerkleProofKind k) {
  return k == MerkleProofKind::kSingle ? "Single" : k == MerkleProofKind::kSub ? "Sub" : "Top";
}

Status check_levels(const InclusionPath& p, std::size_t levels, std::size_t arity, const std::string& where) {
  if (p.size() != levels) return Error{where + ": " + str(p.size()) + " levels, the tree has " + str(levels)};
  for (std::size_t l = 0; l < p.size(); ++l) {
    if (p[l].hashes.size() != arity - 1)
      return Error{where + "[" + str(l) + "].hashes: " + str(p[l].hashes.size()) + " siblings, arity " + str(arity) +
                   " needs " + str(arity - 1)};
    if (p[l].index >= arity)
      return Error{where + "[" + str(l) + "].index: " + str(p[l].index) + " is not below the arity " + str(arity)};
  }
  return ok_status();
}

Status check_merkle_shape(const VanillaMerkleProof& m, const PostConfig& c, const std::string& where) {
  const MerkleProofKind want = expected_kind(c);
  if (m.kind != want)
    return Error{where + ".data: a " + std::string(kind_name(m.kind)) + " proof, " + c.name + " (tree " +
                 (c.top_arity   ? "8-8-2"
                  : c.sub_arity ? "8-8-0"
                                : "8-0-0") +
                 ") needs " + kind_name(want)};
  const std::string base = where + (want == MerkleProofKind::kSingle ? ".path" : ".base_proof");
  if (auto st = check_levels(m.base, c.base_levels, 8, base); !st) return st;
  if (c.sub_arity)
    if (auto st = check_levels(m.sub, 1, c.sub_arity, where + ".sub_proof"); !st) return st;
  if (c.top_arity)
    if (auto st = check_levels(m.top, 1, c.top_arity, where + ".top_proof"); !st) return st;
  return ok_status();
}

}  // namespace

std::size_t expected_sector_proof_size(const PostConfig& c) {
  // MerkleProof: u32 variant + root + leaf + per path u64 length + per level (u64 count, siblings, u64 index).
  auto path = [](std::size_t levels, std::size_t arity) { return 8 + levels * (8 + 32 * (arity - 1) + 8); };
  std::size_t m = 4 + 64 + path(c.base_levels, 8);
  if (c.sub_arity) m += path(1, c.sub_arity);
  if (c.top_arity) m += path(1, c.top_arity);
  return 8 + 32 + 8 + (8 + c.vanilla_challenges * m + 64);
}

Result<FallbackPostSectorProof> parse_sector_proof(std::span<const std::uint8_t> bytes, const PostConfig& config,
                                                   std::size_t index) {
  std::string where = "vanilla_proofs[" + str(index) + "]";
  FallbackPostSectorProof p;
  formats::BincodeReader r(bytes);
  const PostLimits limits(config);
  r.limits = &limits;
  const formats::JsonPath root = formats::root_path();
  if (!formats::bincode_read(r, root, p)) return Error{where + ": " + r.err};
  where += " (sector " + str(p.sector_id) + ")";
  if (!r.end(root, "the FallbackPoStSectorProof")) return Error{where + ": " + r.err};
  if (p.sectors.size() != 1)
    return Error{where + ".vanilla_proof.sectors: " + str(p.sectors.size()) + " sector proofs, expected 1"};
  const SectorProof& s = p.sectors[0];
  if (s.inclusion_proofs.size() != config.vanilla_challenges)
    return Error{where + ".inclusion_proofs: " + str(s.inclusion_proofs.size()) + " inclusion proofs, " + config.name +
                 " has " + str(config.vanilla_challenges) + " challenges per sector"};
  for (std::size_t j = 0; j < s.inclusion_proofs.size(); ++j)
    if (auto st = check_merkle_shape(s.inclusion_proofs[j], config, where + ".inclusion_proofs[" + str(j) + "]"); !st)
      return Error{st.error()};
  return p;
}

std::size_t sector_proof_bincode_size(const FallbackPostSectorProof& p) { return formats::bincode_size(p); }

std::vector<std::uint8_t> write_sector_proof(const FallbackPostSectorProof& p) {
  const std::size_t size = sector_proof_bincode_size(p);
  formats::BincodeWriter w(size);
  formats::bincode_write(w, p);
  if (w.pos() != size) throw std::logic_error("FallbackPoStSectorProof bincode: size mismatch");
  return std::move(w).finish();
}

}  // namespace cuzk::filecoin::post
