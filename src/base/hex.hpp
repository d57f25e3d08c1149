// Hex encoding, written once for the whole tree: lowercase digits in byte order (no reversal, no
// 0x) out; an optional 0x prefix and either case in, every other character refused with its position.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace cuzk {

inline std::string hex_encode(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(2 * bytes.size(), '0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    s[2 * i] = kDigits[bytes[i] >> 4];
    s[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return s;
}

// Decodes exactly out.size() bytes (2·out.size() digits after an optional 0x prefix).
inline Status hex_decode_into(std::string_view hex, std::span<std::uint8_t> out) {
  if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
  if (hex.size() != 2 * out.size())
    return Error{"expected " + std::to_string(2 * out.size()) + " hex digits, got " + std::to_string(hex.size()) +
                 " characters"};
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return Error{"invalid hex digit at position " + std::to_string(hi < 0 ? 2 * i : 2 * i + 1)};
    out[i] = std::uint8_t(hi << 4 | lo);
  }
  return ok_status();
}

}  // namespace cuzk
