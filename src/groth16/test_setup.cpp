#include "groth16/test_setup.hpp"

#include <sys/random.h>

#include "groth16/setup_scalars.hpp"

namespace cuzk::groth16 {
namespace {

using math::G1Curve;
using math::G2Curve;

Fr fr_from_stream(std::uint64_t& state) {
  math::Limbs<4> x;
  for (auto& l : x) {  // splitmix64: reproducible, NOT cryptographic (test keys only)
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    l = z ^ (z >> 31);
  }
  x[3] &= 0x3fffffffffffffffULL;
  return Fr::from_reduced(x);
}

}  // namespace

ToxicWaste ToxicWaste::from_seed(std::uint64_t seed) {
  std::uint64_t s = seed;
  ToxicWaste t;
  t.tau = fr_from_stream(s);
  t.alpha = fr_from_stream(s);
  t.beta = fr_from_stream(s);
  t.gamma = fr_from_stream(s);
  t.delta = fr_from_stream(s);
  return t;
}

ToxicWaste ToxicWaste::random() {
  std::uint64_t seed = 0;
  while (getrandom(&seed, sizeof seed, 0) != sizeof seed) {}
  // Mix in a second draw per element so the 320 bits of toxic waste do not hinge on one 64-bit seed.
  ToxicWaste t = from_seed(seed);
  std::uint64_t extra = 0;
  while (getrandom(&extra, sizeof extra, 0) != sizeof extra) {}
  ToxicWaste u = from_seed(extra);
  t.tau *= u.tau;
  t.alpha *= u.alpha;
  t.beta *= u.beta;
  t.gamma *= u.gamma;
  t.delta *= u.delta;
  return t;
}

VerifyingKey test_vk_elements(const ToxicWaste& t, FixedBaseMultiplier& mul) {
  VerifyingKey vk;
  math::G1Affine g1[3];
  math::G2Affine g2[3];
  const Fr k1[3] = {t.alpha, t.beta, t.delta}, k2[3] = {t.beta, t.gamma, t.delta};
  mul.mul_g1(k1, g1);
  mul.mul_g2(k2, g2);
  vk.alpha_g1 = g1[0];
  vk.beta_g1 = g1[1];
  vk.delta_g1 = g1[2];
  vk.beta_g2 = g2[0];
  vk.gamma_g2 = g2[1];
  vk.delta_g2 = g2[2];
  return vk;
}

Result<ProvingKey> generate_test_key(const R1csShape& shape, HBasis basis, const ToxicWaste& t,
                                     const SetupOptions& options) {
  auto sc = SetupScalars::compute(shape, basis, t, options.threads);
  if (!sc) return Error{sc.error()};
  std::unique_ptr<FixedBaseMultiplier> own;
  FixedBaseMultiplier* mul = options.multiplier;
  if (!mul) {
    own = make_cpu_fixed_base_multiplier(options.threads);
    mul = own.get();
  }

  ProvingKey pk;
  pk.h_basis = basis;
  pk.num_inputs = shape.num_inputs;
  pk.num_aux = shape.num_aux;
  pk.domain_log2 = sc->domain_log2();
  const auto& a_density = sc->a_density();
  const auto& b_density = sc->b_density();
  pk.a_aux_density = Density::from_bits({a_density.begin() + shape.num_inputs, a_density.end()});
  pk.b_input_density = Density::from_bits({b_density.begin(), b_density.begin() + shape.num_inputs});
  pk.b_aux_density = Density::from_bits({b_density.begin() + shape.num_inputs, b_density.end()});

  pk.vk = test_vk_elements(t, *mul);
  std::vector<Fr> s;
  auto scalars = [&](std::size_t n, auto fill) -> std::span<const Fr> {
    s.resize(n);
    fill(std::size_t(0), n, s.data());
    return s;
  };
  auto g1 = [&](auto& out, std::span<const Fr> ks) {  // every point written by mul_g1
    out.resize(ks.size());
    mul->mul_g1(ks, out);
  };
  g1(pk.vk.ic, scalars(sc->ic_count(), [&](auto lo, auto hi, Fr* o) { sc->fill_ic(lo, hi, o); }));
  g1(pk.l, scalars(sc->l_count(), [&](auto lo, auto hi, Fr* o) { sc->fill_l(lo, hi, o); }));
  g1(pk.a, scalars(sc->a_count(), [&](auto lo, auto hi, Fr* o) { sc->fill_a(lo, hi, o); }));
  auto bs = scalars(sc->b_count(), [&](auto lo, auto hi, Fr* o) { sc->fill_b(lo, hi, o); });
  g1(pk.b_g1, bs);
  pk.b_g2.resize(bs.size());
  mul->mul_g2(bs, pk.b_g2);
  s.resize(sc->h_count());
  if (auto st = sc->fill_h(0, s.size(), s.data()); !st) return Error{st.error()};
  g1(pk.h, s);
  if (auto st = pk.check_consistency(); !st) return Error{st.error()};
  return pk;
}

}  // namespace cuzk::groth16
