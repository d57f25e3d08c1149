// A compact circuit assignment, the form the witness builder produces and the backends accept
// (Backend::start's second overload): inputs as Fr (ONE first), aux variables in allocation order with
// the binary ones kept as bits. ~90 % of a PoRep partition's aux are SHA-256 bits, so a 32 GiB
// partition's witness is ~0.5 GB instead of 4.17 GB of dense Fr — on the host and on the PCIe bus.
//
// Aux variable j is binary when bit j of `is_binary` is set; its value is then bit j of `bits`.
// Otherwise its value is values[rank(j)], rank(j) = number of non-binary aux before j (a popcount
// over the bitmap words, so a backend can expand it in parallel; the GPU does so with a prefix sum).
//
// It lives in groth16 (not circuit) because the backends take it; circuit::Witness is this type.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "math/ff/bls12_381.hpp"

namespace cuzk::groth16 {

using math::Fr;

struct CompactAssignment {
  std::vector<Fr> inputs;                // ONE, then the circuit's inputs in allocation order
  std::uint64_t num_aux = 0;
  std::vector<std::uint64_t> is_binary;  // bitset over aux, ceil(num_aux / 64) words
  std::vector<std::uint64_t> bits;       // bitset over aux (set only where is_binary)
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
  // Host bytes of the payload (what a backend uploads).
  std::size_t payload_bytes() const {
    return (inputs.size() + values.size()) * sizeof(Fr) + (is_binary.size() + bits.size()) * sizeof(std::uint64_t);
  }

  // The bitmaps and value count agree with num_aux (and no bit is set outside the binary aux):
  // what a backend checks before it trusts rank(j) < values.size(). Names the first mismatch.
  Status check() const;

  // Dense aux values in order (binary ones as 0/1).
  std::vector<Fr> aux_assignment() const;
  // The full dense assignment w (ONE, inputs, aux), what Backend::start's first overload takes.
  std::vector<Fr> assignment() const;

  // The compact form of a dense assignment (w[0..num_inputs) inputs, then aux): every aux equal to 0
  // or 1 becomes a bit. For tests and for callers that only have a dense witness.
  static CompactAssignment from_dense(std::span<const Fr> w, std::size_t num_inputs);
};

}  // namespace cuzk::groth16
