// The AVX-512 IFMA batch multiplier against the scalar field: products, Montgomery forms and the
// G1 curve check, on random values and on the edges of the range (0, 1, p-1, values just below
// 2^381). Skipped (and said so) on CPUs without IFMA.
#include <gtest/gtest.h>

#include <cstring>

#include "../common/test_random.hpp"
#include "math/ec/bls12_381.hpp"
#include "math/ec/encoding.hpp"
#include "math/ff/fp_ifma.hpp"

namespace cuzk::math {
namespace {

Fp::Repr p_minus(std::uint64_t k) {
  Fp::Repr r = Fp::modulus();
  r[0] -= k;  // p's low word is large enough that this never borrows for small k
  return r;
}

std::vector<Fp::Repr> edge_and_random(test::Rng& rng, std::size_t n) {
  std::vector<Fp::Repr> v = {Fp::Repr{},
                             Fp::one().to_canonical(),
                             p_minus(1),
                             p_minus(2),
                             (Fp::zero() - Fp::from_u64(3)).to_canonical(),
                             Fp::from_u64(1ull << 52).to_canonical()};
  while (v.size() < n) v.push_back(rng.fp().to_canonical());
  return v;
}

// The decoders' byte forms for arbitrary canonical coordinates (on the curve or not): bellperson's
// big-endian coordinates in, Montgomery words out; and .zkey's little-endian Montgomery words.
void put_be(const Fp::Repr& v, std::uint8_t* out) {
  for (int w = 0; w < 6; ++w)
    for (int b = 0; b < 8; ++b) out[8 * (5 - w) + (7 - b)] = std::uint8_t(v[w] >> (8 * b));
}

unsigned g1_from_canonical(const Fp::Repr* x, const Fp::Repr* y, Fp::Repr* xm, Fp::Repr* ym) {
  std::uint8_t buf[8 * 96];
  for (int k = 0; k < 8; ++k) {
    put_be(x[k], buf + 96 * k);
    put_be(y[k], buf + 96 * k + 48);
  }
  G1Affine out[8];
  const unsigned ok = ifma::g1_decode_be8(buf, 96, out, sizeof(G1Affine));
  for (int k = 0; k < 8; ++k) {
    xm[k] = out[k].x.mont_raw();
    ym[k] = out[k].y.mont_raw();
  }
  return ok;
}

unsigned g1_check_mont(const Fp::Repr* xm, const Fp::Repr* ym) {
  std::uint8_t buf[8 * 96];
  const std::uint8_t* at[8];
  for (int k = 0; k < 8; ++k) {
    std::memcpy(buf + 96 * k, xm[k].data(), 48);
    std::memcpy(buf + 96 * k + 48, ym[k].data(), 48);
    at[k] = buf + 96 * k;
  }
  G1Affine out[8];
  return ifma::g1_decode_mont8(at, out, sizeof(G1Affine));
}

// G2: c[i][k] = coordinate i (x.c0, x.c1, y.c0, y.c1) of lane k.
unsigned g2_from_canonical(const Fp::Repr (*c)[8], Fp::Repr (*m)[8]) {
  std::uint8_t buf[8 * 192];
  for (int k = 0; k < 8; ++k) {
    put_be(c[1][k], buf + 192 * k);  // file order: x.c1, x.c0, y.c1, y.c0
    put_be(c[0][k], buf + 192 * k + 48);
    put_be(c[3][k], buf + 192 * k + 96);
    put_be(c[2][k], buf + 192 * k + 144);
  }
  G2Affine out[8];
  const unsigned ok = ifma::g2_decode_be8(buf, 192, out, sizeof(G2Affine));
  for (int k = 0; k < 8; ++k) {
    m[0][k] = out[k].x.c0.mont_raw();
    m[1][k] = out[k].x.c1.mont_raw();
    m[2][k] = out[k].y.c0.mont_raw();
    m[3][k] = out[k].y.c1.mont_raw();
  }
  return ok;
}

unsigned g2_check_mont(const Fp::Repr (*m)[8]) {
  std::uint8_t buf[8 * 192];
  const std::uint8_t* at[8];
  for (int k = 0; k < 8; ++k) {
    for (int i = 0; i < 4; ++i) std::memcpy(buf + 192 * k + 48 * i, m[i][k].data(), 48);
    at[k] = buf + 192 * k;
  }
  G2Affine out[8];
  return ifma::g2_decode_mont8(at, out, sizeof(G2Affine));
}

TEST(FpIfma, ProductsEqualTheScalarField) {
  if (!ifma::available()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU";
  test::Rng rng(11);
  auto a = edge_and_random(rng, 8 * 64), b = edge_and_random(rng, 8 * 64);
  std::reverse(b.begin(), b.end());
  for (std::size_t i = 0; i < a.size(); i += 8) {
    Fp::Repr out[8];
    ifma::mul_canonical8(&a[i], &b[i], out);
    for (std::size_t k = 0; k < 8; ++k) {
      Fp expect = Fp::from_canonical_unchecked(a[i + k]) * Fp::from_canonical_unchecked(b[i + k]);
      ASSERT_EQ(out[k], expect.to_canonical()) << "lane " << k << " of batch " << i / 8;
    }
  }
}

TEST(FpIfma, G1MontgomeryFormsAndCurveCheck) {
  if (!ifma::available()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU";
  test::Rng rng(12);
  for (int round = 0; round < 16; ++round) {
    Fp::Repr x[8], y[8], xm[8], ym[8];
    unsigned expect_on = 0;
    for (int k = 0; k < 8; ++k) {
      G1Affine pt = rng.g1();
      x[k] = pt.x.to_canonical();
      y[k] = pt.y.to_canonical();
      // Off the curve in some lanes: y + 1, or (x, y) swapped, or zeros.
      const int kind = (round + k) % 4;
      if (kind == 1) y[k] = (pt.y + Fp::one()).to_canonical();
      if (kind == 2) std::swap(x[k], y[k]);
      if (kind == 3 && round % 2) x[k] = y[k] = Fp::Repr{};
      if (kind == 0 || (kind == 3 && round % 2 == 0)) expect_on |= 1u << k;
    }
    unsigned on = g1_from_canonical(x, y, xm, ym);
    EXPECT_EQ(on, expect_on) << "round " << round;
    EXPECT_EQ(g1_check_mont(xm, ym), expect_on) << "Montgomery inputs, round " << round;
    for (int k = 0; k < 8; ++k) {
      EXPECT_EQ(xm[k], Fp::from_canonical_unchecked(x[k]).mont_raw()) << "x lane " << k;
      EXPECT_EQ(ym[k], Fp::from_canonical_unchecked(y[k]).mont_raw()) << "y lane " << k;
    }
  }
}

TEST(FpIfma, G2MontgomeryFormsAndCurveCheck) {
  if (!ifma::available()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU";
  test::Rng rng(13);
  for (int round = 0; round < 8; ++round) {
    Fp::Repr c[4][8], m[4][8];
    Fp::Repr *x0 = c[0], *x1 = c[1], *y0 = c[2], *y1 = c[3];
    unsigned expect_on = 0;
    for (int k = 0; k < 8; ++k) {
      G2Affine pt = rng.g2();
      Fp2 y = pt.y;
      const int kind = (round + k) % 4;
      if (kind == 1) y.c1 += Fp::one();  // off the curve through one component only
      if (kind == 2) y.c0 += Fp::one();
      if (kind == 3) y = -y;  // (x, -y) is on the curve too
      if (kind != 1 && kind != 2) expect_on |= 1u << k;
      x0[k] = pt.x.c0.to_canonical();
      x1[k] = pt.x.c1.to_canonical();
      y0[k] = y.c0.to_canonical();
      y1[k] = y.c1.to_canonical();
    }
    EXPECT_EQ(g2_from_canonical(c, m), expect_on) << "round " << round;
    EXPECT_EQ(g2_check_mont(m), expect_on) << "Montgomery inputs, round " << round;
    for (int k = 0; k < 8; ++k) {
      EXPECT_EQ(m[0][k], Fp::from_canonical_unchecked(x0[k]).mont_raw());
      EXPECT_EQ(m[1][k], Fp::from_canonical_unchecked(x1[k]).mont_raw());
      EXPECT_EQ(m[2][k], Fp::from_canonical_unchecked(y0[k]).mont_raw());
      EXPECT_EQ(m[3][k], Fp::from_canonical_unchecked(y1[k]).mont_raw());
    }
  }
}

TEST(FpIfma, PointWithYZeroIsOffTheCurve) {
  if (!ifma::available()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU";
  // x^3 + 4 = 0 has the solution x = -cbrt(4) only if 4 is a cube; either way (0, 0) is not on
  // y^2 = x^3 + 4, and (0, 2) is: 2^2 = 0 + 4.
  Fp::Repr x[8] = {}, y[8] = {}, xm[8], ym[8];
  y[1] = Fp::from_u64(2).to_canonical();
  y[2] = (Fp::zero() - Fp::from_u64(2)).to_canonical();
  EXPECT_EQ(g1_from_canonical(x, y, xm, ym), 0b110u);
}

// Whole-point decoders from file bytes: every lane against the scalar decoder, with each kind of bad
// lane (a flag bit, a coordinate >= p, off the curve, a flipped byte) clearing exactly its own bit.
// The lanes set in `expect` decoded to the points they encode.
template <class Affine>
void expect_decoded_lanes(const Affine (&out)[8], const Affine (&pts)[8], unsigned expect) {
  for (int k = 0; k < 8; ++k) {
    if (!(expect >> k & 1)) continue;
    EXPECT_EQ(out[k].x, pts[k].x) << "x, lane " << k;
    EXPECT_EQ(out[k].y, pts[k].y) << "y, lane " << k;
  }
}

TEST(FpIfma, G1DecodeFromBigEndianBytes) {
  if (!ifma::available()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU";
  test::Rng rng(14);
  constexpr std::size_t kStride = kG1UncompressedBytes + 8;  // not the point size: strides are honoured
  for (int round = 0; round < 12; ++round) {
    std::vector<std::uint8_t> file(8 * kStride, 0xee);
    G1Affine pts[8];
    unsigned expect = 0;
    for (int k = 0; k < 8; ++k) {
      pts[k] = rng.g1();
      auto enc = g1_to_uncompressed(pts[k]);
      const int kind = (round + k) % 6;
      if (kind == 1) enc[0] |= 0x80;                         // compression flag
      if (kind == 2) std::memset(enc.data() + 48, 0xff, 1);  // y >= p (top byte 0xff, no flags)
      if (kind == 3) enc[95] ^= 1;                           // y off by one: off the curve
      if (kind == 4) enc[0] |= 0x40;                         // infinity flag on a real point
      if (kind == 0 || kind == 5) expect |= 1u << k;
      std::memcpy(file.data() + k * kStride, enc.data(), enc.size());
    }
    G1Affine out[8];
    const unsigned ok = ifma::g1_decode_be8(file.data(), kStride, out, sizeof(G1Affine));
    EXPECT_EQ(ok, expect) << "round " << round;
    expect_decoded_lanes(out, pts, expect);
  }
}

TEST(FpIfma, G2DecodeFromBigEndianBytes) {
  if (!ifma::available()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU";
  test::Rng rng(15);
  for (int round = 0; round < 8; ++round) {
    std::vector<std::uint8_t> file(8 * kG2UncompressedBytes);
    G2Affine pts[8];
    unsigned expect = 0;
    for (int k = 0; k < 8; ++k) {
      pts[k] = rng.g2();
      auto enc = g2_to_uncompressed(pts[k]);
      const int kind = (round + k) % 5;
      if (kind == 1) enc[0] |= 0x20;  // sign flag
      if (kind == 2) enc[48] = 0xff;  // x.c0 >= p
      if (kind == 3) enc[191] ^= 1;   // y.c0 changed: off the curve
      if (kind == 0 || kind == 4) expect |= 1u << k;
      std::memcpy(file.data() + k * kG2UncompressedBytes, enc.data(), enc.size());
    }
    G2Affine out[8];
    EXPECT_EQ(ifma::g2_decode_be8(file.data(), kG2UncompressedBytes, out, sizeof(G2Affine)), expect)
        << "round " << round;
    expect_decoded_lanes(out, pts, expect);
  }
}

// snarkjs .zkey points: little-endian Montgomery words, one address per lane.
TEST(FpIfma, MontgomeryPointsFromAddresses) {
  if (!ifma::available()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU";
  test::Rng rng(16);
  std::vector<std::uint8_t> g1(8 * 96), g2(8 * 192);
  G1Affine p1[8];
  G2Affine p2[8];
  const std::uint8_t* a1[8];
  const std::uint8_t* a2[8];
  for (int k = 0; k < 8; ++k) {
    p1[k] = rng.g1();
    p2[k] = rng.g2();
    const int slot = (k * 3) % 8;  // lanes point anywhere, not in order
    a1[k] = g1.data() + slot * 96;
    a2[k] = g2.data() + slot * 192;
    const Fp c1[2] = {p1[k].x, p1[k].y};
    const Fp c2[4] = {p2[k].x.c0, p2[k].x.c1, p2[k].y.c0, p2[k].y.c1};
    for (int i = 0; i < 2; ++i) std::memcpy(g1.data() + slot * 96 + 48 * i, c1[i].mont_raw().data(), 48);
    for (int i = 0; i < 4; ++i) std::memcpy(g2.data() + slot * 192 + 48 * i, c2[i].mont_raw().data(), 48);
  }
  // lane 1: the identity's all-zero encoding; lane 2: x >= p; lane 3: off the curve.
  auto g1_at = [&](int k) { return g1.data() + (a1[k] - g1.data()); };
  auto g2_at = [&](int k) { return g2.data() + (a2[k] - g2.data()); };
  std::memset(g1_at(1), 0, 96);
  std::memset(g2_at(1), 0, 192);
  std::memset(g1_at(2) + 40, 0xff, 8);
  std::memset(g2_at(2) + 88, 0xff, 8);
  g1_at(3)[48] ^= 1;
  g2_at(3)[144] ^= 1;
  G1Affine o1[8];
  G2Affine o2[8];
  EXPECT_EQ(ifma::g1_decode_mont8(a1, o1, sizeof(G1Affine)), 0b11110001u);
  EXPECT_EQ(ifma::g2_decode_mont8(a2, o2, sizeof(G2Affine)), 0b11110001u);
  for (int k : {0, 4, 5, 6, 7}) {
    EXPECT_EQ(o1[k].x, p1[k].x) << "lane " << k;
    EXPECT_EQ(o1[k].y, p1[k].y) << "lane " << k;
    EXPECT_EQ(o2[k].x, p2[k].x) << "lane " << k;
    EXPECT_EQ(o2[k].y, p2[k].y) << "lane " << k;
  }
}

}  // namespace
}  // namespace cuzk::math
