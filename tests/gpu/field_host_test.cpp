// CPU-only test of the device field/curve code: src/gpu/field.cuh and ec.cuh compile as plain C++
// with an exact emulation of the PTX carry chain, so the algorithms the GPU runs are checked here
// against the host reference (math::MontField, math::Xyzz) without a GPU. Registered with ctest.
#include <gtest/gtest.h>

#include <cstring>

#include "../common/test_random.hpp"
#include "gpu/ec.cuh"
#include "gpu/field.cuh"
#include "math/ec/bls12_381.hpp"

namespace cuzk {
namespace {

template <class D, class H>
D to_dev(const H& h) {
  static_assert(sizeof(D) == sizeof(H));
  D d;
  std::memcpy(&d, &h, sizeof(D));
  return d;
}
template <class H, class D>
H to_host(const D& d) {
  static_assert(sizeof(D) == sizeof(H));
  H h;
  std::memcpy(static_cast<void*>(&h), &d, sizeof(H));  // byte-compatible layouts (static_assert above)
  return h;
}

template <class HF, class DF>
void check_field(test::Rng& rng, int iters) {
  std::vector<HF> special = {HF::zero(), HF::one(), -HF::one(), HF::from_u64(2), -HF::from_u64(2)};
  for (int it = 0; it < iters; ++it) {
    HF a = it < (int)special.size() ? special[it] : rng.template field<HF>();
    HF b = it < (int)special.size() ? special[(it * 3 + 1) % special.size()] : rng.template field<HF>();
    if (it % 7 == 3) b = -HF::one();
    DF da = to_dev<DF>(a), db = to_dev<DF>(b);
    ASSERT_EQ(to_host<HF>(da * db), a * b) << it;
    ASSERT_EQ(to_host<HF>(DF::mul_cios(da, db)), a * b) << it;
    ASSERT_EQ(to_host<HF>(DF::mul_karatsuba(da, db)), a * b) << it;
    ASSERT_EQ(to_host<HF>(da + db), a + b) << it;
    ASSERT_EQ(to_host<HF>(da - db), a - b) << it;
    ASSERT_EQ(to_host<HF>(-da), -a) << it;
    ASSERT_EQ(to_host<HF>(da.sqr()), a.square()) << it;
    ASSERT_EQ(to_host<HF>(da.dbl()), a + a) << it;
    // lazy reduction: a*b - c*d with one reduction; a product of unreduced sums (each below 2p)
    HF c = special[(it + 2) % special.size()], d = rng.template field<HF>();
    if (it >= (int)special.size()) c = rng.template field<HF>();
    DF dc2 = to_dev<DF>(c), dd = to_dev<DF>(d);
    ASSERT_EQ(to_host<HF>(DF::mul_sub(da, db, dc2, dd)), a * b - c * d) << it;
    ASSERT_EQ(to_host<HF>(DF::mul_sub(dc2, dd, da, db)), c * d - a * b) << it;
    {
      gpu::u32 t[2 * DF::N];
      // redc needs t < pR: both factors unreduced for Fp (4p < R), one for Fr (4r > R > 2r)
      DF::mul_wide(DF::add_unreduced(da, db), dc2, t);
      ASSERT_EQ(to_host<HF>(DF::redc(t)), (a + b) * c) << it;
      if constexpr (DF::N == 12) {
        DF::mul_wide(DF::add_unreduced(da, db), DF::add_unreduced(dc2, dd), t);
        ASSERT_EQ(to_host<HF>(DF::redc(t)), (a + b) * (c + d)) << it;
      }
    }
    ASSERT_EQ(da.is_zero(), a.is_zero());
    ASSERT_EQ(da == db, a == b);
    // canonical conversions
    auto canon = a.to_canonical();
    DF dc;
    std::memcpy(&dc, canon.data(), sizeof(DF));
    ASSERT_EQ(to_host<HF>(dc.to_mont()), a);
    ASSERT_EQ(std::memcmp(da.from_mont().v, canon.data(), sizeof(DF)), 0);
    if (it < 3000) {
      ASSERT_EQ(to_host<HF>(da.inverse()), a.inverse()) << it;  // binary extended Euclid
    }
    if (it < 20) {
      ASSERT_EQ(to_host<HF>(da.inverse_fermat()), a.inverse()) << it;
    }
  }
  ASSERT_EQ(to_host<HF>(DF::one()), HF::one());
  // mul_sub at its bound: every operand p - 1, and c = 0 / 1 (the negated c is then p / p - 1)
  const HF m1 = -HF::one();
  const DF dm1 = to_dev<DF>(m1);
  for (const HF& c : {HF::zero(), HF::one(), m1})
    ASSERT_EQ(to_host<HF>(DF::mul_sub(dm1, dm1, to_dev<DF>(c), dm1)), m1 * m1 - c * m1);
}

// The 2N-word products behind lazy reduction, against a plain schoolbook product on 64-bit words,
// for any N-word inputs (all-ones words included: no carry may be dropped); the squaring for any input
// with the top bit clear.
template <class DF>
void check_wide(test::Rng& rng, int iters) {
  constexpr int N = DF::N;
  for (int it = 0; it < iters; ++it) {
    DF a, b;
    for (int i = 0; i < N; ++i) {
      a.v[i] = it % 4 == 0 ? 0xffffffffu : gpu::u32(rng.next());
      b.v[i] = it % 4 <= 1 ? 0xffffffffu : gpu::u32(rng.next());
    }
    if (it % 4 == 3) a.v[N - 1] = 0;  // shorter operand
    gpu::u64 ref[2 * N] = {};
    for (int i = 0; i < N; ++i) {
      gpu::u64 carry = 0;
      for (int j = 0; j < N; ++j) {
        gpu::u64 cur = gpu::u64(a.v[i]) * b.v[j] + ref[i + j] + carry;
        ref[i + j] = gpu::u32(cur);
        carry = cur >> 32;
      }
      ref[i + N] = carry;
    }
    gpu::u32 t[2 * N], s[2 * N], s2[2 * N];
    DF::mul_wide(a, b, t);
    for (int i = 0; i < 2 * N; ++i) ASSERT_EQ(t[i], ref[i]) << "mul_wide word " << i << " it " << it;
    // both product algorithms, whichever mul_wide selects
    gpu::detail::mul_wide_rows<N>(a.v, b.v, t);
    for (int i = 0; i < 2 * N; ++i) ASSERT_EQ(t[i], ref[i]) << "rows word " << i << " it " << it;
    gpu::detail::mul_wide_karatsuba<N>(a.v, b.v, t);
    for (int i = 0; i < 2 * N; ++i) ASSERT_EQ(t[i], ref[i]) << "karatsuba word " << i << " it " << it;
    a.v[N - 1] &= 0x7fffffffu;  // sqr_wide's domain: the top bit clear
    DF::sqr_wide(a, s);
    DF::mul_wide(a, a, s2);
    for (int i = 0; i < 2 * N; ++i) ASSERT_EQ(s[i], s2[i]) << "sqr_wide word " << i << " it " << it;
  }
}

// The binary inverse on the words that steer its loop: plain small integers and 2^k (long runs of
// halvings), p - 1 and p - 2^k (long runs of subtractions), as raw Montgomery words.
template <class HF, class DF>
void check_inverse_edges() {
  std::vector<DF> xs;
  for (gpu::u32 k : {1u, 2u, 3u, 5u, 0xffffffffu}) {
    DF x = DF::zero();
    x.v[0] = k;
    xs.push_back(x);
  }
  for (int bit = 0; bit < 32 * DF::N - 4; bit += 37) {  // 2^bit < p
    DF x = DF::zero();
    x.v[bit / 32] = 1u << (bit % 32);
    xs.push_back(x);
    xs.push_back(DF::modulus() - x);
  }
  for (const DF& x : xs) {
    const HF h = to_host<HF>(x);
    ASSERT_EQ(to_host<HF>(x.inverse()), h.inverse());
    ASSERT_EQ(to_host<HF>(x.inverse() * x), HF::one());
  }
}
TEST(GpuFieldHost, InverseEdges) {
  check_inverse_edges<math::Fp, gpu::Fp>();
  check_inverse_edges<math::Fr, gpu::Fr>();
}

TEST(GpuFieldHost, WideProducts) {
  test::Rng rng(16);
  check_wide<gpu::Fp>(rng, 4000);
  check_wide<gpu::Fr>(rng, 4000);
}

TEST(GpuFieldHost, Fp) {
  test::Rng rng(11);
  check_field<math::Fp, gpu::Fp>(rng, 20000);
}
TEST(GpuFieldHost, Fr) {
  test::Rng rng(12);
  check_field<math::Fr, gpu::Fr>(rng, 20000);
}

// Division by 2^k (the inverse NTT's 1/n) against multiplication by the inverse of 2^k, for every k,
// including 0, r - 1 and values whose low k bits are all zero (quotient digit 0).
TEST(GpuFieldHost, FrDivPow2) {
  test::Rng rng(17);
  std::vector<math::Fr> xs = {math::Fr::zero(), math::Fr::one(), -math::Fr::one(), math::Fr::from_u64(1u << 31)};
  for (int i = 0; i < 200; ++i) xs.push_back(rng.field<math::Fr>());
  for (int k = 1; k <= 31; ++k) {
    const math::Fr inv = math::Fr::from_u64(std::uint64_t(1) << k).inverse();
    for (const math::Fr& x : xs) {
      gpu::Fr d = to_dev<gpu::Fr>(x);
      ASSERT_EQ(to_host<math::Fr>(d.div_pow2(k)), x * inv) << "k " << k;
      d.v[0] &= ~((1u << k) - 1);  // still below r
      const math::Fr y = to_host<math::Fr>(d);
      ASSERT_EQ(to_host<math::Fr>(d.div_pow2(k)), y * inv) << "k " << k;
    }
  }
}

gpu::G1Affine to_dev_affine(const math::G1Affine& a) {
  if (a.infinity) return gpu::G1Affine::infinity();
  return gpu::G1Affine{to_dev<gpu::Fp>(a.x), to_dev<gpu::Fp>(a.y)};
}
math::G1Affine to_host_affine(const gpu::G1Affine& a) {
  if (a.is_inf()) return math::G1Affine::identity();
  return math::G1Affine::from_xy(to_host<math::Fp>(a.x), to_host<math::Fp>(a.y));
}
math::G1Jacobian jac(const gpu::G1Xyzz& p) { return math::G1Jacobian::from_affine(to_host_affine(p.to_affine())); }

TEST(GpuCurveHost, GeneratorMatches) { EXPECT_EQ(to_host_affine(gpu::g1_generator_dev()), math::g1_generator()); }

TEST(GpuCurveHost, XyzzAndJacobianFormulas) {
  test::Rng rng(13);
  for (int it = 0; it < 40; ++it) {
    math::G1Affine p = rng.g1(), q = rng.g1();
    if (it == 1) q = p;   // doubling branch
    if (it == 2) q = -p;  // cancellation branch
    if (it == 3) q = math::G1Affine::identity();
    auto hp = math::G1Jacobian::from_affine(p), hq = math::G1Jacobian::from_affine(q);
    // mixed addition
    auto dx = gpu::G1Xyzz::from_affine(to_dev_affine(p));
    dx.add_affine(to_dev_affine(q));
    ASSERT_EQ(jac(dx), hp + hq) << it;
    // XYZZ + XYZZ, including equal and opposite operands
    auto dy = gpu::G1Xyzz::from_affine(to_dev_affine(q));
    dy.add_affine(to_dev_affine(p));  // p + q again, other projective representation
    auto d2 = dx;
    d2.add(dy);
    ASSERT_EQ(jac(d2), (hp + hq).dbl()) << it;
    auto d3 = dx;
    d3.add(dx.neg());
    ASSERT_TRUE(d3.is_inf()) << it;
    ASSERT_EQ(jac(dx.dbl()), (hp + hq).dbl()) << it;
    // Jacobian (generators)
    auto dj = gpu::G1Jac::infinity();
    dj.add_affine(to_dev_affine(p));
    dj = dj.dbl();
    dj.add_affine(to_dev_affine(q));
    dj.add_affine(to_dev_affine(p));
    ASSERT_EQ(to_host_affine(dj.to_affine()), (hp.dbl() + hq + hp).to_affine()) << it;
  }
}

// The affine sum of the batch-affine MSM (affine_sum with the inverse of affine_sum_denominator) on
// generic pairs and every exceptional case: doubling, p + (-p), operands at infinity.
template <class DevAffine, class HostJacobian, class HostAffine, class ToDev, class ToHost>
void check_affine_sum(const std::vector<std::pair<HostAffine, HostAffine>>& cases, ToDev dev, ToHost host) {
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& [p, q] = cases[i];
    const DevAffine dp = dev(p), dq = dev(q);
    const auto d = gpu::affine_sum_denominator(dp, dq);
    ASSERT_FALSE(d.is_zero()) << i;
    const DevAffine s = gpu::affine_sum(dp, dq, d.inverse());
    ASSERT_EQ(host(s), (HostJacobian::from_affine(p) + HostJacobian::from_affine(q)).to_affine()) << i;
  }
}

TEST(GpuCurveHost, AffineSumG1) {
  test::Rng rng(14);
  const math::G1Affine p = rng.g1(), q = rng.g1(), inf = math::G1Affine::identity();
  check_affine_sum<gpu::G1Affine, math::G1Jacobian>(
      std::vector<std::pair<math::G1Affine, math::G1Affine>>{
          {p, q}, {q, p}, {p, p}, {p, -p}, {p, inf}, {inf, q}, {inf, inf}, {rng.g1(), rng.g1()}},
      to_dev_affine, to_host_affine);
}

TEST(GpuFieldHost, Fp2) {
  test::Rng rng(14);
  for (int it = 0; it < 3000; ++it) {
    math::Fp2 a = rng.fp2(), b = rng.fp2();
    const math::Fp m1 = -math::Fp::one();
    if (it == 0) a = b = math::Fp2{m1, m1};  // largest components: the unreduced sums are 2p - 2
    if (it == 1) a = math::Fp2{m1, math::Fp::zero()}, b = math::Fp2{math::Fp::zero(), m1};
    if (it == 2) a = math::Fp2{math::Fp::zero(), m1};  // c0 = -a1 b1 is negative before the fix-up
    auto da = to_dev<gpu::Fp2>(a), db = to_dev<gpu::Fp2>(b);
    ASSERT_EQ(to_host<math::Fp2>(da * db), a * b);
    ASSERT_EQ(to_host<math::Fp2>(da.sqr()), a.square());
    ASSERT_EQ(to_host<math::Fp2>(da + db), a + b);
    ASSERT_EQ(to_host<math::Fp2>(da - db), a - b);
    ASSERT_EQ(to_host<math::Fp2>(-da), -a);
    if (it < 300) {
      ASSERT_EQ(to_host<math::Fp2>(da.inverse()), a.inverse()) << it;
    }
  }
}

TEST(GpuCurveHost, G2Formulas) {
  test::Rng rng(15);
  auto dev = [](const math::G2Affine& a) {
    return a.infinity ? gpu::G2Affine::infinity() : gpu::G2Affine{to_dev<gpu::Fp2>(a.x), to_dev<gpu::Fp2>(a.y)};
  };
  auto host = [](const gpu::G2Affine& a) {
    return a.is_inf() ? math::G2Affine::identity()
                      : math::G2Affine::from_xy(to_host<math::Fp2>(a.x), to_host<math::Fp2>(a.y));
  };
  for (int it = 0; it < 6; ++it) {
    math::G2Affine p = rng.g2(), q = it == 1 ? p : rng.g2();
    auto hp = math::G2Jacobian::from_affine(p), hq = math::G2Jacobian::from_affine(q);
    auto x = gpu::G2Xyzz::from_affine(dev(p));
    x.add_affine(dev(q));
    ASSERT_EQ(host(x.to_affine()), (hp + hq).to_affine());
    auto y = x;
    y.add(x);
    ASSERT_EQ(host(y.to_affine()), (hp + hq).dbl().to_affine());
    auto j = gpu::G2Jac::infinity();
    j.add_affine(dev(p));
    j = j.dbl();
    j.add_affine(dev(q));
    ASSERT_EQ(host(j.to_affine()), (hp.dbl() + hq).to_affine());
  }
  const math::G2Affine p = rng.g2(), q = rng.g2(), inf = math::G2Affine::identity();
  check_affine_sum<gpu::G2Affine, math::G2Jacobian>(
      std::vector<std::pair<math::G2Affine, math::G2Affine>>{{p, q}, {p, p}, {p, -p}, {p, inf}, {inf, q}, {inf, inf}},
      dev, host);
}

}  // namespace
}  // namespace cuzk
