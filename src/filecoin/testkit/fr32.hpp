// fr32 padding (filecoin fr32/src/padding.rs; filecoin-formats.md §6.7): the raw bytes are read as a
// little-endian bit stream and every 254 bits get 2 zero bits appended, so 127 raw bytes become four
// 32-byte nodes that are each a canonical Fr.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "filecoin/common/bytes32.hpp"

namespace cuzk::filecoin::testkit {

// Unpadded size of a padded size (multiple of 128): size / 128 * 127.
constexpr std::uint64_t unpadded_size(std::uint64_t padded) { return padded / 128 * 127; }

// raw.size() must be a multiple of 127; returns raw.size() / 127 * 4 nodes. Parallel.
std::vector<Bytes32> fr32_pad(std::span<const std::uint8_t> raw);
// The inverse (drops the two zero bits of each node).
std::vector<std::uint8_t> fr32_unpad(std::span<const Bytes32> nodes);

}  // namespace cuzk::filecoin::testkit
