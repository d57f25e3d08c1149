// SHA-256 gadget: bellperson's published row counts, outputs equal to OpenSSL, all modes agree,
// tampering is caught.
#include <gtest/gtest.h>
#include <openssl/sha.h>

#include "circuit/gadgets/sha256.hpp"
#include "circuit_test_util.hpp"

using namespace cuzk;
using namespace cuzk::circuit;
using math::Fr;

namespace {

std::vector<std::uint8_t> random_bytes(test::Rng& rng, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = std::uint8_t(rng.next());
  return v;
}

Sha256Digest openssl_sha256(std::span<const std::uint8_t> data) {
  Sha256Digest d;
  SHA256(data.data(), data.size(), d.data());
  return d;
}

// Bits of bytes, most significant bit of each byte first (SHA-256's bit order), as allocated bits.
template <class CS>
std::vector<Boolean> alloc_be_bits(CS& cs, std::span<const std::uint8_t> bytes) {
  std::vector<Boolean> bits;
  for (std::size_t k = 0; k < bytes.size() * 8; ++k) {
    auto g = cs.ns(Name("input bit", std::int64_t(k)));
    bits.push_back(Boolean::is(alloc_bit(cs, (bytes[k / 8] >> (7 - k % 8)) & 1)));
  }
  return bits;
}

Sha256Digest digest_of(const std::vector<Boolean>& bits) {
  Sha256Digest d{};
  for (std::size_t k = 0; k < 256; ++k) d[k / 8] |= std::uint8_t(bits[k].value() << (7 - k % 8));
  return d;
}

TEST(Sha256Native, MatchesOpenSsl) {
  test::Rng rng(1);
  for (std::size_t n = 0; n < 300; ++n) {
    auto m = random_bytes(rng, n);
    EXPECT_EQ(sha256_native(m), openssl_sha256(m)) << n;
  }
}

TEST(Sha256Native, Sha254CurioKats) {
  // curio lib/proof/treed_build_test.go (also run_kats.py section 3).
  std::vector<std::uint8_t> one(64, 0), zero(64, 0);
  one[0] = 1;
  auto a = sha254(one), z = sha254(zero);
  auto hex = [](const Sha256Digest& d) {
    std::string s;
    for (auto b : d) s += "0123456789abcdef"[b >> 4], s += "0123456789abcdef"[b & 15];
    return s;
  };
  EXPECT_EQ(hex(a), "16abab341fb7f370e27e4dadcf81766dd0dfd0ae64469477bb2cf6614938b22f");
  EXPECT_EQ(hex(z), "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb0b");
  std::vector<std::uint8_t> az(a.begin(), a.end());
  az.insert(az.end(), z.begin(), z.end());
  EXPECT_EQ(hex(sha254(az)), "0dd6dae41c2f75550129594fb644e4a842cfafb316a2d59321e388fe84a1ec2f");
}

TEST(Sha256Gadget, CompressionOf512AllocatedBitsIs25840Rows) {
  test::Rng rng(2);
  auto msg = random_bytes(rng, 64);
  std::vector<Boolean> out;
  auto circuit = [&](auto& cs) {
    auto bits = alloc_be_bits(cs, msg);
    auto g = cs.ns("sha256");
    out = sha256_block_no_padding(cs, bits);
  };
  auto rep = ctest::run_all_modes(circuit);
  EXPECT_EQ(ctest::circuit_rows(rep) - 512, 25840u);
  // The raw compression of one block from the IV equals the native compression.
  std::array<std::uint32_t, 8> st = kSha256Iv;
  sha256_compress(st, msg.data());
  Sha256Digest expect;
  for (int i = 0; i < 32; ++i) expect[std::size_t(i)] = std::uint8_t(st[std::size_t(i / 4)] >> (24 - 8 * (i % 4)));
  EXPECT_EQ(digest_of(out), expect);
  // Every variable is pinned by some row: flipping any one of them breaks the R1CS.
  EXPECT_EQ(ctest::variables_not_detected(rep.rec.shape, rep.rec.assignment), std::vector<std::size_t>{});
  // The checking CS names a row for a sample of flipped aux values (bits and packed carries).
  test::Rng pick(3);
  for (int t = 0; t < 12; ++t) {
    std::size_t j = pick.next() % rep.rec.shape.num_aux;
    auto fail = ctest::check_with_flipped_aux(circuit, rep.rec.assignment, rep.rec.shape.num_inputs, j);
    ASSERT_TRUE(fail.has_value()) << j;
    EXPECT_FALSE(fail->name.empty());
  }
}

TEST(Sha256Gadget, FullHashOf512BitsIs44874Rows) {
  test::Rng rng(4);
  auto msg = random_bytes(rng, 64);
  std::vector<Boolean> out;
  auto rep = ctest::run_all_modes([&](auto& cs) {
    auto bits = alloc_be_bits(cs, msg);
    auto g = cs.ns("sha256");
    out = sha256(cs, bits);
  });
  EXPECT_EQ(ctest::circuit_rows(rep) - 512, 44874u);
  EXPECT_EQ(digest_of(out), openssl_sha256(msg));
}

TEST(Sha256Gadget, EqualsOpenSslOnRandomMessages) {
  // bellperson test_against_vectors lengths: 0..31 bytes and multiples of 8 bytes up to 255.
  test::Rng rng(5);
  std::vector<std::size_t> lens;
  for (std::size_t n = 0; n < 32; ++n) lens.push_back(n);
  for (std::size_t n = 32; n < 256; n += 8) lens.push_back(n);
  for (std::size_t n : lens) {
    auto msg = random_bytes(rng, n);
    std::vector<Boolean> out;
    auto circuit = [&](auto& cs) { out = sha256(cs, alloc_be_bits(cs, msg)); };
    if (n % 16 == 3) {
      ctest::run_all_modes(circuit);
    } else {
      CheckingCS cs;
      circuit(cs);
      EXPECT_TRUE(cs.is_satisfied()) << n;
    }
    EXPECT_EQ(digest_of(out), openssl_sha256(msg)) << n;
    // The witness builder alone gives the same digest.
    WitnessBuilder wb;
    circuit(wb);
    EXPECT_EQ(digest_of(out), openssl_sha256(msg)) << n;
  }
}

TEST(Sha256Gadget, ConstantInputCostsNothing) {
  // bellperson test_blank_hash: a constant padded empty message compresses with zero rows.
  std::vector<Boolean> in(512, Boolean::constant(false));
  in[0] = Boolean::constant(true);
  CountingCS cs;
  auto out = sha256_block_no_padding(cs, in);
  EXPECT_EQ(cs.num_constraints(), 0u);
  EXPECT_EQ(digest_of(out), openssl_sha256({}));
}

TEST(Sha256Gadget, HashLeafBitsIs45387Rows) {
  // storage-proofs-core util.rs hash_leaf_bits_circuit: two 32-byte values as 256 LE-ordered bits.
  test::Rng rng(6);
  Fr left = rng.fr(), right = rng.fr();
  auto lb = fr_to_le_bytes(left), rb = fr_to_le_bytes(right);
  AllocatedNum out;
  auto rep = ctest::run_all_modes([&](auto& cs) {
    std::vector<Boolean> l, r;
    {
      auto g = cs.ns("left");
      l = bytes_into_boolean_vec_le(cs, lb);
    }
    {
      auto g = cs.ns("right");
      r = bytes_into_boolean_vec_le(cs, rb);
    }
    auto g = cs.ns("hash_leaf_circuit");
    out = sha256_hash_leaf_bits(cs, l, r);
  });
  EXPECT_EQ(ctest::circuit_rows(rep), 45387u);
  std::vector<std::uint8_t> cat(lb.begin(), lb.end());
  cat.insert(cat.end(), rb.begin(), rb.end());
  EXPECT_EQ(out.value, fr_from_le_bytes(sha254(cat)));
}

TEST(Sha256Gadget, TreeDNodeMatchesCurioKat) {
  // hash_multi_leaf_circuit on two allocated nums: 2·256 + 44,866 + 1 rows (tree-D level model).
  std::vector<std::uint8_t> one(64, 0), zero(64, 0);
  one[0] = 1;
  Fr a = fr_from_le_bytes(sha254(one)), z = fr_from_le_bytes(sha254(zero));
  AllocatedNum out;
  auto rep = ctest::run_all_modes([&](auto& cs) {
    const AllocatedNum leaves[2] = {alloc_num(cs, a), alloc_num(cs, z)};
    out = sha256_hash_multi_leaf(cs, leaves);
  });
  EXPECT_EQ(ctest::circuit_rows(rep), 2u * 256 + 44866 + 1);
  const char* hex = "0dd6dae41c2f75550129594fb644e4a842cfafb316a2d59321e388fe84a1ec2f";
  Sha256Digest expect;
  for (std::size_t i = 0; i < 32; ++i) expect[i] = std::uint8_t(std::stoul(std::string(hex + 2 * i, 2), nullptr, 16));
  EXPECT_EQ(fr_to_le_bytes(out.value), expect);
}

}  // namespace
