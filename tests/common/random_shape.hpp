// Random R1CS shapes for key-generation tests (no witness: keys do not need one). Every variable
// appears in C (so every l / ic scalar is almost surely non-zero, as write_params requires), a share
// of the aux variables is missing from A and a larger share from B (so the a / b densities are
// partial), coefficients are random, rows hold 1..4 terms. Input rows are appended.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "groth16/r1cs.hpp"
#include "test_random.hpp"

namespace cuzk::test {

inline groth16::R1csShape random_shape(std::size_t rows, std::uint32_t inputs, std::uint32_t aux, std::uint64_t seed) {
  Rng rng(seed);
  groth16::R1csShape s;
  s.num_inputs = inputs;
  s.num_aux = aux;
  const std::uint32_t nvars = inputs + aux;
  auto pick = [&](std::uint32_t lo, std::uint32_t hi) { return lo + std::uint32_t(rng.next() % (hi - lo)); };
  // Variables >= a_end never appear in A, those >= b_end never in B.
  const std::uint32_t a_end = inputs + aux - aux / 5, b_end = inputs + aux / 3;
  auto row = [&](std::uint32_t must, std::uint32_t end) {
    std::vector<std::pair<std::uint32_t, math::Fr>> t;
    if (must != UINT32_MAX) t.push_back({must, rng.fr()});
    for (int n = int(rng.next() % 4); n > 0; --n) {
      std::uint32_t v = pick(0, end);
      if (std::none_of(t.begin(), t.end(), [&](auto& e) { return e.first == v; })) t.push_back({v, rng.fr()});
    }
    return t;
  };
  for (std::size_t r = 0; r < rows; ++r) {
    auto a = row(UINT32_MAX, a_end), b = row(UINT32_MAX, b_end);
    auto c = row(std::uint32_t(r % nvars), nvars);
    s.a.add_row(a);
    s.b.add_row(b);
    s.c.add_row(c);
  }
  s.append_input_rows();
  return s;
}

}  // namespace cuzk::test
