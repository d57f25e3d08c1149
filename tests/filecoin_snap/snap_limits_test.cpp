// Hostile SnapDeals partition proofs (issue 28 item 0): a huge length at every Vec of a synthetic
// 2 KiB PartitionProof (apex leaves, challenge proofs, path levels, siblings), with 38 MiB of zeros
// after it: refused at once against the geometry with the field's path, in a forked child whose peak
// RSS stays bounded (filecoin/testkit/peak_rss.hpp).
#include <gtest/gtest.h>

#include <cstring>

#include "filecoin/snap/vanilla.hpp"
#include "filecoin/testkit/peak_rss.hpp"
#include "filecoin/testkit/snap_vanilla.hpp"

namespace cuzk::filecoin::snap {
namespace {

constexpr std::uint64_t kMiB = 1u << 20;

TEST(SnapLimits, EveryVecLengthPatchedRefused) {
  const SnapGeometry g = *snap_geometry(2048, UpdateVariant::kPartitioned);
  const auto blob = write_partition_proof(testkit::synthetic_snap_vanilla(g, 7).partitions[0]);
  ASSERT_EQ(blob.size(), 15064u);
  // comm_c, A @32 (8 apex leaves), C @296 (10), proof_r_old @304: u32, root, leaf, levels @372 (2),
  // level 0 siblings @380 (7); proof_d_new levels after proof_r_old's 2 levels of 240 bytes.
  struct Field {
    std::size_t at;
    std::uint64_t value;
    const char* message;  // after "vanilla_proofs[1]: "
  };
  const std::size_t d_new = 304 + 4 + 64 + 8 + 2 * 240;
  const Field fields[] = {
      {32, 8, "apex_leafs: N apex leaves, expected 8"},
      {296, 10, "challenge_proofs: N challenge proofs, expected 10"},
      {372, 2, "challenge_proofs[0].proof_r_old: N levels, expected 2"},
      {380, 7, "challenge_proofs[0].proof_r_old.path[0].hashes: N siblings, arity 8 needs 7"},
      {d_new + 4 + 64, 6, "challenge_proofs[0].proof_d_new: N levels, expected 6"},
      {d_new + 4 + 64 + 8, 1, "challenge_proofs[0].proof_d_new.path[0].hashes: N siblings, arity 2 needs 1"},
  };
  for (const Field& f : fields) {
    SCOPED_TRACE(f.message);
    std::uint64_t v;
    std::memcpy(&v, blob.data() + f.at, 8);
    ASSERT_EQ(v, f.value);
    for (const std::uint64_t len : {std::uint64_t(100000), std::uint64_t(1) << 60}) {
      const auto run = testkit::run_in_child([&] {
        auto b = blob;
        b.resize(blob.size() + (38u << 20));
        std::memcpy(b.data() + f.at, &len, 8);
        auto r = parse_partition_proof(b, g, 1);
        return r.ok() ? std::string("accepted") : r.error();
      });
      ASSERT_TRUE(run.exited);
      std::string want = f.message;
      want.replace(want.find('N'), 1, std::to_string(len));
      EXPECT_EQ(run.result, "vanilla_proofs[1]: " + want);
      EXPECT_LT(run.growth(), 128 * kMiB) << run.result;
    }
  }
}

}  // namespace
}  // namespace cuzk::filecoin::snap
