// Private helpers for the .cu files of cuzk_gpu: error checks and 32-byte vector loads.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "gpu/ec.cuh"
#include "gpu/field.cuh"

namespace cuzk::gpu {

inline void cuda_check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(e) + " in " + what + " at " + file + ":" +
                             std::to_string(line));
  }
}
#define CUZK_CUDA(x) ::cuzk::gpu::cuda_check((x), #x, __FILE__, __LINE__)
#define CUZK_CUDA_LAUNCH() ::cuzk::gpu::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

inline cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

// Vector loads/stores of whole field elements (the arrays are 16-byte aligned: cudaMalloc'd, and
// every element size is a multiple of 16 bytes).
template <class F>
__device__ __forceinline__ F load_f(const F* p) {
  static_assert(sizeof(F::v) % 16 == 0);
  F r;
  const uint4* s = reinterpret_cast<const uint4*>(p->v);
#pragma unroll
  for (int i = 0; i < int(sizeof(F::v) / 16); ++i) {
    uint4 t = s[i];
    r.v[4 * i] = t.x, r.v[4 * i + 1] = t.y, r.v[4 * i + 2] = t.z, r.v[4 * i + 3] = t.w;
  }
  return r;
}
template <class F>
__device__ __forceinline__ F ldg_f(const F* p) {
  static_assert(sizeof(F::v) % 16 == 0);
  F r;
  const uint4* s = reinterpret_cast<const uint4*>(p->v);
#pragma unroll
  for (int i = 0; i < int(sizeof(F::v) / 16); ++i) {
    uint4 t = __ldg(s + i);
    r.v[4 * i] = t.x, r.v[4 * i + 1] = t.y, r.v[4 * i + 2] = t.z, r.v[4 * i + 3] = t.w;
  }
  return r;
}
template <class F>
__device__ __forceinline__ void store_f(F* p, const F& v) {
  static_assert(sizeof(F::v) % 16 == 0);
  uint4* d = reinterpret_cast<uint4*>(p->v);
#pragma unroll
  for (int i = 0; i < int(sizeof(F::v) / 16); ++i)
    d[i] = make_uint4(v.v[4 * i], v.v[4 * i + 1], v.v[4 * i + 2], v.v[4 * i + 3]);
}

// Whole-element loads for either base field (FieldT or Fp2), and for curve points over them.
template <class P>
__device__ __forceinline__ FieldT<P> ldf(const FieldT<P>* p) {
  return ldg_f(p);
}
template <class P>
__device__ __forceinline__ FieldT<P> ldf_rw(const FieldT<P>* p) {
  return load_f(p);
}
template <class P>
__device__ __forceinline__ void stf(FieldT<P>* p, const FieldT<P>& v) {
  store_f(p, v);
}
__device__ __forceinline__ Fp2 ldf(const Fp2* p) { return Fp2{ldg_f(&p->c0), ldg_f(&p->c1)}; }
__device__ __forceinline__ Fp2 ldf_rw(const Fp2* p) { return Fp2{load_f(&p->c0), load_f(&p->c1)}; }
__device__ __forceinline__ void stf(Fp2* p, const Fp2& v) {
  store_f(&p->c0, v.c0);
  store_f(&p->c1, v.c1);
}

// Bases are read-only during a kernel (ldg); XYZZ lists may be written by the same kernel (plain).
template <class F>
__device__ __forceinline__ AffineT<F> load_affine(const AffineT<F>* p) {
  return AffineT<F>{ldf(&p->x), ldf(&p->y)};
}
template <class F>
__device__ __forceinline__ AffineT<F> load_affine_rw(const AffineT<F>* p) {
  return AffineT<F>{ldf_rw(&p->x), ldf_rw(&p->y)};
}
template <class F>
__device__ __forceinline__ void store_affine(AffineT<F>* p, const AffineT<F>& a) {
  stf(&p->x, a.x);
  stf(&p->y, a.y);
}
template <class F>
__device__ __forceinline__ XyzzT<F> load_xyzz(const XyzzT<F>* p) {
  return XyzzT<F>{ldf_rw(&p->x), ldf_rw(&p->y), ldf_rw(&p->zz), ldf_rw(&p->zzz)};
}
template <class F>
__device__ __forceinline__ void store_xyzz(XyzzT<F>* p, const XyzzT<F>& a) {
  stf(&p->x, a.x);
  stf(&p->y, a.y);
  stf(&p->zz, a.zz);
  stf(&p->zzz, a.zzz);
}

inline unsigned grid_for(std::size_t n, unsigned block) { return unsigned((n + block - 1) / block); }

}  // namespace cuzk::gpu
