// Interop with the real snarkjs (node_modules/.bin/snarkjs, 0.7.6): zkeys written by write_zkey
// must be accepted by `snarkjs zkey export verificationkey` and `snarkjs groth16 prove`, and the
// proofs must verify. Skipped when node or snarkjs is not installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "fixtures.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/snarkjs_r1cs.hpp"
#include "formats/snarkjs_wtns.hpp"
#include "formats/snarkjs_zkey.hpp"
#include "groth16/test_setup.hpp"
#include "math/pairing/pairing.hpp"

namespace cuzk::formats::test {
namespace {

std::string snarkjs_bin() { return std::string(CUZK_SOURCE_DIR) + "/node_modules/.bin/snarkjs"; }

bool have_snarkjs() {
  return std::filesystem::exists(snarkjs_bin()) && std::system("node --version >/dev/null 2>&1") == 0;
}

// Runs snarkjs with arguments; returns its combined output, or "" with a test failure on non-zero exit.
std::string snarkjs(const std::string& args, bool expect_ok = true) {
  std::string log = scratch("snarkjs.log");
  std::string cmd = "'" + snarkjs_bin() + "' " + args + " >'" + log + "' 2>&1";
  int rc = std::system(cmd.c_str());
  std::string out = text_of(log);
  if (expect_ok) {
    EXPECT_EQ(rc, 0) << cmd << "\n" << out;
  }
  return out;
}

bool holds(const groth16::VerifyingKey& vk, const groth16::Proof& p, std::span<const math::Fr> pub) {
  if (pub.size() + 1 != vk.ic.size()) return false;
  math::G1Jacobian acc = math::G1Jacobian::from_affine(vk.ic[0]);
  for (std::size_t i = 0; i < pub.size(); ++i) acc += math::G1Jacobian::from_affine(vk.ic[i + 1]).mul(pub[i]);
  std::pair<math::G1Affine, math::G2Affine> pairs[] = {
      {-p.a, p.b}, {vk.alpha_g1, vk.beta_g2}, {acc.to_affine(), vk.gamma_g2}, {p.c, vk.delta_g2}};
  return math::pairing_product_is_one(pairs);
}

void expect_snarkjs_proves_and_verifies(const std::string& zkey, const std::string& wtns, const std::string& tag,
                                        const groth16::VerifyingKey& expected_vk) {
  std::string vk = scratch(tag + "_vk.json"), proof = scratch(tag + "_proof.json"), pub = scratch(tag + "_public.json");
  snarkjs("zkey export verificationkey '" + zkey + "' '" + vk + "'");
  snarkjs("groth16 prove '" + zkey + "' '" + wtns + "' '" + proof + "' '" + pub + "'");
  std::string out = snarkjs("groth16 verify '" + vk + "' '" + pub + "' '" + proof + "'");
  EXPECT_NE(out.find("OK!"), std::string::npos) << out;

  // snarkjs' exported vk is the key we wrote, and equals our own JSON export byte for byte.
  auto vkj = read_verification_key_json(vk);
  ASSERT_TRUE(vkj.ok()) << vkj.error();
  EXPECT_TRUE(vkj->vk.alpha_g1 == expected_vk.alpha_g1);
  EXPECT_TRUE(vkj->vk.beta_g2 == expected_vk.beta_g2);
  EXPECT_TRUE(vkj->vk.gamma_g2 == expected_vk.gamma_g2);
  EXPECT_TRUE(vkj->vk.delta_g2 == expected_vk.delta_g2);
  EXPECT_TRUE(vkj->vk.ic == expected_vk.ic);
  EXPECT_EQ(verification_key_to_json(expected_vk), text_of(vk));
  // snarkjs' proof parses and satisfies the pairing equation under our key.
  auto p = read_proof_json(proof);
  auto u = read_public_json(pub);
  ASSERT_TRUE(p.ok()) << p.error();
  ASSERT_TRUE(u.ok()) << u.error();
  EXPECT_TRUE(holds(expected_vk, *p, *u));
  EXPECT_EQ(proof_to_json(*p), text_of(proof));
  EXPECT_EQ(public_to_json(*u), text_of(pub));
}

TEST(SnarkjsInterop, ProvesWithARoundTrippedFixtureZkey) {
  if (!have_snarkjs()) GTEST_SKIP() << "node/snarkjs not installed";
  const std::string c = "multi_public";
  auto z = read_zkey(zkey_path(c));
  ASSERT_TRUE(z.ok()) << z.error();
  std::string p = scratch("interop_rt.zkey");
  ASSERT_TRUE(write_zkey(p, z->pk, z->shape).ok());
  expect_snarkjs_proves_and_verifies(p, fixture(c, "witness.wtns"), "rt", z->pk.vk);
}

// The intended workflow for benchmark keys: our test setup makes a snarkjs-layout key, write_zkey
// stores it, and snarkjs proves with it (and cuzk can prove with the very same file).
TEST(SnarkjsInterop, ProvesWithAKeyFromOurTestSetup) {
  if (!have_snarkjs()) GTEST_SKIP() << "node/snarkjs not installed";
  for (const std::string c : {"mulchain"}) {
    SCOPED_TRACE(c);
    auto r = read_r1cs(r1cs_path(c));
    auto w = read_wtns(fixture(c, "witness.wtns"));
    ASSERT_TRUE(r.ok() && w.ok());
    auto shape = r->shape;
    shape.append_input_rows();
    auto pk = groth16::generate_test_key(shape, groth16::HBasis::kOddCosetLagrange, groth16::ToxicWaste::from_seed(7));
    ASSERT_TRUE(pk.ok()) << pk.error();
    std::string zk = scratch(c + "_ours.zkey"), wt = scratch(c + "_ours.wtns");
    auto st = write_zkey(zk, *pk, shape);
    ASSERT_TRUE(st.ok()) << st.error();
    ASSERT_TRUE(write_wtns(wt, *w).ok());
    expect_snarkjs_proves_and_verifies(zk, wt, c + "_ours", pk->vk);
    // and our reader gets the same key back
    auto back = read_zkey(zk);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_TRUE(back->pk.a == pk->a);
    EXPECT_TRUE(back->pk.b_g2 == pk->b_g2);
    EXPECT_TRUE(back->pk.h == pk->h);
    EXPECT_TRUE(back->pk.l == pk->l);
  }
}

}  // namespace
}  // namespace cuzk::formats::test
