// PoSt vanilla proofs: Curio's real 32 GiB WindowPoSt vector (fixtures/post/post.vproof: code 8,
// randomness 0, sector 1) decoded, checked, and its sector block satisfied by our circuit; every
// tampering refused with the reason named; public inputs byte-equal to the independent Python
// oracle's committed outputs (expected/, regen_expected.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <iterator>
#include <sstream>

#include "circuit/constraint_system.hpp"
#include "filecoin/common/sha.hpp"
#include "filecoin/common/vanilla_file.hpp"
#include "filecoin/post/challenges.hpp"
#include "filecoin/post/fallback_circuit.hpp"
#include "filecoin/post/public_inputs.hpp"
#include "filecoin/post/vanilla.hpp"
#include "filecoin/post/vanilla_check.hpp"
#include "formats/snarkjs_common.hpp"

namespace cuzk::filecoin::post {
namespace {

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
std::string read_text(const std::string& path) {
  auto b = read_bytes(path);
  return {b.begin(), b.end()};
}

const PostConfig& cfg(std::uint32_t code) { return **post_config_by_code(code); }

class GoldenVector : public ::testing::Test {
 protected:
  void SetUp() override {
    blob_ = read_bytes(std::string(CUZK_FIXTURES_DIR) + "/post/post.vproof");
    ASSERT_EQ(blob_.size(), 24960u);
  }
  Result<std::vector<CheckedSector>> check(std::span<const std::uint8_t> blob, const Bytes32& rand = {},
                                           std::uint32_t code = 8) {
    auto p = parse_sector_proof(blob, cfg(code), 0);
    if (!p) return Error{p.error()};
    std::vector<FallbackPostSectorProof> v{std::move(*p)};
    return check_vanilla_proofs(cfg(code), rand, 0, v);
  }
  std::vector<std::uint8_t> blob_;
};

TEST_F(GoldenVector, DecodesAndChecks) {
  EXPECT_EQ(expected_sector_proof_size(cfg(8)), 24960u);
  auto p = parse_sector_proof(blob_, cfg(8), 0);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->sector_id, 1u);
  EXPECT_EQ(write_sector_proof(*p), blob_);  // the writer is the reader's inverse
  auto ok = check(blob_);
  ASSERT_TRUE(ok) << ok.error();
  // V1 at sector index 0 and V1_2 give the same challenges (post-snap.md §3.2): code 13 checks too.
  auto v12 = check(blob_, {}, 13);
  EXPECT_TRUE(v12) << v12.error();
}

// The real sector's block of the circuit is satisfied (every row), with the inputs the oracle derives.
TEST_F(GoldenVector, SectorBlockSatisfiesTheCircuit) {
  auto sectors = check(blob_);
  ASSERT_TRUE(sectors) << sectors.error();
  const auto params = FallbackPostParams::from_config(cfg(8));
  circuit::CheckingCS cs;
  synthesize_post_sector(cs, params, (*sectors)[0].values, 0);
  EXPECT_TRUE(cs.is_satisfied()) << (cs.first_failure() ? cs.first_failure()->name : "");
  auto inputs = partition_public_inputs(cfg(8), {}, std::vector<PublicSector>{(*sectors)[0].pub}, 0);
  ASSERT_TRUE(inputs);
  ASSERT_EQ(cs.num_inputs(), 1u + 11u);
  for (std::size_t j = 0; j < 11; ++j) EXPECT_EQ(cs.input_values()[1 + j], (*inputs)[j]) << j;
}

TEST_F(GoldenVector, ShapeErrorsNameTheField) {
  auto t = blob_;
  t.pop_back();
  EXPECT_NE(parse_sector_proof(t, cfg(8), 3).error().find("vanilla_proofs[3]"), std::string::npos);
  t = blob_;
  t.push_back(0);
  EXPECT_NE(parse_sector_proof(t, cfg(8), 0).error().find("trailing"), std::string::npos)
      << parse_sector_proof(t, cfg(8), 0).error();
  // 8-8-0 bytes against the 64 GiB (8-8-2) and 512 MiB (8-0-0) shapes.
  auto top = parse_sector_proof(blob_, cfg(9), 0);
  ASSERT_FALSE(top);
  EXPECT_NE(top.error().find("needs Top"), std::string::npos) << top.error();
  EXPECT_FALSE(parse_sector_proof(blob_, cfg(7), 0));
  // A vanilla proof count larger than the data is refused before allocating.
  t = blob_;
  t[47] = 0x7f;  // vanilla_proof.sectors length: 2^62 + 1
  auto big = parse_sector_proof(t, cfg(8), 0);
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().find("length"), std::string::npos) << big.error();
}

// Offsets inside the golden file (post-snap.md §2.2, 8-8-0 MerkleProof of 2,484 bytes at 56 + j·2,484).
constexpr std::size_t kFirstProof = 56;
constexpr std::size_t kProofSize = 2484;

TEST_F(GoldenVector, TamperingIsRefusedWithTheReason) {
  struct Case {
    const char* what;
    std::size_t offset;
    const char* reason;
  } cases[] = {
      {"a sibling", kFirstProof + 2 * kProofSize + 12 + 8 + 5, "does not hash to its root"},
      {"a leaf", kFirstProof + 4 * kProofSize + 2452 + 1, "does not hash to its root"},
      {"comm_c", 24960 - 64 + 2, "comm_r is not Poseidon(comm_c, comm_r_last)"},
      {"comm_r", 8 + 3, "comm_r is not Poseidon(comm_c, comm_r_last)"},
  };
  for (const Case& c : cases) {
    auto t = blob_;
    t[c.offset] ^= 1;
    auto r = check(t);
    ASSERT_FALSE(r) << c.what;
    EXPECT_NE(r.error().find(c.reason), std::string::npos) << c.what << ": " << r.error();
    EXPECT_NE(r.error().find("sector 1"), std::string::npos) << r.error();
  }
  // A valid path to another leaf: inclusion proofs 7 and 8 swapped.
  auto t = blob_;
  std::swap_ranges(t.begin() + kFirstProof + 7 * kProofSize, t.begin() + kFirstProof + 8 * kProofSize,
                   t.begin() + kFirstProof + 8 * kProofSize);
  auto swapped = check(t);
  ASSERT_FALSE(swapped);
  EXPECT_NE(swapped.error().find("challenge 7: the proof opens leaf"), std::string::npos) << swapped.error();
  Bytes32 other{};
  other[0] = 1;
  auto r = check(blob_, other);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("challenge 0: the proof opens leaf"), std::string::npos) << r.error();
  Bytes32 not_fr{};
  not_fr.fill(0xff);
  r = check(blob_, not_fr);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("randomness: not a field element"), std::string::npos) << r.error();
}

TEST_F(GoldenVector, SectorOrderAndCounts) {
  auto p = parse_sector_proof(blob_, cfg(8), 0);
  ASSERT_TRUE(p);
  std::vector<FallbackPostSectorProof> two{*p, *p};
  auto r = check_vanilla_proofs(cfg(8), {}, 0, two);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("strictly ascending"), std::string::npos) << r.error();
  EXPECT_FALSE(check_vanilla_proofs(cfg(8), {}, 0, {}));
}

// ---- Public inputs against the oracle's committed outputs.

struct OracleCase {
  std::string name;
  std::uint32_t code = 0, partition = 0;
  Bytes32 randomness{};
  std::vector<PublicSector> sectors;
};

std::vector<OracleCase> oracle_cases() {
  std::istringstream in(read_text(std::string(CUZK_POST_TEST_DIR) + "/expected/cases.txt"));
  std::vector<OracleCase> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    OracleCase c;
    std::string rand;
    ls >> c.name >> c.code >> c.partition >> rand;
    c.randomness = *bytes32_from_hex(rand);
    for (std::string s; ls >> s;) {
      const auto colon = s.find(':');
      c.sectors.push_back({std::stoull(s.substr(0, colon)), *bytes32_from_hex(s.substr(colon + 1))});
    }
    out.push_back(std::move(c));
  }
  return out;
}

TEST(PostPublicInputs, EqualTheOracles) {
  const auto cases = oracle_cases();
  ASSERT_GE(cases.size(), 9u);
  std::map<std::string, std::pair<std::size_t, std::string>> digests;
  {
    std::istringstream in(read_text(std::string(CUZK_POST_TEST_DIR) + "/expected/digests.txt"));
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      std::string name, sha;
      std::size_t lines = 0;
      ls >> name >> lines >> sha;
      digests[name] = {lines, sha};
    }
  }
  for (const OracleCase& c : cases) {
    auto inputs = partition_public_inputs(cfg(c.code), c.randomness, c.sectors, c.partition);
    ASSERT_TRUE(inputs) << c.name << ": " << inputs.error();
    std::string text;
    for (const auto& x : *inputs) {
      std::uint8_t le[32];
      x.to_bytes_le(le);
      text += formats::le_bytes_to_decimal(le) + "\n";
    }
    ASSERT_TRUE(digests.count(c.name)) << c.name;
    EXPECT_EQ(inputs->size(), digests[c.name].first) << c.name;
    const Bytes32 h = sha256({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
    EXPECT_EQ(bytes32_hex(h), digests[c.name].second) << c.name;
  }
}

TEST(PostPublicInputs, Refusals) {
  const PublicSector s{1, {}};
  std::vector<PublicSector> three(3, s);
  EXPECT_FALSE(partition_public_inputs(cfg(5), {}, three, 0));                            // 3 > 2 sectors
  EXPECT_FALSE(partition_public_inputs(cfg(0), {}, std::vector<PublicSector>(2, s), 0));  // Winning: one
  EXPECT_FALSE(partition_public_inputs(cfg(5), {}, {}, 0));
  Bytes32 big;
  big.fill(0xff);
  EXPECT_FALSE(partition_public_inputs(cfg(5), big, std::vector<PublicSector>{s}, 0));
}

TEST(PostVanillaFile, RawOrJsonBase64) {
  const auto blob = read_bytes(std::string(CUZK_FIXTURES_DIR) + "/post/post.vproof");
  auto raw = read_vanilla_blobs(blob);
  ASSERT_TRUE(raw);
  ASSERT_EQ(raw->size(), 1u);
  EXPECT_EQ((*raw)[0], blob);
  const std::vector<std::vector<std::uint8_t>> two{blob, blob};
  const std::string json = write_vanilla_json(two);
  auto back = read_vanilla_blobs({reinterpret_cast<const std::uint8_t*>(json.data()), json.size()});
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, two);
  const std::string bad = "[\"@@@\"]";
  EXPECT_FALSE(read_vanilla_blobs({reinterpret_cast<const std::uint8_t*>(bad.data()), bad.size()}));
  const std::string notarr = "[1,2]";
  EXPECT_FALSE(read_vanilla_blobs({reinterpret_cast<const std::uint8_t*>(notarr.data()), notarr.size()}));
}

}  // namespace
}  // namespace cuzk::filecoin::post
