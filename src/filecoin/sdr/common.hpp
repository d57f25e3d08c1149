// Shared vocabulary of the SDR code: 32-byte values are kept as their little-endian bytes
// (porep::Bytes32, exactly as they appear in C1 files), and become Fr only where Poseidon needs them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "math/ff/bls12_381.hpp"

namespace cuzk::filecoin::sdr {

using porep::Bytes32;
using math::Fr;

// SHA-derived values (labels, replica_id, tree-D nodes) are "SHA-254": bits 254 and 255 cleared so
// that the 32 bytes are a canonical field element.
inline void trim_to_fr(Bytes32& b) { b[31] &= 0x3f; }

// Bytes32 (canonical, LE) <-> Fr. fr_from_bytes reduces values >= r once; callers pass canonical values.
Fr fr_from_bytes(const Bytes32& b);
Bytes32 fr_to_bytes(const Fr& x);

// 64 lowercase hex digits, byte order as stored (porep::bytes32_hex).
inline std::string to_hex(const Bytes32& b) { return porep::bytes32_hex(b); }
// 64 hex digits (optional 0x); nullopt on anything else.
inline std::optional<Bytes32> bytes32_from_hex(std::string_view hex) {
  auto b = porep::bytes32_from_hex(hex);
  return b ? std::optional<Bytes32>(*b) : std::nullopt;
}

}  // namespace cuzk::filecoin::sdr
