#include "filecoin/testkit/labels.hpp"

#include <cstring>
#include <stdexcept>

#include "filecoin/common/sha.hpp"

namespace cuzk::filecoin::testkit {

using porep::kDegree;
using porep::kDrgDegree;
using porep::kTotalParents;

std::vector<Bytes32> generate_labels(const porep::Graph& g, std::span<const std::uint32_t> parent_cache,
                                     const Bytes32& replica_id, std::size_t layers, const LabelProgress& on_nodes) {
  const std::uint64_t n_nodes = g.nodes();
  if (!parent_cache.empty() && parent_cache.size() != n_nodes * kDegree)
    throw std::invalid_argument("generate_labels: parent cache size does not match the graph");
  std::vector<Bytes32> labels(layers * n_nodes);
  // One contiguous message buffer per node: header block, then the 37 parent labels, hashed in one
  // update so that OpenSSL runs its multi-block loop.
  std::vector<std::uint8_t> msg(64 + kTotalParents * 32);
  std::uint32_t own[kDegree];
  Sha256 h;
  for (std::size_t layer = 1; layer <= layers; ++layer) {
    Bytes32* cur = labels.data() + (layer - 1) * n_nodes;
    const Bytes32* prev = layer > 1 ? cur - n_nodes : nullptr;
    const std::size_t count = layer == 1 ? kDrgDegree : kDegree;
    for (std::uint64_t n = 0; n < n_nodes; ++n) {
      porep::label_header(msg.data(), replica_id, std::uint32_t(layer), n);
      std::size_t len = 64;
      if (n > 0) {
        const std::uint32_t* p = parent_cache.empty() ? own : parent_cache.data() + kDegree * n;
        if (parent_cache.empty()) g.parents(n, own);
        std::uint8_t* dst = msg.data() + 64;
        for (std::size_t i = 0; i < kTotalParents; ++i, dst += 32) {
          const std::size_t k = i % count;
          // DRG parents come from the layer being built, expander parents from the one below.
          const Bytes32& src = k < kDrgDegree ? cur[p[k]] : prev[p[k]];
          std::memcpy(dst, src.data(), 32);
        }
        len += kTotalParents * 32;
      }
      h.reset();
      h.update({msg.data(), len});
      Bytes32 out = h.finish();
      trim_to_fr(out);
      cur[n] = out;
      if (on_nodes && (n + 1) % kLabelProgressNodes == 0 && n + 1 < n_nodes) on_nodes(layer, n + 1);
    }
    if (on_nodes) on_nodes(layer, n_nodes);
  }
  return labels;
}

}  // namespace cuzk::filecoin::testkit
