#include "filecoin/testkit/fr32.hpp"

#include <stdexcept>

#include "base/parallel.hpp"

namespace cuzk::filecoin::testkit {

std::vector<Bytes32> fr32_pad(std::span<const std::uint8_t> raw) {
  if (raw.size() % 127) throw std::invalid_argument("fr32_pad: input is not a multiple of 127 bytes");
  const std::size_t chunks = raw.size() / 127;
  std::vector<Bytes32> out(chunks * 4);
  parallel_for(
      chunks,
      [&](std::size_t c) {
        const std::uint8_t* in = raw.data() + 127 * c;
        for (std::size_t q = 0; q < 4; ++q) {
          // Node q holds raw bits [254q, 254q + 254): start at byte 254q / 8, bit 254q % 8.
          const std::size_t bit = 254 * q, off = bit / 8, shift = bit % 8;
          Bytes32& node = out[4 * c + q];
          for (std::size_t j = 0; j < 32; ++j) {
            const unsigned lo = off + j < 127 ? in[off + j] : 0;
            const unsigned hi = off + j + 1 < 127 ? in[off + j + 1] : 0;
            node[j] = std::uint8_t(shift ? (lo >> shift | hi << (8 - shift)) : lo);
          }
          trim_to_fr(node);
        }
      },
      4096);
  return out;
}

std::vector<std::uint8_t> fr32_unpad(std::span<const Bytes32> nodes) {
  if (nodes.size() % 4) throw std::invalid_argument("fr32_unpad: node count is not a multiple of 4");
  const std::size_t chunks = nodes.size() / 4;
  std::vector<std::uint8_t> out(chunks * 127, 0);
  parallel_for(
      chunks,
      [&](std::size_t c) {
        std::uint8_t* dst = out.data() + 127 * c;
        for (std::size_t q = 0; q < 4; ++q) {
          const std::size_t bit = 254 * q, off = bit / 8, shift = bit % 8;
          for (std::size_t j = 0; j < 32; ++j) {
            // Only the low 254 bits of a node carry data.
            const unsigned v = j == 31 ? (nodes[4 * c + q][j] & 0x3f) : nodes[4 * c + q][j];
            if (off + j < 127) dst[off + j] |= std::uint8_t(v << shift);
            if (shift && off + j + 1 < 127) dst[off + j + 1] |= std::uint8_t(v >> (8 - shift));
          }
        }
      },
      4096);
  return out;
}

}  // namespace cuzk::filecoin::testkit
