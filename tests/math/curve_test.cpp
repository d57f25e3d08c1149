#include <gtest/gtest.h>

#include "../common/test_random.hpp"
#include "math/ec/bls12_381.hpp"

using namespace cuzk::math;
using cuzk::test::Rng;

namespace {

template <class C>
void check_group_laws(const Affine<C>& g, Rng& rng) {
  using J = Jacobian<C>;
  using X = Xyzz<C>;
  J G = J::from_affine(g);
  ASSERT_TRUE(g.is_on_curve());
  for (int i = 0; i < 20; ++i) {
    Fr a = rng.fr(), b = rng.fr();
    J A = G.mul(a), B = G.mul(b);
    EXPECT_EQ(A + B, G.mul(a + b));
    EXPECT_EQ(A + B, B + A);
    EXPECT_EQ(A.dbl(), A + A);
    EXPECT_EQ(A.mul(b), G.mul(a * b));
    EXPECT_EQ(A - A, J::identity());
    EXPECT_TRUE(A.to_affine().is_on_curve());
    EXPECT_EQ(A.add_affine(B.to_affine()), A + B);
    EXPECT_EQ(A.add_affine(A.to_affine()), A.dbl());  // madd doubling case
    // XYZZ agrees with Jacobian, including the doubling and cancellation cases.
    X x = X::from_affine(A.to_affine());
    x.add_affine(B.to_affine());
    EXPECT_EQ(x.to_jacobian(), A + B);
    EXPECT_EQ(x.to_affine(), (A + B).to_affine());
    X y = X::from_affine(A.to_affine());
    y.add_affine(A.to_affine());
    EXPECT_EQ(y.to_jacobian(), A.dbl());
    y.add(X::from_affine((-A.dbl()).to_affine()));
    EXPECT_TRUE(y.is_identity());
    X z = X::from_affine(A.to_affine());
    z.add(x);
    EXPECT_EQ(z.to_jacobian(), A + A + B);
  }
  EXPECT_TRUE(G.mul(FrParams::kModulus).is_identity());
  EXPECT_EQ(G.mul(Fr::zero()), J::identity());
  EXPECT_EQ(G.mul(-Fr::one()), -G);
}

TEST(Curve, G1GroupLaws) {
  Rng rng(10);
  check_group_laws(g1_generator(), rng);
}
TEST(Curve, G2GroupLaws) {
  Rng rng(11);
  check_group_laws(g2_generator(), rng);
}

TEST(Curve, SubgroupMembership) {
  EXPECT_TRUE(in_prime_subgroup(g1_generator()));
  EXPECT_TRUE(in_prime_subgroup(g2_generator()));
  // A point on the curve but outside G1: take x with x^3 + 4 square; cofactor h1 > 1 makes a random
  // curve point almost surely not r-torsion.
  for (std::uint64_t i = 1;; ++i) {
    Fp x = Fp::from_u64(i);
    auto y = (x.square() * x + G1Curve::b()).sqrt();
    if (!y) continue;
    G1Affine p = G1Affine::from_xy(x, *y);
    ASSERT_TRUE(p.is_on_curve());
    EXPECT_FALSE(in_prime_subgroup(p));
    break;
  }
  for (std::uint64_t i = 1;; ++i) {
    Fp2 x{Fp::from_u64(i), Fp::one()};
    auto y = (x.square() * x + G2Curve::b()).sqrt();
    if (!y) continue;
    G2Affine p = G2Affine::from_xy(x, *y);
    ASSERT_TRUE(p.is_on_curve());
    EXPECT_FALSE(in_prime_subgroup(p));
    break;
  }
}

}  // namespace
