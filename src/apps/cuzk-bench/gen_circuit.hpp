// Benchmark circuits of any size without a circom toolchain: a squaring chain
//   x_{i+1} = x_i * (x_i + c_i)  for i < n-1,   out = x_{n-1}   (public)
// with TEST-ONLY keys from groth16::generate_test_key (snarkjs layout), written as <dir>/<id>.zkey
// and its satisfying witness as <dir>/<id>.wtns.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.hpp"

namespace cuzk::bench {

struct GenCircuitOutput {
  std::string zkey, wtns;
  std::uint32_t constraints = 0, variables = 0;
  double seconds = 0;
};

Result<GenCircuitOutput> gen_circuit(std::uint32_t constraints, const std::string& dir, const std::string& id,
                                     std::uint64_t seed);

}  // namespace cuzk::bench
