// The cuzk CPU prover with snarkjs' own .zkey files: the proofs must verify under snarkjs'
// verification_key.json. Ties the zkey reader (densities, coefficient decoding, H basis) to the
// prover end to end.
//
// snarkjs (ffjavascript) numbers the evaluation domain with its own roots of unity: w_{2^32} =
// 5^((r-1)/2^32) (5 = the smallest quadratic non-residue mod r), w_n = w_{2^32}^(2^32/n); row i of
// the coefficient section sits at w_n^i, H point j at w_{2n}^(2j+1). bellperson uses 7^((r-1)/2^32).
// groth16/snarkjs_domain.hpp handles this; the test below pins the convention independently.
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/snarkjs_wtns.hpp"
#include "formats/snarkjs_zkey.hpp"
#include "groth16/prover.hpp"
#include "groth16/snarkjs_domain.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::formats::test {
namespace {

using math::Fr;

TEST(SnarkjsDomain, RootIsFiveToTheOddPart) {
  math::Limbs<4> half = Fr::modulus(), t = Fr::modulus();
  half[0] -= 1;
  t[0] -= 1;
  for (std::size_t i = 0; i < 4; ++i) half[i] = (half[i] >> 1) | (i + 1 < 4 ? half[i + 1] << 63 : 0);
  for (int s = 0; s < 32; ++s) {
    for (std::size_t i = 0; i < 4; ++i) t[i] = (t[i] >> 1) | (i + 1 < 4 ? t[i + 1] << 63 : 0);
  }
  // ffjavascript: nqr = the first x >= 2 with x^((r-1)/2) = -1; w[32] = nqr^t.
  for (std::uint64_t x = 2; x < 5; ++x) EXPECT_TRUE(Fr::from_u64(x).pow(half).is_one()) << x;
  EXPECT_EQ(Fr::from_u64(5).pow(half), -Fr::one());
  const Fr w5 = Fr::from_u64(5).pow(t);
  EXPECT_EQ(groth16::snarkjs_root_of_unity(), w5);
  EXPECT_NE(math::fr_root_of_unity(), w5);
  EXPECT_EQ(math::fr_root_of_unity().pow(std::uint64_t(3797895509ULL)), w5);
}

class ProverZkey : public ::testing::TestWithParam<std::string> {};

TEST_P(ProverZkey, CpuBackendProofVerifiesUnderSnarkjsKey) {
  const std::string c = GetParam();
  auto z = read_zkey(zkey_path(c));
  auto vk = read_verification_key_json(fixture(c, "verification_key.json"));
  ASSERT_TRUE(z.ok()) << z.error();
  ASSERT_TRUE(vk.ok()) << vk.error();
  auto backend = groth16::make_cpu_backend();
  groth16::Proof proofs[2];
  std::vector<Fr> pubs[2];
  const char* wtns[2] = {"witness.wtns", "witness_other.wtns"};
  const char* pub[2] = {"public.json", "public_other.json"};
  for (int i = 0; i < 2; ++i) {
    auto w = read_wtns(fixture(c, wtns[i]));
    auto p = read_public_json(fixture(c, pub[i]));
    ASSERT_TRUE(w.ok() && p.ok());
    pubs[i] = *p;
    auto pending = backend->start(z->shape, *w, z->pk);
    ASSERT_TRUE(pending.ok()) << pending.error();
    proofs[i] = groth16::finish(*pending, z->pk, groth16::ProofRandomness::random());
    auto ok = groth16::verify(vk->vk, pubs[i], proofs[i]);
    ASSERT_TRUE(ok.ok()) << ok.error();
    EXPECT_TRUE(*ok) << wtns[i];
    // and the proof survives proof.json
    auto back = parse_proof_json(proof_to_json(proofs[i]), "proof.json");
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_TRUE(*back == proofs[i]);
  }
  auto swapped = groth16::verify(vk->vk, pubs[1], proofs[0]);
  ASSERT_TRUE(swapped.ok());
  EXPECT_FALSE(*swapped);
}

INSTANTIATE_TEST_SUITE_P(Snarkjs, ProverZkey, ::testing::ValuesIn(circuits()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace cuzk::formats::test
