// SDR labelling (storage-proofs-porep create_label; filecoin-formats.md §6.6):
//   label(ℓ, n) = SHA-254(replica_id ‖ ℓ u32 BE ‖ n u64 BE ‖ 20 zero bytes ‖ 37 parent labels)
// with no parents for node 0. Layer 1 hashes the current-layer labels of the 6 DRG parents; layer ℓ > 1
// also the previous-layer labels of the 8 expander parents. Within a layer every node depends on its
// predecessor, so a layer is inherently sequential. What a vanilla check needs (one label from its
// parents) lives here; labelling whole sectors is sealing (filecoin/testkit/labels.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "filecoin/common/bytes32.hpp"
#include "filecoin/porep/graph.hpp"

namespace cuzk::filecoin::porep {

inline constexpr std::size_t kTotalParents = 37;

// The 64-byte first block of a label's message: replica_id ‖ layer BE ‖ node BE ‖ 20 zeros.
void label_header(std::uint8_t out[64], const Bytes32& replica_id, std::uint32_t layer, std::uint64_t node);

// parents_37 = the expanded parent labels (expand_parent_labels); empty for node 0.
Bytes32 label_hash(const Bytes32& replica_id, std::uint32_t layer, std::uint64_t node,
                   std::span<const Bytes32> parents_37);

// 6 labels (layer 1) -> p0..p5 ×6, p0; 14 labels (layer > 1: 6 DRG of layer ℓ, 8 expander of ℓ−1)
// -> q0..q13, q0..q13, q0..q8. I.e. the given labels repeated cyclically up to 37.
std::array<Bytes32, kTotalParents> expand_parent_labels(std::span<const Bytes32> parents);

}  // namespace cuzk::filecoin::porep
