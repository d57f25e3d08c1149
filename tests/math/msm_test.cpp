#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "../common/test_random.hpp"
#include "math/ec/batch_affine.hpp"
#include "math/msm/msm.hpp"

using namespace cuzk::math;
using cuzk::test::Rng;

namespace {

template <class C>
Affine<C> random_point(Rng& rng);
template <>
G1Affine random_point<G1Curve>(Rng& rng) {
  return rng.g1();
}
template <>
G2Affine random_point<G2Curve>(Rng& rng) {
  return rng.g2();
}

// n distinct pseudo-random points: running sums of 16 random points, converted in one batch.
template <class C>
std::vector<Affine<C>> random_bases(Rng& rng, std::size_t n) {
  std::vector<Affine<C>> seeds(16);
  for (auto& s : seeds) s = random_point<C>(rng);
  std::vector<Jacobian<C>> jac(n);
  Jacobian<C> acc = Jacobian<C>::from_affine(seeds[15]);
  for (std::size_t i = 0; i < n; ++i) {
    acc = acc.add_affine(seeds[(i * 7 + i / 16) % 16]);
    jac[i] = acc;
  }
  return batch_to_affine<C>(std::span<const Jacobian<C>>(jac));
}

std::vector<Fr> random_scalars(Rng& rng, std::size_t n) {
  std::vector<Fr> v(n);
  for (auto& x : v) x = rng.fr();
  return v;
}

template <class C>
Jacobian<C> naive_msm(const std::vector<Affine<C>>& bases, const std::vector<Fr>& scalars) {
  Jacobian<C> acc;
  for (std::size_t i = 0; i < bases.size(); ++i) acc += Jacobian<C>::from_affine(bases[i]).mul(scalars[i]);
  return acc;
}

Fr minus_one() { return -Fr::one(); }

// msm through every bucket representation (XYZZ, batch-affine, automatic); all must agree.
template <class C>
Jacobian<C> msm_all(const std::vector<Affine<C>>& bases, const std::vector<Fr>& scalars, MsmOptions o = {}) {
  o.buckets = MsmBuckets::kXyzz;
  const Jacobian<C> x = msm<C>(bases, scalars, o);
  o.buckets = MsmBuckets::kBatchAffine;
  const Jacobian<C> a = msm<C>(bases, scalars, o);
  o.buckets = MsmBuckets::kAuto;
  const Jacobian<C> r = msm<C>(bases, scalars, o);
  EXPECT_EQ(x, a) << "XYZZ and batch-affine buckets disagree, n = " << bases.size();
  EXPECT_EQ(r, x) << "automatic choice disagrees, n = " << bases.size();
  return r;
}

template <class C>
void check_random(Rng& rng, std::size_t n) {
  auto bases = random_bases<C>(rng, n);
  auto scalars = random_scalars(rng, n);
  auto expect = naive_msm<C>(bases, scalars);
  EXPECT_EQ(msm_all<C>(bases, scalars), expect) << "n = " << n;
  MsmOptions one_thread;
  one_thread.threads = 1;
  EXPECT_EQ(msm_all<C>(bases, scalars, one_thread), expect) << "n = " << n << " single thread";
}

TEST(Msm, G1RandomMatchesNaive) {
  Rng rng(11);
  for (std::size_t n : {1, 2, 3, 17, 100, 1000, 4097}) check_random<G1Curve>(rng, n);
}

TEST(Msm, G2RandomMatchesNaive) {
  Rng rng(12);
  for (std::size_t n : {1, 2, 3, 17, 100, 300}) check_random<G2Curve>(rng, n);
}

TEST(Msm, EmptyIsIdentity) {
  EXPECT_TRUE(msm_g1({}, {}).is_identity());
  EXPECT_TRUE(msm_g2({}, {}).is_identity());
  EXPECT_TRUE(msm_g1_bits({}, {}).is_identity());
}

TEST(Msm, LengthMismatchThrows) {
  Rng rng(13);
  auto bases = random_bases<G1Curve>(rng, 10);
  auto scalars = random_scalars(rng, 9);
  EXPECT_THROW(msm_g1(bases, scalars), std::invalid_argument);
  std::vector<std::uint64_t> bits(1);
  EXPECT_THROW(msm_g1_bits(std::span<const G1Affine>(bases), std::span<const std::uint64_t>()), std::invalid_argument);
  EXPECT_NO_THROW(msm_g1_bits(bases, bits));
  auto bases65 = random_bases<G1Curve>(rng, 65);
  EXPECT_THROW(msm_g1_bits(bases65, bits), std::invalid_argument);
  MsmOptions bad;
  bad.window = 40;
  scalars.push_back(Fr::one());
  EXPECT_THROW(msm_g1(bases, scalars, bad), std::invalid_argument);
}

template <class C>
void check_skewed(Rng& rng, std::size_t n) {
  using J = Jacobian<C>;
  auto bases = random_bases<C>(rng, n);
  J sum;
  for (auto& b : bases) sum = sum.add_affine(b);

  std::vector<Fr> zeros(n, Fr::zero()), ones(n, Fr::one()), minus(n, minus_one());
  EXPECT_TRUE(msm_all<C>(bases, zeros).is_identity());
  EXPECT_EQ(msm_all<C>(bases, ones), sum);
  EXPECT_EQ(msm_all<C>(bases, minus), -sum);
  MsmOptions no_split;
  no_split.split_bits = false;
  EXPECT_TRUE(msm_all<C>(bases, zeros, no_split).is_identity());
  EXPECT_EQ(msm_all<C>(bases, ones, no_split), sum);

  // 90% zero/one, 10% random.
  std::vector<Fr> mostly_bits(n);
  for (auto& k : mostly_bits) {
    const auto r = rng.next() % 10;
    k = r < 5 ? Fr::zero() : r < 9 ? Fr::one() : rng.fr();
  }
  const J expect = naive_msm<C>(bases, mostly_bits);
  EXPECT_EQ(msm_all<C>(bases, mostly_bits), expect);
  EXPECT_EQ(msm_all<C>(bases, mostly_bits, no_split), expect);

  // One repeated base point: sum k_i P = (sum k_i) P.
  std::vector<Affine<C>> same(n, bases[0]);
  auto scalars = random_scalars(rng, n);
  Fr total = Fr::zero();
  for (auto& k : scalars) total += k;
  EXPECT_EQ(msm_all<C>(same, scalars), J::from_affine(bases[0]).mul(total));
  // Repeated base with repeated scalar (every bucket add hits the doubling case).
  std::vector<Fr> same_k(n, scalars[0]);
  EXPECT_EQ(msm_all<C>(same, same_k), J::from_affine(bases[0]).mul(scalars[0] * Fr::from_u64(n)));
  // P and -P with the same scalar cancel.
  std::vector<Affine<C>> pm(2 * n);
  std::vector<Fr> pm_k(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    pm[2 * i] = bases[i];
    pm[2 * i + 1] = -bases[i];
    pm_k[2 * i] = pm_k[2 * i + 1] = scalars[i];
  }
  EXPECT_TRUE(msm_all<C>(pm, pm_k).is_identity());

  // Identity bases everywhere (and all of them).
  std::vector<Affine<C>> holes = bases;
  for (std::size_t i = 0; i < n; i += 3) holes[i] = Affine<C>::identity();
  EXPECT_EQ(msm_all<C>(holes, scalars), naive_msm<C>(holes, scalars));
  std::vector<Affine<C>> all_id(n, Affine<C>::identity());
  EXPECT_TRUE(msm_all<C>(all_id, scalars).is_identity());

  // Everything at once: identities, zeros, ones, r-1, small, random, repeated points.
  std::vector<Affine<C>> mb = bases;
  std::vector<Fr> mk(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (rng.next() % 8) {
      case 0: mk[i] = Fr::zero(); break;
      case 1: mk[i] = Fr::one(); break;
      case 2: mk[i] = minus_one(); break;
      case 3: mk[i] = Fr::from_u64(rng.next() % 5); break;
      case 4:
        mb[i] = Affine<C>::identity();
        mk[i] = rng.fr();
        break;
      case 5:
        mb[i] = bases[0];
        mk[i] = rng.fr();
        break;
      default: mk[i] = rng.fr(); break;
    }
  }
  EXPECT_EQ(msm_all<C>(mb, mk), naive_msm<C>(mb, mk));
}

TEST(Msm, G1Skewed) {
  Rng rng(14);
  for (std::size_t n : {1, 5, 200, 2000}) check_skewed<G1Curve>(rng, n);
}

TEST(Msm, G2Skewed) {
  Rng rng(15);
  for (std::size_t n : {1, 7, 150}) check_skewed<G2Curve>(rng, n);
}

// Every window size and thread count gives the same answer (covers the Booth top window for each c
// and the point-range split).
TEST(Msm, AllWindowsAndThreadCountsAgree) {
  Rng rng(16);
  const std::size_t n = 300;
  auto bases = random_bases<G1Curve>(rng, n);
  auto scalars = random_scalars(rng, n);
  scalars[0] = minus_one();
  scalars[1] = Fr::from_u64(2);
  const G1Jacobian expect = naive_msm<G1Curve>(bases, scalars);
  for (unsigned c : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 14u}) {
    MsmOptions o;
    o.window = c;
    EXPECT_EQ(msm_all<G1Curve>(bases, scalars, o), expect) << "c = " << c;
  }
  for (std::size_t t : {1, 2, 3, 5, 16}) {
    MsmOptions o;
    o.threads = t;
    EXPECT_EQ(msm_g1(bases, scalars, o), expect) << "threads = " << t;
  }
}

// Larger sizes, checked through discrete logs: bases P_i = (t0 + i q) G, so sum k_i P_i = (sum k_i t_i) G.
TEST(Msm, LargeAgainstDiscreteLog) {
  Rng rng(17);
  const std::size_t n = (std::size_t(1) << 15) + 5;
  const G1Jacobian G = G1Jacobian::from_affine(g1_generator());
  const Fr t0 = rng.fr(), q = rng.fr();
  const G1Affine Q = G.mul(q).to_affine();
  std::vector<G1Jacobian> jac(n);
  jac[0] = G.mul(t0);
  for (std::size_t i = 1; i < n; ++i) jac[i] = jac[i - 1].add_affine(Q);
  auto bases = batch_to_affine<G1Curve>(std::span<const G1Jacobian>(jac));
  for (int variant = 0; variant < 3; ++variant) {
    std::vector<Fr> scalars(n);
    for (auto& k : scalars) {
      if (variant == 0) k = rng.fr();
      else if (variant == 1) k = rng.next() % 4 == 0 ? rng.fr() : Fr::from_u64(rng.next() & 1);
      else k = Fr::from_u64(rng.next() & 1);
    }
    Fr dlog = Fr::zero(), t = t0;
    for (std::size_t i = 0; i < n; ++i, t += q) dlog += scalars[i] * t;
    EXPECT_EQ(msm_all<G1Curve>(bases, scalars), G.mul(dlog)) << variant;
  }
}

TEST(Msm, BitsMatchGeneralPath) {
  Rng rng(18);
  for (std::size_t n : {1, 63, 64, 65, 1000, 4097}) {
    auto bases = random_bases<G1Curve>(rng, n);
    std::vector<std::uint64_t> bits((n + 63) / 64 + 1);
    for (auto& w : bits) w = rng.next();
    std::vector<Fr> scalars(n);
    for (std::size_t i = 0; i < n; ++i) scalars[i] = ((bits[i / 64] >> (i % 64)) & 1) ? Fr::one() : Fr::zero();
    const G1Jacobian expect = naive_msm<G1Curve>(bases, scalars);
    EXPECT_EQ(msm_g1_bits(bases, bits), expect) << n;  // trailing bits past n are ignored
    EXPECT_EQ(msm_g1(bases, scalars), expect) << n;
    EXPECT_EQ(msm_g1_bits(bases, bits, 1), expect) << n;
    // Sparse and clustered bitmaps.
    std::vector<std::uint64_t> sparse((n + 63) / 64, 0);
    sparse[0] = 1;
    sparse.back() |= std::uint64_t(1) << ((n - 1) % 64);
    G1Jacobian e2 = G1Jacobian::from_affine(bases[0]);
    if (n > 1) e2 = e2.add_affine(bases[n - 1]);
    EXPECT_EQ(msm_g1_bits(bases, sparse), e2) << n;
    std::vector<std::uint64_t> none((n + 63) / 64, 0);
    EXPECT_TRUE(msm_g1_bits(bases, none).is_identity());
  }
  // Large enough for the batch-affine accumulators; dense, sparse and clustered bitmaps, checked
  // against the windowed path (split_bits off) on the same 0/1 scalars.
  for (std::size_t n : {20000, 70001}) {
    auto bases = random_bases<G1Curve>(rng, n);
    for (int pattern = 0; pattern < 3; ++pattern) {
      std::vector<std::uint64_t> bits((n + 63) / 64);
      for (std::size_t w = 0; w < bits.size(); ++w) {
        if (pattern == 0) bits[w] = rng.next();
        else if (pattern == 1) bits[w] = rng.next() & rng.next() & rng.next();
        else bits[w] = w < bits.size() / 3 ? ~std::uint64_t(0) : 0;
      }
      std::vector<Fr> scalars(n);
      for (std::size_t i = 0; i < n; ++i) scalars[i] = ((bits[i / 64] >> (i % 64)) & 1) ? Fr::one() : Fr::zero();
      MsmOptions windows;
      windows.split_bits = false;
      const G1Jacobian expect = msm_g1(bases, scalars, windows);
      EXPECT_EQ(msm_g1_bits(bases, bits), expect) << n << " pattern " << pattern;
      EXPECT_EQ(msm_g1_bits(bases, bits, 1), expect) << n << " pattern " << pattern;
      EXPECT_EQ(msm_g1(bases, scalars), expect) << n << " pattern " << pattern;
    }
  }
  for (std::size_t n : {1, 70, 300}) {
    auto bases = random_bases<G2Curve>(rng, n);
    std::vector<std::uint64_t> bits((n + 63) / 64);
    for (auto& w : bits) w = rng.next();
    std::vector<Fr> scalars(n);
    for (std::size_t i = 0; i < n; ++i) scalars[i] = ((bits[i / 64] >> (i % 64)) & 1) ? Fr::one() : Fr::zero();
    const G2Jacobian expect = naive_msm<G2Curve>(bases, scalars);
    EXPECT_EQ(msm_g2_bits(bases, bits), expect) << n;
    EXPECT_EQ(msm_g2(bases, scalars), expect) << n;
  }
}

TEST(Msm, WindowTable) {
  for (std::size_t n = 1; n < (std::size_t(1) << 40); n *= 2) {
    const unsigned c = msm_window_bits(n);
    EXPECT_GE(c, 1u);
    EXPECT_LE(c, 20u);
  }
  EXPECT_EQ(msm_window_bits(0), msm_window_bits(1));
}

TEST(BatchAffine, MatchesSingleConversions) {
  Rng rng(19);
  std::vector<G1Jacobian> jac;
  std::vector<G1Xyzz> xyzz;
  const G1Jacobian G = G1Jacobian::from_affine(g1_generator());
  for (int i = 0; i < 3000; ++i) {
    if (i % 7 == 0) {
      jac.push_back(G1Jacobian::identity());
      xyzz.push_back(G1Xyzz::identity());
      continue;
    }
    G1Jacobian p = G.mul(Fr::from_u64(rng.next() % 1000 + 1)).dbl();  // z != 1
    jac.push_back(p);
    G1Xyzz x = G1Xyzz::from_affine(p.to_affine());
    x.add_affine(g1_generator());
    xyzz.push_back(x);
  }
  std::vector<G1Affine> out(jac.size()), out2(jac.size());
  batch_to_affine<G1Curve>(std::span<const G1Jacobian>(jac), std::span<G1Affine>(out), 3);
  batch_to_affine<G1Curve>(std::span<const G1Xyzz>(xyzz), std::span<G1Affine>(out2));
  for (std::size_t i = 0; i < jac.size(); ++i) {
    ASSERT_EQ(out[i], jac[i].to_affine()) << i;
    ASSERT_EQ(out2[i], xyzz[i].to_affine()) << i;
  }
  std::vector<G1Affine> small(2);
  EXPECT_THROW(batch_to_affine<G1Curve>(std::span<const G1Jacobian>(jac), std::span<G1Affine>(small)),
               std::invalid_argument);
  std::vector<Fp> v = {Fp::from_u64(3), Fp::zero(), Fp::from_u64(5)};
  batch_inverse(std::span<Fp>(v));
  EXPECT_EQ(v[0] * Fp::from_u64(3), Fp::one());
  EXPECT_TRUE(v[1].is_zero());
  EXPECT_EQ(v[2] * Fp::from_u64(5), Fp::one());
  std::vector<G2Jacobian> j2 = {G2Jacobian::from_affine(g2_generator()).dbl(), G2Jacobian::identity()};
  auto a2 = batch_to_affine<G2Curve>(std::span<const G2Jacobian>(j2));
  EXPECT_EQ(a2[0], j2[0].to_affine());
  EXPECT_TRUE(a2[1].is_identity());
}

}  // namespace
