// SDR labelling (storage-proofs-porep create_label; filecoin-formats.md §6.6):
//   label(ℓ, n) = SHA-254(replica_id ‖ ℓ u32 BE ‖ n u64 BE ‖ 20 zero bytes ‖ 37 parent labels)
// with no parents for node 0. Layer 1 hashes the current-layer labels of the 6 DRG parents; layer ℓ > 1
// also the previous-layer labels of the 8 expander parents. Within a layer every node depends on its
// predecessor, so a layer is inherently sequential.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/sdr/common.hpp"
#include "filecoin/sdr/graph.hpp"

namespace cuzk::filecoin::sdr {

inline constexpr std::size_t kTotalParents = 37;

// parents_37 = the expanded parent labels (expand_parent_labels); empty for node 0.
Bytes32 label_hash(const Bytes32& replica_id, std::uint32_t layer, std::uint64_t node,
                   std::span<const Bytes32> parents_37);

// 6 labels (layer 1) -> p0..p5 ×6, p0; 14 labels (layer > 1: 6 DRG of layer ℓ, 8 expander of ℓ−1)
// -> q0..q13, q0..q13, q0..q8. I.e. the given labels repeated cyclically up to 37.
std::array<Bytes32, kTotalParents> expand_parent_labels(std::span<const Bytes32> parents);

// Labels of all layers, layer-major: out[(ℓ−1)·nodes + n]. parent_cache is build_parent_cache(g)
// (or empty to compute parents on the fly).
std::vector<Bytes32> generate_labels(const Graph& g, std::span<const std::uint32_t> parent_cache,
                                     const Bytes32& replica_id, std::size_t layers);

}  // namespace cuzk::filecoin::sdr
