// The EmptySectorUpdate circuits against every published figure (storage-proofs-update tests/circuit.rs
// and circuit_poseidon.rs TestConstraintSystem / BenchCS counts, gadgets.rs's gen_challenge_bits rows;
// post-snap.md §4.2/§4.3), the parallel shape recording against the sequential one, and the witness:
// partition proofs of updated sectors (structured synthetic and encoded) checked, synthesized and
// satisfied; a wrong value unsatisfies a named row.
#include <gtest/gtest.h>

#include "circuit/constraint_system.hpp"
#include "circuit/shape_io.hpp"
#include "filecoin/common/merkle_path.hpp"
#include "filecoin/snap/shape.hpp"
#include "filecoin/snap/update_circuit.hpp"
#include "filecoin/snap/update_poseidon_circuit.hpp"
#include "filecoin/snap/vanilla.hpp"
#include "filecoin/snap/vanilla_check.hpp"
#include "filecoin/testkit/snap_vanilla.hpp"

namespace cuzk::filecoin::snap {
namespace {

constexpr std::uint64_t kKiB = 1024, kMiB = kKiB << 10, kGiB = kMiB << 10;

SnapGeometry geom(std::uint64_t bytes, UpdateVariant v = UpdateVariant::kPartitioned) {
  return snap_geometry(bytes, v).value();
}

TEST(SnapCircuit, RowCountsMatchThePublishedFigures) {
  const std::pair<std::uint64_t, std::uint64_t> rows[] = {
      {1 * kKiB, 1'248'389},  {2 * kKiB, 1'705'039},  {4 * kKiB, 2'165'109},  {8 * kKiB, 2'620'359},
      {16 * kKiB, 6'300'021}, {32 * kKiB, 6'760'091}, {32 * kGiB, 81'049'499}};
  for (auto [bytes, expected] : rows) {
    const UpdateCircuitCounts c = count_update_circuit(geom(bytes));
    EXPECT_EQ(c.rows, expected) << bytes;
    EXPECT_EQ(c.inputs, 5u) << bytes;
  }
  // The derived rows of the other published sizes (post-snap.md §4.2 model) and their domains.
  EXPECT_EQ(count_update_circuit(geom(8 * kMiB)).rows, 10'007'503u);
  EXPECT_EQ(count_update_circuit(geom(512 * kMiB)).rows, 57'450'479u);
  EXPECT_EQ(count_update_circuit(geom(64 * kGiB)).rows, 85'006'101u);
  EXPECT_EQ(count_update_circuit(geom(2 * kKiB)).domain_log2(), 21u);
  EXPECT_EQ(count_update_circuit(geom(32 * kGiB)).domain_log2(), 27u);
  // The Poseidon variant.
  EXPECT_EQ(count_update_circuit(geom(1 * kKiB, UpdateVariant::kPoseidon)).rows, 32'164u);
  EXPECT_EQ(count_update_circuit(geom(8 * kKiB, UpdateVariant::kPoseidon)).rows, 47'974u);
  EXPECT_EQ(count_update_circuit(geom(32 * kGiB, UpdateVariant::kPoseidon)).rows, 22'305'906u);
  EXPECT_EQ(count_update_circuit(geom(32 * kGiB, UpdateVariant::kPoseidon)).inputs, 5u);
}

// gadgets.rs test_gen_challenge_bits_gadget: 568 rows per digest up to 16 MiB, 4,544 at 512 MiB,
// 5,680 at 32/64 GiB.
TEST(SnapCircuit, ChallengeBitsGadgetRows) {
  for (auto [bytes, expected] : {std::pair{2 * kKiB, 568u}, std::pair{8 * kMiB, 568u}, std::pair{512 * kMiB, 4544u},
                                 std::pair{32 * kGiB, 5680u}, std::pair{64 * kGiB, 5680u}}) {
    const SnapGeometry g = geom(bytes);
    circuit::CountingCS cs;
    const AllocatedNum comm = circuit::alloc_num(cs, Fr::from_u64(5));
    const AllocatedNum k = circuit::alloc_num(cs, Fr::from_u64(1));
    const auto before = cs.num_constraints();
    const auto bits = gen_challenge_bits(cs, comm, k, g.challenge_count, g.random_bits);
    EXPECT_EQ(cs.num_constraints() - before, expected) << bytes;
    EXPECT_EQ(bits.size(), g.challenge_count);
  }
}

TEST(SnapCircuit, ParallelShapeIsTheSequentialShape) {
  for (std::uint64_t bytes : {2 * kKiB, 16 * kKiB}) {
    const SnapGeometry g = geom(bytes);
    const groth16::R1csShape a = record_update_shape(g), b = record_update_shape_sequential(g);
    EXPECT_EQ(a.num_constraints(), count_update_circuit(g).groth16_rows()) << bytes;
    EXPECT_EQ(a.num_inputs, b.num_inputs);
    EXPECT_EQ(a.num_aux, b.num_aux);
    EXPECT_TRUE(circuit::serialize_shape(a) == circuit::serialize_shape(b)) << bytes;
  }
}

std::vector<PartitionValues> checked(const SnapGeometry& g, const SnapCommitments& comms,
                                     const std::vector<PartitionProof>& proofs) {
  auto pub = check_commitments(comms);
  EXPECT_TRUE(pub) << pub.error();
  // Through the bytes, as a request carries them.
  std::vector<PartitionProof> parsed;
  for (std::size_t k = 0; k < proofs.size(); ++k) {
    auto p = parse_partition_proof(write_partition_proof(proofs[k], g.variant), g, k);
    EXPECT_TRUE(p) << p.error();
    parsed.push_back(std::move(*p));
  }
  auto v = check_partition_proofs(g, *pub, parsed);
  EXPECT_TRUE(v) << v.error();
  return v ? std::move(*v) : std::vector<PartitionValues>{};
}

template <class Synth>
circuit::CheckingCS check(const Synth& synth) {
  circuit::CheckingCS cs;
  synth(cs);
  return cs;
}

void expect_satisfied(const SnapGeometry& g, const PartitionValues& v, const SnapPublic& pub) {
  auto cs = check([&](auto& c) {
    if (g.variant == UpdateVariant::kPoseidon) synthesize_update_poseidon_circuit(c, g, v);
    else synthesize_update_circuit(c, g, v);
  });
  EXPECT_TRUE(cs.is_satisfied()) << g.nodes * 32 << " k=" << v.k << ": " << cs.first_failure()->name;
  const UpdateCircuitCounts counts = count_update_circuit(g);
  EXPECT_EQ(cs.num_constraints(), counts.rows);
  EXPECT_EQ(cs.num_aux(), counts.aux);
  // The inputs the circuit allocates are the ones derived from the commitments.
  const auto derived = partition_public_inputs(g, pub, v.k);
  ASSERT_EQ(cs.input_values().size(), derived.size() + 1);
  for (std::size_t j = 0; j < derived.size(); ++j) EXPECT_EQ(cs.input_values()[1 + j], derived[j]) << j;
}

TEST(SnapCircuit, SyntheticUpdatesSatisfyEveryPartition) {
  for (std::uint64_t bytes : {1 * kKiB, 2 * kKiB, 16 * kKiB, 32 * kKiB}) {
    const SnapGeometry g = geom(bytes);
    const auto s = testkit::synthetic_snap_vanilla(g, 3);
    const auto values = checked(g, s.comms, s.partitions);
    ASSERT_EQ(values.size(), g.partitions);
    const SnapPublic pub = check_commitments(s.comms).value();
    for (const auto& v : values) expect_satisfied(g, v, pub);
  }
  const SnapGeometry p = geom(1 * kKiB, UpdateVariant::kPoseidon);
  const auto s = testkit::synthetic_snap_vanilla(p, 4);
  const auto values = checked(p, s.comms, s.partitions);
  ASSERT_EQ(values.size(), 1u);
  expect_satisfied(p, values[0], check_commitments(s.comms).value());
}

TEST(SnapCircuit, AnEncodedSectorSatisfiesAndAWrongValueNamesItsRow) {
  const SnapGeometry g = geom(2 * kKiB);
  std::vector<Bytes32> old_replica(g.nodes), data(g.nodes);
  for (std::size_t i = 0; i < g.nodes; ++i) {
    old_replica[i] = fr_to_bytes32(Fr::from_u64(0x9e3779b97f4a7c15ull * (i + 1)));
    data[i] = fr_to_bytes32(Fr::from_u64(0xc2b2ae3d27d4eb4full * (i + 7)));
  }
  auto s = testkit::encode_update(g, old_replica, fr_to_bytes32(Fr::from_u64(77)), data);
  ASSERT_TRUE(s) << s.error();
  const auto values = checked(g, s->commitments(), {testkit::snap_partition_proof(*s, 0)});
  ASSERT_EQ(values.size(), 1u);
  const SnapPublic pub = check_commitments(s->commitments()).value();
  expect_satisfied(g, values[0], pub);
  // leaf_d_new + 1 (the vanilla checks would refuse it): the label row of challenge 0 fails.
  PartitionValues bad = values[0];
  bad.challenges[0].leaf_d_new += Fr::one();
  auto cs = check([&](auto& c) { synthesize_update_circuit(c, g, bad); });
  ASSERT_FALSE(cs.is_satisfied());
  EXPECT_NE(cs.first_failure()->name.find("por tree_r_new (c_index) 0"), std::string::npos) << cs.first_failure()->name;
}

}  // namespace
}  // namespace cuzk::filecoin::snap
