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

namespace cuzk::math::msm_ifma {
namespace {

using namespace ifma::core;

static_assert(sizeof(Fp) == 48 && sizeof(G1Affine) % 8 == 0, "G1Affine layout");
static_assert(offsetof(G1Affine, x) == 0 && offsetof(G1Affine, y) == 48, "G1Affine layout");

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
  Fp k16, k64, k16inv;  // 2^16, 2^64 and 2^-16 as field elements
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
  }
};

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
  const __m512i first = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11), second = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
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

// Scratch per row: px, py (bucket form), bx, by, and the chain prefix.
constexpr std::size_t kRowBatches = 5;
constexpr std::size_t kRowWords = kRowBatches * kLimbs * 8;

CUZK_IFMA void run_impl(G1Affine* buckets, const std::uint32_t* bidx, const G1Affine* pts, std::size_t n,
                        std::uint64_t* scratch, std::uint8_t* special) {
  const Consts& cc = consts();
  const Batch p = broadcast(cc.p), two_p = broadcast(cc.two_p), four_p = broadcast(cc.four_p);
  const Batch one = broadcast(cc.one), k400 = broadcast(cc.k400);
  const __m512i pinv = _mm512_set1_epi64(static_cast<long long>(cc.pinv));

  // Rows of eight entries (entry j in lane j % 8 of row j / 8), taken in pairs: even rows form one
  // product chain per lane, odd rows another, so every step has two independent products (mul2).
  // special[r]: the lanes of row r that take the point as is (empty bucket) or are padding (j >= n,
  // reading entry 0).
  const std::size_t pairs = (n + 15) / 16;
  Batch* s = reinterpret_cast<Batch*>(scratch);
  auto words = [](const Fp& f) { return const_cast<std::uint64_t*>(f.mont_raw().data()); };
  auto load_row = [&](std::size_t r) CUZK_IFMA {
    unsigned spec = 0;
    const std::uint64_t *px[8], *py[8], *bx[8], *by[8];
    for (int k = 0; k < 8; ++k) {
      std::size_t j = 8 * r + std::size_t(k);
      if (j >= n) {
        spec |= 1u << k;
        j = 0;
      }
      const G1Affine& b = buckets[bidx[j]];
      if (b.infinity) spec |= 1u << k;
      px[k] = words(pts[j].x);
      py[k] = words(pts[j].y);
      bx[k] = words(b.x);
      by[k] = words(b.y);
    }
    special[r] = std::uint8_t(spec);
    Batch* row = s + kRowBatches * r;
    row[0] = load8(px);
    row[1] = load8(py);  // y 2^384, turned into y 2^368 by the caller
    row[2] = load8(bx);
    row[3] = load8(by);
  };
  auto den = [&](std::size_t r) CUZK_IFMA {
    const Batch* row = s + kRowBatches * r;
    return blend(__mmask8(special[r]), sub_lazy(row[0], row[2], two_p), one);
  };

  // Forward: py into the bucket form, the denominators px - bx, the chain prefixes.
  Batch acc0 = one, acc1 = one;
  for (std::size_t q = 0; q < pairs; ++q) {
    const std::size_t r0 = 2 * q, r1 = r0 + 1;
    load_row(r0);
    load_row(r1);
    Batch* row0 = s + kRowBatches * r0;
    Batch* row1 = s + kRowBatches * r1;
    row0[4] = acc0;
    row1[4] = acc1;
    mul2(acc0, den(r0), acc1, den(r1), p, pinv, acc0, acc1);
    mul2(row0[1], k400, row1[1], k400, p, pinv, row0[1], row1[1]);  // [0, 2p)
  }

  // The sixteen chain totals (nonzero: every denominator is), inverted with one scalar inversion.
  alignas(64) std::uint64_t buf[2][kLimbs][8];
  {
    const Batch t0 = reduce_once(acc0, p), t1 = reduce_once(acc1, p);
    for (int j = 0; j < kLimbs; ++j) {
      _mm512_store_si512(buf[0][j], t0.l[j]);
      _mm512_store_si512(buf[1][j], t1.l[j]);
    }
    Fp tot[16], pre[16];
    Fp run = Fp::one();
    for (int k = 0; k < 16; ++k) {
      std::uint64_t limbs[kLimbs];
      for (int j = 0; j < kLimbs; ++j) limbs[j] = buf[k / 8][j][k % 8];
      Repr rr;
      join52(limbs, rr);
      tot[k] = Fp::from_mont_raw(rr);  // A_k 2^416 read by the scalar field: A_k 2^32
      pre[k] = run;
      run *= tot[k];
    }
    // inv = (prod A_k 2^32)^-1; then (A_k 2^32)^-1 = inv * pre_k * prod_{i>k}, read as A_k^-1 2^352,
    // times 2^64 = A_k^-1 2^416, the IFMA domain's A_k^-1.
    Fp inv = run.inverse() * cc.k64;
    for (int k = 16; k-- > 0;) {
      const Fp ik = inv * pre[k];
      inv *= tot[k];
      std::uint64_t limbs[kLimbs];
      split52(ik.mont_raw(), limbs);
      for (int j = 0; j < kLimbs; ++j) buf[k / 8][j][k % 8] = limbs[j];
    }
  }
  Batch inv0, inv1;
  for (int j = 0; j < kLimbs; ++j) {
    inv0.l[j] = _mm512_load_si512(buf[0][j]);
    inv1.l[j] = _mm512_load_si512(buf[1][j]);
  }

  // Backward: lambda = (py - by) / (px - bx), x3 = lambda^2 - bx - px, y3 = lambda (bx - x3) - by.
  auto finish = [&](std::size_t r, const Batch& lambda2) CUZK_IFMA {
    const Batch* row = s + kRowBatches * r;
    Batch x3 = sub_lazy(sub_lazy(lambda2, row[2], two_p), row[0], two_p);  // < 6p
    return reduce_once(reduce_once(reduce_once(x3, four_p), two_p), p);
  };
  auto store_row = [&](std::size_t r, const Batch& x3, const Batch& m) CUZK_IFMA {
    const Batch* row = s + kRowBatches * r;
    const __mmask8 spec = special[r];
    Batch y3 = sub_lazy(m, row[3], p);  // lambda (bx - x3) + p - by < 3p
    y3 = reduce_once(reduce_once(y3, two_p), p);
    const std::size_t count = 8 * r >= n ? 0 : std::min<std::size_t>(8, n - 8 * r);
    if (count == 0) return;
    std::uint64_t *ox[8], *oy[8];
    for (std::size_t k = 0; k < 8; ++k) {
      G1Affine& b = buckets[bidx[8 * r + (k < count ? k : 0)]];
      ox[k] = words(b.x);
      oy[k] = words(b.y);
      b.infinity = false;
    }
    store8(blend(spec, x3, row[0]), ox, count);
    store8(blend(spec, y3, reduce_once(row[1], p)), oy, count);
  };
  for (std::size_t q = pairs; q-- > 0;) {
    const std::size_t r0 = 2 * q, r1 = r0 + 1;
    const Batch* row0 = s + kRowBatches * r0;
    const Batch* row1 = s + kRowBatches * r1;
    Batch d0, d1, l0, l1, m0, m1;
    mul2(inv0, row0[4], inv1, row1[4], p, pinv, d0, d1);
    mul2(inv0, den(r0), inv1, den(r1), p, pinv, inv0, inv1);
    mul2(sub_lazy(row0[1], row0[3], two_p), d0, sub_lazy(row1[1], row1[3], two_p), d1, p, pinv, l0, l1);
    mul2(l0, l0, l1, l1, p, pinv, m0, m1);
    const Batch x0 = finish(r0, m0), x1 = finish(r1, m1);
    mul2(l0, sub_lazy(row0[2], x0, two_p), l1, sub_lazy(row1[2], x1, two_p), p, pinv, m0, m1);
    store_row(r0, x0, m0);
    store_row(r1, x1, m1);
  }
}

}  // namespace

Fp y_from_bucket(const Fp& y_bucket) { return y_bucket * consts().k16; }
Fp y_to_bucket(const Fp& y) { return y * consts().k16inv; }

G1BatchAdder::G1BatchAdder(std::size_t max_batch)
    : max_rows_((max_batch + 15) / 16 * 2),  // whole pairs of rows
      mem_(new std::uint64_t[max_rows_ * kRowWords + 8]),
      special_(new std::uint8_t[max_rows_]),
      scratch_(mem_.get() + ((64 - (reinterpret_cast<std::uintptr_t>(mem_.get()) & 63)) & 63) / 8) {
  (void)consts();
}

G1BatchAdder::~G1BatchAdder() = default;

void G1BatchAdder::run(G1Affine* buckets, const std::uint32_t* bidx, const G1Affine* pts, std::size_t n) {
  if (n == 0) return;
  if (n > 8 * max_rows_) throw std::invalid_argument("G1BatchAdder: batch larger than max_batch");
  run_impl(buckets, bidx, pts, n, scratch_, special_.get());
}

}  // namespace cuzk::math::msm_ifma
