// C1 bincode (filecoin-formats.md §3.6): layout, round trips, shape inference, and rejection of
// truncation and corrupt lengths without large allocations.
#include <gtest/gtest.h>

#include <cstring>

#include "c1_test_util.hpp"
#include "filecoin/porep/c1_bincode.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/c1_shape.hpp"
#include "filecoin/testkit/random_c1.hpp"

using cuzk::filecoin::testkit::random_c1_for_tests;

namespace cuzk::filecoin::porep {
namespace {

std::uint64_t le64(const std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | b[at + std::size_t(i)];
  return v;
}
void put64(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + std::size_t(i)] = std::uint8_t(v >> (8 * i));
}

TEST(C1Bincode, LayoutAndRoundTrip) {
  const C1Output c1 = random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1_1"), 9);
  const auto bin = write_c1_bincode(c1);
  EXPECT_EQ(bin.size(), c1_bincode_size(c1));
  EXPECT_EQ(le64(bin, 0), 1u);                                // partitions
  EXPECT_EQ(le64(bin, 8), 2u);                                // challenges in partition 0
  EXPECT_EQ(bin[16], 0u);                                     // comm_d_proofs: ProofData::Single (u32 0)
  EXPECT_EQ(std::memcmp(&bin[20], c1.comm_d.data(), 32), 0);  // Single.root
  const std::size_t tail = bin.size() - 160;
  EXPECT_EQ(std::memcmp(&bin[tail], c1.comm_r.data(), 32), 0);
  EXPECT_EQ(std::memcmp(&bin[tail + 32], c1.comm_d.data(), 32), 0);
  EXPECT_EQ(std::memcmp(&bin[tail + 64], c1.replica_id.data(), 32), 0);
  EXPECT_EQ(std::memcmp(&bin[tail + 96], c1.seed.data(), 32), 0);
  EXPECT_EQ(std::memcmp(&bin[tail + 128], c1.ticket.data(), 32), 0);

  auto back = parse_c1_bincode(bin, "StackedDrg2KiBV1");
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->registered_proof, "StackedDrg2KiBV1");
  EXPECT_EQ(back->vanilla_key, "StackedDrg2KiBV1");
  EXPECT_EQ(write_c1_bincode(*back), bin);
  auto inferred = parse_c1_bincode(bin, "");
  ASSERT_TRUE(inferred.ok()) << inferred.error();
  EXPECT_EQ(inferred->registered_proof, "StackedDrg2KiBV1_1");
  EXPECT_EQ(write_c1_json(*inferred), write_c1_json(c1));
  EXPECT_TRUE(check_c1_shape(*inferred).ok());
}

TEST(C1Bincode, InfersRegisteredProofFromShape) {
  for (const char* name : {"StackedDrg8MiBV1_1", "StackedDrg512MiBV1_1", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
                           "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep"}) {
    const C1Output c1 = random_c1_for_tests(porep_config_by_name(name), 2);
    auto back = parse_c1_bincode(write_c1_bincode(c1), "");
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->registered_proof, name);
    EXPECT_TRUE(check_c1_shape(*back).ok()) << check_c1_shape(*back).error();
  }
  // V1 and synthetic C1s have V1_1's shape: inferred as V1_1 (as Curio does).
  auto v1 = parse_c1_bincode(write_c1_bincode(random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1"), 2)), "");
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(v1->registered_proof, "StackedDrg2KiBV1_1");
  auto bad =
      parse_c1_bincode(write_c1_bincode(random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1"), 2)), "Nope");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "bincode: unknown registered proof 'Nope'");
}

TEST(C1Bincode, RejectsTruncationAtEveryOffset) {
  const auto bin = write_c1_bincode(random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1_1"), 4));
  for (std::size_t n = 0; n < bin.size(); ++n) {
    auto r = parse_c1_bincode(std::span(bin.data(), n), "");
    ASSERT_FALSE(r.ok()) << n;
    ASSERT_EQ(r.error().rfind("bincode: offset ", 0), 0u) << r.error();
    const bool eod = r.error().find("unexpected end of data") != std::string::npos;
    const bool len = r.error().find(" left") != std::string::npos;
    ASSERT_TRUE(eod || len) << r.error();
  }
  auto r = parse_c1_bincode(std::span(bin.data(), 30), "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "bincode: offset 8: vanilla_proofs[0]: length 2 needs at least 568 bytes, 14 left");
  r = parse_c1_bincode(std::span(bin.data(), bin.size() - 10), "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "bincode: offset " + std::to_string(bin.size() - 32) +
                           ": ticket: unexpected end of data (need 32 bytes, 22 left)");
  // comm_d proof: 16..380 (variant, root, leaf, 6 × 48-byte levels); comm_r_last: variant 380, root,
  // leaf, path length 448, level 0 = k 456, 7 hashes 464..688, index 688.
  r = parse_c1_bincode(std::span(bin.data(), 692), "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "bincode: offset 688: vanilla_proofs[0][0].comm_r_last_proof.data.Single.path.path[0].index: "
            "unexpected end of data (need 8 bytes, 4 left)");
}

TEST(C1Bincode, RejectsCorruptLengthsVariantsAndTrailingBytes) {
  const auto good = write_c1_bincode(random_c1_for_tests(porep_config_by_name("StackedDrg2KiBV1_1"), 4));
  {
    auto b = good;
    put64(b, 0, std::uint64_t(1) << 60);
    auto r = parse_c1_bincode(b, "");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(
        r.error(),
        "bincode: offset 0: vanilla_proofs: length 1152921504606846976 needs at least 9223372036854775808 bytes, " +
            std::to_string(b.size() - 8) + " left");
  }
  {
    auto b = good;
    put64(b, 8, std::uint64_t(1) << 60);
    auto r = parse_c1_bincode(b, "");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("bincode: offset 8: vanilla_proofs[0]: length 1152921504606846976 needs at least"),
              std::string::npos)
        << r.error();
  }
  {
    // Path length of comm_d_proofs: after P, C, variant, root, leaf.
    auto b = good;
    const std::size_t at = 8 + 8 + 4 + 32 + 32;
    EXPECT_EQ(le64(b, at), 6u);
    put64(b, at, std::uint64_t(1) << 60);
    auto r = parse_c1_bincode(b, "");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(),
              "bincode: offset 84: vanilla_proofs[0][0].comm_d_proofs.data.Single.path.path: length "
              "1152921504606846976 needs at least 2^64 bytes, " +
                  std::to_string(b.size() - at - 8) + " left");
    put64(b, at, ~std::uint64_t(0));
    EXPECT_FALSE(parse_c1_bincode(b, "").ok());
    // The first element's hash count.
    b = good;
    put64(b, at + 8, 1000000);
    r = parse_c1_bincode(b, "");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(
        r.error().find("offset 92: vanilla_proofs[0][0].comm_d_proofs.data.Single.path.path[0].hashes: length 1000000"),
        std::string::npos)
        << r.error();
  }
  {
    auto b = good;
    b[16] = 7;
    auto r = parse_c1_bincode(b, "");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(),
              "bincode: offset 16: vanilla_proofs[0][0].comm_d_proofs.data: unknown ProofData variant 7 (expected 0 "
              "Single, 1 Sub, 2 Top)");
  }
  {
    auto b = good;
    b.push_back(0);
    auto r = parse_c1_bincode(b, "");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(),
              "bincode: offset " + std::to_string(good.size()) + ": (document): 1 trailing bytes after the C1 output");
  }
  // Random single-byte corruption: never crashes or throws; whatever parses is re-encodable.
  std::uint64_t s = 12345;
  for (int iter = 0; iter < 3000; ++iter) {
    auto b = good;
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::size_t at = std::size_t(s >> 33) % b.size();
    b[at] = std::uint8_t(s >> 8);
    auto r = parse_c1_bincode(b, "StackedDrg2KiBV1_1");
    if (r.ok()) {
      EXPECT_EQ(write_c1_bincode(*r), b);
    }
  }
}

}  // namespace
}  // namespace cuzk::filecoin::porep
