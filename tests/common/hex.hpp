// Hex text <-> bytes for test vectors.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::test {

inline std::vector<std::uint8_t> unhex(const std::string& s) {
  std::vector<std::uint8_t> out(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::uint8_t(std::stoi(s.substr(2 * i, 2), nullptr, 16));
  return out;
}

template <std::size_t N>
std::string hex(const std::array<std::uint8_t, N>& a) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (auto b : a) s += {d[b >> 4], d[b & 15]};
  return s;
}

}  // namespace cuzk::test
