// The parallel QAP evaluation behind TEST-ONLY keys (setup_scalars.hpp) against a plain serial
// reference written from the definitions: L_r(tau) = w^r (tau^m - 1) / (m (tau - w^r)) with one
// inversion per row, u/v/w by a row loop, then every query point of generate_test_key compared with
// scalar * G. Both H bases; several thread counts (the column-range split must not matter).
#include <gtest/gtest.h>

#include "../common/random_shape.hpp"
#include "base/parallel.hpp"
#include "groth16/setup_scalars.hpp"
#include "groth16/snarkjs_domain.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk::groth16 {
namespace {

struct Reference {
  std::vector<Fr> ic, l, a, b, h;
};

Reference reference(const R1csShape& s, HBasis basis, const ToxicWaste& t) {
  const bool snarkjs = basis == HBasis::kOddCosetLagrange;
  const std::uint32_t log_m = s.domain_log2();
  const std::uint64_t m = std::uint64_t(1) << log_m;
  auto lag = [&](std::uint32_t log_n, std::uint64_t k) {
    const std::uint64_t n = std::uint64_t(1) << log_n;
    Fr wk = root_of_unity(log_n, snarkjs).pow(k);
    return wk * (t.tau.pow(n) - Fr::one()) * (Fr::from_u64(n) * (t.tau - wk)).inverse();
  };
  const std::size_t nv = s.num_variables();
  std::vector<Fr> u(nv), v(nv), w(nv);
  for (std::size_t r = 0; r < s.num_constraints(); ++r) {
    Fr L = lag(log_m, r);
    for (auto [mat, out] : {std::pair{&s.a, &u}, {&s.b, &v}, {&s.c, &w}}) {
      for (auto k = mat->row_ptr[r]; k < mat->row_ptr[r + 1]; ++k) (*out)[mat->cols[k]] += mat->val(k) * L;
    }
  }
  auto ad = variable_density(s.a, nv), bd = variable_density(s.b, nv);
  Reference ref;
  for (std::size_t i = 0; i < nv; ++i) {
    Fr k = t.beta * u[i] + t.alpha * v[i] + w[i];
    if (i < s.num_inputs) ref.ic.push_back(k * t.gamma.inverse());
    else ref.l.push_back(k * t.delta.inverse());
    if (i < s.num_inputs || ad[i]) ref.a.push_back(u[i]);
    if (bd[i]) ref.b.push_back(v[i]);
  }
  if (!snarkjs) {
    for (std::uint64_t i = 0; i + 1 < m; ++i)
      ref.h.push_back(t.tau.pow(i) * (t.tau.pow(m) - Fr::one()) * t.delta.inverse());
  } else {
    for (std::uint64_t i = 0; i < m; ++i) ref.h.push_back(lag(log_m + 1, 2 * i + 1) * t.delta.inverse());
  }
  return ref;
}

template <class Points>  // std::vector or HugeVector
void expect_points(const char* what, const Points& got, const std::vector<Fr>& ks) {
  using A = typename Points::value_type;
  ASSERT_EQ(got.size(), ks.size()) << what;
  for (std::size_t i = 0; i < ks.size(); ++i) {
    A want;
    if constexpr (std::is_same_v<A, math::G1Affine>)
      want = math::G1Jacobian::from_affine(math::g1_generator()).mul(ks[i]).to_affine();
    else want = math::G2Jacobian::from_affine(math::g2_generator()).mul(ks[i]).to_affine();
    ASSERT_TRUE(got[i] == want) << what << " " << i;
  }
}

class SetupScalarsTest : public ::testing::TestWithParam<HBasis> {};

TEST_P(SetupScalarsTest, KeyPointsMatchSerialReference) {
  auto shape = test::random_shape(120, 3, 100, 77);
  auto toxic = ToxicWaste::from_seed(5);
  auto ref = reference(shape, GetParam(), toxic);
  for (std::size_t threads : {1, 3, 8}) {
    auto pk = generate_test_key(shape, GetParam(), toxic, {.threads = threads});
    ASSERT_TRUE(pk.ok()) << pk.error();
    expect_points("ic", pk->vk.ic, ref.ic);
    expect_points("l", pk->l, ref.l);
    expect_points("a", pk->a, ref.a);
    expect_points("b_g1", pk->b_g1, ref.b);
    expect_points("b_g2", pk->b_g2, ref.b);
    expect_points("h", pk->h, ref.h);
    EXPECT_TRUE(pk->vk.alpha_g1 == math::G1Jacobian::from_affine(math::g1_generator()).mul(toxic.alpha).to_affine());
    EXPECT_TRUE(pk->vk.gamma_g2 == math::G2Jacobian::from_affine(math::g2_generator()).mul(toxic.gamma).to_affine());
  }
}

INSTANTIATE_TEST_SUITE_P(Bases, SetupScalarsTest, ::testing::Values(HBasis::kMonomialOverZ, HBasis::kOddCosetLagrange));

TEST(LagrangeRange, SlicesAgreeWithTheWholeRange) {
  Fr tau = Fr::from_u64(123456789);
  std::vector<Fr> all(5000), part(1234);
  ASSERT_TRUE(lagrange_range(tau, 13, false, 0, 5000, 1, 0, all.data(), 3).ok());
  ASSERT_TRUE(lagrange_range(tau, 13, false, 1000, 2234, 1, 0, part.data(), 2).ok());
  for (std::size_t j = 0; j < part.size(); ++j) ASSERT_EQ(part[j], all[1000 + j]) << j;
  // Sum of all Lagrange values of a domain is 1.
  std::vector<Fr> dom(1 << 10);
  ASSERT_TRUE(lagrange_range(tau, 10, true, 0, dom.size(), 1, 0, dom.data(), 4).ok());
  Fr sum = Fr::zero();
  for (auto& x : dom) sum += x;
  EXPECT_EQ(sum, Fr::one());
  // tau inside the domain is refused.
  auto st = lagrange_range(Fr::one(), 10, false, 0, 4, 1, 0, dom.data(), 1);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("root of unity"), std::string::npos);
}

}  // namespace
}  // namespace cuzk::groth16

namespace cuzk::groth16 {
namespace {

// variable_density on a matrix large enough for its per-thread bitmaps (> 2^22 entries, several
// threads): equal to the plain definition (a variable is dense when some entry with a nonzero
// coefficient names it), including a zero coefficient that must not count.
TEST(VariableDensity, ParallelBitmapsEqualTheDefinition) {
  CsrMatrix m;
  m.coeffs = {Fr::one(), Fr::zero(), Fr::from_u64(5)};
  const std::size_t nv = 300001, rows = 1u << 20;
  std::uint64_t x = 88172645463325252ULL;
  auto next = [&] { return x ^= x << 13, x ^= x >> 7, x ^= x << 17; };
  m.row_ptr.clear();
  m.row_ptr.push_back(0);
  for (std::size_t r = 0; r < rows; ++r) {
    for (int t = 0; t < 5; ++t) {
      const std::uint64_t h = next();
      m.cols.push_back(std::uint32_t(h % (nv / 2)) * 2);  // even variables only: the odd ones stay sparse
      m.coeff_ids.push_back(std::uint32_t((h >> 40) % 3));
    }
    m.row_ptr.push_back(m.cols.size());
  }
  m.cols.push_back(1);  // variable 1: only with the zero coefficient
  m.coeff_ids.push_back(1);
  m.row_ptr.back() = m.cols.size();
  std::vector<bool> want(nv, false);
  for (std::size_t k = 0; k < m.nnz(); ++k)
    if (!m.val(k).is_zero()) want[m.cols[k]] = true;
  for (std::size_t threads : {1, 3, 8}) {
    set_default_threads(threads);
    EXPECT_EQ(variable_density(m, nv), want) << threads;
  }
  set_default_threads(0);
  EXPECT_FALSE(want[1]);
}

}  // namespace
}  // namespace cuzk::groth16
