// Small circuits built by hand for prover tests, with their witnesses.
#pragma once

#include <vector>

#include "groth16/r1cs.hpp"

namespace cuzk::test {

struct ToyCircuit {
  groth16::R1csShape shape;       // input rows appended
  std::vector<math::Fr> witness;  // full assignment, w[0] = 1
};

// Public inputs x, y; aux t, u, v, d:
//   x * x = t,  t * x = u,  (u + 5x + 3) * 1 = v,  y * 1 = v   (so y = x^3 + 5x + 3),
//   (x + y) * (x - y) = d.
// Mixes constant terms, a linear-only row (B = ONE) and negative coefficients.
inline ToyCircuit cubic_circuit(std::uint64_t x_value) {
  using math::Fr;
  using T = std::pair<std::uint32_t, Fr>;
  ToyCircuit c;
  auto& s = c.shape;
  s.num_inputs = 3;  // ONE, x, y
  s.num_aux = 4;     // t, u, v, d
  const std::uint32_t ONE = 0, X = 1, Y = 2, Tv = 3, U = 4, V = 5, D = 6;
  auto row = [&](std::vector<T> a, std::vector<T> b, std::vector<T> cc) {
    s.a.add_row(a);
    s.b.add_row(b);
    s.c.add_row(cc);
  };
  row({{X, Fr::one()}}, {{X, Fr::one()}}, {{Tv, Fr::one()}});
  row({{Tv, Fr::one()}}, {{X, Fr::one()}}, {{U, Fr::one()}});
  row({{U, Fr::one()}, {X, Fr::from_u64(5)}, {ONE, Fr::from_u64(3)}}, {{ONE, Fr::one()}}, {{V, Fr::one()}});
  row({{Y, Fr::one()}}, {{ONE, Fr::one()}}, {{V, Fr::one()}});
  row({{X, Fr::one()}, {Y, Fr::one()}}, {{X, Fr::one()}, {Y, -Fr::one()}}, {{D, Fr::one()}});
  s.append_input_rows();
  Fr x = Fr::from_u64(x_value), t = x * x, u = t * x, v = u + Fr::from_u64(5) * x + Fr::from_u64(3);
  c.witness = {Fr::one(), x, v, t, u, v, (x + v) * (x - v)};
  return c;
}

// n chained multiplications x_{i+1} = x_i * b + i with public a (like peers-and-deps' MulChain).
inline ToyCircuit mulchain_circuit(std::size_t n, std::uint64_t a, std::uint64_t b) {
  using math::Fr;
  using T = std::pair<std::uint32_t, Fr>;
  ToyCircuit c;
  auto& s = c.shape;
  s.num_inputs = 2;                  // ONE, a
  s.num_aux = std::uint32_t(n + 1);  // b, x_1..x_n
  const std::uint32_t B = 2;
  std::vector<Fr> w = {Fr::one(), Fr::from_u64(a), Fr::from_u64(b)};
  std::uint32_t prev = 1;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t next = std::uint32_t(3 + i);
    std::vector<T> ra = {{prev, Fr::one()}}, rb = {{B, Fr::one()}}, rc = {{next, Fr::one()}, {0, -Fr::from_u64(i)}};
    s.a.add_row(ra);
    s.b.add_row(rb);
    s.c.add_row(rc);
    w.push_back(w[prev] * w[B] + Fr::from_u64(i));
    prev = next;
  }
  s.append_input_rows();
  c.witness = std::move(w);
  return c;
}

}  // namespace cuzk::test
