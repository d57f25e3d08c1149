// The BLS12-381 groups G1 (over Fp) and G2 (over Fp2, the M-type sextic twist), with the
// standard generators, and subgroup membership.
#pragma once

#include <type_traits>

#include "math/ec/curve.hpp"
#include "math/ff/fp2.hpp"

namespace cuzk::math {

struct G1Curve {
  using Field = Fp;
  static const Fp& b() {
    static const Fp v = Fp::from_u64(4);
    return v;
  }
};

struct G2Curve {
  using Field = Fp2;
  static const Fp2& b() {
    static const Fp2 v{Fp::from_u64(4), Fp::from_u64(4)};  // 4(1 + u)
    return v;
  }
};

using G1Affine = Affine<G1Curve>;
using G1Jacobian = Jacobian<G1Curve>;
using G1Xyzz = Xyzz<G1Curve>;
using G2Affine = Affine<G2Curve>;
using G2Jacobian = Jacobian<G2Curve>;
using G2Xyzz = Xyzz<G2Curve>;

inline const G1Affine& g1_generator() {
  static const G1Affine g = G1Affine::from_xy(
      *Fp::from_hex("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
      *Fp::from_hex(
          "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"));
  return g;
}

inline const G2Affine& g2_generator() {
  static const G2Affine g = G2Affine::from_xy(
      Fp2{*Fp::from_hex(
              "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
          *Fp::from_hex(
              "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")},
      Fp2{*Fp::from_hex(
              "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
          *Fp::from_hex(
              "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")});
  return g;
}

// Prime-order subgroup membership by definition: [r]P == O (about 255 doublings). The reference
// the fast endomorphism checks are tested against.
template <class C>
bool in_prime_subgroup_by_order(const Affine<C>& p) {
  if (p.infinity) return true;
  return Jacobian<C>::from_affine(p).mul(FrParams::kModulus).is_identity();
}

// Defined in math/ec/subgroup.hpp, which is included at the end of this header.
inline bool g1_in_subgroup_fast(const G1Affine& p);
inline bool g2_in_subgroup_fast(const G2Affine& p);

// Prime-order subgroup membership. G1 and G2 use the endomorphism tests of math/ec/subgroup.hpp
// (64-128 doublings instead of 255); callers use it on keys and proofs, and skip it (as bellperson
// does) on the bulk query vectors.
template <class C>
bool in_prime_subgroup(const Affine<C>& p) {
  if constexpr (std::is_same_v<C, G1Curve>) return g1_in_subgroup_fast(p);
  else if constexpr (std::is_same_v<C, G2Curve>) return g2_in_subgroup_fast(p);
  else return in_prime_subgroup_by_order(p);
}

}  // namespace cuzk::math

#include "math/ec/subgroup.hpp"
