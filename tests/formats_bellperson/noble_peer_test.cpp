// End to end through the bellperson files, checked by an independent verifier: a test key is written
// as .params/.vk, read back, a proof is made with the CPU backend from the key READ FROM THE FILE, and
// tests/peers/noble_verify_bellperson.mjs (@noble/curves only) verifies it against the .vk bytes.
// Skipped when node or node_modules/@noble/curves is not available.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bp_test_util.hpp"
#include "formats/bellperson/params.hpp"
#include "formats/bellperson/writer.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/verifier.hpp"

namespace cuzk {
namespace {

namespace bp = formats::bellperson;
using namespace test_bp;

const std::string kRepo = CUZK_SOURCE_DIR;

bool noble_available() {
  static const bool ok = std::system("node --version > /dev/null 2>&1") == 0 &&
                         std::filesystem::exists(kRepo + "/node_modules/@noble/curves/bls12-381.js");
  return ok;
}

struct NodeResult {
  int exit_code = -1;
  std::string output;
};

NodeResult run_noble(const std::string& vk, const std::string& proof, const std::string& inputs, const TempDir& dir) {
  const std::string out = dir.file("noble.out");
  std::string cmd = "node '" + kRepo + "/tests/peers/noble_verify_bellperson.mjs' '" + vk + "' '" + proof + "' '" +
                    inputs + "' > '" + out + "' 2>&1";
  int st = std::system(cmd.c_str());
  NodeResult r;
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  r.output = ss.str();
  return r;
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string inputs_json(const std::vector<math::Fr>& xs) {
  std::string s = "[";
  for (std::size_t i = 0; i < xs.size(); ++i) s += (i ? ",\"" : "\"") + xs[i].to_decimal() + "\"";
  return s + "]";
}

void write_bytes(const std::string& path, std::span<const std::uint8_t> b) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

groth16::Proof prove(const Circuit& c, const groth16::ProvingKey& pk, std::uint64_t seed) {
  auto backend = groth16::make_cpu_backend();
  auto pending = backend->start(c.shape, c.witness, pk);
  EXPECT_TRUE(pending.ok()) << pending.error();
  groth16::ProofRandomness rs{math::Fr::from_u64(seed * 1000 + 17), math::Fr::from_u64(seed * 7 + 5)};
  return groth16::finish(*pending, pk, rs);
}

TEST(BellpersonNoble, ProofFromParamsFileVerifiesWithNoble) {
  if (!noble_available()) GTEST_SKIP() << "node or @noble/curves not available";
  TempDir dir;
  Circuit c = small_circuit(3);
  groth16::ProvingKey generated = make_key(c.shape, 31);
  ASSERT_TRUE(bp::write_params(dir.file("small.params"), generated).ok());
  ASSERT_TRUE(bp::write_vk(dir.file("small.vk"), generated.vk).ok());

  // Prove with the key as read back from the .params file.
  auto file = bp::ParamsFile::open(dir.file("small.params"));
  ASSERT_TRUE(file.ok()) << file.error();
  auto pk = bp::assemble_proving_key(*file, c.shape);
  ASSERT_TRUE(pk.ok()) << pk.error();
  groth16::Proof proof = prove(c, *pk, 1);
  auto proof_bytes = proof.to_bytes();
  write_bytes(dir.file("proof.bin"), proof_bytes);
  write_text(dir.file("inputs.json"), inputs_json(c.public_inputs()));

  // cuzk's own verifier agrees.
  auto ok = groth16::verify(file->vk(), c.public_inputs(), proof);
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_TRUE(*ok);

  auto r = run_noble(dir.file("small.vk"), dir.file("proof.bin"), dir.file("inputs.json"), dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("noble: OK"), std::string::npos) << r.output;
  // The .params file carries the same vk prefix.
  r = run_noble(dir.file("small.params"), dir.file("proof.bin"), dir.file("inputs.json"), dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;

  // A wrong public input: invalid (exit 1).
  auto wrong = c.public_inputs();
  wrong[1] += math::Fr::one();
  write_text(dir.file("wrong.json"), inputs_json(wrong));
  r = run_noble(dir.file("small.vk"), dir.file("proof.bin"), dir.file("wrong.json"), dir);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("noble: INVALID"), std::string::npos) << r.output;

  // A corrupted proof point: invalid.
  auto bad = proof_bytes;
  bad[150] ^= 0x01;  // C.x
  write_bytes(dir.file("bad.bin"), bad);
  r = run_noble(dir.file("small.vk"), dir.file("bad.bin"), dir.file("inputs.json"), dir);
  EXPECT_EQ(r.exit_code, 1) << r.output;

  // Malformed: a truncated proof, a wrong number of inputs, a vk point off the curve.
  write_bytes(dir.file("short.bin"), std::span<const std::uint8_t>(proof_bytes.data(), 191));
  r = run_noble(dir.file("small.vk"), dir.file("short.bin"), dir.file("inputs.json"), dir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("noble: MALFORMED"), std::string::npos) << r.output;
  write_text(dir.file("one.json"), "[\"3\"]");
  r = run_noble(dir.file("small.vk"), dir.file("proof.bin"), dir.file("one.json"), dir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  auto vk_bytes = bp::encode_vk(generated.vk).value();
  vk_bytes[95] ^= 1;
  write_bytes(dir.file("bad.vk"), vk_bytes);
  r = run_noble(dir.file("bad.vk"), dir.file("proof.bin"), dir.file("inputs.json"), dir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST(BellpersonNoble, MultiPartitionProof) {
  if (!noble_available()) GTEST_SKIP() << "node or @noble/curves not available";
  TempDir dir;
  Circuit c3 = small_circuit(3), c4 = small_circuit(4);
  groth16::ProvingKey pk = make_key(c3.shape, 32);
  ASSERT_TRUE(bp::write_vk(dir.file("k.vk"), pk.vk).ok());
  std::vector<groth16::Proof> proofs = {prove(c3, pk, 2), prove(c4, pk, 3)};
  auto bytes = groth16::concat_proofs(proofs);
  ASSERT_EQ(bytes.size(), 384u);
  write_bytes(dir.file("proof.bin"), bytes);
  write_text(dir.file("inputs.json"),
             "[" + inputs_json(c3.public_inputs()) + "," + inputs_json(c4.public_inputs()) + "]");
  auto r = run_noble(dir.file("k.vk"), dir.file("proof.bin"), dir.file("inputs.json"), dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // Partitions' inputs swapped: the first partition fails.
  write_text(dir.file("swapped.json"),
             "[" + inputs_json(c4.public_inputs()) + "," + inputs_json(c3.public_inputs()) + "]");
  r = run_noble(dir.file("k.vk"), dir.file("proof.bin"), dir.file("swapped.json"), dir);
  EXPECT_EQ(r.exit_code, 1) << r.output;
}

}  // namespace
}  // namespace cuzk
