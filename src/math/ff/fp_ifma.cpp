// AVX-512 IFMA Montgomery multiplication in radix 2^52 (see fp_ifma.hpp for why).
//
// Layout: a batch of eight field elements is eight __m512i, vector j holding limb j (bits
// 52j..52j+51) of all eight lanes. With 8 limbs the Montgomery radix is R = 2^416; since 4p < R,
// inputs in [0, 2p) give outputs in [0, 2p), so chains need no reduction between products, only
// the final values are brought below p. Limb sums stay below 2^57 inside a product (at most four
// 52-bit terms per limb per round over eight rounds), so the 64-bit lanes never overflow.
#include "math/ff/fp_ifma.hpp"

// GCC 12 warns inside its own _mm512_srli_epi64 (the intrinsic passes _mm512_undefined_epi32() as
// the unused merge source); the warning is about the header, not this file.
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <cstdint>
#include <cstdlib>

namespace cuzk::math::ifma {
namespace {

#define CUZK_IFMA __attribute__((target("avx512f,avx512ifma")))

constexpr int kLimbs = 8;
constexpr std::uint64_t kMask52 = (std::uint64_t(1) << 52) - 1;
using Repr = Fp::Repr;

// Canonical 6 x 64-bit words <-> 8 x 52-bit limbs.
void split52(const Repr& in, std::uint64_t out[kLimbs]) {
  for (int j = 0; j < kLimbs; ++j) {
    const int bit = 52 * j, w = bit / 64, s = bit % 64;
    std::uint64_t v = w < 6 ? in[w] >> s : 0;
    if (s > 12 && w + 1 < 6) v |= in[w + 1] << (64 - s);
    out[j] = v & kMask52;
  }
}

void join52(const std::uint64_t in[kLimbs], Repr& out) {
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

const Constants& constants() {
  static const Constants c;
  return c;
}

struct Batch {
  __m512i l[kLimbs];
};

CUZK_IFMA Batch broadcast(const std::uint64_t limbs[kLimbs]) {
  Batch b;
  for (int j = 0; j < kLimbs; ++j) b.l[j] = _mm512_set1_epi64(static_cast<long long>(limbs[j]));
  return b;
}

CUZK_IFMA Batch load(const Repr* in) {
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

CUZK_IFMA void store(const Batch& b, Repr* out) {
  alignas(64) std::uint64_t buf[kLimbs][8];
  for (int j = 0; j < kLimbs; ++j) _mm512_store_si512(buf[j], b.l[j]);
  for (int k = 0; k < 8; ++k) {
    std::uint64_t limbs[kLimbs];
    for (int j = 0; j < kLimbs; ++j) limbs[j] = buf[j][k];
    join52(limbs, out[k]);
  }
}

// Carries of every limb into the next, so each limb is < 2^52 again (the value is < 2^416).
CUZK_IFMA void normalize(Batch& b) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kMask52));
  for (int j = 0; j + 1 < kLimbs; ++j) {
    b.l[j + 1] = _mm512_add_epi64(b.l[j + 1], _mm512_srli_epi64(b.l[j], 52));
    b.l[j] = _mm512_and_si512(b.l[j], mask);
  }
}

// a * b * R^-1 for a, b in [0, 2p) with normalized limbs; the result is in [0, 2p), normalized.
CUZK_IFMA Batch mont_mul(const Batch& a, const Batch& b, const Batch& p, __m512i pinv) {
  const __m512i zero = _mm512_set1_epi64(0);
  __m512i t[kLimbs + 1];
  for (auto& x : t) x = zero;
  for (int i = 0; i < kLimbs; ++i) {
    for (int j = 0; j < kLimbs; ++j) {
      t[j] = _mm512_madd52lo_epu64(t[j], a.l[i], b.l[j]);
      t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.l[i], b.l[j]);
    }
    // m = -t0 / p mod 2^52 (madd52lo reads only the low 52 bits of t0), then t += m * p, which
    // clears the low 52 bits of t0; its high bits carry into the next limb as the limbs shift down.
    const __m512i m = _mm512_madd52lo_epu64(zero, t[0], pinv);
    for (int j = 0; j < kLimbs; ++j) {
      t[j] = _mm512_madd52lo_epu64(t[j], m, p.l[j]);
      t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, p.l[j]);
    }
    const __m512i carry = _mm512_srli_epi64(t[0], 52);
    for (int j = 0; j < kLimbs; ++j) t[j] = t[j + 1];
    t[0] = _mm512_add_epi64(t[0], carry);
    t[kLimbs] = zero;
  }
  Batch r;
  for (int j = 0; j < kLimbs; ++j) r.l[j] = t[j];
  normalize(r);
  return r;
}

// [0, 2p) -> [0, p): subtract p where that does not borrow.
CUZK_IFMA Batch reduce_once(const Batch& a, const Batch& p) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kMask52));
  __m512i borrow = _mm512_set1_epi64(0);
  Batch d;
  for (int j = 0; j < kLimbs; ++j) {
    const __m512i x = _mm512_sub_epi64(_mm512_sub_epi64(a.l[j], p.l[j]), borrow);
    borrow = _mm512_srli_epi64(x, 63);
    d.l[j] = _mm512_and_si512(x, mask);
  }
  const __mmask8 no_borrow = _mm512_cmpeq_epi64_mask(borrow, _mm512_set1_epi64(0));
  Batch r;
  for (int j = 0; j < kLimbs; ++j) r.l[j] = _mm512_mask_blend_epi64(no_borrow, a.l[j], d.l[j]);
  return r;
}

CUZK_IFMA Batch add_reduced(const Batch& a, const Batch& b, const Batch& p) {
  Batch s;
  for (int j = 0; j < kLimbs; ++j) s.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
  normalize(s);
  return reduce_once(s, p);
}

// a + 2p - b for a, b in [0, 2p): a value in (0, 4p). Limbs may go negative before the signed
// carries are propagated.
CUZK_IFMA Batch sub_lazy(const Batch& a, const Batch& b, const Batch& two_p) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kMask52));
  Batch s;
  for (int j = 0; j < kLimbs; ++j) s.l[j] = _mm512_sub_epi64(_mm512_add_epi64(a.l[j], two_p.l[j]), b.l[j]);
  for (int j = 0; j + 1 < kLimbs; ++j) {
    s.l[j + 1] = _mm512_add_epi64(s.l[j + 1], _mm512_srai_epi64(s.l[j], 52));
    s.l[j] = _mm512_and_si512(s.l[j], mask);
  }
  return s;
}

CUZK_IFMA Batch add_lazy(const Batch& a, const Batch& b) {
  Batch s;
  for (int j = 0; j < kLimbs; ++j) s.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
  normalize(s);
  return s;
}

CUZK_IFMA __mmask8 equal(const Batch& a, const Batch& b) {
  __mmask8 k = 0xff;
  for (int j = 0; j < kLimbs; ++j) k &= _mm512_cmpeq_epi64_mask(a.l[j], b.l[j]);
  return k;
}

// y^2 == x^3 + 4 for inputs in a domain where a product of two carries one factor s and a triple
// product s^2: `lift` turns s^2 into s (a product with it multiplies by lift / R), `b` is 4 s.
CUZK_IFMA __mmask8 g1_on_curve(const Batch& bx, const Batch& by, const Batch& lift, const Batch& b, const Batch& p,
                               __m512i pinv) {
  const Batch x2 = mont_mul(bx, bx, p, pinv);
  const Batch x3 = reduce_once(mont_mul(mont_mul(x2, bx, p, pinv), lift, p, pinv), p);
  const Batch y2 = reduce_once(mont_mul(by, by, p, pinv), p);
  return equal(y2, add_reduced(x3, b, p));
}

CUZK_IFMA unsigned g1_impl(const Repr* x, const Repr* y, Repr* xm, Repr* ym) {
  const Constants& c = constants();
  const Batch p = broadcast(c.p), k800 = broadcast(c.k800);
  const __m512i pinv = _mm512_set1_epi64(static_cast<long long>(c.pinv));
  const Batch bx = load(x), by = load(y);
  store(reduce_once(mont_mul(bx, k800, p, pinv), p), xm);
  store(reduce_once(mont_mul(by, k800, p, pinv), p), ym);
  // Canonical inputs, R = 2^416: products carry R^-1, triple products R^-2; R^2 lifts them.
  return g1_on_curve(bx, by, broadcast(c.k832), broadcast(c.c4), p, pinv);
}

CUZK_IFMA unsigned g1_mont_impl(const Repr* xm, const Repr* ym) {
  const Constants& c = constants();
  const Batch p = broadcast(c.p);
  const __m512i pinv = _mm512_set1_epi64(static_cast<long long>(c.pinv));
  return g1_on_curve(load(xm), load(ym), broadcast(c.k448), broadcast(c.c4m), p, pinv);
}

// G2: x = x0 + x1 u, y = y0 + y1 u over Fp2 = Fp[u]/(u^2 + 1), b = 4 + 4u, in the same kind of
// domain as g1_on_curve. Products of values below 4p stay below 2p (16p < R), so sums and lazy
// differences feed the multiplier directly.
CUZK_IFMA __mmask8 g2_on_curve(const Batch& a0, const Batch& a1, const Batch& b0, const Batch& b1, const Batch& lift,
                               const Batch& b, const Batch& p, __m512i pinv) {
  const Batch two_p = add_lazy(p, p);
  auto mul = [&](const Batch& u, const Batch& v) { return mont_mul(u, v, p, pinv); };
  // y^2 = ((y0 + y1)(y0 - y1), 2 y0 y1).
  const Batch l0 = reduce_once(mul(add_lazy(b0, b1), sub_lazy(b0, b1, two_p)), p);
  const Batch l1 = reduce_once(mul(add_lazy(b0, b0), b1), p);
  // x^2 = (d0, d1), then x^3 = (d0 x0 - d1 x1, (d0 + d1)(x0 + x1) - d0 x0 - d1 x1).
  const Batch d0 = mul(add_lazy(a0, a1), sub_lazy(a0, a1, two_p));
  const Batch d1 = mul(add_lazy(a0, a0), a1);
  const Batch m0 = mul(d0, a0), m1 = mul(d1, a1), m2 = mul(add_lazy(d0, d1), add_lazy(a0, a1));
  const Batch e0 = sub_lazy(m0, m1, two_p);
  const Batch e1 = sub_lazy(sub_lazy(m2, m0, two_p), m1, two_p);  // < 6p: still fine for the multiplier
  // Lifted x^3 + b, each component below 3p before the two reductions.
  const Batch r0 = reduce_once(reduce_once(add_lazy(mul(e0, lift), b), p), p);
  const Batch r1 = reduce_once(reduce_once(add_lazy(mul(e1, lift), b), p), p);
  return equal(l0, r0) & equal(l1, r1);
}

CUZK_IFMA unsigned g2_impl(const Repr* x0, const Repr* x1, const Repr* y0, const Repr* y1, Repr* x0m, Repr* x1m,
                           Repr* y0m, Repr* y1m) {
  const Constants& c = constants();
  const Batch p = broadcast(c.p), k800 = broadcast(c.k800);
  const __m512i pinv = _mm512_set1_epi64(static_cast<long long>(c.pinv));
  const Batch a0 = load(x0), a1 = load(x1), b0 = load(y0), b1 = load(y1);
  store(reduce_once(mont_mul(a0, k800, p, pinv), p), x0m);
  store(reduce_once(mont_mul(a1, k800, p, pinv), p), x1m);
  store(reduce_once(mont_mul(b0, k800, p, pinv), p), y0m);
  store(reduce_once(mont_mul(b1, k800, p, pinv), p), y1m);
  return g2_on_curve(a0, a1, b0, b1, broadcast(c.k832), broadcast(c.c4), p, pinv);
}

CUZK_IFMA unsigned g2_mont_impl(const Repr* x0, const Repr* x1, const Repr* y0, const Repr* y1) {
  const Constants& c = constants();
  const Batch p = broadcast(c.p);
  const __m512i pinv = _mm512_set1_epi64(static_cast<long long>(c.pinv));
  return g2_on_curve(load(x0), load(x1), load(y0), load(y1), broadcast(c.k448), broadcast(c.c4m), p, pinv);
}

CUZK_IFMA void mul_impl(const Repr* a, const Repr* b, Repr* out) {
  const Constants& c = constants();
  const Batch p = broadcast(c.p), k832 = broadcast(c.k832);
  const __m512i pinv = _mm512_set1_epi64(static_cast<long long>(c.pinv));
  // (a b R^-1) R^2 R^-1 = a b.
  store(reduce_once(mont_mul(mont_mul(load(a), load(b), p, pinv), k832, p, pinv), p), out);
}

}  // namespace

bool available() {
  static const bool ok = [] {
    if (const char* off = std::getenv("CUZK_NO_IFMA"); off && *off && *off != '0') return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
  }();
  return ok;
}

unsigned g1_to_mont_and_check8(const Repr* x, const Repr* y, Repr* xm, Repr* ym) { return g1_impl(x, y, xm, ym); }

unsigned g2_to_mont_and_check8(const Repr* x0, const Repr* x1, const Repr* y0, const Repr* y1, Repr* x0m, Repr* x1m,
                                Repr* y0m, Repr* y1m) {
  return g2_impl(x0, x1, y0, y1, x0m, x1m, y0m, y1m);
}

unsigned g1_on_curve_mont8(const Repr* xm, const Repr* ym) { return g1_mont_impl(xm, ym); }

unsigned g2_on_curve_mont8(const Repr* x0m, const Repr* x1m, const Repr* y0m, const Repr* y1m) {
  return g2_mont_impl(x0m, x1m, y0m, y1m);
}

void mul_canonical8(const Repr* a, const Repr* b, Repr* out) { mul_impl(a, b, out); }

}  // namespace cuzk::math::ifma
