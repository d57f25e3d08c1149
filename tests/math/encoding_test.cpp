#include <gtest/gtest.h>

#include "../common/hex.hpp"

#include <string>
#include <vector>

#include "../common/test_random.hpp"
#include "math/ec/encoding.hpp"

using namespace cuzk::math;
using cuzk::test::Rng;

namespace {

using cuzk::test::hex;
using cuzk::test::unhex;

// Vectors printed by @noble/curves 2.4.0 (peers-and-deps.md section 3c).
const std::string kG1Comp =
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
const std::string kG1x5Comp =
    "b0e7791fb972fe014159aa33a98622da3cdc98ff707965e536d8636b5fcc5ac7a91a8c46e59a00dca575af0f18fb13dc";
const std::string kG1x5Uncomp =
    "10e7791fb972fe014159aa33a98622da3cdc98ff707965e536d8636b5fcc5ac7a91a8c46e59a00dca575af0f18fb13dc"
    "16ba437edcc6551e30c10512367494bfb6b01cc6681e8a4c3cd2501832ab5c4abc40b4578b85cbaffbf0bcd70d67c6e2";
const std::string kG2Comp =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
const std::string kG2x7Comp =
    "8d0273f6bf31ed37c3b8d68083ec3d8e20b5f2cc170fa24b9b5be35b34ed013f9a921f1cad1644d4bdb14674247234c8"
    "049cd1dbb2d2c3581e54c088135fef36505a6823d61b859437bfc79b617030dc8b40e32bad1fa85b9c0f368af6d38d3c";

TEST(Encoding, NobleVectors) {
  EXPECT_EQ(hex(g1_to_compressed(g1_generator())), kG1Comp);
  G1Affine p5 = G1Jacobian::from_affine(g1_generator()).mul(Fr::from_u64(5)).to_affine();
  EXPECT_EQ(hex(g1_to_compressed(p5)), kG1x5Comp);
  EXPECT_EQ(hex(g1_to_uncompressed(p5)), kG1x5Uncomp);
  EXPECT_EQ(hex(g2_to_compressed(g2_generator())), kG2Comp);
  G2Affine q7 = G2Jacobian::from_affine(g2_generator()).mul(Fr::from_u64(7)).to_affine();
  EXPECT_EQ(hex(g2_to_compressed(q7)), kG2x7Comp);
  EXPECT_EQ(*g1_from_compressed(unhex(kG1x5Comp)), p5);
  EXPECT_EQ(*g1_from_uncompressed(unhex(kG1x5Uncomp)), p5);
  EXPECT_EQ(*g2_from_compressed(unhex(kG2x7Comp)), q7);
}

TEST(Encoding, RoundTripsIncludingInfinity) {
  Rng rng(20);
  for (int i = 0; i < 10; ++i) {
    G1Affine p = rng.g1();
    G2Affine q = rng.g2();
    EXPECT_EQ(*g1_from_compressed(g1_to_compressed(p)), p);
    EXPECT_EQ(*g1_from_uncompressed(g1_to_uncompressed(p)), p);
    EXPECT_EQ(*g2_from_compressed(g2_to_compressed(q)), q);
    EXPECT_EQ(*g2_from_uncompressed(g2_to_uncompressed(q)), q);
    EXPECT_EQ(*g1_from_compressed(g1_to_compressed(-p)), -p);
    EXPECT_EQ(*g2_from_compressed(g2_to_compressed(-q)), -q);
  }
  EXPECT_TRUE(g1_from_compressed(g1_to_compressed(G1Affine::identity()))->is_identity());
  EXPECT_TRUE(g1_from_uncompressed(g1_to_uncompressed(G1Affine::identity()))->is_identity());
  EXPECT_TRUE(g2_from_compressed(g2_to_compressed(G2Affine::identity()))->is_identity());
  EXPECT_TRUE(g2_from_uncompressed(g2_to_uncompressed(G2Affine::identity()))->is_identity());
  EXPECT_EQ(hex(g1_to_compressed(G1Affine::identity())), "c0" + std::string(94, '0'));
}

// Every kind of invalid encoding is rejected with a message naming the failed check.
TEST(Encoding, RejectsInvalid) {
  auto comp = unhex(kG1x5Comp);
  auto uncomp = unhex(kG1x5Uncomp);
  auto expect_error = [](const auto& r, const std::string& needle) {
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find(needle), std::string::npos) << r.error();
  };
  expect_error(g1_from_compressed(std::span(comp.data(), 47)), "expected 48 bytes");
  expect_error(g1_from_compressed(uncomp), "expected 48 bytes");
  auto c = comp;
  c[0] &= 0x7f;  // compression flag cleared
  expect_error(g1_from_compressed(c), "compression flag");
  auto u = uncomp;
  u[0] |= 0x80;
  expect_error(g1_from_uncompressed(u), "compression flag");
  u = uncomp;
  u[0] |= 0x20;
  expect_error(g1_from_uncompressed(u), "sign flag");
  c = comp;
  c[0] |= 0x40;  // infinity flag with a non-zero x
  expect_error(g1_from_compressed(c), "infinity flag");
  std::vector<std::uint8_t> inf_sign(48, 0);
  inf_sign[0] = 0xe0;
  expect_error(g1_from_compressed(inf_sign), "infinity flag");
  std::vector<std::uint8_t> big(48, 0xff);
  big[0] = 0x9f;  // x >= p with compression flag
  expect_error(g1_from_compressed(big), ">= p");
  u = uncomp;
  u[95] ^= 1;  // y changed: off the curve
  expect_error(g1_from_uncompressed(u), "not on the curve");
  // x with no y on the curve: x = 0 gives y^2 = 4, which is square; search a small x that is not.
  for (std::uint64_t i = 1;; ++i) {
    Fp x = Fp::from_u64(i);
    if ((x.square() * x + G1Curve::b()).sqrt()) continue;
    std::vector<std::uint8_t> e(48);
    x.to_bytes_be(e);
    e[0] |= 0x80;
    expect_error(g1_from_compressed(e), "not on the curve");
    break;
  }
  // On the curve but not in G1.
  for (std::uint64_t i = 1;; ++i) {
    Fp x = Fp::from_u64(i);
    auto y = (x.square() * x + G1Curve::b()).sqrt();
    if (!y) continue;
    auto enc = g1_to_uncompressed(G1Affine::from_xy(x, *y));
    expect_error(g1_from_uncompressed(enc), "subgroup");
    EXPECT_TRUE(g1_from_uncompressed(enc, SubgroupCheck::kSkip).ok());
    auto encc = g1_to_compressed(G1Affine::from_xy(x, *y));
    expect_error(g1_from_compressed(encc), "subgroup");
    break;
  }
  for (std::uint64_t i = 1;; ++i) {
    Fp2 x{Fp::from_u64(i), Fp::one()};
    auto y = (x.square() * x + G2Curve::b()).sqrt();
    if (!y) continue;
    auto enc = g2_to_compressed(G2Affine::from_xy(x, *y));
    expect_error(g2_from_compressed(enc), "subgroup");
    break;
  }
  auto g2 = unhex(kG2x7Comp);
  expect_error(g2_from_compressed(std::span(g2.data(), 95)), "expected 96 bytes");
  auto g2u = g2_to_uncompressed(G2Jacobian::from_affine(g2_generator()).mul(Fr::from_u64(3)).to_affine());
  g2u[191] ^= 1;
  expect_error(g2_from_uncompressed(g2u), "not on the curve");
  std::vector<std::uint8_t> g2big(96, 0xff);
  g2big[0] = 0x9f;
  expect_error(g2_from_compressed(g2big), ">= p");
}

}  // namespace
