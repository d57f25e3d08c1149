// The CPU FixedBaseMultiplier (12-bit window tables) against plain scalar multiplication, on edge
// scalars (0, 1, r - 1, powers of two on window and limb borders) and random ones, in both groups,
// as points and as bellperson encodings.
#include <gtest/gtest.h>

#include "../common/test_random.hpp"
#include "groth16/fixed_base.hpp"
#include "math/ec/encoding.hpp"

namespace cuzk::groth16 {
namespace {

std::vector<math::Fr> edge_and_random(std::size_t n) {
  test::Rng rng(17);
  std::vector<math::Fr> k = {math::Fr::zero(), math::Fr::one(), -math::Fr::one(), -math::Fr::from_u64(2)};
  for (unsigned e : {11u, 12u, 63u, 64u, 127u, 128u, 191u, 192u, 251u, 252u, 254u}) {
    k.push_back(math::Fr::from_u64(2).pow(std::uint64_t(e)));
  }
  while (k.size() < n) k.push_back(rng.fr());
  return k;
}

TEST(CpuFixedBase, G1AndG2MatchScalarMultiplication) {
  auto mul = make_cpu_fixed_base_multiplier(3);
  auto ks = edge_and_random(3000);  // above the 1024 grain: several threads, several affine batches
  std::vector<math::G1Affine> p1(ks.size());
  std::vector<math::G2Affine> p2(ks.size());
  mul->mul_g1(ks, p1);
  mul->mul_g2(std::span<const math::Fr>(ks.data(), 64), std::span<math::G2Affine>(p2.data(), 64));
  auto g1 = math::G1Jacobian::from_affine(math::g1_generator());
  auto g2 = math::G2Jacobian::from_affine(math::g2_generator());
  EXPECT_TRUE(p1[0].infinity);
  EXPECT_TRUE(p2[0].infinity);
  for (std::size_t i = 0; i < ks.size(); i += (i < 64 ? 1 : 37)) {
    ASSERT_TRUE(p1[i] == g1.mul(ks[i]).to_affine()) << i;
    if (i < 64) {
      ASSERT_TRUE(p2[i] == g2.mul(ks[i]).to_affine()) << i;
    }
  }
  std::vector<std::uint8_t> b1(ks.size() * 96), b2(64 * 192);
  mul->mul_g1_uncompressed(ks, b1.data());
  mul->mul_g2_uncompressed(std::span<const math::Fr>(ks.data(), 64), b2.data());
  for (std::size_t i = 0; i < 64; ++i) {
    auto e1 = math::g1_to_uncompressed(p1[i]);
    auto e2 = math::g2_to_uncompressed(p2[i]);
    ASSERT_TRUE(std::equal(e1.begin(), e1.end(), b1.begin() + i * 96)) << i;
    ASSERT_TRUE(std::equal(e2.begin(), e2.end(), b2.begin() + i * 192)) << i;
  }
  EXPECT_EQ(b1[0], 0x40);  // the identity: infinity flag, then zeros
}

}  // namespace
}  // namespace cuzk::groth16
