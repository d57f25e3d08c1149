#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "../common/test_random.hpp"
#include "math/ff/fp_ifma.hpp"
#include "math/poly/ntt.hpp"
#include "math/poly/ntt_ifma.hpp"

using namespace cuzk::math;
using cuzk::test::Rng;

namespace {

std::vector<Fr> random_vec(Rng& rng, std::size_t n) {
  std::vector<Fr> v(n);
  for (auto& x : v) x = rng.fr();
  return v;
}

// p(x) = sum_j c_j x^j by Horner.
Fr eval_poly(const std::vector<Fr>& c, const Fr& x) {
  Fr acc = Fr::zero();
  for (std::size_t j = c.size(); j-- > 0;) acc = acc * x + c[j];
  return acc;
}

// O(n^2) DFT: out_k = sum_j a_j w^(jk).
std::vector<Fr> naive_dft(const std::vector<Fr>& a, const Fr& w) {
  std::vector<Fr> out(a.size());
  Fr wk = Fr::one();
  for (std::size_t k = 0; k < a.size(); ++k) {
    out[k] = eval_poly(a, wk);
    wk *= w;
  }
  return out;
}

TEST(Ntt, DomainConstants) {
  for (unsigned k = 0; k <= kNttMaxLog; ++k) {
    const Domain& d = domain_for(k);
    ASSERT_EQ(d.log_size(), k);
    ASSERT_EQ(d.size(), std::size_t(1) << k);
    EXPECT_EQ(d.omega().pow(u64(d.size())), Fr::one());
    if (k > 0) {
      EXPECT_EQ(d.omega().pow(u64(d.size() / 2)), -Fr::one()) << k;  // primitive
    }
    EXPECT_EQ(d.omega() * d.omega_inv(), Fr::one());
    EXPECT_EQ(d.size_inv() * Fr::from_u64(d.size()), Fr::one());
    EXPECT_EQ(d.coset_gen(), Fr::from_u64(7));
    EXPECT_EQ(d.coset_gen() * d.coset_gen_inv(), Fr::one());
    if (k > 0) {
      EXPECT_EQ(domain_for(k - 1).omega(), d.omega().square());
    }
  }
  EXPECT_EQ(domain_for(1).omega(), -Fr::one());
  // 7 generates the 2-power part: the 2^32-th root is 7^((r-1)/2^32).
  Limbs<4> t = FrParams::kModulus;
  t[0] -= 1;
  for (int i = 0; i < 32; ++i)
    for (int l = 0; l < 4; ++l) t[l] = (t[l] >> 1) | (l < 3 ? t[l + 1] << 63 : 0);
  EXPECT_EQ(Fr::from_u64(7).pow(t), fr_root_of_unity());
}

TEST(Ntt, DomainCacheIsSharedAndThreadSafe) {
  std::vector<const Domain*> seen(8);
  std::vector<std::thread> ts;
  for (int i = 0; i < 8; ++i) ts.emplace_back([&, i] { seen[i] = &domain_for(17); });
  for (auto& t : ts) t.join();
  for (auto* p : seen) EXPECT_EQ(p, seen[0]);
  EXPECT_EQ(&domain_for_size(std::size_t(1) << 17), seen[0]);
}

TEST(Ntt, RejectsBadSizes) {
  EXPECT_THROW(Domain(kNttMaxLog + 1), std::invalid_argument);
  EXPECT_THROW(Domain(33), std::invalid_argument);
  EXPECT_THROW(domain_for(29), std::invalid_argument);
  EXPECT_THROW(domain_for(40), std::invalid_argument);
  EXPECT_THROW(domain_for_size(0), std::invalid_argument);
  EXPECT_THROW(domain_for_size(3), std::invalid_argument);
  EXPECT_THROW(domain_for_size(1000), std::invalid_argument);
  EXPECT_THROW(domain_for_size(std::size_t(1) << 29), std::invalid_argument);
  std::vector<Fr> v(7);
  const Domain& d = domain_for(3);
  EXPECT_THROW(ntt(d, v), std::invalid_argument);
  EXPECT_THROW(intt(d, v), std::invalid_argument);
  EXPECT_THROW(coset_ntt(d, v), std::invalid_argument);
  EXPECT_THROW(coset_intt(d, v), std::invalid_argument);
  EXPECT_THROW(coset_ntt(d, v, Fr::from_u64(5)), std::invalid_argument);
  std::vector<Fr> w(8);
  EXPECT_THROW(coset_intt(d, w, Fr::zero()), std::invalid_argument);
}

TEST(Ntt, MatchesNaiveDft) {
  Rng rng(1);
  for (unsigned k = 0; k <= 10; ++k) {
    const Domain& d = domain_for(k);
    auto a = random_vec(rng, d.size());
    auto expect = naive_dft(a, d.omega());
    auto got = a;
    ntt(d, got);
    ASSERT_EQ(got, expect) << "2^" << k;
    // intt is the DFT with w^-1 scaled by 1/n.
    auto inv = naive_dft(a, d.omega_inv());
    for (auto& x : inv) x *= d.size_inv();
    got = a;
    intt(d, got);
    ASSERT_EQ(got, inv) << "2^" << k;
  }
}

// Four-step sizes (above kNttDirectMaxLog): sampled outputs against direct polynomial evaluation.
TEST(Ntt, LargeSizesMatchEvaluation) {
  Rng rng(2);
  for (unsigned k = kNttDirectMaxLog + 1; k <= 16; ++k) {
    const Domain& d = domain_for(k);
    const std::size_t n = d.size();
    auto a = random_vec(rng, n);
    auto got = a;
    ntt(d, got);
    std::vector<std::size_t> idx = {0, 1, 2, n / 2, n / 2 + 1, n - 1};
    for (int i = 0; i < 6; ++i) idx.push_back(rng.next() % n);
    for (std::size_t i : idx) ASSERT_EQ(got[i], eval_poly(a, d.omega().pow(u64(i)))) << "2^" << k << " index " << i;
    auto cs = a;
    coset_ntt(d, cs);
    for (std::size_t i : idx) {
      ASSERT_EQ(cs[i], eval_poly(a, d.coset_gen() * d.omega().pow(u64(i)))) << "coset 2^" << k << " index " << i;
    }
  }
}

TEST(Ntt, RoundTrip) {
  Rng rng(3);
  for (unsigned k = 1; k <= 18; ++k) {
    const Domain& d = domain_for(k);
    auto a = random_vec(rng, d.size());
    auto b = a;
    ntt(d, b);
    intt(d, b);
    ASSERT_EQ(b, a) << "intt(ntt) 2^" << k;
    intt(d, b);
    ntt(d, b);
    ASSERT_EQ(b, a) << "ntt(intt) 2^" << k;
    coset_ntt(d, b);
    coset_intt(d, b);
    ASSERT_EQ(b, a) << "coset 2^" << k;
  }
}

// The four-step sizes' AVX-512 IFMA path (ntt_ifma.cpp) against the scalar one, bit for bit: every
// transform, the default and an arbitrary coset, one and several threads, random inputs and the
// extreme canonical values 0 and r - 1 (the lazy reductions' worst case).
TEST(Ntt, IfmaAndScalarPathsAgree) {
  if (!cuzk::math::ifma::available()) GTEST_SKIP() << "no AVX-512 IFMA here (or turned off)";
  Rng rng(9);
  const Fr shift = Fr::from_u64(11);
  for (unsigned k = kNttDirectMaxLog + 1; k <= 17; ++k) {
    const Domain& d = domain_for(k);
    auto a = random_vec(rng, d.size());
    if (k % 2)
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = i % 3 == 0 ? -Fr::one() : (i % 3 == 1 ? Fr::zero() : a[i]);
    for (std::size_t threads : {std::size_t(1), std::size_t(3)}) {
      for (int t = 0; t < 6; ++t) {
        auto run = [&](bool ifma) {
          cuzk::math::ntt_ifma::set_enabled(ifma);
          auto b = a;
          switch (t) {
            case 0: ntt(d, b, threads); break;
            case 1: intt(d, b, threads); break;
            case 2: coset_ntt(d, b, threads); break;
            case 3: coset_intt(d, b, threads); break;
            case 4: coset_ntt(d, b, shift, threads); break;
            default: coset_intt(d, b, shift, threads); break;
          }
          cuzk::math::ntt_ifma::set_enabled(true);
          return b;
        };
        ASSERT_EQ(run(true), run(false)) << "2^" << k << " transform " << t << " threads " << threads;
      }
    }
  }
  for (unsigned k : {20u, 22u}) {  // the largest sub-transforms (2^11 rows and columns), two transforms
    const Domain& d = domain_for(k);
    const auto a = random_vec(rng, d.size());
    for (bool coset : {false, true}) {
      std::vector<Fr> out[2];
      for (int ifma = 0; ifma < 2; ++ifma) {
        cuzk::math::ntt_ifma::set_enabled(ifma);
        out[ifma] = a;
        if (coset) coset_intt(d, out[ifma], 2);
        else ntt(d, out[ifma], 2);
        cuzk::math::ntt_ifma::set_enabled(true);
      }
      ASSERT_EQ(out[1], out[0]) << "2^" << k << (coset ? " coset_intt" : " ntt");
    }
  }
}

TEST(Ntt, SingleAndManyThreadsAgree) {
  Rng rng(4);
  for (unsigned k : {12u, 13u, 14u}) {  // every thread count, including ones that do not divide the work
    const Domain& d = domain_for(k);
    auto a = random_vec(rng, d.size());
    auto ref = a;
    ntt(d, ref, 1);
    for (std::size_t t = 2; t <= 9; ++t) {
      auto b = a;
      ntt(d, b, t);
      ASSERT_EQ(b, ref) << "2^" << k << " threads " << t;
      intt(d, b, t);
      ASSERT_EQ(b, a) << "2^" << k << " threads " << t;
    }
  }
  for (unsigned k : {12u, 13u, 15u}) {
    const Domain& d = domain_for(k);
    auto a = random_vec(rng, d.size());
    auto b = a, c = a;
    ntt(d, b, 1);
    ntt(d, c, 3);
    ASSERT_EQ(b, c);
    intt(d, b, 1);
    ASSERT_EQ(b, a);
    coset_intt(d, c, Fr::from_u64(5), 5);
    coset_ntt(d, c, Fr::from_u64(5), 2);
    ntt(d, a, 4);
    ASSERT_EQ(c, a);
  }
}

TEST(Ntt, CosetMatchesNaive) {
  Rng rng(5);
  for (unsigned k = 0; k <= 9; ++k) {
    const Domain& d = domain_for(k);
    auto a = random_vec(rng, d.size());
    auto got = a;
    coset_ntt(d, got);
    Fr x = d.coset_gen();
    for (std::size_t i = 0; i < d.size(); ++i, x *= d.omega()) ASSERT_EQ(got[i], eval_poly(a, x)) << k << " " << i;
    coset_intt(d, got);
    ASSERT_EQ(got, a);
  }
}

// snarkjs-style coset: shift by a primitive 2n-th root of unity, i.e. evaluate at the odd powers of w_2n.
TEST(Ntt, CosetWithArbitraryShift) {
  Rng rng(6);
  for (unsigned k : {0u, 1u, 4u, 8u, 12u}) {
    const Domain& d = domain_for(k);
    const Fr shift = domain_for(k + 1).omega();
    auto a = random_vec(rng, d.size());
    auto got = a;
    coset_ntt(d, got, shift);
    const std::size_t checks = std::min<std::size_t>(d.size(), 64);
    for (std::size_t t = 0; t < checks; ++t) {
      std::size_t i = d.size() <= 64 ? t : rng.next() % d.size();
      ASSERT_EQ(got[i], eval_poly(a, shift.pow(u64(2 * i + 1)))) << k << " " << i;
    }
    coset_intt(d, got, shift);
    ASSERT_EQ(got, a);
    // The default-shift overloads agree with passing 7 explicitly.
    auto x = a, y = a;
    coset_ntt(d, x);
    coset_ntt(d, y, Fr::from_u64(7));
    ASSERT_EQ(x, y);
    coset_intt(d, x);
    coset_intt(d, y, Fr::from_u64(7));
    ASSERT_EQ(x, y);
  }
}

TEST(Ntt, Linearity) {
  Rng rng(7);
  for (unsigned k : {5u, 11u, 12u, 13u}) {
    const Domain& d = domain_for(k);
    auto x = random_vec(rng, d.size()), y = random_vec(rng, d.size());
    Fr s = rng.fr();
    std::vector<Fr> z(d.size());
    for (std::size_t i = 0; i < z.size(); ++i) z[i] = s * x[i] + y[i];
    ntt(d, x);
    ntt(d, y);
    ntt(d, z);
    for (std::size_t i = 0; i < z.size(); ++i) ASSERT_EQ(z[i], s * x[i] + y[i]);
  }
}

TEST(Ntt, PolynomialMultiplication) {
  Rng rng(8);
  for (unsigned k : {1u, 6u, 9u, 12u}) {
    const Domain& d = domain_for(k);
    const std::size_t half = d.size() / 2;
    std::vector<Fr> p = random_vec(rng, half), q = random_vec(rng, half);
    std::vector<Fr> expect(d.size(), Fr::zero());
    for (std::size_t i = 0; i < half; ++i)
      for (std::size_t j = 0; j < half; ++j) expect[i + j] += p[i] * q[j];
    std::vector<Fr> pe(d.size(), Fr::zero()), qe(d.size(), Fr::zero());
    std::copy(p.begin(), p.end(), pe.begin());
    std::copy(q.begin(), q.end(), qe.begin());
    ntt(d, pe);
    ntt(d, qe);
    for (std::size_t i = 0; i < d.size(); ++i) pe[i] *= qe[i];
    intt(d, pe);
    ASSERT_EQ(pe, expect) << k;
    // Same product through the coset (what the Groth16 h(x) computation does).
    std::fill(qe.begin(), qe.end(), Fr::zero());
    std::vector<Fr> pc(d.size(), Fr::zero());
    std::copy(p.begin(), p.end(), pc.begin());
    std::copy(q.begin(), q.end(), qe.begin());
    coset_ntt(d, pc);
    coset_ntt(d, qe);
    for (std::size_t i = 0; i < d.size(); ++i) pc[i] *= qe[i];
    coset_intt(d, pc);
    ASSERT_EQ(pc, expect) << k;
  }
}

TEST(Ntt, ScaleByPowers) {
  Rng rng(9);
  auto a = random_vec(rng, 10000);
  auto b = a;
  Fr start = rng.fr(), ratio = rng.fr();
  scale_by_powers(b, start, ratio, 3);
  Fr p = start;
  for (std::size_t i = 0; i < a.size(); ++i, p *= ratio) ASSERT_EQ(b[i], a[i] * p);
}

}  // namespace
