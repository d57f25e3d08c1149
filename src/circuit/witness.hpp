// A circuit assignment as the witness builder produces it: inputs as Fr (ONE first), aux variables
// in allocation order with binary ones kept as bits (ARCHITECTURE.md seam 3). Most PoRep aux
// variables are SHA-256 bits, so this is ~1/256 the size of a dense Fr vector for them.
//
// Aux variable j is binary when bit j of `is_binary` is set; its value is then bit j of `bits`.
// Otherwise its value is values[rank(j)], rank(j) = number of non-binary aux before j.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "math/ff/bls12_381.hpp"

namespace cuzk::circuit {

using math::Fr;

struct Witness {
  std::vector<Fr> inputs;               // ONE, then the circuit's inputs in allocation order
  std::uint64_t num_aux = 0;
  std::vector<std::uint64_t> is_binary;  // bitset over aux
  std::vector<std::uint64_t> bits;       // bitset over aux (meaningful where is_binary)
  std::vector<Fr> values;                // non-binary aux values, in order

  void reserve(std::size_t n_inputs, std::size_t n_aux, std::size_t n_values) {
    inputs.reserve(n_inputs);
    is_binary.reserve((n_aux + 63) / 64);
    bits.reserve((n_aux + 63) / 64);
    values.reserve(n_values);
  }

  // Appends; return the new aux index. No allocation per variable beyond amortized vector growth.
  std::uint32_t push_bit(bool b) {
    std::uint64_t j = num_aux++;
    if ((j & 63) == 0) {
      is_binary.push_back(0);
      bits.push_back(0);
    }
    is_binary.back() |= std::uint64_t(1) << (j & 63);
    bits.back() |= std::uint64_t(b) << (j & 63);
    return std::uint32_t(j);
  }
  std::uint32_t push_value(const Fr& v) {
    std::uint64_t j = num_aux++;
    if ((j & 63) == 0) {
      is_binary.push_back(0);
      bits.push_back(0);
    }
    values.push_back(v);
    return std::uint32_t(j);
  }

  bool aux_is_binary(std::uint64_t j) const { return (is_binary[j >> 6] >> (j & 63)) & 1; }
  std::size_t num_binary() const {
    std::size_t n = 0;
    for (auto w : is_binary) n += std::size_t(std::popcount(w));
    return n;
  }
  std::size_t num_variables() const { return inputs.size() + num_aux; }

  // Dense aux values in order (binary ones as 0/1).
  std::vector<Fr> aux_assignment() const {
    std::vector<Fr> out;
    out.reserve(num_aux);
    std::size_t k = 0;
    for (std::uint64_t j = 0; j < num_aux; ++j) {
      if (aux_is_binary(j)) {
        out.push_back(((bits[j >> 6] >> (j & 63)) & 1) ? Fr::one() : Fr::zero());
      } else {
        out.push_back(values[k++]);
      }
    }
    return out;
  }
  // The full assignment w (ONE, inputs, aux) the Groth16 prover takes.
  std::vector<Fr> assignment() const {
    std::vector<Fr> out = inputs;
    auto aux = aux_assignment();
    out.insert(out.end(), aux.begin(), aux.end());
    return out;
  }
};

}  // namespace cuzk::circuit
