// insertion, Merkle inclusion (PoR) for binary SHA-256 and Poseidon 2/4/8 trees with sub/top
// levels, UInt64 and input packing.
#include <gtest/gtest.h>

#include "circuit/gadgets/por.hpp"
#include "circuit/gadgets/uint64.hpp"
#include "circuit_test_util.hpp"

using namespace cuzk;
using namespace cuzk::circuit;
using math::Fr;

namespace {

TEST(Insertion, AllSizesAllPositions) {
  test::Rng rng(21);
  const std::map<std::size_t, std::size_t> rows = {{2, 2}, {4, 8}, {8, 22}, {16, 16 * 15}};
  for (auto [size, expect_rows] : rows) {
    std::vector<Fr> vals;
    for (std::size_t i = 0; i < size; ++i) vals.push_back(rng.fr());
    for (std::size_t index = 0; index < size; ++index) {
      std::vector<AllocatedNum> out;
      auto circuit = [&](auto& cs) {
        AllocatedNum x = alloc_num(cs, vals[0]);
        std::vector<AllocatedNum> others;
        for (std::size_t i = 1; i < size; ++i) others.push_back(alloc_num(cs, vals[i]));
        std::vector<Boolean> bits;
        for (std::size_t b = 0; (std::size_t(1) << b) < size; ++b)
          bits.push_back(Boolean::is(alloc_bit(cs, (index >> b) & 1)));
        out = insert(cs, x, bits, others);
      };
      auto rep = ctest::run_all_modes(circuit);
      std::size_t nbits = std::size_t(std::countr_zero(size));
      EXPECT_EQ(ctest::circuit_rows(rep) - nbits, expect_rows) << size;
      ASSERT_EQ(out.size(), size);
      for (std::size_t pos = 0; pos < size; ++pos) {
        Fr expect = pos < index ? vals[pos + 1] : pos == index ? vals[0] : vals[pos];
        EXPECT_EQ(out[pos].value, expect) << size << " " << index << " " << pos;
      }
      if (size <= 8) {
        EXPECT_EQ(ctest::variables_not_detected(rep.rec.shape, rep.rec.assignment), std::vector<std::size_t>{});
      }
    }
  }
}

TEST(Insertion, SelectPicksIndexedElement) {
  test::Rng rng(22);
  std::vector<Fr> vals;
  for (int i = 0; i < 8; ++i) vals.push_back(rng.fr());
  for (std::size_t index = 0; index < 8; ++index) {
    AllocatedNum got;
    auto rep = ctest::run_all_modes([&](auto& cs) {
      std::vector<AllocatedNum> from;
      for (auto& v : vals) from.push_back(alloc_num(cs, v));
      std::vector<Boolean> bits;
      for (int b = 0; b < 3; ++b) bits.push_back(Boolean::is(alloc_bit(cs, (index >> b) & 1)));
      got = select(cs, from, bits);
    });
    EXPECT_EQ(got.value, vals[index]);
    EXPECT_EQ(ctest::circuit_rows(rep), 3u + 7u);
  }
}

std::size_t level_cost(TreeHash h, std::size_t arity) {
  CountingCS cs;
  std::vector<Fr> sib(arity - 1, Fr::one());
  std::vector<Boolean> bits;
  AllocatedNum cur = alloc_num(cs, Fr::from_u64(3));
  por_level(cs, h, arity, cur, 1, sib, bits);
  return cs.num_constraints();
}

TEST(Por, LevelCosts) {
  EXPECT_EQ(level_cost(TreeHash::kPoseidon, 8), 530u);
  EXPECT_EQ(level_cost(TreeHash::kPoseidon, 4), 387u);
  EXPECT_EQ(level_cost(TreeHash::kPoseidon, 2), 314u);
  EXPECT_EQ(level_cost(TreeHash::kSha256, 2), 45382u);  // the tree-D level of filecoin-formats §4.6
}

std::vector<Fr> random_leaves(test::Rng& rng, std::size_t n) {
  std::vector<Fr> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(rng.fr());
  return v;
}

TEST(Por, PoseidonTreesWithSubAndTopLevels) {
  test::Rng rng(23);
  struct Case {
    TreeShape shape;
    std::size_t expected_rows;
  };
  const Case cases[] = {
      {{TreeHash::kPoseidon, 2, 4, 0, 0}, 4 * 314 + 2},         {{TreeHash::kPoseidon, 4, 2, 0, 0}, 2 * 387 + 2},
      {{TreeHash::kPoseidon, 8, 2, 0, 0}, 2 * 530 + 2},         {{TreeHash::kPoseidon, 8, 1, 4, 0}, 530 + 387 + 2},
      {{TreeHash::kPoseidon, 8, 1, 4, 2}, 530 + 387 + 314 + 2}, {{TreeHash::kPoseidon, 8, 2, 8, 0}, 3 * 530 + 2},
      {{TreeHash::kPoseidon, 8, 1, 8, 2}, 2 * 530 + 314 + 2},
  };
  for (const auto& cs_case : cases) {
    NativeMerkleTree tree(cs_case.shape, random_leaves(rng, cs_case.shape.num_leaves()));
    for (std::size_t challenge :
         {std::size_t(0), cs_case.shape.num_leaves() - 1, std::size_t(rng.next() % cs_case.shape.num_leaves())}) {
      auto proof = tree.proof(challenge);
      for (bool private_root : {true, false}) {
        auto circuit = [&](auto& cs) { por_circuit(cs, cs_case.shape, proof, nullptr, nullptr, private_root); };
        auto rep = ctest::run_all_modes(circuit);
        EXPECT_EQ(ctest::circuit_rows(rep), cs_case.expected_rows + (private_root ? 0 : 1));
        // Public inputs: the packed path bits (= the challenge), then the root when public.
        ASSERT_EQ(rep.rec.shape.num_inputs, private_root ? 2u : 3u);
        EXPECT_EQ(rep.rec.assignment[1], Fr::from_u64(challenge));
        if (!private_root) {
          EXPECT_EQ(rep.rec.assignment[2], tree.root());
        }
        if (private_root && challenge == 0) {
          EXPECT_EQ(ctest::variables_not_detected(rep.rec.shape, rep.rec.assignment), std::vector<std::size_t>{});
        }
      }
      // A wrong sibling breaks only the final root equality.
      auto bad = proof;
      bad.siblings[0][0] += Fr::one();
      CheckingCS chk;
      por_circuit(chk, cs_case.shape, bad);
      ASSERT_FALSE(chk.is_satisfied());
      EXPECT_EQ(chk.first_failure()->name, "enforce root is correct");
      EXPECT_EQ(chk.first_failure()->row, cs_case.expected_rows - 1);
    }
  }
}

TEST(Por, BinarySha256TreeWithPreallocatedLeafAndRoot) {
  test::Rng rng(24);
  TreeShape shape{TreeHash::kSha256, 2, 3, 0, 0};
  std::vector<Fr> leaves;
  for (int i = 0; i < 8; ++i) leaves.push_back(rng.fr());
  NativeMerkleTree tree(shape, leaves);
  auto proof = tree.proof(5);
  auto rep = ctest::run_all_modes([&](auto& cs) {
    AllocatedNum leaf = alloc_num(cs, proof.leaf), root = alloc_num(cs, proof.root);
    por_circuit(cs, shape, proof, &leaf, &root);
  });
  EXPECT_EQ(ctest::circuit_rows(rep), 3 * 45382u + 2);
  EXPECT_EQ(rep.rec.assignment[1], Fr::from_u64(5));
}

TEST(UInt64, AllocAndPackIntoInput) {
  std::uint64_t v = 0xfedcba9876543210ULL;
  UInt64 x;
  auto rep = ctest::run_all_modes([&](auto& cs) {
    x = uint64_alloc(cs, v);
    uint64_pack_into_input(cs, x);
  });
  EXPECT_EQ(ctest::circuit_rows(rep), 65u);
  ASSERT_EQ(rep.rec.shape.num_inputs, 2u);
  math::Fr::Repr r{v, 0, 0, 0};
  EXPECT_EQ(rep.rec.assignment[1], *Fr::from_canonical(r));
  auto be = x.to_bits_be();
  EXPECT_EQ(UInt64::from_bits_be(be).value, v);
  EXPECT_EQ(UInt64::constant(v).value, v);
}

}  // namespace
