// The Feistel permutation behind the expander parents (storage-proofs-core crypto/feistel.rs;
// filecoin-formats.md §6.4). A 3-round balanced Feistel network on 2k-bit values with
// F(R, key) = BLAKE2b-512(R u64 BE ‖ key u64 BE)[0..8] BE masked to k bits, plus cycle walking
// so that it is a permutation of [0, n).
#pragma once

#include <array>
#include <cstdint>

#include "filecoin/common/bytes32.hpp"

namespace cuzk::filecoin::porep {

class Feistel {
 public:
  // keys = 4 × u64 LE of SHA-256("Filecoin_Feistel" ‖ porep_id); rounds use keys[0..3).
  static std::array<std::uint64_t, 4> keys_for(const Bytes32& porep_id);

  // A permutation of [0, n): k = smallest k >= 1 with 4^k >= n, so the network's domain is 4^k.
  Feistel(std::uint64_t n, const std::array<std::uint64_t, 4>& keys);
  std::uint64_t permute(std::uint64_t x) const;  // x < n
  std::uint64_t encode(std::uint64_t x) const;   // one pass of the network on [0, 4^k)

 private:
  std::uint64_t n_;
  std::array<std::uint64_t, 4> keys_;
  unsigned half_bits_;
  std::uint64_t right_mask_, left_mask_;
};

}  // namespace cuzk::filecoin::porep
