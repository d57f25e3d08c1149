// The AVX-512 IFMA batch-affine path of the G1 and G2 MSMs (msm/affine_batch_ifma.hpp) against the scalar
// path and against independent answers (discrete logs, scalar point arithmetic). Tests that need
// the vector path skip on CPUs without IFMA (or with CUZK_NO_IFMA=1); there the scalar path is all
// there is, and msm_test.cpp covers it.
#include <gtest/gtest.h>

#include <initializer_list>
#include <type_traits>
#include <vector>

#include "../common/test_random.hpp"
#include "math/ec/batch_affine.hpp"
#include "math/ff/fp_ifma.hpp"
#include "math/msm/affine_batch_ifma.hpp"
#include "math/msm/msm.hpp"

using namespace cuzk::math;
using cuzk::test::Rng;

namespace {

#define REQUIRE_IFMA() \
  if (!ifma::available()) GTEST_SKIP() << "no AVX-512 IFMA here (or turned off)"

template <class C>
const Affine<C>& generator() {
  if constexpr (std::is_same_v<C, G1Curve>) return g1_generator();
  else return g2_generator();
}

template <class C>
Affine<C> random_point(Rng& rng) {
  if constexpr (std::is_same_v<C, G1Curve>) return rng.g1();
  else return rng.g2();
}

// Bases with known discrete logs: P_i = (t0 + i q) G, so sum k_i P_i = (sum k_i t_i) G.
template <class C = G1Curve>
struct DlogBases {
  std::vector<Affine<C>> bases;
  std::vector<Fr> logs;
};

template <class C = G1Curve>
DlogBases<C> dlog_bases(Rng& rng, std::size_t n) {
  const Jacobian<C> G = Jacobian<C>::from_affine(generator<C>());
  const Fr t0 = rng.fr(), q = rng.fr();
  const Affine<C> Q = G.mul(q).to_affine();
  std::vector<Jacobian<C>> jac(n);
  DlogBases<C> d;
  d.logs.resize(n);
  jac[0] = G.mul(t0);
  d.logs[0] = t0;
  for (std::size_t i = 1; i < n; ++i) {
    jac[i] = jac[i - 1].add_affine(Q);
    d.logs[i] = d.logs[i - 1] + q;
  }
  d.bases = batch_to_affine<C>(std::span<const Jacobian<C>>(jac));
  return d;
}

// sum k_i P_i from the logs; identity bases count as log 0.
template <class C>
Jacobian<C> by_dlog(const std::vector<Affine<C>>& bases, const std::vector<Fr>& logs, const std::vector<Fr>& ks) {
  Fr s = Fr::zero();
  for (std::size_t i = 0; i < ks.size(); ++i)
    if (!bases[i].infinity) s += ks[i] * logs[i];
  return Jacobian<C>::from_affine(generator<C>()).mul(s);
}

// The MSM with batch-affine buckets on the IFMA path and on the scalar path, both checked against
// `expect`; single-threaded and default threads.
template <class C>
void check_both_paths(const std::vector<Affine<C>>& bases, const std::vector<Fr>& ks, const Jacobian<C>& expect,
                      unsigned window, const char* what) {
  for (std::size_t threads : {std::size_t(1), std::size_t(0)}) {
    MsmOptions o;
    o.window = window;
    o.threads = threads;
    o.buckets = MsmBuckets::kBatchAffine;
    o.ifma = true;
    const Jacobian<C> v = msm<C>(bases, ks, o);
    o.ifma = false;
    const Jacobian<C> s = msm<C>(bases, ks, o);
    EXPECT_EQ(v, expect) << what << ": IFMA path, c = " << window << ", threads = " << threads;
    EXPECT_EQ(s, expect) << what << ": scalar path, c = " << window << ", threads = " << threads;
  }
}

// The kernel alone: random buckets (a third of them empty) plus random points, against scalar
// affine additions, for batch sizes that leave every padding pattern in the last row.
template <class C>
void kernel_matches_scalar_additions(std::uint64_t seed) {
  using A = Affine<C>;
  Rng rng(seed);
  const std::size_t nb = 300;
  std::vector<A> pool(64);
  for (auto& p : pool) p = random_point<C>(rng);
  msm_ifma::AffineBatchAdder<C> adder(256);
  for (std::size_t n : {1, 2, 7, 8, 9, 15, 16, 17, 100, 255, 256}) {
    std::vector<A> buckets(nb), scalar_form(nb);
    for (std::size_t b = 0; b < nb; ++b) {
      if (rng.next() % 3 == 0) continue;  // empty
      scalar_form[b] = pool[rng.next() % pool.size()];
      buckets[b] = A::from_xy(scalar_form[b].x, msm_ifma::y_to_bucket(scalar_form[b].y));
    }
    // Distinct buckets; points whose x differs from their bucket's.
    std::vector<std::uint32_t> bidx;
    std::vector<A> pts;
    for (std::uint32_t b = 0; bidx.size() < n; b = (b + 7) % nb) {
      const A p = rng.next() % 2 ? random_point<C>(rng) : -pool[rng.next() % pool.size()];
      if (!scalar_form[b].infinity && scalar_form[b].x == p.x) continue;
      bool seen = false;
      for (auto x : bidx) seen |= x == b;
      if (seen) {
        b = (b + 1) % nb;
        continue;
      }
      bidx.push_back(b);
      pts.push_back(p);
    }
    adder.run(buckets.data(), bidx.data(), pts.data(), n);
    std::vector<bool> touched(nb, false);
    for (std::size_t j = 0; j < n; ++j) {
      touched[bidx[j]] = true;
      const A want = (Jacobian<C>::from_affine(scalar_form[bidx[j]]).add_affine(pts[j])).to_affine();
      const A& got = buckets[bidx[j]];
      ASSERT_FALSE(got.infinity) << "n = " << n << ", entry " << j;
      EXPECT_EQ(got.x, want.x) << "n = " << n << ", entry " << j;
      EXPECT_EQ(msm_ifma::y_from_bucket(got.y), want.y) << "n = " << n << ", entry " << j;
    }
    for (std::size_t b = 0; b < nb; ++b) {
      if (touched[b]) continue;  // the others are left alone
      EXPECT_EQ(buckets[b].infinity, scalar_form[b].infinity);
      if (!scalar_form[b].infinity) {
        EXPECT_EQ(msm_ifma::y_from_bucket(buckets[b].y), scalar_form[b].y);
      }
    }
  }
  EXPECT_THROW(adder.run(nullptr, nullptr, nullptr, 257), std::invalid_argument);
}

TEST(MsmIfma, KernelMatchesScalarAdditions) {
  REQUIRE_IFMA();
  kernel_matches_scalar_additions<G1Curve>(101);
}

TEST(MsmIfma, G2KernelMatchesScalarAdditions) {
  REQUIRE_IFMA();
  kernel_matches_scalar_additions<G2Curve>(201);
}

// The vector bucket reduction against running sums in scalar code; it must refuse (return false) when
// an addition inside would double or cancel, and for fewer than 16 buckets.
template <class C>
void bucket_sum_matches_running_sums(std::uint64_t seed, std::size_t max_used) {
  using A = Affine<C>;
  Rng rng(seed);
  std::vector<A> pool(40);
  for (auto& p : pool) p = random_point<C>(rng);
  auto to_bucket_form = [](const A& a) { return a.infinity ? a : A::from_xy(a.x, msm_ifma::y_to_bucket(a.y)); };
  auto expect_sum = [](const std::vector<A>& scalar_form, std::size_t used) {
    Xyzz<C> running, sum;
    for (std::size_t j = used; j-- > 0;) {
      running.add_affine(scalar_form[j]);
      sum.add(running);
    }
    return sum.to_jacobian();
  };
  // Dense buckets (none empty below `used`; the ones past it must be ignored) must be accepted; with a
  // quarter empty the reduction may refuse (see the header), and must be right where it accepts.
  // Distinct points in random order (repeated ones would double legitimately).
  DlogBases<C> distinct = dlog_bases<C>(rng, max_used);
  for (std::size_t i = distinct.bases.size(); i > 1; --i)
    std::swap(distinct.bases[i - 1], distinct.bases[rng.next() % i]);
  int accepted_sparse = 0;
  for (int sparse = 0; sparse < 2; ++sparse) {
    for (std::size_t used : {std::size_t(16), std::size_t(17), std::size_t(31), std::size_t(100), max_used}) {
      std::vector<A> scalar_form(used + 5), buckets(used + 5);
      for (std::size_t j = 0; j < used; ++j) {
        if (sparse && rng.next() % 4 == 0) continue;
        scalar_form[j] = distinct.bases[j];
      }
      for (std::size_t j = used; j < scalar_form.size(); ++j) scalar_form[j] = pool[j % pool.size()];
      for (std::size_t j = 0; j < buckets.size(); ++j) buckets[j] = to_bucket_form(scalar_form[j]);
      Xyzz<C> got;
      const bool ok = msm_ifma::bucket_sum<C>(buckets.data(), used, got);
      if (!sparse) {
        ASSERT_TRUE(ok) << used;
      }
      if (ok) {
        EXPECT_EQ(got.to_jacobian(), expect_sum(scalar_form, used)) << used << " sparse " << sparse;
      }
      accepted_sparse += sparse && ok;
    }
  }
  // Empty buckets only at the top of the segments (the first step from the top) are fine.
  {
    const std::size_t used = 64;  // segments of 4
    std::vector<A> scalar_form(used);
    for (std::size_t j = 0; j < used; ++j) {
      if (j % 4 != 3) scalar_form[j] = distinct.bases[j];
    }
    std::vector<A> buckets(used);
    for (std::size_t j = 0; j < used; ++j) buckets[j] = to_bucket_form(scalar_form[j]);
    Xyzz<C> got;
    ASSERT_TRUE(msm_ifma::bucket_sum<C>(buckets.data(), used, got));
    EXPECT_EQ(got.to_jacobian(), expect_sum(scalar_form, used));
  }
  // Every bucket the same point: the first running-sum step doubles.
  std::vector<A> same(64, to_bucket_form(pool[0]));
  Xyzz<C> out;
  EXPECT_FALSE(msm_ifma::bucket_sum<C>(same.data(), same.size(), out));
  // Bucket j holding -(bucket j+1) in one segment: the running sum cancels.
  std::vector<A> cancel(64);
  for (std::size_t j = 0; j < cancel.size(); ++j) cancel[j] = to_bucket_form(pool[j % pool.size()]);
  cancel[10] = to_bucket_form(-pool[11 % pool.size()]);
  EXPECT_FALSE(msm_ifma::bucket_sum<C>(cancel.data(), cancel.size(), out));
  EXPECT_FALSE(msm_ifma::bucket_sum<C>(cancel.data(), 15, out));
}

TEST(MsmIfma, BucketSumMatchesRunningSums) {
  REQUIRE_IFMA();
  bucket_sum_matches_running_sums<G1Curve>(106, 4096);
}

TEST(MsmIfma, G2BucketSumMatchesRunningSums) {
  REQUIRE_IFMA();
  bucket_sum_matches_running_sums<G2Curve>(206, 1000);
}

TEST(MsmIfma, BucketFormRoundTrip) {
  Rng rng(102);
  for (int i = 0; i < 100; ++i) {
    const Fp y = rng.fp();
    EXPECT_EQ(msm_ifma::y_from_bucket(msm_ifma::y_to_bucket(y)), y);
    EXPECT_EQ(msm_ifma::y_to_bucket(y) * Fp::from_u64(1 << 16), y);
    const Fp2 y2 = rng.fp2();
    EXPECT_EQ(msm_ifma::y_from_bucket(msm_ifma::y_to_bucket(y2)), y2);
    EXPECT_EQ(msm_ifma::y_to_bucket(y2) * Fp::from_u64(1 << 16), y2);
  }
}

// Random scalars at several sizes and windows >= 11 (the batch-affine range).
template <class C>
void random_matches_scalar_and_dlog(std::uint64_t seed, std::initializer_list<std::size_t> sizes,
                                    std::initializer_list<unsigned> windows) {
  Rng rng(seed);
  for (std::size_t n : sizes) {
    const DlogBases<C> d = dlog_bases<C>(rng, n);
    std::vector<Fr> ks(n);
    for (auto& k : ks) k = rng.fr();
    const Jacobian<C> expect = by_dlog<C>(d.bases, d.logs, ks);
    for (unsigned c : windows) check_both_paths<C>(d.bases, ks, expect, c, "random");
    // The automatic choices (window table, kAuto buckets) too.
    EXPECT_EQ(msm<C>(d.bases, ks), expect) << n;
  }
}

TEST(MsmIfma, RandomMatchesScalarAndDlog) {
  REQUIRE_IFMA();
  random_matches_scalar_and_dlog<G1Curve>(103, {1000, 4099, 20000}, {11u, 12u, 13u, 16u});
}

TEST(MsmIfma, G2RandomMatchesScalarAndDlog) {
  REQUIRE_IFMA();
  random_matches_scalar_and_dlog<G2Curve>(203, {1000, 5003}, {11u, 13u});
}

// Crafted inputs for the special cases of the affine addition. With c = 11 a batch holds 256
// additions; scalars (i % 256) + 1 put 256 consecutive points into 256 distinct buckets of window 0,
// so every later block of 256 meets buckets filled by the previous blocks.
template <class C>
void crafted_special_cases(std::uint64_t seed, std::size_t n) {
  using A = Affine<C>;
  Rng rng(seed);
  const DlogBases<C> d = dlog_bases<C>(rng, n);
  const A P = d.bases[0];
  const Fr logP = d.logs[0];
  auto block_digit = [](std::size_t i) { return Fr::from_u64(i % 256 + 1); };

  // Doubling: one base everywhere, so block 2 adds P to buckets holding P.
  {
    std::vector<A> bases(n, P);
    std::vector<Fr> logs(n, logP), ks(n);
    for (std::size_t i = 0; i < n; ++i) ks[i] = block_digit(i);
    check_both_paths<C>(bases, ks, by_dlog<C>(bases, logs, ks), 11, "doubling");
  }
  // Negative scalars in every other block (r - d: other digits in every window), then the real
  // cancellation: -P as the base with the digits of P, so buckets holding P meet -P.
  {
    std::vector<A> bases(n, P);
    std::vector<Fr> logs(n, logP), ks(n);
    for (std::size_t i = 0; i < n; ++i) ks[i] = (i / 256) % 3 == 1 ? -block_digit(i) : block_digit(i);
    check_both_paths<C>(bases, ks, by_dlog<C>(bases, logs, ks), 11, "negative scalars");
    // The same with -P as the base and positive digits (the bucket's y is the negation of the point's).
    for (std::size_t i = 0; i < n; ++i) {
      if ((i / 256) % 3 == 1) {
        bases[i] = -P;
        logs[i] = -logP;
        ks[i] = block_digit(i);
      }
    }
    check_both_paths<C>(bases, ks, by_dlog<C>(bases, logs, ks), 11, "cancellation by -P");
  }
  // Repeated distinct bases: 256 bases repeated, so buckets meet the same point again (doubling)
  // and sums of it; mixed with random bases and random scalars.
  {
    std::vector<A> bases(n);
    std::vector<Fr> logs(n), ks(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t src = rng.next() % 4 ? i % 256 : i;
      bases[i] = d.bases[src];
      logs[i] = d.logs[src];
      ks[i] = rng.next() % 4 ? block_digit(i) : rng.fr();
    }
    check_both_paths<C>(bases, ks, by_dlog<C>(bases, logs, ks), 11, "repeated bases");
    check_both_paths<C>(bases, ks, by_dlog<C>(bases, logs, ks), 13, "repeated bases");
  }
  // Infinity bases among the points (every third, and whole batches of them).
  {
    std::vector<A> bases = d.bases;
    std::vector<Fr> ks(n);
    for (std::size_t i = 0; i < n; ++i) {
      ks[i] = rng.next() % 2 ? block_digit(i) : rng.fr();
      if (i % 3 == 0 || (i >= n / 4 && i < n / 4 + 512)) bases[i] = A::identity();
    }
    check_both_paths<C>(bases, ks, by_dlog<C>(bases, d.logs, ks), 11, "infinity bases");
    check_both_paths<C>(bases, ks, by_dlog<C>(bases, d.logs, ks), 14, "infinity bases");
  }
  // All scalars equal: every point of a window in one bucket (one affine entry per batch, the rest
  // through the XYZZ side bucket); with distinct and with equal bases.
  {
    const Fr k = rng.fr();
    std::vector<Fr> ks(n, k);
    check_both_paths<C>(d.bases, ks, by_dlog<C>(d.bases, d.logs, ks), 12, "equal scalars");
    std::vector<A> same(n, P);
    std::vector<Fr> logs(n, logP);
    check_both_paths<C>(same, ks, by_dlog<C>(same, logs, ks), 12, "equal scalars, equal bases");
  }
  // Many empty buckets: few points over a large window (most lanes take the point as is).
  {
    std::vector<A> bases(d.bases.begin(), d.bases.begin() + 300);
    std::vector<Fr> logs(d.logs.begin(), d.logs.begin() + 300), ks(300);
    for (auto& k : ks) k = rng.fr();
    check_both_paths<C>(bases, ks, by_dlog<C>(bases, logs, ks), 16, "sparse buckets");
  }
}

TEST(MsmIfma, CraftedSpecialCases) {
  REQUIRE_IFMA();
  crafted_special_cases<G1Curve>(104, 4096);
}

TEST(MsmIfma, G2CraftedSpecialCases) {
  REQUIRE_IFMA();
  crafted_special_cases<G2Curve>(204, 2048);
}

// msm_bits (the 0/1 sums through batch-affine slots) on the IFMA path: slots meet the same base
// again when bases repeat.
TEST(MsmIfma, BitsWithRepeatedBases) {
  REQUIRE_IFMA();
  Rng rng(105);
  const std::size_t n = 20000;
  const DlogBases d = dlog_bases(rng, n);
  std::vector<G1Affine> bases(n);
  std::vector<Fr> logs(n), ks(n);
  std::vector<std::uint64_t> bits((n + 63) / 64, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t src = i % 3 ? i : i % 1024;
    bases[i] = d.bases[src];
    logs[i] = d.logs[src];
    if (rng.next() % 3) {
      bits[i / 64] |= std::uint64_t(1) << (i % 64);
      ks[i] = Fr::one();
    } else {
      ks[i] = Fr::zero();
    }
  }
  const G1Jacobian expect = by_dlog(bases, logs, ks);
  EXPECT_EQ(msm_g1_bits(bases, bits), expect);
  EXPECT_EQ(msm_g1_bits(bases, bits, 1), expect);
  EXPECT_EQ(msm_g1(bases, ks), expect);
}

}  // namespace
