// The Groth16 prover on the GPU (see groth16_backend.hpp for the data flow).
#include "gpu/groth16_backend.hpp"

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <list>
#include <mutex>
#include <optional>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "base/parallel.hpp"
#include "gpu/csr_words.hpp"
#include "gpu/cuda_util.cuh"
#include "gpu/gpu.hpp"
#include "groth16/snarkjs_domain.hpp"

namespace cuzk::gpu {
namespace {

using HostFr = math::Fr;
using groth16::HBasis;
using groth16::PendingProof;

static_assert(sizeof(Fr) == sizeof(HostFr), "host/device Fr layout");

constexpr int kSplitBlock = 256;  // positions per block of the 0/1 classification
constexpr int kPowLoBits = 14;
constexpr std::size_t kStageBytes = std::size_t(64) << 20;  // pinned staging chunk for pageable witnesses

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Fr to_dev(const HostFr& x) {
  Fr r;
  std::memcpy(static_cast<void*>(&r), &x, sizeof(r));
  return r;
}

// A tuning switch that is on unless the variable is "0" (for A/B comparisons).
bool switch_on(const char* name) {
  const char* v = std::getenv(name);
  return !(v && std::strcmp(v, "0") == 0);
}

// CUDA's out-of-memory message, in an exception or a Result error.
bool is_oom(std::string_view what) { return what.find("out of memory") != std::string_view::npos; }

// ---------------------------------------------------------------------------------------------
// Kernels.

struct CsrView {
  const u32* row_ptr = nullptr;
  const u32* words = nullptr;
  const Fr* coefs = nullptr;
};

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

__device__ __forceinline__ u32 bitrev_dev(u64 i, int logn) { return logn == 0 ? 0u : __brev(u32(i)) >> (32 - logn); }

// d[i] *= s^j with j = bitrev(i) (rev) or i; s^j = hi[j >> 14] * lo[j & (2^14 - 1)].
__global__ void scale_powers_kernel(Fr* d, int logn, const Fr* hi, const Fr* lo, bool rev) {
  const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >> logn) return;
  const u32 j = rev ? bitrev_dev(i, logn) : u32(i);
  const Fr f = ldg_f(hi + (j >> kPowLoBits)) * ldg_f(lo + (j & ((1u << kPowLoBits) - 1)));
  store_f(d + i, load_f(d + i) * f);
}

// In-place p[i] <-> p[bitrev(i)] for i < count (count = m - 1: bitrev maps [0, m-1) onto itself).
template <class F>
__global__ void bitrev_points_kernel(AffineT<F>* p, u64 count, int logn) {
  const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const u64 j = bitrev_dev(i, logn);
  if (i < j && j < count) {
    AffineT<F> x = load_affine_rw(p + i), y = load_affine_rw(p + j);
    store_affine(p + i, y);
    store_affine(p + j, x);
  }
}

__global__ void gather_scalars_kernel(const u32* __restrict__ map, const Fr* __restrict__ w, u64 n, Fr* out) {
  const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  store_f(out + i, ldg_f(w + map[i]));
}

// Compact witness (groth16::CompactAssignment) -> dense aux on the device. Per 64-bit bitmap word:
// the number of non-binary aux in it (the last word counts only variables that exist).
__global__ void compact_count_kernel(const u64* __restrict__ is_binary, u64 words, u64 num_aux, u32* counts) {
  const u64 k = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= words) return;
  const u64 j0 = k * 64;
  const u32 valid = num_aux - j0 >= 64 ? 64u : u32(num_aux - j0);
  counts[k] = valid - u32(__popcll(is_binary[k]));
}

// One thread per aux variable j: 0 / 1 from the bitmaps, or values[rank(j)] with
// rank(j) = offsets[j / 64] (exclusive prefix sum of the counts) + non-binary aux below j in its word.
__global__ void compact_expand_kernel(const u64* __restrict__ is_binary, const u64* __restrict__ bits,
                                      const u32* __restrict__ offsets, const Fr* __restrict__ values, u64 num_aux,
                                      Fr* out) {
  const u64 j = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= num_aux) return;
  const u64 k = j >> 6;
  const u32 b = u32(j & 63);
  const u64 wb = is_binary[k];
  Fr v;
  if ((wb >> b) & 1) {
    v = ((bits[k] >> b) & 1) ? Fr::one() : Fr::zero();
  } else {
    v = ldg_f(values + offsets[k] + u32(__popcll(~wb & ((u64(1) << b) - 1))));
  }
  store_f(out + j, v);
}

// out[i] = bases[idx[i] - first] (first: the position of bases[0] in the query, for a streamed chunk).
template <class F>
__global__ void gather_points_kernel(const AffineT<F>* __restrict__ bases, const u32* __restrict__ idx, u64 count,
                                     u32 first, AffineT<F>* out) {
  const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  store_affine(out + i, load_affine(bases + (idx[i] - first)));
}

// Streamed keys: out[j] = the first k with tail_idx[k] >= j * chunk (j <= chunks; ascending tail_idx).
__global__ void chunk_first_tail_kernel(const u32* __restrict__ tail_idx, u32 tail, u64 chunk, u32 chunks, u32* out) {
  const u32 j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > chunks) return;
  const u64 bound = u64(j) * chunk;
  u32 lo = 0, hi = tail;
  while (lo < hi) {
    const u32 mid = lo + (hi - lo) / 2;
    if (tail_idx[mid] < bound) lo = mid + 1;
    else hi = mid;
  }
  out[j] = lo;
}

__device__ __forceinline__ bool is_tail(const Fr& x) { return !(x.is_zero() || x.is_one()); }

// Per block of kSplitBlock positions: the number of tail scalars (neither 0 nor 1); global count of ones.
__global__ void __launch_bounds__(kSplitBlock) count_split_kernel(const Fr* __restrict__ s, u64 n, u32* block_counts,
                                                                  unsigned long long* ones) {
  __shared__ u32 wt[kSplitBlock / 32], wo[kSplitBlock / 32];
  const u64 i = u64(blockIdx.x) * kSplitBlock + threadIdx.x;
  Fr x = i < n ? load_f(s + i) : Fr::zero();
  const u32 bt = __ballot_sync(0xffffffffu, is_tail(x));
  const u32 bo = __ballot_sync(0xffffffffu, i < n && x.is_one());
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) {
    wt[warp] = __popc(bt);
    wo[warp] = __popc(bo);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    u32 t = 0, o = 0;
    for (int k = 0; k < kSplitBlock / 32; ++k) t += wt[k], o += wo[k];
    block_counts[blockIdx.x] = t;
    if (o) atomicAdd(ones, (unsigned long long)o);
  }
}

// Writes the bitmap of ones (bit i of 32-bit word i / 32, i.e. of 64-bit word i / 64 on little
// endian) and compacts the tail in order: tail_idx[k] = position, tail_s[k] = scalar.
__global__ void __launch_bounds__(kSplitBlock) split_kernel(const Fr* __restrict__ s, u64 n,
                                                            const u32* __restrict__ block_offsets, u32* bitmap,
                                                            u32* tail_idx, Fr* tail_s) {
  __shared__ u32 wt[kSplitBlock / 32];
  const u64 i = u64(blockIdx.x) * kSplitBlock + threadIdx.x;
  Fr x = i < n ? load_f(s + i) : Fr::zero();
  const bool tail = is_tail(x);
  const u32 bt = __ballot_sync(0xffffffffu, tail);
  const u32 bo = __ballot_sync(0xffffffffu, i < n && x.is_one());
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) {
    bitmap[i >> 5] = bo;
    wt[warp] = __popc(bt);
  }
  __syncthreads();
  if (tail) {
    u32 pos = block_offsets[blockIdx.x] + __popc(bt & ((1u << lane) - 1));
    for (int k = 0; k < warp; ++k) pos += wt[k];
    tail_idx[pos] = u32(i);
    store_f(tail_s + pos, x);
  }
}

// Synthetic shapes: row r of a matrix with `whole` + (1 with probability frac/2^16) terms.
__device__ __forceinline__ u64 mix64(u64 x) {
  u64 z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
__device__ __forceinline__ u32 synth_terms(u64 seed, u64 r, u32 whole, u32 frac16) {
  return whole + ((mix64(seed ^ (r * 0x2545f4914f6cdd1dULL)) & 0xffff) < frac16 ? 1u : 0u);
}
__device__ __forceinline__ u64 synth_term_hash(u64 seed, u64 r, u32 j) { return mix64(seed + r * 64 + j + 0x1234567ULL); }
__device__ __forceinline__ bool synth_explicit(u64 h) { return ((h >> 40) & 7) == 0; }

// Long synthetic rows (every `every`-th row when every > 0): `lterms` terms of +-1, one word each,
// as the PoRep circuit's bit-packing rows.
__device__ __forceinline__ bool synth_long(u64 r, u32 every) { return every && r % every == every - 1; }

__global__ void synth_count_kernel(u64 rows, u64 seed, u32 whole, u32 frac16, u32 every, u32 lterms, u32* counts) {
  const u64 r = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  if (synth_long(r, every)) {
    counts[r] = lterms;
    return;
  }
  const u32 terms = synth_terms(seed, r, whole, frac16);
  u32 words = terms;
  for (u32 j = 0; j < terms; ++j) words += synth_explicit(synth_term_hash(seed, r, j)) ? 1 : 0;
  counts[r] = words;
}

__global__ void synth_fill_kernel(u64 rows, u64 seed, u32 whole, u32 frac16, u32 every, u32 lterms, u32 nvars,
                                  u32 ncoef, const u32* row_ptr, u32* words) {
  const u64 r = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  u32 t = row_ptr[r];
  if (synth_long(r, every)) {
    for (u32 j = 0; j < lterms; ++j) {
      const u64 h = synth_term_hash(seed, r, j);
      words[t++] = u32((h & 0xffffffffULL) % nvars) | (((h >> 44) & 1) ? kTagMinus : 0u);
    }
    return;
  }
  const u32 terms = synth_terms(seed, r, whole, frac16);
  for (u32 j = 0; j < terms; ++j) {
    const u64 h = synth_term_hash(seed, r, j);
    const u32 var = u32((h & 0xffffffffULL) % nvars);
    if (synth_explicit(h)) {
      words[t++] = var | kTagExplicit;
      words[t++] = u32((h >> 48) % ncoef);
    } else {
      words[t++] = var | (((h >> 44) & 1) ? kTagMinus : 0u);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Host helpers.

// hi[k] = c * h^(k 2^14), lo[j] = h^j (j < min(count, 2^14)): h^j = hi[j >> 14] * lo[j & mask].
void power_tables(std::size_t count, const HostFr& h, std::vector<HostFr>& hi, std::vector<HostFr>& lo) {
  const std::size_t nlo = std::min<std::size_t>(std::max<std::size_t>(count, 1), std::size_t(1) << kPowLoBits);
  const std::size_t nhi = std::max<std::size_t>(1, (count + (std::size_t(1) << kPowLoBits) - 1) >> kPowLoBits);
  lo.resize(nlo);
  HostFr x = HostFr::one();
  for (auto& v : lo) {
    v = x;
    x *= h;
  }
  HostFr step = h;
  for (int i = 0; i < kPowLoBits; ++i) step = step.square();
  hi.resize(nhi);
  x = HostFr::one();
  for (auto& v : hi) {
    v = x;
    x *= step;
  }
}

template <class T>
DeviceBuffer upload_vector(const std::vector<T>& v) {
  DeviceBuffer b(std::max<std::size_t>(1, v.size()) * sizeof(T));
  if (!v.empty()) b.upload(v.data(), v.size() * sizeof(T));
  return b;
}

template <class T>
T* ptr(const DeviceBuffer& b) {
  return static_cast<T*>(b.get());
}

std::uint64_t host_mix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

// =============================================================================================
// GpuKey

// One query's bases: resident (`dev` holds all n) or streamed (`host` holds all n, device layout).
template <class C>
struct QueryBases {
  std::unique_ptr<Msm<C>> dev;
  PinnedHostBuffer host;
};

// A streamed key's device side for one curve: two buffers of `chunk` bases; chunk j + 1 is copied
// into one on the `copy` stream (ready[] records its arrival) while chunk j in the other is summed.
template <class C>
struct ChunkRing {
  cudaStream_t copy = nullptr;
  cudaEvent_t ready[2] = {};
  std::size_t chunk = 0;
  std::unique_ptr<Msm<C>> buf[2];

  // longest: the longest query this ring serves (the buffers are no larger than that).
  ChunkRing(std::size_t chunk_bases, std::size_t longest) : chunk(chunk_bases) {
    CUZK_CUDA(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    for (auto& e : ready) CUZK_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    for (auto& b : buf) b = std::make_unique<Msm<C>>(std::min(chunk, std::max<std::size_t>(longest, 1)));
    CUZK_CUDA(cudaDeviceSynchronize());  // the Msm constructor clears its bases on the legacy stream
  }
  ~ChunkRing() {
    cudaDeviceSynchronize();
    for (auto e : ready)
      if (e) cudaEventDestroy(e);
    if (copy) cudaStreamDestroy(copy);
  }
  std::size_t bytes() const {
    return 2 * buf[0]->size() * (std::is_same_v<C, math::G1Curve> ? sizeof(G1Affine) : sizeof(G2Affine));
  }
  void release_workspace() {
    for (auto& b : buf) b->release_workspace();
  }
};

struct GpuKey::Impl {
  HBasis basis = HBasis::kMonomialOverZ;
  std::uint32_t num_inputs = 0, num_aux = 0, log_m = 0;
  QueryBases<math::G1Curve> a, b1, l, h;
  QueryBases<math::G2Curve> b2;
  // Streamed keys only: H has its own ring, so that it can be summed while the witness queries
  // (L, A, B_G1 in ring_g1, B_G2 in ring_g2) cross the bus.
  std::unique_ptr<ChunkRing<math::G1Curve>> ring_h, ring_g1;
  std::unique_ptr<ChunkRing<math::G2Curve>> ring_g2;
  std::size_t a_n = 0, b_n = 0, l_n = 0, h_n = 0;
  DeviceBuffer a_map, b_map;  // query position -> variable index (u32)
  DeviceBuffer shift_hi, shift_lo;  // snarkjs: powers of the 2m-th root (coset shift)
  HostFr z_inv;                     // bellperson: 1 / (7^m - 1)
  std::size_t bytes = 0, host_bytes = 0;

  bool streamed() const { return ring_h != nullptr; }
  int h_copies() const { return streamed() || !h.dev ? 1 : h.dev->copies(); }

  void finish_setup() {
    const std::size_t m = std::size_t(1) << log_m;
    if (basis == HBasis::kMonomialOverZ) {
      z_inv = (HostFr::from_u64(math::kFrMultiplicativeGenerator).pow(std::uint64_t(m)) - HostFr::one()).inverse();
    } else {
      std::vector<HostFr> hi, lo;
      power_tables(m, groth16::root_of_unity(log_m + 1, true), hi, lo);
      shift_hi = upload_vector(hi);
      shift_lo = upload_vector(lo);
    }
    count_bytes();
  }
  void count_bytes() {
    const std::size_t base_bytes = (a_n + b_n + l_n + h_n) * sizeof(G1Affine) + b_n * sizeof(G2Affine);
    const std::size_t ring_bytes = streamed() ? ring_h->bytes() + ring_g1->bytes() + ring_g2->bytes() : 0;
    const std::size_t copy_bytes = std::size_t(h_copies() - 1) * h_n * sizeof(G1Affine);
    bytes = (streamed() ? ring_bytes : base_bytes + copy_bytes) + a_map.size() + b_map.size();
    host_bytes = streamed() ? base_bytes : 0;
  }

  // Resident keys: shifted copies of the final H bases (GpuKeyOptions::h_copies), as many as asked
  // while kProofReserveBytes per domain element stay free (a 2^27 partition's workspace, shape apart,
  // measured 444 bytes per element with two copies: 125.3 GB in use beside a 60.9 GB key and a 4.8 GB
  // shape, RESULTS_gpu.md session 12; 441 with three). An out-of-memory failure only means fewer copies.
  // Three by default: the 2^27 partition 1,062.8 -> 1,042.7 ms against two (session 13), for 12.9 GB
  // more and 1.9 s more at the key's upload; a fourth shortens no window at 2^27 (the cost model
  // keeps 11 windows), so it would only cost memory.
  static constexpr int kDefaultHCopies = 3;
  void add_h_copies(int asked) {
    const int want = std::clamp(asked > 0 ? asked : kDefaultHCopies, 1, 4);
    const std::size_t reserve = GpuKeyOptions::kProofReserveBytes << log_m;
    for (int k = want; k > 1; --k) {
      std::size_t free_b = 0, total_b = 0;
      CUZK_CUDA(cudaMemGetInfo(&free_b, &total_b));
      // afterwards k - 1 more copies of H and the reserve; meanwhile the new buffer of k copies beside
      // the old one, and the doubling scratch (about 1 GB)
      const std::size_t h_bytes = h_n * sizeof(G1Affine);
      const std::size_t need = std::max((k - 1) * h_bytes + reserve, k * h_bytes + (std::size_t(1) << 30));
      if (free_b < need) continue;
      try {
        h.dev->add_shifted_copies(k);
        return;
      } catch (const std::exception& e) {
        cudaGetLastError();
        if (!is_oom(e.what())) throw;
      }
    }
  }

  // Streamed keys: the chunk buffers, sized for the longest query of each curve.
  void make_rings(std::size_t chunk_bases) {
    // a multiple of 64, so that each chunk's slice of a 0/1 bitmap starts on a 64-bit word
    const std::size_t want = chunk_bases ? chunk_bases : GpuKeyOptions::kDefaultStreamChunk;
    const std::size_t chunk = (std::max<std::size_t>(want, 1) + 63) / 64 * 64;
    ring_h = std::make_unique<ChunkRing<math::G1Curve>>(chunk, h_n);
    ring_g1 = std::make_unique<ChunkRing<math::G1Curve>>(chunk, std::max({a_n, b_n, l_n}));
    ring_g2 = std::make_unique<ChunkRing<math::G2Curve>>(chunk, b_n);
  }
};

namespace {

// The bellperson H bases in the order the H scalars leave the last NTT: p[i] <-> p[bitrev(i)] for
// i < count (count = m - 1, which bitrev maps onto itself), on the device or on the host.
void bitrev_h_device(void* bases, std::size_t count, int log_m) {
  bitrev_points_kernel<Fp><<<grid_for(count, 256), 256>>>(static_cast<G1Affine*>(bases), count, log_m);
  CUZK_CUDA_LAUNCH();
}
void bitrev_h_host(void* bases, std::size_t count, int log_m) {
  auto* p = static_cast<G1Affine*>(bases);
  parallel_chunks(count, default_threads(), [&](std::size_t b, std::size_t e, std::size_t) {
    for (std::size_t i = b; i < e; ++i) {
      std::size_t j = 0;
      for (int k = 0; k < log_m; ++k) j |= ((i >> k) & 1) << (log_m - 1 - k);
      if (i < j && j < count) std::swap(p[i], p[j]);
    }
  });
}

// A streamed query from host points: converted into pinned memory in the device layout.
template <class C>
void stream_from_host(QueryBases<C>& q, std::span<const math::Affine<C>> pts) {
  using Aff = std::conditional_t<std::is_same_v<C, math::G1Curve>, G1Affine, G2Affine>;
  q.host = PinnedHostBuffer(pts.size() * sizeof(Aff));
  if (!pts.empty()) host_bases_to_device_layout(q.host.get(), pts.data(), pts.size());
}

// A streamed query from bases made on the device (synthetic keys): made in a temporary device
// buffer of n bases by gen(device pointer), then copied to pinned memory.
template <class C, class Gen>
void stream_from_device(QueryBases<C>& q, std::size_t n, Gen&& gen) {
  using Aff = std::conditional_t<std::is_same_v<C, math::G1Curve>, G1Affine, G2Affine>;
  q.host = PinnedHostBuffer(n * sizeof(Aff));
  if (n == 0) return;
  DeviceBuffer tmp(n * sizeof(Aff));
  gen(tmp.get());
  tmp.download(q.host.get(), n * sizeof(Aff));
}

}  // namespace

GpuKey::GpuKey() : impl_(std::make_unique<Impl>()) {}
GpuKey::~GpuKey() = default;
std::uint32_t GpuKey::num_inputs() const { return impl_->num_inputs; }
std::uint32_t GpuKey::num_aux() const { return impl_->num_aux; }
std::uint32_t GpuKey::domain_log2() const { return impl_->log_m; }
HBasis GpuKey::h_basis() const { return impl_->basis; }
std::size_t GpuKey::device_bytes() const { return impl_->bytes; }
int GpuKey::h_copies() const { return impl_->h_copies(); }
bool GpuKey::drop_h_copies() {
  if (h_copies() == 1) return false;
  try {
    impl_->h.dev->add_shifted_copies(1);
  } catch (const std::exception&) {
    cudaGetLastError();
    return false;
  }
  impl_->count_bytes();
  return true;
}
bool GpuKey::streamed() const { return impl_->streamed(); }
std::size_t GpuKey::host_bytes() const { return impl_->host_bytes; }
void GpuKey::release_workspace() {
  for (auto* q : {&impl_->a, &impl_->b1, &impl_->l, &impl_->h})
    if (q->dev) q->dev->release_workspace();
  if (impl_->b2.dev) impl_->b2.dev->release_workspace();
  if (impl_->streamed()) {
    impl_->ring_h->release_workspace();
    impl_->ring_g1->release_workspace();
    impl_->ring_g2->release_workspace();
  }
}

std::size_t GpuKey::streamed_host_bytes(const groth16::ProvingKey& key) {
  return (key.a.size() + key.b_g1.size() + key.l.size() + key.h.size()) * sizeof(G1Affine) +
         key.b_g2.size() * sizeof(G2Affine);
}

std::size_t GpuKey::resident_bytes(const groth16::ProvingKey& key) {
  return streamed_host_bytes(key) + (key.a.size() + key.b_g1.size()) * sizeof(u32);  // bases + query maps
}

Result<std::unique_ptr<GpuKey>> GpuKey::upload(const groth16::ProvingKey& key, const GpuKeyOptions& opt) {
  if (auto st = key.check_consistency(); !st) return Error{st.error()};
  if (key.domain_log2 > 28) return Error{"GPU prover: domains above 2^28 are not supported"};
  if (std::size_t(key.num_inputs) + key.num_aux >= (std::size_t(1) << 30))
    return Error{"GPU prover: at most 2^30 variables"};
  try {
    if (!device_available()) return Error{"GPU prover: no CUDA device"};
    std::unique_ptr<GpuKey> k(new GpuKey());
    auto& d = *k->impl_;
    d.basis = key.h_basis;
    d.num_inputs = key.num_inputs;
    d.num_aux = key.num_aux;
    d.log_m = key.domain_log2;
    d.a_n = key.a.size();
    d.b_n = key.b_g1.size();
    d.l_n = key.l.size();
    d.h_n = key.h.size();
    std::vector<u32> amap, bmap;
    amap.reserve(d.a_n);
    bmap.reserve(d.b_n);
    for (u32 i = 0; i < key.num_inputs; ++i) amap.push_back(i);
    for (u32 j = 0; j < key.num_aux; ++j)
      if (key.a_aux_density.bits[j]) amap.push_back(key.num_inputs + j);
    for (u32 i = 0; i < key.num_inputs; ++i)
      if (key.b_input_density.bits[i]) bmap.push_back(i);
    for (u32 j = 0; j < key.num_aux; ++j)
      if (key.b_aux_density.bits[j]) bmap.push_back(key.num_inputs + j);
    d.a_map = upload_vector(amap);
    d.b_map = upload_vector(bmap);
    const bool bitrev_h = d.basis == HBasis::kMonomialOverZ && d.h_n > 1;
    if (opt.streamed) {
      d.make_rings(opt.chunk_bases);  // device memory first: a ring that does not fit fails fast
      stream_from_host(d.h, std::span<const math::G1Affine>(key.h));
      stream_from_host(d.l, std::span<const math::G1Affine>(key.l));
      stream_from_host(d.a, std::span<const math::G1Affine>(key.a));
      stream_from_host(d.b1, std::span<const math::G1Affine>(key.b_g1));
      stream_from_host(d.b2, std::span<const math::G2Affine>(key.b_g2));
      if (bitrev_h) bitrev_h_host(d.h.host.get(), d.h_n, int(d.log_m));
    } else {
      d.h.dev = std::make_unique<MsmG1>(std::span<const math::G1Affine>(key.h));
      d.l.dev = std::make_unique<MsmG1>(std::span<const math::G1Affine>(key.l));
      d.a.dev = std::make_unique<MsmG1>(std::span<const math::G1Affine>(key.a));
      d.b1.dev = std::make_unique<MsmG1>(std::span<const math::G1Affine>(key.b_g1));
      d.b2.dev = std::make_unique<MsmG2>(std::span<const math::G2Affine>(key.b_g2));
      // the H scalars come out of the last NTT in bit-reversed order: store the bases the same way
      if (bitrev_h) bitrev_h_device(d.h.dev->device_bases(), d.h_n, int(d.log_m));
      d.add_h_copies(opt.h_copies);
    }
    d.finish_setup();
    CUZK_CUDA(cudaDeviceSynchronize());
    return std::move(k);
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: uploading the proving key failed: ") + e.what()};
  }
}

Result<std::unique_ptr<GpuKey>> GpuKey::synthetic(const SyntheticSpec& s, const GpuKeyOptions& opt) {
  if (s.domain_log2 > 28) return Error{"GPU prover: domains above 2^28 are not supported"};
  if (std::size_t(s.num_inputs) + s.num_aux >= (std::size_t(1) << 30)) return Error{"GPU prover: at most 2^30 variables"};
  if (s.num_inputs == 0) return Error{"GPU prover: a key needs ONE among its inputs"};
  try {
    if (!device_available()) return Error{"GPU prover: no CUDA device"};
    std::unique_ptr<GpuKey> k(new GpuKey());
    auto& d = *k->impl_;
    d.basis = s.h_basis;
    d.num_inputs = s.num_inputs;
    d.num_aux = s.num_aux;
    d.log_m = s.domain_log2;
    const std::size_t m = std::size_t(1) << s.domain_log2;
    // densities from a hash of (seed, variable)
    auto bit = [&](std::uint64_t salt, std::uint32_t j, double p) {
      return double(host_mix64(s.seed * 0x9e3779b97f4a7c15ULL + salt * 0x100000000ULL + j) >> 11) * 0x1.0p-53 < p;
    };
    std::vector<std::uint8_t> flags(s.num_aux);  // bit 0: A density, bit 1: B density
    std::vector<std::size_t> counts(2 * default_threads(), 0);
    parallel_chunks(s.num_aux, default_threads(), [&](std::size_t b, std::size_t e, std::size_t t) {
      for (std::size_t j = b; j < e; ++j) {
        const bool fa = bit(1, std::uint32_t(j), s.a_aux_density), fb = bit(2, std::uint32_t(j), s.b_aux_density);
        flags[j] = std::uint8_t(fa | (fb << 1));
        counts[2 * t] += fa;
        counts[2 * t + 1] += fb;
      }
    });
    std::size_t a_aux = 0, b_aux = 0;
    for (std::size_t t = 0; t < default_threads(); ++t) a_aux += counts[2 * t], b_aux += counts[2 * t + 1];
    d.l_n = s.num_aux;
    d.a_n = s.num_inputs + a_aux;
    d.b_n = (s.b_inputs_only_one ? 1 : s.num_inputs) + b_aux;
    d.h_n = s.h_basis == HBasis::kMonomialOverZ ? m - 1 : m;
    // allocate everything first (a key that does not fit fails before any work)
    if (opt.streamed) {
      d.make_rings(opt.chunk_bases);
    } else {
      d.l.dev = std::make_unique<MsmG1>(d.l_n);
      d.h.dev = std::make_unique<MsmG1>(d.h_n);
      d.a.dev = std::make_unique<MsmG1>(d.a_n);
      d.b1.dev = std::make_unique<MsmG1>(d.b_n);
      d.b2.dev = std::make_unique<MsmG2>(d.b_n);
    }
    std::vector<u32> amap, bmap;
    amap.reserve(d.a_n);
    bmap.reserve(d.b_n);
    for (u32 i = 0; i < s.num_inputs; ++i) amap.push_back(i);
    for (u32 j = 0; j < s.num_aux; ++j)
      if (flags[j] & 1) amap.push_back(s.num_inputs + j);
    for (u32 i = 0; i < (s.b_inputs_only_one ? 1u : s.num_inputs); ++i) bmap.push_back(i);
    for (u32 j = 0; j < s.num_aux; ++j)
      if (flags[j] & 2) bmap.push_back(s.num_inputs + j);
    d.a_map = upload_vector(amap);
    d.b_map = upload_vector(bmap);
    if (opt.streamed) {  // one query at a time through a temporary device buffer
      auto g1 = [](std::size_t n) { return [n](void* p) { gen_bases_sequential(p, n); }; };
      stream_from_device(d.l, d.l_n, g1(d.l_n));
      stream_from_device(d.h, d.h_n, g1(d.h_n));
      stream_from_device(d.a, d.a_n, g1(d.a_n));
      stream_from_device(d.b1, d.b_n, g1(d.b_n));
      stream_from_device(d.b2, d.b_n, [&](void* p) { gen_g2_bases_sequential(p, d.b_n); });
    } else {
      gen_bases_sequential(d.l.dev->device_bases(), d.l_n);
      gen_bases_sequential(d.h.dev->device_bases(), d.h_n);
      gen_bases_sequential(d.a.dev->device_bases(), d.a_n);
      gen_bases_sequential(d.b1.dev->device_bases(), d.b_n);
      gen_g2_bases_sequential(d.b2.dev->device_bases(), d.b_n);
      d.add_h_copies(opt.h_copies);
    }
    d.finish_setup();
    CUZK_CUDA(cudaDeviceSynchronize());
    return std::move(k);
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: making the synthetic key failed: ") + e.what()};
  }
}

// =============================================================================================
// GpuShape

struct DevCsr {
  DeviceBuffer row_ptr, words, coefs;
  // Rows longer than kLongRowWords: their pieces (begin, end word) and (row, first piece, piece
  // count) per long row.
  DeviceBuffer piece_bounds, long_rows;
  u32 pieces = 0, num_long = 0;
  CsrView view() const { return CsrView{ptr<const u32>(row_ptr), ptr<const u32>(words), ptr<const Fr>(coefs)}; }
  std::size_t bytes() const {
    return row_ptr.size() + words.size() + coefs.size() + piece_bounds.size() + long_rows.size();
  }
  // The values of the long rows into out (after eval_rows_kernel, on the same stream); partial: room
  // for `pieces` sums (the prover's workspace).
  void eval_long_rows(const Fr* w, Fr* out, Fr* partial, cudaStream_t st) const {
    if (num_long == 0) return;
    pieces_kernel<<<grid_for(pieces, 128), 128, 0, st>>>(view(), ptr<const u32>(piece_bounds), pieces, w, partial);
    CUZK_CUDA_LAUNCH();
    long_rows_kernel<<<grid_for(num_long, 128), 128, 0, st>>>(ptr<const u32>(long_rows), num_long, partial, out);
    CUZK_CUDA_LAUNCH();
  }
};

struct GpuShape::Impl {
  DevCsr a, b, c;
  bool has_c = true;
  std::uint32_t num_inputs = 0, num_aux = 0;
  std::uint64_t rows = 0;
  std::size_t bytes = 0;
};

GpuShape::GpuShape() : impl_(std::make_unique<Impl>()) {}
GpuShape::~GpuShape() = default;
std::size_t GpuShape::num_constraints() const { return impl_->rows; }
std::size_t GpuShape::device_bytes() const { return impl_->bytes; }

namespace {

// The long rows' pieces to the device.
void upload_long_rows(const LongRows& lr, DevCsr& d) {
  d.pieces = lr.pieces();
  d.num_long = lr.count();
  if (d.num_long) {
    d.piece_bounds = upload_vector(lr.piece_bounds);
    d.long_rows = upload_vector(lr.long_rows);
  }
}

Result<DevCsr> upload_csr(const groth16::CsrMatrix& mat, std::size_t rows, std::size_t nvars, const char* name) {
  auto enc = encode_csr(mat, rows, nvars, name);
  if (!enc) return Error{enc.error()};
  DevCsr d;
  d.row_ptr = upload_vector(enc->row_ptr);
  d.words = upload_vector(enc->words);
  d.coefs = upload_vector(enc->coefs);
  upload_long_rows(enc->long_rows, d);
  return std::move(d);
}

}  // namespace

Result<std::unique_ptr<GpuShape>> GpuShape::upload(const groth16::R1csShape& shape) {
  const std::size_t nvars = shape.num_variables();
  if (nvars >= (std::size_t(1) << 30)) return Error{"GPU prover: at most 2^30 variables"};
  try {
    if (!device_available()) return Error{"GPU prover: no CUDA device"};
    std::unique_ptr<GpuShape> s(new GpuShape());
    auto& d = *s->impl_;
    d.rows = shape.num_constraints();
    d.has_c = shape.has_c;
    d.num_inputs = shape.num_inputs;
    d.num_aux = shape.num_aux;
    auto a = upload_csr(shape.a, d.rows, nvars, "A");
    if (!a) return Error{a.error()};
    auto b = upload_csr(shape.b, d.rows, nvars, "B");
    if (!b) return Error{b.error()};
    d.a = std::move(*a);
    d.b = std::move(*b);
    if (d.has_c) {
      auto c = upload_csr(shape.c, d.rows, nvars, "C");
      if (!c) return Error{c.error()};
      d.c = std::move(*c);
    }
    d.bytes = d.a.bytes() + d.b.bytes() + d.c.bytes();
    CUZK_CUDA(cudaDeviceSynchronize());
    return std::move(s);
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: uploading the constraint system failed: ") + e.what()};
  }
}

Result<std::unique_ptr<GpuShape>> GpuShape::synthetic(const SyntheticSpec& sp) {
  const std::size_t nvars = std::size_t(sp.num_inputs) + sp.num_aux;
  if (nvars == 0 || nvars >= (std::size_t(1) << 30)) return Error{"GPU prover: 1 .. 2^30 variables"};
  if (sp.rows >= (std::uint64_t(1) << 31)) return Error{"GPU prover: too many rows"};
  try {
    if (!device_available()) return Error{"GPU prover: no CUDA device"};
    std::unique_ptr<GpuShape> s(new GpuShape());
    auto& d = *s->impl_;
    d.rows = sp.rows;
    d.has_c = true;
    d.num_inputs = sp.num_inputs;
    d.num_aux = sp.num_aux;
    constexpr u32 kCoefs = 1024;
    DevCsr* mats[3] = {&d.a, &d.b, &d.c};
    const double terms[3] = {sp.a_terms, sp.b_terms, sp.c_terms};
    for (int k = 0; k < 3; ++k) {
      const u32 whole = u32(terms[k]);
      const u32 frac16 = u32((terms[k] - whole) * 65536.0);
      const double long_words =
          k == 0 && sp.long_row_every ? double(sp.rows) / sp.long_row_every * sp.long_row_terms : 0;
      if (double(sp.rows) * (whole + 1) * 2 + long_words >= 4294967295.0)
        return Error{"GPU prover: synthetic shape too large"};
      // Rows over kLongRowWords words must be the listed long rows (split_long_rows below).
      if ((whole + 1) * 2 > kLongRowWords)
        return Error{"GPU prover: synthetic rows have at most 15 terms on average"};
      const u64 seed = host_mix64(sp.seed * 3 + k);
      DeviceBuffer counts((sp.rows + 1) * 4);
      DevCsr& m = *mats[k];
      m.row_ptr = DeviceBuffer((sp.rows + 1) * 4);
      CUZK_CUDA(cudaMemset(counts.get(), 0, (sp.rows + 1) * 4));
      const u32 every = k == 0 ? sp.long_row_every : 0, lterms = sp.long_row_terms;
      synth_count_kernel<<<grid_for(sp.rows, 256), 256>>>(sp.rows, seed, whole, frac16, every, lterms,
                                                           ptr<u32>(counts));
      CUZK_CUDA_LAUNCH();
      std::size_t tmp_bytes = 0;
      CUZK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, ptr<u32>(counts), ptr<u32>(m.row_ptr),
                                              int(sp.rows + 1)));
      DeviceBuffer tmp(std::max<std::size_t>(tmp_bytes, 16));
      CUZK_CUDA(cub::DeviceScan::ExclusiveSum(tmp.get(), tmp_bytes, ptr<u32>(counts), ptr<u32>(m.row_ptr),
                                              int(sp.rows + 1)));
      u32 total = 0;
      CUZK_CUDA(cudaMemcpy(&total, ptr<u32>(m.row_ptr) + sp.rows, 4, cudaMemcpyDeviceToHost));
      m.words = DeviceBuffer(std::max<std::size_t>(total, 1) * 4);
      m.coefs = DeviceBuffer(kCoefs * sizeof(Fr));
      gen_random_scalars(m.coefs.get(), kCoefs, seed ^ 0xc0ef);
      synth_fill_kernel<<<grid_for(sp.rows, 256), 256>>>(sp.rows, seed, whole, frac16, every, lterms, u32(nvars),
                                                         kCoefs, ptr<const u32>(m.row_ptr), ptr<u32>(m.words));
      CUZK_CUDA_LAUNCH();
      CUZK_CUDA(cudaDeviceSynchronize());
      if (every && lterms > kLongRowWords) {  // only the long rows exceed kLongRowWords (checked above)
        std::vector<u32> row_ptr(sp.rows + 1);
        CUZK_CUDA(cudaMemcpy(row_ptr.data(), m.row_ptr.get(), row_ptr.size() * 4, cudaMemcpyDeviceToHost));
        upload_long_rows(split_long_rows(row_ptr, [](u32) { return 1u; }), m);  // their terms are one word each
      }
    }
    d.bytes = d.a.bytes() + d.b.bytes() + d.c.bytes();
    return std::move(s);
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: making the synthetic shape failed: ") + e.what()};
  }
}

// =============================================================================================
// GpuProver

namespace {
// The witness of one proof as the caller gave it: dense, or compact (expanded on the device).
struct WitnessIn {
  std::span<const HostFr> dense;
  const groth16::CompactAssignment* compact = nullptr;
  std::size_t num_variables() const { return compact ? compact->num_variables() : dense.size(); }
};
}  // namespace

struct GpuProver::Impl {
  cudaStream_t s0 = nullptr, s1 = nullptr;
  cudaStream_t s1_peer = nullptr;  // s1 at s0's priority: the witness queries of a resident key
  cudaEvent_t ev_w = nullptr, ev_ntt = nullptr;
  cudaEvent_t ev_stage[2] = {};
  void* pinned[2] = {};
  std::unique_ptr<NttDomain> dom;
  std::vector<int> warmed_logs;  // NTT sizes whose lazily built scale tables exist
  DeviceBuffer d_w, d_a, d_b, d_c, d_tmp, d_q, d_pieces;
  DeviceBuffer cls_counts, cls_offsets, cls_scan_tmp, cls_ones, bitmap, tail_idx, tail_s;
  DeviceBuffer chunk_first;  // streamed keys: the first tail entry of each chunk
  DeviceBuffer cw_binary, cw_bits, cw_values, cw_counts, cw_offsets, cw_scan_tmp;  // compact witness
  std::unique_ptr<MsmG1> scratch1;
  std::unique_ptr<MsmG2> scratch2;

  Impl() {
    // s0 (a,b,c, the NTTs, H) is the longest chain: it gets the device's highest stream priority, so
    // that the witness queries on s1 take the SMs it leaves (2^27 partition 1,089.5 -> 1,084.3 ms
    // with H on its own host thread, RESULTS_gpu.md). CUZK_GPU_S0_PRIORITY=0 (tuning) turns it off.
    int s0_priority = 0, least = 0, greatest = 0;
    if (switch_on("CUZK_GPU_S0_PRIORITY")) {
      CUZK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      s0_priority = greatest;
    }
    CUZK_CUDA(cudaStreamCreateWithPriority(&s0, cudaStreamNonBlocking, s0_priority));
    CUZK_CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CUZK_CUDA(cudaStreamCreateWithPriority(&s1_peer, cudaStreamNonBlocking, s0_priority));
    CUZK_CUDA(cudaEventCreateWithFlags(&ev_w, cudaEventDisableTiming));
    CUZK_CUDA(cudaEventCreateWithFlags(&ev_ntt, cudaEventDisableTiming));
    for (auto& e : ev_stage) CUZK_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~Impl() {
    cudaDeviceSynchronize();
    for (void* p : pinned)
      if (p) cudaFreeHost(p);
    for (auto e : ev_stage)
      if (e) cudaEventDestroy(e);
    if (ev_w) cudaEventDestroy(ev_w);
    if (ev_ntt) cudaEventDestroy(ev_ntt);
    if (s0) cudaStreamDestroy(s0);
    if (s1) cudaStreamDestroy(s1);
    if (s1_peer) cudaStreamDestroy(s1_peer);
  }

  void sync(cudaStream_t st) { CUZK_CUDA(cudaStreamSynchronize(st)); }

  void release() {
    CUZK_CUDA(cudaDeviceSynchronize());
    for (DeviceBuffer* b : {&d_w, &d_a, &d_b, &d_c, &d_tmp, &d_q, &d_pieces, &cls_counts, &cls_offsets,
                            &cls_scan_tmp, &cls_ones, &bitmap, &tail_idx, &tail_s, &chunk_first, &cw_binary, &cw_bits,
                            &cw_values, &cw_counts, &cw_offsets, &cw_scan_tmp})
      *b = DeviceBuffer();
    scratch1.reset();
    scratch2.reset();
  }
  void release_msm_workspaces() {
    if (scratch1) scratch1->release_workspace();
    if (scratch2) scratch2->release_workspace();
  }
  std::size_t bytes() const {
    std::size_t s = 0;
    for (const DeviceBuffer* b : {&d_w, &d_a, &d_b, &d_c, &d_tmp, &d_q, &d_pieces, &cls_counts, &cls_offsets,
                                  &cls_scan_tmp, &cls_ones, &bitmap, &tail_idx, &tail_s, &chunk_first, &cw_binary,
                                  &cw_bits, &cw_values, &cw_counts, &cw_offsets, &cw_scan_tmp})
      s += b->size();
    if (scratch1) s += scratch1->size() * sizeof(G1Affine) + scratch1->workspace_bytes();
    if (scratch2) s += scratch2->size() * sizeof(G2Affine) + scratch2->workspace_bytes();
    if (dom) s += dom->device_bytes();
    return s;
  }

  // Host -> device on s0: pinned memory straight, pageable memory through the two staging buffers.
  void upload_host(const void* host, std::size_t bytes, void* dev) {
    if (bytes == 0) return;
    cudaPointerAttributes attr{};
    bool is_pinned = cudaPointerGetAttributes(&attr, host) == cudaSuccess && attr.type == cudaMemoryTypeHost;
    cudaGetLastError();
    if (is_pinned || bytes <= (std::size_t(1) << 20)) {
      CUZK_CUDA(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s0));
      return;
    }
    for (auto& p : pinned)
      if (!p) CUZK_CUDA(cudaHostAlloc(&p, kStageBytes, cudaHostAllocDefault));
    const char* src = reinterpret_cast<const char*>(host);
    char* dst = reinterpret_cast<char*>(dev);
    const std::size_t threads = std::min<std::size_t>(8, default_threads());
    for (std::size_t off = 0, i = 0; off < bytes; off += kStageBytes, ++i) {
      const int k = int(i & 1);
      const std::size_t len = std::min(kStageBytes, bytes - off);
      CUZK_CUDA(cudaEventSynchronize(ev_stage[k]));  // the DMA that last read this buffer is done
      char* stage = static_cast<char*>(pinned[k]);
      parallel_chunks(len, threads, [&](std::size_t b, std::size_t e, std::size_t) { std::memcpy(stage + b, src + off + b, e - b); });
      CUZK_CUDA(cudaMemcpyAsync(dst + off, stage, len, cudaMemcpyHostToDevice, s0));
      CUZK_CUDA(cudaEventRecord(ev_stage[k], s0));
    }
  }

  // The compact witness host -> device, expanded into the dense dev[0 .. inputs + num_aux) on s0:
  // ~1/8 of the dense bytes cross the bus for PoRep (98.7 % of its aux are bits). Returns the bytes
  // uploaded. The caller checked it (CompactAssignment::check), so every rank(j) is in range.
  std::size_t upload_compact(const groth16::CompactAssignment& c, Fr* dev) {
    const std::size_t ni = c.inputs.size(), words = c.is_binary.size(), nv = c.values.size();
    upload_host(c.inputs.data(), ni * sizeof(Fr), dev);
    if (c.num_aux == 0) return ni * sizeof(Fr);
    cw_binary.resize_discard(words * 8);
    cw_bits.resize_discard(words * 8);
    cw_values.resize_discard(std::max<std::size_t>(nv, 1) * sizeof(Fr));
    cw_counts.resize_discard(words * 4);
    cw_offsets.resize_discard(words * 4);
    upload_host(c.is_binary.data(), words * 8, cw_binary.get());
    upload_host(c.bits.data(), words * 8, cw_bits.get());
    upload_host(c.values.data(), nv * sizeof(Fr), cw_values.get());
    compact_count_kernel<<<grid_for(words, 256), 256, 0, s0>>>(ptr<const u64>(cw_binary), words, c.num_aux,
                                                                ptr<u32>(cw_counts));
    CUZK_CUDA_LAUNCH();
    std::size_t tmp_bytes = 0;
    CUZK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, ptr<u32>(cw_counts), ptr<u32>(cw_offsets), int(words),
                                            s0));
    cw_scan_tmp.resize_discard(std::max<std::size_t>(tmp_bytes, 16));
    CUZK_CUDA(cub::DeviceScan::ExclusiveSum(cw_scan_tmp.get(), tmp_bytes, ptr<u32>(cw_counts), ptr<u32>(cw_offsets),
                                            int(words), s0));
    compact_expand_kernel<<<grid_for(c.num_aux, 256), 256, 0, s0>>>(
        ptr<const u64>(cw_binary), ptr<const u64>(cw_bits), ptr<const u32>(cw_offsets), ptr<const Fr>(cw_values),
        c.num_aux, dev + ni);
    CUZK_CUDA_LAUNCH();
    return c.payload_bytes();
  }

  void ensure_domain(int log, std::size_t m) {
    const int need = std::max(1, log);
    if (!dom || dom->max_log() < need) {
      dom.reset();
      dom = std::make_unique<NttDomain>(need);
      warmed_logs.clear();
    }
    if (std::find(warmed_logs.begin(), warmed_logs.end(), log) == warmed_logs.end()) {
      // The domain builds its scale tables lazily with synchronous copies on the legacy stream; build
      // them here once (on the legacy stream, then synchronize), not inside the proof's streams.
      d_tmp.resize_discard(m * sizeof(Fr));
      CUZK_CUDA(cudaMemset(d_tmp.get(), 0, m * sizeof(Fr)));
      for (bool coset : {false, true}) {
        dom->inverse(d_tmp.get(), log, NttOrder::kNR, coset, nullptr);
        dom->forward(d_tmp.get(), log, NttOrder::kRN, coset, nullptr);
      }
      CUZK_CUDA(cudaDeviceSynchronize());
      warmed_logs.push_back(log);
    }
  }

  struct Split {
    std::size_t n = 0, ones = 0, tail = 0;
    bool split = false;
  };

  // Classifies the n scalars at s (device) on stream st; with the split, writes the bitmap and the
  // compacted tail (tail_idx, tail_s).
  Split classify(const Fr* s, std::size_t n, double max_tail, cudaStream_t st) {
    Split r;
    r.n = n;
    if (n == 0) return r;
    const std::size_t nblocks = (n + kSplitBlock - 1) / kSplitBlock;
    cls_counts.resize_discard(nblocks * 4);
    cls_offsets.resize_discard(nblocks * 4);
    cls_ones.resize_discard(8);
    CUZK_CUDA(cudaMemsetAsync(cls_ones.get(), 0, 8, st));
    count_split_kernel<<<unsigned(nblocks), kSplitBlock, 0, st>>>(s, n, ptr<u32>(cls_counts),
                                                                   ptr<unsigned long long>(cls_ones));
    CUZK_CUDA_LAUNCH();
    std::size_t tmp_bytes = 0;
    CUZK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, ptr<u32>(cls_counts), ptr<u32>(cls_offsets),
                                            int(nblocks), st));
    cls_scan_tmp.resize_discard(std::max<std::size_t>(tmp_bytes, 16));
    CUZK_CUDA(cub::DeviceScan::ExclusiveSum(cls_scan_tmp.get(), tmp_bytes, ptr<u32>(cls_counts), ptr<u32>(cls_offsets),
                                            int(nblocks), st));
    u32 last[2] = {0, 0};
    unsigned long long ones = 0;
    CUZK_CUDA(cudaMemcpyAsync(&last[0], ptr<u32>(cls_offsets) + nblocks - 1, 4, cudaMemcpyDeviceToHost, st));
    CUZK_CUDA(cudaMemcpyAsync(&last[1], ptr<u32>(cls_counts) + nblocks - 1, 4, cudaMemcpyDeviceToHost, st));
    CUZK_CUDA(cudaMemcpyAsync(&ones, cls_ones.get(), 8, cudaMemcpyDeviceToHost, st));
    sync(st);
    r.tail = std::size_t(last[0]) + last[1];
    r.ones = std::size_t(ones);
    r.split = max_tail > 0 && double(r.tail) <= max_tail * double(n);
    if (!r.split) return r;
    bitmap.resize_discard(nblocks * kSplitBlock / 8);
    tail_idx.resize_discard(std::max<std::size_t>(r.tail, 1) * 4);
    tail_s.resize_discard(std::max<std::size_t>(r.tail, 1) * sizeof(Fr));
    split_kernel<<<unsigned(nblocks), kSplitBlock, 0, st>>>(s, n, ptr<const u32>(cls_offsets), ptr<u32>(bitmap),
                                                             ptr<u32>(tail_idx), ptr<Fr>(tail_s));
    CUZK_CUDA_LAUNCH();
    return r;
  }

  // sum_i s_i P_i over one query: full MSM, or batch addition of the ones plus the tail MSM.
  template <class C>
  math::Jacobian<C> run_query(Msm<C>& full, std::unique_ptr<Msm<C>>& scratch, const Fr* s, const Split& sp,
                              cudaStream_t st, bool profile, double& t_msm, GpuProveTimings& t) {
    using Jac = math::Jacobian<C>;
    if (sp.n == 0) return Jac::identity();
    double t0 = now_ms();
    if (!sp.split) {
      Jac r = full.msm_device(s, sp.n, {}, st);
      t_msm += now_ms() - t0;
      return r;
    }
    Jac sel = Jac::identity(), tail = Jac::identity();
    if (sp.ones) sel = full.sum_selected(bitmap.get(), sp.n, st);
    double t1 = now_ms();
    t.batch_add_ms += t1 - t0;
    if (sp.tail) {
      if (!scratch || scratch->size() < sp.tail) {
        scratch.reset();
        scratch = std::make_unique<Msm<C>>(sp.tail + sp.tail / 4);
        CUZK_CUDA(cudaDeviceSynchronize());  // the constructor clears the bases on the legacy stream
      }
      using Aff = AffineT<std::conditional_t<std::is_same_v<C, math::G1Curve>, Fp, Fp2>>;
      gather_points_kernel<<<grid_for(sp.tail, 256), 256, 0, st>>>(static_cast<const Aff*>(full.device_bases()),
                                                                   ptr<const u32>(tail_idx), sp.tail, 0u,
                                                                   static_cast<Aff*>(scratch->device_bases()));
      CUZK_CUDA_LAUNCH();
      if (profile) sync(st);
      double t2 = now_ms();
      t.split_ms += t2 - t1;
      tail = scratch->msm_device(tail_s.get(), sp.tail, {}, st);
      t_msm += now_ms() - t2;
    }
    return sel + tail;
  }

  // Classifies one query's n scalars (see classify) and records the counts; the time since
  // `since` goes to split_ms.
  Split classify_query(const Fr* s, std::size_t n, double max_tail, cudaStream_t st, bool profile, double since,
                       GpuProveTimings& t, GpuProveTimings::Query& rec) {
    const Split sp = classify(s, n, max_tail, st);
    if (profile) sync(st);
    rec.n = sp.n;
    rec.ones = sp.ones;
    rec.tail = sp.tail;
    rec.split = sp.split;
    t.split_ms += now_ms() - since;
    return sp;
  }

  // Streamed keys: one query of n bases held in pinned host memory, chunk by chunk through `ring`:
  // chunk j + 1 crosses the bus on the ring's copy stream while chunk j is used on st, by
  // f(device buffer holding the chunk, offset, length).
  template <class C, class PerChunk>
  void for_each_chunk(ChunkRing<C>& ring, const QueryBases<C>& q, std::size_t n, cudaStream_t st, GpuProveTimings& t,
                      PerChunk&& f) {
    constexpr std::size_t kBaseBytes = std::is_same_v<C, math::G1Curve> ? sizeof(G1Affine) : sizeof(G2Affine);
    if (n == 0) return;
    const std::size_t chunk = ring.chunk, chunks = (n + chunk - 1) / chunk;
    const char* host = static_cast<const char*>(q.host.get());
    auto send = [&](std::size_t j) {
      const std::size_t off = j * chunk, len = std::min(chunk, n - off);
      CUZK_CUDA(cudaMemcpyAsync(ring.buf[j & 1]->device_bases(), host + off * kBaseBytes, len * kBaseBytes,
                                cudaMemcpyHostToDevice, ring.copy));
      CUZK_CUDA(cudaEventRecord(ring.ready[j & 1], ring.copy));
      t.key_stream_bytes += len * kBaseBytes;
    };
    send(0);
    for (std::size_t j = 0; j < chunks; ++j) {
      // Buffer (j + 1) & 1 was last read by chunk j - 1, and f returns only after its stream has
      // finished with the chunk (every MSM and batch addition waits for its result; see run_streamed).
      if (j + 1 < chunks) send(j + 1);
      CUZK_CUDA(cudaStreamWaitEvent(st, ring.ready[j & 1], 0));
      const std::size_t off = j * chunk;
      f(*ring.buf[j & 1], off, std::min(chunk, n - off));
    }
  }

  // Streamed keys: sum_i s_i P_i over one query, its n scalars at s classified as a whole (sp, as for
  // a resident key; positions relative to the query). Without the split: a full MSM per chunk. With it:
  // per chunk, the batch addition over the chunk's slice of the bitmap (chunks are multiples of 64
  // bases, so a slice starts on a 64-bit word) and the chunk's tail bases gathered into `scratch` at
  // their place in the query's tail; then one tail MSM over the whole tail (a tail MSM per chunk
  // measured 9x slower: small MSMs are mostly fixed costs).
  template <class C>
  math::Jacobian<C> run_streamed(ChunkRing<C>& ring, const QueryBases<C>& q, std::unique_ptr<Msm<C>>& scratch,
                                 const Fr* s, const Split& sp, cudaStream_t st, double& t_msm, GpuProveTimings& t) {
    using Jac = math::Jacobian<C>;
    using Aff = AffineT<std::conditional_t<std::is_same_v<C, math::G1Curve>, Fp, Fp2>>;
    Jac acc = Jac::identity();
    if (!sp.split) {
      for_each_chunk(ring, q, sp.n, st, t, [&](Msm<C>& buf, std::size_t off, std::size_t len) {
        const double t0 = now_ms();
        acc = acc + buf.msm_device(s + off, len, {}, st);
        t_msm += now_ms() - t0;
      });
      return acc;
    }
    // The tail positions of chunk j are tail_idx[first[j] .. first[j + 1]) (tail_idx is ascending).
    const std::size_t chunks = (sp.n + ring.chunk - 1) / ring.chunk;
    std::vector<u32> first(chunks + 1, 0);
    if (sp.tail) {
      chunk_first.resize_discard((chunks + 1) * 4);
      chunk_first_tail_kernel<<<grid_for(chunks + 1, 128), 128, 0, st>>>(ptr<const u32>(tail_idx), u32(sp.tail),
                                                                          ring.chunk, u32(chunks),
                                                                          ptr<u32>(chunk_first));
      CUZK_CUDA_LAUNCH();
      CUZK_CUDA(cudaMemcpyAsync(first.data(), chunk_first.get(), (chunks + 1) * 4, cudaMemcpyDeviceToHost, st));
      sync(st);
      if (!scratch || scratch->size() < sp.tail) {
        scratch.reset();
        scratch = std::make_unique<Msm<C>>(sp.tail + sp.tail / 4);
        CUZK_CUDA(cudaDeviceSynchronize());  // the constructor clears the bases on the legacy stream
      }
    }
    for_each_chunk(ring, q, sp.n, st, t, [&](Msm<C>& buf, std::size_t off, std::size_t len) {
      const std::size_t j = off / ring.chunk;
      double t0 = now_ms();
      if (sp.ones) acc = acc + buf.sum_selected(static_cast<const u64*>(bitmap.get()) + off / 64, len, st);
      double t1 = now_ms();
      t.batch_add_ms += t1 - t0;
      if (const u32 cnt = first[j + 1] - first[j]) {
        gather_points_kernel<<<grid_for(cnt, 256), 256, 0, st>>>(static_cast<const Aff*>(buf.device_bases()),
                                                                 ptr<const u32>(tail_idx) + first[j], cnt, u32(off),
                                                                 static_cast<Aff*>(scratch->device_bases()) + first[j]);
        CUZK_CUDA_LAUNCH();
      }
      sync(st);  // the chunk's buffer is free again only once the gather has read it
      t.split_ms += now_ms() - t1;
    });
    if (sp.tail) {
      const double t0 = now_ms();
      acc = acc + scratch->msm_device(tail_s.get(), sp.tail, {}, st);
      t_msm += now_ms() - t0;
    }
    return acc;
  }

  PendingProof prove(GpuKey::Impl& k, const GpuShape::Impl& sh, const WitnessIn& w, const GpuProveOptions& opt,
                     GpuProveTimings& t) {
    const bool profile = opt.profile;
    const bool overlap = opt.overlap && !profile;
    const int log = int(k.log_m);
    const std::size_t m = std::size_t(1) << log;
    const std::size_t nvars = w.num_variables();
    ensure_domain(log, m);
    d_w.resize_discard(std::max<std::size_t>(nvars, 1) * sizeof(Fr));
    d_a.resize_discard(m * sizeof(Fr));
    d_b.resize_discard(m * sizeof(Fr));
    d_c.resize_discard(m * sizeof(Fr));
    d_tmp.resize_discard(m * sizeof(Fr));
    d_q.resize_discard(std::max<std::size_t>({k.a_n, k.b_n, 1}) * sizeof(Fr));
    t = GpuProveTimings{};
    const double t_start = now_ms();
    double t0 = t_start;
    auto lap = [&](double& acc, cudaStream_t st) {
      if (!profile) return;
      sync(st);
      double t1 = now_ms();
      acc += t1 - t0;
      t0 = t1;
    };

    // 1. witness (compact: uploaded as bits + values and expanded here, so the rest is the same)
    Fr* dw = ptr<Fr>(d_w);
    if (w.compact) {
      t.upload_bytes = upload_compact(*w.compact, dw);
      t.compact = true;
    } else {
      upload_host(w.dense.data(), nvars * sizeof(Fr), dw);
      t.upload_bytes = nvars * sizeof(Fr);
    }
    CUZK_CUDA(cudaEventRecord(ev_w, s0));
    lap(t.upload_ms, s0);

    // 2. rows
    Fr *a = ptr<Fr>(d_a), *b = ptr<Fr>(d_b), *c = ptr<Fr>(d_c), *tmp = ptr<Fr>(d_tmp);
    // Long rows in pieces unless CUZK_GPU_LONG_ROWS=0 (one thread per row, for comparison).
    static const bool pieces = switch_on("CUZK_GPU_LONG_ROWS");
    eval_rows_kernel<<<grid_for(m, 128), 128, 0, s0>>>(sh.a.view(), sh.b.view(), sh.c.view(),
                                                         pieces ? kLongRowWords : ~0u, sh.has_c, dw, sh.rows, m, a,
                                                         b, c);
    CUZK_CUDA_LAUNCH();
    if (pieces) {
      d_pieces.resize_discard(std::max({sh.a.pieces, sh.b.pieces, sh.c.pieces, 1u}) * sizeof(Fr));
      Fr* partial = ptr<Fr>(d_pieces);
      sh.a.eval_long_rows(dw, a, partial, s0);
      sh.b.eval_long_rows(dw, b, partial, s0);
      if (sh.has_c) {
        sh.c.eval_long_rows(dw, c, partial, s0);
      } else {
        for (const DevCsr* mat : {&sh.a, &sh.b}) {
          if (mat->num_long == 0) continue;
          long_rows_product_kernel<<<grid_for(mat->num_long, 128), 128, 0, s0>>>(ptr<const u32>(mat->long_rows),
                                                                                 mat->num_long, a, b, c);
          CUZK_CUDA_LAUNCH();
        }
      }
    }
    lap(t.eval_ms, s0);

    // 3. H scalars
    const Fr* h_scalars = a;
    if (k.basis == HBasis::kMonomialOverZ) {
      // Six transforms where bellperson runs seven (groth16::compute_h_scalars says why this is the
      // same H): A and B to the coset 7<w>, C's coefficients U, then H = (coset-iNTT(A B) - U) / (7^m - 1).
      // (Fusing the product and the difference into the transforms' last passes saved 1.1 ms of the
      // 2^27 partition but cost every transform 0.1-0.15 ms: RESULTS_gpu.md, session 11.)
      for (Fr* v : {a, b}) {
        dom->inverse(v, log, NttOrder::kNR, false, s0);
        dom->forward(v, log, NttOrder::kRN, true, s0);
      }
      dom->inverse(c, log, NttOrder::kNR, false, s0);  // U, bit-reversed
      product_kernel<<<grid_for(m, 256), 256, 0, s0>>>(a, b, m);
      CUZK_CUDA_LAUNCH();
      dom->inverse(a, log, NttOrder::kNR, true, s0);  // bit-reversed coefficients, like the key's H bases
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
        dom->inverse(v, log, NttOrder::kNR, false, s0);
        scale_powers_kernel<<<grid_for(m, 256), 256, 0, s0>>>(v, log, ptr<const Fr>(k.shift_hi),
                                                              ptr<const Fr>(k.shift_lo), true);
        CUZK_CUDA_LAUNCH();
        dom->forward(v, log, NttOrder::kRN, false, s0);
      }
      pointwise_kernel<<<grid_for(m, 256), 256, 0, s0>>>(bufs[0], bufs[1], bufs[2], m);
      CUZK_CUDA_LAUNCH();
      permute_kernel<<<grid_for(m, 256), 256, 0, s0>>>(bufs[0], free_buf, m, e, false);
      CUZK_CUDA_LAUNCH();
      h_scalars = free_buf;
    }
    CUZK_CUDA(cudaEventRecord(ev_ntt, s0));
    lap(t.ntt_ms, s0);

    // 4. witness MSMs (second stream when overlapping)
    // With a resident key they start after the NTTs, on a stream as urgent as s0: they then share the
    // SMs with H's digit sort and accumulation instead of the NTT passes (2^27 partition 1,059.7-1,061.7
    // -> 1,056.1-1,057.7 ms, two runs each, order B A B A; session 13). A streamed key's witness
    // queries keep starting right after the upload: theirs are bus-bound and overlap the NTTs.
    // CUZK_GPU_WITNESS_AFTER_NTT=0 (tuning) turns it off.
    static const bool after_ntt = switch_on("CUZK_GPU_WITNESS_AFTER_NTT");
    const bool gate_ntt = after_ntt && !k.streamed();
    cudaStream_t s1x = gate_ntt ? s1_peer : s1;
    cudaStream_t ms = overlap ? s1x : s0;
    if (overlap) CUZK_CUDA(cudaStreamWaitEvent(s1x, gate_ntt ? ev_ntt : ev_w, 0));
    PendingProof p;
    t.streamed = k.streamed();
    t.h_copies = k.h_copies();
    // A streamed key's H is summed on a host thread of its own, through its own ring, while the witness
    // queries below cross the bus: H's chunks are compute-bound (full MSMs), the witness queries'
    // bus-bound (0/1 split), so the two overlap well. Only with overlap (s0 is then H's alone).
    // A resident key's H too, unless CUZK_GPU_H_THREAD=0 (tuning): its MSM is then queued right behind
    // the NTTs instead of behind the witness queries' host waits.
    GpuProveTimings th;                  // the H thread's counters
    std::unique_ptr<MsmG1> h_no_scratch;  // H has no 0/1 split, so no tail
    Split h_all;                         // H: every scalar, no split
    h_all.n = k.h_n;
    std::future<math::G1Jacobian> h_async;
    static const bool h_thread_resident = switch_on("CUZK_GPU_H_THREAD");
    const bool h_thread = (k.streamed() || h_thread_resident) && overlap && k.h_n;
    if (h_thread) {
      int dev = 0;
      CUZK_CUDA(cudaGetDevice(&dev));
      h_async = std::async(std::launch::async, [&, dev] {
        CUZK_CUDA(cudaSetDevice(dev));  // the device is per host thread
        if (k.streamed()) return run_streamed(*k.ring_h, k.h, h_no_scratch, h_scalars, h_all, s0, th.msm_h_ms, th);
        const double t0 = now_ms();
        const math::G1Jacobian r = k.h.dev->msm_device(h_scalars, k.h_n, {}, s0);
        th.msm_h_ms = now_ms() - t0;
        return r;
      });
    }
    const double max_tail = opt.split_max_tail;
    // One witness query's sum from its classified scalars, through the key's ring (a streamed key;
    // `ring` is its unique_ptr, null for a resident key) or its resident bases.
    auto query_sum = [&](auto& q, auto& ring, auto& scratch, const Fr* s, const Split& sp, double& t_msm) {
      return k.streamed() ? run_streamed(*ring, q, scratch, s, sp, ms, t_msm, t)
                          : run_query(*q.dev, scratch, s, sp, ms, profile, t_msm, t);
    };
    double tq = now_ms();
    {  // L over the aux part of the witness
      const Fr* s = dw + k.num_inputs;
      const Split sp = classify_query(s, k.l_n, max_tail, ms, profile, tq, t, t.l);
      p.l_acc = query_sum(k.l, k.ring_g1, scratch1, s, sp, t.msm_l_ms);
    }
    tq = now_ms();
    {  // A
      gather_scalars_kernel<<<grid_for(k.a_n, 256), 256, 0, ms>>>(ptr<const u32>(k.a_map), dw, k.a_n, ptr<Fr>(d_q));
      CUZK_CUDA_LAUNCH();
      const Fr* s = ptr<Fr>(d_q);
      const Split sp = classify_query(s, k.a_n, max_tail, ms, profile, tq, t, t.a);
      p.a_acc = query_sum(k.a, k.ring_g1, scratch1, s, sp, t.msm_a_ms);
    }
    tq = now_ms();
    {  // B in G1 and G2 share one classification
      gather_scalars_kernel<<<grid_for(k.b_n, 256), 256, 0, ms>>>(ptr<const u32>(k.b_map), dw, k.b_n, ptr<Fr>(d_q));
      CUZK_CUDA_LAUNCH();
      const Fr* s = ptr<Fr>(d_q);
      const Split sp = classify_query(s, k.b_n, max_tail, ms, profile, tq, t, t.b);
      p.b1_acc = query_sum(k.b1, k.ring_g1, scratch1, s, sp, t.msm_b1_ms);
      p.b2_acc = query_sum(k.b2, k.ring_g2, scratch2, s, sp, t.msm_b2_ms);
    }

    // 5. H
    tq = now_ms();
    if (h_thread) {
      p.h_acc = h_async.get();
      t.key_stream_bytes += th.key_stream_bytes;
      t.msm_h_ms = th.msm_h_ms;  // its chunks' MSM time, concurrent with the witness queries
    } else {
      double h_unused = 0;
      p.h_acc = !k.h_n        ? math::G1Jacobian::identity()
                : k.streamed() ? run_streamed(*k.ring_h, k.h, h_no_scratch, h_scalars, h_all, s0, h_unused, t)
                               : k.h.dev->msm_device(h_scalars, k.h_n, {}, s0);
      t.msm_h_ms = now_ms() - tq;
    }
    sync(s0);
    sync(s1x);
    t.total_ms = now_ms() - t_start;
    return p;
  }
};

GpuProver::GpuProver() : impl_(std::make_unique<Impl>()) {}
GpuProver::~GpuProver() = default;
void GpuProver::release_workspace() { impl_->release(); }
std::size_t GpuProver::device_bytes() const { return impl_->bytes(); }

namespace {

// Checks sizes, proves, and on an out-of-memory gives the MSM workspaces back and tries once more.
Result<PendingProof> run_prover(GpuProver::Impl& impl, GpuKey& key, GpuKey::Impl& k, const GpuShape::Impl& sh,
                                const WitnessIn& w, const GpuProveOptions& opt, GpuProveTimings* timings) {
  if (sh.num_inputs != k.num_inputs || sh.num_aux != k.num_aux)
    return Error{"GPU prover: the proving key does not belong to this circuit (variable counts differ)"};
  if (sh.rows > (std::uint64_t(1) << k.log_m))
    return Error{"GPU prover: the proving key does not belong to this circuit (rows exceed its domain)"};
  if (w.num_variables() != std::size_t(k.num_inputs) + k.num_aux)
    return Error{"GPU prover: witness has " + std::to_string(w.num_variables()) + " values, the circuit has " +
                 std::to_string(std::size_t(k.num_inputs) + k.num_aux) + " variables"};
  if (w.compact) {
    if (w.compact->inputs.size() != k.num_inputs)
      return Error{"GPU prover: witness has " + std::to_string(w.compact->inputs.size()) +
                   " inputs, the circuit has " + std::to_string(k.num_inputs)};
    if (auto st = w.compact->check(); !st) return Error{"GPU prover: " + st.error()};
  }
  GpuProveTimings local;
  GpuProveTimings& t = timings ? *timings : local;
  for (int attempt = 0;; ++attempt) {
    try {
      return impl.prove(k, sh, w, opt, t);
    } catch (const std::exception& e) {
      cudaError_t sticky = cudaDeviceSynchronize();
      cudaGetLastError();
      if (attempt == 0 && is_oom(e.what()) && sticky == cudaSuccess) {
        // give the MSM workspaces back and try once more
        try {
          key.release_workspace();
          impl.release_msm_workspaces();
          CUZK_CUDA(cudaDeviceSynchronize());
          continue;
        } catch (const std::exception&) {
          cudaGetLastError();
        }
      }
      return Error{std::string("GPU prover: ") + e.what()};
    }
  }
}

}  // namespace

Result<PendingProof> GpuProver::start(GpuKey& key, const GpuShape& shape, std::span<const HostFr> w,
                                      const GpuProveOptions& opt, GpuProveTimings* timings) {
  return run_prover(*impl_, key, *key.impl_, *shape.impl_, WitnessIn{w, nullptr}, opt, timings);
}

Result<PendingProof> GpuProver::start(GpuKey& key, const GpuShape& shape, const groth16::CompactAssignment& w,
                                      const GpuProveOptions& opt, GpuProveTimings* timings) {
  return run_prover(*impl_, key, *key.impl_, *shape.impl_, WitnessIn{{}, &w}, opt, timings);
}

// =============================================================================================
// CudaBackend

namespace {

std::uint64_t fnv(std::uint64_t h, const void* p, std::size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}
template <class T>
std::uint64_t hash_elem(std::uint64_t h, const T& x) {
  return fnv(h, &x, sizeof x);
}
template <class C>
std::uint64_t hash_elem(std::uint64_t h, const math::Affine<C>& p) {  // not the padding after the flag
  h = fnv(h, &p.x, sizeof p.x);
  h = fnv(h, &p.y, sizeof p.y);
  return fnv(h, &p.infinity, sizeof p.infinity);
}
// Length and four sampled elements.
template <class V>
std::uint64_t sample(std::uint64_t h, const V& v) {
  const std::size_t n = v.size();
  h = fnv(h, &n, sizeof n);
  if (n) {
    for (std::size_t i : {std::size_t(0), n / 3, n / 2, n - 1}) h = hash_elem(h, v[i]);
  }
  return h;
}

struct KeyId {
  const void* addr = nullptr;
  std::array<const void*, 5> data{};
  std::uint64_t digest = 0;
  bool operator==(const KeyId& o) const { return addr == o.addr && data == o.data && digest == o.digest; }
  static KeyId of(const groth16::ProvingKey& k) {
    KeyId id;
    id.addr = &k;
    id.data = {k.h.data(), k.l.data(), k.a.data(), k.b_g1.data(), k.b_g2.data()};
    std::uint64_t h = 0xcbf29ce484222325ULL;
    std::uint64_t meta[6] = {k.num_inputs, k.num_aux, k.domain_log2, std::uint64_t(k.h_basis),
                             k.a_aux_density.popcount, k.b_aux_density.popcount};
    h = fnv(h, meta, sizeof meta);
    h = sample(h, k.h);
    h = sample(h, k.l);
    h = sample(h, k.a);
    h = sample(h, k.b_g1);
    h = sample(h, k.b_g2);
    h = fnv(h, &k.vk.delta_g1, sizeof k.vk.delta_g1);
    id.digest = h;
    return id;
  }
};

struct ShapeId {
  const void* addr = nullptr;
  std::array<const void*, 6> data{};
  std::uint64_t digest = 0;
  bool operator==(const ShapeId& o) const { return addr == o.addr && data == o.data && digest == o.digest; }
  static ShapeId of(const groth16::R1csShape& s) {
    ShapeId id;
    id.addr = &s;
    id.data = {s.a.row_ptr.data(), s.a.coeff_ids.data(), s.b.row_ptr.data(), s.b.coeff_ids.data(), s.c.row_ptr.data(),
               s.c.coeff_ids.data()};
    std::uint64_t h = 0xcbf29ce484222325ULL;
    std::uint64_t meta[4] = {s.num_inputs, s.num_aux, std::uint64_t(s.has_c), s.num_constraints()};
    h = fnv(h, meta, sizeof meta);
    for (const auto* m : {&s.a, &s.b, &s.c}) {
      h = sample(h, m->row_ptr);
      h = sample(h, m->cols);
      h = sample(h, m->coeff_ids);
      h = sample(h, m->coeffs);
    }
    id.digest = h;
    return id;
  }
};

}  // namespace

struct CudaBackend::Impl {
  CudaBackendOptions opt;
  std::unique_ptr<GpuProver> prover;
  // A cached key, with the charge of its pinned host copy (streamed keys; CudaBackendOptions::
  // charge_host_bytes), which is returned when the entry leaves the cache.
  struct CachedKey {
    KeyId id;
    std::unique_ptr<GpuKey> key;
    std::shared_ptr<void> charge;
  };
  // Guards everything below. Recursive: forget() may be reached from inside a call holding it (a
  // charge that makes the engine evict an idle key, whose unload hook asks this backend to drop it).
  mutable std::recursive_mutex mu;
  std::list<CachedKey> keys;  // most recently used first
  std::list<std::pair<ShapeId, std::unique_ptr<GpuShape>>> shapes;
  CudaBackendStats stats;
  GpuProveTimings last;

  std::atomic<std::size_t> device_bytes_now{0};  // refreshed under mu at the end of every call

  template <class W>  // std::span<const Fr> or groth16::CompactAssignment
  Result<PendingProof> start(const groth16::R1csShape& shape, const W& w, const groth16::ProvingKey& key);

  std::size_t resident_bytes() const {  // under mu
    std::size_t n = 0;
    for (const auto& e : keys) n += e.key->device_bytes();
    for (const auto& e : shapes) n += e.second->device_bytes();
    if (prover) n += prover->device_bytes();
    return n;
  }
  void refresh_bytes() { device_bytes_now.store(resident_bytes(), std::memory_order_relaxed); }

  // forget() requests. One runs at once when `mu` is free or held by the calling thread; otherwise
  // the thread holding `mu` runs it after unlocking (Lock). Waiting for `mu` instead could
  // deadlock two devices' backends whose charges each make the engine unload a key the other caches.
  struct Forget {
    KeyId key;
    std::optional<ShapeId> shape;
  };
  std::mutex forget_mu;
  std::vector<Forget> forgets;  // guarded by forget_mu

  void request_forget(Forget f) {
    {
      std::lock_guard<std::mutex> g(forget_mu);
      forgets.push_back(std::move(f));
    }
    run_forgets();
  }
  // Holds `mu`; after releasing it, runs the forget() requests that came meanwhile.
  class Lock {
   public:
    explicit Lock(Impl& impl) : impl_(impl) { impl_.mu.lock(); }
    ~Lock() {
      impl_.mu.unlock();
      impl_.run_forgets();
    }
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

   private:
    Impl& impl_;
  };
  // Runs the pending requests if `mu` can be taken now (the pusher's try, and every Lock's release,
  // so that none is left behind).
  void run_forgets() {
    while (true) {
      std::unique_lock<std::recursive_mutex> lock(mu, std::try_to_lock);
      if (!lock.owns_lock()) return;  // its holder runs them when it unlocks
      std::vector<Forget> todo;
      {
        std::lock_guard<std::mutex> g(forget_mu);
        todo.swap(forgets);
      }
      if (todo.empty()) return;
      if (opt.device >= 0) cudaSetDevice(opt.device);  // free on the device they live on
      for (const Forget& f : todo) {
        keys.remove_if([&](const auto& e) { return e.id == f.key; });
        if (f.shape) shapes.remove_if([&](const auto& e) { return e.first == *f.shape; });
      }
      cudaGetLastError();
      refresh_bytes();
    }
  }

  // Frees what can be freed to make room (every cached entry but the ones in use, and workspaces).
  void make_room(const GpuKey* keep_key, const GpuShape* keep_shape) {
    keys.remove_if([&](const auto& e) { return e.key.get() != keep_key; });
    shapes.remove_if([&](const auto& e) { return e.second.get() != keep_shape; });
    for (auto& e : keys) e.key->release_workspace();
    if (prover) prover->release_workspace();
    cudaDeviceSynchronize();
    cudaGetLastError();
  }

  Result<GpuKey*> get_key(const groth16::ProvingKey& key) {
    KeyId id = KeyId::of(key);
    for (auto it = keys.begin(); it != keys.end(); ++it) {
      if (it->id == id) {
        keys.splice(keys.begin(), keys, it);
        return keys.front().key.get();
      }
    }
    while (!keys.empty() && keys.size() >= std::max<std::size_t>(1, opt.max_cached_keys)) keys.pop_back();
    const bool stream = opt.key_residency == KeyResidency::kStreamed ||
                        (opt.key_residency == KeyResidency::kAuto && opt.max_resident_key_bytes &&
                         GpuKey::resident_bytes(key) > opt.max_resident_key_bytes);
    std::shared_ptr<void> charge;
    auto up = upload(key, stream, charge);
    if (!up && is_oom(up.error())) {
      make_room(nullptr, nullptr);
      (void)(up = upload(key, stream, charge));
      if (!up && is_oom(up.error()) && !stream && opt.key_residency == KeyResidency::kAuto)
        (void)(up = upload(key, true, charge));  // does not fit: stream it
    }
    return cache_key(id, std::move(up), std::move(charge));
  }

  // GpuKey::upload, charging a streamed key's pinned host copy first (`charge` receives the token).
  Result<std::unique_ptr<GpuKey>> upload(const groth16::ProvingKey& key, bool stream, std::shared_ptr<void>& charge) {
    charge.reset();
    if (stream && opt.charge_host_bytes) {
      const std::size_t bytes = GpuKey::streamed_host_bytes(key);
      auto c = opt.charge_host_bytes(bytes);
      if (!c) {
        return Error{"GPU prover: streaming the proving key needs " + std::to_string(bytes) +
                     " bytes of pinned host memory: " + c.error()};
      }
      charge = std::move(*c);
    }
    auto up = GpuKey::upload(key, key_options(stream));
    if (!up) charge.reset();
    return up;
  }

  GpuKeyOptions key_options(bool stream) const {
    GpuKeyOptions o;
    o.streamed = stream;
    o.chunk_bases = opt.stream_chunk_bases;
    o.h_copies = opt.h_copies;
    return o;
  }

  Result<GpuKey*> cache_key(const KeyId& id, Result<std::unique_ptr<GpuKey>> up, std::shared_ptr<void> charge) {
    if (!up) return Error{up.error()};
    stats.key_uploads++;
    stats.key_bytes_uploaded += (*up)->device_bytes() + (*up)->host_bytes();
    keys.push_front(CachedKey{id, std::move(*up), std::move(charge)});
    return keys.front().key.get();
  }

  // A resident key that fits but leaves too little room to prove (an out-of-memory even after
  // make_room): replaced in the cache by the same key streamed (kAuto only).
  Result<GpuKey*> restream_key(const groth16::ProvingKey& key, GpuKey* resident, const GpuShape* keep_shape) {
    keys.remove_if([&](const auto& e) { return e.key.get() == resident; });
    make_room(nullptr, keep_shape);
    std::shared_ptr<void> charge;
    auto up = upload(key, true, charge);
    return cache_key(KeyId::of(key), std::move(up), std::move(charge));
  }

  Result<GpuShape*> get_shape(const groth16::R1csShape& shape, const GpuKey* keep_key) {
    ShapeId id = ShapeId::of(shape);
    for (auto it = shapes.begin(); it != shapes.end(); ++it) {
      if (it->first == id) {
        shapes.splice(shapes.begin(), shapes, it);
        return shapes.front().second.get();
      }
    }
    while (!shapes.empty() && shapes.size() >= std::max<std::size_t>(1, opt.max_cached_shapes)) shapes.pop_back();
    auto up = GpuShape::upload(shape);
    if (!up && is_oom(up.error())) {
      make_room(keep_key, nullptr);
      (void)(up = GpuShape::upload(shape));
    }
    if (!up) return Error{up.error()};
    stats.shape_uploads++;
    stats.shape_bytes_uploaded += (*up)->device_bytes();
    shapes.emplace_front(id, std::move(*up));
    return shapes.front().second.get();
  }
};

CudaBackend::CudaBackend(CudaBackendOptions opt) : impl_(std::make_unique<Impl>()) { impl_->opt = opt; }
CudaBackend::~CudaBackend() {
  if (impl_ && impl_->opt.device >= 0) cudaSetDevice(impl_->opt.device);  // free on the device it used
}

namespace {

// Every entry point runs on the configured device (cudaSetDevice is per host thread).
void select_device(int device) {
  if (device >= 0) CUZK_CUDA(cudaSetDevice(device));
}

}  // namespace

template <class W>
Result<PendingProof> CudaBackend::Impl::start(const groth16::R1csShape& shape, const W& w,
                                              const groth16::ProvingKey& key) {
  if (auto st = groth16::check_prover_inputs(shape, w, key); !st) return Error{st.error()};
  Lock lock(*this);
  try {
    if (!device_available()) return Error{"GPU prover: no CUDA device"};
    select_device(opt.device);
    if (!prover) prover = std::make_unique<GpuProver>();
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: ") + e.what()};
  }
  auto k = get_key(key);
  if (!k) return Error{k.error()};
  auto s = get_shape(shape, *k);
  if (!s) return Error{s.error()};
  auto r = prover->start(**k, **s, w, opt.prove, &last);
  if (!r && is_oom(r.error())) {
    make_room(*k, *s);
    (void)(r = prover->start(**k, **s, w, opt.prove, &last));
  }
  if (!r && is_oom(r.error()) && (*k)->drop_h_copies()) {  // the H MSM's copies: a few % of its speed
    make_room(*k, *s);
    (void)(r = prover->start(**k, **s, w, opt.prove, &last));
  }
  if (!r && is_oom(r.error()) && !(*k)->streamed() && opt.key_residency == KeyResidency::kAuto) {
    (void)(k = restream_key(key, *k, *s));
    if (!k) return Error{k.error()};
    (void)(r = prover->start(**k, **s, w, opt.prove, &last));
  }
  if (r) stats.proofs++;
  refresh_bytes();
  return r;
}

Result<PendingProof> CudaBackend::start(const groth16::R1csShape& shape, std::span<const HostFr> w,
                                        const groth16::ProvingKey& key) {
  return impl_->start(shape, w, key);
}

Result<PendingProof> CudaBackend::start(const groth16::R1csShape& shape, const groth16::CompactAssignment& w,
                                        const groth16::ProvingKey& key) {
  return impl_->start(shape, w, key);
}

Status CudaBackend::preload(const groth16::ProvingKey& key, const groth16::R1csShape* shape) {
  Impl::Lock lock(*impl_);
  try {
    if (!device_available()) return Error{"GPU prover: no CUDA device"};
    select_device(impl_->opt.device);
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: ") + e.what()};
  }
  const Status st = [&]() -> Status {
    auto k = impl_->get_key(key);
    if (!k) return Error{k.error()};
    if (!shape) return ok_status();
    auto s = impl_->get_shape(*shape, *k);
    if (!s) return Error{s.error()};
    return ok_status();
  }();
  impl_->refresh_bytes();
  return st;
}

void CudaBackend::evict_all() {
  Impl::Lock lock(*impl_);
  if (impl_->opt.device >= 0) cudaSetDevice(impl_->opt.device);
  impl_->keys.clear();
  impl_->shapes.clear();
  if (impl_->prover) {
    try {
      impl_->prover->release_workspace();
    } catch (const std::exception&) {
      cudaGetLastError();
    }
  }
  impl_->refresh_bytes();
}

void CudaBackend::forget(const groth16::ProvingKey& key, const groth16::R1csShape* shape) {
  Impl::Forget f{KeyId::of(key), std::nullopt};
  if (shape) f.shape = ShapeId::of(*shape);
  impl_->request_forget(std::move(f));
}

CudaBackendStats CudaBackend::stats() const {
  Impl::Lock lock(*impl_);
  CudaBackendStats s = impl_->stats;
  s.resident_keys = impl_->keys.size();
  for (const auto& e : impl_->keys) {
    if (!e.key->streamed()) continue;
    s.streamed_keys++;
    s.key_host_bytes += e.key->host_bytes();
  }
  s.resident_shapes = impl_->shapes.size();
  s.device_bytes = impl_->resident_bytes();
  return s;
}

std::size_t CudaBackend::device_bytes() const { return impl_->device_bytes_now.load(std::memory_order_relaxed); }

GpuProveTimings CudaBackend::last_timings() const {
  Impl::Lock lock(*impl_);
  return impl_->last;
}

void CudaBackend::set_options(const GpuProveOptions& opt) {
  Impl::Lock lock(*impl_);
  impl_->opt.prove = opt;
}

std::unique_ptr<CudaBackend> make_cuda_backend(CudaBackendOptions opt) { return std::make_unique<CudaBackend>(opt); }

}  // namespace cuzk::gpu
