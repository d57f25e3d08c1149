// Step 1 of the MSM (private to cuzk_gpu, included by msm_impl.cuh): signed window digits per scalar
// (digits_kernel, one thread per scalar; the keys and values that the per-window radix sort orders),
// and the two kernels that build shifted copies of the bases (Msm::add_shifted_copies).
#pragma once

#include "gpu/cuda_util.cuh"
#include "gpu/msm_layout.cuh"

namespace cuzk::gpu {
namespace {

// Windows [w0, w1) are written (at (w - w0) * n + i); the lower windows are still walked for their carries.
// With shifted copies (plan.copies > 1, then w0 = 0 and w1 = win.nwin) the digits run through every
// copy's windows in turn, and copy k's digit of window w goes to (w * copies + k) * n + i with the
// value (k * stride + i) | sign << 31: window w's list holds copies * n entries.
__global__ void digits_kernel(const Fr* scalars, u32 n, WindowLayout win, int w0, int w1, CopyPlan plan, u32* keys,
                              u32* vals, u32* zero_counts) {
  const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool valid = i < n;
  u32 s[9];
  bool neg = false;
  if (valid) {
    Fr k = load_f(scalars + i).from_mont();
    // half = (r - 1) / 2; if k > half: k = r - k, negate the point
    u32 borrow;
    {
      Fr r = Fr::modulus();
      u32 hw[8];
#pragma unroll
      for (int l = 0; l < 8; ++l) hw[l] = (r.v[l] >> 1) | (l < 7 ? r.v[l + 1] << 31 : 0);  // (r-1)/2 = r >> 1
      u32 t = ptx::sub_cc(hw[0], k.v[0]);
#pragma unroll
      for (int l = 1; l < 8; ++l) t = ptx::subc_cc(hw[l], k.v[l]);
      borrow = ptx::subc(0, 0);
      (void)t;
    }
    if (borrow) {
      k = Fr::modulus() - k;  // plain integer r - k (k < r), no reduction involved
      neg = true;
    }
#pragma unroll
    for (int l = 0; l < 8; ++l) s[l] = k.v[l];
  } else {
#pragma unroll
    for (int l = 0; l < 8; ++l) s[l] = 0;
  }
  s[8] = 0;
  u32 carry = 0;
  for (int k = 0; k < plan.copies; ++k) {
    for (int w = 0; w < w1; ++w) {
      const int c = win.width(w);
      const u32 mask = (1u << c) - 1, halfw = 1u << (c - 1);
      const int bit = k * plan.shift + win.start(w);
      u32 raw = 0;  // windows past the scalar's bits (last copy) hold the final carry, which is 0
      if (bit < kScalarBits) {
        const int limb = bit >> 5, sh = bit & 31;
        const u64 two = u64(s[limb]) | (u64(s[limb + 1]) << 32);
        raw = u32(two >> sh) & mask;
      }
      u32 d = raw + carry;
      u32 key;
      bool dneg;
      if (d > halfw) {
        key = (1u << c) - d;
        dneg = true;
        carry = 1;
      } else {
        key = d;
        dneg = false;
        carry = 0;
      }
      if (w < w0) continue;
      if (valid) {
        const std::size_t at = (std::size_t(w - w0) * plan.copies + k) * n + i;
        keys[at] = key;
        vals[at] = (u32(k) * plan.stride + i) | (u32(dneg != neg) << 31);
      }
      const unsigned ball = __ballot_sync(0xffffffffu, valid && key == 0);
      if ((threadIdx.x & 31) == 0 && ball) atomicAdd(zero_counts + w, u32(__popc(ball)));
    }
  }
}

// Shifted copies, step 1: out[i] = 2^doublings in[i] (XYZZ) and zzz[i] its ZZZ coordinate, 1 at
// infinity so that the batched inversion never meets a zero. (G1 has no 2-torsion: 2^k P is infinity
// only for P infinity.)
template <class F>
__global__ void shift_points_kernel(const AffineT<F>* in, u32 n, int doublings, XyzzT<F>* out, F* zzz) {
  const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const AffineT<F> p = load_affine(in + i);
  XyzzT<F> q = XyzzT<F>::infinity();
  if (!p.is_inf()) {
    q = XyzzT<F>::dbl_affine(p);
    for (int d = 1; d < doublings; ++d) q = q.dbl();
  }
  store_xyzz(out + i, q);
  stf(zzz + i, q.is_inf() ? F::one() : q.zzz);
}
// Step 2, once zzz holds 1 / ZZZ: x = X / ZZ and y = Y / ZZZ, with 1 / ZZ = (ZZ / ZZZ)^2.
template <class F>
__global__ void xyzz_to_affine_kernel(const XyzzT<F>* in, const F* zzz_inv, u32 n, AffineT<F>* out) {
  const u32 i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const XyzzT<F> q = load_xyzz(in + i);
  if (q.is_inf()) {
    store_affine(out + i, AffineT<F>::infinity());
    return;
  }
  const F zi = ldf(zzz_inv + i);
  const F zzi = (zi * q.zz).sqr();
  store_affine(out + i, AffineT<F>{q.x * zzi, q.y * zi});
}

}  // namespace
}  // namespace cuzk::gpu
