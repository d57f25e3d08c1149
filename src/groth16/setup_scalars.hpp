// The scalars behind every point of a TEST-ONLY Groth16 key, computed once from the shape and the
// toxic waste and handed out query by query (in slices), so that a key can be written section by
// section without ever holding all its points (formats/bellperson/test_params_writer.hpp) and the
// in-memory key (generate_test_key) multiplies exactly the same scalars.
//
//   u_i, v_i, w_i  the A, B, C column polynomials at tau: sum over rows r of coeff(r, i) * L_r(tau)
//   ic_i = (beta u_i + alpha v_i + w_i) / gamma   (inputs)      l_j = (...) / delta   (aux)
//   a    = u over inputs and A-dense aux            b = v over B-dense variables (b_g1 and b_g2)
//   h_i  = tau^i (tau^m - 1) / delta, i < m - 1    (bellperson basis), or
//          L_(2i+1)(tau) / delta over the 2m domain  (snarkjs odd-coset basis)
// All steps run on `threads` workers. The accumulation is a transposed sparse product done by
// column-range ownership: worker t scans every row and keeps only the entries whose variable lies
// in its range, so no two workers write the same sum and nothing beyond u, v, w is allocated.
// Memory: 32 bytes x (rows while accumulating + 3 x variables) + 4 bytes x (a + b entries).
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/test_setup.hpp"

namespace cuzk::groth16 {

class SetupScalars {
 public:
  struct Timings {
    double lagrange_s = 0, accumulate_s = 0, combine_s = 0;
  };

  static Result<SetupScalars> compute(const R1csShape& shape, HBasis basis, const ToxicWaste& toxic,
                                      std::size_t threads = 0);

  std::size_t ic_count() const { return num_inputs_; }
  std::size_t l_count() const { return k_.size() - num_inputs_; }
  std::size_t a_count() const { return a_index_.size(); }
  std::size_t b_count() const { return b_index_.size(); }
  std::size_t h_count() const;

  // out[j] = the scalar of entry lo + j of the query, for lo <= lo + j < hi (in parallel).
  void fill_ic(std::size_t lo, std::size_t hi, Fr* out) const;
  void fill_l(std::size_t lo, std::size_t hi, Fr* out) const;
  void fill_a(std::size_t lo, std::size_t hi, Fr* out) const;
  void fill_b(std::size_t lo, std::size_t hi, Fr* out) const;
  Status fill_h(std::size_t lo, std::size_t hi, Fr* out) const;

  const std::vector<bool>& a_density() const { return a_density_; }  // over all variables
  const std::vector<bool>& b_density() const { return b_density_; }
  std::uint32_t num_inputs() const { return num_inputs_; }
  std::uint32_t domain_log2() const { return log_m_; }
  HBasis basis() const { return basis_; }
  const Timings& timings() const { return timings_; }
  // Host bytes held (for the memory model in the setup report).
  std::size_t memory_bytes() const;

 private:
  std::size_t threads_ = 1;
  HBasis basis_ = HBasis::kMonomialOverZ;
  std::uint32_t num_inputs_ = 0, log_m_ = 0;
  Fr tau_, gamma_inv_, delta_inv_, z_over_delta_;
  std::vector<Fr> u_, v_, k_;  // k_i = beta u_i + alpha v_i + w_i (w is folded in and dropped)
  std::vector<std::uint32_t> a_index_, b_index_;
  std::vector<bool> a_density_, b_density_;
  Timings timings_;
};

// out[j - lo] = L_(stride j + offset)(tau) for j in [lo, hi) over the domain of size 2^log_n (snarkjs'
// or bellperson's root of unity): L_k(tau) = w^k (tau^n - 1) / (n (tau - w^k)). Errors when tau is
// in the domain.
Status lagrange_range(const Fr& tau, std::uint32_t log_n, bool snarkjs_root, std::size_t lo, std::size_t hi,
                      std::size_t stride, std::size_t offset, Fr* out, std::size_t threads);

}  // namespace cuzk::groth16
