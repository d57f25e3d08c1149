// BLAKE2b (RFC 7693), unkeyed or keyed, any digest length 1..64, from libsodium
// (crypto_generichash: a single-block hash with no allocation, which the Feistel expander graph needs
// ~50 times per node; OpenSSL's EVP interface costs an allocation per call).
#pragma once

#include <cstdint>
#include <span>

namespace cuzk::filecoin {

// out.size() is the digest length (1..64); key.size() <= 64.
void blake2b(std::span<std::uint8_t> out, std::span<const std::uint8_t> message,
             std::span<const std::uint8_t> key = {});

// First 8 bytes, read big-endian, of unkeyed BLAKE2b-512 of the 16-byte message a_be ‖ b_be
// (the Feistel round function of storage-proofs-core feistel.rs).
std::uint64_t blake2b512_u64pair_prefix(std::uint64_t a, std::uint64_t b);

}  // namespace cuzk::filecoin
