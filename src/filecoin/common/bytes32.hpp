// The 32-byte values every Filecoin proof family handles (commitments, tickets, seeds, Sha256Domain
// and PoseidonDomain nodes): kept as their little-endian bytes, exactly as they appear in C1 /
// vanilla-proof files, and converted to Fr only where a hash or the circuit needs them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/hex.hpp"
#include "base/result.hpp"
#include "math/ff/bls12_381.hpp"

namespace cuzk::filecoin {

// [u8; 32]: Commitment, Ticket, Sha256Domain, PoseidonDomain (LE Fr bytes).
using Bytes32 = std::array<std::uint8_t, 32>;
using math::Fr;

// SHA-derived values (labels, replica_id, tree-D nodes) are "SHA-254": bits 254 and 255 cleared so
// that the 32 bytes are a canonical field element.
inline void trim_to_fr(Bytes32& b) { b[31] &= 0x3f; }

// Bytes32 (canonical, LE) <-> Fr. fr_from_bytes reduces values >= r once; callers pass canonical values.
Fr fr_from_bytes(const Bytes32& b);
Bytes32 fr_to_bytes(const Fr& x);

// 64 lowercase hex digits in byte order (no reversal, no 0x).
inline std::string bytes32_hex(const Bytes32& b) { return hex_encode(b); }
// Inverse; accepts an optional 0x prefix and either case.
inline Result<Bytes32> bytes32_from_hex(std::string_view hex) {
  Bytes32 b{};
  if (auto st = hex_decode_into(hex, b); !st) return Error{st.error()};
  return b;
}

}  // namespace cuzk::filecoin
