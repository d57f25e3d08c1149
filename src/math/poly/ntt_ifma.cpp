// The four-step NTT's columns and rows eight at a time on AVX-512 IFMA; see ntt_ifma.hpp.
#include "math/poly/ntt_ifma.hpp"

#include <atomic>

// GCC 12 warns inside its own _mm512_srli_epi64 / srai when they are inlined here (see
// fp_ifma_core.hpp): the intrinsics pass an undefined merge source they never read.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "math/ff/fp_ifma_core.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "math/ff/fp_ifma.hpp"

namespace cuzk::math::ntt_ifma {
namespace {

namespace core = ifma::core;
constexpr int kLimbs = 5;  // 260 bits: 8r < 2^260, so a product's first factor may be up to 4r
using Batch = core::BatchN<kLimbs>;
using Words = Fr::Repr;
static_assert(sizeof(Fr) == 32 && sizeof(Words) == 32, "Fr is four 64-bit words");

// Four 64-bit words <-> five 52-bit limbs (one element, for the tables).
void split(const Words& w, std::uint64_t out[kLimbs]) {
  out[0] = w[0] & core::kMask52;
  out[1] = ((w[0] >> 52) | (w[1] << 12)) & core::kMask52;
  out[2] = ((w[1] >> 40) | (w[2] << 24)) & core::kMask52;
  out[3] = ((w[2] >> 28) | (w[3] << 36)) & core::kMask52;
  out[4] = w[3] >> 16;
}

struct Constants {
  std::uint64_t r[kLimbs], two_r[kLimbs];
  std::uint64_t rinv;  // -r^-1 mod 2^52
  Constants() {
    const Words& m = Fr::modulus();
    split(m, r);
    const Words twice = {m[0] << 1, (m[1] << 1) | (m[0] >> 63), (m[2] << 1) | (m[1] >> 63), (m[3] << 1) | (m[2] >> 63)};
    split(twice, two_r);
    std::uint64_t inv = 1;
    for (int i = 0; i < 6; ++i) inv *= 2 - m[0] * inv;  // Newton: doubles the correct low bits
    rinv = (0 - inv) & core::kMask52;
  }
};
const Constants& constants() {
  static const Constants c;
  return c;
}

struct Field {  // the constants in vectors, made once per call
  Batch r, two_r;
  __m512i rinv;
};

CUZK_IFMA Field field() {
  const Constants& c = constants();
  return Field{core::broadcast(c.r), core::broadcast(c.two_r), _mm512_set1_epi64(static_cast<long long>(c.rinv))};
}

// Words w0..w3 of eight elements (lane k: element k) <-> their limbs.
CUZK_IFMA Batch to_limbs(__m512i w0, __m512i w1, __m512i w2, __m512i w3) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(core::kMask52));
  Batch b;
  b.l[0] = _mm512_and_si512(w0, mask);
  b.l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w0, 52), _mm512_slli_epi64(w1, 12)), mask);
  b.l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w1, 40), _mm512_slli_epi64(w2, 24)), mask);
  b.l[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w2, 28), _mm512_slli_epi64(w3, 36)), mask);
  b.l[4] = _mm512_srli_epi64(w3, 16);
  return b;
}
// (limbs normalized, value < 2^256)
CUZK_IFMA void to_words(const Batch& b, __m512i w[4]) {
  w[0] = _mm512_or_si512(b.l[0], _mm512_slli_epi64(b.l[1], 52));
  w[1] = _mm512_or_si512(_mm512_srli_epi64(b.l[1], 12), _mm512_slli_epi64(b.l[2], 40));
  w[2] = _mm512_or_si512(_mm512_srli_epi64(b.l[2], 24), _mm512_slli_epi64(b.l[3], 28));
  w[3] = _mm512_or_si512(_mm512_srli_epi64(b.l[3], 36), _mm512_slli_epi64(b.l[4], 16));
}

// Eight elements as four vectors of two (z[i] = elements 2i, 2i + 1) <-> word vectors, by two rounds
// of two-source permutes.
CUZK_IFMA Batch from_pairs(const __m512i z[4]) {
  const __m512i lo = _mm512_setr_epi64(0, 1, 4, 5, 8, 9, 12, 13), hi = _mm512_setr_epi64(2, 3, 6, 7, 10, 11, 14, 15);
  const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
  const __m512i p01 = _mm512_permutex2var_epi64(z[0], lo, z[1]);  // e0..e3: words 0, 1
  const __m512i p23 = _mm512_permutex2var_epi64(z[0], hi, z[1]);  // e0..e3: words 2, 3
  const __m512i q01 = _mm512_permutex2var_epi64(z[2], lo, z[3]);  // e4..e7
  const __m512i q23 = _mm512_permutex2var_epi64(z[2], hi, z[3]);
  return to_limbs(_mm512_permutex2var_epi64(p01, even, q01), _mm512_permutex2var_epi64(p01, odd, q01),
                  _mm512_permutex2var_epi64(p23, even, q23), _mm512_permutex2var_epi64(p23, odd, q23));
}
CUZK_IFMA void to_pairs(const Batch& b, __m512i z[4]) {
  __m512i w[4];
  to_words(b, w);
  const __m512i ilo = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), ihi = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
  const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11),
                second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  const __m512i p01 = _mm512_permutex2var_epi64(w[0], ilo, w[1]);  // e0 w0 w1, e1 w0 w1, .., e3
  const __m512i p23 = _mm512_permutex2var_epi64(w[2], ilo, w[3]);
  const __m512i q01 = _mm512_permutex2var_epi64(w[0], ihi, w[1]);  // e4 .. e7
  const __m512i q23 = _mm512_permutex2var_epi64(w[2], ihi, w[3]);
  z[0] = _mm512_permutex2var_epi64(p01, first, p23);
  z[1] = _mm512_permutex2var_epi64(p01, second, p23);
  z[2] = _mm512_permutex2var_epi64(q01, first, q23);
  z[3] = _mm512_permutex2var_epi64(q01, second, q23);
}

// Eight elements at p, p + stride, .., p + 7 stride (stride 1: contiguous).
CUZK_IFMA Batch load8(const Fr* p, std::size_t stride) {
  __m512i z[4];
  for (int i = 0; i < 4; ++i) {
    const Fr* e = p + 2 * i * stride;
    if (stride == 1) {
      z[i] = _mm512_loadu_si512(e);
    } else {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(e));
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(e + stride));
      z[i] = _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
    }
  }
  return from_pairs(z);
}
// Stores values in [0, 2r) reduced below r (the scalar field's canonical Montgomery words).
CUZK_IFMA void store8(Fr* p, std::size_t stride, const Batch& v, const Field& f) {
  __m512i z[4];
  to_pairs(core::reduce_once(v, f.r), z);
  for (int i = 0; i < 4; ++i) {
    Fr* e = p + 2 * i * stride;
    if (stride == 1) {
      _mm512_storeu_si512(e, z[i]);
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(e), _mm512_castsi512_si256(z[i]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(e + stride), _mm512_extracti64x4_epi64(z[i], 1));
    }
  }
}

CUZK_IFMA Batch broadcast_at(const Tw& t, std::size_t i) {
  Batch b;
  for (int j = 0; j < kLimbs; ++j) b.l[j] = _mm512_set1_epi64(static_cast<long long>(t.limbs[5 * i + j]));
  return b;
}
// Eight (different) values in the IFMA form, lane k from v[k].
CUZK_IFMA Batch lanes_ifma(const Fr v[8]) {
  Fr t[8];
  const Fr sixteen = Fr::from_u64(16);
  for (int k = 0; k < 8; ++k) t[k] = v[k] * sixteen;
  return load8(t, 1);
}

CUZK_IFMA Batch mul(const Batch& a, const Batch& b, const Field& f) { return core::mont_mul(a, b, f.r, f.rinv); }

// Radix-2 DIF on m = 2^log_m vectors (eight transforms), natural order in, bit-reversed out; the
// twiddle of butterfly j at the stage of half-width h is roots[j * stride * (m/2) / h], as in
// ntt.cpp's scalar dif(). Values stay in [0, 2r).
CUZK_IFMA void dif(Batch* v, unsigned log_m, const Tw& roots, std::size_t stride, const Field& f) {
  const std::size_t m = std::size_t(1) << log_m;
  std::size_t tstride = stride;
  for (std::size_t half = m >> 1; half > 1; half >>= 1, tstride <<= 1) {
    for (std::size_t start = 0; start < m; start += 2 * half) {
      Batch* x = v + start;
      Batch* y = x + half;
      {
        const Batch u = x[0], w = y[0];
        x[0] = core::add_reduced(u, w, f.two_r);
        y[0] = core::reduce_once(core::sub_lazy(u, w, f.two_r), f.two_r);
      }
      for (std::size_t j = 1; j < half; ++j) {
        const Batch u = x[j], w = y[j];
        x[j] = core::add_reduced(u, w, f.two_r);
        y[j] = mul(core::sub_lazy(u, w, f.two_r), broadcast_at(roots, j * tstride), f);
      }
    }
  }
  for (std::size_t i = 0; i + 1 < m; i += 2) {  // last stage: twiddle 1
    const Batch u = v[i], w = v[i + 1];
    v[i] = core::add_reduced(u, w, f.two_r);
    v[i + 1] = core::reduce_once(core::sub_lazy(u, w, f.two_r), f.two_r);
  }
}

CUZK_IFMA void bit_reverse(Batch* v, unsigned log_m) {
  const std::size_t m = std::size_t(1) << log_m;
  for (std::size_t i = 1, j = 0; i < m; ++i) {  // j = bitrev(i), stepped by a reversed increment
    std::size_t bit = m >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) std::swap(v[i], v[j]);
  }
}

// The vectors of one call, reused by the thread (raw 64-byte aligned memory: a Batch needs no
// construction, and this file's only vector code is in functions compiled for AVX-512).
Batch* scratch(std::size_t m) {
  struct Buffer {
    Batch* p = nullptr;
    std::size_t cap = 0;
    ~Buffer() {
      if (p) ::operator delete[](p, std::align_val_t(64));
    }
  };
  thread_local Buffer buf;
  if (buf.cap < m) {
    if (buf.p) ::operator delete[](buf.p, std::align_val_t(64));
    buf.p = static_cast<Batch*>(::operator new[](m * sizeof(Batch), std::align_val_t(64)));
    buf.cap = m;
  }
  return buf.p;
}

CUZK_IFMA void columns8_impl(Fr* a, std::size_t n1, unsigned lr, std::size_t c0, const Tw& roots, const Fr ratio[8],
                             const Fr* start, const Tw* row_in) {
  const Field f = field();
  const std::size_t m = std::size_t(1) << lr;
  Batch* v = scratch(m);
  for (std::size_t r = 0; r < m; ++r) {
    v[r] = load8(a + r * n1 + c0, 1);
    if (row_in) v[r] = mul(v[r], broadcast_at(*row_in, r), f);
  }
  dif(v, lr, roots, 1, f);
  bit_reverse(v, lr);
  const Batch q = lanes_ifma(ratio);
  Batch w = q;
  if (start) {
    const Batch s = lanes_ifma(start);
    v[0] = mul(v[0], s, f);
    w = mul(w, s, f);
  }
  for (std::size_t r = 1; r < m; ++r) {
    v[r] = mul(v[r], w, f);
    w = mul(w, q, f);
  }
  for (std::size_t r = 0; r < m; ++r) store8(a + r * n1 + c0, 1, v[r], f);
}

CUZK_IFMA void rows8_impl(Fr* a, std::size_t n1, unsigned lc, std::size_t r0, const Tw& roots, std::size_t stride,
                          const Tw* out_cols) {
  const Field f = field();
  Batch* v = scratch(n1);
  Fr* base = a + r0 * n1;
  for (std::size_t k = 0; k < n1; ++k) v[k] = load8(base + k, n1);
  dif(v, lc, roots, stride, f);
  bit_reverse(v, lc);
  if (out_cols)
    for (std::size_t k = 1; k < n1; ++k) v[k] = mul(v[k], broadcast_at(*out_cols, k), f);
  for (std::size_t k = 0; k < n1; ++k) store8(base + k, n1, v[k], f);
}

}  // namespace

namespace {
std::atomic<bool> g_enabled{true};
}  // namespace

void set_enabled(bool on) { g_enabled.store(on); }

bool enabled() { return ifma::available() && g_enabled.load(std::memory_order_relaxed); }

Tw to_ifma(std::span<const Fr> values) {
  Tw t;
  t.limbs.resize(values.size() * kLimbs);
  const Fr sixteen = Fr::from_u64(16);  // x 2^256 -> x 2^260
  for (std::size_t i = 0; i < values.size(); ++i) split((values[i] * sixteen).mont_raw(), &t.limbs[kLimbs * i]);
  return t;
}

void columns8(Fr* a, std::size_t n1, unsigned lr, std::size_t c0, const Tw& roots, const Fr ratio[8], const Fr* start,
              const Tw* row_in) {
  columns8_impl(a, n1, lr, c0, roots, ratio, start, row_in);
}

void rows8(Fr* a, std::size_t n1, unsigned lc, std::size_t r0, const Tw& roots, std::size_t stride,
           const Tw* out_cols) {
  rows8_impl(a, n1, lc, r0, roots, stride, out_cols);
}

}  // namespace cuzk::math::ntt_ifma
