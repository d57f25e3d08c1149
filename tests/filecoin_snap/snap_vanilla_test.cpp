// SnapDeals vanilla proofs: the PartitionProof bincode (exact sizes of post-snap.md §2.3, round trip,
// every malformed input refused with the field named), the §6.2 checks on updates encoded from random
// small sectors (every tampering refused with the reason), the encoding relation per node, public
// inputs, and STRUCTURED SYNTHETIC updates (2 KiB, 8 MiB, 32 GiB: all partitions pass the checks).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>

#include "filecoin/common/merkle_path.hpp"
#include "filecoin/common/vanilla_file.hpp"
#include "filecoin/snap/challenges.hpp"
#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/snap/vanilla.hpp"
#include "filecoin/snap/vanilla_check.hpp"
#include "filecoin/testkit/snap_vanilla.hpp"

namespace cuzk::filecoin::snap {
namespace {

constexpr std::uint64_t kKiB = 1024, kMiB = kKiB << 10, kGiB = kMiB << 10;

SnapGeometry geo(std::uint64_t bytes, UpdateVariant v = UpdateVariant::kPartitioned) {
  return *snap_geometry(bytes, v);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
#define EXPECT_ERROR(result, text)                                                                  \
  do {                                                                                              \
    auto&& r_ = (result);                                                                           \
    ASSERT_FALSE(r_) << "accepted; expected: " << (text);                                           \
    EXPECT_TRUE(contains(r_.error(), text)) << "error: " << r_.error() << "\nexpected: " << (text); \
  } while (0)

// Synthetic updates, built once per geometry (32 GiB is shared by several tests).
const testkit::SyntheticSnap& synthetic(std::uint64_t bytes, UpdateVariant v = UpdateVariant::kPartitioned) {
  static std::map<std::pair<std::uint64_t, int>, testkit::SyntheticSnap> cache;
  auto key = std::make_pair(bytes, int(v));
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, testkit::synthetic_snap_vanilla(geo(bytes, v), 7)).first;
  return it->second;
}

Result<std::vector<PartitionValues>> check_all(const SnapGeometry& g, const SnapCommitments& comms,
                                               std::span<const PartitionProof> parts) {
  auto pub = check_commitments(comms);
  if (!pub) return Error{pub.error()};
  return check_partition_proofs(g, *pub, parts);
}

// ---- Sizes and bincode.

TEST(SnapVanilla, ExpectedSizes) {
  EXPECT_EQ(expected_partition_proof_size(geo(2 * kKiB)), 15064u);
  EXPECT_EQ(expected_partition_proof_size(geo(8 * kMiB)), 43864u);
  EXPECT_EQ(expected_partition_proof_size(geo(512 * kMiB)), 453064u);
  EXPECT_EQ(expected_partition_proof_size(geo(32 * kGiB)), 561768u);
  EXPECT_EQ(expected_partition_proof_size(geo(64 * kGiB)), 575528u);
  // Poseidon variant: comm_c, u64 C, C × 3 tree R proofs (32 GiB: 1,376 × 3 × 2,484; 2 KiB: 10 × 3 × 556).
  EXPECT_EQ(expected_partition_proof_size(geo(32 * kGiB, UpdateVariant::kPoseidon)), 40u + 1376u * 3 * 2484);
  EXPECT_EQ(expected_partition_proof_size(geo(2 * kKiB, UpdateVariant::kPoseidon)), 40u + 10u * 3 * 556);
}

TEST(SnapVanilla, RoundTripEverySize) {
  for (std::uint64_t bytes : {2 * kKiB, 8 * kMiB, 512 * kMiB, 32 * kGiB, 64 * kGiB}) {
    const SnapGeometry g = geo(bytes);
    const auto& s = synthetic(bytes);
    ASSERT_EQ(s.partitions.size(), g.partitions);
    for (std::size_t k : {std::size_t(0), g.partitions - 1}) {
      const auto blob = write_partition_proof(s.partitions[k]);
      ASSERT_EQ(blob.size(), expected_partition_proof_size(g)) << bytes;
      auto back = parse_partition_proof(blob, g, k);
      ASSERT_TRUE(back) << back.error();
      EXPECT_EQ(write_partition_proof(*back), blob);
      EXPECT_EQ(back->apex_leafs, s.partitions[k].apex_leafs);
      EXPECT_EQ(back->challenge_proofs[5].proof_d_new.base.size(), g.challenge_bits);
    }
  }
  for (std::uint64_t bytes : {2 * kKiB, 16 * kKiB}) {
    const SnapGeometry g = geo(bytes, UpdateVariant::kPoseidon);
    const auto& s = synthetic(bytes, UpdateVariant::kPoseidon);
    const auto blob = write_partition_proof(s.partitions[0], UpdateVariant::kPoseidon);
    ASSERT_EQ(blob.size(), expected_partition_proof_size(g));
    auto back = parse_partition_proof(blob, g, 0);
    ASSERT_TRUE(back) << back.error();
    EXPECT_TRUE(back->apex_leafs.empty());
    EXPECT_EQ(write_partition_proof(*back, UpdateVariant::kPoseidon), blob);
  }
}

TEST(SnapVanilla, MalformedRefused) {
  const SnapGeometry g = geo(2 * kKiB);
  const auto blob = write_partition_proof(synthetic(2 * kKiB).partitions[0]);
  ASSERT_TRUE(parse_partition_proof(blob, g, 0));
  // Every truncation is refused (never a crash), naming the end of data.
  for (std::size_t n = 0; n < blob.size(); n += 13)
    EXPECT_ERROR(parse_partition_proof(std::span(blob).first(n), g, 0), "unexpected end of data");
  EXPECT_ERROR(parse_partition_proof(std::span(blob).first(blob.size() - 1), g, 0),
               "vanilla_proofs[0]: bincode: offset 15056: challenge_proofs[9].proof_r_new.path[1].index: unexpected "
               "end of data");
  auto longer = blob;
  longer.push_back(0);
  EXPECT_ERROR(parse_partition_proof(longer, g, 0), "1 trailing bytes after the PartitionProof");

  auto with_u64 = [&](std::size_t at, std::uint64_t v) {
    auto b = blob;
    std::memcpy(b.data() + at, &v, 8);
    return b;
  };
  EXPECT_ERROR(parse_partition_proof(with_u64(32, 7), g, 0),
               "vanilla_proofs[0]: apex_leafs: 7 apex leaves, expected 8");
  EXPECT_ERROR(parse_partition_proof(with_u64(32, ~0ull), g, 2),
               "vanilla_proofs[2]: apex_leafs: 18446744073709551615 apex leaves");
  EXPECT_ERROR(parse_partition_proof(with_u64(296, 9), g, 0), "challenge_proofs: 9 challenge proofs, expected 10");
  // The first ChallengeProof starts at 304: proof_r_old = u32 variant, root, leaf, u64 levels (at 372).
  auto variant = blob;
  variant[304] = 7;
  EXPECT_ERROR(parse_partition_proof(variant, g, 0),
               "challenge_proofs[0].proof_r_old: unknown ProofData variant 7 (expected 0 Single, 1 Sub, 2 Top)");
  variant[304] = 1;
  EXPECT_ERROR(parse_partition_proof(variant, g, 0), "challenge_proofs[0].proof_r_old: a Sub proof, tree R (8-0-0");
  EXPECT_ERROR(parse_partition_proof(with_u64(372, 3), g, 0), "challenge_proofs[0].proof_r_old: 3 levels, expected 2");
  EXPECT_ERROR(parse_partition_proof(with_u64(380, 6), g, 0),
               "challenge_proofs[0].proof_r_old.path[0].hashes: 6 siblings, arity 8 needs 7");
  EXPECT_ERROR(parse_partition_proof(with_u64(380 + 8 + 224, 8), g, 0),
               "challenge_proofs[0].proof_r_old.path[0].index: 8 is not below the arity 8");

  // The other variant's bytes: the counts do not fit.
  EXPECT_ERROR(parse_partition_proof(blob, geo(2 * kKiB, UpdateVariant::kPoseidon), 0),
               "challenge_proofs: 8 challenge proofs, expected 10");
  const auto pos_blob =
      write_partition_proof(synthetic(2 * kKiB, UpdateVariant::kPoseidon).partitions[0], UpdateVariant::kPoseidon);
  EXPECT_ERROR(parse_partition_proof(pos_blob, g, 0), "apex_leafs: 10 apex leaves, expected 8");
  // A Poseidon-variant proof_d_new is tree-R-shaped: an SHA path of 6 levels is refused by kind and level.
  PartitionProof mixed = synthetic(2 * kKiB).partitions[0];
  mixed.apex_leafs.clear();
  EXPECT_ERROR(parse_partition_proof(write_partition_proof(mixed, UpdateVariant::kPoseidon),
                                     geo(2 * kKiB, UpdateVariant::kPoseidon), 0),
               "challenge_proofs[0].proof_d_new: 6 levels, expected 2");
}

TEST(SnapVanilla, WrongLevelsNamedAt32GiB) {
  const SnapGeometry g = geo(32 * kGiB);
  PartitionProof p = synthetic(32 * kGiB).partitions[3];
  p.challenge_proofs[17].proof_d_new.base.pop_back();
  EXPECT_ERROR(parse_partition_proof(write_partition_proof(p), g, 3),
               "vanilla_proofs[3]: challenge_proofs[17].proof_d_new: 29 levels, expected 30");
  p = synthetic(32 * kGiB).partitions[3];
  p.challenge_proofs[2].proof_r_new.kind = MerkleProofKind::kTop;
  p.challenge_proofs[2].proof_r_new.top = p.challenge_proofs[2].proof_r_new.sub;
  EXPECT_ERROR(
      parse_partition_proof(write_partition_proof(p), g, 3),
      "vanilla_proofs[3]: challenge_proofs[2].proof_r_new: a Top proof, tree R (8-8-0, 9 base levels) needs Sub");
  p = synthetic(32 * kGiB).partitions[3];
  p.challenge_proofs[4].proof_r_old.sub[0].hashes.pop_back();
  EXPECT_ERROR(parse_partition_proof(write_partition_proof(p), g, 3),
               "challenge_proofs[4].proof_r_old.sub_proof[0].hashes: 6 siblings, arity 8 needs 7");
}

// ---- Encoding random small sectors.

struct RandomSector {
  std::vector<Bytes32> old_replica, data;
  Bytes32 comm_c{};
};
RandomSector random_sector(const SnapGeometry& g, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto node = [&] {
    Bytes32 b;
    for (std::size_t i = 0; i < 32; i += 8) {
      const std::uint64_t x = rng();
      std::memcpy(b.data() + i, &x, 8);
    }
    trim_to_fr(b);
    return b;
  };
  RandomSector s;
  s.old_replica.resize(g.nodes);
  s.data.resize(g.nodes);
  for (auto& b : s.old_replica) b = node();
  for (auto& b : s.data) b = node();
  s.comm_c = node();
  return s;
}

void expect_update_checks(std::uint64_t bytes, std::uint64_t seed) {
  SCOPED_TRACE(bytes);
  const SnapGeometry g = geo(bytes);
  const RandomSector rs = random_sector(g, seed);
  auto s = testkit::encode_update(g, rs.old_replica, rs.comm_c, rs.data);
  ASSERT_TRUE(s) << s.error();
  // Decoding: new = old + data·ρ(node >> (cb − h)) for every node, and (new − old)/ρ gives the data back.
  const Fr comm_d_new = fr_from_bytes(s->comm_d_new), comm_r_old = fr_from_bytes(s->comm_r_old);
  EXPECT_EQ(s->comm_d_new, s->tree_d_new.root());
  const Fr ph = phi(comm_d_new, comm_r_old);
  const auto replica = s->new_replica_bytes();
  ASSERT_EQ(replica.size(), bytes);
  std::vector<Fr> rhos(std::size_t(1) << g.h);
  for (std::size_t b = 0; b < rhos.size(); ++b) rhos[b] = rho(ph, b);
  for (std::uint64_t i = 0; i < g.nodes; ++i) {
    Bytes32 nb;
    std::memcpy(nb.data(), replica.data() + 32 * i, 32);
    const Fr old_v = fr_from_bytes(rs.old_replica[i]), new_v = fr_from_bytes(nb), d = fr_from_bytes(rs.data[i]);
    const Fr r = rhos[i >> (g.challenge_bits - g.h)];
    ASSERT_EQ(new_v, old_v + d * r) << "node " << i;
    ASSERT_EQ((new_v - old_v) * r.inverse(), d) << "node " << i;
  }
  std::vector<PartitionProof> parts;
  for (std::size_t k = 0; k < g.partitions; ++k) {
    const auto blob = write_partition_proof(testkit::snap_partition_proof(*s, k));
    ASSERT_EQ(blob.size(), expected_partition_proof_size(g));
    auto p = parse_partition_proof(blob, g, k);
    ASSERT_TRUE(p) << p.error();
    parts.push_back(std::move(*p));
  }
  auto v = check_all(g, s->commitments(), parts);
  ASSERT_TRUE(v) << v.error();
  ASSERT_EQ(v->size(), g.partitions);
  for (std::size_t k = 0; k < g.partitions; ++k) {
    const PartitionValues& pv = (*v)[k];
    EXPECT_EQ(pv.k, k);
    EXPECT_EQ(pv.root_r_old, s->tree_r_old.root());
    EXPECT_EQ(pv.root_r_new, s->tree_r_new.root());
    EXPECT_EQ(pv.apex_leafs.size(), g.apex_leaf_count);
    EXPECT_EQ(pv.partition_path.size(), g.partition_bits);
    ASSERT_EQ(pv.challenges.size(), g.challenge_count);
    const auto cs = partition_challenges(g, fr_from_bytes(s->comm_r_new), k);
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const ChallengeValues& c = pv.challenges[i];
      EXPECT_EQ(c.leaf_r_old, s->tree_r_old.leaves()[cs[i]]);
      EXPECT_EQ(c.leaf_d_new, fr_from_bytes(s->tree_d_new.leaves()[cs[i]]));
      EXPECT_EQ(c.path_d_new.siblings.size(), g.apex_level());
      EXPECT_EQ(c.path_d_new.root, pv.apex_leafs[(cs[i] >> g.apex_level()) & (g.apex_leaf_count - 1)]);
      EXPECT_EQ(c.path_r_old.siblings.size(), g.tree_r_levels());
      EXPECT_EQ(c.path_r_new.root, pv.root_r_new);
    }
  }
  // The same blobs through the tools' file form (Curio's snap-vproof.json).
  std::vector<std::vector<std::uint8_t>> blobs;
  for (const auto& p : parts) blobs.push_back(write_partition_proof(p));
  const std::string json = write_vanilla_json(blobs);
  auto back = read_vanilla_blobs({reinterpret_cast<const std::uint8_t*>(json.data()), json.size()});
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, blobs);
}

TEST(SnapEncode, RandomSectorsPassTheChecks) {
  expect_update_checks(1 * kKiB, 1);
  expect_update_checks(2 * kKiB, 2);
  expect_update_checks(16 * kKiB, 3);  // P = 2: a partition path of one level
}

TEST(SnapEncode, RandomSector8MiB) { expect_update_checks(8 * kMiB, 4); }

TEST(SnapEncode, RefusesBadInput) {
  const SnapGeometry g = geo(2 * kKiB);
  RandomSector rs = random_sector(g, 5);
  rs.data[17].fill(0xff);
  EXPECT_ERROR(testkit::encode_update(g, rs.old_replica, rs.comm_c, rs.data),
               "encode_update: data node 17: not a field element");
  rs.data.pop_back();
  EXPECT_ERROR(testkit::encode_update(g, rs.old_replica, rs.comm_c, rs.data), "the data has 63 nodes, the sector 64");
}

// ---- Tampering (16 KiB: P = 2, A = 128, apex level 1, one partition-path level).

class SnapTamper : public ::testing::Test {
 protected:
  void SetUp() override {
    g_ = geo(16 * kKiB);
    rs_ = random_sector(g_, 11);
    auto s = testkit::encode_update(g_, rs_.old_replica, rs_.comm_c, rs_.data);
    ASSERT_TRUE(s) << s.error();
    s_ = std::move(*s);
    parts_.clear();
    for (std::size_t k = 0; k < g_.partitions; ++k) parts_.push_back(testkit::snap_partition_proof(s_, k));
    comms_ = s_.commitments();
    ASSERT_TRUE(check_all(g_, comms_, parts_));
    cs0_ = partition_challenges(g_, fr_from_bytes(s_.comm_r_new), 0);
  }
  Result<std::vector<PartitionValues>> check() { return check_all(g_, comms_, parts_); }
  static void bump(Bytes32& b) { b[0] ^= 1; }

  SnapGeometry g_;
  RandomSector rs_;
  testkit::UpdatedSector s_;
  std::vector<PartitionProof> parts_;
  SnapCommitments comms_;
  std::vector<std::uint64_t> cs0_;
};

TEST_F(SnapTamper, Leaves) {
  bump(parts_[1].challenge_proofs[4].proof_r_old.leaf);
  EXPECT_ERROR(check(), "vanilla_proofs[1]: challenge_proofs[4].proof_r_old: the path does not hash to its root");
  SetUp();
  bump(parts_[0].challenge_proofs[6].proof_d_new.leaf);
  EXPECT_ERROR(check(), "vanilla_proofs[0]: challenge_proofs[6].proof_d_new: the path does not hash to its root");
  SetUp();
  bump(parts_[0].challenge_proofs[9].proof_r_new.leaf);
  EXPECT_ERROR(check(), "vanilla_proofs[0]: challenge_proofs[9].proof_r_new: the path does not hash to its root");
}

TEST_F(SnapTamper, SiblingAndApex) {
  bump(parts_[0].challenge_proofs[3].proof_r_old.base[1].hashes[2]);
  EXPECT_ERROR(check(), "vanilla_proofs[0]: challenge_proofs[3].proof_r_old: the path does not hash to its root");
  SetUp();
  bump(parts_[0].challenge_proofs[2].proof_d_new.base[0].hashes[0]);
  EXPECT_ERROR(check(), "vanilla_proofs[0]: challenge_proofs[2].proof_d_new: the path does not hash to its root");
  SetUp();
  bump(parts_[1].apex_leafs[77]);
  EXPECT_ERROR(check(),
               "vanilla_proofs[1]: apex_leafs: their apex root does not climb challenge_proofs[0]'s partition "
               "path to comm_d_new");
  SetUp();
  parts_[1].apex_leafs.pop_back();
  EXPECT_ERROR(check(), "vanilla_proofs[1]: apex_leafs: 127 apex leaves, expected 128");
}

TEST_F(SnapTamper, Commitments) {
  bump(parts_[0].comm_c);
  EXPECT_ERROR(check(), "vanilla_proofs[0]: comm_r_old is not Poseidon(comm_c, challenge_proofs[0].proof_r_old.root)");
  SetUp();
  parts_[0].comm_c.fill(0xff);
  EXPECT_ERROR(check(), "vanilla_proofs[0]: comm_c: not a field element");
  SetUp();
  bump(comms_.comm_r_old);
  EXPECT_ERROR(check(), "vanilla_proofs[0]: comm_r_old is not Poseidon");
  SetUp();
  bump(comms_.comm_r_new);
  EXPECT_ERROR(check(), "vanilla_proofs[0]: comm_r_new is not Poseidon(comm_c, challenge_proofs[0].proof_r_new.root)");
  SetUp();
  bump(comms_.comm_d_new);
  EXPECT_ERROR(check(),
               "vanilla_proofs[0]: apex_leafs: their apex root does not climb challenge_proofs[0]'s partition "
               "path to comm_d_new");
  SetUp();
  comms_.comm_r_new.fill(0xff);
  EXPECT_ERROR(check(), "comm_r_new: not a field element");
}

TEST_F(SnapTamper, PartitionsAndChallenges) {
  std::swap(parts_[0], parts_[1]);
  EXPECT_ERROR(check(), "vanilla_proofs[0]: challenge_proofs[0].proof_r_old: opens node");
  SetUp();
  parts_[0].challenge_proofs[3] = parts_[1].challenge_proofs[3];
  EXPECT_ERROR(check(), "vanilla_proofs[0]: challenge_proofs[3].proof_r_old: opens node " +
                            std::to_string(partition_challenges(g_, fr_from_bytes(s_.comm_r_new), 1)[3]) +
                            ", the challenge is node " + std::to_string(cs0_[3]));
  SetUp();
  parts_.pop_back();
  EXPECT_ERROR(check(), "vanilla_proofs: 1 partition proofs, expected 2");
  SetUp();
  parts_[1].challenge_proofs.pop_back();
  EXPECT_ERROR(check(), "vanilla_proofs[1]: challenge_proofs: 9 challenge proofs, expected 10");
}

// The replica is not the encoding of the data: every path and commitment is consistent, only
// new = old + data·ρ fails (a tree D over other data, so φ and every ρ differ).
TEST_F(SnapTamper, ReplicaNotTheEncodingOfTheData) {
  std::vector<Bytes32> other = rs_.data;
  bump(other[0]);
  s_.tree_d_new = testkit::ShaTree(other);
  s_.comm_d_new = s_.tree_d_new.root();
  parts_.clear();
  for (std::size_t k = 0; k < g_.partitions; ++k) parts_.push_back(testkit::snap_partition_proof(s_, k));
  comms_ = s_.commitments();
  EXPECT_ERROR(check(),
               "vanilla_proofs[0]: challenge_proofs[0]: proof_r_new.leaf is not proof_r_old.leaf + "
               "proof_d_new.leaf·ρ(");
}

// ---- Synthetic updates at production sizes.

TEST(SnapSynthetic, PassesTheChecks) {
  for (std::uint64_t bytes : {2 * kKiB, 8 * kMiB, 32 * kGiB}) {
    SCOPED_TRACE(bytes);
    const SnapGeometry g = geo(bytes);
    const auto& s = synthetic(bytes);
    auto v = check_all(g, s.comms, s.partitions);
    ASSERT_TRUE(v) << v.error();
    ASSERT_EQ(v->size(), g.partitions);
    EXPECT_EQ(v->back().partition_path.size(), g.partition_bits);
    EXPECT_EQ(v->back().challenges.size(), g.challenge_count);
  }
  // A different seed is a different sector; the proofs of one do not check against the other.
  const SnapGeometry g = geo(2 * kKiB);
  const auto other = testkit::synthetic_snap_vanilla(g, 8);
  EXPECT_NE(other.comms.comm_r_new, synthetic(2 * kKiB).comms.comm_r_new);
  EXPECT_FALSE(check_all(g, other.comms, synthetic(2 * kKiB).partitions));
}

TEST(SnapSynthetic, PoseidonVariantPassesTheChecks) {
  for (std::uint64_t bytes : {2 * kKiB, 16 * kKiB}) {
    const SnapGeometry g = geo(bytes, UpdateVariant::kPoseidon);
    const auto& s = synthetic(bytes, UpdateVariant::kPoseidon);
    ASSERT_EQ(s.partitions.size(), 1u);
    auto v = check_all(g, s.comms, s.partitions);
    ASSERT_TRUE(v) << v.error();
    EXPECT_TRUE((*v)[0].apex_leafs.empty());
    EXPECT_EQ((*v)[0].challenges.size(), bytes == 2 * kKiB ? 10u : 20u);
    EXPECT_EQ((*v)[0].challenges[0].path_d_new.siblings.size(), g.tree_r_levels());
  }
}

// ---- Public inputs (post-snap.md §3.4).

TEST(SnapPublicInputs, OrderAndFirstInput) {
  SnapPublic pub{Fr::from_u64(11), Fr::from_u64(33), Fr::from_u64(22)};  // r_old, r_new, d_new
  auto v = partition_public_inputs(geo(2 * kKiB), pub, 0);
  ASSERT_EQ(v.size(), SnapGeometry::kNumPublicInputs);
  EXPECT_EQ(v[0], Fr::from_u64(1));
  EXPECT_EQ(v[1], Fr::from_u64(11));
  EXPECT_EQ(v[2], Fr::from_u64(22));
  EXPECT_EQ(v[3], Fr::from_u64(33));
  EXPECT_EQ(partition_public_inputs(geo(8 * kMiB), pub, 3)[0], Fr::from_u64(35));
  EXPECT_EQ(partition_public_inputs(geo(32 * kGiB), pub, 15)[0], Fr::from_u64(143));
  EXPECT_EQ(partition_public_inputs(geo(64 * kGiB), pub, 0)[0], Fr::from_u64(128));
  EXPECT_EQ(partition_public_inputs(geo(32 * kGiB, UpdateVariant::kPoseidon), pub, 0)[0], Fr::from_u64(8));
  SnapCommitments c;
  c.comm_d_new.fill(0xff);
  EXPECT_ERROR(check_commitments(c), "comm_d_new: not a field element");
}

}  // namespace
}  // namespace cuzk::filecoin::snap
