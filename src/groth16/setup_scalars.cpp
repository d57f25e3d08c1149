#include "groth16/setup_scalars.hpp"

#include <chrono>

#include "base/parallel.hpp"
#include "groth16/snarkjs_domain.hpp"
#include "math/ec/batch_affine.hpp"

namespace cuzk::groth16 {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::size_t workers(std::size_t threads, std::size_t n, std::size_t grain) {
  return std::max<std::size_t>(1, std::min(threads, n / grain));
}

// out[c] += sum over rows r of val(r, c) * lag[r], by column-range ownership (see the header).
void accumulate(const CsrMatrix& mat, const std::vector<Fr>& lag, std::vector<Fr>& out, std::size_t threads) {
  const std::size_t rows = mat.rows(), ncols = out.size();
  parallel_chunks(ncols, workers(threads, ncols, 4096), [&](std::size_t lo, std::size_t hi, std::size_t) {
    const std::uint32_t base = std::uint32_t(lo), width = std::uint32_t(hi - lo);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::uint64_t k = mat.row_ptr[r], e = mat.row_ptr[r + 1]; k < e; ++k) {
        const std::uint32_t c = mat.cols[k];
        if (c - base < width) out[c] += mat.val(k) * lag[r];  // unsigned: c < base wraps high
      }
    }
  });
}

std::vector<std::uint32_t> selected(const std::vector<bool>& density, std::uint32_t always_below) {
  std::vector<std::uint32_t> idx;
  for (std::size_t i = 0; i < density.size(); ++i) {
    if (i < always_below || density[i]) idx.push_back(std::uint32_t(i));
  }
  return idx;
}

}  // namespace

Status lagrange_range(const Fr& tau, std::uint32_t log_n, bool snarkjs_root, std::size_t lo, std::size_t hi,
                      std::size_t stride, std::size_t offset, Fr* out, std::size_t threads) {
  const std::uint64_t n = std::uint64_t(1) << log_n;
  const Fr omega = root_of_unity(log_n, snarkjs_root);
  const Fr tau_n_minus_1 = tau.pow(n) - Fr::one();
  if (tau_n_minus_1.is_zero()) return Error{"test setup: tau is a root of unity of the domain"};
  const Fr scale = tau_n_minus_1 * Fr::from_u64(n).inverse();
  const Fr step = omega.pow(std::uint64_t(stride));
  const std::size_t count = hi - lo;
  if (!threads) threads = default_threads();
  // Each worker walks its own slice from omega^(stride j0 + offset) and inverts the denominators in
  // blocks (one inversion per block, a few KiB of temporaries).
  parallel_chunks(count, workers(threads, count, 4096), [&](std::size_t b, std::size_t e, std::size_t) {
    constexpr std::size_t kBlock = 4096;
    std::vector<Fr> xs(std::min(kBlock, e - b)), den(xs.size());
    Fr x = omega.pow(std::uint64_t(stride) * (lo + b) + offset);
    for (std::size_t s = b; s < e; s += kBlock) {
      const std::size_t m = std::min(kBlock, e - s);
      for (std::size_t j = 0; j < m; ++j) {
        xs[j] = x;
        den[j] = tau - x;
        x *= step;
      }
      math::batch_inverse(std::span<Fr>(den.data(), m));
      for (std::size_t j = 0; j < m; ++j) out[s + j] = xs[j] * scale * den[j];
    }
  });
  return ok_status();
}

Result<SetupScalars> SetupScalars::compute(const R1csShape& shape, HBasis basis, const ToxicWaste& t,
                                           std::size_t threads) {
  if (!shape.has_c) return Error{"test setup needs the C matrix (use the .r1cs, not a .zkey-derived shape)"};
  if (t.gamma.is_zero() || t.delta.is_zero()) return Error{"test setup: gamma and delta must be non-zero"};
  const std::size_t rows = shape.num_constraints();
  const std::uint32_t log_m = shape.domain_log2();
  if (log_m + 1 > math::kFrTwoAdicity) return Error{"test setup: circuit too large for Fr's 2-adic domain"};
  const std::size_t nvars = shape.num_variables();
  if (nvars > std::size_t(UINT32_MAX)) return Error{"test setup: more than 2^32 - 1 variables"};

  SetupScalars s;
  s.threads_ = threads ? threads : default_threads();
  s.basis_ = basis;
  s.num_inputs_ = shape.num_inputs;
  s.log_m_ = log_m;
  s.tau_ = t.tau;
  s.gamma_inv_ = t.gamma.inverse();
  s.delta_inv_ = t.delta.inverse();
  s.z_over_delta_ = (t.tau.pow(std::uint64_t(1) << log_m) - Fr::one()) * s.delta_inv_;

  // snarkjs keys put row k at its own root of unity (snarkjs_domain.hpp).
  const bool snarkjs_root = basis == HBasis::kOddCosetLagrange;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<Fr> lag(rows);
  if (auto st = lagrange_range(t.tau, log_m, snarkjs_root, 0, rows, 1, 0, lag.data(), s.threads_); !st) {
    return Error{st.error()};
  }
  s.timings_.lagrange_s = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  s.u_.assign(nvars, Fr::zero());
  s.v_.assign(nvars, Fr::zero());
  std::vector<Fr> w(nvars, Fr::zero());
  accumulate(shape.a, lag, s.u_, s.threads_);
  accumulate(shape.b, lag, s.v_, s.threads_);
  accumulate(shape.c, lag, w, s.threads_);
  lag = {};
  s.timings_.accumulate_s = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  parallel_chunks(nvars, workers(s.threads_, nvars, 4096), [&](std::size_t lo, std::size_t hi, std::size_t) {
    for (std::size_t i = lo; i < hi; ++i) w[i] = t.beta * s.u_[i] + t.alpha * s.v_[i] + w[i];
  });
  s.k_ = std::move(w);
  s.a_density_ = variable_density(shape.a, nvars);
  s.b_density_ = variable_density(shape.b, nvars);
  s.a_index_ = selected(s.a_density_, shape.num_inputs);
  s.b_index_ = selected(s.b_density_, 0);
  s.timings_.combine_s = seconds_since(t0);
  return s;
}

std::size_t SetupScalars::h_count() const {
  const std::size_t m = std::size_t(1) << log_m_;
  return basis_ == HBasis::kMonomialOverZ ? m - 1 : m;
}

std::size_t SetupScalars::memory_bytes() const {
  return (u_.capacity() + v_.capacity() + k_.capacity()) * sizeof(Fr) +
         (a_index_.capacity() + b_index_.capacity()) * sizeof(std::uint32_t) +
         (a_density_.size() + b_density_.size()) / 8;
}

void SetupScalars::fill_ic(std::size_t lo, std::size_t hi, Fr* out) const {
  for (std::size_t i = lo; i < hi; ++i) out[i - lo] = k_[i] * gamma_inv_;
}

void SetupScalars::fill_l(std::size_t lo, std::size_t hi, Fr* out) const {
  const Fr* k = k_.data() + num_inputs_;
  parallel_chunks(hi - lo, workers(threads_, hi - lo, 4096), [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t j = b; j < e; ++j) out[j] = k[lo + j] * delta_inv_;
  });
}

void SetupScalars::fill_a(std::size_t lo, std::size_t hi, Fr* out) const {
  parallel_chunks(hi - lo, workers(threads_, hi - lo, 16384), [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t j = b; j < e; ++j) out[j] = u_[a_index_[lo + j]];
  });
}

void SetupScalars::fill_b(std::size_t lo, std::size_t hi, Fr* out) const {
  parallel_chunks(hi - lo, workers(threads_, hi - lo, 16384), [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t j = b; j < e; ++j) out[j] = v_[b_index_[lo + j]];
  });
}

Status SetupScalars::fill_h(std::size_t lo, std::size_t hi, Fr* out) const {
  if (basis_ == HBasis::kOddCosetLagrange) {
    // Odd powers of the 2m-th root: the coset the snarkjs prover evaluates a*b - c on.
    if (auto st = lagrange_range(tau_, log_m_ + 1, true, lo, hi, 2, 1, out, threads_); !st) return st;
    parallel_chunks(hi - lo, workers(threads_, hi - lo, 4096), [&](std::size_t b, std::size_t e, std::size_t) {
      for (std::size_t j = b; j < e; ++j) out[j] *= delta_inv_;
    });
    return ok_status();
  }
  parallel_chunks(hi - lo, workers(threads_, hi - lo, 4096), [&](std::size_t b, std::size_t e, std::size_t) {
    Fr p = tau_.pow(std::uint64_t(lo + b)) * z_over_delta_;
    for (std::size_t j = b; j < e; ++j, p *= tau_) out[j] = p;
  });
  return ok_status();
}

}  // namespace cuzk::groth16
