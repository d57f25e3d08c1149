// SDR labels: the two published 2 KiB last-label KATs (rust-fil-proofs tests/stacked_vanilla.rs
// test_stacked_porep_generate_labels: replica_id [9;32], 11 layers; filecoin-formats.md §6.6).
#include <gtest/gtest.h>

#include "filecoin/porep/graph.hpp"
#include "filecoin/testkit/labels.hpp"
#include "../filecoin_porep/test_util.hpp"

namespace cuzk::filecoin::testkit {
using namespace porep;
namespace {

TEST(SdrLabels, LastLabel2KiBV1_0PorepIdZero) {
  const Graph g(64, Bytes32{}, /*legacy_v1_0=*/true);
  const auto labels = generate_labels(g, {}, test::filled(9), 11);
  EXPECT_EQ(labels.back(),
            test::from_limbs(0xd3faa96b9a0fba04, 0xea81a283d106485e, 0xe3d51b9afa5ac2b3, 0x0462f4f4f1a68d37));
}

TEST(SdrLabels, LastLabel2KiBV1_1PorepId123) {
  const Graph g(64, test::filled(123), /*legacy_v1_0=*/false);
  const auto cache = build_parent_cache(g);
  const auto labels = generate_labels(g, cache, test::filled(9), 11);
  EXPECT_EQ(labels.back(),
            test::from_limbs(0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc, 0x06021188c7a71cb5));
}

// The progress callback (`cuzk seal`'s lines) sees every layer end and changes no label; the published
// KAT still holds with it.
TEST(SdrLabels, ProgressCallbackReportsEachLayerEnd) {
  const Graph g(64, test::filled(123), /*legacy_v1_0=*/false);
  std::vector<std::pair<std::size_t, std::uint64_t>> calls;
  const auto labels = generate_labels(g, build_parent_cache(g), test::filled(9), 11,
                                      [&](std::size_t layer, std::uint64_t done) { calls.emplace_back(layer, done); });
  EXPECT_EQ(labels.back(),
            test::from_limbs(0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc, 0x06021188c7a71cb5));
  ASSERT_EQ(calls.size(), 11u);  // 64 nodes < kLabelProgressNodes: one report per layer, at its end
  for (std::size_t l = 1; l <= 11; ++l) EXPECT_EQ(calls[l - 1], std::make_pair(l, std::uint64_t(64)));
}

TEST(SdrLabels, LabelHashAgreesWithGenerator) {
  const Graph g(64, test::filled(123), false);
  const Bytes32 rid = test::filled(9);
  const auto labels = generate_labels(g, {}, rid, 3);
  auto at = [&](std::size_t layer, std::uint64_t n) { return labels[(layer - 1) * 64 + n]; };
  EXPECT_EQ(at(2, 0), label_hash(rid, 2, 0, {}));
  std::uint32_t p[kDegree];
  for (std::uint64_t n : {1ull, 2ull, 40ull, 63ull}) {
    g.parents(n, p);
    std::vector<Bytes32> l1, l3;
    for (std::size_t i = 0; i < kDrgDegree; ++i) l1.push_back(at(1, p[i]));
    for (std::size_t i = 0; i < kDrgDegree; ++i) l3.push_back(at(3, p[i]));
    for (std::size_t i = kDrgDegree; i < kDegree; ++i) l3.push_back(at(2, p[i]));
    EXPECT_EQ(at(1, n), label_hash(rid, 1, n, expand_parent_labels(l1)));
    EXPECT_EQ(at(3, n), label_hash(rid, 3, n, expand_parent_labels(l3)));
  }
}

TEST(SdrLabels, ExpansionRepeatsCyclically) {
  std::vector<Bytes32> six, fourteen;
  for (std::uint8_t i = 0; i < 14; ++i) {
    if (i < 6) six.push_back(test::filled(i));
    fourteen.push_back(test::filled(i));
  }
  const auto a = expand_parent_labels(six), b = expand_parent_labels(fourteen);
  EXPECT_EQ(a[35], test::filled(5));
  EXPECT_EQ(a[36], test::filled(0));  // p0..p5 ×6, then p0
  EXPECT_EQ(b[13], test::filled(13));
  EXPECT_EQ(b[14], test::filled(0));
  EXPECT_EQ(b[36], test::filled(8));  // q0..q13, q0..q13, q0..q8
  EXPECT_THROW(expand_parent_labels(std::span<const Bytes32>(six.data(), 5)), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::filecoin::testkit
