// .zkey reader and writer against the snarkjs fixtures.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "fixtures.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/snarkjs_r1cs.hpp"
#include "formats/snarkjs_wtns.hpp"
#include "formats/snarkjs_zkey.hpp"

namespace cuzk::formats::test {
namespace {

using groth16::CsrMatrix;
using groth16::ProvingKey;
using math::Fr;

// Row r of m as (column, canonical value) pairs sorted by column: order-insensitive comparison.
std::vector<std::pair<std::uint32_t, std::string>> row_terms(const CsrMatrix& m, std::size_t r) {
  std::vector<std::pair<std::uint32_t, std::string>> t;
  for (std::uint64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) t.emplace_back(m.cols[k], m.val(k).to_decimal());
  std::sort(t.begin(), t.end());
  return t;
}

void expect_same_matrix(const CsrMatrix& x, const CsrMatrix& y, const char* what) {
  ASSERT_EQ(x.rows(), y.rows()) << what;
  EXPECT_EQ(x.nnz(), y.nnz()) << what;
  for (std::size_t r = 0; r < x.rows(); ++r) {
    ASSERT_EQ(row_terms(x, r), row_terms(y, r)) << what << " row " << r;
  }
}

void expect_same_key(const ProvingKey& a, const ProvingKey& b) {
  EXPECT_EQ(a.h_basis, b.h_basis);
  EXPECT_EQ(a.num_inputs, b.num_inputs);
  EXPECT_EQ(a.num_aux, b.num_aux);
  EXPECT_EQ(a.domain_log2, b.domain_log2);
  EXPECT_EQ(a.a_aux_density.bits, b.a_aux_density.bits);
  EXPECT_EQ(a.b_input_density.bits, b.b_input_density.bits);
  EXPECT_EQ(a.b_aux_density.bits, b.b_aux_density.bits);
  EXPECT_EQ(a.a_aux_density.popcount, b.a_aux_density.popcount);
  EXPECT_EQ(a.b_input_density.popcount, b.b_input_density.popcount);
  EXPECT_EQ(a.b_aux_density.popcount, b.b_aux_density.popcount);
  EXPECT_TRUE(a.h == b.h);
  EXPECT_TRUE(a.l == b.l);
  EXPECT_TRUE(a.a == b.a);
  EXPECT_TRUE(a.b_g1 == b.b_g1);
  EXPECT_TRUE(a.b_g2 == b.b_g2);
  EXPECT_TRUE(a.vk.alpha_g1 == b.vk.alpha_g1);
  EXPECT_TRUE(a.vk.beta_g1 == b.vk.beta_g1);
  EXPECT_TRUE(a.vk.beta_g2 == b.vk.beta_g2);
  EXPECT_TRUE(a.vk.gamma_g2 == b.vk.gamma_g2);
  EXPECT_TRUE(a.vk.delta_g1 == b.vk.delta_g1);
  EXPECT_TRUE(a.vk.delta_g2 == b.vk.delta_g2);
  EXPECT_TRUE(a.vk.ic == b.vk.ic);
}

class Zkey : public ::testing::TestWithParam<std::string> {};

TEST_P(Zkey, FactsMatchInfo) {
  const std::string c = GetParam();
  auto info = info_of(c);
  auto z = read_zkey(zkey_path(c));
  ASSERT_TRUE(z.ok()) << z.error();
  std::uint32_t n_public = info["nPublic"].get<std::uint32_t>();
  EXPECT_EQ(z->n_vars, info["nVars"].get<std::uint32_t>());
  EXPECT_EQ(z->n_public, n_public);
  EXPECT_EQ(z->domain_size, info["domainSize"].get<std::uint32_t>());
  EXPECT_EQ(z->n_constraints, info["nConstraints"].get<std::uint32_t>());
  EXPECT_EQ(z->n_coefficients, info["zkey"]["nCoefs"].get<std::uint64_t>());
  EXPECT_EQ(z->n_contributions, 1u);  // one `zkey contribute`
  EXPECT_TRUE(std::any_of(z->circuit_hash.begin(), z->circuit_hash.end(), [](auto b) { return b != 0; }));

  const ProvingKey& pk = z->pk;
  EXPECT_TRUE(pk.check_consistency().ok());
  EXPECT_EQ(pk.h_basis, groth16::HBasis::kOddCosetLagrange);
  EXPECT_EQ(pk.domain_size(), z->domain_size);
  EXPECT_EQ(pk.num_inputs, n_public + 1);
  EXPECT_EQ(pk.num_inputs + pk.num_aux, z->n_vars);
  EXPECT_EQ(pk.h.size(), z->domain_size);
  EXPECT_EQ(pk.l.size(), z->n_vars - n_public - 1);
  EXPECT_EQ(pk.vk.ic.size(), n_public + 1);
  // snarkjs never randomizes gamma: it is the G2 generator.
  EXPECT_TRUE(pk.vk.gamma_g2 == math::g2_generator());

  const auto& s = z->shape;
  EXPECT_FALSE(s.has_c);
  EXPECT_EQ(s.num_constraints(), std::size_t(z->n_constraints) + n_public + 1);
  EXPECT_LE(s.num_constraints(), z->domain_size);
  // The domain is the smallest power of two holding every row, as R1csShape computes it.
  EXPECT_EQ(s.domain_log2(), pk.domain_log2);
  EXPECT_EQ(s.a.nnz() + s.b.nnz(), z->n_coefficients);

  auto f = BinFile::open(zkey_path(c), "zkey", 1, 1);
  ASSERT_TRUE(f.ok());
  std::vector<std::uint32_t> order;
  for (const auto& sec : f->sections()) order.push_back(sec.id);
  EXPECT_EQ(order, info["zkey"]["sectionOrder"].get<std::vector<std::uint32_t>>());
}

TEST_P(Zkey, RowsEqualTheR1csWithInputRows) {
  const std::string c = GetParam();
  auto z = read_zkey(zkey_path(c));
  auto r = read_r1cs(r1cs_path(c));
  ASSERT_TRUE(z.ok()) << z.error();
  ASSERT_TRUE(r.ok()) << r.error();
  auto shape = r->shape;
  shape.append_input_rows();
  EXPECT_EQ(z->shape.num_inputs, shape.num_inputs);
  EXPECT_EQ(z->shape.num_aux, shape.num_aux);
  // This also pins the coefficient decoding (coef * R^2 -> coef): e.g. -1 must come back as r - 1.
  expect_same_matrix(z->shape.a, shape.a, "A");
  expect_same_matrix(z->shape.b, shape.b, "B");
  // Densities in the key follow the r1cs.
  auto a_d = groth16::variable_density(shape.a, shape.num_variables());
  auto b_d = groth16::variable_density(shape.b, shape.num_variables());
  EXPECT_EQ(z->pk.a_aux_density.bits, std::vector<bool>(a_d.begin() + shape.num_inputs, a_d.end()));
  EXPECT_EQ(z->pk.b_input_density.bits, std::vector<bool>(b_d.begin(), b_d.begin() + shape.num_inputs));
  EXPECT_EQ(z->pk.b_aux_density.bits, std::vector<bool>(b_d.begin() + shape.num_inputs, b_d.end()));
  // and the witness gives a = b*... consistent evaluations: A*B rows vanish on the input rows
  auto w = read_wtns(fixture(c, "witness.wtns"));
  ASSERT_TRUE(w.ok());
  auto ev = groth16::evaluate_rows(z->shape, *w);
  for (std::size_t s = 0; s < shape.num_inputs; ++s) {
    std::size_t row = z->n_constraints + s;
    EXPECT_EQ(ev.a[row], (*w)[s]);
    EXPECT_TRUE(ev.b[row].is_zero());
  }
}

TEST_P(Zkey, VerifyingKeyEqualsTheJson) {
  const std::string c = GetParam();
  auto z = read_zkey(zkey_path(c));
  auto j = read_verification_key_json(fixture(c, "verification_key.json"));
  ASSERT_TRUE(z.ok()) << z.error();
  ASSERT_TRUE(j.ok()) << j.error();
  EXPECT_EQ(j->n_public, z->n_public);
  EXPECT_TRUE(j->vk.alpha_g1 == z->pk.vk.alpha_g1);
  EXPECT_TRUE(j->vk.beta_g2 == z->pk.vk.beta_g2);
  EXPECT_TRUE(j->vk.gamma_g2 == z->pk.vk.gamma_g2);
  EXPECT_TRUE(j->vk.delta_g2 == z->pk.vk.delta_g2);
  EXPECT_TRUE(j->vk.ic == z->pk.vk.ic);
  ASSERT_TRUE(j->alphabeta_12.has_value());
  // Exporting the zkey's vk reproduces `snarkjs zkey export verificationkey` byte for byte.
  EXPECT_EQ(verification_key_to_json(z->pk.vk), text_of(fixture(c, "verification_key.json")));
}

TEST_P(Zkey, SubgroupCheckOptionAcceptsTheFixture) {
  const std::string c = GetParam();
  ZkeyReadOptions opt;
  opt.check_subgroup = true;
  auto z = read_zkey(zkey_path(c), opt);
  ASSERT_TRUE(z.ok()) << z.error();
}

TEST_P(Zkey, WriteReadRoundTrip) {
  const std::string c = GetParam();
  auto z = read_zkey(zkey_path(c));
  ASSERT_TRUE(z.ok()) << z.error();
  std::string p = scratch(c + "_rt.zkey");
  ZkeyWriteOptions wo;
  wo.circuit_hash = z->circuit_hash;
  auto st = write_zkey(p, z->pk, z->shape, wo);
  ASSERT_TRUE(st.ok()) << st.error();
  auto z2 = read_zkey(p);
  ASSERT_TRUE(z2.ok()) << z2.error();
  expect_same_key(z2->pk, z->pk);
  expect_same_matrix(z2->shape.a, z->shape.a, "A");
  expect_same_matrix(z2->shape.b, z->shape.b, "B");
  EXPECT_EQ(z2->n_vars, z->n_vars);
  EXPECT_EQ(z2->n_public, z->n_public);
  EXPECT_EQ(z2->domain_size, z->domain_size);
  EXPECT_EQ(z2->n_constraints, z->n_constraints);
  EXPECT_EQ(z2->n_coefficients, z->n_coefficients);
  EXPECT_EQ(z2->circuit_hash, z->circuit_hash);
  EXPECT_EQ(z2->n_contributions, 0u);

  // Every section but the contributions is byte-identical to snarkjs' file (section 4 too: snarkjs
  // writes each constraint's A terms, then its B terms, then the input rows, as we do).
  auto orig = split(bytes_of(zkey_path(c)), "zkey");
  auto ours = split(bytes_of(p), "zkey");
  ASSERT_EQ(ours.sections.size(), 10u);
  for (std::uint32_t id = 1; id <= 9; ++id) {
    ASSERT_NE(orig.find(id), nullptr);
    EXPECT_TRUE(orig.find(id)->payload == ours.find(id)->payload) << "section " << id;
  }
  for (std::uint32_t i = 0; i < 10; ++i) EXPECT_EQ(ours.sections[i].id, i + 1);

  // A second round trip is a fixed point, byte for byte.
  std::string p2 = scratch(c + "_rt2.zkey");
  ASSERT_TRUE(write_zkey(p2, z2->pk, z2->shape, wo).ok());
  EXPECT_EQ(bytes_of(p2), bytes_of(p));
}

TEST_P(Zkey, ShuffledSectionsParseTheSame) {
  const std::string c = GetParam();
  auto raw = split(bytes_of(zkey_path(c)), "zkey");
  std::reverse(raw.sections.begin(), raw.sections.end());
  std::rotate(raw.sections.begin(), raw.sections.begin() + 3, raw.sections.end());
  auto bytes = raw.join();
  auto a = parse_zkey(bytes, "shuffled.zkey");
  auto b = read_zkey(zkey_path(c));
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok());
  expect_same_key(a->pk, b->pk);
}

TEST_P(Zkey, WriterAcceptsAnR1csShapeWithC) {
  // The writer takes the .r1cs shape (has_c = true) with input rows appended just as well.
  const std::string c = GetParam();
  auto z = read_zkey(zkey_path(c));
  auto r = read_r1cs(r1cs_path(c));
  ASSERT_TRUE(z.ok() && r.ok());
  auto shape = r->shape;
  shape.append_input_rows();
  std::string p = scratch(c + "_from_r1cs.zkey");
  auto st = write_zkey(p, z->pk, shape);
  ASSERT_TRUE(st.ok()) << st.error();
  auto z2 = read_zkey(p);
  ASSERT_TRUE(z2.ok()) << z2.error();
  expect_same_key(z2->pk, z->pk);
}

INSTANTIATE_TEST_SUITE_P(Snarkjs, Zkey, ::testing::ValuesIn(circuits()), [](const auto& info) { return info.param; });

TEST(ZkeyWriter, RejectsMismatchedInputs) {
  auto z = read_zkey(zkey_path("multi_public"));
  ASSERT_TRUE(z.ok()) << z.error();
  std::string p = scratch("bad_write.zkey");

  auto pk = z->pk;
  pk.h_basis = groth16::HBasis::kMonomialOverZ;
  auto st = write_zkey(p, pk, z->shape);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("odd-coset"), std::string::npos) << st.error();
  EXPECT_FALSE(std::filesystem::exists(p));

  auto r = read_r1cs(r1cs_path("multi_public"));
  ASSERT_TRUE(r.ok());
  st = write_zkey(p, z->pk, r->shape);  // input rows not appended
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("input rows"), std::string::npos) << st.error();

  auto shape = z->shape;  // drop one aux variable's B terms: densities disagree
  std::size_t victim = shape.b.nnz();
  for (std::size_t k = 0; k < shape.b.nnz(); ++k) {
    if (shape.b.cols[k] >= shape.num_inputs) {
      victim = k;
      break;
    }
  }
  ASSERT_LT(victim, shape.b.nnz());
  std::uint32_t var = shape.b.cols[victim];
  for (std::size_t k = 0; k < shape.b.nnz(); ++k) {
    if (shape.b.cols[k] == var) shape.b.set_val(k, Fr::zero());
  }
  st = write_zkey(p, z->pk, shape);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("B density of variable " + std::to_string(var)), std::string::npos) << st.error();

  pk = z->pk;
  pk.l.pop_back();
  st = write_zkey(p, pk, z->shape);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().rfind(p + ": proving key: l has", 0), 0u) << st.error();
}

}  // namespace
}  // namespace cuzk::formats::test
