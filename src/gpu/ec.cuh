// Device elliptic-curve arithmetic for BLS12-381 G1 (y^2 = x^3 + 4 over Fp).
//
//   AffineT  (x, y)              96 bytes; the point at infinity is x = y = 0 (no G1 point has y = 0,
//                                since E(Fp) has odd order).
//   XyzzT    (X, Y, ZZ, ZZZ)     x = X/ZZ, y = Y/ZZZ; infinity is ZZ = 0 (all-zero memory = infinity).
//   JacobianT (X, Y, Z)          x = X/Z^2, y = Y/Z^3; infinity is Z = 0. Used by the generators.
// Formulas: madd-2008-s, add-2008-s, dbl-2008-s-1, mdbl-2008-s-1 (XYZZ); madd-2007-bl, dbl-2009-l
// (Jacobian), each with its exceptional cases. Y3 = u*v - w*z products go through F::mul_sub (one
// reduction for both). XYZZ coordinates are bit-compatible with the host
// math::Xyzz (field by field) when copied out with xyzz_to_host layout (4 consecutive Fp).
// Everything is __host__ __device__ so tests/gpu/field_host_test.cpp checks it on the CPU.
#pragma once

#include <type_traits>

#include "gpu/field.cuh"

namespace cuzk::gpu {

// Switch to compile the point operations over F out of line (once each, with their field
// arithmetic inlined). Off for both groups: for G2 the field multiplications are out of line
// instead (field.cuh), which measured faster; kept as a tuning switch.
template <class F>
inline constexpr bool kOutlinePointOps = false;

template <class F>
struct AffineT {
  F x, y;
  CUZK_HD static AffineT infinity() { return AffineT{F::zero(), F::zero()}; }
  CUZK_HD bool is_inf() const { return y.is_zero(); }
  CUZK_HD AffineT neg() const { return AffineT{x, -y}; }
  CUZK_HD AffineT cneg(bool flag) const { return AffineT{x, y.cneg(flag)}; }
};

// Affine addition with the inverse supplied by the caller (batch inversion, msm_affine.cuh): the
// denominator whose inverse p + q needs (1 when it needs none: an operand at infinity, or q = -p),
// and the sum given inv_d = 1 / affine_sum_denominator(p, q). A doubling when q = p.
template <class F>
CUZK_HD F affine_sum_denominator(const AffineT<F>& p, const AffineT<F>& q) {
  if (p.is_inf() || q.is_inf()) return F::one();
  if (p.x == q.x) return p.y == q.y ? p.y.dbl() : F::one();
  return q.x - p.x;
}
template <class F>
CUZK_HD AffineT<F> affine_sum(const AffineT<F>& p, const AffineT<F>& q, const F& inv_d) {
  if (p.is_inf()) return q;
  if (q.is_inf()) return p;
  F lambda;
  if (p.x == q.x) {
    if (p.y != q.y) return AffineT<F>::infinity();
    const F xx = p.x.sqr();
    lambda = (xx.dbl() + xx) * inv_d;  // 3x^2 / 2y
  } else {
    lambda = (q.y - p.y) * inv_d;
  }
  AffineT<F> r;
  r.x = lambda.sqr() - p.x - q.x;
  r.y = lambda * (p.x - r.x) - p.y;
  return r;
}

template <class F>
struct XyzzT {
  F x, y, zz, zzz;

  CUZK_HD static XyzzT infinity() {
    XyzzT r;
    r.x = F::one();
    r.y = F::one();
    r.zz = F::zero();
    r.zzz = F::zero();
    return r;
  }
  CUZK_HD bool is_inf() const { return zz.is_zero(); }
  CUZK_HD static XyzzT from_affine(const AffineT<F>& p) {
    if (p.is_inf()) return infinity();
    return XyzzT{p.x, p.y, F::one(), F::one()};
  }
  CUZK_HD XyzzT neg() const { return XyzzT{x, -y, zz, zzz}; }

  CUZK_HD XyzzT dbl() const {
    if constexpr (kOutlinePointOps<F>) return dbl_outline(this);
    else return dbl_impl();
  }
  CUZK_HD void add_affine(const AffineT<F>& q) {
    if constexpr (kOutlinePointOps<F>) add_affine_outline(this, &q);
    else add_affine_impl(q);
  }
  CUZK_HD void add(const XyzzT& q) {
    if constexpr (kOutlinePointOps<F>) add_outline(this, &q);
    else add_impl(q);
  }
  CUZK_HD_NOINLINE static XyzzT dbl_outline(const XyzzT* p) { return p->dbl_impl(); }
  CUZK_HD_NOINLINE static void add_affine_outline(XyzzT* p, const AffineT<F>* q) { p->add_affine_impl(*q); }
  CUZK_HD_NOINLINE static void add_outline(XyzzT* p, const XyzzT* q) { p->add_impl(*q); }

  // dbl-2008-s-1
  CUZK_HD XyzzT dbl_impl() const {
    if (is_inf()) return *this;
    F u = y.dbl();
    F v = u.sqr();
    F w = u * v;
    F s = x * v;
    F xx = x.sqr();
    F m = xx.dbl() + xx;
    XyzzT r;
    r.x = m.sqr() - s.dbl();
    r.y = F::mul_sub(m, s - r.x, w, y);
    r.zz = v * zz;
    r.zzz = w * zzz;
    return r;
  }

  // mdbl-2008-s-1: 2*q for affine q (not infinity).
  CUZK_HD static XyzzT dbl_affine(const AffineT<F>& q) {
    F u = q.y.dbl();
    F v = u.sqr();
    F w = u * v;
    F s = q.x * v;
    F xx = q.x.sqr();
    F m = xx.dbl() + xx;
    XyzzT r;
    r.x = m.sqr() - s.dbl();
    r.y = F::mul_sub(m, s - r.x, w, q.y);
    r.zz = v;
    r.zzz = w;
    return r;
  }

  // this += q, q affine (madd-2008-s: 8M + 2S).
  CUZK_HD void add_affine_impl(const AffineT<F>& q) {
    if (q.is_inf()) return;
    if (is_inf()) {
      *this = from_affine(q);
      return;
    }
    F u2 = q.x * zz;
    F s2 = q.y * zzz;
    F p = u2 - x;
    F r = s2 - y;
    if (p.is_zero()) {
      if (r.is_zero()) {
        *this = dbl_affine(q);
      } else {
        *this = infinity();
      }
      return;
    }
    F pp = p.sqr();
    F ppp = p * pp;
    F qq = x * pp;
    F nx = r.sqr() - ppp - qq.dbl();
    y = F::mul_sub(r, qq - nx, y, ppp);
    x = nx;
    zz = zz * pp;
    zzz = zzz * ppp;
  }

  // this += q (add-2008-s: 12M + 2S).
  CUZK_HD void add_impl(const XyzzT& q) {
    if (q.is_inf()) return;
    if (is_inf()) {
      *this = q;
      return;
    }
    F u1 = x * q.zz;
    F u2 = q.x * zz;
    F s1 = y * q.zzz;
    F s2 = q.y * zzz;
    F p = u2 - u1;
    F r = s2 - s1;
    if (p.is_zero()) {
      if (r.is_zero()) {
        *this = dbl();
      } else {
        *this = infinity();
      }
      return;
    }
    F pp = p.sqr();
    F ppp = p * pp;
    F qq = u1 * pp;
    F nx = r.sqr() - ppp - qq.dbl();
    y = F::mul_sub(r, qq - nx, s1, ppp);
    x = nx;
    zz = zz * q.zz * pp;
    zzz = zzz * q.zzz * ppp;
  }

  // Affine form (one field inversion). Slow: for generators and tests.
  CUZK_HD AffineT<F> to_affine() const {
    if (is_inf()) return AffineT<F>::infinity();
    F zzz_inv = zzz.inverse();
    F zz_inv = (zzz_inv * zz).sqr();
    return AffineT<F>{x * zz_inv, y * zzz_inv};
  }
};

template <class F>
struct JacobianT {
  F x, y, z;
  CUZK_HD static JacobianT infinity() { return JacobianT{F::one(), F::one(), F::zero()}; }
  CUZK_HD bool is_inf() const { return z.is_zero(); }

  CUZK_HD JacobianT dbl() const {
    if constexpr (kOutlinePointOps<F>) return dbl_outline(this);
    else return dbl_impl();
  }
  CUZK_HD void add_affine(const AffineT<F>& q) {
    if constexpr (kOutlinePointOps<F>) add_affine_outline(this, &q);
    else add_affine_impl(q);
  }
  CUZK_HD_NOINLINE static JacobianT dbl_outline(const JacobianT* p) { return p->dbl_impl(); }
  CUZK_HD_NOINLINE static void add_affine_outline(JacobianT* p, const AffineT<F>* q) { p->add_affine_impl(*q); }

  // dbl-2009-l
  CUZK_HD JacobianT dbl_impl() const {
    if (is_inf()) return *this;
    F a = x.sqr(), b = y.sqr(), c = b.sqr();
    F d = ((x + b).sqr() - a - c).dbl();
    F e = a.dbl() + a;
    F f = e.sqr();
    JacobianT r;
    r.x = f - d.dbl();
    r.y = e * (d - r.x) - c.dbl().dbl().dbl();
    r.z = (y * z).dbl();
    return r;
  }

  // this += q, q affine (madd-2007-bl).
  CUZK_HD void add_affine_impl(const AffineT<F>& q) {
    if (q.is_inf()) return;
    if (is_inf()) {
      *this = JacobianT{q.x, q.y, F::one()};
      return;
    }
    F z1z1 = z.sqr();
    F u2 = q.x * z1z1;
    F s2 = q.y * z * z1z1;
    F h = u2 - x;
    F rr = (s2 - y).dbl();
    if (h.is_zero()) {
      if (rr.is_zero()) {
        *this = JacobianT{q.x, q.y, F::one()}.dbl();
      } else {
        *this = infinity();
      }
      return;
    }
    F hh = h.sqr();
    F i = hh.dbl().dbl();
    F j = h * i;
    F v = x * i;
    JacobianT r;
    r.x = rr.sqr() - j - v.dbl();
    r.y = F::mul_sub(rr, v - r.x, y.dbl(), j);
    r.z = (z + h).sqr() - z1z1 - hh;
    *this = r;
  }

  CUZK_HD AffineT<F> to_affine() const {
    if (is_inf()) return AffineT<F>::infinity();
    F zi = z.inverse();
    F zi2 = zi.sqr();
    return AffineT<F>{x * zi2, y * zi2 * zi};
  }
};

using G1Affine = AffineT<Fp>;
using G1Xyzz = XyzzT<Fp>;
using G1Jac = JacobianT<Fp>;
static_assert(sizeof(G1Affine) == 96 && sizeof(G1Xyzz) == 192 && sizeof(G1Jac) == 144, "G1 sizes");
// G2 over Fp2 (y^2 = x^3 + 4(1 + u)); the formulas above do not use b. Infinity: x = y = 0 (G2 has
// no point with y = 0 either: its order is odd).
using G2Affine = AffineT<Fp2>;
using G2Xyzz = XyzzT<Fp2>;
using G2Jac = JacobianT<Fp2>;
static_assert(sizeof(G2Affine) == 192 && sizeof(G2Xyzz) == 384 && sizeof(G2Jac) == 288, "G2 sizes");

// The standard G1 generator in Montgomery form (bit-identical to math::g1_generator()).
CUZK_HD G1Affine g1_generator_dev() {
  constexpr u64 gx[6] = {0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL,
                         0xf0ae6acdf3d0e747ULL, 0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL};
  constexpr u64 gy[6] = {0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL,
                         0x51ac582950405194ULL, 0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL};
  G1Affine g;
  CUZK_UNROLL
  for (int i = 0; i < 12; ++i) {
    g.x.v[i] = u32(gx[i >> 1] >> (32 * (i & 1)));
    g.y.v[i] = u32(gy[i >> 1] >> (32 * (i & 1)));
  }
  return g;
}

}  // namespace cuzk::gpu
