// Hostile PoSt vanilla proofs (issue 28 item 0): a huge length at every Vec of Curio's real 32 GiB
// WindowPoSt blob (fixtures/post/post.vproof), with 38 MiB of zeros after it so that a large count
// still fits in the bytes that remain: refused with the field's path and the shape's maximum, in a
// forked child whose peak RSS stays bounded (filecoin/testkit/peak_rss.hpp); and a request of many
// empty blobs refused before anything is reserved per blob.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "filecoin/post/post_job.hpp"
#include "filecoin/post/vanilla.hpp"
#include "filecoin/testkit/peak_rss.hpp"

namespace cuzk::filecoin::post {
namespace {

constexpr std::uint64_t kMiB = 1u << 20;

std::vector<std::uint8_t> golden() {
  std::ifstream f(std::string(CUZK_FIXTURES_DIR) + "/post/post.vproof", std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

std::uint64_t le64(const std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}

TEST(PostLimits, EveryVecLengthPatchedRefused) {
  const auto blob = golden();
  ASSERT_EQ(blob.size(), 24960u);
  const PostConfig& c = **post_config_by_code(8);  // StackedDrgWindow32GiBV1: tree 8-8-0, 9 base levels
  // Layout (post-snap.md §2.2): sector_id, comm_r, S @40, C @48, MerkleProof 0 @56 (u32 Sub),
  // base_proof levels @60, level 0 siblings @68 (each level 8 + 7 * 32 + 8 bytes), sub_proof @2228.
  struct Field {
    std::size_t at;
    std::uint64_t value;
    const char* path;
    std::uint64_t max;
  };
  const std::string ip = "vanilla_proof.sectors[0].inclusion_proofs";
  const Field fields[] = {
      {40, 1, "vanilla_proof.sectors", 1},
      {48, 10, "vanilla_proof.sectors[0].inclusion_proofs", 10},
      {60, 9, "vanilla_proof.sectors[0].inclusion_proofs[0].data.Sub.base_proof.path", 9},
      {68, 7, "vanilla_proof.sectors[0].inclusion_proofs[0].data.Sub.base_proof.path[0].hashes", 7},
      {2228, 1, "vanilla_proof.sectors[0].inclusion_proofs[0].data.Sub.sub_proof.path", 1},
      {2236, 7, "vanilla_proof.sectors[0].inclusion_proofs[0].data.Sub.sub_proof.path[0].hashes", 7},
  };
  for (const Field& f : fields) {
    SCOPED_TRACE(f.path);
    ASSERT_EQ(le64(blob, f.at), f.value);
    for (const std::uint64_t len : {std::uint64_t(100000), std::uint64_t(1) << 60}) {
      const auto run = testkit::run_in_child([&] {
        auto b = blob;
        b.resize(blob.size() + (38u << 20));
        std::memcpy(b.data() + f.at, &len, 8);
        auto r = parse_sector_proof(b, c, 3);
        return r.ok() ? std::string("accepted") : r.error();
      });
      ASSERT_TRUE(run.exited);
      const std::string head = "vanilla_proofs[3]: bincode: offset " + std::to_string(f.at) + ": " + f.path + ": ";
      EXPECT_EQ(run.result.substr(0, head.size()), head) << run.result;
      if (len == 100000)
        EXPECT_EQ(run.result.substr(head.size()),
                  "100000 elements, at most " + std::to_string(f.max) + " expected for StackedDrgWindow32GiBV1");
      else EXPECT_NE(run.result.find("length 1152921504606846976 needs at least"), std::string::npos) << run.result;
      EXPECT_LT(run.growth(), 128 * kMiB) << run.result;  // the 38 MiB input and its copy
    }
  }
}

TEST(PostLimits, BlobCountRefusedBeforeReserving) {
  const PostConfig& window = **post_config_by_code(8);
  const PostConfig& winning = **post_config_by_code(3);
  std::vector<std::span<const std::uint8_t>> blobs(100000);
  auto r = PostJob::prepare(window, {}, 0, blobs);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "vanilla_proofs: 100000 sectors, more than the 2349 of one StackedDrgWindow32GiBV1 partition");
  r = PostJob::prepare(winning, {}, 0, std::span(blobs).first(2));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "vanilla_proofs: 2 sector proofs, WinningPoSt proves exactly one sector");
  r = PostJob::prepare(window, {}, 0, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "vanilla_proofs: empty (expected one FallbackPoStSectorProof per sector)");
}

}  // namespace
}  // namespace cuzk::filecoin::post
