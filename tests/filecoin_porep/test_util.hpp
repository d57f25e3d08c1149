// Helpers shared by the SDR tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "filecoin/common/bytes32.hpp"

namespace cuzk::filecoin::test {

inline Bytes32 hex32(const std::string& h) {
  auto b = bytes32_from_hex(h);
  if (!b) throw std::invalid_argument("bad hex in test: " + h);
  return *b;
}

// A field element written as four u64 limbs, least significant first (how the Rust tests print them).
inline Bytes32 from_limbs(std::uint64_t l0, std::uint64_t l1, std::uint64_t l2, std::uint64_t l3) {
  const std::uint64_t l[4] = {l0, l1, l2, l3};
  Bytes32 b{};
  for (std::size_t i = 0; i < 32; ++i) b[i] = std::uint8_t(l[i / 8] >> (8 * (i % 8)));
  return b;
}

inline Bytes32 filled(std::uint8_t v) {
  Bytes32 b;
  b.fill(v);
  return b;
}

inline Bytes32 small_fr(std::uint64_t v) { return from_limbs(v, 0, 0, 0); }

}  // namespace cuzk::filecoin::test
