// Step 3 of a proof (private to cuzk_gpu, included by groth16_prover.cu): the H quotient's scalars
// from a, b, c on the device, by the NTT domain and the pointwise kernels here, in either H layout
// (groth16_backend.hpp, step 3).
#pragma once

#include <cstdint>

#include "gpu/groth16_device.cuh"
#include "groth16/snarkjs_domain.hpp"

namespace cuzk::gpu {
namespace {

// a <- a * b - c
__global__ void pointwise_kernel(Fr* a, const Fr* b, const Fr* c, u64 n) {
  const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  store_f(a + i, load_f(a + i) * load_f(b + i) - load_f(c + i));
}

// a <- a * b
__global__ void product_kernel(Fr* a, const Fr* b, u64 n) {
  const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  store_f(a + i, load_f(a + i) * load_f(b + i));
}

// x <- (x - u) * f
__global__ void difference_times_kernel(Fr* x, const Fr* u, u64 n, Fr f) {
  const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  store_f(x + i, (load_f(x + i) - load_f(u + i)) * f);
}

// scatter: out[(e k) mod n] = in[k]; else out[k] = in[(e k) mod n]   (n a power of two)
__global__ void permute_kernel(const Fr* in, Fr* out, u64 n, u64 e, bool scatter) {
  const u64 k = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const u64 j = (e * k) & (n - 1);
  if (scatter) store_f(out + j, load_f(in + k));
  else store_f(out + k, load_f(in + j));
}

// d[i] *= s^j with j = bitrev(i) (rev) or i; s^j = hi[j >> 14] * lo[j & (2^14 - 1)].
__global__ void scale_powers_kernel(Fr* d, int logn, const Fr* hi, const Fr* lo, bool rev) {
  const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >> logn) return;
  const u32 j = rev ? bitrev_dev(i, logn) : u32(i);
  const Fr f = ldg_f(hi + (j >> kPowLoBits)) * ldg_f(lo + (j & ((1u << kPowLoBits) - 1)));
  store_f(d + i, load_f(d + i) * f);
}

// The H scalars of one proof on stream s0 (a, b, c: the row values, each of m = 2^log entries; tmp:
// m more). Returns where they are (a, or for the snarkjs layout one of the four buffers), in the order
// of the key's H bases.
const Fr* compute_h_scalars(NttDomain& dom, const GpuKey::Impl& k, Fr* a, Fr* b, Fr* c, Fr* tmp, int log, std::size_t m,
                            cudaStream_t s0) {
  const Fr* h_scalars = a;
  if (k.basis == HBasis::kMonomialOverZ) {
    // Six transforms where bellperson runs seven (groth16::compute_h_scalars says why this is the
    // same H): A and B to the coset 7<w>, C's coefficients U, then H = (coset-iNTT(A B) - U) / (7^m - 1).
    // (Fusing the product and the difference into the transforms' last passes saved 1.1 ms of the
    // 2^27 partition but cost every transform 0.1-0.15 ms: RESULTS_gpu.md "Measured and not kept".)
    for (Fr* v : {a, b}) {
      dom.inverse(v, log, NttOrder::kNR, false, s0);
      dom.forward(v, log, NttOrder::kRN, true, s0);
    }
    dom.inverse(c, log, NttOrder::kNR, false, s0);  // U, bit-reversed
    product_kernel<<<grid_for(m, 256), 256, 0, s0>>>(a, b, m);
    CUZK_CUDA_LAUNCH();
    dom.inverse(a, log, NttOrder::kNR, true, s0);  // bit-reversed coefficients, like the key's H bases
    difference_times_kernel<<<grid_for(m, 256), 256, 0, s0>>>(a, c, m, to_dev(k.z_inv));
    CUZK_CUDA_LAUNCH();
  } else {
    const std::uint64_t e = groth16::snarkjs_root_exponent();
    Fr* bufs[3] = {a, b, c};
    Fr* free_buf = tmp;
    for (int i = 0; i < 3; ++i) {
      permute_kernel<<<grid_for(m, 256), 256, 0, s0>>>(bufs[i], free_buf, m, e, true);
      CUZK_CUDA_LAUNCH();
      std::swap(bufs[i], free_buf);
      Fr* v = bufs[i];
      dom.inverse(v, log, NttOrder::kNR, false, s0);
      scale_powers_kernel<<<grid_for(m, 256), 256, 0, s0>>>(v, log, ptr<const Fr>(k.shift_hi),
                                                            ptr<const Fr>(k.shift_lo), true);
      CUZK_CUDA_LAUNCH();
      dom.forward(v, log, NttOrder::kRN, false, s0);
    }
    pointwise_kernel<<<grid_for(m, 256), 256, 0, s0>>>(bufs[0], bufs[1], bufs[2], m);
    CUZK_CUDA_LAUNCH();
    permute_kernel<<<grid_for(m, 256), 256, 0, s0>>>(bufs[0], free_buf, m, e, false);
    CUZK_CUDA_LAUNCH();
    h_scalars = free_buf;
  }
  return h_scalars;
}

// The same H scalars as compute_h_scalars' bellperson layout with two row buffers instead of three,
// for rows made on the host (proof_memory.hpp): fill(i, buffer) queues matrix i's rows (0: A, 1: B,
// 2: C) into the buffer on s0. A and B to the coset, their product in a, then C's coefficients U in
// b: the same operations on the same values as compute_h_scalars, so the same H. Returns a.
template <class Fill>
const Fr* compute_h_scalars_two_rows(NttDomain& dom, const GpuKey::Impl& k, Fr* a, Fr* b, int log, std::size_t m,
                                     cudaStream_t s0, Fill&& fill) {
  for (int i = 0; i < 2; ++i) {
    Fr* v = i == 0 ? a : b;
    fill(i, v);
    dom.inverse(v, log, NttOrder::kNR, false, s0);
    dom.forward(v, log, NttOrder::kRN, true, s0);
  }
  product_kernel<<<grid_for(m, 256), 256, 0, s0>>>(a, b, m);
  CUZK_CUDA_LAUNCH();
  fill(2, b);                                     // queued behind the product on s0
  dom.inverse(b, log, NttOrder::kNR, false, s0);  // U, bit-reversed
  dom.inverse(a, log, NttOrder::kNR, true, s0);
  difference_times_kernel<<<grid_for(m, 256), 256, 0, s0>>>(a, b, m, to_dev(k.z_inv));
  CUZK_CUDA_LAUNCH();
  return a;
}

}  // namespace
}  // namespace cuzk::gpu
