// Device queries, DeviceBuffer, and the device-side generators used by tests and benchmarks.
#include <cstddef>
#include <cstring>
#include <functional>
#include <span>
#include <vector>

#include "base/parallel.hpp"
#include "gpu/cuda_util.cuh"
#include "gpu/generators.hpp"
#include "gpu/gpu.hpp"
#include "gpu/groth16_device.cuh"

namespace cuzk::gpu {

static_assert(sizeof(Fr) == sizeof(math::Fr) && sizeof(Fp) == sizeof(math::Fp), "host/device field layout");
static_assert(sizeof(G1Xyzz) == sizeof(math::G1Xyzz), "host/device XYZZ layout");

bool device_available() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return n > 0;
}

std::uint32_t device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n > 0 ? std::uint32_t(n) : 0u;
}

std::string device_name() {
  if (!device_available()) return "";
  int dev = 0;
  CUZK_CUDA(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CUZK_CUDA(cudaGetDeviceProperties(&prop, dev));
  return prop.name;
}

void device_synchronize() { CUZK_CUDA(cudaDeviceSynchronize()); }

namespace {
// Compiled for the same architectures as every other kernel: if the device can load this one, it
// can load them all.
__global__ void probe_kernel() {}
}  // namespace

std::vector<DeviceInfo> device_infos() {
  std::vector<DeviceInfo> out;
  const std::uint32_t n = device_count();
  int prev = 0;
  const bool had_prev = cudaGetDevice(&prev) == cudaSuccess;
  for (std::uint32_t d = 0; d < n; ++d) {
    DeviceInfo info;
    info.ordinal = d;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, int(d)) != cudaSuccess) {
      info.problem = std::string("cannot be queried: ") + cudaGetErrorString(cudaGetLastError());
      out.push_back(std::move(info));
      continue;
    }
    info.name = prop.name;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.total_bytes = prop.totalGlobalMem;
    info.multiprocessors = prop.multiProcessorCount;
    cudaFuncAttributes attr{};
    cudaError_t e = cudaSetDevice(int(d));
    if (e == cudaSuccess) e = cudaFuncGetAttributes(&attr, probe_kernel);
    if (e == cudaSuccess) {
      std::size_t free_b = 0, total_b = 0;
      if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) info.free_bytes = free_b;
      info.loadable = true;
    } else {
      cudaGetLastError();
      info.problem = e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
                             e == cudaErrorUnsupportedPtxVersion
                         ? "compute capability " + std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                               " is not in this build (" + built_architectures() + ")"
                         : std::string("cannot run kernels: ") + cudaGetErrorString(e);
    }
    out.push_back(std::move(info));
    // The probe made this device's primary context (hundreds of MiB of device memory); drop it, so
    // that a device this process will not serve (another daemon's, or one left out) keeps nothing of
    // ours. Called at start-up, before any backend exists, so no other user of the context is lost.
    cudaDeviceReset();
  }
  if (had_prev) cudaSetDevice(prev);
  return out;
}

void device_memory(std::uint32_t ordinal, std::uint64_t* free_bytes, std::uint64_t* total_bytes) {
  *free_bytes = *total_bytes = 0;
  int prev = 0;
  if (cudaGetDevice(&prev) != cudaSuccess || cudaSetDevice(int(ordinal)) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  std::size_t f = 0, t = 0;
  if (cudaMemGetInfo(&f, &t) == cudaSuccess) {
    *free_bytes = f;
    *total_bytes = t;
  } else {
    cudaGetLastError();
  }
  cudaSetDevice(prev);
}

std::optional<std::string> device_fault(std::uint32_t ordinal) {
  auto named = [](cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); };
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) return "the CUDA driver fails: " + named(e);
  if (int(ordinal) >= count) return "the device is gone (" + std::to_string(count) + " present)";
  int prev = 0;
  const bool had_prev = cudaGetDevice(&prev) == cudaSuccess;
  cudaError_t e = cudaSetDevice(int(ordinal));
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) {
    void* p = nullptr;
    e = cudaMalloc(&p, 4096);
    if (e == cudaSuccess) {
      cudaFree(p);
    } else if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // full, not broken
      e = cudaSuccess;
    }
  }
  if (had_prev) cudaSetDevice(prev);
  if (e == cudaSuccess) return std::nullopt;
  return named(e);
}

std::string built_architectures() {
#ifdef CUZK_CUDA_ARCHITECTURES
  return CUZK_CUDA_ARCHITECTURES;
#else
  return "unknown";
#endif
}

namespace detail {
void free_device(void* p) { cudaFree(p); }
void free_pinned(void* p) { cudaFreeHost(p); }
}  // namespace detail

DeviceBuffer::DeviceBuffer(std::size_t bytes) { resize_discard(bytes); }
void DeviceBuffer::resize_discard(std::size_t bytes) {
  if (bytes <= size() && get()) return;
  reset();
  if (bytes == 0) return;
  void* p = nullptr;
  CUZK_CUDA(cudaMalloc(&p, bytes));
  adopt(p, bytes);
}
void DeviceBuffer::upload(const void* host, std::size_t bytes, std::size_t offset) {
  if (offset + bytes > size()) throw std::runtime_error("DeviceBuffer::upload out of range");
  CUZK_CUDA(cudaMemcpy(static_cast<char*>(get()) + offset, host, bytes, cudaMemcpyHostToDevice));
}
void DeviceBuffer::download(void* host, std::size_t bytes, std::size_t offset) const {
  if (offset + bytes > size()) throw std::runtime_error("DeviceBuffer::download out of range");
  CUZK_CUDA(cudaMemcpy(host, static_cast<const char*>(get()) + offset, bytes, cudaMemcpyDeviceToHost));
}
void DeviceBuffer::zero() {
  if (get()) CUZK_CUDA(cudaMemset(get(), 0, size()));
}

PinnedHostBuffer::PinnedHostBuffer(std::size_t bytes) {
  if (bytes == 0) return;
  void* p = nullptr;
  CUZK_CUDA(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
  adopt(p, bytes);
}

// ------------------------------------------------------------------------------------------------
namespace {

constexpr int kSeqChunk = 32;

// Thread t makes P_i = (i+1) G for i in [t*K, t*K + K): one small scalar multiplication for the
// first, then K-1 mixed additions, and one batched inversion (Montgomery's trick) for the K
// conversions to affine. Z coordinates go through ztmp (same thread reads them back).
template <class F>
__global__ void gen_seq_kernel(AffineT<F>* out, F* ztmp, std::size_t n, AffineT<F> g) {
  std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t i0 = t * kSeqChunk;
  if (i0 >= n) return;
  int cnt = int(n - i0 < kSeqChunk ? n - i0 : kSeqChunk);
  JacobianT<F> p = JacobianT<F>::infinity();
  u64 k = u64(i0) + 1;
  for (int b = 63 - __clzll((long long)k); b >= 0; --b) {
    p = p.dbl();
    if ((k >> b) & 1) p.add_affine(g);
  }
  F prefix[kSeqChunk];
  F acc = F::one();
  for (int j = 0; j < cnt; ++j) {
    store_affine(out + i0 + j, AffineT<F>{p.x, p.y});
    stf(ztmp + i0 + j, p.z);
    acc = acc * p.z;
    prefix[j] = acc;
    p.add_affine(g);
  }
  F inv = acc.inverse();
  for (int j = cnt - 1; j >= 0; --j) {
    F zinv = j > 0 ? inv * prefix[j - 1] : inv;
    inv = inv * ldf_rw(ztmp + i0 + j);
    F z2 = zinv.sqr();
    AffineT<F> a = load_affine_rw(out + i0 + j);
    a.x = a.x * z2;
    a.y = a.y * z2 * zinv;
    store_affine(out + i0 + j, a);
  }
}

template <class F>
__global__ void gen_from_scalars_kernel(AffineT<F>* out, const Fr* scalars, std::size_t n, AffineT<F> g) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Fr k = load_f(scalars + i).from_mont();
  JacobianT<F> p = JacobianT<F>::infinity();
  for (int b = 254; b >= 0; --b) {
    p = p.dbl();
    if ((k.v[b >> 5] >> (b & 31)) & 1) p.add_affine(g);
  }
  store_affine(out + i, p.to_affine());
}

__device__ __forceinline__ u64 splitmix64(u64 x) {
  u64 z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__global__ void gen_scalars_kernel(Fr* out, std::size_t n, u64 seed) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Fr x;
  u64 base = seed * 0x2545f4914f6cdd1dULL + u64(i) * 4;
#pragma unroll
  for (int l = 0; l < 4; ++l) {
    u64 r = splitmix64(base + l);
    if (l == 3) r &= 0x7fffffffffffffffULL;  // < 2^255 < 2r: one conditional subtraction
    x.v[2 * l] = u32(r);
    x.v[2 * l + 1] = u32(r >> 32);
  }
  x.final_sub();
  store_f(out + i, x);
}

// Host math::Affine records (x, y, bool infinity; 104 / 200 bytes) -> 96 / 192-byte device bases.
template <class F>
__global__ void convert_host_affine_kernel(AffineT<F>* out, const u32* raw, std::size_t n, std::size_t stride_words) {
  constexpr int W = int(sizeof(F) / 4);
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const u32* r = raw + i * stride_words;
  bool inf = (r[2 * W] & 0xff) != 0;  // the bool after x and y
  AffineT<F> a;
  u32* ax = reinterpret_cast<u32*>(&a.x);
  u32* ay = reinterpret_cast<u32*>(&a.y);
#pragma unroll
  for (int j = 0; j < W; ++j) {
    ax[j] = inf ? 0u : r[j];
    ay[j] = inf ? 0u : r[W + j];
  }
  store_affine(out + i, a);
}

template <class DF, class HF>
AffineT<DF> to_device_affine(const math::Affine<HF>& h) {
  static_assert(sizeof(DF) == sizeof(typename HF::Field));
  AffineT<DF> d;
  if (h.infinity) {
    std::memset(static_cast<void*>(&d), 0, sizeof(d));
  } else {
    std::memcpy(static_cast<void*>(&d.x), &h.x, sizeof(DF));
    std::memcpy(static_cast<void*>(&d.y), &h.y, sizeof(DF));
  }
  return d;
}

template <class DF, class C>
void download_bases_t(math::Affine<C>* host, const void* d_bases, std::size_t n) {
  std::vector<AffineT<DF>> tmp(n);
  CUZK_CUDA(cudaMemcpy(tmp.data(), d_bases, n * sizeof(AffineT<DF>), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < n; ++i) {
    math::Affine<C> a;
    if (tmp[i].y.is_zero()) {
      a = math::Affine<C>::identity();
    } else {
      std::memcpy(static_cast<void*>(&a.x), &tmp[i].x, sizeof(DF));
      std::memcpy(static_cast<void*>(&a.y), &tmp[i].y, sizeof(DF));
      a.infinity = false;
    }
    host[i] = a;
  }
}

template <class DF, class C>
void upload_host_bases_t(AffineT<DF>* d_out, const math::Affine<C>* host, std::size_t n) {
  static_assert(sizeof(math::Affine<C>) % 4 == 0 && offsetof(math::Affine<C>, infinity) == 2 * sizeof(DF));
  const std::size_t chunk = std::size_t(1) << 20;
  DeviceBuffer staging(std::min(n, chunk) * sizeof(math::Affine<C>));
  for (std::size_t off = 0; off < n; off += chunk) {
    std::size_t m = std::min(chunk, n - off);
    staging.upload(host + off, m * sizeof(math::Affine<C>));
    convert_host_affine_kernel<DF><<<grid_for(m, 256), 256>>>(d_out + off, static_cast<const u32*>(staging.get()), m,
                                                              sizeof(math::Affine<C>) / 4);
    CUZK_CUDA_LAUNCH();
  }
  CUZK_CUDA(cudaDeviceSynchronize());
}

// Pieces filled on the host into one of two pinned buffers; each is copied and converted on a stream
// of its own while the next one is filled (the fill, a .params decode, is the slow part: ~11 GB/s on
// 16 cores against ~50 GB/s for the bus).
template <class DF, class C>
Status upload_bases_by_piece_t(AffineT<DF>* d_out, std::size_t n, std::size_t piece,
                               const std::function<Status(std::size_t, std::span<math::Affine<C>>)>& fill) {
  using HA = math::Affine<C>;
  if (n == 0) return ok_status();
  piece = std::min(std::max<std::size_t>(piece, 1), n);
  struct Lane {
    PinnedHostBuffer host;
    DeviceBuffer dev;
    cudaStream_t s = nullptr;
    ~Lane() {
      if (s) {
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
      }
    }
  } lanes[2];
  for (auto& l : lanes) {
    l.host = PinnedHostBuffer(piece * sizeof(HA));
    l.dev = DeviceBuffer(piece * sizeof(HA));
    CUZK_CUDA(cudaStreamCreateWithFlags(&l.s, cudaStreamNonBlocking));
  }
  std::size_t k = 0;
  for (std::size_t off = 0; off < n; off += piece, ++k) {
    Lane& l = lanes[k & 1];
    const std::size_t m = std::min(piece, n - off);
    CUZK_CUDA(cudaStreamSynchronize(l.s));  // its previous piece is on the device
    if (auto st = fill(off, std::span<HA>(static_cast<HA*>(l.host.get()), m)); !st) return st;
    CUZK_CUDA(cudaMemcpyAsync(l.dev.get(), l.host.get(), m * sizeof(HA), cudaMemcpyHostToDevice, l.s));
    convert_host_affine_kernel<DF>
        <<<grid_for(m, 256), 256, 0, l.s>>>(d_out + off, static_cast<const u32*>(l.dev.get()), m, sizeof(HA) / 4);
    CUZK_CUDA_LAUNCH();
  }
  for (auto& l : lanes) CUZK_CUDA(cudaStreamSynchronize(l.s));
  return ok_status();
}

template <class F>
void gen_seq_t(void* d_bases, std::size_t n, AffineT<F> g, void* stream) {
  if (n == 0) return;
  DeviceBuffer z(n * sizeof(F));
  std::size_t threads = (n + kSeqChunk - 1) / kSeqChunk;
  gen_seq_kernel<F><<<grid_for(threads, 128), 128, 0, as_stream(stream)>>>(static_cast<AffineT<F>*>(d_bases),
                                                                           static_cast<F*>(z.get()), n, g);
  CUZK_CUDA_LAUNCH();
  CUZK_CUDA(cudaStreamSynchronize(as_stream(stream)));
}

template <class F>
void gen_from_scalars_t(void* d_bases, const void* d_scalars, std::size_t n, AffineT<F> g, void* stream) {
  if (n == 0) return;
  gen_from_scalars_kernel<F><<<grid_for(n, 128), 128, 0, as_stream(stream)>>>(static_cast<AffineT<F>*>(d_bases),
                                                                              static_cast<const Fr*>(d_scalars), n, g);
  CUZK_CUDA_LAUNCH();
}

}  // namespace

void gen_bases_sequential(void* d_bases, std::size_t n, void* stream) {
  gen_seq_t<Fp>(d_bases, n, g1_generator_dev(), stream);
}
void gen_g2_bases_sequential(void* d_bases, std::size_t n, void* stream) {
  gen_seq_t<Fp2>(d_bases, n, to_device_affine<Fp2>(math::g2_generator()), stream);
}
void gen_bases_from_scalars(void* d_bases, const void* d_scalars, std::size_t n, void* stream) {
  gen_from_scalars_t<Fp>(d_bases, d_scalars, n, g1_generator_dev(), stream);
}
void gen_g2_bases_from_scalars(void* d_bases, const void* d_scalars, std::size_t n, void* stream) {
  gen_from_scalars_t<Fp2>(d_bases, d_scalars, n, to_device_affine<Fp2>(math::g2_generator()), stream);
}

void gen_random_scalars(void* d_scalars, std::size_t n, std::uint64_t seed, void* stream) {
  if (n == 0) return;
  gen_scalars_kernel<<<grid_for(n, 256), 256, 0, as_stream(stream)>>>(static_cast<Fr*>(d_scalars), n, seed);
  CUZK_CUDA_LAUNCH();
}

void download_bases(math::G1Affine* host, const void* d_bases, std::size_t n) {
  download_bases_t<Fp, math::G1Curve>(host, d_bases, n);
}
void download_g2_bases(math::G2Affine* host, const void* d_bases, std::size_t n) {
  download_bases_t<Fp2, math::G2Curve>(host, d_bases, n);
}

template <class DF, class C>
void to_device_layout_t(void* out, const math::Affine<C>* in, std::size_t n) {
  auto* o = static_cast<AffineT<DF>*>(out);
  parallel_chunks(n, default_threads(), [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t i = b; i < e; ++i) o[i] = to_device_affine<DF>(in[i]);
  });
}
void host_bases_to_device_layout(void* out, const math::G1Affine* in, std::size_t n) {
  to_device_layout_t<Fp>(out, in, n);
}
void host_bases_to_device_layout(void* out, const math::G2Affine* in, std::size_t n) {
  to_device_layout_t<Fp2>(out, in, n);
}

// Used by msm.cu to upload host bases.
void upload_host_bases(G1Affine* d_out, const math::G1Affine* host, std::size_t n) {
  upload_host_bases_t<Fp, math::G1Curve>(d_out, host, n);
}
void upload_host_bases(G2Affine* d_out, const math::G2Affine* host, std::size_t n) {
  upload_host_bases_t<Fp2, math::G2Curve>(d_out, host, n);
}
Status upload_bases_by_piece(G1Affine* d_out, std::size_t n, std::size_t piece, const G1PieceFill& fill) {
  return upload_bases_by_piece_t<Fp, math::G1Curve>(d_out, n, piece, fill);
}
Status upload_bases_by_piece(G2Affine* d_out, std::size_t n, std::size_t piece, const G2PieceFill& fill) {
  return upload_bases_by_piece_t<Fp2, math::G2Curve>(d_out, n, piece, fill);
}

}  // namespace cuzk::gpu
