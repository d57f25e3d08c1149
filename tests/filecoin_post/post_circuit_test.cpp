// The FallbackPoSt circuit's counts against every published figure (storage-proofs-post
// tests/fallback_circuit.rs; filecoin-proofs constants.rs WINDOW_POST_SECTOR_COUNT comments), the
// per-block counting against a full synthesis, and the parallel shape recorder against the sequential one.
#include <gtest/gtest.h>

#include "circuit/constraint_system.hpp"
#include "circuit/shape_io.hpp"
#include "filecoin/post/config.hpp"
#include "filecoin/post/fallback_circuit.hpp"
#include "filecoin/post/shape.hpp"

namespace cuzk::filecoin::post {
namespace {

circuit::CountingCS count_full(const FallbackPostParams& p) {
  std::vector<PostSectorValues> v;
  for (std::size_t i = 0; i < p.sector_count; ++i) v.push_back(dummy_sector_values(p, i));
  circuit::CountingCS cs;
  synthesize_fallback_post(cs, p, std::span<const PostSectorValues>(v));
  return cs;
}

circuit::TreeShape tree(std::size_t base_levels, std::size_t sub = 0, std::size_t top = 0) {
  circuit::TreeShape t;
  t.base_levels = base_levels;
  t.sub_arity = sub;
  t.top_arity = top;
  return t;
}

// fallback_circuit.rs (TestConstraintSystem, challenge_count 5; num_inputs includes ONE).
TEST(FallbackPostCircuit, PublishedTestShapes) {
  struct Case {
    const char* name;
    circuit::TreeShape tree;
    std::size_t sector_count, challenges, inputs, rows;
  } cases[] = {
      {"single_partition_base_8", tree(2), 3, 5, 19, 16869},
      {"single_partition_sub_8_4", tree(2, 4), 3, 5, 19, 22674},
      {"single_partition_top_8_4_2", tree(2, 4, 2), 3, 5, 19, 27384},
      {"two_partitions_base_8", tree(2), 2, 5, 13, 11246},
      {"base_8_bench_cs (32 GiB, 10 octree levels)", tree(10), 5, 10, 56, 266665},
  };
  for (const Case& c : cases) {
    const FallbackPostParams p{c.tree, c.sector_count, c.challenges};
    const auto cs = count_full(p);
    EXPECT_EQ(cs.num_constraints(), c.rows) << c.name;
    EXPECT_EQ(cs.num_inputs(), c.inputs) << c.name;
  }
}

// Every registered proof: the memoized per-block count equals a full synthesis (test sizes), and the
// rows are the published / derived figures (post-snap.md §4.1; rows exclude bellperson's input rows).
TEST(FallbackPostCircuit, RegisteredCounts) {
  struct Want {
    std::uint32_t code;
    std::uint64_t rows, inputs;
    std::uint32_t domain;
  } wants[] = {
      {0, 90750, 133, 17},       {1, 230670, 133, 18},       {2, 300630, 133, 19},       {3, 370590, 133, 19},
      {4, 391314, 133, 19},      {5, 21866, 23, 15},         {6, 64266, 23, 16},         {7, 85466, 23, 17},
      {8, 125279217, 25840, 27},  // published: filecoin-proofs constants.rs, 32 GiB WindowPoSt
      {9, 129887900, 25301, 27},  // published: 64 GiB
      {10, 21866, 23, 15},       {13, 125279217, 25840, 27}, {14, 129887900, 25301, 27},
  };
  for (const Want& w : wants) {
    const PostConfig& c = **post_config_by_code(w.code);
    const PostCircuitCounts k = count_post_circuit(c);
    EXPECT_EQ(k.rows, w.rows) << c.name;
    EXPECT_EQ(k.inputs, w.inputs) << c.name;
    EXPECT_EQ(k.domain_log2(), w.domain) << c.name;
    if (c.sector_count <= 66) {  // a full synthesis of everything but the 32/64 GiB Window partitions
      const auto full = count_full(FallbackPostParams::from_config(c));
      EXPECT_EQ(full.num_constraints(), k.rows) << c.name;
      EXPECT_EQ(full.num_inputs(), k.inputs) << c.name;
      EXPECT_EQ(full.num_aux(), k.aux) << c.name;
      EXPECT_EQ(full.num_binary_aux(), k.binary_aux) << c.name;
    }
  }
}

TEST(FallbackPostCircuit, ParallelShapeIsTheSequentialOne) {
  for (std::uint32_t code : {0u, 5u}) {
    const PostConfig& c = **post_config_by_code(code);
    const auto par = record_post_shape(c);
    const auto seq = record_post_shape_sequential(c);
    const PostCircuitCounts k = count_post_circuit(c);
    EXPECT_EQ(par.num_constraints(), k.groth16_rows()) << c.name;
    EXPECT_EQ(par.num_inputs, k.inputs);
    EXPECT_EQ(par.num_aux, k.aux);
    EXPECT_EQ(circuit::serialize_shape(par), circuit::serialize_shape(seq)) << c.name;
  }
}

}  // namespace
}  // namespace cuzk::filecoin::post
