// SDR graph: the published 2 KiB parent-cache digests and names (storage-proofs-porep
// parent_cache.json; filecoin-formats.md §6.5) pin DRG and expander parents bit for bit.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "filecoin/porep/graph.hpp"
#include "filecoin/porep/ids.hpp"
#include "test_util.hpp"

namespace cuzk::filecoin::porep {
namespace {

TEST(SdrGraph, ParentCacheDigest2KiBV1) {
  const Graph g(porep::porep_config_by_id(0));  // StackedDrg2KiBV1, API V1_0_0
  EXPECT_TRUE(g.legacy_v1_0());
  EXPECT_EQ(bytes32_hex(parent_cache_digest(g)), "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d");
  EXPECT_EQ(parent_cache_name(g), "v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899");
}

TEST(SdrGraph, ParentCacheDigest2KiBV1_1) {
  const Graph g(porep::porep_config_by_id(5));  // StackedDrg2KiBV1_1, API V1_1_0
  EXPECT_FALSE(g.legacy_v1_0());
  EXPECT_EQ(bytes32_hex(parent_cache_digest(g)), "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97");
  EXPECT_EQ(parent_cache_name(g), "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b");
}

TEST(SdrGraph, CacheNamesOfLargerSizesMatchTheManifestPrefixes) {
  // parent_cache.json file-name prefixes for 8 MiB (ids 1, 6) and 32 GiB (ids 3, 8), §6.5 table.
  EXPECT_TRUE(parent_cache_name(Graph(porep::porep_config_by_id(1))).starts_with("v28-sdr-parent-dcdabb0f"));
  EXPECT_TRUE(parent_cache_name(Graph(porep::porep_config_by_id(6))).starts_with("v28-sdr-parent-5eed2121"));
  EXPECT_TRUE(parent_cache_name(Graph(porep::porep_config_by_id(3))).starts_with("v28-sdr-parent-e1fa5d5b"));
  EXPECT_TRUE(parent_cache_name(Graph(porep::porep_config_by_id(8))).starts_with("v28-sdr-parent-21981246"));
}

TEST(SdrGraph, DrgParentsPrecedeTheNode) {
  for (std::uint32_t id : {0u, 5u, 6u, 8u}) {  // includes 32 GiB: per-node parents need no cache
    const Graph g(porep::porep_config_by_id(id));
    std::uint32_t p[kDegree];
    g.parents(0, p);
    for (std::size_t i = 0; i < kDrgDegree; ++i) EXPECT_EQ(p[i], 0u);
    for (std::uint64_t node : std::initializer_list<std::uint64_t>{2, 3, 17, 63, g.nodes() / 2, g.nodes() - 1}) {
      g.parents(node, p);
      for (std::size_t i = 0; i < kDrgDegree; ++i) EXPECT_LT(p[i], node) << "id " << id << " node " << node;
      EXPECT_EQ(p[g.legacy_v1_0() ? kDrgDegree - 1 : 0], node - 1);
      for (std::size_t i = kDrgDegree; i < kDegree; ++i) EXPECT_LT(p[i], g.nodes());
    }
  }
}

TEST(SdrGraph, FeistelIsABijectionOnSmallDomains) {
  const auto keys = Feistel::keys_for(porep_id_from_number(5));
  for (std::uint64_t n : {1ull, 7ull, 64ull, 100ull, 512ull, 1000ull}) {
    const Feistel f(n, keys);
    std::set<std::uint64_t> seen;
    for (std::uint64_t x = 0; x < n; ++x) {
      const std::uint64_t y = f.permute(x);
      EXPECT_LT(y, n);
      seen.insert(y);
    }
    EXPECT_EQ(seen.size(), n) << "n = " << n;
  }
}

TEST(SdrGraph, ExpanderParentsAreAPermutationOfEdges) {
  // Every (node, i) maps to a distinct permuted index, so each node is an expander parent exactly
  // 8 times in total.
  const Graph g(porep::porep_config_by_id(5));
  std::vector<int> count(g.nodes(), 0);
  std::uint32_t p[kExpDegree];
  for (std::uint64_t n = 0; n < g.nodes(); ++n) {
    g.exp_parents(n, p);
    for (auto x : p) ++count[x];
  }
  for (int c : count) EXPECT_EQ(c, 8);
}

TEST(SdrGraph, ParentCacheEqualsPerNodeParents) {
  const Graph g(porep::porep_config_by_id(6));  // 8 MiB: exercises the parallel builder
  const auto cache = build_parent_cache(g);
  ASSERT_EQ(cache.size(), g.nodes() * kDegree);
  std::uint32_t p[kDegree];
  for (std::uint64_t n : std::initializer_list<std::uint64_t>{0, 1, 5, 4097, g.nodes() - 1}) {
    g.parents(n, p);
    for (std::size_t i = 0; i < kDegree; ++i) EXPECT_EQ(cache[kDegree * n + i], p[i]);
  }
}

}  // namespace
}  // namespace cuzk::filecoin::porep
