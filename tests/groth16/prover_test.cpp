#include <gtest/gtest.h>

#include "../common/test_random.hpp"
#include "groth16/prover.hpp"
#include "groth16/test_setup.hpp"
#include "groth16/verifier.hpp"
#include "math/poly/ntt.hpp"
#include "toy_circuits.hpp"

using namespace cuzk;
using namespace cuzk::groth16;
using math::Fr;

namespace {

std::vector<Fr> public_inputs(const test::ToyCircuit& c) {
  return {c.witness.begin() + 1, c.witness.begin() + c.shape.num_inputs};
}

Proof prove(const test::ToyCircuit& c, const ProvingKey& pk, const ProofRandomness& rs) {
  auto pending = make_cpu_backend()->start(c.shape, c.witness, pk);
  EXPECT_TRUE(pending.ok()) << pending.error();
  return finish(*pending, pk, rs);
}

class ProverBothBases : public ::testing::TestWithParam<HBasis> {};

TEST_P(ProverBothBases, ToyCircuitsVerifyAndTamperingFails) {
  for (auto circuit : {test::cubic_circuit(3), test::mulchain_circuit(40, 3, 7), test::mulchain_circuit(1, 1, 0)}) {
    ASSERT_FALSE(first_unsatisfied_row(circuit.shape, circuit.witness));
    auto pk = generate_test_key(circuit.shape, GetParam(), ToxicWaste::from_seed(42));
    ASSERT_TRUE(pk.ok()) << pk.error();
    Proof proof = prove(circuit, *pk, ProofRandomness::random());
    auto inputs = public_inputs(circuit);
    auto ok = verify(pk->vk, inputs, proof);
    ASSERT_TRUE(ok.ok()) << ok.error();
    EXPECT_TRUE(*ok);
    // Proof bytes survive the 192-byte encoding.
    auto back = Proof::from_bytes(proof.to_bytes());
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(*verify(pk->vk, inputs, *back));
    // A changed public input, or a changed proof element, must not verify.
    auto bad_inputs = inputs;
    bad_inputs[0] += Fr::one();
    EXPECT_FALSE(*verify(pk->vk, bad_inputs, proof));
    Proof bad = proof;
    bad.c = (math::G1Jacobian::from_affine(bad.c) + math::G1Jacobian::from_affine(math::g1_generator())).to_affine();
    EXPECT_FALSE(*verify(pk->vk, inputs, bad));
    bad = proof;
    std::swap(bad.a, bad.c);
    EXPECT_FALSE(*verify(pk->vk, inputs, bad));
    // Wrong number of inputs is an error, not a verdict.
    EXPECT_FALSE(verify(pk->vk, std::span(inputs.data(), inputs.size() - 1), proof).ok());
  }
}

INSTANTIATE_TEST_SUITE_P(Bases, ProverBothBases, ::testing::Values(HBasis::kMonomialOverZ, HBasis::kOddCosetLagrange));

// Independent of the prover's algorithm: with the toxic waste known, A and B must equal their
// definitions A = (alpha + sum w_i u_i(tau) + r delta) G1 and B = (beta + sum w_i v_i(tau) + s delta) G2.
TEST(Prover, MatchesDefinitionWithInjectedRandomness) {
  auto c = test::cubic_circuit(5);
  auto t = ToxicWaste::from_seed(7);
  auto pk = generate_test_key(c.shape, HBasis::kMonomialOverZ, t);
  ASSERT_TRUE(pk.ok());
  ProofRandomness rs{Fr::from_u64(11), Fr::from_u64(13)};
  Proof proof = prove(c, *pk, rs);
  // Evaluate u_i(tau), v_i(tau) by Lagrange interpolation over the 2^k domain directly.
  std::size_t rows = c.shape.num_constraints();
  std::size_t log_m = c.shape.domain_log2(), m = std::size_t(1) << log_m;
  Fr omega = math::fr_root_of_unity();
  for (std::size_t i = log_m; i < 32; ++i) omega = omega.square();
  Fr zt = t.tau.pow(std::uint64_t(m)) - Fr::one();
  Fr sum_a = Fr::zero(), sum_b = Fr::zero();
  Fr wj = Fr::one();
  for (std::size_t j = 0; j < rows; ++j, wj *= omega) {
    Fr lj = wj * zt * (Fr::from_u64(m) * (t.tau - wj)).inverse();
    sum_a += c.shape.a.dot_row(j, c.witness) * lj;
    sum_b += c.shape.b.dot_row(j, c.witness) * lj;
  }
  auto g1 = math::G1Jacobian::from_affine(math::g1_generator());
  auto g2 = math::G2Jacobian::from_affine(math::g2_generator());
  EXPECT_EQ(proof.a, g1.mul(t.alpha + sum_a + rs.r * t.delta).to_affine());
  EXPECT_EQ(proof.b, g2.mul(t.beta + sum_b + rs.s * t.delta).to_affine());
  EXPECT_TRUE(*verify(pk->vk, public_inputs(c), proof));
  // Deterministic given r, s.
  EXPECT_EQ(prove(c, *pk, rs), proof);
}

// compute_h_scalars runs six transforms where bellperson runs seven; the H must be bellperson's exactly,
// for any rows (the identity holds without a satisfied witness), so random ones are compared against
// bellperson's definition: interpolate a, b, c, evaluate on the coset 7<w>, (a b - c) / (7^m - 1),
// interpolate back.
TEST(Prover, HScalarsAreBellpersonsSevenTransformQuotient) {
  test::Rng rng(99);
  for (unsigned log_m : {1u, 3u, 7u}) {
    const std::size_t m = std::size_t(1) << log_m;
    ProvingKey key;
    key.domain_log2 = log_m;
    RowEvaluations ev;
    for (auto* v : {&ev.a, &ev.b, &ev.c})
      for (std::size_t i = 0; i + 1 < m; ++i) v->push_back(rng.fr());  // one row short: padded with zero
    auto want = ev;
    const auto& domain = math::domain_for(log_m);
    for (auto* v : {&want.a, &want.b, &want.c}) {
      v->resize(m, Fr::zero());
      math::intt(domain, *v);
      math::coset_ntt(domain, *v);
    }
    const Fr z = Fr::from_u64(7).pow(std::uint64_t(m)) - Fr::one();
    for (std::size_t i = 0; i < m; ++i) want.a[i] = (want.a[i] * want.b[i] - want.c[i]) * z.inverse();
    math::coset_intt(domain, want.a);
    want.a.resize(m - 1);
    EXPECT_EQ(compute_h_scalars(ev, key), want.a) << "m = " << m;
  }
}

TEST(Prover, UnsatisfiedWitnessIsNamedAndDoesNotVerify) {
  auto c = test::mulchain_circuit(20, 2, 3);
  c.witness[10] += Fr::one();  // x_8 wrong: rows 7 and 8 break
  auto row = first_unsatisfied_row(c.shape, c.witness);
  ASSERT_TRUE(row);
  EXPECT_EQ(*row, 7u);
  auto pk = generate_test_key(c.shape, HBasis::kOddCosetLagrange, ToxicWaste::from_seed(1));
  ASSERT_TRUE(pk.ok());
  Proof proof = prove(c, *pk, ProofRandomness::random());
  EXPECT_FALSE(*verify(pk->vk, public_inputs(c), proof));
}

TEST(Prover, RejectsMismatchedInputs) {
  auto c = test::cubic_circuit(2);
  auto other = test::mulchain_circuit(4, 1, 2);
  auto pk = generate_test_key(other.shape, HBasis::kMonomialOverZ, ToxicWaste::from_seed(3));
  ASSERT_TRUE(pk.ok());
  auto backend = make_cpu_backend();
  auto r = backend->start(c.shape, c.witness, *pk);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("does not belong"), std::string::npos) << r.error();
  auto pk2 = generate_test_key(c.shape, HBasis::kMonomialOverZ, ToxicWaste::from_seed(3));
  auto short_w = c.witness;
  short_w.pop_back();
  r = backend->start(c.shape, short_w, *pk2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("witness has"), std::string::npos) << r.error();
  auto bad_one = c.witness;
  bad_one[0] = Fr::from_u64(2);
  EXPECT_FALSE(backend->start(c.shape, bad_one, *pk2).ok());
}

TEST(ProofEncoding, RejectsBadBytes) {
  auto c = test::cubic_circuit(4);
  auto pk = generate_test_key(c.shape, HBasis::kMonomialOverZ, ToxicWaste::from_seed(5));
  Proof proof = prove(c, *pk, ProofRandomness::random());
  auto bytes = proof.to_bytes();
  EXPECT_FALSE(Proof::from_bytes(std::span(bytes.data(), 191)).ok());
  auto bad = bytes;
  bad[0] &= 0x7f;  // A no longer flagged compressed
  EXPECT_NE(Proof::from_bytes(bad).error().find("proof A"), std::string::npos);
  bad = bytes;
  bad[48] = 0xc0;  // B = infinity (rest must be zero for a valid infinity; here it is not)
  EXPECT_NE(Proof::from_bytes(bad).error().find("proof B"), std::string::npos);
  Proof inf = proof;
  inf.c = math::G1Affine::identity();
  EXPECT_NE(Proof::from_bytes(inf.to_bytes()).error().find("infinity"), std::string::npos);
  auto many = concat_proofs(std::vector<Proof>{proof, proof, proof});
  ASSERT_EQ(many.size(), 576u);
  auto split = split_proofs(many);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->size(), 3u);
  many[200] ^= 0xff;
  auto broken = split_proofs(many);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().find("partition 1"), std::string::npos) << broken.error();
  EXPECT_FALSE(split_proofs(std::span(many.data(), 100)).ok());
}

}  // namespace

// The CPU backend checks the cancellation between its steps (H's transforms, then each of the five
// MSMs) and stops at the first check that says cancelled.
TEST(Prover, CancellationIsCheckedBetweenTheStepsAndStopsAtTheFirstYes) {
  for (HBasis basis : {HBasis::kMonomialOverZ, HBasis::kOddCosetLagrange}) {
    auto c = test::mulchain_circuit(40, 3, 7);
    auto pk = generate_test_key(c.shape, basis, ToxicWaste::from_seed(5));
    ASSERT_TRUE(pk.ok());
    auto backend = make_cpu_backend();
    int checks = 0;
    backend->set_cancel([&] {
      ++checks;
      return false;
    });
    ASSERT_TRUE(backend->start(c.shape, c.witness, *pk).ok());
    const int all = checks;
    // H: 5 (bellperson's basis) or 6 (snarkjs') checks between transforms, then one after H and one
    // before each further MSM.
    EXPECT_EQ(all, (basis == HBasis::kMonomialOverZ ? 5 : 6) + 5);
    for (int stop_at : {1, all / 2, all}) {
      checks = 0;
      backend->set_cancel([&] { return ++checks >= stop_at; });
      auto r = backend->start(c.shape, c.witness, *pk);
      ASSERT_FALSE(r.ok()) << "stop at check " << stop_at;
      EXPECT_EQ(r.error(), "cancelled");
      EXPECT_EQ(checks, stop_at) << "the backend went on after the check that said cancelled";
    }
    backend->set_cancel({});
    EXPECT_TRUE(backend->start(c.shape, c.witness, *pk).ok());
  }
}
