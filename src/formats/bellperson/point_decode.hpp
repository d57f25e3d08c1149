// Bulk decoding of zcash-uncompressed BLS12-381 points (the big vectors of a .params file).
//
// The fast path handles the common case — flags clear, both coordinates < p, on the curve — with
// big-endian word loads, one Montgomery conversion per coordinate and the curve equation. Anything
// else (flags, infinity, out-of-range, off-curve) is handed to math/ec/encoding.hpp's decoder, which
// says exactly what is wrong. Subgroup membership is checked only when asked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "math/ec/bls12_381.hpp"
#include "math/ec/encoding.hpp"

namespace cuzk::formats::bellperson::detail {

struct BadPoint {
  std::size_t index = 0;  // relative to the start of the decoded range
  std::string reason;     // e.g. "G1 point is not on the curve"
};

struct PointDecodeOptions {
  math::SubgroupCheck subgroup = math::SubgroupCheck::kSkip;
  bool allow_identity = false;
  std::size_t threads = 1;
};

// Decodes n consecutive encodings starting at src into out[0..n). On failure returns the
// lowest-indexed bad point (out is then partially written).
std::optional<BadPoint> decode_g1_points(const std::uint8_t* src, std::size_t n, math::G1Affine* out,
                                         const PointDecodeOptions& opt);
std::optional<BadPoint> decode_g2_points(const std::uint8_t* src, std::size_t n, math::G2Affine* out,
                                         const PointDecodeOptions& opt);

// One point, with the same rules (the generic decoder plus the identity rule).
std::optional<std::string> decode_g1_point(const std::uint8_t* src, math::G1Affine& out, math::SubgroupCheck sub,
                                           bool allow_identity);
std::optional<std::string> decode_g2_point(const std::uint8_t* src, math::G2Affine& out, math::SubgroupCheck sub,
                                           bool allow_identity);

}  // namespace cuzk::formats::bellperson::detail
