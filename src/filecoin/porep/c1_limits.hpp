// The most elements each array of a C1 may have (formats/element_limits.hpp), from the registered
// proofs of one sector size — partitions, challenges per partition, layers (column rows, labeling
// proofs), 6 DRG + 8 expander parent columns, 37 labeling parents, Merkle path levels and siblings of
// tree D and tree R / C — so that the C1 readers (c1_json, c1_bincode) refuse an oversized count
// before they allocate for it:
//   vanilla_proofs.StackedDrg32GiBV1[0]: 19999999 elements, at most 18 expected for 32GiB
// The maxima are taken over every variant of the size (V1 … NonInteractive: 10 or 126 partitions at
// 32 GiB), so a C1 whose registered_proof disagrees with its shape still parses and check_c1_shape
// (c1_shape.hpp) names the exact mismatch; without a size (bincode of an unknown proof) the maxima
// are over every registered proof.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "filecoin/porep/config.hpp"
#include "formats/element_limits.hpp"

namespace cuzk::filecoin::porep {

class C1Limits final : public formats::ElementLimits {
 public:
  // sector_size 0: every registered proof.
  explicit C1Limits(std::uint64_t sector_size = 0);
  // The sector size named by a VanillaSealProof variant ("StackedDrg32GiBV1"); nullptr when none is.
  static const C1Limits* for_vanilla_key(std::string_view key);

  std::uint64_t max_elements(const formats::JsonPath& vec) const override;
  std::string_view expected_for() const override { return label_; }

  std::uint64_t partitions() const { return partitions_; }
  std::uint64_t challenges() const { return challenges_; }
  // Whether the array at `p` is a 32-byte value (root, leaf, comm_r, ..., a row, parent or sibling).
  static bool is_bytes32(const formats::JsonPath& p);

  // The most JSON text one challenge proof, resp. everything outside the challenge proofs, may take:
  // 16 times the compact serde_json size of the largest shape (whitespace and other encoders' layouts
  // fit easily). The C1 JSON reader builds a DOM (~12 bytes per input byte) only of pieces within
  // these sizes, so its memory is bounded by the shape, not by the message size.
  std::uint64_t max_challenge_json_bytes() const;
  std::uint64_t max_skeleton_json_bytes() const;

 private:
  std::string label_;  // "32GiB", "any registered PoRep proof"
  std::uint64_t partitions_ = 0, challenges_ = 0, layers_ = 0;
  std::uint64_t d_levels_ = 0;                               // tree D: binary SHA-256, one sibling per level
  std::uint64_t rc_base_levels_ = 0, rc_base_siblings_ = 0;  // tree R / C base levels (arity 8)
};

}  // namespace cuzk::filecoin::porep
