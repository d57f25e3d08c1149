// FixedBase<C> (gpu/fixed_base.hpp): kernels, the two-stream chunk pipeline, and the host-side
// conversions. Private to cuzk_gpu; fixed_base_g1.cu and fixed_base_g2.cu each instantiate one
// curve (two translation units that compile in parallel).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "base/parallel.hpp"
#include "gpu/cuda_util.cuh"
#include "gpu/fixed_base.cuh"
#include "gpu/fixed_base.hpp"
#include "gpu/gpu.hpp"
#include "math/ec/batch_affine.hpp"

namespace cuzk::gpu {
namespace fixed_base {

// Kernel memory policy for fixed_base_thread: vector loads, table through the read-only cache.
struct DeviceIo {
  template <class F>
  CUZK_HD static F ld(const F* p) {
#if defined(__CUDA_ARCH__)
    return ldf_rw(p);
#else
    return *p;
#endif
  }
  template <class F>
  CUZK_HD static void st(F* p, const F& v) {
#if defined(__CUDA_ARCH__)
    stf(p, v);
#else
    *p = v;
#endif
  }
  template <class F>
  CUZK_HD static AffineT<F> ld_table(const AffineT<F>* p) {
#if defined(__CUDA_ARCH__)
    return load_affine(p);
#else
    return *p;
#endif
  }
};

constexpr int kBlock = 128;

template <class F>
__global__ void __launch_bounds__(kBlock)
    mul_kernel(const Fr* ks, std::size_t n, std::size_t T, int K, const AffineT<F>* table, int c, AffineT<F>* out,
               F* zz, F* zzz, F* pref) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= T) return;
  fixed_base_thread<F, DeviceIo>(t, T, n, K, ks, table, c, out, zz, zzz, pref);
}

template <class F>
__global__ void encode_kernel(const AffineT<F>* pts, std::size_t n, u32* out) {
  constexpr int kWords = int(2 * sizeof(F) / 4);
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  encode_uncompressed(load_affine_rw(pts + i), out + i * kWords);
}

// Page-locked host buffer (grow-only), so the async copies really run asynchronously.
class Pinned {
 public:
  Pinned() = default;
  ~Pinned() {
    if (p_) cudaFreeHost(p_);
  }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  void reserve(std::size_t bytes) {
    if (bytes <= n_) return;
    if (p_) CUZK_CUDA(cudaFreeHost(p_));
    p_ = nullptr;
    n_ = 0;
    CUZK_CUDA(cudaMallocHost(&p_, bytes));
    n_ = bytes;
  }
  std::uint8_t* get() const { return static_cast<std::uint8_t*>(p_); }

 private:
  void* p_ = nullptr;
  std::size_t n_ = 0;
};

// memcpy on a few host threads (one thread moves ~10 GB/s; a chunk of results is hundreds of MB).
inline void parallel_copy(void* dst, const void* src, std::size_t bytes) {
  constexpr std::size_t kGrain = std::size_t(8) << 20;
  std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>(default_threads(), bytes / kGrain));
  parallel_chunks(bytes, chunks, [&](std::size_t lo, std::size_t hi, std::size_t) {
    std::memcpy(static_cast<char*>(dst) + lo, static_cast<const char*>(src) + lo, hi - lo);
  });
}

template <class C>
using DeviceField = std::conditional_t<std::is_same_v<C, math::G1Curve>, Fp, Fp2>;

}  // namespace fixed_base

template <class C>
struct FixedBase<C>::Impl {
  using F = fixed_base::DeviceField<C>;
  using DAffine = AffineT<F>;
  static_assert(sizeof(F) == sizeof(typename C::Field), "device/host field layout");

  struct Slot {
    cudaStream_t stream = nullptr;
    DeviceBuffer d_k, d_pts, d_bytes, d_zz, d_zzz, d_pref;
    fixed_base::Pinned in, out;
    std::size_t lo = 0, cnt = 0;
    bool busy = false;
  };

  int c = 12, K = 32;
  std::size_t chunk = std::size_t(1) << 21;
  DeviceBuffer table;
  double table_ms = 0;
  Slot slots[2];

  Impl(const math::Affine<C>& g, const FixedBaseConfig& cfg) {
    if (cfg.window_bits) c = cfg.window_bits;
    if (c < fixed_base::kMinWindowBits || c > fixed_base::kMaxWindowBits) {
      throw std::invalid_argument("gpu fixed-base: window bits " + std::to_string(c) + " outside [4, 20]");
    }
    if (g.infinity) throw std::invalid_argument("gpu fixed-base: the generator is the point at infinity");
    if (cfg.chunk) chunk = cfg.chunk;
    if (cfg.per_thread > 0) K = cfg.per_thread;
    auto t0 = std::chrono::steady_clock::now();
    auto host = fixed_base::build_table<F>(g, c, [](std::size_t n, auto&& fn) { parallel_for(n, fn, 1); });
    table.resize_discard(host.size() * sizeof(DAffine));
    table.upload(host.data(), host.size() * sizeof(DAffine));
    table_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (auto& s : slots) CUZK_CUDA(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  }
  ~Impl() {
    for (auto& s : slots) {
      if (s.stream) {
        cudaStreamSynchronize(s.stream);
        cudaStreamDestroy(s.stream);
      }
    }
  }

  void reserve(Slot& s, std::size_t n, bool encoded) {
    s.d_k.resize_discard(n * sizeof(Fr));
    s.d_pts.resize_discard(n * sizeof(DAffine));
    s.d_zz.resize_discard(n * sizeof(F));
    s.d_zzz.resize_discard(n * sizeof(F));
    s.d_pref.resize_discard(n * sizeof(F));
    if (encoded) s.d_bytes.resize_discard(n * kEncodedBytes);
    s.in.reserve(n * sizeof(Fr));
    s.out.reserve(n * (encoded ? kEncodedBytes : sizeof(DAffine)));
  }

  // Waits for the slot's chunk and moves its results to the caller's array.
  void finish(Slot& s, bool encoded, void* out) {
    CUZK_CUDA(cudaStreamSynchronize(s.stream));
    s.busy = false;
    if (encoded) {
      fixed_base::parallel_copy(static_cast<std::uint8_t*>(out) + s.lo * kEncodedBytes, s.out.get(),
                                s.cnt * kEncodedBytes);
      return;
    }
    const DAffine* src = reinterpret_cast<const DAffine*>(s.out.get());
    math::Affine<C>* dst = static_cast<math::Affine<C>*>(out) + s.lo;
    parallel_for(
        s.cnt,
        [&](std::size_t i) {
          if (src[i].is_inf()) {
            dst[i] = math::Affine<C>::identity();
            return;
          }
          math::Affine<C> a;
          std::memcpy(static_cast<void*>(&a.x), &src[i].x, sizeof(F));
          std::memcpy(static_cast<void*>(&a.y), &src[i].y, sizeof(F));
          a.infinity = false;
          dst[i] = a;
        },
        std::size_t(1) << 16);
  }

  void run(std::span<const math::Fr> ks, bool encoded, void* out) {
    const std::size_t n = ks.size();
    if (n == 0) return;
    const std::size_t S = std::min(chunk, n);
    for (auto& s : slots) reserve(s, S, encoded);
    std::size_t next = 0;  // chunk index
    for (std::size_t lo = 0; lo < n; lo += S, ++next) {
      Slot& s = slots[next & 1];
      if (s.busy) finish(s, encoded, out);
      const std::size_t cnt = std::min(S, n - lo);
      fixed_base::parallel_copy(s.in.get(), ks.data() + lo, cnt * sizeof(Fr));
      CUZK_CUDA(cudaMemcpyAsync(s.d_k.get(), s.in.get(), cnt * sizeof(Fr), cudaMemcpyHostToDevice, s.stream));
      const std::size_t T = (cnt + K - 1) / K;
      fixed_base::mul_kernel<F><<<grid_for(T, fixed_base::kBlock), fixed_base::kBlock, 0, s.stream>>>(
          static_cast<const Fr*>(s.d_k.get()), cnt, T, K, static_cast<const DAffine*>(table.get()), c,
          static_cast<DAffine*>(s.d_pts.get()), static_cast<F*>(s.d_zz.get()), static_cast<F*>(s.d_zzz.get()),
          static_cast<F*>(s.d_pref.get()));
      CUZK_CUDA_LAUNCH();
      if (encoded) {
        fixed_base::encode_kernel<F><<<grid_for(cnt, 256), 256, 0, s.stream>>>(
            static_cast<const DAffine*>(s.d_pts.get()), cnt, static_cast<u32*>(s.d_bytes.get()));
        CUZK_CUDA_LAUNCH();
        CUZK_CUDA(cudaMemcpyAsync(s.out.get(), s.d_bytes.get(), cnt * kEncodedBytes, cudaMemcpyDeviceToHost, s.stream));
      } else {
        CUZK_CUDA(cudaMemcpyAsync(s.out.get(), s.d_pts.get(), cnt * sizeof(DAffine), cudaMemcpyDeviceToHost, s.stream));
      }
      s.lo = lo;
      s.cnt = cnt;
      s.busy = true;
    }
    // The older of the two outstanding chunks first (order does not matter for correctness).
    for (int j = 0; j < 2; ++j) {
      Slot& s = slots[(next + j) & 1];
      if (s.busy) finish(s, encoded, out);
    }
  }
};

template <class C>
FixedBase<C>::FixedBase(const Affine& g, const FixedBaseConfig& cfg) : impl_(std::make_unique<Impl>(g, cfg)) {}
template <class C>
FixedBase<C>::~FixedBase() = default;

template <class C>
void FixedBase<C>::mul(std::span<const math::Fr> ks, std::span<Affine> out) {
  if (out.size() != ks.size()) throw std::invalid_argument("gpu fixed-base: output size mismatch");
  impl_->run(ks, false, out.data());
}
template <class C>
void FixedBase<C>::mul_uncompressed(std::span<const math::Fr> ks, std::uint8_t* out) {
  impl_->run(ks, true, out);
}
template <class C>
int FixedBase<C>::window_bits() const {
  return impl_->c;
}
template <class C>
double FixedBase<C>::table_build_ms() const {
  return impl_->table_ms;
}

}  // namespace cuzk::gpu
