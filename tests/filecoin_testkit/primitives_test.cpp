// BLAKE2b, ChaCha, fr32 and id encodings against published vectors (RFC 8439) and values computed
// with Python's hashlib (hashlib.blake2b) where noted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "filecoin/common/blake2b.hpp"
#include "filecoin/common/chacha.hpp"
#include "filecoin/testkit/fr32.hpp"
#include "filecoin/porep/ids.hpp"
#include "../filecoin_porep/test_util.hpp"

namespace cuzk::filecoin::testkit {
using namespace porep;
namespace {

std::string hex(std::span<const std::uint8_t> b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (auto v : b) s += {d[v >> 4], d[v & 15]};
  return s;
}

std::vector<std::uint8_t> iota(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::uint8_t(i);
  return v;
}

std::string b2(std::size_t out_len, std::span<const std::uint8_t> msg, std::string_view key = {}) {
  std::vector<std::uint8_t> out(out_len);
  blake2b(out, msg, {reinterpret_cast<const std::uint8_t*>(key.data()), key.size()});
  return hex(out);
}

TEST(SdrBlake2b, MatchesHashlib) {
  // Expected values: python3 hashlib.blake2b(msg, digest_size=n, key=key).hexdigest().
  const std::uint8_t abc[] = {'a', 'b', 'c'};
  EXPECT_EQ(b2(64, abc),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8db"
            "f1925ab92386edd4009923");
  EXPECT_EQ(b2(64, {}),
            "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b903a685b14"
            "48b755d56f701afe9be2ce");
  EXPECT_EQ(b2(32, iota(64), std::string(42, 'k')), "033cec549bc80b2c85cd8917f5dfadc9f4a1d112aa89d9de7b3da293724830b1");
  EXPECT_EQ(b2(64, iota(200)),
            "fb3c1f0f56a56f8e316fdf5d853c8c872c39635d083634c3904fc3ac07d1b578e85ff0e480e92d44ade33b62e893ee32343e79ddf6"
            "ef292e89b582d312502314");
  EXPECT_EQ(b2(32, {}, "key"), "e65edfce5a36261cd824cb0f0da736b1109dcf20d2b831d598f337bb3552a3e4");
  EXPECT_EQ(b2(48, iota(128)),
            "a2c2acf7ce4079c02b7f38e2ef33bff531a31a7c7effe712c5348b4d616c0cba9b152679317984ec632d0c70eb11eece");
}

TEST(SdrBlake2b, FeistelPrefixEqualsGenericHash) {
  for (std::uint64_t a : {0ull, 1ull, 0x0123456789abcdefull}) {
    const std::uint64_t b = a * 7 + 3;
    std::uint8_t msg[16];
    for (int i = 0; i < 8; ++i) {
      msg[i] = std::uint8_t(a >> (56 - 8 * i));
      msg[8 + i] = std::uint8_t(b >> (56 - 8 * i));
    }
    std::uint8_t out[64];
    blake2b(out, msg);
    std::uint64_t want = 0;
    for (int i = 0; i < 8; ++i) want = want << 8 | out[i];
    EXPECT_EQ(blake2b512_u64pair_prefix(a, b), want);
  }
}

TEST(SdrChaCha, Rfc8439BlockAndSeek) {
  // RFC 8439 §2.3.2: key 00..1f, nonce 00000009 0000004a 00000000, block counter 1.
  const auto key = iota(32);
  const std::uint8_t nonce[12] = {0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0};
  std::vector<std::uint8_t> out(64);
  chacha20_ietf_keystream(std::span<const std::uint8_t, 32>(key.data(), 32), nonce, 64, out);
  EXPECT_EQ(hex(out),
            "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4ed2826446079faa0914c2d705d98b02a2b5129cd1de"
            "164eb9cbd083e8a2503c4e");
  // Reading at an unaligned offset gives the same bytes as a longer read.
  std::vector<std::uint8_t> all(200), part(77);
  chacha20_ietf_keystream(std::span<const std::uint8_t, 32>(key.data(), 32), nonce, 0, all);
  chacha20_ietf_keystream(std::span<const std::uint8_t, 32>(key.data(), 32), nonce, 45, part);
  EXPECT_TRUE(std::equal(part.begin(), part.end(), all.begin() + 45));
}

TEST(SdrChaCha, Rng64BitReadsLowWordFirst) {
  std::array<std::uint8_t, 32> seed{};
  ChaCha8Rng a(seed), b(seed);
  for (int i = 0; i < 40; ++i) {  // crosses a block boundary (16 words per block)
    const std::uint64_t lo = a.next_u32(), hi = a.next_u32();
    EXPECT_EQ(b.next_u64(), lo | hi << 32);
  }
}

TEST(SdrFr32, PadLayoutAndRoundTrip) {
  // All-ones input: each node holds 254 one bits and two zero bits.
  std::vector<std::uint8_t> ones(127 * 2, 0xff);
  auto nodes = fr32_pad(ones);
  ASSERT_EQ(nodes.size(), 8u);
  for (const auto& n : nodes) {
    for (std::size_t j = 0; j < 31; ++j) EXPECT_EQ(n[j], 0xff);
    EXPECT_EQ(n[31], 0x3f);
  }
  // A single set bit 254 lands in bit 0 of node 1.
  std::vector<std::uint8_t> one_bit(127, 0);
  one_bit[31] = 0x40;
  nodes = fr32_pad(one_bit);
  EXPECT_EQ(nodes[0], Bytes32{});
  EXPECT_EQ(nodes[1][0], 1);
  auto raw = iota(127 * 3);
  EXPECT_EQ(fr32_unpad(fr32_pad(raw)), raw);
  EXPECT_THROW(fr32_pad(iota(100)), std::invalid_argument);
}

TEST(SdrIds, ProverIdIsLeb128) {
  // filecoin-formats.md §3.1: actor 3751 -> a7 1d 00 …
  Bytes32 want{};
  want[0] = 0xa7;
  want[1] = 0x1d;
  EXPECT_EQ(prover_id_from_actor(3751), want);
  Bytes32 zero{};
  EXPECT_EQ(prover_id_from_actor(0), zero);
  EXPECT_EQ(prover_id_from_actor(1000)[0], 0xe8);
  EXPECT_EQ(prover_id_from_actor(1000)[1], 0x07);
}

TEST(SdrIds, PorepIdAndReplicaId) {
  Bytes32 want{};
  want[0] = 5;
  EXPECT_EQ(porep_id(porep::porep_config_by_name("StackedDrg2KiBV1_1")), want);
  want[0] = 18;
  EXPECT_EQ(porep_id(porep::porep_config_by_id(18)), want);
  // Expected value computed with tools/filecoin-kat (sdr_ref.sha254 over
  // prover_id(actor 1000) ‖ 7 u64 BE ‖ ticket 01..20 ‖ zero 2 KiB comm_d ‖ porep_id(5)).
  Bytes32 ticket;
  for (std::size_t i = 0; i < 32; ++i) ticket[i] = std::uint8_t(i + 1);
  const Bytes32 comm_d = test::hex32("fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833");
  EXPECT_EQ(bytes32_hex(replica_id(prover_id_from_actor(1000), 7, ticket, comm_d, porep_id_from_number(5))),
            "4368b07d340a62540b0722af597baf46a874ec9f769256b1d043ea737b7bd211");
}

TEST(SdrIds, HexParsing) {
  EXPECT_FALSE(bytes32_from_hex("12"));
  EXPECT_FALSE(bytes32_from_hex(std::string(64, 'g')));
  auto b = bytes32_from_hex("0x" + std::string(62, '0') + "Ff");
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)[31], 0xff);
}

}  // namespace
}  // namespace cuzk::filecoin::testkit
