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
  std::vector<Fr> inputs;  // ONE, then the circuit's inputs in allocation order
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

// An assignment's values by variable index (ONE, inputs, aux), from the dense form or straight from
// the compact one without expanding it: the GPU prover's host row evaluations (a card too small for
// the shape beside a proof) read a 2^27 WindowPoSt witness this way instead of copying its 4.3 GB.
// The compact form must have passed CompactAssignment::check; the view keeps a reference to it.
class AssignmentView {
 public:
  explicit AssignmentView(std::span<const Fr> dense) : dense_(dense), size_(dense.size()) {}
  explicit AssignmentView(const CompactAssignment& c);

  std::size_t size() const { return size_; }
  const Fr& operator[](std::size_t v) const {
    if (!c_) return dense_[v];
    if (v < ni_) return c_->inputs[v];
    const std::uint64_t j = v - ni_, word = j >> 6, bit = std::uint64_t(1) << (j & 63);
    const std::uint64_t binary = c_->is_binary[word];
    if (binary & bit) return (c_->bits[word] & bit) ? one_ : zero_;
    return c_->values[rank_[word] + std::size_t(std::popcount(~binary & (bit - 1)))];
  }

 private:
  std::span<const Fr> dense_;
  const CompactAssignment* c_ = nullptr;
  std::size_t size_ = 0, ni_ = 0;
  std::vector<std::uint64_t> rank_;  // non-binary aux before each bitmap word
  Fr one_ = Fr::one(), zero_ = Fr::zero();
};

}  // namespace cuzk::groth16
