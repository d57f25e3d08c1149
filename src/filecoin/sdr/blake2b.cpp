#include "filecoin/sdr/blake2b.hpp"

#include <bit>
#include <cstring>
#include <stdexcept>

namespace cuzk::filecoin::sdr {
namespace {

constexpr std::uint64_t kIv[8] = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
                                  0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};

constexpr std::uint8_t kSigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

inline void g(std::uint64_t* v, int a, int b, int c, int d, std::uint64_t x, std::uint64_t y) {
  v[a] = v[a] + v[b] + x;
  v[d] = std::rotr(v[d] ^ v[a], 32);
  v[c] = v[c] + v[d];
  v[b] = std::rotr(v[b] ^ v[c], 24);
  v[a] = v[a] + v[b] + y;
  v[d] = std::rotr(v[d] ^ v[a], 16);
  v[c] = v[c] + v[d];
  v[b] = std::rotr(v[b] ^ v[c], 63);
}

// F(h, m, t, f): t = bytes compressed so far including this block (< 2^64 here), last = final block.
void compress(std::uint64_t h[8], const std::uint64_t m[16], std::uint64_t t, bool last) {
  std::uint64_t v[16];
  for (int i = 0; i < 8; ++i) {
    v[i] = h[i];
    v[i + 8] = kIv[i];
  }
  v[12] ^= t;
  if (last) v[14] = ~v[14];
  for (const auto& s : kSigma) {
    g(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[i + 8];
}

void load_block(std::uint64_t m[16], const std::uint8_t* p, std::size_t n) {
  std::uint8_t buf[128] = {};
  std::memcpy(buf, p, n);
  for (int i = 0; i < 16; ++i) {
    std::uint64_t w = 0;
    for (int j = 7; j >= 0; --j) w = w << 8 | buf[8 * i + j];
    m[i] = w;
  }
}

}  // namespace

void blake2b(std::span<std::uint8_t> out, std::span<const std::uint8_t> message, std::span<const std::uint8_t> key) {
  if (out.empty() || out.size() > 64 || key.size() > 64) throw std::invalid_argument("blake2b: bad digest/key length");
  std::uint64_t h[8];
  std::memcpy(h, kIv, sizeof h);
  h[0] ^= 0x01010000u ^ (std::uint64_t(key.size()) << 8) ^ std::uint64_t(out.size());
  std::uint64_t m[16];
  std::uint64_t t = 0;
  // A key is compressed as a full zero-padded first block; the message follows.
  if (!key.empty()) {
    load_block(m, key.data(), key.size());
    t = 128;
    compress(h, m, t, message.empty());
  }
  std::size_t off = 0;
  // Every block but the last is compressed without the final flag; the last may be partial.
  while (message.size() - off > 128) {
    load_block(m, message.data() + off, 128);
    off += 128;
    t += 128;
    compress(h, m, t, false);
  }
  if (!message.empty() || key.empty()) {
    const std::size_t rem = message.size() - off;
    load_block(m, message.data() + off, rem);
    t += rem;
    compress(h, m, t, true);
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::uint8_t(h[i / 8] >> (8 * (i % 8)));
}

std::uint64_t blake2b512_u64pair_prefix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t h[8];
  std::memcpy(h, kIv, sizeof h);
  h[0] ^= 0x01010000u ^ 64u;
  // The message words are little-endian loads of the big-endian encodings (x86/ARM-LE hosts).
  static_assert(std::endian::native == std::endian::little);
  std::uint64_t m[16] = {__builtin_bswap64(a), __builtin_bswap64(b)};
  compress(h, m, 16, true);
  return __builtin_bswap64(h[0]);  // digest bytes 0..7 read big-endian
}

}  // namespace cuzk::filecoin::sdr
