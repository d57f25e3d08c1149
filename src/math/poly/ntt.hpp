// Number-theoretic transforms over Fr (the BLS12-381 scalar field), with bellperson's semantics:
//   ntt         a_i <- sum_j a_j w^(ij)                       (evaluation at the powers of w)
//   intt        a_i <- n^-1 sum_j a_j w^(-ij)                 (interpolation, includes 1/n)
//   coset_ntt   a_j <- a_j g^j, then ntt                      (evaluation at g w^i)
//   coset_intt  intt, then a_j <- a_j g^-j
// w is the primitive 2^k-th root fr_root_of_unity()^(2^(32-k)) and the default coset shift g is the
// multiplicative generator 7, as in bellperson's EvaluationDomain. The overloads taking a shift use
// any other coset (snarkjs evaluates on the coset of a 2n-th root of unity). Data is in natural order
// on input and on output; the transforms work in place and use default_threads() workers (or the
// count given).
//
// Algorithm: sizes up to 2^kNttDirectMaxLog run a radix-2 decimation-in-frequency pass on one
// thread followed by a bit-reversal (the inverse reads the forward result at negated indices);
// larger sizes use the four-step decomposition n = n1 * n2 (column transforms over blocks of
// gathered columns, twiddle multiply, row transforms, in-place transpose), so every sub-transform
// runs in cache and the big array is streamed about three times. There the inverse uses w^-1 tables,
// and the coset shifts and 1/n are folded into the twiddle and gather passes (no extra pass). On CPUs
// with AVX-512 IFMA the column and row transforms run eight at a time in vector lanes (ntt_ifma.hpp;
// CUZK_NO_IFMA=1 or CUZK_NTT_IFMA=0 keep the scalar path), with bit-identical results.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "math/ff/bls12_381.hpp"

namespace cuzk::math {

inline constexpr unsigned kNttMaxLog = 28;        // largest supported domain: 2^28 points
inline constexpr unsigned kNttDirectMaxLog = 11;  // up to here: one single-threaded radix-2 pass

class Domain {
 public:
  // Throws std::invalid_argument when log_n > kNttMaxLog (Fr's 2-adicity is 32; 2^28 is the largest
  // size this implementation supports).
  explicit Domain(unsigned log_n);

  unsigned log_size() const { return log_n_; }
  std::size_t size() const { return n_; }
  const Fr& omega() const { return omega_; }  // primitive n-th root of unity
  const Fr& omega_inv() const { return omega_inv_; }
  const Fr& size_inv() const { return n_inv_; }       // 1/n
  const Fr& coset_gen() const { return g_; }          // 7
  const Fr& coset_gen_inv() const { return g_inv_; }  // 1/7

  // Internal layout, read by the transform code.
  unsigned log_rows() const { return log_rows_; }  // four-step: n2 = 2^log_rows rows ...
  unsigned log_cols() const { return log_cols_; }  // ... of n1 = 2^log_cols columns (0 when direct)
  // roots()[i] = u^i for i < m/2, where m = 2^max(log_rows, log_cols) (n when direct) and u = w^(n/m).
  const std::vector<Fr>& roots() const { return roots_; }
  // Four-step only: w^j for j < n1 (the per-column twiddle ratios).
  const std::vector<Fr>& col_twiddles() const { return col_tw_; }
  // Four-step only: the same two tables for w^-1 (inverse transforms).
  const std::vector<Fr>& roots_inv() const { return roots_inv_; }
  const std::vector<Fr>& col_twiddles_inv() const { return col_tw_inv_; }

 private:
  unsigned log_n_;
  std::size_t n_;
  Fr omega_, omega_inv_, n_inv_, g_, g_inv_;
  unsigned log_rows_ = 0, log_cols_ = 0;
  std::vector<Fr> roots_, roots_inv_;
  std::vector<Fr> col_tw_, col_tw_inv_;
};

// Shared, lazily built domains (thread-safe; built once per size and kept for the process).
// Throws std::invalid_argument when log_n > kNttMaxLog.
const Domain& domain_for(unsigned log_n);
// Same, for a size that must be a power of two (throws std::invalid_argument otherwise).
const Domain& domain_for_size(std::size_t n);

// All transforms throw std::invalid_argument when data.size() != domain.size().
// threads = 0 means default_threads().
void ntt(const Domain& domain, std::span<Fr> data, std::size_t threads = 0);
void intt(const Domain& domain, std::span<Fr> data, std::size_t threads = 0);
void coset_ntt(const Domain& domain, std::span<Fr> data, std::size_t threads = 0);   // shift 7
void coset_intt(const Domain& domain, std::span<Fr> data, std::size_t threads = 0);  // shift 7
// Arbitrary coset shift s: coset_ntt multiplies a_j by s^j then transforms; coset_intt inverts it
// (s must be nonzero).
void coset_ntt(const Domain& domain, std::span<Fr> data, const Fr& shift, std::size_t threads = 0);
void coset_intt(const Domain& domain, std::span<Fr> data, const Fr& shift, std::size_t threads = 0);

// a_j <- a_j * start * ratio^j for all j (bellperson's distribute_powers with a starting factor).
void scale_by_powers(std::span<Fr> data, const Fr& start, const Fr& ratio, std::size_t threads = 0);

}  // namespace cuzk::math
