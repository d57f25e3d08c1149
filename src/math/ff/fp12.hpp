// Fp12 = Fp6[w] / (w^2 - v): the pairing target field GT lives in here.
//
// Over Fp2 the basis is w^0..w^5 with w^6 = xi = 1 + u; as members:
//   w^0 = c0.c0, w^1 = c1.c0, w^2 = c0.c1, w^3 = c1.c1, w^4 = c0.c2, w^5 = c1.c2.
// Besides the field operations this carries the two pairing-specific tools: sparse multiplication by
// a line evaluation (Miller loop) and Granger-Scott squaring in the cyclotomic subgroup (final
// exponentiation).
#pragma once

#include "math/ff/fp6.hpp"

namespace cuzk::math {

struct Fp12 {
  Fp6 c0, c1;  // c0 + c1 w

  static Fp12 zero() { return {Fp6::zero(), Fp6::zero()}; }
  static Fp12 one() { return {Fp6::one(), Fp6::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  bool is_one() const { return *this == one(); }
  friend bool operator==(const Fp12& a, const Fp12& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  friend bool operator!=(const Fp12& a, const Fp12& b) { return !(a == b); }

  friend Fp12 operator+(const Fp12& a, const Fp12& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend Fp12 operator-(const Fp12& a, const Fp12& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  Fp12 operator-() const { return {-c0, -c1}; }
  Fp12& operator+=(const Fp12& b) { return *this = *this + b; }
  Fp12& operator-=(const Fp12& b) { return *this = *this - b; }
  Fp12& operator*=(const Fp12& b) { return *this = *this * b; }

  // Karatsuba: 3 Fp6 multiplications (18 Fp2).
  friend Fp12 operator*(const Fp12& a, const Fp12& b) {
    Fp6 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    return {t0 + t1.mul_by_nonresidue(), (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
  }

  // Complex squaring: (a + bw)^2 = (a + b)(a + vb) - t - vt + 2t w with t = ab; 2 Fp6 multiplications.
  Fp12 square() const {
    Fp6 t = c0 * c1;
    Fp6 r0 = (c0 + c1) * (c0 + c1.mul_by_nonresidue()) - t - t.mul_by_nonresidue();
    return {r0, t.dbl()};
  }

  // The p^6-power Frobenius; equals the inverse on the cyclotomic subgroup (after the easy part).
  Fp12 conjugate() const { return {c0, -c1}; }

  // (a + bw)^-1 = (a - bw) / (a^2 - v b^2); the inverse of zero is zero.
  Fp12 inverse() const {
    Fp6 t = (c0.square() - c1.square().mul_by_nonresidue()).inverse();
    return {c0 * t, -(c1 * t)};
  }

  // The p^k-power Frobenius for k = 0..3: coefficient of w^i maps to conj^k(a_i) * gamma_k^i.
  Fp12 frobenius_map(unsigned k) const {
    assert(k < 4);
    const auto& g = frobenius_coeffs().gamma[k];
    Fp6 r0 = c0.frobenius_map(k);
    Fp6 r1 = c1;
    if (k & 1) r1 = {r1.c0.conjugate(), r1.c1.conjugate(), r1.c2.conjugate()};
    return {r0, {r1.c0 * g[1], r1.c1 * g[3], r1.c2 * g[5]}};
  }

  // Times the sparse line value l0 + l1 w^2 + l4 w^3 (members c0.c0, c0.c1, c1.c1): 13 Fp2
  // multiplications instead of 18. This is the shape of an M-type-twist line scaled by w^3.
  Fp12 mul_by_014(const Fp2& l0, const Fp2& l1, const Fp2& l4) const {
    Fp6 t0 = c0.mul_by_01(l0, l1);
    Fp6 t1 = c1.mul_by_1(l4);
    Fp6 s = (c0 + c1).mul_by_01(l0, l1 + l4);
    return {t0 + t1.mul_by_nonresidue(), s - t0 - t1};
  }

  // Granger-Scott squaring (eprint 2009/565). Valid only in the cyclotomic subgroup (order
  // p^4 - p^2 + 1), which is where the easy part of the final exponentiation lands. View Fp12 as Fp4[w]/(w^3 - t), Fp4
  // = Fp2[t]/(t^2 - xi), t = w^3; for f = A0 + A1 w + A2 w^2 there:
  //   f^2 = (3 A0^2 - 2 conj(A0)) + (3 t A2^2 + 2 conj(A1)) w + (3 A1^2 - 2 conj(A2)) w^2,
  // where conj(a + bt) = a - bt. Each Fp4 square costs 3 Fp2 squarings: 9 in all against 12 Fp2
  // multiplications for a general square.
  Fp12 cyclotomic_square() const {
    // A0 = (w^0, w^3), A1 = (w^1, w^4), A2 = (w^2, w^5).
    const Fp2 &a0 = c0.c0, &b0 = c1.c1, &a1 = c1.c0, &b1 = c0.c2, &a2 = c0.c1, &b2 = c1.c2;
    Fp2 s0, t0, s1, t1, s2, t2;
    fp4_square(a0, b0, s0, t0);  // A0^2 = s0 + t0 t
    fp4_square(a1, b1, s1, t1);  // A1^2
    fp4_square(a2, b2, s2, t2);  // A2^2, and t A2^2 = xi t2 + s2 t
    Fp12 r;
    r.c0.c0 = three_s_minus_two_a(s0, a0);  // new A0
    r.c1.c1 = three_s_plus_two_a(t0, b0);
    r.c1.c0 = three_s_plus_two_a(t2.mul_by_nonresidue(), a1);  // new A1
    r.c0.c2 = three_s_minus_two_a(s2, b1);
    r.c0.c1 = three_s_minus_two_a(s1, a2);  // new A2
    r.c1.c2 = three_s_plus_two_a(t1, b2);
    return r;
  }

  // Square-and-multiply by a canonical little-endian exponent (tests and non-hot paths).
  template <std::size_t M>
  Fp12 pow(const Limbs<M>& e) const {
    Fp12 r = one();
    for (std::size_t i = limbs::bit_length(e); i-- > 0;) {
      r = r.square();
      if (limbs::bit(e, i)) r *= *this;
    }
    return r;
  }

 private:
  // 3s -+ 2a as 2(s -+ a) + s: three additions instead of four.
  static Fp2 three_s_minus_two_a(const Fp2& s, const Fp2& a) { return (s - a).dbl() + s; }
  static Fp2 three_s_plus_two_a(const Fp2& s, const Fp2& a) { return (s + a).dbl() + s; }
  // (a + bt)^2 = (a^2 + xi b^2) + 2ab t, with 2ab = (a + b)^2 - a^2 - b^2.
  static void fp4_square(const Fp2& a, const Fp2& b, Fp2& lo, Fp2& hi) {
    Fp2 aa = a.square(), bb = b.square();
    lo = bb.mul_by_nonresidue() + aa;
    hi = (a + b).square() - aa - bb;
  }
};

}  // namespace cuzk::math
