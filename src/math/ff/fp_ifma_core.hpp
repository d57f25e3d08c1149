// The AVX-512 IFMA Montgomery core in radix 2^52, shared by the bulk users of eight-lane field
// arithmetic (the point decoders in fp_ifma.cpp, the CPU MSM's batch-affine buckets: Fp in 8 limbs;
// the CPU NTT: Fr in 5 limbs, ntt_ifma.cpp).
//
// Layout: a batch of eight field elements is N __m512i, vector j holding limb j (bits
// 52j..52j+51) of all eight lanes. With 8 limbs (Fp) the Montgomery radix is R = 2^416; since 4p < R,
// inputs in [0, 2p) give outputs in [0, 2p), so chains need no reduction between products, only
// the final values are brought below p. Limb sums stay below 2^57 inside a product (at most four
// 52-bit terms per limb per round over eight rounds), so the 64-bit lanes never overflow. The
// arithmetic below is generic in N (BatchN); the word/limb conversions and Constants are Fp's.
//
// Internal to cuzk_math: include it only from .cpp files, and call its functions only where
// ifma::available() said yes. Every function carries a target attribute, so no translation unit
// needs AVX-512 flags.
#pragma once

// GCC 12 warns inside its own _mm512_srli_epi64 (the intrinsic passes _mm512_undefined_epi32() as
// the unused merge source); the warning is about the header, not this file.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cstdint>

#include "math/ff/bls12_381.hpp"

namespace cuzk::math::ifma::core {

#define CUZK_IFMA __attribute__((target("avx512f,avx512ifma")))

constexpr int kLimbs = 8;
constexpr std::uint64_t kMask52 = (std::uint64_t(1) << 52) - 1;
using Repr = Fp::Repr;

// Canonical 6 x 64-bit words <-> 8 x 52-bit limbs.
inline void split52(const Repr& in, std::uint64_t out[kLimbs]) {
  for (int j = 0; j < kLimbs; ++j) {
    const int bit = 52 * j, w = bit / 64, s = bit % 64;
    std::uint64_t v = w < 6 ? in[w] >> s : 0;
    if (s > 12 && w + 1 < 6) v |= in[w + 1] << (64 - s);
    out[j] = v & kMask52;
  }
}

inline void join52(const std::uint64_t in[kLimbs], Repr& out) {
  unsigned __int128 acc = 0;
  int bits = 0, w = 0;
  for (int j = 0; j < kLimbs; ++j) {
    acc |= static_cast<unsigned __int128>(in[j]) << bits;
    bits += 52;
    while (bits >= 64 && w < 6) {
      out[w++] = static_cast<std::uint64_t>(acc);
      acc >>= 64;
      bits -= 64;
    }
  }
  while (w < 6) {
    out[w++] = static_cast<std::uint64_t>(acc);
    acc >>= 64;
  }
}

// Constants, in 52-bit limbs: p, -p^-1 mod 2^52, 2^800 mod p (x -> x * 2^384, the scalar field's
// Montgomery form), 2^832 = R^2 mod p (undoes one R^-1), and 4 * R^-1 (the curve's b in the
// R^-1-scaled domain the check runs in).
struct Constants {
  std::uint64_t p[kLimbs], k800[kLimbs], k832[kLimbs], c4[kLimbs];
  // For inputs already in the scalar field's Montgomery form (x 2^384): products land at 2^352,
  // triple products at 2^320, which 2^448 lifts to 2^352; b = 4 becomes 4 * 2^352.
  std::uint64_t k448[kLimbs], c4m[kLimbs];
  std::uint64_t pinv;
  Constants() {
    split52(Fp::modulus(), p);
    std::uint64_t p0 = Fp::modulus()[0], inv = 1;
    for (int i = 0; i < 6; ++i) inv *= 2 - p0 * inv;  // Newton: doubles the correct low bits
    pinv = (0 - inv) & kMask52;
    const Fp two = Fp::from_u64(2);
    split52(two.pow(std::uint64_t(800)).to_canonical(), k800);
    split52(two.pow(std::uint64_t(832)).to_canonical(), k832);
    split52((Fp::from_u64(4) * two.pow(std::uint64_t(416)).inverse()).to_canonical(), c4);
    split52(two.pow(std::uint64_t(448)).to_canonical(), k448);
    split52((Fp::from_u64(4) * two.pow(std::uint64_t(352))).to_canonical(), c4m);
  }
};

inline const Constants& constants() {
  static const Constants c;
  return c;
}

template <int N>
struct BatchN {
  __m512i l[N];
};
using Batch = BatchN<kLimbs>;

template <int N>
inline CUZK_IFMA BatchN<N> broadcast(const std::uint64_t (&limbs)[N]) {
  BatchN<N> b;
  for (int j = 0; j < N; ++j) b.l[j] = _mm512_set1_epi64(static_cast<long long>(limbs[j]));
  return b;
}

inline CUZK_IFMA Batch load(const Repr* in) {
  alignas(64) std::uint64_t buf[kLimbs][8];
  for (int k = 0; k < 8; ++k) {
    std::uint64_t limbs[kLimbs];
    split52(in[k], limbs);
    for (int j = 0; j < kLimbs; ++j) buf[j][k] = limbs[j];
  }
  Batch b;
  for (int j = 0; j < kLimbs; ++j) b.l[j] = _mm512_load_si512(buf[j]);
  return b;
}

inline CUZK_IFMA void store(const Batch& b, Repr* out) {
  alignas(64) std::uint64_t buf[kLimbs][8];
  for (int j = 0; j < kLimbs; ++j) _mm512_store_si512(buf[j], b.l[j]);
  for (int k = 0; k < 8; ++k) {
    std::uint64_t limbs[kLimbs];
    for (int j = 0; j < kLimbs; ++j) limbs[j] = buf[j][k];
    join52(limbs, out[k]);
  }
}

// Carries of every limb into the next, so each limb is < 2^52 again (the value is < 2^(52 N)).
template <int N>
inline CUZK_IFMA void normalize(BatchN<N>& b) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kMask52));
  for (int j = 0; j + 1 < N; ++j) {
    b.l[j + 1] = _mm512_add_epi64(b.l[j + 1], _mm512_srli_epi64(b.l[j], 52));
    b.l[j] = _mm512_and_si512(b.l[j], mask);
  }
}

// a * b * R^-1 for a, b in [0, 2p) with normalized limbs; the result is in [0, 2p), normalized.
// (More generally the result is < (a b / R + p), so a < 4p is fine when 8p < R, as for Fr in 5 limbs.)
template <int N>
inline CUZK_IFMA BatchN<N> mont_mul(const BatchN<N>& a, const BatchN<N>& b, const BatchN<N>& p, __m512i pinv) {
  const __m512i zero = _mm512_set1_epi64(0);
  __m512i t[N + 1];
  for (auto& x : t) x = zero;
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < N; ++j) {
      t[j] = _mm512_madd52lo_epu64(t[j], a.l[i], b.l[j]);
      t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.l[i], b.l[j]);
    }
    // m = -t0 / p mod 2^52 (madd52lo reads only the low 52 bits of t0), then t += m * p, which
    // clears the low 52 bits of t0; its high bits carry into the next limb as the limbs shift down.
    const __m512i m = _mm512_madd52lo_epu64(zero, t[0], pinv);
    for (int j = 0; j < N; ++j) {
      t[j] = _mm512_madd52lo_epu64(t[j], m, p.l[j]);
      t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, p.l[j]);
    }
    const __m512i carry = _mm512_srli_epi64(t[0], 52);
    for (int j = 0; j < N; ++j) t[j] = t[j + 1];
    t[0] = _mm512_add_epi64(t[0], carry);
    t[N] = zero;
  }
  BatchN<N> r;
  for (int j = 0; j < N; ++j) r.l[j] = t[j];
  normalize(r);
  return r;
}

// [0, 2p) -> [0, p): subtract p where that does not borrow (any modulus: [0, 2m) -> [0, m)).
template <int N>
inline CUZK_IFMA BatchN<N> reduce_once(const BatchN<N>& a, const BatchN<N>& p) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kMask52));
  __m512i borrow = _mm512_set1_epi64(0);
  BatchN<N> d;
  for (int j = 0; j < N; ++j) {
    const __m512i x = _mm512_sub_epi64(_mm512_sub_epi64(a.l[j], p.l[j]), borrow);
    borrow = _mm512_srli_epi64(x, 63);
    d.l[j] = _mm512_and_si512(x, mask);
  }
  const __mmask8 no_borrow = _mm512_cmpeq_epi64_mask(borrow, _mm512_set1_epi64(0));
  BatchN<N> r;
  for (int j = 0; j < N; ++j) r.l[j] = _mm512_mask_blend_epi64(no_borrow, a.l[j], d.l[j]);
  return r;
}

template <int N>
inline CUZK_IFMA BatchN<N> add_reduced(const BatchN<N>& a, const BatchN<N>& b, const BatchN<N>& p) {
  BatchN<N> s;
  for (int j = 0; j < N; ++j) s.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
  normalize(s);
  return reduce_once(s, p);
}

// a + 2p - b for a, b in [0, 2p): a value in (0, 4p). Limbs may go negative before the signed
// carries are propagated.
template <int N>
inline CUZK_IFMA BatchN<N> sub_lazy(const BatchN<N>& a, const BatchN<N>& b, const BatchN<N>& two_p) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kMask52));
  BatchN<N> s;
  for (int j = 0; j < N; ++j) s.l[j] = _mm512_sub_epi64(_mm512_add_epi64(a.l[j], two_p.l[j]), b.l[j]);
  for (int j = 0; j + 1 < N; ++j) {
    s.l[j + 1] = _mm512_add_epi64(s.l[j + 1], _mm512_srai_epi64(s.l[j], 52));
    s.l[j] = _mm512_and_si512(s.l[j], mask);
  }
  return s;
}

template <int N>
inline CUZK_IFMA BatchN<N> add_lazy(const BatchN<N>& a, const BatchN<N>& b) {
  BatchN<N> s;
  for (int j = 0; j < N; ++j) s.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
  normalize(s);
  return s;
}

template <int N>
inline CUZK_IFMA __mmask8 equal(const BatchN<N>& a, const BatchN<N>& b) {
  __mmask8 k = 0xff;
  for (int j = 0; j < N; ++j) k &= _mm512_cmpeq_epi64_mask(a.l[j], b.l[j]);
  return k;
}

}  // namespace cuzk::math::ifma::core
