#include "filecoin/sdr/common.hpp"

#include "circuit/sha256_native.hpp"

namespace cuzk::filecoin::sdr {

Fr fr_from_bytes(const Bytes32& b) { return circuit::fr_from_le_bytes(b); }

Bytes32 fr_to_bytes(const Fr& x) { return circuit::fr_to_le_bytes(x); }

std::string to_hex(const Bytes32& b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  s.reserve(64);
  for (std::uint8_t v : b) {
    s.push_back(kDigits[v >> 4]);
    s.push_back(kDigits[v & 15]);
  }
  return s;
}

std::optional<Bytes32> bytes32_from_hex(std::string_view hex) {
  if (hex.starts_with("0x") || hex.starts_with("0X")) hex.remove_prefix(2);
  if (hex.size() != 64) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  Bytes32 out{};
  for (std::size_t i = 0; i < 32; ++i) {
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = std::uint8_t(hi << 4 | lo);
  }
  return out;
}

}  // namespace cuzk::filecoin::sdr
