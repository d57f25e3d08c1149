#include "filecoin/common/blake2b.hpp"

#include <sodium.h>

#include <stdexcept>

namespace cuzk::filecoin {

void blake2b(std::span<std::uint8_t> out, std::span<const std::uint8_t> message, std::span<const std::uint8_t> key) {
  // libsodium allows digests of 16..64 bytes and keys up to 64; SDR uses 32 and 64.
  if (out.size() < crypto_generichash_BYTES_MIN || out.size() > crypto_generichash_BYTES_MAX ||
      key.size() > crypto_generichash_KEYBYTES_MAX)
    throw std::invalid_argument("blake2b: digest must be 16..64 bytes and the key at most 64");
  if (crypto_generichash(out.data(), out.size(), message.data(), message.size(), key.empty() ? nullptr : key.data(),
                         key.size()) != 0)
    throw std::runtime_error("blake2b: crypto_generichash failed");
}

std::uint64_t blake2b512_u64pair_prefix(std::uint64_t a, std::uint64_t b) {
  std::uint8_t msg[16], digest[64];
  for (int i = 0; i < 8; ++i) {
    msg[i] = std::uint8_t(a >> (56 - 8 * i));
    msg[8 + i] = std::uint8_t(b >> (56 - 8 * i));
  }
  crypto_generichash(digest, sizeof digest, msg, sizeof msg, nullptr, 0);
  std::uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r = r << 8 | digest[i];
  return r;
}

}  // namespace cuzk::filecoin
