// SDR label circuit (storage-proofs-porep stacked/circuit/create_label.rs): SHA-256 of
//   replica_id (padded to 256 bits) ‖ layer (UInt32, BE) ‖ node (UInt64, BE) ‖ zeros to 512 bits
//   ‖ 37 parents, each padded to 256 bits,
// the digest's bit numbering reversed per byte and the first 254 bits packed (pack_bits).
// Test shape (all inputs allocated, rust-fil-proofs test_create_label): 532,025 rows.
#pragma once

#include <span>
#include <vector>

#include "circuit/gadgets/sha256.hpp"
#include "circuit/gadgets/uint64.hpp"

namespace cuzk::circuit {

inline constexpr std::size_t kSdrTotalParents = 37;

// Bits of bytes, most significant bit of each byte first, allocated (bytes_into_boolean_vec_be).
template <class CS>
std::vector<Boolean> bytes_into_boolean_vec_be(CS& cs, std::span<const std::uint8_t> bytes) {
  std::vector<Boolean> out;
  out.reserve(bytes.size() * 8);
  for (std::size_t k = 0; k < bytes.size() * 8; ++k) {
    auto g = cs.ns(Name("bit", std::int64_t(k)));
    out.push_back(Boolean::is(alloc_bit(cs, (bytes[k / 8] >> (7 - k % 8)) & 1)));
  }
  return out;
}

template <class CS>
AllocatedNum create_label_circuit(CS& cs, std::span<const Boolean> replica_id,
                                  const std::vector<std::vector<Boolean>>& parents, const UInt32& layer_index,
                                  const UInt64& node) {
  assert(replica_id.size() >= 32 && replica_id.size() <= 256);
  assert(parents.size() == kSdrTotalParents);
  std::vector<Boolean> pre(replica_id.begin(), replica_id.end());
  pre.reserve((2 + kSdrTotalParents) * 256);
  while (pre.size() < 256) pre.push_back(Boolean::constant(false));
  Boolean layer_be[32];
  layer_index.into_bits_be(layer_be);
  pre.insert(pre.end(), layer_be, layer_be + 32);
  auto node_be = node.to_bits_be();
  pre.insert(pre.end(), node_be.begin(), node_be.end());
  while (pre.size() < 512) pre.push_back(Boolean::constant(false));
  for (const auto& p : parents) {
    pre.insert(pre.end(), p.begin(), p.end());
    while (pre.size() % 256) pre.push_back(Boolean::constant(false));
  }
  assert(pre.size() == (2 + kSdrTotalParents) * 256);
  std::vector<Boolean> digest;
  {
    auto g = cs.ns("hash");
    digest = sha256(cs, pre);
  }
  auto bits = reverse_bit_numbering(std::move(digest));
  auto g = cs.ns("result_num");
  return pack_bits(cs, std::span<const Boolean>(bits.data(), kFrCapacity));
}

}  // namespace cuzk::circuit
