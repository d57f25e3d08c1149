#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "circuit/gadgets/boolean.hpp"
#include "circuit/gadgets/num.hpp"
#include "circuit/shape_io.hpp"
#include "circuit_test_util.hpp"

using namespace cuzk;
using namespace cuzk::circuit;
using math::Fr;

namespace {

Fr f(std::uint64_t x) { return Fr::from_u64(x); }

TEST(LinearCombination, MergesDuplicatesLikeBellpepper) {
  LinearCombination lc;
  // bellpepper lc.rs test_add_simplify: i+1 additions of Aux(i) give one term with coefficient i+1.
  for (std::uint32_t i = 0; i < 5; ++i) {
    for (std::uint32_t k = 0; k <= i; ++k) lc.add(Var::aux(i));
  }
  ASSERT_EQ(lc.size(), 5u);
  for (std::uint32_t i = 0; i < 5; ++i) EXPECT_EQ(lc.terms()[i].second, f(i + 1));
  // Inputs sort before aux; merging an LC adds coefficients term by term.
  LinearCombination other(Var::aux(2), f(10));
  other.add(Var::one(), f(7)).sub(Var::aux(4), f(5));
  lc.add(other, f(2));
  ASSERT_EQ(lc.size(), 6u);
  EXPECT_EQ(lc.terms()[0].first, Var::one().raw);
  EXPECT_EQ(lc.terms()[0].second, f(14));
  EXPECT_EQ(lc.terms()[3].second, f(3 + 20));
  EXPECT_EQ(lc.terms()[5].second, f(5) - f(10));
  // x + y - x keeps a zero term (bellpepper keeps it; it is dropped when the row is stored).
  LinearCombination z = LinearCombination(Var::aux(9)) + Var::aux(3) - Var::aux(9);
  ASSERT_EQ(z.size(), 2u);
  EXPECT_TRUE(z.terms()[1].second.is_zero());
}

// Inputs and aux interleave during synthesis; the recorder renumbers to (ONE, inputs, aux).
auto interleaved_circuit(std::uint64_t x_val) {
  return [x_val](auto& cs) {
    using LC = typename std::remove_reference_t<decltype(cs)>::LC;
    AllocatedNum x = alloc_num(cs, f(x_val));                               // aux 0
    inputize(cs, x);                                                        // input 1, row 0
    AllocatedNum y = num_square(cs, x);                                     // aux 1, row 1
    AllocatedNum z = alloc_input_num(cs, y.value + x.value);                // input 2
    cs.enforce("z = x + y", LC(x.var) + y.var, LC(Var::one()), LC(z.var));  // row 2
    auto b = alloc_bit(cs, x_val & 1);                                      // aux 2 (binary), row 3
    (void)b;
  };
}

TEST(ShapeRecorder, RemapsInterleavedInputsAndAppendsInputRows) {
  auto r = ctest::run_all_modes(interleaved_circuit(6));
  const auto& s = r.rec.shape;
  EXPECT_EQ(s.num_inputs, 3u);
  EXPECT_EQ(s.num_aux, 3u);
  ASSERT_EQ(s.num_constraints(), 4u + 3u);
  // row 0: input(x)·ONE = x  → A col 1 (input 1), C col 3 (aux 0 = 3 + 0)
  EXPECT_EQ(s.a.cols[s.a.row_ptr[0]], 1u);
  EXPECT_EQ(s.c.cols[s.c.row_ptr[0]], 3u);
  // the last three rows are x_i·0 = 0 for i = 0, 1, 2
  for (std::uint32_t i = 0; i < 3; ++i) {
    std::size_t row = 4 + i;
    ASSERT_EQ(s.a.row_ptr[row + 1] - s.a.row_ptr[row], 1u);
    EXPECT_EQ(s.a.cols[s.a.row_ptr[row]], i);
    EXPECT_EQ(s.b.row_ptr[row + 1], s.b.row_ptr[row]);
  }
  std::vector<Fr> expect = {Fr::one(), f(6), f(42), f(6), f(36), Fr::zero()};
  EXPECT_EQ(r.rec.assignment, expect);
  // Witness keeps the boolean as a bit, the others as Fr.
  EXPECT_EQ(r.wit.num_binary(), 1u);
  EXPECT_EQ(r.wit.values.size(), 2u);
  // Densities: A touches every input (input rows) and aux 0,1 (x, x in the square row) and 2 (1-b);
  // B touches ONE (rows 0, 2), x (square) and b.
  EXPECT_EQ(r.rec.densities.a_aux_count, 3u);
  EXPECT_EQ(r.rec.densities.b_input_count, 1u);
  EXPECT_EQ(r.rec.densities.b_aux_count, 2u);
}

TEST(CheckingCS, NamesFirstUnsatisfiedRowWithNamespace) {
  auto circuit = [](auto& cs) {
    auto g = cs.ns("outer");
    AllocatedNum a = alloc_num(cs, f(3));
    {
      auto g2 = cs.ns(Name("inner", 7));
      num_square(cs, a);
    }
    auto g3 = cs.ns(Name("bits", 1, 2));
    alloc_bit(cs, true);
  };
  auto r = ctest::run_all_modes(circuit);
  // Tamper the square (aux 1): row 0 fails.
  auto fail = ctest::check_with_flipped_aux(circuit, r.rec.assignment, 1, 1);
  ASSERT_TRUE(fail.has_value());
  EXPECT_EQ(fail->row, 0u);
  EXPECT_EQ(fail->name, "outer/inner 7/squaring constraint");
  // Make the bit 2: the boolean constraint (row 1) fails.
  std::vector<Fr> in = {Fr::one()}, aux = {f(3), f(9), f(2)};
  CheckingCS chk(in, aux);
  circuit(chk);
  ASSERT_TRUE(chk.first_failure());
  EXPECT_EQ(chk.first_failure()->row, 1u);
  EXPECT_EQ(chk.first_failure()->name, "outer/bits 1, 2/boolean constraint");
  // A too-short override is reported, not read out of bounds.
  std::vector<Fr> short_aux = {f(3)};
  CheckingCS chk2(in, short_aux);
  circuit(chk2);
  EXPECT_TRUE(chk2.size_mismatch());
  EXPECT_FALSE(chk2.is_satisfied());
}

TEST(Witness, BitsetAndValuesInterleave) {
  Witness w;
  for (int i = 0; i < 200; ++i) {
    if (i % 3 == 0) w.push_value(f(1000 + std::uint64_t(i)));
    else w.push_bit(i % 2);
  }
  auto aux = w.aux_assignment();
  ASSERT_EQ(aux.size(), 200u);
  for (int i = 0; i < 200; ++i) {
    Fr expect = i % 3 == 0 ? f(1000 + std::uint64_t(i)) : (i % 2 ? Fr::one() : Fr::zero());
    EXPECT_EQ(aux[std::size_t(i)], expect) << i;
  }
  EXPECT_EQ(w.num_binary(), 133u);
}

TEST(ShapeIo, RoundTripsAndRejectsCorruption) {
  auto r = ctest::run_all_modes([](auto& cs) {
    AllocatedNum a = alloc_num(cs, f(5));
    inputize(cs, a);
    auto bits = to_bits_le(cs, a);
    AllocatedNum b = num_mul(cs, a, a);
    inputize(cs, b);
  });
  const auto& s = r.rec.shape;
  auto bytes = serialize_shape(s);
  auto back = deserialize_shape(bytes);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->num_inputs, s.num_inputs);
  EXPECT_EQ(back->num_aux, s.num_aux);
  using MP = std::pair<const groth16::CsrMatrix*, const groth16::CsrMatrix*>;
  for (auto [x, y] : {MP{&s.a, &back->a}, MP{&s.b, &back->b}, MP{&s.c, &back->c}}) {
    EXPECT_EQ(x->row_ptr, y->row_ptr);
    EXPECT_EQ(x->cols, y->cols);
    EXPECT_EQ(x->values(), y->values());
  }
  // Every single-byte corruption is rejected (checksum, or a structural check before it).
  for (std::size_t k = 0; k < bytes.size(); k += 7) {
    auto bad = bytes;
    bad[k] ^= 0x20;
    EXPECT_FALSE(deserialize_shape(bad).ok()) << "byte " << k;
  }
  // Truncation and a future version are rejected with a reason.
  auto trunc = deserialize_shape(std::span(bytes.data(), bytes.size() - 9));
  EXPECT_FALSE(trunc.ok());
  auto v2 = bytes;
  v2[8] = 2;
  auto rv = deserialize_shape(v2);
  ASSERT_FALSE(rv.ok());
  EXPECT_NE(rv.error().find("version"), std::string::npos) << rv.error();
  // Through a file.
  auto path = (std::filesystem::temp_directory_path() / "cuzk_circuit_shape_test.r1cs").string();
  ASSERT_TRUE(save_shape(s, path).ok());
  auto loaded = load_shape(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->c.values(), s.c.values());
  EXPECT_FALSE(groth16::first_unsatisfied_row(*loaded, r.rec.assignment).has_value());
  std::filesystem::remove(path);
  EXPECT_FALSE(load_shape(path).ok());
}

}  // namespace
