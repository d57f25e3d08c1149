#include "filecoin/common/chacha.hpp"

#include <bit>
#include <stdexcept>

namespace cuzk::filecoin {
namespace {

constexpr std::uint32_t kSigma[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};  // "expand 32-byte k"

inline void quarter(std::uint32_t* w, int a, int b, int c, int d) {
  w[a] += w[b];
  w[d] = std::rotl(w[d] ^ w[a], 16);
  w[c] += w[d];
  w[b] = std::rotl(w[b] ^ w[c], 12);
  w[a] += w[b];
  w[d] = std::rotl(w[d] ^ w[a], 8);
  w[c] += w[d];
  w[b] = std::rotl(w[b] ^ w[c], 7);
}

std::uint32_t load_le32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}

}  // namespace

void chacha_block(const std::uint32_t key[8], const std::uint32_t tail[4], int rounds, std::uint32_t out[16]) {
  std::uint32_t st[16];
  for (int i = 0; i < 4; ++i) st[i] = kSigma[i];
  for (int i = 0; i < 8; ++i) st[4 + i] = key[i];
  for (int i = 0; i < 4; ++i) st[12 + i] = tail[i];
  std::uint32_t w[16];
  for (int i = 0; i < 16; ++i) w[i] = st[i];
  for (int r = 0; r < rounds; r += 2) {  // a column round and a diagonal round
    quarter(w, 0, 4, 8, 12);
    quarter(w, 1, 5, 9, 13);
    quarter(w, 2, 6, 10, 14);
    quarter(w, 3, 7, 11, 15);
    quarter(w, 0, 5, 10, 15);
    quarter(w, 1, 6, 11, 12);
    quarter(w, 2, 7, 8, 13);
    quarter(w, 3, 4, 9, 14);
  }
  for (int i = 0; i < 16; ++i) out[i] = w[i] + st[i];
}

ChaCha8Rng::ChaCha8Rng(std::span<const std::uint8_t, 32> seed) {
  for (int i = 0; i < 8; ++i) key_[i] = load_le32(seed.data() + 4 * i);
}

std::uint32_t ChaCha8Rng::next_u32() {
  if (pos_ == 16) {
    const std::uint32_t tail[4] = {std::uint32_t(counter_), std::uint32_t(counter_ >> 32), 0, 0};
    chacha_block(key_, tail, 8, buf_);
    ++counter_;
    pos_ = 0;
  }
  return buf_[pos_++];
}

void chacha20_ietf_keystream(std::span<const std::uint8_t, 32> key, std::span<const std::uint8_t, 12> nonce,
                             std::uint64_t offset, std::span<std::uint8_t> out) {
  if ((offset + out.size() + 63) / 64 > (std::uint64_t(1) << 32))
    throw std::invalid_argument("chacha20: keystream exhausted");
  std::uint32_t k[8];
  for (int i = 0; i < 8; ++i) k[i] = load_le32(key.data() + 4 * i);
  std::uint32_t tail[4] = {0, load_le32(nonce.data()), load_le32(nonce.data() + 4), load_le32(nonce.data() + 8)};
  std::uint32_t block[16];
  std::size_t done = 0;
  while (done < out.size()) {
    const std::uint64_t pos = offset + done;
    tail[0] = std::uint32_t(pos / 64);
    chacha_block(k, tail, 20, block);
    for (std::size_t b = pos % 64; b < 64 && done < out.size(); ++b, ++done)
      out[done] = std::uint8_t(block[b / 4] >> (8 * (b % 4)));
  }
}

}  // namespace cuzk::filecoin
