// Fp6 = Fp2[v] / (v^3 - xi), xi = 1 + u: the middle layer of the BLS12-381 tower
// Fp -> Fp2 -> Fp6 -> Fp12 (the same tower and member order as @noble/curves, zkcrypto and blst).
//
// The Frobenius constants for the whole tower live here as well. With w^6 = xi (w from Fp12, w^2 = v),
// (a * w^i)^(p^k) = conj^k(a) * w^i * gamma_k^i where gamma_k = xi^((p^k - 1)/6), so one table of
// gamma_k^i for k = 1..3 and i = 0..5 serves Fp6 (even i) and Fp12 (all i).
#pragma once

#include <array>
#include <cassert>

#include "math/ff/fp2.hpp"

namespace cuzk::math {

// Frobenius constants gamma[k][i] = xi^(i * (p^k - 1) / 6), computed once from Fp2 powers.
struct FrobeniusCoeffs {
  std::array<std::array<Fp2, 6>, 4> gamma;  // k = 0..3 (k = 0 is all ones, so frobenius_map(0) works)
};

// The process-wide table; built on first use (thread-safe static initialisation).
inline const FrobeniusCoeffs& frobenius_coeffs() {
  static const FrobeniusCoeffs table = [] {
    // (p - 1) / 6 is exact: p = 1 mod 6 (p = 1 mod 3 is what makes the sextic twist exist).
    Limbs<6> e = FpParams::kModulus;
    e[0] -= 1;
    u64 rem = 0;
    for (std::size_t i = 6; i-- > 0;) {
      u128 cur = (u128(rem) << 64) | e[i];
      e[i] = u64(cur / 6);
      rem = u64(cur % 6);
    }
    const Fp2 xi{Fp::one(), Fp::one()};
    const Fp2 g1 = xi.pow(e);
    // Higher powers without more exponentiation: (p^2-1)/6 = (p-1)/6 * (p+1) and g1^p = conj(g1),
    // so gamma_2 = g1 * conj(g1); likewise (p^3-1)/6 = (p-1)/6 * (p^2+p+1) and g1^(p^2) = g1,
    // so gamma_3 = g1^2 * conj(g1).
    const Fp2 g2 = g1 * g1.conjugate();
    const Fp2 g3 = g2 * g1;
    FrobeniusCoeffs t;
    const Fp2 base[4] = {Fp2::one(), g1, g2, g3};
    for (std::size_t k = 0; k < 4; ++k) {
      t.gamma[k][0] = Fp2::one();
      for (std::size_t i = 1; i < 6; ++i) t.gamma[k][i] = t.gamma[k][i - 1] * base[k];
    }
    return t;
  }();
  return table;
}

struct Fp6 {
  Fp2 c0, c1, c2;  // c0 + c1 v + c2 v^2

  static Fp6 zero() { return {Fp2::zero(), Fp2::zero(), Fp2::zero()}; }
  static Fp6 one() { return {Fp2::one(), Fp2::zero(), Fp2::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  friend bool operator==(const Fp6& a, const Fp6& b) { return a.c0 == b.c0 && a.c1 == b.c1 && a.c2 == b.c2; }
  friend bool operator!=(const Fp6& a, const Fp6& b) { return !(a == b); }

  friend Fp6 operator+(const Fp6& a, const Fp6& b) { return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2}; }
  friend Fp6 operator-(const Fp6& a, const Fp6& b) { return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2}; }
  Fp6 operator-() const { return {-c0, -c1, -c2}; }
  Fp6 dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }
  Fp6& operator+=(const Fp6& b) { return *this = *this + b; }
  Fp6& operator-=(const Fp6& b) { return *this = *this - b; }
  Fp6& operator*=(const Fp6& b) { return *this = *this * b; }

  // Multiplication by an Fp2 scalar (3 Fp2 multiplications).
  friend Fp6 operator*(const Fp6& a, const Fp2& s) { return {a.c0 * s, a.c1 * s, a.c2 * s}; }

  // Times v: (c0 + c1 v + c2 v^2) v = xi c2 + c0 v + c1 v^2. This is the Fp12 non-residue (w^2 = v).
  Fp6 mul_by_nonresidue() const { return {c2.mul_by_nonresidue(), c0, c1}; }

  // Karatsuba over three coefficients: 6 Fp2 multiplications instead of 9.
  friend Fp6 operator*(const Fp6& a, const Fp6& b) {
    Fp2 v0 = a.c0 * b.c0, v1 = a.c1 * b.c1, v2 = a.c2 * b.c2;
    Fp2 r0 = ((a.c1 + a.c2) * (b.c1 + b.c2) - v1 - v2).mul_by_nonresidue() + v0;
    Fp2 r1 = (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1 + v2.mul_by_nonresidue();
    Fp2 r2 = (a.c0 + a.c2) * (b.c0 + b.c2) - v0 - v2 + v1;
    return {r0, r1, r2};
  }

  // Chung-Hasan SQR2: 3 squarings and 2 multiplications in Fp2.
  Fp6 square() const {
    Fp2 s0 = c0.square(), s1 = (c0 * c1).dbl(), s2 = (c0 - c1 + c2).square();
    Fp2 s3 = (c1 * c2).dbl(), s4 = c2.square();
    return {s0 + s3.mul_by_nonresidue(), s1 + s4.mul_by_nonresidue(), s1 + s2 + s3 - s0 - s4};
  }

  // Times the sparse b0 + b1 v (the shape a line evaluation has in its Fp6 half): 5 Fp2 multiplications.
  Fp6 mul_by_01(const Fp2& b0, const Fp2& b1) const {
    Fp2 t0 = c0 * b0, t1 = c1 * b1;
    return {(c2 * b1).mul_by_nonresidue() + t0, (c0 + c1) * (b0 + b1) - t0 - t1, c2 * b0 + t1};
  }

  // Times the sparse b1 v: 3 Fp2 multiplications.
  Fp6 mul_by_1(const Fp2& b1) const { return {(c2 * b1).mul_by_nonresidue(), c0 * b1, c1 * b1}; }

  // Inverse via the norm to Fp2; the inverse of zero is zero.
  Fp6 inverse() const {
    Fp2 t0 = c0.square() - (c1 * c2).mul_by_nonresidue();
    Fp2 t1 = c2.square().mul_by_nonresidue() - c0 * c1;
    Fp2 t2 = c1.square() - c0 * c2;
    Fp2 norm = c0 * t0 + (c2 * t1 + c1 * t2).mul_by_nonresidue();
    Fp2 inv = norm.inverse();
    return {t0 * inv, t1 * inv, t2 * inv};
  }

  // The p^k-power Frobenius for k = 0..3 (v = w^2, so coefficient i picks gamma_k^(2i)).
  Fp6 frobenius_map(unsigned k) const {
    assert(k < 4);
    const auto& g = frobenius_coeffs().gamma[k];
    Fp2 a0 = c0, a1 = c1, a2 = c2;
    if (k & 1) {
      a0 = a0.conjugate();
      a1 = a1.conjugate();
      a2 = a2.conjugate();
    }
    return {a0, a1 * g[2], a2 * g[4]};
  }
};

}  // namespace cuzk::math
