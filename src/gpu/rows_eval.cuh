// Step 2 of a proof (private to cuzk_gpu, included by groth16_prover.cu): a_k, b_k, c_k from the
// device CSR words and the witness, one thread per row, with the rows longer than kLongRowWords
// summed in pieces (pieces_kernel, then long_rows_kernel; ProverTuning::long_rows_in_pieces).
#pragma once

#include "gpu/groth16_device.cuh"

namespace cuzk::gpu {
namespace {

__device__ __forceinline__ Fr eval_words(const CsrView& m, u32 t, const u32 e, const Fr* __restrict__ w) {
  Fr acc = Fr::zero();
  while (t < e) {
    const u32 word = m.words[t++];
    const Fr x = ldg_f(w + (word & kVarMask));
    const u32 tag = word >> 30;
    if (tag == 0) {
      acc = acc + x;
    } else if (tag == 1) {
      acc = acc - x;
    } else {
      const u32 ci = m.words[t++];
      acc = acc + ldg_f(m.coefs + ci) * x;
    }
  }
  return acc;
}

// Row k's value, or false when the row is longer than `longest` words (its value then comes from
// long_rows_kernel).
__device__ __forceinline__ bool eval_short_row(const CsrView& m, u32 longest, u64 k, const Fr* __restrict__ w,
                                               Fr& out) {
  const u32 t = m.row_ptr[k], e = m.row_ptr[k + 1];
  if (e - t > longest) return false;
  out = eval_words(m, t, e, w);
  return true;
}

// a_k, b_k, c_k for k < rows, zero up to m (the padded domain); long rows are left to long_rows_kernel
// (and, without C, their c_k to long_rows_product_kernel).
// longest: kLongRowWords (longer rows are summed in pieces), or ~0u for one thread per row throughout.
__global__ void eval_rows_kernel(CsrView a, CsrView b, CsrView c, u32 longest, bool has_c, const Fr* __restrict__ w,
                                 u64 rows, u64 m, Fr* oa, Fr* ob, Fr* oc) {
  const u64 k = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= m) return;
  Fr va = Fr::zero(), vb = Fr::zero(), vc = Fr::zero();
  bool sa = true, sb = true, sc = true;
  if (k < rows) {
    sa = eval_short_row(a, longest, k, w, va);
    sb = eval_short_row(b, longest, k, w, vb);
    if (has_c) sc = eval_short_row(c, longest, k, w, vc);
    else if ((sc = sa && sb)) vc = va * vb;
  }
  if (sa) store_f(oa + k, va);
  if (sb) store_f(ob + k, vb);
  if (sc) store_f(oc + k, vc);
}

// One thread per piece of a long row: the sum of the piece's terms.
__global__ void pieces_kernel(CsrView m, const u32* __restrict__ bounds, u32 pieces, const Fr* __restrict__ w,
                              Fr* partial) {
  const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= pieces) return;
  store_f(partial + i, eval_words(m, bounds[2 * i], bounds[2 * i + 1], w));
}

// One thread per long row (row, first piece, piece count): the sum of its pieces.
__global__ void long_rows_kernel(const u32* __restrict__ long_rows, u32 count, const Fr* __restrict__ partial,
                                 Fr* out) {
  const u32 j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const u32 row = long_rows[3 * j], first = long_rows[3 * j + 1], n = long_rows[3 * j + 2];
  Fr acc = Fr::zero();
  for (u32 i = 0; i < n; ++i) acc = acc + load_f(partial + first + i);
  store_f(out + row, acc);
}

// Without C: c = a * b on the long rows of A or B, once both are final.
__global__ void long_rows_product_kernel(const u32* __restrict__ long_rows, u32 count, const Fr* a, const Fr* b,
                                         Fr* c) {
  const u32 j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const u32 row = long_rows[3 * j];
  store_f(c + row, load_f(a + row) * load_f(b + row));
}

// The values of the long rows of `m` into out (after eval_rows_kernel, on the same stream); partial:
// room for `m.pieces` sums (the prover's workspace).
void eval_long_rows(const DevCsr& m, const Fr* w, Fr* out, Fr* partial, cudaStream_t st) {
  if (m.num_long == 0) return;
  pieces_kernel<<<grid_for(m.pieces, 128), 128, 0, st>>>(m.view(), ptr<const u32>(m.piece_bounds), m.pieces, w,
                                                         partial);
  CUZK_CUDA_LAUNCH();
  long_rows_kernel<<<grid_for(m.num_long, 128), 128, 0, st>>>(ptr<const u32>(m.long_rows), m.num_long, partial, out);
  CUZK_CUDA_LAUNCH();
}

}  // namespace
}  // namespace cuzk::gpu
