#include "filecoin/porep/feistel.hpp"

#include <stdexcept>
#include <string_view>

#include "filecoin/common/blake2b.hpp"
#include "filecoin/common/sha.hpp"

namespace cuzk::filecoin::porep {

std::array<std::uint64_t, 4> Feistel::keys_for(const Bytes32& porep_id) {
  Sha256 h;
  constexpr std::string_view kDst = "Filecoin_Feistel";
  h.update({reinterpret_cast<const std::uint8_t*>(kDst.data()), kDst.size()});
  h.update(porep_id);
  const Bytes32 d = h.finish();
  std::array<std::uint64_t, 4> keys{};
  for (std::size_t i = 0; i < 32; ++i) keys[i / 8] |= std::uint64_t(d[i]) << (8 * (i % 8));
  return keys;
}

Feistel::Feistel(std::uint64_t n, const std::array<std::uint64_t, 4>& keys) : n_(n), keys_(keys) {
  if (n == 0 || n > (std::uint64_t(1) << 62)) throw std::invalid_argument("feistel: domain size out of range");
  half_bits_ = 1;
  while ((std::uint64_t(1) << (2 * half_bits_)) < n) ++half_bits_;
  right_mask_ = (std::uint64_t(1) << half_bits_) - 1;
  left_mask_ = right_mask_ << half_bits_;
}

std::uint64_t Feistel::encode(std::uint64_t x) const {
  std::uint64_t left = (x & left_mask_) >> half_bits_, right = x & right_mask_;
  for (int r = 0; r < 3; ++r) {
    const std::uint64_t f = blake2b512_u64pair_prefix(right, keys_[std::size_t(r)]) & right_mask_;
    const std::uint64_t next_right = left ^ f;
    left = right;
    right = next_right;
  }
  return left << half_bits_ | right;
}

std::uint64_t Feistel::permute(std::uint64_t x) const {
  // Cycle walking: the network permutes [0, 4^k) ⊇ [0, n); re-encoding until the value falls in
  // [0, n) restricts it to a permutation of [0, n).
  std::uint64_t u = encode(x);
  while (u >= n_) u = encode(u);
  return u;
}

}  // namespace cuzk::filecoin::porep
