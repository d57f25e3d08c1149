// Eight Fp (BLS12-381 base field) Montgomery multiplications at once with AVX-512 IFMA (52-bit
// multiply-add lanes), for bulk work whose cost is a few independent multiplications per element:
// decoding a .params file turns every coordinate into Montgomery form and checks the curve equation
// (5-6 multiplications per G1 point), which the scalar MULX/ADX multiplier runs at ~75 cycles each on
// the 2.1 GHz development core; eight lanes of 8 x 52-bit limbs do the same work in far fewer cycles.
//
// Everything here is chosen at run time: available() says whether this CPU (and OS) support
// AVX-512F/BW + IFMA; callers keep their scalar path for the others. The functions are compiled with a
// target attribute, so the rest of the build needs no AVX-512 flags.
#pragma once

#include <cstddef>
#include <cstdint>

#include "math/ff/bls12_381.hpp"

namespace cuzk::math::ifma {

// True when AVX-512F, AVX-512BW and AVX-512 IFMA can be used on this machine (checked once) and the
// executable has not turned them off (set_enabled(false): CUZK_NO_IFMA=1, read by the apps).
bool available();
void set_enabled(bool on);

// Whole points from file bytes, eight at a time, every step in vector registers. Each writes lane k's
// coordinates in Montgomery form as Fp::Repr words at out + k * out_stride: x at byte 0, y at 48
// (G1); x.c0, x.c1, y.c0, y.c1 at 0, 48, 96, 144 (G2) -- the layout of math::G1Affine / G2Affine,
// whose `infinity` flag the caller sets. Returns the lanes that are fine; the outputs of the others
// are unspecified (the caller decodes those points again on its per-point path, which names the
// error).
//
// bellperson uncompressed encoding: points at src + k * stride, coordinates 48-byte big-endian
// (G2: c1 before c0); a lane is fine when its flag bits are clear, every coordinate is < p and the
// point is on the curve.
unsigned g1_decode_be8(const std::uint8_t* src, std::size_t stride, void* out, std::size_t out_stride);
unsigned g2_decode_be8(const std::uint8_t* src, std::size_t stride, void* out, std::size_t out_stride);

// snarkjs .zkey encoding: lane k's point at src[k], coordinates 48-byte little-endian already in
// Montgomery form (G2: c0 before c1); a lane is fine when every coordinate is < p, the point is not
// the all-zero encoding of the identity and it is on the curve.
unsigned g1_decode_mont8(const std::uint8_t* const* src, void* out, std::size_t out_stride);
unsigned g2_decode_mont8(const std::uint8_t* const* src, void* out, std::size_t out_stride);

// Eight independent products a[k] * b[k] of canonical integers (< p), returned canonical (< p).
// Exposed for tests of the 52-bit Montgomery core against the scalar field.
void mul_canonical8(const Fp::Repr* a, const Fp::Repr* b, Fp::Repr* out);

}  // namespace cuzk::math::ifma
