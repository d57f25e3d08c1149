// Known answers from @noble/curves 2.4.0 (tests/fixtures/noble/vectors.json, made by
// tests/peers/noble_vectors.mjs): field arithmetic, scalar multiplication, encodings, point
// addition and MSM, each compared exactly.
#include <gtest/gtest.h>

#include "../common/hex.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "math/ec/encoding.hpp"
#include "math/ff/fp2.hpp"
#include "math/msm/msm.hpp"

using namespace cuzk::math;
using nlohmann::json;

namespace {

const json& vectors() {
  static const json v = [] {
    std::ifstream in(std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/noble/vectors.json");
    return json::parse(in);
  }();
  return v;
}

template <class F>
F field(const json& j) {
  auto v = F::from_hex(j.get<std::string>());
  EXPECT_TRUE(v.has_value()) << j;
  return v.value_or(F::zero());
}
Fp2 fp2(const json& j) { return {field<Fp>(j[0]), field<Fp>(j[1])}; }
using cuzk::test::hex;
using cuzk::test::unhex;

template <class F>
void check_field_cases(const json& cases, bool has_sqrt) {
  ASSERT_FALSE(cases.empty());
  for (const auto& c : cases) {
    F a = field<F>(c["a"]), b = field<F>(c["b"]);
    EXPECT_EQ((a + b).to_hex(), c["add"]);
    EXPECT_EQ((a - b).to_hex(), c["sub"]);
    EXPECT_EQ((a * b).to_hex(), c["mul"]);
    if (c["inv"].is_null()) {  // noble refuses to invert 0; ours maps it to 0
      EXPECT_TRUE(a.is_zero());
    } else {
      EXPECT_EQ(a.inverse().to_hex(), c["inv"]);
    }
    if (has_sqrt) {
      EXPECT_EQ(a.square().to_hex(), c["sqr"]);
      // noble returns either root (no sign rule); compare up to sign.
      F s = field<F>(c["sqrt"]);
      auto ours = a.square().sqrt();
      ASSERT_TRUE(ours);
      EXPECT_TRUE(*ours == s || *ours == -s);
    }
  }
}

TEST(NobleKat, Fp) {
  check_field_cases<Fp>(vectors()["fp"], true);
  check_field_cases<Fp>(vectors()["fp_edge"], true);
}
TEST(NobleKat, Fr) {
  check_field_cases<Fr>(vectors()["fr"], false);
  check_field_cases<Fr>(vectors()["fr_edge"], false);
}
TEST(NobleKat, Fp2) {
  for (const auto& c : vectors()["fp2"]) {
    Fp2 a = fp2(c["a"]), b = fp2(c["b"]);
    EXPECT_EQ(a * b, fp2(c["mul"]));
    EXPECT_EQ(a.square(), fp2(c["sqr"]));
    EXPECT_EQ(a.inverse(), fp2(c["inv"]));
  }
}

TEST(NobleKat, G1ScalarMulAndEncodings) {
  for (const auto& c : vectors()["g1"]) {
    Fr k = field<Fr>(c["k"]);
    G1Affine p = G1Jacobian::from_affine(g1_generator()).mul(k).to_affine();
    EXPECT_EQ(p.is_identity(), c["infinity"].get<bool>());
    EXPECT_EQ(hex(g1_to_compressed(p)), c["compressed"]);
    EXPECT_EQ(hex(g1_to_uncompressed(p)), c["uncompressed"]);
    if (!p.is_identity()) {
      EXPECT_EQ(p.x.to_hex(), c["x"]);
      EXPECT_EQ(p.y.to_hex(), c["y"]);
    }
    EXPECT_EQ(*g1_from_compressed(unhex(c["compressed"])), p);
    EXPECT_EQ(*g1_from_uncompressed(unhex(c["uncompressed"])), p);
  }
  for (const auto& c : vectors()["g1_add"]) {
    auto g = G1Jacobian::from_affine(g1_generator());
    EXPECT_EQ(hex(g1_to_compressed((g.mul(field<Fr>(c["p_k"])) + g.mul(field<Fr>(c["q_k"]))).to_affine())),
              c["sum_compressed"]);
  }
}

TEST(NobleKat, G2ScalarMulAndEncodings) {
  for (const auto& c : vectors()["g2"]) {
    Fr k = field<Fr>(c["k"]);
    G2Affine p = G2Jacobian::from_affine(g2_generator()).mul(k).to_affine();
    EXPECT_EQ(p.is_identity(), c["infinity"].get<bool>());
    EXPECT_EQ(hex(g2_to_compressed(p)), c["compressed"]);
    EXPECT_EQ(hex(g2_to_uncompressed(p)), c["uncompressed"]);
    if (!p.is_identity()) {
      EXPECT_EQ(p.x, fp2(c["x"]));
      EXPECT_EQ(p.y, fp2(c["y"]));
    }
    EXPECT_EQ(*g2_from_compressed(unhex(c["compressed"])), p);
    EXPECT_EQ(*g2_from_uncompressed(unhex(c["uncompressed"])), p);
  }
  for (const auto& c : vectors()["g2_add"]) {
    auto g = G2Jacobian::from_affine(g2_generator());
    EXPECT_EQ(hex(g2_to_compressed((g.mul(field<Fr>(c["p_k"])) + g.mul(field<Fr>(c["q_k"]))).to_affine())),
              c["sum_compressed"]);
  }
}

TEST(NobleKat, Msm) {
  for (const auto& c : vectors()["msm_g1"]) {
    std::vector<G1Affine> bases;
    std::vector<Fr> scalars;
    for (const auto& k : c["point_k"])
      bases.push_back(G1Jacobian::from_affine(g1_generator()).mul(field<Fr>(k)).to_affine());
    for (const auto& s : c["scalars"]) scalars.push_back(field<Fr>(s));
    EXPECT_EQ(hex(g1_to_compressed(msm_g1(bases, scalars).to_affine())), c["result_compressed"]);
  }
  for (const auto& c : vectors()["msm_g2"]) {
    std::vector<G2Affine> bases;
    std::vector<Fr> scalars;
    for (const auto& k : c["point_k"])
      bases.push_back(G2Jacobian::from_affine(g2_generator()).mul(field<Fr>(k)).to_affine());
    for (const auto& s : c["scalars"]) scalars.push_back(field<Fr>(s));
    EXPECT_EQ(hex(g2_to_compressed(msm_g2(bases, scalars).to_affine())), c["result_compressed"]);
  }
}

}  // namespace
