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
constexpr long long kStride = sizeof(G1Affine) / 8;  // one G1Affine in 64-bit words
constexpr long long kYWord = 6;                      // y's first word inside a G1Affine

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

// Eight 6-word values read at base + idx[k] (in words), as 52-bit limbs.
CUZK_IFMA inline Batch gather6(const void* base, __m512i idx) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kMask52));
  __m512i w[6];
  for (int i = 0; i < 6; ++i) w[i] = _mm512_i64gather_epi64(_mm512_add_epi64(idx, _mm512_set1_epi64(i)), base, 8);
  Batch b;
  for (int j = 0; j < kLimbs; ++j) {
    const int bit = 52 * j, wi = bit / 64, s = bit % 64;
    __m512i v = _mm512_srlv_epi64(w[wi], _mm512_set1_epi64(s));
    if (s > 12 && wi + 1 < 6) v = _mm512_or_si512(v, _mm512_sllv_epi64(w[wi + 1], _mm512_set1_epi64(64 - s)));
    b.l[j] = _mm512_and_si512(v, mask);
  }
  return b;
}

// The eight values of b (normalized limbs, each < 2^384) as 6 words each: out[i][k] = word i of lane k.
CUZK_IFMA inline void to_words(const Batch& b, std::uint64_t out[6][8]) {
  for (int i = 0; i < 6; ++i) {
    __m512i acc = _mm512_setzero_si512();
    for (int j = 0; j < kLimbs; ++j) {
      const int lo = 52 * j - 64 * i;  // position of limb j's bit 0 relative to word i's bit 0
      if (lo >= 64 || lo <= -52) continue;
      const __m512i part = lo >= 0 ? _mm512_sllv_epi64(b.l[j], _mm512_set1_epi64(lo))
                                   : _mm512_srlv_epi64(b.l[j], _mm512_set1_epi64(-lo));
      acc = _mm512_or_si512(acc, part);
    }
    _mm512_store_si512(out[i], acc);
  }
}

CUZK_IFMA inline Batch blend(__mmask8 k, const Batch& a, const Batch& b) {  // lanes in k from b
  Batch r;
  for (int j = 0; j < kLimbs; ++j) r.l[j] = _mm512_mask_blend_epi64(k, a.l[j], b.l[j]);
  return r;
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
  auto mul = [&](const Batch& a, const Batch& b) { return mont_mul(a, b, p, pinv); };

  const std::size_t rows = (n + 7) / 8;
  // special[r]: the lanes of row r that take the point as is (empty bucket) or are padding.
  Batch* s = reinterpret_cast<Batch*>(scratch);
  alignas(64) long long pidx[8], bw[8];

  // Forward: denominators px - bx, the chain prefixes.
  Batch acc = one;
  for (std::size_t r = 0; r < rows; ++r) {
    unsigned spec = 0;
    for (int k = 0; k < 8; ++k) {
      std::size_t j = 8 * r + std::size_t(k);
      if (j >= n) {
        spec |= 1u << k;
        j = 8 * r;  // padding lanes repeat the row's first entry (read only)
      } else if (buckets[bidx[j]].infinity) {
        spec |= 1u << k;
      }
      pidx[k] = (long long)j * kStride;
      bw[k] = (long long)bidx[j] * kStride;
    }
    special[r] = std::uint8_t(spec);
    const __m512i pi = _mm512_load_si512(pidx), bi = _mm512_load_si512(bw);
    const __m512i yoff = _mm512_set1_epi64(kYWord);
    Batch* row = s + kRowBatches * r;
    const Batch px = gather6(pts, pi), bx = gather6(buckets, bi);
    row[0] = px;
    row[1] = mul(gather6(pts, _mm512_add_epi64(pi, yoff)), k400);  // [0, 2p)
    row[2] = bx;
    row[3] = gather6(buckets, _mm512_add_epi64(bi, yoff));
    row[4] = acc;
    acc = mul(acc, blend(__mmask8(spec), sub_lazy(px, bx, two_p), one));
  }

  // The eight chain totals (nonzero: every denominator is), inverted with one scalar inversion.
  alignas(64) std::uint64_t buf[kLimbs][8];
  {
    const Batch t = reduce_once(acc, p);
    for (int j = 0; j < kLimbs; ++j) _mm512_store_si512(buf[j], t.l[j]);
    Fp tot[8], pre[8];
    Fp run = Fp::one();
    for (int k = 0; k < 8; ++k) {
      std::uint64_t limbs[kLimbs];
      for (int j = 0; j < kLimbs; ++j) limbs[j] = buf[j][k];
      Repr rr;
      join52(limbs, rr);
      tot[k] = Fp::from_mont_raw(rr);  // A_k 2^416 read by the scalar field: A_k 2^32
      pre[k] = run;
      run *= tot[k];
    }
    // inv = (prod A_k 2^32)^-1; then (A_k 2^32)^-1 = inv * pre_k * prod_{i>k}, read as A_k^-1 2^352,
    // times 2^64 = A_k^-1 2^416, the IFMA domain's A_k^-1.
    Fp inv = run.inverse() * cc.k64;
    for (int k = 8; k-- > 0;) {
      const Fp ik = inv * pre[k];
      inv *= tot[k];
      std::uint64_t limbs[kLimbs];
      split52(ik.mont_raw(), limbs);
      for (int j = 0; j < kLimbs; ++j) buf[j][k] = limbs[j];
    }
  }
  Batch inv;
  for (int j = 0; j < kLimbs; ++j) inv.l[j] = _mm512_load_si512(buf[j]);

  // Backward: lambda = (py - by) / (px - bx), x3 = lambda^2 - bx - px, y3 = lambda (bx - x3) - by.
  alignas(64) std::uint64_t wx[6][8], wy[6][8];
  for (std::size_t r = rows; r-- > 0;) {
    const Batch* row = s + kRowBatches * r;
    const Batch &px = row[0], &py = row[1], &bx = row[2], &by = row[3];
    const __mmask8 spec = special[r];
    const Batch dinv = mul(inv, row[4]);
    inv = mul(inv, blend(spec, sub_lazy(px, bx, two_p), one));
    const Batch lambda = mul(sub_lazy(py, by, two_p), dinv);
    Batch x3 = sub_lazy(sub_lazy(mul(lambda, lambda), bx, two_p), px, two_p);  // < 6p
    x3 = reduce_once(reduce_once(reduce_once(x3, four_p), two_p), p);
    Batch y3 = sub_lazy(mul(lambda, sub_lazy(bx, x3, two_p)), by, p);  // < 3p
    y3 = reduce_once(reduce_once(y3, two_p), p);
    x3 = blend(spec, x3, px);
    y3 = blend(spec, y3, reduce_once(py, p));
    to_words(x3, wx);
    to_words(y3, wy);
    const std::size_t end = std::min<std::size_t>(8, n - 8 * r);
    for (std::size_t k = 0; k < end; ++k) {
      G1Affine& b = buckets[bidx[8 * r + k]];
      Repr rx, ry;
      for (int i = 0; i < 6; ++i) {
        rx[i] = wx[i][k];
        ry[i] = wy[i][k];
      }
      b.x = Fp::from_mont_raw(rx);
      b.y = Fp::from_mont_raw(ry);
      b.infinity = false;
    }
  }
}

}  // namespace

Fp y_from_bucket(const Fp& y_bucket) { return y_bucket * consts().k16; }
Fp y_to_bucket(const Fp& y) { return y * consts().k16inv; }

G1BatchAdder::G1BatchAdder(std::size_t max_batch)
    : max_rows_((max_batch + 7) / 8),
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
