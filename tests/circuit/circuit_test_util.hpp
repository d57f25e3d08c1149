// Shared checks for circuit tests: synthesize one circuit in every mode and compare.
#pragma once

#include <gtest/gtest.h>

#include <functional>

#include "../common/test_random.hpp"
#include "circuit/constraint_system.hpp"

namespace cuzk::circuit::ctest {

struct ModeReport {
  RecordedCircuit rec;
  Witness wit;
  CountingCS count;
};

// Runs `circuit` (a generic lambda taking `auto& cs`) in all four modes and checks that
//  - the witness builder's assignment equals the recorder's assignment,
//  - the recorded R1CS is satisfied by it (first_unsatisfied_row),
//  - the checking CS finds every row satisfied and counts the same rows/variables,
//  - the counting CS agrees on rows, inputs, aux.
template <class Circuit>
ModeReport run_all_modes(Circuit&& circuit) {
  ModeReport r;
  {
    ShapeRecorder cs;
    circuit(cs);
    r.rec = std::move(cs).finish();
  }
  {
    WitnessBuilder cs;
    circuit(cs);
    r.wit = std::move(cs).finish();
  }
  {
    CountingCS cs;
    circuit(cs);
    r.count = cs;
  }
  CheckingCS chk;
  circuit(chk);
  EXPECT_TRUE(chk.is_satisfied()) << "row " << chk.first_failure()->row << " " << chk.first_failure()->name;
  const auto& s = r.rec.shape;
  EXPECT_EQ(r.wit.assignment(), r.rec.assignment);
  EXPECT_EQ(r.rec.assignment.size(), s.num_variables());
  EXPECT_FALSE(groth16::first_unsatisfied_row(s, r.rec.assignment).has_value());
  EXPECT_EQ(chk.num_constraints() + s.num_inputs, s.num_constraints());
  EXPECT_EQ(chk.num_inputs(), s.num_inputs);
  EXPECT_EQ(chk.num_aux(), s.num_aux);
  EXPECT_EQ(r.count.num_groth16_rows(), s.num_constraints());
  EXPECT_EQ(r.count.num_inputs(), s.num_inputs);
  EXPECT_EQ(r.count.num_aux(), s.num_aux);
  EXPECT_EQ(r.count.num_binary_aux(), r.wit.num_binary());
  return r;
}

// Circuit rows (without bellperson's input rows).
inline std::size_t circuit_rows(const ModeReport& r) { return r.rec.shape.num_constraints() - r.rec.shape.num_inputs; }

// Flips aux variable j (0 <-> 1 for binary values, +1 otherwise) and returns the checking CS's verdict.
template <class Circuit>
std::optional<CheckingCS::Failure> check_with_flipped_aux(Circuit&& circuit, const std::vector<Fr>& assignment,
                                                          std::size_t num_inputs, std::size_t j) {
  std::vector<Fr> inputs(assignment.begin(), assignment.begin() + num_inputs);
  std::vector<Fr> aux(assignment.begin() + num_inputs, assignment.end());
  Fr& x = aux[j];
  x = x.is_zero() ? Fr::one() : (x.is_one() ? Fr::zero() : x + Fr::one());
  CheckingCS chk(inputs, aux);
  circuit(chk);
  EXPECT_FALSE(chk.size_mismatch());
  return chk.first_failure();
}
template <class Circuit>
std::optional<CheckingCS::Failure> check_with_flipped_input(Circuit&& circuit, const std::vector<Fr>& assignment,
                                                            std::size_t num_inputs, std::size_t i) {
  std::vector<Fr> inputs(assignment.begin(), assignment.begin() + num_inputs);
  std::vector<Fr> aux(assignment.begin() + num_inputs, assignment.end());
  inputs[i] += Fr::one();
  CheckingCS chk(inputs, aux);
  circuit(chk);
  return chk.first_failure();
}

// For every variable v except ONE: flipping w[v] makes some row of the recorded shape unsatisfied.
// Uses the transposed matrices so each flip costs only the rows that mention v.
inline std::vector<std::size_t> variables_not_detected(const groth16::R1csShape& s, const std::vector<Fr>& w) {
  std::size_t n = s.num_variables(), rows = s.num_constraints();
  std::vector<std::vector<std::size_t>> rows_of(n);
  for (const auto* m : {&s.a, &s.b, &s.c}) {
    for (std::size_t r = 0; r < rows; ++r) {
      for (auto k = m->row_ptr[r]; k < m->row_ptr[r + 1]; ++k) rows_of[m->cols[k]].push_back(r);
    }
  }
  std::vector<std::size_t> missed;
  std::vector<Fr> ww = w;
  for (std::size_t v = 1; v < n; ++v) {
    Fr old = ww[v];
    ww[v] = old.is_zero() ? Fr::one() : (old.is_one() ? Fr::zero() : old + Fr::one());
    bool caught = false;
    for (std::size_t r : rows_of[v]) {
      if (s.a.dot_row(r, ww) * s.b.dot_row(r, ww) != s.c.dot_row(r, ww)) {
        caught = true;
        break;
      }
    }
    if (!caught) missed.push_back(v);
    ww[v] = old;
  }
  return missed;
}

}  // namespace cuzk::circuit::ctest
