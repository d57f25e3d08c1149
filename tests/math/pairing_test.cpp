// Fp6/Fp12 tower, optimal ate pairing and fast subgroup checks.
//
// Reference values come from three independent places: plain definitions evaluated here (naive
// exponentiation by p^k and by (p^12 - 1)/r, [r]P == O), algebraic laws (bilinearity), and
// @noble/curves 2.4.0 known answers (tests/fixtures/noble/vectors.json).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../common/test_random.hpp"
#include "math/ec/subgroup.hpp"
#include "math/ff/fp12.hpp"
#include "math/pairing/pairing.hpp"

using namespace cuzk::math;
using cuzk::test::Rng;

namespace {

// ---- Small big-integer helpers for the reference exponents (wide enough for p^12) ----

using Big = Limbs<80>;  // 5120 bits; p^12 has 4568

Big big_from(const Limbs<6>& a) {
  Big r{};
  for (std::size_t i = 0; i < 6; ++i) r[i] = a[i];
  return r;
}
Big big_from_r() {
  Big r{};
  for (std::size_t i = 0; i < 4; ++i) r[i] = FrParams::kModulus[i];
  return r;
}
Big big_mul(const Big& a, const Big& b) {
  Big r{};
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (!a[i]) continue;
    u64 carry = 0;
    for (std::size_t j = 0; i + j < r.size(); ++j) {
      u128 t = u128(a[i]) * b[j] + r[i + j] + carry;
      r[i + j] = u64(t);
      carry = u64(t >> 64);
    }
    EXPECT_EQ(carry, 0u);
  }
  return r;
}
Big big_small(u64 v) {
  Big r{};
  r[0] = v;
  return r;
}
Big big_sub(const Big& a, const Big& b) {
  Big r;
  EXPECT_EQ(limbs::sub(r, a, b), 0u);
  return r;
}
Big big_add(const Big& a, const Big& b) {
  Big r;
  EXPECT_EQ(limbs::add(r, a, b), 0u);
  return r;
}
// Exact division; fails the test if d does not divide a.
Big big_div_exact(const Big& a, const Big& d) {
  Big q{}, rem{};
  for (std::size_t i = limbs::bit_length(a); i-- > 0;) {
    for (std::size_t k = rem.size(); k-- > 1;) rem[k] = (rem[k] << 1) | (rem[k - 1] >> 63);
    rem[0] = (rem[0] << 1) | u64(limbs::bit(a, i));
    if (!limbs::less_than(rem, d)) {
      limbs::sub(rem, rem, d);
      q[i / 64] |= u64(1) << (i % 64);
    }
  }
  EXPECT_TRUE(limbs::is_zero(rem));
  return q;
}
Big p_pow(int k) {
  Big r = big_small(1), p = big_from(FpParams::kModulus);
  for (int i = 0; i < k; ++i) r = big_mul(r, p);
  return r;
}

// ---- Random tower elements ----

Fp6 rand_fp6(Rng& rng) { return {rng.fp2(), rng.fp2(), rng.fp2()}; }
Fp12 rand_fp12(Rng& rng) { return {rand_fp6(rng), rand_fp6(rng)}; }
// An element of the cyclotomic subgroup: the easy part of the final exponentiation applied to a.
Fp12 cyclotomic(const Fp12& a) {
  Fp12 g = a.conjugate() * a.inverse();
  return g.frobenius_map(2) * g;
}

// ---- noble vectors ----

const nlohmann::json& noble() {
  static const nlohmann::json j = [] {
    std::ifstream in(std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/noble/vectors.json");
    EXPECT_TRUE(in.good()) << "missing tests/fixtures/noble/vectors.json";
    return nlohmann::json::parse(in);
  }();
  return j;
}
Fp fp_hex(const std::string& s) {
  auto v = Fp::from_hex(s);
  EXPECT_TRUE(v.has_value()) << s;
  return v.value_or(Fp::zero());
}
// noble's order: index 6i + 2j + k is c_i.c_j.c_k.
Fp12 fp12_from_json(const nlohmann::json& a) {
  EXPECT_EQ(a.size(), 12u);
  Fp2 c[6];
  for (std::size_t i = 0; i < 6; ++i) c[i] = {fp_hex(a[2 * i]), fp_hex(a[2 * i + 1])};
  return {{c[0], c[1], c[2]}, {c[3], c[4], c[5]}};
}
Fr fr_hex(const std::string& s) {
  auto v = Fr::from_hex(s);
  EXPECT_TRUE(v.has_value()) << s;
  return v.value_or(Fr::zero());
}

G1Affine g1_mul(const G1Affine& p, const Fr& k) { return G1Jacobian::from_affine(p).mul(k).to_affine(); }
G2Affine g2_mul(const G2Affine& p, const Fr& k) { return G2Jacobian::from_affine(p).mul(k).to_affine(); }

using Pair = std::pair<G1Affine, G2Affine>;

// =============================== Tower ===============================

TEST(Tower, Fp6FieldLaws) {
  Rng rng(100);
  const Fp2 xi{Fp::one(), Fp::one()};
  const Fp6 v{Fp2::zero(), Fp2::one(), Fp2::zero()};
  EXPECT_EQ(v * v * v, (Fp6{xi, Fp2::zero(), Fp2::zero()}));  // v^3 = 1 + u
  for (int i = 0; i < 20; ++i) {
    Fp6 a = rand_fp6(rng), b = rand_fp6(rng), c = rand_fp6(rng);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ(a.square(), a * a);
    EXPECT_EQ(a * a.inverse(), Fp6::one());
    EXPECT_EQ(a.mul_by_nonresidue(), a * v);
    EXPECT_EQ(a.mul_by_01(b.c0, b.c1), a * (Fp6{b.c0, b.c1, Fp2::zero()}));
    EXPECT_EQ(a.mul_by_1(b.c1), a * (Fp6{Fp2::zero(), b.c1, Fp2::zero()}));
    EXPECT_EQ(a * b.c2, a * (Fp6{b.c2, Fp2::zero(), Fp2::zero()}));
  }
  EXPECT_EQ(Fp6::zero().inverse(), Fp6::zero());
}

TEST(Tower, Fp12FieldLaws) {
  Rng rng(101);
  const Fp12 w{Fp6::zero(), Fp6::one()};
  const Fp6 v{Fp2::zero(), Fp2::one(), Fp2::zero()};
  EXPECT_EQ(w * w, (Fp12{v, Fp6::zero()}));  // w^2 = v
  for (int i = 0; i < 20; ++i) {
    Fp12 a = rand_fp12(rng), b = rand_fp12(rng), c = rand_fp12(rng);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ(a.square(), a * a);
    EXPECT_EQ(a * a.inverse(), Fp12::one());
    // conjugate is the p^6 Frobenius, an automorphism.
    EXPECT_EQ((a * b).conjugate(), a.conjugate() * b.conjugate());
    // Sparse line multiplication against the dense product.
    Fp2 l0 = rng.fp2(), l1 = rng.fp2(), l4 = rng.fp2();
    Fp12 sparse{{l0, l1, Fp2::zero()}, {Fp2::zero(), l4, Fp2::zero()}};
    EXPECT_EQ(a.mul_by_014(l0, l1, l4), a * sparse);
  }
  EXPECT_EQ(Fp12::zero().inverse(), Fp12::zero());
}

TEST(Tower, FrobeniusIsPowerOfP) {
  Rng rng(102);
  for (int k = 1; k <= 3; ++k) {
    Big e = p_pow(k);
    for (int i = 0; i < 3; ++i) {
      Fp12 a = rand_fp12(rng);
      EXPECT_EQ(a.frobenius_map(unsigned(k)), a.pow(e)) << "k=" << k;
      Fp6 b = rand_fp6(rng);
      Fp12 b12{b, Fp6::zero()};
      EXPECT_EQ((Fp12{b.frobenius_map(unsigned(k)), Fp6::zero()}), b12.pow(e)) << "k=" << k;
    }
  }
  Rng rng2(103);
  Fp12 a = rand_fp12(rng2);
  EXPECT_EQ(a.frobenius_map(0), a);
  EXPECT_EQ(a.frobenius_map(3).frobenius_map(3), a.conjugate());  // p^6
  EXPECT_EQ(a.frobenius_map(2).frobenius_map(1), a.frobenius_map(3));
}

TEST(Tower, FrobeniusCoefficientsMatchDefinition) {
  // gamma[k][i] = xi^(i (p^k - 1) / 6), recomputed with the full exponent instead of the shortcut.
  const Fp2 xi{Fp::one(), Fp::one()};
  const auto& g = frobenius_coeffs().gamma;
  for (int k = 1; k <= 3; ++k) {
    Big e = big_div_exact(big_sub(p_pow(k), big_small(1)), big_small(6));
    Fp12 xi12{{xi, Fp2::zero(), Fp2::zero()}, Fp6::zero()};
    Fp12 gk = xi12.pow(e);
    EXPECT_EQ(gk, (Fp12{{g[k][1], Fp2::zero(), Fp2::zero()}, Fp6::zero()})) << "k=" << k;
  }
}

TEST(Tower, CyclotomicSquare) {
  Rng rng(104);
  for (int i = 0; i < 20; ++i) {
    Fp12 g = cyclotomic(rand_fp12(rng));
    EXPECT_EQ(g * g.conjugate(), Fp12::one());  // in the cyclotomic subgroup the conjugate inverts
    EXPECT_EQ(g.cyclotomic_square(), g.square());
  }
}

TEST(Tower, NobleFp12KnownAnswers) {
  const auto& cases = noble().at("fp12");
  ASSERT_GE(cases.size(), 1u);
  for (const auto& c : cases) {
    Fp12 a = fp12_from_json(c.at("a")), b = fp12_from_json(c.at("b"));
    EXPECT_EQ(a * b, fp12_from_json(c.at("mul")));
    EXPECT_EQ(a.inverse(), fp12_from_json(c.at("inv")));
  }
}

// =============================== Pairing ===============================

TEST(Pairing, NobleKnownAnswers) {
  const auto& cases = noble().at("pairing");
  ASSERT_GE(cases.size(), 1u);
  for (const auto& c : cases) {
    Fr a = fr_hex(c.at("a")), b = fr_hex(c.at("b"));
    G1Affine p = g1_mul(g1_generator(), a);
    G2Affine q = g2_mul(g2_generator(), b);
    Fp12 expect = fp12_from_json(c.at("value"));
    EXPECT_EQ(pairing(p, q), expect) << "a=" << c.at("a") << " b=" << c.at("b");
    G2Prepared qp(q);
    const PreparedPair pp[1] = {{p, &qp}};
    EXPECT_EQ(final_exponentiation(miller_loop(pp)), expect);
  }
}

TEST(Pairing, FinalExponentiationMatchesNaiveExponent) {
  // (p^12 - 1) / r, exactly; our GT convention is its triple (see pairing.hpp).
  Big e = big_div_exact(big_sub(p_pow(12), big_small(1)), big_from_r());
  Big e3 = big_add(big_add(e, e), e);
  Rng rng(200);
  for (int i = 0; i < 2; ++i) {
    Fp12 f = rand_fp12(rng);
    Fp12 naive = f.pow(e);
    EXPECT_EQ(final_exponentiation(f), naive.square() * naive);
    EXPECT_EQ(final_exponentiation(f), f.pow(e3));
    EXPECT_NE(final_exponentiation(f), naive);  // the cube differs from naive unless naive = 1
  }
  // On real Miller-loop output too.
  const Pair pr[1] = {{rng.g1(), rng.g2()}};
  Fp12 m = miller_loop(pr);
  Fp12 naive = m.pow(e);
  EXPECT_EQ(final_exponentiation(m), naive.square() * naive);
}

TEST(Pairing, Bilinearity) {
  Rng rng(201);
  const G1Affine& g1 = g1_generator();
  const G2Affine& g2 = g2_generator();
  Fp12 base = pairing(g1, g2);
  for (int i = 0; i < 4; ++i) {
    Fr a = rng.fr(), b = rng.fr();
    Fp12 lhs = pairing(g1_mul(g1, a), g2_mul(g2, b));
    EXPECT_EQ(lhs, base.pow((a * b).to_canonical()));
    EXPECT_EQ(lhs, pairing(g1_mul(g1, a * b), g2));
    EXPECT_EQ(lhs, pairing(g1, g2_mul(g2, a * b)));
  }
  // Linearity in each argument separately: e(P1 + P2, Q) = e(P1, Q) e(P2, Q) and likewise in Q.
  G1Affine p1 = rng.g1(), p2 = rng.g1();
  G2Affine q1 = rng.g2(), q2 = rng.g2();
  G1Affine p12 = (G1Jacobian::from_affine(p1) + G1Jacobian::from_affine(p2)).to_affine();
  G2Affine q12 = (G2Jacobian::from_affine(q1) + G2Jacobian::from_affine(q2)).to_affine();
  EXPECT_EQ(pairing(p12, q1), pairing(p1, q1) * pairing(p2, q1));
  EXPECT_EQ(pairing(p1, q12), pairing(p1, q1) * pairing(p1, q2));
}

TEST(Pairing, NonDegenerateAndOrderR) {
  Fp12 e = pairing(g1_generator(), g2_generator());
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(e.pow(FrParams::kModulus).is_one());
  EXPECT_EQ(e * e.conjugate(), Fp12::one());  // GT sits in the cyclotomic subgroup
}

TEST(Pairing, ProductWithNegationIsOne) {
  Rng rng(202);
  for (int i = 0; i < 3; ++i) {
    G1Affine p = rng.g1();
    G2Affine q = rng.g2();
    const Pair cancel[2] = {{p, q}, {-p, q}};
    EXPECT_TRUE(pairing_product_is_one(cancel));
    const Pair cancel_q[2] = {{p, q}, {p, -q}};
    EXPECT_TRUE(pairing_product_is_one(cancel_q));
    const Pair not_cancel[2] = {{p, q}, {p, q}};
    EXPECT_FALSE(pairing_product_is_one(not_cancel));
  }
  // The Groth16 shape: e(aP, bQ) e(-abP, Q) = 1.
  Fr a = rng.fr(), b = rng.fr();
  const Pair groth[2] = {{g1_mul(g1_generator(), a), g2_mul(g2_generator(), b)},
                         {-g1_mul(g1_generator(), a * b), g2_generator()}};
  EXPECT_TRUE(pairing_product_is_one(groth));
}

TEST(Pairing, MultiPairingEqualsProductOfPairings) {
  Rng rng(203);
  // 19 pairs: more than two of the internal groups of 8, plus identities sprinkled in.
  std::vector<Pair> pairs;
  Fp12 expect = Fp12::one();
  for (int i = 0; i < 19; ++i) {
    Pair pr{rng.g1(), rng.g2()};
    if (i == 3) pr.first = G1Affine::identity();
    if (i == 11) pr.second = G2Affine::identity();
    pairs.push_back(pr);
    expect *= pairing(pr.first, pr.second);
  }
  EXPECT_EQ(final_exponentiation(miller_loop(pairs)), expect);
  // Miller loop outputs multiply too (before the final exponentiation), up to erased factors only.
  Fp12 ml = Fp12::one();
  for (const Pair& pr : pairs) ml *= miller_loop(std::span<const Pair>(&pr, 1));
  EXPECT_EQ(final_exponentiation(ml), expect);
}

TEST(Pairing, PreparedEqualsUnprepared) {
  Rng rng(204);
  std::vector<Pair> pairs;
  std::vector<G2Prepared> prep;
  for (int i = 0; i < 10; ++i) pairs.push_back({rng.g1(), rng.g2()});
  prep.reserve(pairs.size());
  for (const Pair& pr : pairs) prep.emplace_back(pr.second);
  std::vector<PreparedPair> pp;
  for (std::size_t i = 0; i < pairs.size(); ++i) pp.push_back({pairs[i].first, &prep[i]});

  // Bit-exact Miller-loop outputs, single and multi, since the lines are the same computation.
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(miller_loop(std::span<const Pair>(&pairs[i], 1)), miller_loop(std::span<const PreparedPair>(&pp[i], 1)));
  }
  Fp12 all = miller_loop(pairs);
  EXPECT_EQ(miller_loop(pp), all);
  // Mixed: first four unprepared, the rest prepared, in one loop.
  EXPECT_EQ(miller_loop(std::span<const Pair>(pairs).first(4), std::span<const PreparedPair>(pp).subspan(4)), all);
  // And the mixed product check.
  std::vector<Pair> with_neg = {pairs[0], {-pairs[1].first, pairs[1].second}};
  const PreparedPair mixed[2] = {{-pairs[0].first, &prep[0]}, {pairs[1].first, &prep[1]}};
  EXPECT_TRUE(pairing_product_is_one(with_neg, mixed));
  EXPECT_FALSE(pairing_product_is_one(with_neg, std::span<const PreparedPair>(mixed, 1)));
}

TEST(Pairing, IdentityHandling) {
  Rng rng(205);
  G1Affine p = rng.g1();
  G2Affine q = rng.g2();
  EXPECT_TRUE(pairing(G1Affine::identity(), q).is_one());
  EXPECT_TRUE(pairing(p, G2Affine::identity()).is_one());
  EXPECT_TRUE(pairing(G1Affine::identity(), G2Affine::identity()).is_one());
  EXPECT_TRUE(miller_loop(std::span<const Pair>{}).is_one());
  EXPECT_TRUE(pairing_product_is_one(std::span<const Pair>{}));
  const Pair only_identities[2] = {{G1Affine::identity(), q}, {p, G2Affine::identity()}};
  EXPECT_TRUE(miller_loop(only_identities).is_one());
  EXPECT_TRUE(pairing_product_is_one(only_identities));
  // Identity terms do not disturb the others.
  const Pair mixed[3] = {{p, q}, {G1Affine::identity(), q}, {p, G2Affine::identity()}};
  EXPECT_EQ(final_exponentiation(miller_loop(mixed)), pairing(p, q));
  // Prepared identity.
  G2Prepared none;
  G2Prepared none2(G2Affine::identity());
  G2Prepared some(q);
  const PreparedPair pp[3] = {{p, &none}, {p, &none2}, {G1Affine::identity(), &some}};
  EXPECT_TRUE(miller_loop(pp).is_one());
  EXPECT_TRUE(pairing_product_is_one({}, pp));
}

// =============================== Subgroup checks ===============================

// A point on E(Fp) (G1 curve) with small x; they are essentially never in G1 (cofactor 2^126).
std::vector<G1Affine> g1_small_x_points(std::size_t n) {
  std::vector<G1Affine> out;
  for (u64 i = 0; out.size() < n; ++i) {
    Fp x = Fp::from_u64(i);
    if (auto y = (x.square() * x + G1Curve::b()).sqrt()) out.push_back(G1Affine::from_xy(x, i % 2 ? -*y : *y));
  }
  return out;
}
std::vector<G2Affine> g2_small_x_points(std::size_t n) {
  std::vector<G2Affine> out;
  for (u64 i = 0; out.size() < n; ++i) {
    Fp2 x{Fp::from_u64(i / 3), Fp::from_u64(i % 3)};
    if (auto y = (x.square() * x + G2Curve::b()).sqrt()) out.push_back(G2Affine::from_xy(x, i % 2 ? -*y : *y));
  }
  return out;
}

TEST(Subgroup, EndomorphismsActAsScalars) {
  // beta is a primitive cube root of unity; sigma and psi act on the subgroups as -x^2 and x.
  const Fp& beta = g1_sigma_beta();
  EXPECT_FALSE(beta.is_one());
  EXPECT_TRUE((beta.square() * beta).is_one());
  Rng rng(300);
  // -x^2 mod r and x mod r, as Fr elements.
  Fr x = -Fr::from_u64(kBlsXAbs);
  Fr minus_x2 = -(x * x);
  for (int i = 0; i < 4; ++i) {
    G1Affine p = rng.g1();
    EXPECT_EQ(g1_sigma(p), g1_mul(p, minus_x2));
    G2Affine q = rng.g2();
    EXPECT_EQ(g2_psi(q), g2_mul(q, x));
    EXPECT_TRUE(g2_psi(q).is_on_curve());
  }
  // psi is also p-power Frobenius in disguise: it maps any twist point back onto the twist.
  for (const G2Affine& q : g2_small_x_points(4)) EXPECT_TRUE(g2_psi(q).is_on_curve());
}

TEST(Subgroup, G1FastMatchesOrderCheck) {
  Rng rng(301);
  // In the subgroup: k*G and cofactor-cleared random curve points ([h1]R, h1 = (x - 1)^2 / 3).
  const Limbs<2> h1 = {0x8c00aaab0000aaabULL, 0x396c8c005555e156ULL};
  std::vector<G1Affine> in, out;
  for (int i = 0; i < 16; ++i) in.push_back(rng.g1());
  for (const G1Affine& r : g1_small_x_points(16)) {
    in.push_back(G1Jacobian::from_affine(r).mul(h1).to_affine());
    out.push_back(r);
    // [r]R is pure cofactor torsion, S + [r]R mixes both components: neither is in G1 unless [r]R = O.
    G1Jacobian tors = G1Jacobian::from_affine(r).mul(FrParams::kModulus);
    ASSERT_FALSE(tors.is_identity());
    out.push_back(tors.to_affine());
    out.push_back((tors + G1Jacobian::from_affine(in[out.size() % 16])).to_affine());
  }
  // (0, +-2) has order 3; it and its sums with subgroup points are outside G1.
  G1Affine t3 = G1Affine::from_xy(Fp::zero(), Fp::from_u64(2));
  out.push_back(t3);
  out.push_back(-t3);
  out.push_back((G1Jacobian::from_affine(t3) + G1Jacobian::from_affine(in[0])).to_affine());
  in.push_back(G1Affine::identity());
  for (const G1Affine& p : in) {
    ASSERT_TRUE(p.is_on_curve());
    EXPECT_TRUE(in_prime_subgroup_by_order(p));
    EXPECT_TRUE(g1_in_subgroup_fast(p));
    EXPECT_TRUE(in_prime_subgroup(p));
  }
  for (const G1Affine& p : out) {
    ASSERT_TRUE(p.is_on_curve());
    EXPECT_FALSE(in_prime_subgroup_by_order(p));
    EXPECT_FALSE(g1_in_subgroup_fast(p));
    EXPECT_FALSE(in_prime_subgroup(p));
  }
}

TEST(Subgroup, G2FastMatchesOrderCheck) {
  Rng rng(302);
  std::vector<G2Affine> in, out;
  for (int i = 0; i < 16; ++i) in.push_back(rng.g2());
  in.push_back(G2Affine::identity());
  for (const G2Affine& r : g2_small_x_points(16)) {
    out.push_back(r);
    G2Jacobian tors = G2Jacobian::from_affine(r).mul(FrParams::kModulus);
    ASSERT_FALSE(tors.is_identity());
    out.push_back(tors.to_affine());
    out.push_back((tors + G2Jacobian::from_affine(in[out.size() % 16])).to_affine());
  }
  for (const G2Affine& p : in) {
    ASSERT_TRUE(p.is_on_curve());
    EXPECT_TRUE(in_prime_subgroup_by_order(p));
    EXPECT_TRUE(g2_in_subgroup_fast(p));
    EXPECT_TRUE(in_prime_subgroup(p));
  }
  for (const G2Affine& p : out) {
    ASSERT_TRUE(p.is_on_curve());
    EXPECT_FALSE(in_prime_subgroup_by_order(p));
    EXPECT_FALSE(g2_in_subgroup_fast(p));
    EXPECT_FALSE(in_prime_subgroup(p));
  }
}

}  // namespace
