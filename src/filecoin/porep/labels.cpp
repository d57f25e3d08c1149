#include "filecoin/porep/labels.hpp"

#include <cstring>
#include <stdexcept>

#include "filecoin/common/sha.hpp"

namespace cuzk::filecoin::porep {
void label_header(std::uint8_t out[64], const Bytes32& replica_id, std::uint32_t layer, std::uint64_t node) {
  std::memcpy(out, replica_id.data(), 32);
  for (int i = 0; i < 4; ++i) out[32 + i] = std::uint8_t(layer >> (24 - 8 * i));
  for (int i = 0; i < 8; ++i) out[36 + i] = std::uint8_t(node >> (56 - 8 * i));
  std::memset(out + 44, 0, 20);
}

Bytes32 label_hash(const Bytes32& replica_id, std::uint32_t layer, std::uint64_t node,
                   std::span<const Bytes32> parents_37) {
  if (!parents_37.empty() && parents_37.size() != kTotalParents)
    throw std::invalid_argument("label_hash: need 0 or 37 parent labels");
  std::uint8_t hdr[64];
  label_header(hdr, replica_id, layer, node);
  Sha256 h;
  h.update(hdr);
  if (!parents_37.empty()) h.update({parents_37.front().data(), parents_37.size() * 32});
  Bytes32 out = h.finish();
  trim_to_fr(out);
  return out;
}

std::array<Bytes32, kTotalParents> expand_parent_labels(std::span<const Bytes32> parents) {
  if (parents.size() != kDrgDegree && parents.size() != kDegree)
    throw std::invalid_argument("expand_parent_labels: need 6 or 14 parent labels");
  std::array<Bytes32, kTotalParents> out;
  for (std::size_t i = 0; i < kTotalParents; ++i) out[i] = parents[i % parents.size()];
  return out;
}

}  // namespace cuzk::filecoin::porep
