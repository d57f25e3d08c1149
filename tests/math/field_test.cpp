#include <gtest/gtest.h>

#include "../common/test_random.hpp"
#include "math/ff/bls12_381.hpp"
#include "math/ff/fp2.hpp"

using namespace cuzk::math;
using cuzk::test::Rng;

namespace {

// Values checked with Python big integers (independent of this code).
TEST(Field, FpKnownAnswers) {
  Fp a =
      *Fp::from_hex("1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef");
  Fp b = -Fp::from_u64(5);
  EXPECT_EQ((a * b).to_hex(),
            "0cfe974e12a494bdd168ee7e39d3adb236d77db8fab9455241bd9a290768d2e51faa4f9ff1f4fa538cf64fa52ca3a501");
  EXPECT_EQ(a.inverse().to_hex(),
            "0da5539eb1499eace7931dcdff0b8f217d200d16a05aeaa1e98da73f0389951a4d18f8d9473b4f01c66a2b9ae5264ad5");
}

TEST(Field, FrKnownAnswersAndText) {
  Fr a = *Fr::from_hex("0fedcba9876543210fedcba9876543210fedcba9876543210fedcba987654321");
  EXPECT_EQ((a * a * Fr::from_u64(7)).to_hex(), "655ef631e4afc9d4bb0374629a41507a8cb31fbc3f43e05023cdb021332258f3");
  EXPECT_EQ(a.inverse().to_hex(), "191ff9f4c437efdf76fb684af192f548e96d21a430951b8540e9353dd730225f");
  EXPECT_EQ(a.to_decimal(), "7204841108099674382329556960677470761815203831870653198871861458001451107105");
  EXPECT_EQ(*Fr::from_decimal(a.to_decimal()), a);
  EXPECT_EQ(Fr::zero().to_decimal(), "0");
}

TEST(Field, RejectsNonCanonicalText) {
  EXPECT_FALSE(Fr::from_hex("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"));  // = r
  EXPECT_TRUE(Fr::from_hex("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000"));   // r - 1
  EXPECT_FALSE(Fr::from_decimal(""));
  EXPECT_FALSE(Fr::from_decimal("12a"));
  EXPECT_FALSE(Fr::from_decimal("-1"));
  EXPECT_FALSE(
      Fr::from_decimal("52435875175126190479447740508185965837690552500527637822603658699938581184513"));  // = r
  EXPECT_FALSE(Fr::from_decimal(std::string(90, '9')));
  EXPECT_FALSE(Fp::from_hex("zz"));
}

TEST(Field, BytesRoundTripAndRange) {
  Rng rng(1);
  for (int i = 0; i < 50; ++i) {
    Fr a = rng.fr();
    std::array<std::uint8_t, 32> le{}, be{};
    a.to_bytes_le(le);
    a.to_bytes_be(be);
    EXPECT_EQ(*Fr::from_bytes_le(le), a);
    EXPECT_EQ(*Fr::from_bytes_be(be), a);
    std::reverse(be.begin(), be.end());
    EXPECT_EQ(be, le);
  }
  std::array<std::uint8_t, 32> ff;
  ff.fill(0xff);
  EXPECT_FALSE(Fr::from_bytes_le(ff));
  EXPECT_FALSE(Fr::from_bytes_le(std::span<const std::uint8_t>(ff.data(), 31)));
}

template <class F>
void check_field_laws(Rng& rng) {
  for (int i = 0; i < 200; ++i) {
    F a = rng.field<F>(), b = rng.field<F>(), c = rng.field<F>();
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a - a, F::zero());
    EXPECT_EQ(a + (-a), F::zero());
    EXPECT_EQ(a.square(), a * a);
    EXPECT_EQ(a * F::one(), a);
    if (!a.is_zero()) {
      EXPECT_EQ(a * a.inverse(), F::one());
    }
    EXPECT_EQ(*F::from_canonical(a.to_canonical()), a);
    auto s = a.square().sqrt();
    ASSERT_TRUE(s);
    EXPECT_TRUE(*s == a || *s == -a);
  }
  EXPECT_EQ(F::zero().inverse(), F::zero());
  EXPECT_EQ((-F::one()) * (-F::one()), F::one());
}

TEST(Field, FpLaws) {
  Rng rng(2);
  check_field_laws<Fp>(rng);
}
TEST(Field, FrLaws) {
  Rng rng(3);
  check_field_laws<Fr>(rng);
}

TEST(Field, SqrtOfNonResidueFails) {
  EXPECT_FALSE((-Fp::one()).sqrt());     // p = 3 mod 4
  EXPECT_FALSE(Fr::from_u64(7).sqrt());  // 7 generates Fr*, so it is a non-residue
}

TEST(Field, FrRootOfUnityHasOrder2To32) {
  Fr w = fr_root_of_unity();
  for (int i = 0; i < 31; ++i) w = w.square();
  EXPECT_EQ(w, -Fr::one());
  EXPECT_EQ(w.square(), Fr::one());
  // 7^((r-1)/2^32) is the documented definition.
  Limbs<4> t = FrParams::kModulus;
  t[0] -= 1;
  for (int k = 0; k < 32; ++k)
    for (int i = 0; i < 4; ++i) t[i] = (t[i] >> 1) | (i + 1 < 4 ? t[i + 1] << 63 : 0);
  EXPECT_EQ(Fr::from_u64(7).pow(t), fr_root_of_unity());
}

TEST(Field, Fp2Laws) {
  Rng rng(4);
  Fp2 u{Fp::zero(), Fp::one()};
  EXPECT_EQ(u * u, -Fp2::one());
  for (int i = 0; i < 100; ++i) {
    Fp2 a = rng.fp2(), b = rng.fp2(), c = rng.fp2();
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a.square(), a * a);
    EXPECT_EQ(a * a.inverse(), Fp2::one());
    EXPECT_EQ(a.mul_by_nonresidue(), (a * Fp2{Fp::one(), Fp::one()}));
    auto s = a.square().sqrt();
    ASSERT_TRUE(s);
    EXPECT_TRUE(*s == a || *s == -a);
  }
}

}  // namespace
