// Eight-lane batch-affine G1 bucket additions; see affine_batch_ifma.hpp.
#include "math/msm/affine_batch_ifma.hpp"

// GCC 12 warns inside its own _mm512_srli_epi64 when it is inlined here (see fp_ifma_core.hpp).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "math/ff/fp_ifma_core.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace cuzk::math::msm_ifma {
namespace {

using namespace ifma::core;

static_assert(sizeof(Fp) == 48 && sizeof(G1Affine) % 8 == 0, "G1Affine layout");
static_assert(offsetof(G1Affine, x) == 0 && offsetof(G1Affine, y) == 48, "G1Affine layout");
static_assert(sizeof(Fp2) == 96 && offsetof(Fp2, c1) == 48, "Fp2 layout");

// 52-bit limbs of 2 * v (v < 2^415).
void double52(const std::uint64_t v[kLimbs], std::uint64_t out[kLimbs]) {
  std::uint64_t carry = 0;
  for (int j = 0; j < kLimbs; ++j) {
    const std::uint64_t t = 2 * v[j] + carry;
    out[j] = t & kMask52;
    carry = t >> 52;
  }
}

struct Consts {
  // p, 2p, 4p as integers; one = 2^416 mod p (1 in the IFMA domain); k400 = 2^400 mod p (y 2^384 ->
  // y 2^368, the bucket form of y).
  std::uint64_t p[kLimbs], two_p[kLimbs], four_p[kLimbs], one[kLimbs], k400[kLimbs], pinv;
  Fp k16, k64, k16inv, k32inv;  // 2^16, 2^64, 2^-16 and 2^-32 as field elements
  Consts() {
    const Constants& c = constants();
    for (int j = 0; j < kLimbs; ++j) p[j] = c.p[j];
    pinv = c.pinv;
    double52(p, two_p);
    double52(two_p, four_p);
    const Fp two = Fp::from_u64(2);
    split52(two.pow(std::uint64_t(416)).to_canonical(), one);
    split52(two.pow(std::uint64_t(400)).to_canonical(), k400);
    k16 = Fp::from_u64(std::uint64_t(1) << 16);
    k64 = two.pow(std::uint64_t(64));
    k16inv = k16.inverse();
    k32inv = k16inv.square();
  }
};

// 1 / x (x != 0) by Fermat with a sliding window of 5 bits: 380 squarings and ~80 products against
// the ~230 products of Fp::inverse's plain square-and-multiply; this inversion is shared by a whole
// batch, but at ~20 us it is still a tenth of a 1024-entry batch.
Fp inverse_sw(const Fp& x) {
  static const Repr e = [] {
    Repr r = Fp::modulus();
    r[0] -= 2;  // p odd, > 2
    return r;
  }();
  auto bit = [&](int i) { return (e[std::size_t(i) / 64] >> (i % 64)) & 1; };
  Fp odd[16];  // x^(2i+1)
  odd[0] = x;
  const Fp x2 = x.square();
  for (int i = 1; i < 16; ++i) odd[i] = odd[i - 1] * x2;
  Fp r = Fp::one();
  bool started = false;
  for (int i = 383; i >= 0;) {
    if (!bit(i)) {
      if (started) r = r.square();
      --i;
      continue;
    }
    int l = std::min(5, i + 1);
    while (!bit(i - l + 1)) --l;  // the window ends on a set bit
    unsigned v = 0;
    for (int k = i; k > i - l; --k) v = (v << 1) | unsigned(bit(k));
    if (started) {
      for (int k = 0; k < l; ++k) r = r.square();
      r *= odd[v >> 1];
    } else {
      r = odd[v >> 1];
      started = true;
    }
    i -= l;
  }
  return r;
}

const Consts& consts() {
  static const Consts c;
  return c;
}

// 8 x 8 transpose of 64-bit words: in[k] = row k, out[i] = column i (word i of every row). Only
// columns [0, cols) are produced.
CUZK_IFMA inline void transpose8(const __m512i in[8], __m512i out[8], int cols) {
  __m512i t[8], u[4], v[4];
  for (int k = 0; k < 4; ++k) {
    t[2 * k] = _mm512_unpacklo_epi64(in[2 * k], in[2 * k + 1]);      // words 0,2,4,6 of rows 2k, 2k+1
    t[2 * k + 1] = _mm512_unpackhi_epi64(in[2 * k], in[2 * k + 1]);  // words 1,3,5,7
  }
  const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  // u: rows 0-3, v: rows 4-7; [0] words 0|4, [1] words 2|6, [2] words 1|5, [3] words 3|7.
  u[0] = _mm512_permutex2var_epi64(t[0], lo, t[2]);
  u[1] = _mm512_permutex2var_epi64(t[0], hi, t[2]);
  u[2] = _mm512_permutex2var_epi64(t[1], lo, t[3]);
  u[3] = _mm512_permutex2var_epi64(t[1], hi, t[3]);
  v[0] = _mm512_permutex2var_epi64(t[4], lo, t[6]);
  v[1] = _mm512_permutex2var_epi64(t[4], hi, t[6]);
  v[2] = _mm512_permutex2var_epi64(t[5], lo, t[7]);
  v[3] = _mm512_permutex2var_epi64(t[5], hi, t[7]);
  const __m512i first = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11),
                second = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
  constexpr int src[8] = {0, 2, 1, 3, 0, 2, 1, 3};  // column i comes from u/v[src[i]], low half for i < 4
  for (int i = 0; i < cols; ++i) out[i] = _mm512_permutex2var_epi64(u[src[i]], i < 4 ? first : second, v[src[i]]);
}

// Words w[0..5] (word i of every lane) -> 52-bit limbs.
CUZK_IFMA inline Batch words_to_limbs(const __m512i w[6]) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kMask52));
  Batch b;
  for (int j = 0; j < kLimbs; ++j) {
    const int bit = 52 * j, wi = bit / 64, s = bit % 64;
    __m512i v = _mm512_srlv_epi64(w[wi], _mm512_set1_epi64(s));
    if (s > 12 && wi + 1 < 6) v = _mm512_or_si512(v, _mm512_sllv_epi64(w[wi + 1], _mm512_set1_epi64(64 - s)));
    b.l[j] = _mm512_and_si512(v, mask);
  }
  return b;
}

// The 6-word values at ptr[k] (k < 8) as eight lanes of 52-bit limbs.
CUZK_IFMA inline Batch load8(const std::uint64_t* const ptr[8]) {
  __m512i rows[8], w[8];
  for (int k = 0; k < 8; ++k) rows[k] = _mm512_maskz_loadu_epi64(0x3f, ptr[k]);
  transpose8(rows, w, 6);
  return words_to_limbs(w);
}

// The eight values of b (normalized limbs, each < 2^384) written as 6 words to ptr[k] for k < count.
CUZK_IFMA inline void store8(const Batch& b, std::uint64_t* const ptr[8], std::size_t count) {
  __m512i w[8];
  for (int i = 0; i < 6; ++i) {
    __m512i acc = _mm512_setzero_si512();
    for (int j = 0; j < kLimbs; ++j) {
      const int lo = 52 * j - 64 * i;  // position of limb j's bit 0 relative to word i's bit 0
      if (lo >= 64 || lo <= -52) continue;
      const __m512i part = lo >= 0 ? _mm512_sllv_epi64(b.l[j], _mm512_set1_epi64(lo))
                                   : _mm512_srlv_epi64(b.l[j], _mm512_set1_epi64(-lo));
      acc = _mm512_or_si512(acc, part);
    }
    w[i] = acc;
  }
  w[6] = w[7] = _mm512_setzero_si512();
  __m512i rows[8];
  transpose8(w, rows, 8);
  for (std::size_t k = 0; k < count; ++k) _mm512_mask_storeu_epi64(ptr[k], 0x3f, rows[k]);
}

CUZK_IFMA inline Batch blend(__mmask8 k, const Batch& a, const Batch& b) {  // lanes in k from b
  Batch r;
  for (int j = 0; j < kLimbs; ++j) r.l[j] = _mm512_mask_blend_epi64(k, a.l[j], b.l[j]);
  return r;
}

// Two independent products a0 b0 R^-1, a1 b1 R^-1 (mont_mul's contract), interleaved round by round
// so that the out-of-order core sees two dependency chains within its window.
CUZK_IFMA inline void mul2(const Batch& a0, const Batch& b0, const Batch& a1, const Batch& b1, const Batch& p,
                           __m512i pinv, Batch& r0, Batch& r1) {
  const __m512i zero = _mm512_setzero_si512();
  __m512i t[kLimbs + 1], u[kLimbs + 1];
  for (int j = 0; j <= kLimbs; ++j) t[j] = u[j] = zero;
  for (int i = 0; i < kLimbs; ++i) {
    for (int j = 0; j < kLimbs; ++j) {
      t[j] = _mm512_madd52lo_epu64(t[j], a0.l[i], b0.l[j]);
      u[j] = _mm512_madd52lo_epu64(u[j], a1.l[i], b1.l[j]);
      t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a0.l[i], b0.l[j]);
      u[j + 1] = _mm512_madd52hi_epu64(u[j + 1], a1.l[i], b1.l[j]);
    }
    const __m512i m = _mm512_madd52lo_epu64(zero, t[0], pinv);
    const __m512i n = _mm512_madd52lo_epu64(zero, u[0], pinv);
    for (int j = 0; j < kLimbs; ++j) {
      t[j] = _mm512_madd52lo_epu64(t[j], m, p.l[j]);
      u[j] = _mm512_madd52lo_epu64(u[j], n, p.l[j]);
      t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, p.l[j]);
      u[j + 1] = _mm512_madd52hi_epu64(u[j + 1], n, p.l[j]);
    }
    const __m512i ct = _mm512_srli_epi64(t[0], 52), cu = _mm512_srli_epi64(u[0], 52);
    for (int j = 0; j < kLimbs; ++j) {
      t[j] = t[j + 1];
      u[j] = u[j + 1];
    }
    t[0] = _mm512_add_epi64(t[0], ct);
    u[0] = _mm512_add_epi64(u[0], cu);
    t[kLimbs] = u[kLimbs] = zero;
  }
  for (int j = 0; j < kLimbs; ++j) {
    r0.l[j] = t[j];
    r1.l[j] = u[j];
  }
  normalize(r0);
  normalize(r1);
}

// ---- Batch additions, for G1 (coordinates in Fp, D = 1) and G2 (in Fp2, D = 2).

// One coordinate of eight points: D Batches (Fp2: c0, c1). Each component is kept where the Fp code
// keeps its value (products < 2p, differences lazy), so the bounds below are the Fp ones.
template <int D>
struct Coord {
  Batch c[D];
};

struct Mod {
  Batch p, two_p, four_p, one, zero;
  __m512i pinv;
};
CUZK_IFMA inline Mod make_mod(const Consts& cc) {
  Mod m;
  m.p = broadcast(cc.p);
  m.two_p = broadcast(cc.two_p);
  m.four_p = broadcast(cc.four_p);
  m.one = broadcast(cc.one);
  for (auto& l : m.zero.l) l = _mm512_setzero_si512();
  m.pinv = _mm512_set1_epi64(static_cast<long long>(cc.pinv));
  return m;
}

template <int D>
CUZK_IFMA inline Coord<D> csub(const Coord<D>& a, const Coord<D>& b, const Batch& k) {  // a + k - b
  Coord<D> r;
  for (int i = 0; i < D; ++i) r.c[i] = sub_lazy(a.c[i], b.c[i], k);
  return r;
}
template <int D>
CUZK_IFMA inline Coord<D> cblend(__mmask8 k, const Coord<D>& a, const Coord<D>& b) {  // lanes in k from b
  Coord<D> r;
  for (int i = 0; i < D; ++i) r.c[i] = blend(k, a.c[i], b.c[i]);
  return r;
}
template <int D, class Fn>
CUZK_IFMA inline Coord<D> cmap(const Coord<D>& a, Fn&& f) {
  Coord<D> r;
  for (int i = 0; i < D; ++i) r.c[i] = f(a.c[i]);
  return r;
}
template <int D>
CUZK_IFMA inline Coord<D> cone(const Mod& m) {  // 1 (in the IFMA domain)
  Coord<D> r;
  r.c[0] = m.one;
  for (int i = 1; i < D; ++i) r.c[i] = m.zero;
  return r;
}

// Two independent products a0 b0, a1 b1 (each component < 2p).
CUZK_IFMA inline void cmul2(const Coord<1>& a0, const Coord<1>& b0, const Coord<1>& a1, const Coord<1>& b1,
                            const Mod& m, Coord<1>& r0, Coord<1>& r1) {
  mul2(a0.c[0], b0.c[0], a1.c[0], b1.c[0], m.p, m.pinv, r0.c[0], r1.c[0]);
}
// Fp2 by Karatsuba: v0 = a.c0 b.c0, v1 = a.c1 b.c1, c0 = v0 - v1, c1 = (a.c0 + a.c1)(b.c0 + b.c1) - v0 - v1.
CUZK_IFMA inline void cmul2(const Coord<2>& a0, const Coord<2>& b0, const Coord<2>& a1, const Coord<2>& b1,
                            const Mod& m, Coord<2>& r0, Coord<2>& r1) {
  Batch v00, v01, v10, v11, s0, s1;
  mul2(a0.c[0], b0.c[0], a0.c[1], b0.c[1], m.p, m.pinv, v00, v01);
  mul2(a1.c[0], b1.c[0], a1.c[1], b1.c[1], m.p, m.pinv, v10, v11);
  mul2(add_lazy(a0.c[0], a0.c[1]), add_lazy(b0.c[0], b0.c[1]), add_lazy(a1.c[0], a1.c[1]), add_lazy(b1.c[0], b1.c[1]),
       m.p, m.pinv, s0, s1);
  auto c0 = [&](const Batch& v0, const Batch& v1) CUZK_IFMA {  // < 4p -> < 2p
    return reduce_once(sub_lazy(v0, v1, m.two_p), m.two_p);
  };
  auto c1 = [&](const Batch& s, const Batch& v0, const Batch& v1) CUZK_IFMA {  // < 6p -> < 2p
    return reduce_once(reduce_once(sub_lazy(sub_lazy(s, v0, m.two_p), v1, m.two_p), m.four_p), m.two_p);
  };
  r0.c[0] = c0(v00, v01);
  r0.c[1] = c1(s0, v00, v01);
  r1.c[0] = c0(v10, v11);
  r1.c[1] = c1(s1, v10, v11);
}
// a0 k, a1 k for an Fp constant k.
template <int D>
CUZK_IFMA inline void cscale2(const Coord<D>& a0, const Coord<D>& a1, const Batch& k, const Mod& m, Coord<D>& r0,
                              Coord<D>& r1) {
  if constexpr (D == 1) {
    mul2(a0.c[0], k, a1.c[0], k, m.p, m.pinv, r0.c[0], r1.c[0]);
  } else {
    mul2(a0.c[0], k, a0.c[1], k, m.p, m.pinv, r0.c[0], r0.c[1]);
    mul2(a1.c[0], k, a1.c[1], k, m.p, m.pinv, r1.c[0], r1.c[1]);
  }
}

// The field of a curve's coordinates, and its D.
template <class C>
constexpr int kCoordBatches = std::is_same_v<typename C::Field, Fp2> ? 2 : 1;

// The 6-word Fp components of a coordinate.
inline std::uint64_t* component_words(const Fp& f, int) { return const_cast<std::uint64_t*>(f.mont_raw().data()); }
inline std::uint64_t* component_words(const Fp2& f, int i) { return component_words(i ? f.c1 : f.c0, 0); }

// A scalar-field element from the IFMA lanes' limbs (its components' Montgomery words).
inline Fp from_limb_parts(const std::uint64_t (*limbs)[kLimbs], Fp*) {
  Repr r;
  join52(limbs[0], r);
  return Fp::from_mont_raw(r);
}
inline Fp2 from_limb_parts(const std::uint64_t (*limbs)[kLimbs], Fp2*) {
  return {from_limb_parts(limbs, static_cast<Fp*>(nullptr)), from_limb_parts(limbs + 1, static_cast<Fp*>(nullptr))};
}
inline void to_limb_parts(const Fp& f, std::uint64_t (*limbs)[kLimbs]) { split52(f.mont_raw(), limbs[0]); }
inline void to_limb_parts(const Fp2& f, std::uint64_t (*limbs)[kLimbs]) {
  to_limb_parts(f.c0, limbs);
  to_limb_parts(f.c1, limbs + 1);
}

// Scratch per row: px, py (bucket form), bx, by, and the chain prefix, D Batches each.
constexpr std::size_t kRowCoords = 5;
template <int D>
constexpr std::size_t kRowWords = kRowCoords* D* kLimbs * 8;

template <class C>
CUZK_IFMA void run_impl(Affine<C>* buckets, const std::uint32_t* bidx, const Affine<C>* pts, std::size_t n,
                        std::uint64_t* scratch, std::uint8_t* special) {
  using F = typename C::Field;
  constexpr int D = kCoordBatches<C>;
  using V = Coord<D>;
  const Consts& cc = consts();
  const Mod m = make_mod(cc);
  const Batch k400 = broadcast(cc.k400);

  // Rows of eight entries (entry j in lane j % 8 of row j / 8), taken in pairs: even rows form one
  // product chain per lane, odd rows another, so every step has two independent products (mul2).
  // special[r]: the lanes of row r that take the point as is (empty bucket) or are padding (j >= n,
  // reading entry 0).
  const std::size_t pairs = (n + 15) / 16;
  V* s = reinterpret_cast<V*>(scratch);
  auto load_row = [&](std::size_t r) CUZK_IFMA {
    unsigned spec = 0;
    const std::uint64_t *px[D][8], *py[D][8], *bx[D][8], *by[D][8];
    for (int k = 0; k < 8; ++k) {
      std::size_t j = 8 * r + std::size_t(k);
      if (j >= n) {
        spec |= 1u << k;
        j = 0;
      }
      const Affine<C>& b = buckets[bidx[j]];
      if (b.infinity) spec |= 1u << k;
      for (int i = 0; i < D; ++i) {
        px[i][k] = component_words(pts[j].x, i);
        py[i][k] = component_words(pts[j].y, i);
        bx[i][k] = component_words(b.x, i);
        by[i][k] = component_words(b.y, i);
      }
    }
    special[r] = std::uint8_t(spec);
    V* row = s + kRowCoords * r;
    for (int i = 0; i < D; ++i) {
      row[0].c[i] = load8(px[i]);
      row[1].c[i] = load8(py[i]);  // y 2^384, turned into y 2^368 by the caller
      row[2].c[i] = load8(bx[i]);
      row[3].c[i] = load8(by[i]);
    }
  };
  auto den = [&](std::size_t r) CUZK_IFMA {
    const V* row = s + kRowCoords * r;
    return cblend(__mmask8(special[r]), csub(row[0], row[2], m.two_p), cone<D>(m));
  };

  // Forward: py into the bucket form, the denominators px - bx, the chain prefixes.
  V acc0 = cone<D>(m), acc1 = cone<D>(m);
  for (std::size_t q = 0; q < pairs; ++q) {
    const std::size_t r0 = 2 * q, r1 = r0 + 1;
    load_row(r0);
    load_row(r1);
    V* row0 = s + kRowCoords * r0;
    V* row1 = s + kRowCoords * r1;
    row0[4] = acc0;
    row1[4] = acc1;
    cmul2(acc0, den(r0), acc1, den(r1), m, acc0, acc1);
    cscale2(row0[1], row1[1], k400, m, row0[1], row1[1]);  // [0, 2p)
  }

  // The sixteen chain totals (nonzero: every denominator is), inverted with one scalar inversion.
  alignas(64) std::uint64_t buf[2][D][kLimbs][8];
  {
    const V t[2] = {cmap(acc0, [&](const Batch& b) CUZK_IFMA { return reduce_once(b, m.p); }),
                    cmap(acc1, [&](const Batch& b) CUZK_IFMA { return reduce_once(b, m.p); })};
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < kLimbs; ++j) _mm512_store_si512(buf[h][i][j], t[h].c[i].l[j]);
    F tot[16], pre[16];
    F run = F::one();
    for (int k = 0; k < 16; ++k) {
      std::uint64_t limbs[D][kLimbs];
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < kLimbs; ++j) limbs[i][j] = buf[k / 8][i][j][k % 8];
      tot[k] = from_limb_parts(limbs, static_cast<F*>(nullptr));  // A_k 2^416 read by the scalar field: A_k 2^32
      pre[k] = run;
      run *= tot[k];
    }
    // inv = (prod A_k 2^32)^-1; then (A_k 2^32)^-1 = inv * pre_k * prod_{i>k}, read as A_k^-1 2^352,
    // times 2^64 = A_k^-1 2^416, the IFMA domain's A_k^-1.
    F inv;
    if constexpr (D == 1) {
      inv = inverse_sw(run) * cc.k64;
    } else {
      const Fp t = inverse_sw(run.c0.square() + run.c1.square());  // 1 / N(run); run^-1 = conj(run) / N(run)
      inv = F{run.c0 * t, -(run.c1 * t)} * cc.k64;
    }
    for (int k = 16; k-- > 0;) {
      const F ik = inv * pre[k];
      inv *= tot[k];
      std::uint64_t limbs[D][kLimbs];
      to_limb_parts(ik, limbs);
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < kLimbs; ++j) buf[k / 8][i][j][k % 8] = limbs[i][j];
    }
  }
  V inv0, inv1;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < kLimbs; ++j) {
      inv0.c[i].l[j] = _mm512_load_si512(buf[0][i][j]);
      inv1.c[i].l[j] = _mm512_load_si512(buf[1][i][j]);
    }

  // Backward: lambda = (py - by) / (px - bx), x3 = lambda^2 - bx - px, y3 = lambda (bx - x3) - by.
  auto finish = [&](std::size_t r, const V& lambda2) CUZK_IFMA {
    const V* row = s + kRowCoords * r;
    const V x3 = csub(csub(lambda2, row[2], m.two_p), row[0], m.two_p);  // < 6p
    return cmap(
        x3, [&](const Batch& b) CUZK_IFMA { return reduce_once(reduce_once(reduce_once(b, m.four_p), m.two_p), m.p); });
  };
  auto store_row = [&](std::size_t r, const V& x3, const V& lm) CUZK_IFMA {
    const V* row = s + kRowCoords * r;
    const __mmask8 spec = special[r];
    // lambda (bx - x3) + p - by < 3p
    const V y3 = cmap(csub(lm, row[3], m.p),
                      [&](const Batch& b) CUZK_IFMA { return reduce_once(reduce_once(b, m.two_p), m.p); });
    const std::size_t count = 8 * r >= n ? 0 : std::min<std::size_t>(8, n - 8 * r);
    if (count == 0) return;
    std::uint64_t *ox[D][8], *oy[D][8];
    for (std::size_t k = 0; k < 8; ++k) {
      Affine<C>& b = buckets[bidx[8 * r + (k < count ? k : 0)]];
      for (int i = 0; i < D; ++i) {
        ox[i][k] = component_words(b.x, i);
        oy[i][k] = component_words(b.y, i);
      }
      b.infinity = false;
    }
    const V px = cblend(spec, x3, row[0]);
    const V py = cblend(spec, y3, cmap(row[1], [&](const Batch& b) CUZK_IFMA { return reduce_once(b, m.p); }));
    for (int i = 0; i < D; ++i) {
      store8(px.c[i], ox[i], count);
      store8(py.c[i], oy[i], count);
    }
  };
  for (std::size_t q = pairs; q-- > 0;) {
    const std::size_t r0 = 2 * q, r1 = r0 + 1;
    const V* row0 = s + kRowCoords * r0;
    const V* row1 = s + kRowCoords * r1;
    V d0, d1, l0, l1, m0, m1;
    cmul2(inv0, row0[4], inv1, row1[4], m, d0, d1);
    cmul2(inv0, den(r0), inv1, den(r1), m, inv0, inv1);
    cmul2(csub(row0[1], row0[3], m.two_p), d0, csub(row1[1], row1[3], m.two_p), d1, m, l0, l1);
    cmul2(l0, l0, l1, l1, m, m0, m1);
    const V x0 = finish(r0, m0), x1 = finish(r1, m1);
    cmul2(l0, csub(row0[2], x0, m.two_p), l1, csub(row1[2], x1, m.two_p), m, m0, m1);
    store_row(r0, x0, m0);
    store_row(r1, x1, m1);
  }
}

// ---- Bucket reduction: sum_{j < used} (j + 1) A_j in sixteen segments (two chains x eight lanes).

// XYZZ points on the bucket curve, eight lanes, each coordinate component in [0, 2p).
template <int D>
struct Pts {
  Coord<D> x, y, zz, zzz;
};

// a -> [0, 2p) for a < 8p.
template <int D>
CUZK_IFMA inline Coord<D> to2p(const Coord<D>& a, const Mod& m) {
  return cmap(a, [&](const Batch& b) CUZK_IFMA { return reduce_once(reduce_once(b, m.four_p), m.two_p); });
}
// Lanes where a == b, for components in [0, 2p).
template <int D>
CUZK_IFMA inline __mmask8 same(const Coord<D>& a, const Coord<D>& b, const Mod& m) {
  __mmask8 k = 0xff;
  for (int i = 0; i < D; ++i) k &= equal(reduce_once(a.c[i], m.p), reduce_once(b.c[i], m.p));
  return k;
}
template <int D>
CUZK_IFMA inline Coord<D> cdbl(const Coord<D>& a) {  // 2a, lazy
  return cmap(a, [](const Batch& b) CUZK_IFMA { return add_lazy(b, b); });
}

// What add-2008-s and madd-2008-s share, for both chains: from U1, S1 (r scaled to q's ZZ, ZZZ) and
// U2, S2 (q scaled to r's) to X3, Y3, and PP, PPP by which the caller scales r's ZZ, ZZZ.
template <int D>
CUZK_IFMA inline void xyzz_add_core2(const Mod& m, const Coord<D> u1[2], const Coord<D> s1[2], const Coord<D> u2[2],
                                     const Coord<D> s2[2], Coord<D> x3[2], Coord<D> y3[2], Coord<D> pp[2],
                                     Coord<D> ppp[2]) {
  Coord<D> P[2], R[2], q[2], r2[2], t[2], w[2];
  for (int i = 0; i < 2; ++i) {
    P[i] = csub(u2[i], u1[i], m.two_p);
    R[i] = csub(s2[i], s1[i], m.two_p);
  }
  cmul2(P[0], P[0], P[1], P[1], m, pp[0], pp[1]);
  cmul2(P[0], pp[0], P[1], pp[1], m, ppp[0], ppp[1]);
  cmul2(u1[0], pp[0], u1[1], pp[1], m, q[0], q[1]);
  cmul2(R[0], R[0], R[1], R[1], m, r2[0], r2[1]);
  for (int i = 0; i < 2; ++i) {
    x3[i] = to2p(csub(csub(r2[i], ppp[i], m.two_p), cdbl(q[i]), m.four_p), m);
    t[i] = csub(q[i], x3[i], m.two_p);
  }
  cmul2(R[0], t[0], R[1], t[1], m, t[0], t[1]);
  cmul2(s1[0], ppp[0], s1[1], ppp[1], m, w[0], w[1]);
  for (int i = 0; i < 2; ++i)
    y3[i] = cmap(csub(t[i], w[i], m.two_p), [&](const Batch& b) CUZK_IFMA { return reduce_once(b, m.two_p); });
}

// r = r + q (q affine: qx, qy), madd-2008-s, for both chains; lanes in `skip` (q empty) keep r,
// lanes in `rid` (r the identity) take q. Lanes where the addition would double or cancel (r = +-q)
// are added to `bad` (their results are wrong).
template <int D>
CUZK_IFMA inline void madd2(const Mod& m, Pts<D> r[2], const Coord<D> qx[2], const Coord<D> qy[2],
                            const __mmask8 skip[2], __mmask8 rid[2], __mmask8 bad[2]) {
  Coord<D> u1[2] = {r[0].x, r[1].x}, s1[2] = {r[0].y, r[1].y}, u2[2], s2[2];
  cmul2(qx[0], r[0].zz, qx[1], r[1].zz, m, u2[0], u2[1]);
  cmul2(qy[0], r[0].zzz, qy[1], r[1].zzz, m, s2[0], s2[1]);
  for (int i = 0; i < 2; ++i) bad[i] |= __mmask8(~skip[i] & ~rid[i] & same(u2[i], u1[i], m));
  Coord<D> x3[2], y3[2], pp[2], ppp[2], zz[2], zzz[2];
  xyzz_add_core2(m, u1, s1, u2, s2, x3, y3, pp, ppp);
  cmul2(r[0].zz, pp[0], r[1].zz, pp[1], m, zz[0], zz[1]);
  cmul2(r[0].zzz, ppp[0], r[1].zzz, ppp[1], m, zzz[0], zzz[1]);
  const Coord<D> one = cone<D>(m);
  for (int i = 0; i < 2; ++i) {
    const __mmask8 take = __mmask8(rid[i] & ~skip[i]), keep = skip[i];
    r[i].x = cblend(take, cblend(keep, x3[i], r[i].x), qx[i]);
    r[i].y = cblend(take, cblend(keep, y3[i], r[i].y), qy[i]);
    r[i].zz = cblend(take, cblend(keep, zz[i], r[i].zz), one);
    r[i].zzz = cblend(take, cblend(keep, zzz[i], r[i].zzz), one);
    rid[i] &= skip[i];
  }
}

// r = r + q for XYZZ q, add-2008-s, for both chains; lanes in `qid` keep r, lanes in `rid` take q;
// lanes that would double or cancel are added to `bad`.
template <int D>
CUZK_IFMA inline void add2(const Mod& m, Pts<D> r[2], const Pts<D> q[2], const __mmask8 qid[2], __mmask8 rid[2],
                           __mmask8 bad[2]) {
  Coord<D> u1[2], u2[2], s1[2], s2[2];
  cmul2(r[0].x, q[0].zz, r[1].x, q[1].zz, m, u1[0], u1[1]);
  cmul2(q[0].x, r[0].zz, q[1].x, r[1].zz, m, u2[0], u2[1]);
  cmul2(r[0].y, q[0].zzz, r[1].y, q[1].zzz, m, s1[0], s1[1]);
  cmul2(q[0].y, r[0].zzz, q[1].y, r[1].zzz, m, s2[0], s2[1]);
  for (int i = 0; i < 2; ++i) bad[i] |= __mmask8(~qid[i] & ~rid[i] & same(u1[i], u2[i], m));
  Coord<D> x3[2], y3[2], pp[2], ppp[2], zz[2], zzz[2];
  xyzz_add_core2(m, u1, s1, u2, s2, x3, y3, pp, ppp);
  cmul2(r[0].zz, q[0].zz, r[1].zz, q[1].zz, m, zz[0], zz[1]);
  cmul2(zz[0], pp[0], zz[1], pp[1], m, zz[0], zz[1]);
  cmul2(r[0].zzz, q[0].zzz, r[1].zzz, q[1].zzz, m, zzz[0], zzz[1]);
  cmul2(zzz[0], ppp[0], zzz[1], ppp[1], m, zzz[0], zzz[1]);
  for (int i = 0; i < 2; ++i) {
    const __mmask8 take = __mmask8(rid[i] & ~qid[i]), keep = qid[i];
    r[i].x = cblend(take, cblend(keep, x3[i], r[i].x), q[i].x);
    r[i].y = cblend(take, cblend(keep, y3[i], r[i].y), q[i].y);
    r[i].zz = cblend(take, cblend(keep, zz[i], r[i].zz), q[i].zz);
    r[i].zzz = cblend(take, cblend(keep, zzz[i], r[i].zzz), q[i].zzz);
    rid[i] &= qid[i];
  }
}

// Segment s = 8 i + k (chain i, lane k) covers buckets [s L, (s + 1) L), L = ceil(used / 16), run
// from the top: run_s = sum A_j, sum_s = sum (j - s L + 1) A_j, as scalar-field XYZZ points.
// False where some lane met a doubling or cancellation; that includes a segment whose first
// non-empty bucket (from the top) is followed by an empty one (sum = run, then sum += run doubles),
// so this is for dense buckets.
template <class C>
CUZK_IFMA bool bucket_sum_impl(const Affine<C>* buckets, std::size_t used, Xyzz<C> out_run[16], Xyzz<C> out_sum[16],
                               std::size_t& seg_len) {
  using F = typename C::Field;
  constexpr int D = kCoordBatches<C>;
  const Consts& cc = consts();
  const Mod m = make_mod(cc);
  const std::size_t L = (used + 15) / 16;
  seg_len = L;
  Pts<D> run[2], sum[2];
  __mmask8 run_id[2] = {0xff, 0xff}, sum_id[2] = {0xff, 0xff}, bad[2] = {0, 0};
  const Coord<D> one = cone<D>(m);
  for (int i = 0; i < 2; ++i) run[i] = sum[i] = Pts<D>{one, one, one, one};
  static const Affine<C> kEmpty = Affine<C>::identity();
  for (std::size_t t = L; t-- > 0;) {
    Coord<D> qx[2], qy[2];
    __mmask8 skip[2];
    for (int i = 0; i < 2; ++i) {
      const std::uint64_t *px[D][8], *py[D][8];
      unsigned sk = 0;
      for (int k = 0; k < 8; ++k) {
        const std::size_t j = (std::size_t(i) * 8 + std::size_t(k)) * L + t;
        const Affine<C>& a = j < used ? buckets[j] : kEmpty;
        if (a.infinity) sk |= 1u << k;
        for (int h = 0; h < D; ++h) {
          px[h][k] = component_words(a.x, h);
          py[h][k] = component_words(a.y, h);
        }
      }
      skip[i] = __mmask8(sk);
      for (int h = 0; h < D; ++h) {
        qx[i].c[h] = load8(px[h]);
        qy[i].c[h] = load8(py[h]);
      }
    }
    madd2(m, run, qx, qy, skip, run_id, bad);
    add2(m, sum, run, run_id, sum_id, bad);
    if (bad[0] | bad[1]) return false;
  }
  // Lane values s read by the scalar field are s 2^-384 = v 2^32 for the bucket-curve value v. The
  // point of an XYZZ (X, Y, ZZ, ZZZ) on the bucket curve is (X, Y, ZZ u^2, ZZZ u^3), u = 2^-16,
  // i.e. with weights lambda = 2^16: (2^32 X, 2^48 Y, ZZ, ZZZ) = (read X, read Y 2^16, read ZZ 2^-32,
  // read ZZZ 2^-32).
  auto emit = [&](const Pts<D> pts[2], const __mmask8 id[2], Xyzz<C> out[16]) CUZK_IFMA {
    alignas(64) std::uint64_t buf[4][D][kLimbs][8];
    for (int i = 0; i < 2; ++i) {
      const Coord<D>* co[4] = {&pts[i].x, &pts[i].y, &pts[i].zz, &pts[i].zzz};
      for (int q = 0; q < 4; ++q)
        for (int h = 0; h < D; ++h) {
          const Batch v = reduce_once(co[q]->c[h], m.p);
          for (int j = 0; j < kLimbs; ++j) _mm512_store_si512(buf[q][h][j], v.l[j]);
        }
      for (int k = 0; k < 8; ++k) {
        Xyzz<C>& o = out[i * 8 + k];
        if ((id[i] >> k) & 1) {
          o = Xyzz<C>::identity();
          continue;
        }
        F f[4];
        for (int q = 0; q < 4; ++q) {
          std::uint64_t limbs[D][kLimbs];
          for (int h = 0; h < D; ++h)
            for (int j = 0; j < kLimbs; ++j) limbs[h][j] = buf[q][h][j][k];
          f[q] = from_limb_parts(limbs, static_cast<F*>(nullptr));
        }
        o.x = f[0];
        o.y = f[1] * cc.k16;
        o.zz = f[2] * cc.k32inv;
        o.zzz = f[3] * cc.k32inv;
      }
    }
  };
  emit(run, run_id, out_run);
  emit(sum, sum_id, out_sum);
  return true;
}

template <class C>
Xyzz<C> mul_small(const Xyzz<C>& p, std::uint64_t k) {
  Xyzz<C> r;
  for (int i = 63; i >= 0; --i) {
    r = r.dbl();
    if ((k >> i) & 1) r.add(p);
  }
  return r;
}

}  // namespace

Fp y_from_bucket(const Fp& y_bucket) { return y_bucket * consts().k16; }
Fp y_to_bucket(const Fp& y) { return y * consts().k16inv; }
Fp2 y_from_bucket(const Fp2& y_bucket) { return y_bucket * consts().k16; }
Fp2 y_to_bucket(const Fp2& y) { return y * consts().k16inv; }

template <class C>
bool bucket_sum(const Affine<C>* buckets, std::size_t used, Xyzz<C>& out) {
  if (used < 16) return false;
  Xyzz<C> run[16], sum[16];
  std::size_t L = 0;
  if (!bucket_sum_impl<C>(buckets, used, run, sum, L)) return false;
  // total = sum_s sum_s + L sum_s s run_s, the last by running sums over s.
  Xyzz<C> total, running, weighted;
  for (int s = 15; s >= 1; --s) {
    running.add(run[s]);
    weighted.add(running);
  }
  for (int s = 0; s < 16; ++s) total.add(sum[s]);
  total.add(mul_small(weighted, L));
  out = total;
  return true;
}

template bool bucket_sum<G1Curve>(const G1Affine*, std::size_t, G1Xyzz&);
template bool bucket_sum<G2Curve>(const G2Affine*, std::size_t, G2Xyzz&);

template <class C>
AffineBatchAdder<C>::AffineBatchAdder(std::size_t max_batch)
    : max_rows_((max_batch + 15) / 16 * 2),  // whole pairs of rows
      mem_(new std::uint64_t[max_rows_ * kRowWords<kCoordBatches<C>> + 8]),
      special_(new std::uint8_t[max_rows_]),
      scratch_(mem_.get() + ((64 - (reinterpret_cast<std::uintptr_t>(mem_.get()) & 63)) & 63) / 8) {
  (void)consts();
}

template <class C>
AffineBatchAdder<C>::~AffineBatchAdder() = default;

template <class C>
void AffineBatchAdder<C>::run(A* buckets, const std::uint32_t* bidx, const A* pts, std::size_t n) {
  if (n == 0) return;
  if (n > 8 * max_rows_) throw std::invalid_argument("AffineBatchAdder: batch larger than max_batch");
  run_impl<C>(buckets, bidx, pts, n, scratch_, special_.get());
}

template class AffineBatchAdder<G1Curve>;
template class AffineBatchAdder<G2Curve>;

}  // namespace cuzk::math::msm_ifma
