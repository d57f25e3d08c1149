// Fp2 = Fp[u] / (u^2 + 1), the field G2 lives over.
#pragma once

#include "math/ff/bls12_381.hpp"

namespace cuzk::math {

struct Fp2 {
  Fp c0, c1;

  static Fp2 zero() { return {Fp::zero(), Fp::zero()}; }
  static Fp2 one() { return {Fp::one(), Fp::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  friend bool operator==(const Fp2& a, const Fp2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  friend bool operator!=(const Fp2& a, const Fp2& b) { return !(a == b); }

  friend Fp2 operator+(const Fp2& a, const Fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend Fp2 operator-(const Fp2& a, const Fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  Fp2 operator-() const { return {-c0, -c1}; }
  Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  friend Fp2 operator*(const Fp2& a, const Fp2& b) {
    Fp v0 = a.c0 * b.c0, v1 = a.c1 * b.c1;  // Karatsuba: 3 base multiplications
    return {v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
  }
  friend Fp2 operator*(const Fp2& a, const Fp& s) { return {a.c0 * s, a.c1 * s}; }
  Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  Fp2& operator*=(const Fp2& b) { return *this = *this * b; }
  Fp2 square() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  Fp2 conjugate() const { return {c0, -c1}; }                   // also the p-power Frobenius
  Fp2 mul_by_nonresidue() const { return {c0 - c1, c0 + c1}; }  // times (1 + u), the sextic non-residue
  Fp2 inverse() const {
    Fp t = (c0.square() + c1.square()).inverse();
    return {c0 * t, -(c1 * t)};
  }
  template <std::size_t M>
  Fp2 pow(const Limbs<M>& e) const {
    Fp2 r = one();
    for (std::size_t i = limbs::bit_length(e); i-- > 0;) {
      r = r.square();
      if (limbs::bit(e, i)) r *= *this;
    }
    return r;
  }
  // Square root for p = 3 mod 4 (Adj and Rodriguez-Henriquez, eprint 2012/685, algorithm 9).
  std::optional<Fp2> sqrt() const;
  // zcash sign convention: compare c1 first, c0 only when c1 is zero.
  bool is_lexicographically_largest() const {
    return c1.is_zero() ? c0.is_lexicographically_largest() : c1.is_lexicographically_largest();
  }
};

inline std::optional<Fp2> Fp2::sqrt() const {
  if (is_zero()) return zero();
  Limbs<6> e = FpParams::kModulus;  // (p - 3) / 4
  e[0] -= 3;
  for (int k = 0; k < 2; ++k)
    for (std::size_t i = 0; i < 6; ++i) e[i] = (e[i] >> 1) | (i + 1 < 6 ? e[i + 1] << 63 : 0);
  Fp2 a1 = pow(e);
  Fp2 alpha = a1.square() * *this;
  Fp2 a0 = alpha.conjugate() * alpha;
  Fp2 minus_one = -one();
  if (a0 == minus_one) return std::nullopt;
  Fp2 x0 = a1 * *this;
  Fp2 x;
  if (alpha == minus_one) {
    x = {-x0.c1, x0.c0};  // u * x0
  } else {
    Limbs<6> h = FpParams::kModulus;  // (p - 1) / 2
    h[0] -= 1;
    for (std::size_t i = 0; i < 6; ++i) h[i] = (h[i] >> 1) | (i + 1 < 6 ? h[i + 1] << 63 : 0);
    x = (alpha + one()).pow(h) * x0;
  }
  if (x.square() != *this) return std::nullopt;
  return x;
}

}  // namespace cuzk::math
