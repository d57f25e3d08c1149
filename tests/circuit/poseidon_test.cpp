// Poseidon: constants generated in code equal the Python oracle's (itself checked against neptune
// KATs and supraseal's constant files), native hashes equal neptune's known answers, the legacy
// circuit has neptune's row counts and equals the native hash in every mode.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

#include "circuit/gadgets/poseidon.hpp"
#include "circuit/sha256_native.hpp"
#include "circuit_test_util.hpp"

using namespace cuzk;
using namespace cuzk::circuit;
using math::Fr;

namespace {

// neptune scalar_from_u64s: four limbs of the canonical value, least significant first.
Fr limbs(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
  return *Fr::from_canonical({a, b, c, d});
}

const std::size_t kArities[] = {2, 4, 8, 11, 16, 24, 36};

TEST(PoseidonConstants, RoundNumbers) {
  std::map<std::size_t, std::size_t> rp = {{2, 55}, {4, 56}, {8, 57}, {11, 57}, {16, 59}, {24, 59}, {36, 60}};
  for (auto [a, p] : rp) {
    auto [rf, rpp] = poseidon_round_numbers(a, PoseidonStrength::kStandard);
    EXPECT_EQ(rf, 8u) << a;
    EXPECT_EQ(rpp, p) << a;
    auto [rf2, rps] = poseidon_round_numbers(a, PoseidonStrength::kStrengthened);
    EXPECT_EQ(rf2, 8u);
    EXPECT_EQ(rps, std::size_t(std::ceil(double(p) * 1.25))) << a;
  }
}

TEST(PoseidonConstants, FirstGrainConstant) {
  auto rc = poseidon_grain_constants(3, 8, 55);
  ASSERT_EQ(rc.size(), 63u * 3);
  EXPECT_EQ(rc[0].to_hex(), "669f064bfa3ae17a23bd51861dbb4a24501eac92a2758b36a7320a009d6ed3d8");
}

std::string sha256_hex_of(const std::vector<const std::vector<Fr>*>& parts) {
  std::vector<std::uint8_t> bytes;
  std::uint8_t buf[32];
  for (auto* v : parts) {
    for (const Fr& x : *v) {
      x.to_bytes_le(buf);
      bytes.insert(bytes.end(), buf, buf + 32);
    }
  }
  auto d = sha256_native(bytes);  // itself checked against OpenSSL in sha256_test.cpp
  std::string s;
  for (auto b : d) s += "0123456789abcdef"[b >> 4], s += "0123456789abcdef"[b & 15];
  return s;
}

TEST(PoseidonConstants, EqualPythonOracle) {
  // SHA-256 over the canonical LE bytes of (Grain constants) and of (compressed constants ‖ pre-sparse
  // ‖ per partial round: w_hat ‖ v_rest), from /tmp: filecoin-kat poseidon_ref/optimized_ref.
  struct Row {
    std::size_t arity, crc_len;
    const char* rc;
    const char* opt;
  };
  const Row rows[] = {
      {2, 79, "cf4dfb7448132022e22b32e3dce6b125cb06329448f9e8d8fe53a71c73cbe6d4",
       "8470f570272051a5b5f6c7754856aef759434be2930a0e76b62e08c2ba1628b1"},
      {4, 96, "91e463d6553415b3901b9f26b2ad53e6298ac3e5ab0ef260d397bafe8bdde98e",
       "e49be304caf34e7ae7cbc0a7ca4f00f58ca1617b78371ee15f1222d0c5288986"},
      {8, 129, "9a4a743575f0eaf285c93d73f8adaf4e7ef4042c2445b42bddaf1a64e5face72",
       "150fee3c497accb427ea756a2ee531ea87ae53b6216b3abecfaef9e94f47f8ed"},
      {11, 153, "479dc0d71d694cd50d853dec0c94aeb37df2a69929eaa23b545a52b1226aec06",
       "f65dcf3447f0ed0bbce19c8c886b70d452e5513dd742d52d89ab39e7aad58cd4"},
      {16, 195, "e4a8a7bc7eaa2dcc61eff24e8e380e72d7c0bd9b144ff89bf8b68ed59a7551b4",
       "f57412ba1985f3ffd3da3229245ec6b9c0e7bfd7cc0e103d33bbf6f21bb0b323"},
      {24, 259, "aadfb9e461401f0835742d9137416a8995ee512538d3d1edc062274126abb10c",
       "e5404e51633a5bfa897cc298afa03e7de5c58e34a02a855c3504bb398eb08d52"},
      {36, 356, "07e81763421dcab86a45eecc509fb88a011589dbe76955f64b2d219eb59b4079",
       "ac225f892266d0893abd26a82bec1e0a0c4cd8d4f6dee1af3bfca727f622c0d6"},
  };
  for (const auto& r : rows) {
    const auto& c = poseidon_constants(r.arity);
    EXPECT_EQ(c.compressed_round_constants.size(), r.crc_len);
    EXPECT_EQ(sha256_hex_of({&c.round_constants}), r.rc) << r.arity;
    // interleave w_hat / v_rest per round as the oracle does
    std::vector<Fr> sparse;
    for (std::size_t k = 0; k < c.partial_rounds; ++k) {
      auto wh = c.w_hat(k);
      auto vr = c.v_rest(k);
      sparse.insert(sparse.end(), wh.begin(), wh.end());
      sparse.insert(sparse.end(), vr.begin(), vr.end());
    }
    EXPECT_EQ(sha256_hex_of({&c.compressed_round_constants, &c.pre_sparse, &sparse}), r.opt) << r.arity;
  }
}

TEST(PoseidonNative, NeptuneKnownAnswers) {
  // neptune src/poseidon.rs hash_values: MerkleTree tag, preimage 0..arity-1 (Standard and Strengthened).
  std::map<std::size_t, Fr> standard = {
      {2, limbs(0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b)},
      {4, limbs(0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a)},
      {8, limbs(0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55)},
      {11, limbs(0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28)},
      {16, limbs(0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a)},
      {24, limbs(0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15)},
      {36, limbs(0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f)}};
  std::map<std::size_t, Fr> strengthened = {
      {2, limbs(0x793dbaf54552cd69, 0x5278ecbf17040ea6, 0xc48b36ecc4cab748, 0x33d28a753baee41b)},
      {4, limbs(0x4650ee190212aa9a, 0xe5113a254d6f5c7e, 0x54013bdaf68ba4c2, 0x09d8207c51ca3f43)},
      {8, limbs(0x9f0c3c93c3fc894e, 0xe843d4cfba662df1, 0xd69aae8fe1cb63e8, 0x69e61465981ae17e)},
      {11, limbs(0x778af344d8f9e8b7, 0xc94fe2ca3f46d433, 0x07abbcf9b406e8d8, 0x28bb83ff439753c0)},
      {16, limbs(0x3cc2664c5fd6ae07, 0xd7431eaaa5e43189, 0x43ba5f418c6ef01d, 0x68d7856395aa217e)},
      {24, limbs(0x1df1da58827cb39d, 0x0566756b7b80fb10, 0x222eb82c6666be3d, 0x086e4e81a35bfd92)},
      {36, limbs(0x636401e9371dc311, 0x8f69e35a702ed188, 0x64d73b2ddc03d43b, 0x609f8c6fe45cc054)}};
  // ConstantLength(4): preimage 0,1,2,3 zero-padded to the arity, tag 4·2^64 (arities >= 4).
  std::map<std::size_t, Fr> const_len4 = {
      {4, limbs(0x8935b00a07909d45, 0x4984de08542c9977, 0x39443980077d7593, 0x3a21a6ae86754a29)},
      {8, limbs(0x370a94532f818897, 0x203e3c7c4a85c1f9, 0xcad8b9f8aeb1578f, 0x5c6de4b69de9d792)},
      {11, limbs(0xe9b0cb7d6496f73b, 0x7d2807d793af9582, 0xef841b6bf51a5a39, 0x02550c3a2113c7ca)},
      {16, limbs(0x6a1e563d359c1bdd, 0x6b4493d5d40be9d3, 0x275a6eb04a0ecb37, 0x30ec6fa0fec08504)},
      {24, limbs(0xc540772c5968a299, 0xe2e556352af20f97, 0x15ed0a6b8faba5aa, 0x327bdee6fa2b22b6)},
      {36, limbs(0x7d89cddb70217dcd, 0x02ae71d3d04f0b32, 0xfe52151f29c50f99, 0x626bdae6cad79307)}};
  for (std::size_t a : kArities) {
    std::vector<Fr> pre;
    for (std::size_t i = 0; i < a; ++i) pre.push_back(Fr::from_u64(i));
    const auto& c = poseidon_constants(a);
    EXPECT_EQ(poseidon_hash(c, pre), standard[a]) << a;
    EXPECT_EQ(poseidon_hash_reference(c, pre), standard[a]) << a;
    auto cs = make_poseidon_constants(a, poseidon_tag_merkle_tree(a), PoseidonStrength::kStrengthened);
    EXPECT_EQ(poseidon_hash(cs, pre), strengthened[a]) << a;
    EXPECT_EQ(poseidon_hash_reference(cs, pre), strengthened[a]) << a;
    if (a >= 4) {
      auto cl = make_poseidon_constants(a, poseidon_tag_constant_length(4));
      std::vector<Fr> p4(a, Fr::zero());
      for (std::size_t i = 0; i < 4; ++i) p4[i] = Fr::from_u64(i);
      EXPECT_EQ(poseidon_hash(cl, p4), const_len4[a]) << a;
    }
  }
}

TEST(PoseidonNative, OracleOnPseudoRandomPreimages) {
  // poseidon_ref.hash_arity([(i·0x9e3779b97f4a7c15 + 7) mod r for i < arity]) from the Python oracle.
  std::map<std::size_t, const char*> expect = {
      {2, "615c46e2893234aa4eea5a62137189f35349ab59d26586e3c9fe6acd3f6912ed"},
      {4, "5be923f48db7792d8d0054b8f4e377934a52f9d00d7b8ba80adb298070a5bb71"},
      {8, "389b996f52a0f8664d2a0d077867ba461b6e1808f03a2753011afcdd3b427690"},
      {11, "1a51e3b9b7efc93d12def78e4b2a6a1d49b9df5b8626683c1ac6f138943a96df"},
      {16, "5b8d30e534f1c33f4e16c0ae3bbe6ef3858d883502e89f2ea0ab9e6162f072a0"},
      {24, "3daf8b6bffdf75be03e69c715670385060f2cefa19d49c344efeba3ce32ad95b"},
      {36, "468daa2af2b47821095a00a1881eb435d0746d8b0d707202ebcae293cd7cc263"}};
  for (std::size_t a : kArities) {
    std::vector<Fr> pre;
    for (std::size_t i = 0; i < a; ++i)
      pre.push_back(Fr::from_u64(i) * Fr::from_u64(0x9e3779b97f4a7c15ULL) + Fr::from_u64(7));
    EXPECT_EQ(poseidon_hash(poseidon_constants(a), pre).to_hex(),
              std::string(64 - std::strlen(expect[a]), '0') + expect[a])
        << a;
  }
}

TEST(PoseidonNative, CustomDomainTag) {
  // SnapDeals' Custom(Arbitrary(1)) tag = 2^40 with arity 2; value from the Python oracle
  // (poseidon_ref.poseidon([1, 2], ..., tag = 1 << 40)). The circuit uses the same tag element.
  EXPECT_EQ(poseidon_tag_custom(1), Fr::from_u64(std::uint64_t(1) << 40));
  auto c = make_poseidon_constants(2, poseidon_tag_custom(1));
  std::vector<Fr> pre = {Fr::from_u64(1), Fr::from_u64(2)};
  Fr expect = *Fr::from_hex("702c879bafdb05ab3018f4fbc1d4c74854af845cdbb6bb53e40d5f9cb5e92f3c");
  EXPECT_EQ(poseidon_hash(c, pre), expect);
  EXPECT_EQ(poseidon_hash_reference(c, pre), expect);
  AllocatedNum out;
  auto rep = ctest::run_all_modes([&](auto& cs) {
    const AllocatedNum p[2] = {alloc_num(cs, pre[0]), alloc_num(cs, pre[1])};
    out = poseidon_hash_circuit(cs, p, c);
  });
  EXPECT_EQ(out.value, expect);
  EXPECT_EQ(ctest::circuit_rows(rep), 311u);
}

TEST(PoseidonNative, FilecoinHashersKats) {
  // filecoin-hashers poseidon.rs test_poseidon_hasher: binary tree over leaves 1, 0, 0, 1.
  const auto& c = poseidon_constants(2);
  Fr one = Fr::one(), zero = Fr::zero();
  Fr n1 = poseidon_hash(c, std::vector<Fr>{one, zero}), n2 = poseidon_hash(c, std::vector<Fr>{zero, one});
  EXPECT_EQ(n1, limbs(0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26, 0x042f94ffbe786bc3));
  EXPECT_EQ(poseidon_hash(c, std::vector<Fr>{n1, n2}),
            limbs(0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae, 0x1effebb7b26ad9eb));
  // test_hash_md: 71 × ONE through the arity-36 Merkle-Damgård construction.
  std::vector<Fr> ones(71, one);
  EXPECT_EQ(poseidon_hash_md(ones),
            limbs(0x351c54133b332c90, 0xc26f6d625f4e8195, 0x5fd9623643ed9622, 0x59f42220e09ff6f7));
}

TEST(PoseidonCircuit, NeptuneRowCountsAndNativeEquality) {
  std::map<std::size_t, std::size_t> standard = {{2, 311},  {4, 377},   {8, 505},  {11, 598},
                                                 {16, 761}, {24, 1009}, {36, 1385}};
  std::map<std::size_t, std::size_t> strengthened = {{2, 367}, {4, 433}, {8, 565}, {16, 821}, {24, 1069}, {36, 1445}};
  test::Rng rng(9);
  for (std::size_t a : kArities) {
    std::vector<Fr> pre;
    for (std::size_t i = 0; i < a; ++i) pre.push_back(rng.fr());
    const auto& c = poseidon_constants(a);
    AllocatedNum out;
    auto circuit = [&](auto& cs) {
      std::vector<AllocatedNum> nums;
      for (std::size_t i = 0; i < a; ++i) {
        auto g = cs.ns(Name("data", std::int64_t(i)));
        nums.push_back(alloc_num(cs, pre[i]));
      }
      out = poseidon_hash_circuit(cs, nums, c);
    };
    auto rep = ctest::run_all_modes(circuit);
    EXPECT_EQ(ctest::circuit_rows(rep), standard[a]) << a;
    const std::size_t t = a + 1, sboxes = t * 8 + c.partial_rounds;
    EXPECT_EQ(ctest::circuit_rows(rep), 3 * (sboxes - 1) + (sboxes - a)) << a;
    EXPECT_EQ(out.value, poseidon_hash(c, pre)) << a;
    EXPECT_EQ(ctest::variables_not_detected(rep.rec.shape, rep.rec.assignment), std::vector<std::size_t>{}) << a;
    if (strengthened.count(a)) {
      auto cst = make_poseidon_constants(a, poseidon_tag_merkle_tree(a), PoseidonStrength::kStrengthened);
      CountingCS cs;
      std::vector<AllocatedNum> nums;
      for (std::size_t i = 0; i < a; ++i) nums.push_back(alloc_num(cs, pre[i]));
      CheckingCS chk;
      std::vector<AllocatedNum> nums2;
      for (std::size_t i = 0; i < a; ++i) nums2.push_back(alloc_num(chk, pre[i]));
      EXPECT_EQ(poseidon_hash_circuit(chk, nums2, cst).value, poseidon_hash(cst, pre));
      EXPECT_TRUE(chk.is_satisfied());
      poseidon_hash_circuit(cs, nums, cst);
      EXPECT_EQ(cs.num_constraints(), strengthened[a]) << a;
    }
  }
}

TEST(PoseidonCircuit, CheckingCsNamesTamperedRow) {
  test::Rng rng(10);
  std::vector<Fr> pre = {rng.fr(), rng.fr()};
  auto circuit = [&](auto& cs) {
    AllocatedNum x = alloc_num(cs, pre[0]), y = alloc_num(cs, pre[1]);
    const AllocatedNum p[2] = {x, y};
    auto g = cs.ns("hash2");
    poseidon_hash_circuit(cs, p, poseidon_constants(2));
  };
  auto rep = ctest::run_all_modes(circuit);
  for (std::size_t j = 0; j < rep.rec.shape.num_aux; ++j) {
    auto f = ctest::check_with_flipped_aux(circuit, rep.rec.assignment, 1, j);
    ASSERT_TRUE(f.has_value()) << j;
    EXPECT_EQ(f->name.rfind("hash2/", 0), 0u) << f->name;
  }
  // The very first S-box square of preimage element 1: aux 2 is (x + rk)^2, its row is row 0.
  auto f = ctest::check_with_flipped_aux(circuit, rep.rec.assignment, 1, 2);
  EXPECT_EQ(f->row, 0u);
  EXPECT_EQ(f->name, "hash2/first round/quintic s-box 1/(l+rk)^2/squared sum constraint");
}

TEST(PoseidonCircuit, HashMdIs2770Rows) {
  std::vector<Fr> ones(71, Fr::one());
  AllocatedNum out;
  auto rep = ctest::run_all_modes([&](auto& cs) {
    std::vector<AllocatedNum> nums;
    for (const Fr& v : ones) nums.push_back(alloc_num(cs, v));
    out = poseidon_hash_md_circuit(cs, nums);
  });
  EXPECT_EQ(ctest::circuit_rows(rep), 2770u);
  EXPECT_EQ(out.value, poseidon_hash_md(ones));
}

}  // namespace
