// The rank-1 constraint system a Groth16 proof is about: rows (A·w)(B·w) = (C·w) over Fr, stored as
// three CSR matrices. Variables are numbered inputs first (index 0 is the constant ONE), then aux —
// the order of both circom wires (1, public outputs, public inputs, private) and bellperson
// (alloc_input(ONE), inputs, then aux).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "math/ff/bls12_381.hpp"

namespace cuzk::groth16 {

using math::Fr;

struct CsrMatrix {
  std::vector<std::uint64_t> row_ptr{0};  // rows + 1 entries
  std::vector<std::uint32_t> cols;
  std::vector<Fr> vals;

  std::size_t rows() const { return row_ptr.size() - 1; }
  std::size_t nnz() const { return cols.size(); }
  // Coefficient of entry k (readers go through this, so the storage can change).
  const Fr& val(std::size_t k) const { return vals[k]; }
  // Host bytes held by the matrix.
  std::size_t memory_bytes() const {
    return row_ptr.size() * sizeof(std::uint64_t) + cols.size() * sizeof(std::uint32_t) + vals.size() * sizeof(Fr);
  }
  // Appends one row; terms with the same variable must already be merged by the caller.
  void add_row(std::span<const std::pair<std::uint32_t, Fr>> terms);
  void add_empty_row() { row_ptr.push_back(cols.size()); }
  Fr dot_row(std::size_t row, std::span<const Fr> w) const;
};

struct R1csShape {
  std::uint32_t num_inputs = 1;  // including ONE
  std::uint32_t num_aux = 0;
  CsrMatrix a, b, c;
  // snarkjs .zkey files carry only A and B; the prover then takes c_k = a_k * b_k, which is exact
  // for satisfying witnesses (and proofs are self-verified, so a bad witness cannot slip through).
  bool has_c = true;

  std::size_t num_constraints() const { return a.rows(); }
  std::size_t num_variables() const { return std::size_t(num_inputs) + num_aux; }

  // The rows x_i * 0 = 0 for every input (ONE included) that bellperson appends after synthesis and
  // snarkjs adds to the zkey; they make every input appear in A, so the IC query is independent.
  void append_input_rows();

  // log2 of the smallest power-of-two domain holding all rows.
  std::uint32_t domain_log2() const;
};

// a, b, c evaluations of every row for a full assignment w (size num_variables, w[0] = 1).
struct RowEvaluations {
  std::vector<Fr> a, b, c;
};
RowEvaluations evaluate_rows(const R1csShape& shape, std::span<const Fr> w);

// First row k with a_k * b_k != c_k (only meaningful when has_c), or nullopt when all hold.
std::optional<std::size_t> first_unsatisfied_row(const R1csShape& shape, std::span<const Fr> w);

// Density bitmaps: bit v set when variable v has a non-zero coefficient in some row of the matrix.
std::vector<bool> variable_density(const CsrMatrix& m, std::size_t num_variables);

}  // namespace cuzk::groth16
