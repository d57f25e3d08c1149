// The compact witness (groth16/witness.hpp) at the backend seam: expansion is exact, malformed
// counts are refused with a named error, and Backend::start's compact overload gives the same
// PendingProof (hence, with injected r and s, the same proof bytes) as the dense one.
#include <gtest/gtest.h>

#include "../common/test_random.hpp"
#include "groth16/prover.hpp"
#include "groth16/test_setup.hpp"
#include "groth16/verifier.hpp"
#include "groth16/witness.hpp"
#include "toy_circuits.hpp"

using namespace cuzk;
using namespace cuzk::groth16;
using math::Fr;

namespace {

// A satisfiable circuit over `bits` boolean aux (x(1 - x) = 0 each), their pairwise ANDs and a few
// random-valued products, so its witness mixes 0, 1 and full field elements.
test::ToyCircuit boolean_circuit(std::size_t bits, std::uint64_t seed) {
  using T = std::pair<std::uint32_t, Fr>;
  test::Rng rng(seed);
  test::ToyCircuit c;
  auto& s = c.shape;
  s.num_inputs = 2;
  c.witness = {Fr::one(), rng.fr()};
  auto row = [&](std::vector<T> a, std::vector<T> b, std::vector<T> cc) {
    s.a.add_row(a);
    s.b.add_row(b);
    s.c.add_row(cc);
  };
  std::vector<std::uint32_t> ids;
  for (std::size_t i = 0; i < bits; ++i) {
    c.witness.push_back(rng.next() % 2 ? Fr::one() : Fr::zero());
    const auto x = std::uint32_t(c.witness.size() - 1);
    ids.push_back(x);
    row({{x, Fr::one()}}, {{0, Fr::one()}, {x, -Fr::one()}}, {});
    if (i % 5 == 4) {  // x * input = z, a non-binary value (or 0)
      c.witness.push_back(c.witness[x] * c.witness[1]);
      row({{x, Fr::one()}}, {{1, Fr::one()}}, {{std::uint32_t(c.witness.size() - 1), Fr::one()}});
    }
    if (i % 3 == 2) {  // AND of two earlier bits
      const std::uint32_t a = ids[rng.next() % ids.size()], b = ids[rng.next() % ids.size()];
      c.witness.push_back(c.witness[a] * c.witness[b]);
      row({{a, Fr::one()}}, {{b, Fr::one()}}, {{std::uint32_t(c.witness.size() - 1), Fr::one()}});
    }
  }
  s.num_aux = std::uint32_t(c.witness.size() - s.num_inputs);
  s.append_input_rows();
  return c;
}

TEST(CompactAssignment, ExpandsExactlyAndCountsBinaries) {
  test::Rng rng(3);
  for (std::size_t n_aux : {0, 1, 63, 64, 65, 1000, 4096, 100003}) {
    std::vector<Fr> w{Fr::one(), rng.fr(), rng.fr()};
    std::size_t binary = 0;
    for (std::size_t j = 0; j < n_aux; ++j) {
      switch (rng.next() % 4) {
        case 0: w.push_back(Fr::zero()), ++binary; break;
        case 1: w.push_back(Fr::one()), ++binary; break;
        case 2: w.push_back(Fr::from_u64(2)); break;
        default: w.push_back(rng.fr());
      }
    }
    auto c = CompactAssignment::from_dense(w, 3);
    EXPECT_TRUE(c.check().ok()) << c.check().error();
    EXPECT_EQ(c.num_aux, n_aux);
    EXPECT_EQ(c.num_binary(), binary);
    EXPECT_EQ(c.values.size(), n_aux - binary);
    EXPECT_EQ(c.is_binary.size(), (n_aux + 63) / 64);
    EXPECT_EQ(c.num_variables(), w.size());
    EXPECT_EQ(c.payload_bytes(), (3 + n_aux - binary) * 32 + 2 * 8 * ((n_aux + 63) / 64));
    EXPECT_EQ(c.assignment(), w) << n_aux;
    EXPECT_EQ(c.aux_assignment(), std::vector<Fr>(w.begin() + 3, w.end()));
  }
}

TEST(AssignmentView, ReadsEveryValueOfTheCompactFormWithoutExpandingIt) {
  test::Rng rng(11);
  for (std::size_t n_aux : {0, 1, 63, 64, 65, 130, 4096, 100003}) {
    std::vector<Fr> w{Fr::one(), rng.fr()};
    for (std::size_t j = 0; j < n_aux; ++j) {
      const auto r = rng.next() % 3;  // runs of bits and values across word boundaries
      w.push_back(r == 0 ? Fr::zero() : r == 1 ? Fr::one() : rng.fr());
    }
    const auto c = CompactAssignment::from_dense(w, 2);
    const AssignmentView compact(c), dense{std::span<const Fr>(w)};
    ASSERT_EQ(compact.size(), w.size());
    ASSERT_EQ(dense.size(), w.size());
    for (std::size_t v = 0; v < w.size(); ++v) {
      ASSERT_EQ(compact[v], w[v]) << "variable " << v << " of " << w.size();
      ASSERT_EQ(dense[v], w[v]);
    }
  }
}

TEST(EvaluateRowsInto, AnyRangeOfAnyMatrixEqualsTheRowEvaluationsFromBothForms) {
  const auto circuit = boolean_circuit(700, 5);
  const auto& s = circuit.shape;
  const auto all = evaluate_rows(s, circuit.witness);
  const auto c = CompactAssignment::from_dense(circuit.witness, s.num_inputs);
  const AssignmentView views[2] = {AssignmentView(c), AssignmentView(std::span<const Fr>(circuit.witness))};
  const std::size_t n = s.num_constraints();
  ASSERT_GT(n, 1000u);
  for (const auto& view : views) {
    for (auto [m, want] : {std::pair{&s.a, &all.a}, {&s.b, &all.b}, {&s.c, &all.c}}) {
      for (auto [b, e] : {std::pair<std::size_t, std::size_t>{0, n}, {0, 1}, {17, 555}, {n - 3, n}, {9, 9}}) {
        std::vector<Fr> out(e - b, Fr::from_u64(99));
        evaluate_rows_into(*m, view, b, e, out.data());
        ASSERT_EQ(out, std::vector<Fr>(want->begin() + std::ptrdiff_t(b), want->begin() + std::ptrdiff_t(e)))
            << "rows " << b << ".." << e;
      }
    }
  }
}

TEST(CompactAssignment, MalformedCountsAreNamed) {
  test::Rng rng(4);
  std::vector<Fr> w{Fr::one()};
  for (int j = 0; j < 100; ++j) w.push_back(j % 3 ? Fr::from_u64(std::uint64_t(j % 2)) : rng.fr());
  const auto good = CompactAssignment::from_dense(w, 1);
  ASSERT_TRUE(good.check().ok());

  auto c = good;
  c.values.pop_back();
  EXPECT_EQ(c.check().error(), "compact witness: 34 non-binary aux variables but 33 values");
  c = good;
  c.is_binary.push_back(0);
  EXPECT_EQ(c.check().error(), "compact witness: 100 aux variables need 2 bitmap words, got 3 (binary) and 2 (values)");
  EXPECT_THROW(c.assignment(), std::invalid_argument);
  c = good;
  c.is_binary[1] |= std::uint64_t(1) << 40;  // aux 104 does not exist
  EXPECT_EQ(c.check().error(), "compact witness: bits set beyond aux variable 100");
  c = good;
  c.bits[0] |= 1;  // aux 0 is a random value, not a bit
  EXPECT_EQ(c.check().error(), "compact witness: a value bit is set for a non-binary aux variable in word 0");
}

// The compact overload gives the same MSM results as the dense one, so with the same r and s the
// proofs are byte-identical, and they verify.
TEST(CompactAssignment, CompactAndDenseProofsAreIdentical) {
  for (auto basis : {HBasis::kMonomialOverZ, HBasis::kOddCosetLagrange}) {
    for (auto circuit :
         {boolean_circuit(300, 1), boolean_circuit(64, 2), test::cubic_circuit(5), test::mulchain_circuit(40, 3, 7)}) {
      ASSERT_FALSE(first_unsatisfied_row(circuit.shape, circuit.witness));
      auto pk = generate_test_key(circuit.shape, basis, ToxicWaste::from_seed(9));
      ASSERT_TRUE(pk.ok()) << pk.error();
      auto compact = CompactAssignment::from_dense(circuit.witness, circuit.shape.num_inputs);
      std::unique_ptr<Backend> backend = make_cpu_backend();
      auto dense_p = backend->start(circuit.shape, std::span<const Fr>(circuit.witness), *pk);
      auto compact_p = backend->start(circuit.shape, compact, *pk);
      ASSERT_TRUE(dense_p.ok()) << dense_p.error();
      ASSERT_TRUE(compact_p.ok()) << compact_p.error();
      EXPECT_EQ(dense_p->a_acc, compact_p->a_acc);
      EXPECT_EQ(dense_p->b1_acc, compact_p->b1_acc);
      EXPECT_EQ(dense_p->b2_acc, compact_p->b2_acc);
      EXPECT_EQ(dense_p->h_acc, compact_p->h_acc);
      EXPECT_EQ(dense_p->l_acc, compact_p->l_acc);
      const ProofRandomness rs{Fr::from_u64(21), Fr::from_u64(34)};
      const Proof a = finish(*dense_p, *pk, rs), b = finish(*compact_p, *pk, rs);
      EXPECT_EQ(a.to_bytes(), b.to_bytes());
      std::vector<Fr> inputs(circuit.witness.begin() + 1, circuit.witness.begin() + circuit.shape.num_inputs);
      auto ok = verify(pk->vk, inputs, b);
      ASSERT_TRUE(ok.ok()) << ok.error();
      EXPECT_TRUE(*ok);
    }
  }
}

TEST(CompactAssignment, BackendRefusesMismatchedCompactWitness) {
  auto circuit = boolean_circuit(100, 5);
  auto pk = generate_test_key(circuit.shape, HBasis::kMonomialOverZ, ToxicWaste::from_seed(1));
  ASSERT_TRUE(pk.ok());
  const auto good = CompactAssignment::from_dense(circuit.witness, circuit.shape.num_inputs);
  auto backend = make_cpu_backend();

  auto c = good;
  c.values.push_back(Fr::from_u64(7));
  auto r = backend->start(circuit.shape, c, *pk);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("compact witness:"), std::string::npos) << r.error();

  c = good;
  c.push_bit(true);  // one aux variable too many
  r = backend->start(circuit.shape, c, *pk);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "witness has 2 inputs and " + std::to_string(circuit.shape.num_aux + 1) +
                           " aux variables, the circuit has 2 and " + std::to_string(circuit.shape.num_aux));

  c = good;
  c.inputs[0] = Fr::from_u64(2);
  r = backend->start(circuit.shape, c, *pk);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "witness: the first value (the constant ONE) is not 1");
}

}  // namespace
