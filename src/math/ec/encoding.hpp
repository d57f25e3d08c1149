// zcash/IETF serialization of BLS12-381 points, as bellperson's .params/.vk and 192-byte proofs
// use it: big-endian coordinates, the three top bits of byte 0 are flags
//   bit 7 compressed, bit 6 infinity, bit 5 "y is the lexicographically larger root" (compressed only).
// G2 coordinates are written c1 first, then c0.
//
// Decoding is for untrusted bytes: every flag combination, field range, curve equation and (when
// asked) subgroup membership is checked, and the error says which check failed.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "base/result.hpp"
#include "math/ec/bls12_381.hpp"

namespace cuzk::math {

enum class SubgroupCheck { kCheck, kSkip };

inline constexpr std::size_t kG1CompressedBytes = 48;
inline constexpr std::size_t kG1UncompressedBytes = 96;
inline constexpr std::size_t kG2CompressedBytes = 96;
inline constexpr std::size_t kG2UncompressedBytes = 192;

std::array<std::uint8_t, kG1CompressedBytes> g1_to_compressed(const G1Affine& p);
std::array<std::uint8_t, kG1UncompressedBytes> g1_to_uncompressed(const G1Affine& p);
std::array<std::uint8_t, kG2CompressedBytes> g2_to_compressed(const G2Affine& p);
std::array<std::uint8_t, kG2UncompressedBytes> g2_to_uncompressed(const G2Affine& p);

Result<G1Affine> g1_from_compressed(std::span<const std::uint8_t> bytes, SubgroupCheck check = SubgroupCheck::kCheck);
Result<G1Affine> g1_from_uncompressed(std::span<const std::uint8_t> bytes, SubgroupCheck check = SubgroupCheck::kCheck);
Result<G2Affine> g2_from_compressed(std::span<const std::uint8_t> bytes, SubgroupCheck check = SubgroupCheck::kCheck);
Result<G2Affine> g2_from_uncompressed(std::span<const std::uint8_t> bytes, SubgroupCheck check = SubgroupCheck::kCheck);

}  // namespace cuzk::math
