// PoSt test inputs (testkit/post_vanilla.hpp): 2 KiB sectors sealed by testkit::seal, written as
// `cuzk seal` writes them and loaded back, give vanilla proofs that pass post::check_vanilla_proofs
// for Winning (code 0), Window V1 (code 5, partitions 0 and 1) and V1_1 (code 10), and whose
// partition witness satisfies the recorded shape; SYNTHETIC TEST DATA sectors at 32 and 64 GiB pass
// the checks too (codes 3, 4, 8, 9), are deterministic, and round-trip through Curio's bincode.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "filecoin/common/vanilla_file.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/ids.hpp"
#include "filecoin/post/post_job.hpp"
#include "filecoin/post/shape.hpp"
#include "filecoin/post/vanilla.hpp"
#include "filecoin/post/vanilla_check.hpp"
#include "filecoin/testkit/post_vanilla.hpp"
#include "filecoin/testkit/seal.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::filecoin::testkit {
namespace {

const post::PostConfig& cfg(std::uint32_t code) { return **post::post_config_by_code(code); }

Bytes32 randomness(std::uint8_t v) {
  Bytes32 r;
  for (std::size_t i = 0; i < 32; ++i) r[i] = std::uint8_t(v + 17 * i);
  r[31] &= 0x3f;
  return r;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A 2 KiB sector sealed in memory and written as `cuzk seal` writes it (DIR/sealed, DIR/comm.json).
std::string seal_to_dir(std::uint64_t sector_id) {
  const auto& pcfg = porep::porep_config_by_name("StackedDrg2KiBV1_1");
  SealInputs in;
  in.prover_id = porep::prover_id_from_actor(1000);
  in.sector_id = sector_id;
  in.ticket.fill(0x11);
  in.ticket[31] = 0;
  in.seed.fill(0x22);
  in.seed[31] = 0;
  in.data = random_unpadded_data(pcfg, sector_id);
  const SealedSector s = seal(pcfg, in);
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("cuzk_post_vanilla_test_" + std::to_string(::getpid()) + "_" + std::to_string(sector_id)))
                              .string();
  std::filesystem::create_directories(dir);
  const auto replica = s.replica_bytes();
  write(dir + "/sealed", std::string(replica.begin(), replica.end()));
  write(dir + "/comm.json", "{\"registered_proof\": \"StackedDrg2KiBV1_1\", \"sector_size\": 2048, \"sector_id\": " +
                                std::to_string(sector_id) + ", \"comm_c\": \"" + bytes32_hex(s.comm_c) +
                                "\", \"comm_r_last\": \"" + bytes32_hex(s.comm_r_last) + "\", \"comm_r\": \"" +
                                bytes32_hex(s.comm_r) + "\"}\n");
  return dir;
}

class SealedPost : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { dirs_ = new std::vector<std::string>{seal_to_dir(3), seal_to_dir(9)}; }
  static void TearDownTestSuite() {
    for (const auto& d : *dirs_) std::filesystem::remove_all(d);
    delete dirs_;
  }
  static std::vector<PostSector> load(const post::PostConfig& c, std::size_t n) {
    std::vector<PostSector> out;
    for (std::size_t i = 0; i < n; ++i) {
      auto s = load_sealed_sector((*dirs_)[i], c);
      EXPECT_TRUE(s) << s.error();
      out.push_back(std::move(*s));
    }
    return out;
  }
  static std::vector<std::string>* dirs_;
};
std::vector<std::string>* SealedPost::dirs_ = nullptr;

// Vanilla proofs of `n` sealed sectors for partition k → checks pass, the bytes round-trip, and the
// partition witness satisfies every row of the recorded shape with the derived public inputs.
void prove_and_check(const post::PostConfig& c, const std::vector<PostSector>& sectors, std::uint32_t k,
                     const Bytes32& rand) {
  SCOPED_TRACE(c.name + " partition " + std::to_string(k));
  std::vector<post::FallbackPostSectorProof> proofs;
  for (std::size_t i = 0; i < sectors.size(); ++i) {
    const std::uint64_t sector_index = c.type == post::PostType::kWinning ? 0 : k * c.sector_count + i;
    proofs.push_back(post_vanilla_proof(c, sectors[i], rand, sector_index));
    const auto bytes = post::write_sector_proof(proofs.back());
    EXPECT_EQ(bytes.size(), post::expected_sector_proof_size(c));
    auto back = post::parse_sector_proof(bytes, c, i);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(post::write_sector_proof(*back), bytes);
  }
  auto checked = post::check_vanilla_proofs(c, rand, k, proofs);
  ASSERT_TRUE(checked) << checked.error();
  ASSERT_EQ(checked->size(), sectors.size());
  EXPECT_EQ((*checked)[0].pub.comm_r, sectors[0].comm_r);

  std::vector<post::PublicSector> pub;
  for (const auto& s : *checked) pub.push_back(s.pub);
  auto inputs = post::partition_public_inputs(c, rand, pub, k);
  ASSERT_TRUE(inputs) << inputs.error();
  const groth16::R1csShape shape = post::record_post_shape(c);
  auto w = post::synthesize_post_partition(c, *checked, shape, *inputs);
  ASSERT_TRUE(w) << w.error();
  const auto dense = w->assignment();
  ASSERT_EQ(dense.size(), shape.num_variables());
  EXPECT_FALSE(groth16::first_unsatisfied_row(shape, dense).has_value());
  for (std::size_t j = 0; j < inputs->size(); ++j) EXPECT_EQ(dense[1 + j], (*inputs)[j]) << "input " << j;
}

TEST_F(SealedPost, LoadsWhatCuzkSealWrites) {
  auto s = load_sealed_sector((*dirs_)[0], cfg(5));
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->sector_id, 3u);
  EXPECT_EQ(fr_to_bytes(s->tree_r.root()), s->comm_r_last);
  // The sector size is the registered proof's.
  auto wrong = load_sealed_sector((*dirs_)[0], cfg(6));
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().find("StackedDrgWindow8MiBV1 proves sectors of 8388608"), std::string::npos) << wrong.error();
  // A replica that is not the committed one.
  const std::string dir = (*dirs_)[1] + "_bad";
  std::filesystem::copy((*dirs_)[1], dir, std::filesystem::copy_options::recursive);
  {
    std::fstream f(dir + "/sealed", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(64);
    f.put(char(5));
  }
  auto bad = load_sealed_sector(dir, cfg(5));
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("differs from comm.json's comm_r_last"), std::string::npos) << bad.error();
  EXPECT_FALSE(load_sealed_sector("/nonexistent/dir", cfg(5)));
}

TEST_F(SealedPost, WinningCode0) { prove_and_check(cfg(0), load(cfg(0), 1), 0, randomness(1)); }

TEST_F(SealedPost, WindowV1Code5Partitions0And1) {
  const auto sectors = load(cfg(5), 2);
  prove_and_check(cfg(5), sectors, 0, randomness(2));
  prove_and_check(cfg(5), sectors, 1, randomness(2));
  // V1 challenges depend on the partition: partition 1's proofs are not partition 0's.
  std::vector<post::FallbackPostSectorProof> p1;
  for (std::size_t i = 0; i < 2; ++i) p1.push_back(post_vanilla_proof(cfg(5), sectors[i], randomness(2), 2 + i));
  auto r = post::check_vanilla_proofs(cfg(5), randomness(2), 0, p1);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("the proof opens leaf"), std::string::npos) << r.error();
}

TEST_F(SealedPost, WindowV1_1Code10) {
  const auto sectors = load(cfg(10), 2);
  prove_and_check(cfg(10), sectors, 0, randomness(3));
  // V1_2 rule: the challenges do not depend on the sector index.
  EXPECT_EQ(post::write_sector_proof(post_vanilla_proof(cfg(10), sectors[1], randomness(3), 1)),
            post::write_sector_proof(post_vanilla_proof(cfg(10), sectors[1], randomness(3), 7)));
}

// ---- SYNTHETIC TEST DATA sectors.

void synthetic_checks(std::uint32_t code, std::size_t count, std::uint32_t partition) {
  const post::PostConfig& c = cfg(code);
  SCOPED_TRACE(c.name);
  const Bytes32 rand = randomness(std::uint8_t(code));
  const auto proofs = synthetic_post_vanilla(c, count, rand, partition, 100, 7);
  ASSERT_EQ(proofs.size(), count);
  EXPECT_EQ(proofs.back().sector_id, 100 + count - 1);
  auto checked = post::check_vanilla_proofs(c, rand, partition, proofs);
  ASSERT_TRUE(checked) << checked.error();
  for (std::size_t i = 0; i < count; ++i) {
    const auto bytes = post::write_sector_proof(proofs[i]);
    EXPECT_EQ(bytes.size(), post::expected_sector_proof_size(c));
    EXPECT_TRUE(post::parse_sector_proof(bytes, c, i));
  }
  // Deterministic in the seed; another seed gives other sectors.
  const auto again = synthetic_post_vanilla(c, count, rand, partition, 100, 7);
  EXPECT_EQ(post::write_sector_proof(again[0]), post::write_sector_proof(proofs[0]));
  const auto other = synthetic_post_vanilla(c, 1, rand, partition, 100, 8);
  EXPECT_NE(other[0].comm_r, proofs[0].comm_r);
}

TEST(SyntheticPost, WinningCode3And4) {
  synthetic_checks(3, 1, 0);
  synthetic_checks(4, 1, 0);
}
TEST(SyntheticPost, WindowCode8AHandfulOfSectors) { synthetic_checks(8, 5, 2); }
TEST(SyntheticPost, WindowCode9) { synthetic_checks(9, 3, 0); }

// A synthetic 2 KiB partition's witness satisfies the shape as a sealed one does (codes 5 and 0).
TEST(SyntheticPost, TestSizeWitnessSatisfiesTheShape) {
  for (std::uint32_t code : {5u, 0u}) {
    const post::PostConfig& c = cfg(code);
    SCOPED_TRACE(c.name);
    const Bytes32 rand = randomness(9);
    const std::size_t n = code == 5 ? 2 : 1;
    const auto proofs = synthetic_post_vanilla(c, n, rand, 0, 1, 3);
    auto checked = post::check_vanilla_proofs(c, rand, 0, proofs);
    ASSERT_TRUE(checked) << checked.error();
    std::vector<post::PublicSector> pub;
    for (const auto& s : *checked) pub.push_back(s.pub);
    auto inputs = post::partition_public_inputs(c, rand, pub, 0);
    ASSERT_TRUE(inputs);
    const auto shape = post::record_post_shape(c);
    auto w = post::synthesize_post_partition(c, *checked, shape, *inputs);
    ASSERT_TRUE(w) << w.error();
    EXPECT_FALSE(groth16::first_unsatisfied_row(shape, w->assignment()).has_value());
  }
}

// A raw bincode proof of sector 91 starts with '[' (0x5b), as a JSON file does: still read as bincode.
TEST(SyntheticPost, VanillaFilesOfSector91) {
  const auto proofs = synthetic_post_vanilla(cfg(5), 1, randomness(4), 0, 91, 1);
  const auto raw = post::write_sector_proof(proofs[0]);
  ASSERT_EQ(raw[0], '[');
  auto blobs = filecoin::read_vanilla_blobs(raw);
  ASSERT_TRUE(blobs) << blobs.error();
  ASSERT_EQ(blobs->size(), 1u);
  EXPECT_EQ((*blobs)[0], raw);
  const std::string json = filecoin::write_vanilla_json(std::vector<std::vector<std::uint8_t>>{raw, raw});
  auto from_json = filecoin::read_vanilla_blobs({reinterpret_cast<const std::uint8_t*>(json.data()), json.size()});
  ASSERT_TRUE(from_json) << from_json.error();
  ASSERT_EQ(from_json->size(), 2u);
  EXPECT_EQ((*from_json)[1], raw);
}

TEST(SyntheticPost, RefusesImpossibleCounts) {
  EXPECT_THROW(synthetic_post_vanilla(cfg(0), 2, randomness(1), 0, 1, 0), std::invalid_argument);
  EXPECT_THROW(synthetic_post_vanilla(cfg(5), 3, randomness(1), 0, 1, 0), std::invalid_argument);
  EXPECT_THROW(synthetic_post_vanilla(cfg(5), 0, randomness(1), 0, 1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::filecoin::testkit
