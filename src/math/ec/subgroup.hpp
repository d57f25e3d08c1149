// Fast prime-order subgroup membership for BLS12-381 G1 and G2, via endomorphisms whose eigenvalue
// on the subgroup is a power of the curve parameter x = -0xd201000000010000 (Scott, "A note on group
// membership tests for G1, G2 and GT", eprint 2021/1130; the G1 test is also Bowe, eprint 2019/814):
//   G1: sigma(x, y) = (beta x, y), beta a primitive cube root of unity in Fp.  P in G1 iff sigma(P) = [-x^2]P
//   G2: psi = untwist o Frobenius o twist.                                      P in G2 iff psi(P) = [x]P
// These replace one 255-bit scalar multiplication by [r] with one or two 64-bit ones by |x| (Hamming
// weight 6). Like in_prime_subgroup, they assume P is on the curve; callers check that first.
#pragma once

#include "math/ec/bls12_381.hpp"

namespace cuzk::math {

// |x|, the absolute value of the BLS12-381 curve parameter x = -0xd201000000010000.
inline constexpr u64 kBlsXAbs = 0xd201000000010000ULL;

// [|x|]P by plain double-and-add: |x| has only 6 set bits, so windows would not pay off.
template <class C>
Jacobian<C> mul_by_abs_x(const Jacobian<C>& p) {
  Jacobian<C> r = p;
  for (int i = 62; i >= 0; --i) {
    r = r.dbl();
    if ((kBlsXAbs >> i) & 1) r += p;
  }
  return r;
}

// [|x|]P for an affine P, using the cheaper mixed addition.
template <class C>
Jacobian<C> mul_by_abs_x(const Affine<C>& p) {
  Jacobian<C> r = Jacobian<C>::from_affine(p);
  for (int i = 62; i >= 0; --i) {
    r = r.dbl();
    if ((kBlsXAbs >> i) & 1) r = r.add_affine(p);
  }
  return r;
}

// beta for sigma: the cube root of unity whose eigenvalue on G1 is -x^2 (the other one gives x^2 - 1).
inline const Fp& g1_sigma_beta() {
  static const Fp beta = [] {
    Limbs<6> e = FpParams::kModulus;  // (p - 1) / 3, exact because p = 1 mod 3
    e[0] -= 1;
    u64 rem = 0;
    for (std::size_t i = 6; i-- > 0;) {
      u128 cur = (u128(rem) << 64) | e[i];
      e[i] = u64(cur / 3);
      rem = u64(cur % 3);
    }
    Fp w;
    for (u64 c = 2;; ++c) {  // c^((p-1)/3) != 1 exactly when c is a non-cube
      w = Fp::from_u64(c).pow(e);
      if (!w.is_one()) break;
    }
    // The two primitive roots w, w^2 act on G1 as the two roots of l^2 + l + 1 mod r; -x^2 is one of
    // them, so exactly one candidate satisfies sigma(G) = [-x^2]G.
    const G1Affine& g = g1_generator();
    G1Jacobian target = -mul_by_abs_x(mul_by_abs_x(g));
    return G1Jacobian::from_affine(G1Affine::from_xy(w * g.x, g.y)) == target ? w : w.square();
  }();
  return beta;
}

// psi's constants: psi(x, y) = (conj(x) cx, conj(y) cy), cx = xi^-((p-1)/3), cy = xi^-((p-1)/2).
struct G2PsiCoeffs {
  Fp2 cx, cy;
};

// Derivation: untwist (x, y) -> (x / w^2, y / w^3), raise to p, twist back by w^2, w^3; the leftover
// factors are w^(2(1-p)) = xi^((1-p)/3) and w^(3(1-p)) = xi^((1-p)/2), both in Fp2 since w^6 = xi.
inline const G2PsiCoeffs& g2_psi_coeffs() {
  static const G2PsiCoeffs c = [] {
    Limbs<6> e3 = FpParams::kModulus, e2 = FpParams::kModulus;  // (p-1)/3 and (p-1)/2
    e3[0] -= 1;
    e2[0] -= 1;
    u64 rem = 0;
    for (std::size_t i = 6; i-- > 0;) {
      u128 cur = (u128(rem) << 64) | e3[i];
      e3[i] = u64(cur / 3);
      rem = u64(cur % 3);
    }
    for (std::size_t i = 0; i < 6; ++i) e2[i] = (e2[i] >> 1) | (i + 1 < 6 ? e2[i + 1] << 63 : 0);
    const Fp2 xi{Fp::one(), Fp::one()};
    return G2PsiCoeffs{xi.pow(e3).inverse(), xi.pow(e2).inverse()};
  }();
  return c;
}

// psi(P) = untwist-Frobenius-twist; on G2 it acts as multiplication by p = x (mod r).
inline G2Affine g2_psi(const G2Affine& p) {
  if (p.infinity) return p;
  const G2PsiCoeffs& c = g2_psi_coeffs();
  return G2Affine::from_xy(p.x.conjugate() * c.cx, p.y.conjugate() * c.cy);
}

// sigma(P) = (beta x, y); on G1 it acts as multiplication by -x^2 (mod r).
inline G1Affine g1_sigma(const G1Affine& p) {
  if (p.infinity) return p;
  return G1Affine::from_xy(g1_sigma_beta() * p.x, p.y);
}

// P in G1 iff sigma(P) = [-x^2]P; P must be on the curve.
inline bool g1_in_subgroup_fast(const G1Affine& p) {
  if (p.infinity) return true;
  // [x^2]P = [|x|]([|x|]P); compare with -sigma(P) to fold the sign into a free negation.
  return mul_by_abs_x(mul_by_abs_x(p)) == G1Jacobian::from_affine(-g1_sigma(p));
}

// P in G2 iff psi(P) = [x]P; P must be on the twist.
inline bool g2_in_subgroup_fast(const G2Affine& p) {
  if (p.infinity) return true;
  // x < 0, so [x]P = -[|x|]P: compare [|x|]P with -psi(P).
  return mul_by_abs_x(p) == G2Jacobian::from_affine(-g2_psi(p));
}

}  // namespace cuzk::math
