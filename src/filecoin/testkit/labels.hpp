// SDR labelling of whole sectors (sealing; the labelling rule itself is filecoin/porep/labels.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/labels.hpp"

namespace cuzk::filecoin::testkit {

// Labels of all layers, layer-major: out[(ℓ−1)·nodes + n]. parent_cache is build_parent_cache(g)
// (or empty to compute parents on the fly). on_nodes (optional, for progress): called with (layer,
// nodes of that layer labelled so far) every kLabelProgressNodes nodes and at the end of each layer.
using LabelProgress = std::function<void(std::size_t layer, std::uint64_t nodes_done)>;
inline constexpr std::uint64_t kLabelProgressNodes = std::uint64_t(1) << 18;
std::vector<Bytes32> generate_labels(const porep::Graph& g, std::span<const std::uint32_t> parent_cache,
                                     const Bytes32& replica_id, std::size_t layers, const LabelProgress& on_nodes = {});

}  // namespace cuzk::filecoin::testkit
