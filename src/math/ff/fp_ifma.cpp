// Eight-lane point decoding and curve checks on the IFMA core (fp_ifma_core.hpp); see fp_ifma.hpp
// for why.
#include "math/ff/fp_ifma.hpp"

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
