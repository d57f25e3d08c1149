// Pieces shared by the snarkjs binary readers and writers: the field-element and point encodings of
// .r1cs/.wtns/.zkey files on BLS12-381, and naming of foreign primes for clear errors.
//
//   Fr in .r1cs / .wtns:   32 bytes, plain (canonical) little-endian integer < r
//   Fr in .zkey sec 4:     32 bytes, the canonical integer coef * R^2 mod r (R = 2^256)
//   Fp in .zkey points:    48 bytes, Montgomery form x * 2^384 mod q, little-endian
//   G1 point:              x, y (96 bytes);  G2 point: x.c0, x.c1, y.c0, y.c1 (192 bytes)
//   point at infinity:     all-zero bytes ((0, 0) is not on either curve, so this is unambiguous)
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/huge_vector.hpp"
#include "base/result.hpp"
#include "math/ec/bls12_381.hpp"

namespace cuzk::formats {

using math::Fp;
using math::Fr;
using math::G1Affine;
using math::G2Affine;

inline constexpr std::size_t kFrBytes = 32;
inline constexpr std::size_t kFpBytes = 48;
inline constexpr std::size_t kG1Bytes = 2 * kFpBytes;
inline constexpr std::size_t kG2Bytes = 4 * kFpBytes;

// Whether `bytes` (little-endian) is exactly BLS12-381's r (n8 = 32) / q (n8 = 48).
bool is_bls12_381_r(std::span<const std::uint8_t> bytes);
bool is_bls12_381_q(std::span<const std::uint8_t> bytes);
// A short description of a prime given little-endian: its decimal value, followed by the curve
// name when it is a known circom prime, e.g. "21888...5617 (bn128 scalar field)".
std::string describe_prime(std::span<const std::uint8_t> bytes);

// Canonical little-endian Fr (.r1cs, .wtns); false when >= r.
bool decode_fr_plain(const std::uint8_t* p, Fr& out);
void encode_fr_plain(const Fr& v, std::uint8_t* p);
// .zkey coefficient encoding coef * R^2 mod r; false when the raw integer is >= r.
bool decode_fr_zkey_coef(const std::uint8_t* p, Fr& out);
void encode_fr_zkey_coef(const Fr& v, std::uint8_t* p);

enum class PointError : std::uint8_t { kNone, kCoordinateTooLarge, kNotOnCurve, kNotInSubgroup };
const char* point_error_text(PointError e);

// Montgomery little-endian affine points of .zkey/.ptau files. Decoding always checks the coordinate
// range and the curve equation, and the prime-order subgroup when `subgroup` is set.
PointError decode_g1_mont(const std::uint8_t* p, G1Affine& out, bool subgroup);
PointError decode_g2_mont(const std::uint8_t* p, G2Affine& out, bool subgroup);
void encode_g1_mont(const G1Affine& a, std::uint8_t* p);
void encode_g2_mont(const G2Affine& a, std::uint8_t* p);

bool g1_in_subgroup(const G1Affine& p);
bool g2_in_subgroup(const G2Affine& p);

// Decodes `count` consecutive points (in parallel for large counts). On failure returns the lowest
// failing index and its error.
struct PointBatchError {
  std::size_t index = 0;
  PointError error = PointError::kNone;
};
PointBatchError decode_g1_batch(std::span<const std::uint8_t> bytes, std::size_t count, std::vector<G1Affine>& out,
                                bool subgroup);
PointBatchError decode_g1_batch(std::span<const std::uint8_t> bytes, std::size_t count, HugeVector<G1Affine>& out,
                                bool subgroup);
PointBatchError decode_g2_batch(std::span<const std::uint8_t> bytes, std::size_t count, std::vector<G2Affine>& out,
                                bool subgroup);

// Decodes only the points whose keep[i] is set, into out (in index order); every other point must be
// all zero bytes (the point at infinity). Errors come in the order decoding everything would give
// them: the lowest-indexed point that fails to decode (kept or not) first; failing that,
// `not_identity` is the lowest index of a skipped point that decodes but is not the identity
// (count when none).
struct SelectedBatchError {
  PointBatchError decode;  // decode.error == kNone: no point failed to decode
  std::size_t not_identity = 0;
};
SelectedBatchError decode_g1_selected(std::span<const std::uint8_t> bytes, std::size_t count,
                                      const std::vector<bool>& keep, HugeVector<G1Affine>& out, bool subgroup);
SelectedBatchError decode_g2_selected(std::span<const std::uint8_t> bytes, std::size_t count,
                                      const std::vector<bool>& keep, HugeVector<G2Affine>& out, bool subgroup);

// Decimal text of a little-endian integer of any width (for messages).
std::string le_bytes_to_decimal(std::span<const std::uint8_t> bytes);

}  // namespace cuzk::formats
