// CPU run of the GPU fixed-base multiplication's device logic (src/gpu/fixed_base.cuh): the window
// table, the digit extraction, the per-thread products with the shared inversion, and the
// bellperson encoding, checked against math/ (Jacobian scalar multiplication, g1/g2_to_uncompressed).
// The kernels call exactly these functions; only the launch and the copies are left to the GPU test
// (tests/gpu/gpu_setup_check.cu).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "../common/test_random.hpp"
#include "gpu/fixed_base.cuh"
#include "math/ec/bls12_381.hpp"
#include "math/ec/encoding.hpp"

namespace cuzk {
namespace {

namespace fb = gpu::fixed_base;

struct HostIo {
  template <class F>
  static F ld(const F* p) {
    return *p;
  }
  template <class F>
  static void st(F* p, const F& v) {
    *p = v;
  }
  template <class F>
  static gpu::AffineT<F> ld_table(const gpu::AffineT<F>* p) {
    return *p;
  }
};

auto serial = [](std::size_t n, auto&& fn) {
  for (std::size_t i = 0; i < n; ++i) fn(i);
};

// Scalars that stress the windowing: 0, 1, r - 1, powers of two on and across window/limb borders,
// repeats, all-ones digits, then random.
std::vector<math::Fr> edge_scalars(test::Rng& rng, std::size_t n) {
  std::vector<math::Fr> k = {math::Fr::zero(), math::Fr::one(), -math::Fr::one(), math::Fr::from_u64(2)};
  for (unsigned e : {7u, 8u, 12u, 13u, 31u, 32u, 63u, 64u, 127u, 128u, 200u, 253u, 254u}) {
    k.push_back(math::Fr::from_u64(2).pow(std::uint64_t(e)));
  }
  k.push_back(math::Fr::from_u64(~0ULL));
  k.push_back(-math::Fr::from_u64(2));
  k.push_back(k[2]);  // repeated r - 1
  k.push_back(math::Fr::zero());
  while (k.size() < n) k.push_back(rng.fr());
  k.resize(n);
  return k;
}

template <class C>
math::Affine<C> generator() {
  if constexpr (std::is_same_v<C, math::G1Curve>) return math::g1_generator();
  else return math::g2_generator();
}

template <class C, class F>
void check_products(int c, std::size_t n, int K, std::uint64_t seed) {
  test::Rng rng(seed);
  const math::Affine<C> g = generator<C>();
  auto table = fb::build_table<F>(g, c, serial);
  ASSERT_EQ(table.size(), fb::table_points(c));
  auto ks = edge_scalars(rng, n);
  std::vector<gpu::Fr> dk(n);
  std::memcpy(static_cast<void*>(dk.data()), ks.data(), n * sizeof(math::Fr));
  std::vector<gpu::AffineT<F>> out(n);
  std::vector<F> zz(n), zzz(n), pref(n);
  const std::size_t T = (n + K - 1) / K;
  for (std::size_t t = 0; t < T; ++t) {
    fb::fixed_base_thread<F, HostIo>(t, T, n, K, dk.data(), table.data(), c, out.data(), zz.data(), zzz.data(),
                                     pref.data());
  }
  for (std::size_t i = 0; i < n; ++i) {
    math::Affine<C> want = math::Jacobian<C>::from_affine(g).mul(ks[i]).to_affine();
    if (want.infinity) {
      EXPECT_TRUE(out[i].is_inf()) << "c=" << c << " i=" << i;
    } else {
      math::Affine<C> got;
      std::memcpy(static_cast<void*>(&got.x), &out[i].x, sizeof(F));
      std::memcpy(static_cast<void*>(&got.y), &out[i].y, sizeof(F));
      got.infinity = false;
      EXPECT_TRUE(got == want) << "c=" << c << " i=" << i;
    }
    // The encoding of the device point equals the host encoder's of the reference point.
    constexpr std::size_t kBytes = 2 * sizeof(F);
    std::vector<std::uint32_t> words(kBytes / 4);
    fb::encode_uncompressed(out[i], words.data());
    std::vector<std::uint8_t> bytes(kBytes);
    std::memcpy(bytes.data(), words.data(), kBytes);
    if constexpr (std::is_same_v<C, math::G1Curve>) {
      auto ref = math::g1_to_uncompressed(want);
      EXPECT_TRUE(std::equal(ref.begin(), ref.end(), bytes.begin())) << "encoding, i=" << i;
    } else {
      auto ref = math::g2_to_uncompressed(want);
      EXPECT_TRUE(std::equal(ref.begin(), ref.end(), bytes.begin())) << "encoding, i=" << i;
    }
  }
}

TEST(GpuFixedBaseHost, DigitsCoverTheScalar) {
  test::Rng rng(3);
  for (int c : {4, 5, 8, 11, 12, 13, 16, 20}) {
    for (int it = 0; it < 50; ++it) {
      auto k = rng.fr().to_canonical();
      std::uint32_t w32[8];
      for (int i = 0; i < 4; ++i) w32[2 * i] = std::uint32_t(k[i]), w32[2 * i + 1] = std::uint32_t(k[i] >> 32);
      // Reassemble sum digit_w 2^(c w) bit by bit.
      std::uint64_t back[5] = {0, 0, 0, 0, 0};
      for (int w = 0; w < fb::num_windows(c); ++w) {
        std::uint32_t d = fb::digit(w32, w, c);
        ASSERT_LT(d, 1u << c);
        for (int b = 0; b < c; ++b) {
          int pos = w * c + b;
          if ((d >> b) & 1) back[pos / 64] |= std::uint64_t(1) << (pos % 64);
        }
      }
      for (int i = 0; i < 4; ++i) ASSERT_EQ(back[i], k[i]) << "c=" << c;
      ASSERT_EQ(back[4], 0u);
    }
  }
}

TEST(GpuFixedBaseHost, TableEntries) {
  const int c = 6;
  auto table = fb::build_table<gpu::Fp>(math::g1_generator(), c, serial);
  auto g = math::G1Jacobian::from_affine(math::g1_generator());
  for (int w : {0, 1, fb::num_windows(c) - 1}) {
    for (std::uint64_t d : {1ULL, 2ULL, 63ULL}) {
      auto want = g.mul(math::Fr::from_u64(d) * math::Fr::from_u64(2).pow(std::uint64_t(c * w))).to_affine();
      const auto& e = table[std::size_t(w) * 63 + d - 1];
      EXPECT_EQ(std::memcmp(&e.x, &want.x, 48), 0) << w << " " << d;
      EXPECT_EQ(std::memcmp(&e.y, &want.y, 48), 0) << w << " " << d;
    }
  }
}

TEST(GpuFixedBaseHost, G1Products) {
  check_products<math::G1Curve, gpu::Fp>(8, 41, 5, 1);    // limb-aligned windows, ragged last thread
  check_products<math::G1Curve, gpu::Fp>(13, 29, 32, 2);  // windows across limbs, one thread
  check_products<math::G1Curve, gpu::Fp>(4, 25, 1, 3);    // no sharing of the inversion
}

TEST(GpuFixedBaseHost, G2Products) {
  check_products<math::G2Curve, gpu::Fp2>(8, 23, 4, 4);
  check_products<math::G2Curve, gpu::Fp2>(12, 9, 3, 5);
}

TEST(GpuFixedBaseHost, AllInfinity) {
  // A thread whose points are all at infinity inverts one() and leaves x = y = 0.
  auto table = fb::build_table<gpu::Fp>(math::g1_generator(), 8, serial);
  std::vector<gpu::Fr> dk(6, gpu::Fr::zero());
  std::vector<gpu::G1Affine> out(6);
  for (auto& p : out) p.x = p.y = gpu::Fp::one();
  std::vector<gpu::Fp> zz(6), zzz(6), pref(6);
  for (std::size_t t = 0; t < 2; ++t) {
    fb::fixed_base_thread<gpu::Fp, HostIo>(t, 2, 6, 3, dk.data(), table.data(), 8, out.data(), zz.data(), zzz.data(),
                                           pref.data());
  }
  for (auto& p : out) EXPECT_TRUE(p.x.is_zero() && p.y.is_zero());
}

}  // namespace
}  // namespace cuzk
