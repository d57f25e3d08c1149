// The rank-1 constraint system a Groth16 proof is about: rows (A·w)(B·w) = (C·w) over Fr, stored as
// three CSR matrices. Variables are numbered inputs first (index 0 is the constant ONE), then aux —
// the order of both circom wires (1, public outputs, public inputs, private) and bellperson
// (alloc_input(ONE), inputs, then aux).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "groth16/witness.hpp"
#include "math/ff/bls12_381.hpp"

namespace cuzk::groth16 {

using math::Fr;

// Hash of a coefficient's Montgomery limbs (the dictionary key of CsrMatrix and shape_io).
struct FrLimbsHash {
  std::size_t operator()(const math::Limbs<4>& k) const {
    return std::size_t((k[0] * 0x9e3779b97f4a7c15ULL) ^ k[1] ^ (k[2] << 1) ^ (k[3] << 2));
  }
};

// A sparse matrix in CSR form with dictionary-coded coefficients. Circuits reuse very few distinct
// coefficients (±1, powers of two, Poseidon constants: a few thousand for a whole PoRep partition),
// so each entry stores a u32 column and a u32 id into `coeffs` (8 bytes instead of 36); the 32 GiB
// PoRep partition's three matrices hold 722M entries. Readers go through val(k).
struct CsrMatrix {
  std::vector<std::uint64_t> row_ptr{0};  // rows + 1 entries
  std::vector<std::uint32_t> cols;
  std::vector<std::uint32_t> coeff_ids;  // per entry: index into coeffs
  std::vector<Fr> coeffs;                // the distinct coefficients (no duplicates)

  std::size_t rows() const { return row_ptr.size() - 1; }
  std::size_t nnz() const { return cols.size(); }
  // Coefficient of entry k.
  const Fr& val(std::size_t k) const { return coeffs[coeff_ids[k]]; }
  // Host bytes held by the matrix (the lookup index of coeff_id() aside: a few KB).
  std::size_t memory_bytes() const {
    return row_ptr.size() * sizeof(std::uint64_t) + cols.size() * sizeof(std::uint32_t) +
           coeff_ids.size() * sizeof(std::uint32_t) + coeffs.size() * sizeof(Fr);
  }
  // Appends one row; terms with the same variable must already be merged by the caller. Zero
  // coefficients are dropped (bellperson's density trackers skip them too).
  void add_row(std::span<const std::pair<std::uint32_t, Fr>> terms);
  void add_empty_row() { row_ptr.push_back(cols.size()); }
  // Entry-wise building: push_entry() for each term of the current row, then end_row().
  void push_entry(std::uint32_t col, const Fr& v) {
    cols.push_back(col);
    coeff_ids.push_back(coeff_id(v));
  }
  void end_row() { row_ptr.push_back(cols.size()); }
  // Replaces entry k's coefficient.
  void set_val(std::size_t k, const Fr& v) { coeff_ids[k] = coeff_id(v); }
  // The id of v in coeffs, appending it when new.
  std::uint32_t coeff_id(const Fr& v);
  // Every entry's coefficient, expanded (tests and small matrices).
  std::vector<Fr> values() const;
  Fr dot_row(std::size_t row, std::span<const Fr> w) const;

 private:
  // Lookup from value to id over coeffs[0, indexed_); extended lazily, so coeffs may also be filled
  // directly (loaders) as long as it holds no duplicates.
  std::unordered_map<math::Limbs<4>, std::uint32_t, FrLimbsHash> index_;
  std::size_t indexed_ = 0;
  std::uint32_t last_id_ = 0;  // consecutive entries often share a coefficient
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
// Rows [begin, end) of one matrix for an assignment, into out[0, end - begin), on the calling thread
// (callers split the rows among threads): the GPU prover's host rows.
void evaluate_rows_into(const CsrMatrix& m, const AssignmentView& w, std::size_t begin, std::size_t end, Fr* out);

// First row k with a_k * b_k != c_k (only meaningful when has_c), or nullopt when all hold.
std::optional<std::size_t> first_unsatisfied_row(const R1csShape& shape, std::span<const Fr> w);

// Density bitmaps: bit v set when variable v has a non-zero coefficient in some row of the matrix.
std::vector<bool> variable_density(const CsrMatrix& m, std::size_t num_variables);

}  // namespace cuzk::groth16
