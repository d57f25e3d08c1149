// Short Weierstrass curves y^2 = x^3 + b (a = 0) over a field F, in three coordinate systems:
//   Affine   (x, y, infinity flag)         storage and I/O
//   Jacobian (X, Y, Z): x = X/Z^2, y = Y/Z^3 general arithmetic, scalar multiplication
//   Xyzz     (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ   MSM buckets (cheapest mixed addition)
// Formulas are the standard ones from the Explicit-Formulas Database (dbl-2009-l, add-2007-bl,
// madd-2007-bl, and the xyzz add/madd/dbl-2008-s family), each with its exceptional cases handled.
#pragma once

#include <cstddef>

#include "math/ff/bls12_381.hpp"

namespace cuzk::math {

template <class C>
struct Affine {
  using F = typename C::Field;
  F x{}, y{};
  bool infinity = true;

  static Affine identity() { return Affine{}; }
  static Affine from_xy(const F& x, const F& y) { return Affine{x, y, false}; }
  bool is_identity() const { return infinity; }
  bool is_on_curve() const { return infinity || y.square() == x.square() * x + C::b(); }
  Affine operator-() const { return infinity ? *this : Affine{x, -y, false}; }
  friend bool operator==(const Affine& a, const Affine& b) {
    if (a.infinity || b.infinity) return a.infinity == b.infinity;
    return a.x == b.x && a.y == b.y;
  }
  friend bool operator!=(const Affine& a, const Affine& b) { return !(a == b); }
};

template <class C>
struct Jacobian {
  using F = typename C::Field;
  F x = F::one(), y = F::one(), z = F::zero();  // default: identity

  static Jacobian identity() { return Jacobian{}; }
  static Jacobian from_affine(const Affine<C>& p) { return p.infinity ? identity() : Jacobian{p.x, p.y, F::one()}; }
  bool is_identity() const { return z.is_zero(); }

  Affine<C> to_affine() const {
    if (is_identity()) return Affine<C>::identity();
    F zi = z.inverse(), zi2 = zi.square();
    return Affine<C>::from_xy(x * zi2, y * zi2 * zi);
  }

  Jacobian dbl() const {  // dbl-2009-l
    if (is_identity()) return *this;
    F a = x.square(), b = y.square(), c = b.square();
    F d = ((x + b).square() - a - c).dbl();
    F e = a.dbl() + a, f = e.square();
    Jacobian r;
    r.x = f - d.dbl();
    r.y = e * (d - r.x) - c.dbl().dbl().dbl();
    r.z = (y * z).dbl();
    return r;
  }

  friend Jacobian operator+(const Jacobian& p, const Jacobian& q) {  // add-2007-bl
    if (p.is_identity()) return q;
    if (q.is_identity()) return p;
    F z1z1 = p.z.square(), z2z2 = q.z.square();
    F u1 = p.x * z2z2, u2 = q.x * z1z1;
    F s1 = p.y * q.z * z2z2, s2 = q.y * p.z * z1z1;
    F h = u2 - u1, rr = (s2 - s1).dbl();
    if (h.is_zero()) return rr.is_zero() ? p.dbl() : identity();
    F i = h.dbl().square(), j = h * i, v = u1 * i;
    Jacobian r;
    r.x = rr.square() - j - v.dbl();
    r.y = rr * (v - r.x) - (s1 * j).dbl();
    r.z = ((p.z + q.z).square() - z1z1 - z2z2) * h;
    return r;
  }

  Jacobian add_affine(const Affine<C>& q) const {  // madd-2007-bl
    if (q.infinity) return *this;
    if (is_identity()) return from_affine(q);
    F z1z1 = z.square();
    F u2 = q.x * z1z1, s2 = q.y * z * z1z1;
    F h = u2 - x, rr = (s2 - y).dbl();
    if (h.is_zero()) return rr.is_zero() ? dbl() : identity();
    F hh = h.square(), i = hh.dbl().dbl(), j = h * i, v = x * i;
    Jacobian r;
    r.x = rr.square() - j - v.dbl();
    r.y = rr * (v - r.x) - (y * j).dbl();
    r.z = (z + h).square() - z1z1 - hh;
    return r;
  }

  Jacobian operator-() const { return Jacobian{x, -y, z}; }
  friend Jacobian operator-(const Jacobian& p, const Jacobian& q) { return p + (-q); }
  Jacobian& operator+=(const Jacobian& q) { return *this = *this + q; }

  friend bool operator==(const Jacobian& p, const Jacobian& q) {
    if (p.is_identity() || q.is_identity()) return p.is_identity() == q.is_identity();
    F z1z1 = p.z.square(), z2z2 = q.z.square();
    return p.x * z2z2 == q.x * z1z1 && p.y * z2z2 * q.z == q.y * z1z1 * p.z;
  }
  friend bool operator!=(const Jacobian& p, const Jacobian& q) { return !(p == q); }

  // Scalar multiplication by a canonical little-endian integer, 4-bit fixed window.
  template <std::size_t M>
  Jacobian mul(const Limbs<M>& k) const {
    Jacobian table[16];
    table[0] = identity();
    for (int i = 1; i < 16; ++i) table[i] = table[i - 1] + *this;
    Jacobian r;
    std::size_t bits = limbs::bit_length(k);
    std::size_t windows = (bits + 3) / 4;
    for (std::size_t w = windows; w-- > 0;) {
      r = r.dbl().dbl().dbl().dbl();
      unsigned d = unsigned(k[w * 4 / 64] >> ((w * 4) % 64)) & 0xf;
      if (d) r += table[d];
    }
    return r;
  }
  Jacobian mul(const Fr& k) const { return mul(k.to_canonical()); }
};

template <class C>
struct Xyzz {
  using F = typename C::Field;
  F x = F::one(), y = F::one(), zz = F::zero(), zzz = F::zero();  // default: identity (zz = 0)

  static Xyzz identity() { return Xyzz{}; }
  bool is_identity() const { return zz.is_zero(); }
  static Xyzz from_affine(const Affine<C>& p) { return p.infinity ? identity() : Xyzz{p.x, p.y, F::one(), F::one()}; }

  Xyzz dbl() const {  // dbl-2008-s-1
    if (is_identity()) return *this;
    F u = y.dbl(), v = u.square(), w = u * v, s = x * v;
    F xx = x.square(), m = xx.dbl() + xx;
    Xyzz r;
    r.x = m.square() - s.dbl();
    r.y = m * (s - r.x) - w * y;
    r.zz = v * zz;
    r.zzz = w * zzz;
    return r;
  }

  // this + q with q affine (madd-2008-s); the workhorse of bucket accumulation.
  void add_affine(const Affine<C>& q) {
    if (q.infinity) return;
    if (is_identity()) {
      *this = from_affine(q);
      return;
    }
    F u2 = q.x * zz, s2 = q.y * zzz;
    F p = u2 - x, r = s2 - y;
    if (p.is_zero()) {
      if (r.is_zero()) *this = from_affine(q).dbl();
      else *this = identity();
      return;
    }
    F pp = p.square(), ppp = p * pp, qq = x * pp;
    F nx = r.square() - ppp - qq.dbl();
    y = r * (qq - nx) - y * ppp;
    x = nx;
    zz = zz * pp;
    zzz = zzz * ppp;
  }
  void sub_affine(const Affine<C>& q) { add_affine(-q); }

  void add(const Xyzz& q) {  // add-2008-s
    if (q.is_identity()) return;
    if (is_identity()) {
      *this = q;
      return;
    }
    F u1 = x * q.zz, u2 = q.x * zz, s1 = y * q.zzz, s2 = q.y * zzz;
    F p = u2 - u1, r = s2 - s1;
    if (p.is_zero()) {
      if (r.is_zero()) *this = dbl();
      else *this = identity();
      return;
    }
    F pp = p.square(), ppp = p * pp, qq = u1 * pp;
    x = r.square() - ppp - qq.dbl();
    y = r * (qq - x) - s1 * ppp;
    zz = zz * q.zz * pp;
    zzz = zzz * q.zzz * ppp;
  }

  Jacobian<C> to_jacobian() const {
    // Z = ZZ*ZZZ gives X' = X*ZZ*ZZZ^2 and Y' = Y*ZZ^3*ZZZ^2 (using ZZ^3 = ZZZ^2); no inversion.
    if (is_identity()) return Jacobian<C>::identity();
    Jacobian<C> j;
    j.z = zz * zzz;
    F zzz2 = zzz.square();
    j.x = x * zz * zzz2;
    j.y = y * zzz2 * zz.square() * zz;
    return j;
  }
  Affine<C> to_affine() const {
    if (is_identity()) return Affine<C>::identity();
    F zzz_inv = zzz.inverse();
    F zz_inv = (zzz_inv * zz).square();  // (ZZ/ZZZ)^2 = ZZ^2/ZZZ^2 = 1/ZZ
    return Affine<C>::from_xy(x * zz_inv, y * zzz_inv);
  }
};

}  // namespace cuzk::math
