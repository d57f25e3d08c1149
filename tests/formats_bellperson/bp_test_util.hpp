// Shared helpers of the bellperson format tests: small hand-built circuits, test keys, temp dirs.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk::test_bp {

using groth16::R1csShape;
using math::Fr;
using Term = std::pair<std::uint32_t, Fr>;

struct Circuit {
  R1csShape shape;          // input rows appended
  std::vector<Fr> witness;  // full assignment, w[0] = 1
  std::vector<Fr> public_inputs() const {
    return std::vector<Fr>(witness.begin() + 1, witness.begin() + shape.num_inputs);
  }
};

// Public x, y; aux t, u, v, w, z (variables 0..7):
//   x*x = t,  t*x = u,  (u + x + 5)*1 = y,  v*v = v,  (x + v)*y = w,  t*1 = z
// Densities: A has aux t, u, v (not w, z); B has every input and aux v only; z appears only in C.
// 6 rows + 3 input rows -> domain 16 (h has 15 points); a = 3 + 3, b = 3 + 1, l = 5.
inline Circuit small_circuit(std::uint64_t x_value = 3) {
  Circuit c;
  auto& s = c.shape;
  s.num_inputs = 3;
  s.num_aux = 5;
  const std::uint32_t ONE = 0, X = 1, Y = 2, T = 3, U = 4, V = 5, W = 6, Z = 7;
  auto row = [&](std::vector<Term> a, std::vector<Term> b, std::vector<Term> cc) {
    s.a.add_row(a);
    s.b.add_row(b);
    s.c.add_row(cc);
  };
  const Fr one = Fr::one();
  row({{X, one}}, {{X, one}}, {{T, one}});
  row({{T, one}}, {{X, one}}, {{U, one}});
  row({{U, one}, {X, one}, {ONE, Fr::from_u64(5)}}, {{ONE, one}}, {{Y, one}});
  row({{V, one}}, {{V, one}}, {{V, one}});
  row({{X, one}, {V, one}}, {{Y, one}}, {{W, one}});
  row({{T, one}}, {{ONE, one}}, {{Z, one}});
  s.append_input_rows();
  Fr x = Fr::from_u64(x_value), t = x * x, u = t * x, y = u + x + Fr::from_u64(5), v = one;
  c.witness = {one, x, y, t, u, v, (x + v) * y, t};
  return c;
}

// n chained rows x_{i+1} = x_i * b + i with public a = x_0 and aux b, x_1..x_n.
inline Circuit chain_circuit(std::size_t n, std::uint64_t a = 5, std::uint64_t b = 7) {
  Circuit c;
  auto& s = c.shape;
  s.num_inputs = 2;
  s.num_aux = std::uint32_t(n + 1);
  const std::uint32_t B = 2;
  std::vector<Fr> w = {Fr::one(), Fr::from_u64(a), Fr::from_u64(b)};
  std::uint32_t prev = 1;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t next = std::uint32_t(3 + i);
    std::vector<Term> ra = {{prev, Fr::one()}}, rb = {{B, Fr::one()}}, rc = {{next, Fr::one()}, {0, -Fr::from_u64(i)}};
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

inline groth16::ProvingKey make_key(const R1csShape& shape, std::uint64_t seed) {
  auto pk = groth16::generate_test_key(shape, groth16::HBasis::kMonomialOverZ, groth16::ToxicWaste::from_seed(seed));
  EXPECT_TRUE(pk.ok()) << pk.error();
  return std::move(pk).value();
}

// A fresh empty directory, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("cuzk_bp_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == std::string::npos; }

}  // namespace cuzk::test_bp
