// Eight-lane point decoding and curve checks on the IFMA core (fp_ifma_core.hpp); see fp_ifma.hpp
// for why.
#include "math/ff/fp_ifma.hpp"

#include <atomic>

// GCC 12 warns inside its own _mm512_srli_epi64 when it is inlined here (see fp_ifma_core.hpp).
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "math/ff/fp_ifma_core.hpp"

#include <cstdint>
#include <cstdlib>

namespace cuzk::math::ifma {
namespace {

using namespace core;

// y^2 == x^3 + 4 for inputs in a domain where a product of two carries one factor s and a triple
// product s^2: `lift` turns s^2 into s (a product with it multiplies by lift / R), `b` is 4 s.
CUZK_IFMA __mmask8 g1_on_curve(const Batch& bx, const Batch& by, const Batch& lift, const Batch& b, const Batch& p,
                               __m512i pinv) {
  const Batch x2 = mont_mul(bx, bx, p, pinv);
  const Batch x3 = reduce_once(mont_mul(mont_mul(x2, bx, p, pinv), lift, p, pinv), p);
  const Batch y2 = reduce_once(mont_mul(by, by, p, pinv), p);
  return equal(y2, add_reduced(x3, b, p));
}

// G2: x = x0 + x1 u, y = y0 + y1 u over Fp2 = Fp[u]/(u^2 + 1), b = 4 + 4u, in the same kind of
// domain as g1_on_curve. Products of values below 4p stay below 2p (16p < R), so sums and lazy
// differences feed the multiplier directly.
CUZK_IFMA __mmask8 g2_on_curve(const Batch& a0, const Batch& a1, const Batch& b0, const Batch& b1, const Batch& lift,
                               const Batch& b, const Batch& p, __m512i pinv) {
  const Batch two_p = add_lazy(p, p);
  auto mul = [&](const Batch& u, const Batch& v) CUZK_IFMA { return mont_mul(u, v, p, pinv); };
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

CUZK_IFMA void mul_impl(const Repr* a, const Repr* b, Repr* out) {
  const Constants& c = constants();
  const Batch p = broadcast(c.p), k832 = broadcast(c.k832);
  const __m512i pinv = _mm512_set1_epi64(static_cast<long long>(c.pinv));
  // (a b R^-1) R^2 R^-1 = a b.
  store(reduce_once(mont_mul(mont_mul(load(a), load(b), p, pinv), k832, p, pinv), p), out);
}

// ---------------------------------------------------------------------------------------------
// Whole points straight from file bytes: the byte loads, range checks, limb splitting and the
// output stores run in vector registers too (gathers and scatters, eight points per instruction).
// On the GPU host's Xeon those scalar steps, not the products, were most of the decoder's time.

#define CUZK_IFMA_BW __attribute__((target("avx512f,avx512bw,avx512ifma")))

using Words = __m512i[6];  // six 64-bit little-endian words of eight lanes

// Byte-reverses every 64-bit lane (big-endian file words -> integers).
CUZK_IFMA_BW __m512i bswap64(__m512i v) {
  alignas(64) static const std::uint8_t pattern[64] = {
      7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
      7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8};
  return _mm512_shuffle_epi8(v, _mm512_load_si512(pattern));
}

// Lanes whose six-word value is below p (flag bits in the top word make a value >= 2^381 > p).
CUZK_IFMA_BW __mmask8 below_p(const Words& w) {
  const Repr& p = Fp::modulus();
  __mmask8 lt = 0, eq = 0xff;
  for (int i = 5; i >= 0; --i) {
    const __m512i pi = _mm512_set1_epi64(static_cast<long long>(p[i]));
    lt |= eq & _mm512_cmplt_epu64_mask(w[i], pi);
    eq &= _mm512_cmpeq_epu64_mask(w[i], pi);
  }
  return lt;
}

// 64-bit words -> 52-bit limbs (shift counts of 64 and more give zero).
CUZK_IFMA_BW Batch split_words(const Words& w) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kMask52));
  Batch b;
  for (int j = 0; j < kLimbs; ++j) {
    const int bit = 52 * j, i = bit / 64, s = bit % 64;
    __m512i v = _mm512_srlv_epi64(w[i], _mm512_set1_epi64(s));
    if (i + 1 < 6) v = _mm512_or_si512(v, _mm512_sllv_epi64(w[i + 1], _mm512_set1_epi64(64 - s)));
    b.l[j] = _mm512_and_si512(v, mask);
  }
  return b;
}

// Normalized limbs of values < 2^384 -> 64-bit words.
CUZK_IFMA_BW void join_words(const Batch& b, Words& w) {
  for (int i = 0; i < 6; ++i) {
    const int bit = 64 * i, j = bit / 52, s = bit % 52;
    __m512i v = _mm512_srlv_epi64(b.l[j], _mm512_set1_epi64(s));
    v = _mm512_or_si512(v, _mm512_sllv_epi64(b.l[j + 1], _mm512_set1_epi64(52 - s)));
    if (j + 2 < kLimbs) v = _mm512_or_si512(v, _mm512_sllv_epi64(b.l[j + 2], _mm512_set1_epi64(104 - s)));
    w[i] = v;
  }
}

// Offsets k * stride of the eight lanes.
CUZK_IFMA_BW __m512i lane_offsets(std::size_t stride) {
  const long long s = static_cast<long long>(stride);
  return _mm512_set_epi64(7 * s, 6 * s, 5 * s, 4 * s, 3 * s, 2 * s, s, 0);
}

// A 48-byte big-endian coordinate at byte `off` of each lane's point; ok &= (value < p).
CUZK_IFMA_BW Batch load_be(const std::uint8_t* src, __m512i lanes, std::size_t off, __mmask8& ok) {
  Words w;
  for (int i = 0; i < 6; ++i) w[5 - i] = bswap64(_mm512_i64gather_epi64(lanes, src + off + 8 * i, 1));
  ok &= below_p(w);
  return split_words(w);
}

// A 48-byte little-endian coordinate (Montgomery form, as .zkey files store it) at byte `off` of
// each lane's point, lanes given as absolute addresses; ok &= (value < p); zero &= (value == 0).
CUZK_IFMA_BW Batch load_le(__m512i addrs, std::size_t off, __mmask8& ok, __mmask8& zero) {
  Words w;
  __m512i any = _mm512_setzero_si512();
  for (int i = 0; i < 6; ++i) {
    w[i] = _mm512_i64gather_epi64(addrs, reinterpret_cast<const void*>(off + 8 * i), 1);
    any = _mm512_or_si512(any, w[i]);
  }
  ok &= below_p(w);
  zero &= _mm512_cmpeq_epi64_mask(any, _mm512_setzero_si512());
  return split_words(w);
}

// Stores reduced limbs as the six Fp::Repr words at byte `off` of each lane's output.
CUZK_IFMA_BW void store_words(const Batch& b, std::uint8_t* out, __m512i lanes, std::size_t off) {
  Words w;
  join_words(b, w);
  for (int i = 0; i < 6; ++i) _mm512_i64scatter_epi64(out + off + 8 * i, lanes, w[i], 1);
}

// Canonical limbs -> Montgomery form (x 2^384: one product with 2^800), stored like store_words.
CUZK_IFMA_BW void store_mont(const Batch& canonical, const Constants& c, std::uint8_t* out, __m512i lanes,
                             std::size_t off) {
  const Batch p = broadcast(c.p);
  const __m512i pinv = _mm512_set1_epi64(static_cast<long long>(c.pinv));
  store_words(reduce_once(mont_mul(canonical, broadcast(c.k800), p, pinv), p), out, lanes, off);
}

CUZK_IFMA_BW unsigned g1_decode_impl(const std::uint8_t* src, std::size_t stride, std::uint8_t* out,
                                     std::size_t out_stride) {
  const Constants& c = constants();
  const __m512i in = lane_offsets(stride), to = lane_offsets(out_stride);
  __mmask8 ok = 0xff;
  const Batch bx = load_be(src, in, 0, ok), by = load_be(src, in, 48, ok);
  store_mont(bx, c, out, to, 0);
  store_mont(by, c, out, to, 48);
  // Canonical inputs, R = 2^416: products carry R^-1, triple products R^-2; R^2 lifts them.
  return ok & g1_on_curve(bx, by, broadcast(c.k832), broadcast(c.c4), broadcast(c.p),
                          _mm512_set1_epi64(static_cast<long long>(c.pinv)));
}

CUZK_IFMA_BW unsigned g2_decode_impl(const std::uint8_t* src, std::size_t stride, std::uint8_t* out,
                                     std::size_t out_stride) {
  const Constants& c = constants();
  const __m512i in = lane_offsets(stride), to = lane_offsets(out_stride);
  __mmask8 ok = 0xff;
  // File order c1 before c0 in each coordinate; memory order c0, c1.
  const Batch a1 = load_be(src, in, 0, ok), a0 = load_be(src, in, 48, ok);
  const Batch b1 = load_be(src, in, 96, ok), b0 = load_be(src, in, 144, ok);
  store_mont(a0, c, out, to, 0);
  store_mont(a1, c, out, to, 48);
  store_mont(b0, c, out, to, 96);
  store_mont(b1, c, out, to, 144);
  return ok & g2_on_curve(a0, a1, b0, b1, broadcast(c.k832), broadcast(c.c4), broadcast(c.p),
                          _mm512_set1_epi64(static_cast<long long>(c.pinv)));
}

CUZK_IFMA_BW __m512i addresses(const std::uint8_t* const* src) {
  return _mm512_loadu_si512(reinterpret_cast<const void*>(src));
}

CUZK_IFMA_BW unsigned g1_mont_decode_impl(const std::uint8_t* const* src, std::uint8_t* out, std::size_t out_stride) {
  const Constants& c = constants();
  const Batch p = broadcast(c.p);
  const __m512i pinv = _mm512_set1_epi64(static_cast<long long>(c.pinv));
  const __m512i addrs = addresses(src), to = lane_offsets(out_stride);
  __mmask8 ok = 0xff, zero = 0xff;
  const Batch bx = load_le(addrs, 0, ok, zero), by = load_le(addrs, 48, ok, zero);
  store_words(bx, out, to, 0);
  store_words(by, out, to, 48);
  return ok & ~zero & g1_on_curve(bx, by, broadcast(c.k448), broadcast(c.c4m), p, pinv);
}

CUZK_IFMA_BW unsigned g2_mont_decode_impl(const std::uint8_t* const* src, std::uint8_t* out, std::size_t out_stride) {
  const Constants& c = constants();
  const Batch p = broadcast(c.p);
  const __m512i pinv = _mm512_set1_epi64(static_cast<long long>(c.pinv));
  const __m512i addrs = addresses(src), to = lane_offsets(out_stride);
  __mmask8 ok = 0xff, zero = 0xff;
  const Batch a0 = load_le(addrs, 0, ok, zero), a1 = load_le(addrs, 48, ok, zero);
  const Batch b0 = load_le(addrs, 96, ok, zero), b1 = load_le(addrs, 144, ok, zero);
  store_words(a0, out, to, 0);
  store_words(a1, out, to, 48);
  store_words(b0, out, to, 96);
  store_words(b1, out, to, 144);
  return ok & ~zero & g2_on_curve(a0, a1, b0, b1, broadcast(c.k448), broadcast(c.c4m), p, pinv);
}

}  // namespace

namespace {
std::atomic<bool> g_enabled{true};
}  // namespace

void set_enabled(bool on) { g_enabled.store(on); }

bool available() {
  static const bool cpu = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512ifma");
  }();
  return cpu && g_enabled.load(std::memory_order_relaxed);
}

void mul_canonical8(const Repr* a, const Repr* b, Repr* out) { mul_impl(a, b, out); }

unsigned g1_decode_be8(const std::uint8_t* src, std::size_t stride, void* out, std::size_t out_stride) {
  return g1_decode_impl(src, stride, static_cast<std::uint8_t*>(out), out_stride);
}

unsigned g2_decode_be8(const std::uint8_t* src, std::size_t stride, void* out, std::size_t out_stride) {
  return g2_decode_impl(src, stride, static_cast<std::uint8_t*>(out), out_stride);
}

unsigned g1_decode_mont8(const std::uint8_t* const* src, void* out, std::size_t out_stride) {
  return g1_mont_decode_impl(src, static_cast<std::uint8_t*>(out), out_stride);
}

unsigned g2_decode_mont8(const std::uint8_t* const* src, void* out, std::size_t out_stride) {
  return g2_mont_decode_impl(src, static_cast<std::uint8_t*>(out), out_stride);
}

}  // namespace cuzk::math::ifma
