// Host API of the CUDA backend (target cuzk_gpu). No CUDA types here, so plain C++ can include it.
//
// Data layout on the device is bit-identical to the host types:
//   Fr   32 bytes = math::Fr (Montgomery form, R = 2^256)
//   Fp   48 bytes = math::Fp (Montgomery form, R = 2^384)
//   Fp2  96 bytes = math::Fp2 (c0, c1)
//   G1 / G2 affine base on the device: 96 / 192 bytes (x, y); the point at infinity is x = y = 0.
//     (math::G1Affine / G2Affine carry a bool, 104 / 200 bytes; the Msm constructor converts.)
// Layout: src/gpu/README.md. Tuning knobs: gpu/tuning.hpp (data passed in). Results: bench/RESULTS_gpu.md.
// Streams are passed as void* (a cudaStream_t, or nullptr for the default stream).
// Every call throws std::runtime_error on a CUDA error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpu/tuning.hpp"
#include "math/ec/bls12_381.hpp"

namespace cuzk::gpu {

bool device_available();       // at least one CUDA device can be used
std::uint32_t device_count();  // CUDA devices present (0 without a driver or device)
std::string device_name();     // name of the current device ("" when none)
void device_synchronize();

// One device as the daemon checks it at start-up (never throws). `loadable` is whether this binary
// holds a kernel image the device can run: SASS for its architecture, or PTX it can JIT-compile
// (cudaFuncGetAttributes on a probe kernel built with the same architecture list as every other
// kernel). `problem` says why not ("" when loadable), in words an operator can act on.
struct DeviceInfo {
  std::uint32_t ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  std::uint64_t total_bytes = 0, free_bytes = 0;
  int multiprocessors = 0;
  bool loadable = false;
  std::string problem;
};
// Call it before any backend or buffer exists: it resets each device afterwards (cudaDeviceReset), so
// that the probe leaves no context, and no memory, on devices the process then does not use.
std::vector<DeviceInfo> device_infos();
// Free and total memory of one device now (0, 0 when it cannot be asked).
void device_memory(std::uint32_t ordinal, std::uint64_t* free_bytes, std::uint64_t* total_bytes);
// Whether a device can still prove, asked after a failure on it: the CUDA error that makes it unusable
// (a sticky error of its context — an illegal address, a launch failure, an uncorrectable ECC error —
// which fails every later call there until the process ends, or a device that is gone), or nullopt
// when it synchronizes and allocates normally. Waits for the work queued on it.
std::optional<std::string> device_fault(std::uint32_t ordinal);
// The CUDA architectures this binary was built for, as nvcc names them ("sm_80 sm_90a compute_90"),
// from the build configuration.
std::string built_architectures();

namespace detail {
void free_device(void* p);  // cudaFree, errors ignored (destructors)
void free_pinned(void* p);  // cudaFreeHost, errors ignored
// The owner of one allocation of n bytes, move-only; Free releases it.
template <void (*Free)(void*)>
class OwnedAllocation {
 public:
  OwnedAllocation() = default;
  ~OwnedAllocation() { reset(); }
  OwnedAllocation(OwnedAllocation&& o) noexcept : p_(o.p_), n_(o.n_) {
    o.p_ = nullptr;
    o.n_ = 0;
  }
  OwnedAllocation& operator=(OwnedAllocation&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = o.p_;
      n_ = o.n_;
      o.p_ = nullptr;
      o.n_ = 0;
    }
    return *this;
  }
  OwnedAllocation(const OwnedAllocation&) = delete;
  OwnedAllocation& operator=(const OwnedAllocation&) = delete;

  void* get() const { return p_; }
  std::size_t size() const { return n_; }

 protected:
  void reset() {
    if (p_) Free(p_);
    p_ = nullptr;
    n_ = 0;
  }
  void adopt(void* p, std::size_t n) {  // after reset()
    p_ = p;
    n_ = n;
  }

 private:
  void* p_ = nullptr;
  std::size_t n_ = 0;
};
}  // namespace detail

// Owning device allocation (cudaMalloc), move-only.
class DeviceBuffer : public detail::OwnedAllocation<detail::free_device> {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);

  void resize_discard(std::size_t bytes);  // grow-only reallocation, contents lost
  void upload(const void* host, std::size_t bytes, std::size_t offset = 0);
  void download(void* host, std::size_t bytes, std::size_t offset = 0) const;
  void zero();
};

// Owning page-locked host allocation (cudaHostAlloc), move-only: copies from it to the device run
// asynchronously at full bus speed (streamed proving keys keep their bases in one).
class PinnedHostBuffer : public detail::OwnedAllocation<detail::free_pinned> {
 public:
  PinnedHostBuffer() = default;
  explicit PinnedHostBuffer(std::size_t bytes);
};

// Host points -> the device layout (96 / 192 bytes, infinity as x = y = 0) in host memory, on all
// threads; `out` holds n device bases.
void host_bases_to_device_layout(void* out, const math::G1Affine* in, std::size_t n);
void host_bases_to_device_layout(void* out, const math::G2Affine* in, std::size_t n);

// ------------------------------------------------------------------------------------------------
// NTT over Fr. ntt(a)_i = sum_j a_j w^(ij) with w = fr_root_of_unity()^(2^(32 - log n)) (order n);
// coset_ntt evaluates on g * w^i with g = 7 (bellperson's FFT coset), i.e. ntt(a_j * g^j);
// intt / coset_intt are their inverses (scaled by 1/n).
// Orders: N = natural, R = bit-reversed; kNR takes natural input and leaves bit-reversed output
// (no permutation pass), kRN the converse, kNN permutes in place first.
enum class NttOrder { kNN, kNR, kRN };

class NttDomain {
 public:
  // Precomputes on the device the twiddles w_N^e, e < N/2, for N = 2^max_log (32 * N/2 bytes);
  // any size 2^k with 1 <= k <= max_log (<= 28) then runs off this one table. The first inverse
  // transform adds a table of w_N^-e of the same size.
  explicit NttDomain(int max_log, const NttTuning& tuning = {});
  ~NttDomain();
  NttDomain(const NttDomain&) = delete;
  NttDomain& operator=(const NttDomain&) = delete;
  int max_log() const;
  // Device memory of the twiddle tables (the forward one, and the inverse one once made).
  std::size_t device_bytes() const;
  // Number of pass-kernel shapes (NttTuning::shape in [0, count) picks one; 0 is the default).
  static int shape_count();
  // Tuning of the transforms from now on (benchmarks sweep it; not thread-safe against transforms).
  // Turning NttTuning::inverse_table off frees the inverse table.
  void set_tuning(const NttTuning& tuning);

  // In place on a device array of 2^log_n Fr.
  void forward(void* d_data, int log_n, NttOrder order = NttOrder::kNN, bool coset = false, void* stream = nullptr);
  void inverse(void* d_data, int log_n, NttOrder order = NttOrder::kNN, bool coset = false, void* stream = nullptr);

  // Host-array convenience (copy in, transform with natural order, copy out); size a power of two.
  void ntt(std::span<math::Fr> a);
  void intt(std::span<math::Fr> a);
  void coset_ntt(std::span<math::Fr> a);
  void coset_intt(std::span<math::Fr> a);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ------------------------------------------------------------------------------------------------
// MSM in G1 and G2: sum_i k_i * P_i with the bases resident in device memory.
// Pippenger with signed c-bit digits (scalars above (r-1)/2 are negated with their point), digits
// sorted per window with CUB radix sort, bucket accumulation by fixed-length segments of the sorted
// digit list with a segmented tree merge (no bucket is ever summed by one thread alone, so skewed or
// all-equal scalars stay parallel), bucket reduction by chunked running sums in two levels, all on
// the GPU; the final ~12-15 window sums are combined on the host.
struct MsmConfig {
  int window_bits = 0;   // 0: choose from n (G1: windows of two widths, c and c + 1 bits); else c throughout
  bool profile = false;  // record per-phase times (adds synchronization)
  MsmTuning tuning;      // gpu/tuning.hpp; the defaults are the measured choices
};
struct MsmProfile {
  float digits_ms = 0, sort_ms = 0, accumulate_ms = 0, reduce_ms = 0, total_ms = 0;
  int window_bits = 0, windows = 0;  // the narrower width c, and the window count
  int copies = 1;                    // shifted copies of the bases used (Msm::add_shifted_copies)
};

int msm_default_window_bits(std::size_t n);

// C = math::G1Curve (device bases 96 bytes) or math::G2Curve (192 bytes); use MsmG1 / MsmG2.
template <class C>
class Msm {
 public:
  using Affine = math::Affine<C>;
  using Jacobian = math::Jacobian<C>;

  // Uploads the bases once (converted to the device layout).
  explicit Msm(std::span<const Affine> bases);
  // Allocates room for n bases, to be filled on the device (device_bases(), generators below).
  explicit Msm(std::size_t n);
  ~Msm();
  Msm(const Msm&) = delete;
  Msm& operator=(const Msm&) = delete;

  std::size_t size() const;
  void* device_bases() const;

  // G1 only: adds copies - 1 shifted copies of the bases in device memory (copies times the bases'
  // memory), copy k holding 2^(k * shift) P_i, the shift chosen for MSMs of size() scalars. A
  // scalar's bits [k * shift, (k + 1) * shift) then go to copy k, so all copies share one set of
  // buckets: the bucket reduction is divided by `copies`, which pays for wider, fewer windows
  // (2^27 scalars: 11 windows of 23-24 bits in 6 bucket sets instead of 12 of 21-22 bits).
  // Computed on the GPU (shift doublings per point and copy, a batched inversion); the bases must
  // be final. Used by msm()/msm_device() with default windows; explicit window_bits, sum_selected
  // and device_bases() see copy 0, the bases as given. Throws on failure (out of memory included),
  // leaving the Msm as it was.
  void add_shifted_copies(int copies);
  int copies() const;
  int copy_shift() const;  // bits per copy (255 with one copy)

  // sum_{i < scalars.size()} scalars[i] * bases[i]; scalars in Montgomery form (math::Fr as is).
  Jacobian msm(std::span<const math::Fr> scalars, const MsmConfig& cfg = {});
  // Same with the n scalars already on the device (32-byte Montgomery Fr each).
  Jacobian msm_device(const void* d_scalars, std::size_t n, const MsmConfig& cfg = {}, void* stream = nullptr);
  // sum_{i < n} s_i * bases[offset + i]: one piece of a query too large for one MSM's workspace (the
  // pieces' sums add up to the whole; shifted copies are used as by msm_device).
  Jacobian msm_device_range(const void* d_scalars, std::size_t offset, std::size_t n, const MsmConfig& cfg = {},
                            void* stream = nullptr);
  // Bytes of workspace an MSM of n scalars under cfg grows this Msm's workspace to (an upper bound
  // computed from the same choices msm_device makes; no device call).
  std::size_t workspace_bytes_for(std::size_t n, const MsmConfig& cfg = {}) const;
  // The 0/1 fast path: sum of bases[i] over the set bits i < n of a device bitmap (bit i of
  // 64-bit word i / 64).
  // tuning: its sel_per / sel_occ.
  Jacobian sum_selected(const void* d_bitmap, std::size_t n, void* stream = nullptr, const MsmTuning& tuning = {});

  const MsmProfile& last_profile() const;
  // Frees the grow-only workspace (digit keys/values, sort buffers, buckets); the bases stay. The
  // next msm() allocates it again. Used by the Groth16 backend to give memory back under pressure.
  void release_workspace();
  // Bytes of workspace currently held (excluding the bases).
  std::size_t workspace_bytes() const;

  struct Impl;  // public only so that CUDA's generated kernel stubs may name its types

 private:
  std::unique_ptr<Impl> impl_;
};
extern template class Msm<math::G1Curve>;
extern template class Msm<math::G2Curve>;
using MsmG1 = Msm<math::G1Curve>;
using MsmG2 = Msm<math::G2Curve>;

// Device-side generators of test and benchmark inputs: gpu/generators.hpp.
// The Groth16 prover on the GPU (device-resident keys, make_cuda_backend()): gpu/groth16_backend.hpp.

}  // namespace cuzk::gpu
