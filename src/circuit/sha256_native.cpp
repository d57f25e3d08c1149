#include "circuit/sha256_native.hpp"

#include <bit>
#include <cstring>
#include <vector>

namespace cuzk::circuit {

void sha256_compress(std::array<std::uint32_t, 8>& st, const std::uint8_t block[64]) {
  std::uint32_t w[64];
  for (int i = 0; i < 16; ++i) {
    w[i] = std::uint32_t(block[4 * i]) << 24 | std::uint32_t(block[4 * i + 1]) << 16 |
           std::uint32_t(block[4 * i + 2]) << 8 | std::uint32_t(block[4 * i + 3]);
  }
  for (int i = 16; i < 64; ++i) {
    std::uint32_t s0 = std::rotr(w[i - 15], 7) ^ std::rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    std::uint32_t s1 = std::rotr(w[i - 2], 17) ^ std::rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
  for (int i = 0; i < 64; ++i) {
    std::uint32_t S1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
    std::uint32_t ch = (e & f) ^ (~e & g);
    std::uint32_t t1 = h + S1 + ch + kSha256RoundConstants[std::size_t(i)] + w[i];
    std::uint32_t S0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
    std::uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    std::uint32_t t2 = S0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  st[0] += a;
  st[1] += b;
  st[2] += c;
  st[3] += d;
  st[4] += e;
  st[5] += f;
  st[6] += g;
  st[7] += h;
}

Sha256Digest sha256_native(std::span<const std::uint8_t> data) {
  std::array<std::uint32_t, 8> st = kSha256Iv;
  std::size_t full = data.size() / 64;
  for (std::size_t k = 0; k < full; ++k) sha256_compress(st, data.data() + 64 * k);
  std::uint8_t tail[128] = {};
  std::size_t rem = data.size() - 64 * full;
  if (rem) std::memcpy(tail, data.data() + 64 * full, rem);
  tail[rem] = 0x80;
  std::size_t tail_len = rem + 1 + 8 <= 64 ? 64 : 128;
  std::uint64_t bits = std::uint64_t(data.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_len - 1 - std::size_t(i)] = std::uint8_t(bits >> (8 * i));
  for (std::size_t k = 0; k < tail_len; k += 64) sha256_compress(st, tail + k);
  Sha256Digest out;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 4; ++j) out[std::size_t(4 * i + j)] = std::uint8_t(st[std::size_t(i)] >> (24 - 8 * j));
  }
  return out;
}

Sha256Digest sha254(std::span<const std::uint8_t> data) {
  auto d = sha256_native(data);
  d[31] &= 0x3f;
  return d;
}

math::Fr fr_from_le_bytes(const Sha256Digest& d) {
  math::Fr::Repr x{};
  for (std::size_t i = 0; i < 32; ++i) x[i / 8] |= std::uint64_t(d[i]) << (8 * (i % 8));
  return math::Fr::from_reduced(x);
}

Sha256Digest fr_to_le_bytes(const math::Fr& x) {
  Sha256Digest d;
  x.to_bytes_le(d);
  return d;
}

}  // namespace cuzk::circuit
