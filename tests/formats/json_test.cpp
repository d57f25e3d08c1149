// proof.json / public.json / verification_key.json against the snarkjs fixtures, and bad JSON.
#include <gtest/gtest.h>

#include <functional>

#include "fixtures.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/snarkjs_zkey.hpp"
#include "math/pairing/pairing.hpp"

namespace cuzk::formats::test {
namespace {

using nlohmann::ordered_json;

// snarkjs' verification equation: e(-A, B) e(alpha, beta) e(vk_x, gamma) e(C, delta) == 1.
bool groth16_holds(const groth16::VerifyingKey& vk, const groth16::Proof& p, std::span<const math::Fr> pub) {
  if (pub.size() + 1 != vk.ic.size()) return false;
  math::G1Jacobian acc = math::G1Jacobian::from_affine(vk.ic[0]);
  for (std::size_t i = 0; i < pub.size(); ++i) acc += math::G1Jacobian::from_affine(vk.ic[i + 1]).mul(pub[i]);
  std::pair<math::G1Affine, math::G2Affine> pairs[] = {
      {-p.a, p.b}, {vk.alpha_g1, vk.beta_g2}, {acc.to_affine(), vk.gamma_g2}, {p.c, vk.delta_g2}};
  return math::pairing_product_is_one(pairs);
}

class Json : public ::testing::TestWithParam<std::string> {};

TEST_P(Json, ProofJsonRoundTripsByteForByte) {
  const std::string c = GetParam();
  for (const char* f : {"proof.json", "proof_other.json"}) {
    SCOPED_TRACE(f);
    auto p = read_proof_json(fixture(c, f));
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(proof_to_json(*p), text_of(fixture(c, f)));
    std::string out = scratch(c + "_" + f);
    ASSERT_TRUE(write_proof_json(out, *p).ok());
    EXPECT_EQ(text_of(out), text_of(fixture(c, f)));
  }
}

TEST_P(Json, PublicJsonRoundTripsByteForByte) {
  const std::string c = GetParam();
  for (const char* f : {"public.json", "public_other.json"}) {
    auto v = read_public_json(fixture(c, f));
    ASSERT_TRUE(v.ok()) << v.error();
    EXPECT_EQ(public_to_json(*v), text_of(fixture(c, f)));
  }
}

TEST_P(Json, VerificationKeyRoundTripsByteForByte) {
  const std::string c = GetParam();
  auto vk = read_verification_key_json(fixture(c, "verification_key.json"));
  ASSERT_TRUE(vk.ok()) << vk.error();
  EXPECT_EQ(verification_key_to_json(vk->vk), text_of(fixture(c, "verification_key.json")));
  std::string out = scratch(c + "_vk.json");
  ASSERT_TRUE(write_verification_key_json(out, vk->vk).ok());
  EXPECT_EQ(text_of(out), text_of(fixture(c, "verification_key.json")));
}

TEST_P(Json, SnarkjsProofsVerifyAgainstTheParsedKeys) {
  const std::string c = GetParam();
  auto vk = read_verification_key_json(fixture(c, "verification_key.json"));
  auto z = read_zkey(zkey_path(c));
  ASSERT_TRUE(vk.ok() && z.ok());
  for (auto [pf, uf] : {std::pair{"proof.json", "public.json"}, std::pair{"proof_other.json", "public_other.json"}}) {
    auto p = read_proof_json(fixture(c, pf));
    auto u = read_public_json(fixture(c, uf));
    ASSERT_TRUE(p.ok() && u.ok());
    EXPECT_TRUE(groth16_holds(vk->vk, *p, *u)) << pf;
    EXPECT_TRUE(groth16_holds(z->pk.vk, *p, *u)) << pf;
  }
  // swapped public inputs fail
  auto p = read_proof_json(fixture(c, "proof.json"));
  auto u = read_public_json(fixture(c, "public_other.json"));
  ASSERT_TRUE(p.ok() && u.ok());
  EXPECT_FALSE(groth16_holds(vk->vk, *p, *u));
}

INSTANTIATE_TEST_SUITE_P(Snarkjs, Json, ::testing::ValuesIn(circuits()), [](const auto& info) { return info.param; });

// ---------------------------------------------------------------------------------------------------
// Bad JSON: each case edits the parsed fixture and expects an error mentioning `want` (the JSON path).

std::string proof_text() { return text_of(fixture("multi_public", "proof.json")); }
std::string vk_text() { return text_of(fixture("multi_public", "verification_key.json")); }

void expect_proof_error(const std::function<void(ordered_json&)>& edit, const std::string& want) {
  auto j = ordered_json::parse(proof_text());
  edit(j);
  auto r = parse_proof_json(j.dump(1), "proof.json");
  ASSERT_FALSE(r.ok()) << "accepted: " << want;
  EXPECT_EQ(r.error().rfind("proof.json: ", 0), 0u) << r.error();
  EXPECT_NE(r.error().find(want), std::string::npos) << r.error();
  EXPECT_EQ(r.error().find('\n'), std::string::npos) << r.error();
}

void expect_vk_error(const std::function<void(ordered_json&)>& edit, const std::string& want) {
  auto j = ordered_json::parse(vk_text());
  edit(j);
  auto r = parse_verification_key_json(j.dump(1), "verification_key.json");
  ASSERT_FALSE(r.ok()) << "accepted: " << want;
  EXPECT_EQ(r.error().rfind("verification_key.json: ", 0), 0u) << r.error();
  EXPECT_NE(r.error().find(want), std::string::npos) << r.error();
  EXPECT_EQ(r.error().find('\n'), std::string::npos) << r.error();
}

TEST(BadProofJson, Rejected) {
  const std::string q =
      "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559"
      "787";
  expect_proof_error([](auto& j) { j["pi_a"].erase(2); }, "pi_a: expected an array of 3 elements, got 2");
  expect_proof_error([](auto& j) { j["pi_a"].push_back("1"); }, "pi_a: expected an array of 3 elements, got 4");
  expect_proof_error([](auto& j) { j["pi_b"][1].erase(1); }, "pi_b[1]: expected an array of 2 elements, got 1");
  expect_proof_error([](auto& j) { j["pi_b"].erase(2); }, "pi_b: expected an array of 3");
  expect_proof_error([](auto& j) { j["pi_c"] = "x"; }, "pi_c: expected an array of 3");
  expect_proof_error([](auto& j) { j["pi_b"][1][0] = "12a"; }, "pi_b[1][0]: \"12a\" is not a decimal number below q");
  expect_proof_error([](auto& j) { j["pi_b"][1][0] = 5; }, "pi_b[1][0]: expected a decimal string");
  expect_proof_error([&](auto& j) { j["pi_a"][0] = q; }, "pi_a[0]:");
  expect_proof_error([](auto& j) { j["pi_a"][0] = ""; }, "pi_a[0]:");
  expect_proof_error([](auto& j) { j["pi_a"][0] = "-1"; }, "pi_a[0]:");
  expect_proof_error([](auto& j) { j["pi_a"][2] = "2"; }, "pi_a[2]: z must be \"1\"");
  expect_proof_error([](auto& j) { j["pi_b"][2] = ordered_json::array({"1", "1"}); }, "pi_b[2]: z must be");
  expect_proof_error(
      [](auto& j) {
        j["pi_c"] = ordered_json::array({"0", "1", "0"});
      },
      "pi_c: is the point at infinity");
  expect_proof_error(
      [](auto& j) {
        auto y = math::Fp::from_decimal(j["pi_a"][1].template get<std::string>());
        j["pi_a"][1] = (*y + math::Fp::one()).to_decimal();
      },
      "pi_a: point is not on the curve");
  expect_proof_error(
      [](auto& j) {
        auto y = math::Fp::from_decimal(j["pi_b"][1][1].template get<std::string>());
        j["pi_b"][1][1] = (*y + math::Fp::one()).to_decimal();
      },
      "pi_b: point is not on the curve");
  // (0, 2) is on y^2 = x^3 + 4 but has order 3: not in G1.
  expect_proof_error(
      [](auto& j) {
        j["pi_a"] = ordered_json::array({"0", "2", "1"});
      },
      "pi_a: point is not in the prime-order subgroup");
  expect_proof_error([](auto& j) { j["protocol"] = "plonk"; }, "protocol: is \"plonk\", expected \"groth16\"");
  expect_proof_error([](auto& j) { j["curve"] = "bn128"; }, "curve: is \"bn128\", expected \"bls12381\"");
  expect_proof_error([](auto& j) { j.erase("curve"); }, "curve: is missing");
  expect_proof_error([](auto& j) { j.erase("pi_b"); }, "pi_b: is missing");
  expect_proof_error([](auto& j) { j = ordered_json::array(); }, "expected a JSON object");
}

TEST(BadProofJson, EveryStrictPrefixIsRejected) {
  const std::string t = proof_text();
  for (std::size_t n = 0; n < t.size(); ++n) {
    auto r = parse_proof_json(std::string_view(t).substr(0, n), "proof.json");
    ASSERT_FALSE(r.ok()) << n;
    ASSERT_EQ(r.error().find('\n'), std::string::npos) << r.error();
  }
  auto r = parse_proof_json(t.substr(0, t.size() / 2), "proof.json");
  EXPECT_NE(r.error().find("proof.json: malformed JSON"), std::string::npos) << r.error();
  EXPECT_TRUE(parse_proof_json(t, "proof.json").ok());
  EXPECT_TRUE(parse_proof_json(t + "\n", "proof.json").ok());
}

TEST(BadPublicJson, Rejected) {
  std::string r_dec = "52435875175126190479447740508185965837690552500527637822603658699938581184513";
  auto bad = [](const std::string& text, const std::string& want) {
    auto r = parse_public_json(text, "public.json");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().find(want), std::string::npos) << r.error();
  };
  bad("[\"1\", \"" + r_dec + "\"]",
      "public.json: [1]: \"5243587517512619047944774050818596583769...\" is not a decimal "
      "number below r");
  bad("[\"1\", 2]", "public.json: [1]: expected a decimal string");
  bad("{\"a\": 1}", "public.json: expected an array");
  bad("[\"1\",", "public.json: malformed JSON");
  bad("", "public.json: malformed JSON");
  auto ok = parse_public_json("[]", "public.json");
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->empty());
  auto big =
      parse_public_json("[\"" + std::to_string(0) +
                            "\", \"52435875175126190479447740508185965837690552500527637822603658699938581184512\"]",
                        "public.json");
  ASSERT_TRUE(big.ok()) << big.error();
  EXPECT_EQ((*big)[1], -math::Fr::one());
}

TEST(BadVerificationKeyJson, Rejected) {
  expect_vk_error([](auto& j) { j["IC"].erase(0); }, "IC: has 8 points, expected nPublic + 1 = 9");
  expect_vk_error([](auto& j) { j["nPublic"] = "8"; }, "nPublic: expected a non-negative integer");
  expect_vk_error([](auto& j) { j["nPublic"] = -1; }, "nPublic: expected a non-negative integer");
  expect_vk_error([](auto& j) { j["protocol"] = "fflonk"; }, "protocol: is \"fflonk\"");
  expect_vk_error([](auto& j) { j["curve"] = "bn128"; }, "curve: is \"bn128\"");
  expect_vk_error([](auto& j) { j["IC"][3][1] = "7"; }, "IC[3]: point is not on the curve");
  expect_vk_error([](auto& j) { j["IC"][3] = ordered_json::array({"1", "2"}); }, "IC[3]: expected an array of 3");
  expect_vk_error([](auto& j) { j["vk_gamma_2"][0][1] = "x"; }, "vk_gamma_2[0][1]:");
  expect_vk_error(
      [](auto& j) {
        j["vk_delta_2"][2] = ordered_json::array({"1", "0", "0"});
      },
      "vk_delta_2[2]: expected an array of 2");
  expect_vk_error([](auto& j) { j["vk_alphabeta_12"][1][2][0] = "5"; },
                  "vk_alphabeta_12: does not equal e(vk_alpha_1, vk_beta_2)");
  expect_vk_error([](auto& j) { j["vk_alphabeta_12"][1].erase(2); }, "vk_alphabeta_12[1]: expected an array of 3");
  expect_vk_error([](auto& j) { j.erase("vk_beta_2"); }, "vk_beta_2: is missing");
  expect_vk_error(
      [](auto& j) {
        j["vk_alpha_1"] = ordered_json::array({"0", "1", "0"});
      },
      "vk_alpha_1: is the point at infinity");
  // vk_alphabeta_12 is optional on input (snarkjs' verifier does not read it).
  auto j = ordered_json::parse(vk_text());
  j.erase("vk_alphabeta_12");
  auto r = parse_verification_key_json(j.dump(1), "verification_key.json");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_FALSE(r->alphabeta_12.has_value());
  // An identity IC entry is representable ([0, 1, 0]) and round-trips.
  auto vk = r->vk;
  vk.ic[2] = math::G1Affine::identity();
  auto back = parse_verification_key_json(verification_key_to_json(vk), "vk.json");
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_TRUE(back->vk.ic[2].is_identity());
}

TEST(BadVerificationKeyJson, EveryStrictPrefixIsRejected) {
  const std::string t = vk_text();
  for (std::size_t n = 0; n < t.size(); n += 7) {
    auto r = parse_verification_key_json(std::string_view(t).substr(0, n), "verification_key.json");
    ASSERT_FALSE(r.ok()) << n;
  }
}

TEST(JsonFiles, MissingFileNamesThePath) {
  auto r = read_proof_json("/nonexistent/dir/proof.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().rfind("/nonexistent/dir/proof.json: cannot open", 0), 0u) << r.error();
}

}  // namespace
}  // namespace cuzk::formats::test
