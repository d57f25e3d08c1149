// The GPU prover's device-side objects, shared by its translation units (private to cuzk_gpu):
// GpuKey::Impl (a key's bases, resident or streamed through chunk rings; gpu_key.cu makes it),
// GpuShape::Impl (the device CSR matrices; gpu_shape.cu makes it), and the small helpers the units
// share (buffer upload, timing, the out-of-memory test). groth16_prover.cu proves with both;
// cuda_backend.cu caches them. groth16_backend.hpp has the data flow of one proof.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gpu/csr_words.hpp"
#include "gpu/cuda_util.cuh"
#include "gpu/gpu.hpp"
#include "gpu/groth16_backend.hpp"

namespace cuzk::gpu {

using HostFr = math::Fr;
using groth16::HBasis;
static_assert(sizeof(Fr) == sizeof(HostFr), "host/device Fr layout");

// Bases made piece by piece on the host: fill(first, out) writes bases [first, first +
// out.size()) (host layout) into a pinned buffer of at most `piece`; the copy and conversion of one
// piece overlap the filling of the next. Host memory: two pieces. A fill error stops it.
using G1PieceFill = std::function<Status(std::size_t, std::span<math::G1Affine>)>;
using G2PieceFill = std::function<Status(std::size_t, std::span<math::G2Affine>)>;
Status upload_bases_by_piece(G1Affine* d_out, std::size_t n, std::size_t piece, const G1PieceFill& fill);
Status upload_bases_by_piece(G2Affine* d_out, std::size_t n, std::size_t piece, const G2PieceFill& fill);  // common.cu

// s^j = hi[j >> kPowLoBits] * lo[j & (2^kPowLoBits - 1)]: the split power tables of the coset shift.
constexpr int kPowLoBits = 14;

inline double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline Fr to_dev(const HostFr& x) {
  Fr r;
  std::memcpy(static_cast<void*>(&r), &x, sizeof(r));
  return r;
}

// CUDA's out-of-memory message, in an exception or a Result error.
inline bool is_oom(std::string_view what) { return what.find("out of memory") != std::string_view::npos; }

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

inline std::uint64_t host_mix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__device__ __forceinline__ u32 bitrev_dev(u64 i, int logn) { return logn == 0 ? 0u : __brev(u32(i)) >> (32 - logn); }

// One matrix of the shape on the device, as the row kernels read it (csr_words.hpp's encoding).
struct CsrView {
  const u32* row_ptr = nullptr;
  const u32* words = nullptr;
  const Fr* coefs = nullptr;
};

// ---------------------------------------------------------------------------------------------
// GpuKey

// One query's bases: resident (`dev` holds all n), streamed (`host` holds all n, device layout) or
// streamed from the key's file (`src`, query `q`: read a chunk at a time at each proof).
template <class C>
struct QueryBases {
  std::unique_ptr<Msm<C>> dev;
  PinnedHostBuffer host;
  std::shared_ptr<const groth16::BaseSource> src;
  groth16::Query q = groth16::Query::kH;
};

// Bases [first, first + n) of query q read from `src` into `scratch` (host layout) and converted into
// `out` (device layout); the source gives the file's pages back. gpu_key.cu.
Status stage_bases(const groth16::BaseSource& src, groth16::Query q, std::size_t first, std::size_t n,
                   std::vector<math::G1Affine>& scratch, void* out);
Status stage_bases(const groth16::BaseSource& src, groth16::Query q, std::size_t first, std::size_t n,
                   std::vector<math::G2Affine>& scratch, void* out);

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
    for (auto e : staged)
      if (e) cudaEventDestroy(e);
    if (copy) cudaStreamDestroy(copy);
  }
  std::size_t bytes() const {
    return 2 * buf[0]->size() * (std::is_same_v<C, math::G1Curve> ? sizeof(G1Affine) : sizeof(G2Affine));
  }

  // Queries streamed from the key's file: two pinned staging buffers of a chunk (device layout; the
  // copy from stage[k] into buf[k] is recorded by staged[k]) and one chunk of host-layout scratch.
  PinnedHostBuffer stage[2];
  cudaEvent_t staged[2] = {};
  std::vector<math::Affine<C>> scratch;
  void add_staging() {
    const std::size_t n = buf[0]->size();
    for (auto& b : stage)
      b = PinnedHostBuffer(n * (std::is_same_v<C, math::G1Curve> ? sizeof(G1Affine) : sizeof(G2Affine)));
    for (auto& e : staged) CUZK_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    scratch.resize(n);
  }
  std::size_t staging_bytes() const {
    return stage[0].size() + stage[1].size() + scratch.size() * sizeof(math::Affine<C>);
  }
  static std::size_t staging_bytes_for(std::size_t chunk) {
    return chunk *
           (2 * (std::is_same_v<C, math::G1Curve> ? sizeof(G1Affine) : sizeof(G2Affine)) + sizeof(math::Affine<C>));
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
  DeviceBuffer a_map, b_map;        // query position -> variable index (u32)
  DeviceBuffer shift_hi, shift_lo;  // snarkjs: powers of the 2m-th root (coset shift)
  HostFr z_inv;                     // bellperson: 1 / (7^m - 1)
  std::size_t bytes = 0, host_bytes = 0;
  double upload_ms = 0, h_copies_ms = 0;  // upload(): the bases (decode, copy), then the H copies

  bool from_file = false;  // streamed, L, A, B_G1 and B_G2 read from the key's file (GpuKeyOptions::from_file)
  bool streamed() const { return ring_h != nullptr; }
  int h_copies() const { return streamed() || !h.dev ? 1 : h.dev->copies(); }

  // Builds z_inv (bellperson) or the coset-shift tables (snarkjs) and counts the bytes.
  void finish_setup();
  void count_bytes() {
    const std::size_t base_bytes = (a_n + b_n + l_n + h_n) * sizeof(G1Affine) + b_n * sizeof(G2Affine);
    const std::size_t ring_bytes = streamed() ? ring_h->bytes() + ring_g1->bytes() + ring_g2->bytes() : 0;
    const std::size_t copy_bytes = std::size_t(h_copies() - 1) * h_n * sizeof(G1Affine);
    bytes = (streamed() ? ring_bytes : base_bytes + copy_bytes) + a_map.size() + b_map.size();
    host_bytes = !streamed() ? 0
                 : from_file ? h_n * sizeof(G1Affine) + ring_g1->staging_bytes() + ring_g2->staging_bytes()
                             : base_bytes;
  }

  // Resident keys: shifted copies of the final H bases (GpuKeyOptions::h_copies), as many as asked
  // while kProofReserveBytes per domain element stay free (a 2^27 partition's workspace, shape apart,
  // measured 444 bytes per element with two copies: 125.3 GB in use beside a 60.9 GB key and a 4.8 GB
  // shape, RESULTS_gpu.md "Tuning data behind the defaults"; 441 with three). An out-of-memory
  // failure only means fewer copies.
  // Three by default: the 2^27 partition 1,062.8 -> 1,042.7 ms against two (same table), for 12.9 GB
  // more and 1.9 s more at the key's upload; a fourth shortens no window at 2^27 (the cost model
  // keeps 11 windows), so it would only cost memory.
  static constexpr int kDefaultHCopies = 3;
  // `extra`: device bytes that must stay free beyond those (memory promised to an upload to come).
  void add_h_copies(int asked, std::size_t extra);

  // Streamed keys: the chunk buffers, sized for the longest query of each curve (and the witness
  // rings' staging buffers when from_file).
  void make_rings(std::size_t chunk_bases);
  static std::size_t ring_chunk(std::size_t chunk_bases);  // the chunk make_rings uses
};

// ---------------------------------------------------------------------------------------------
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
};

struct GpuShape::Impl {
  DevCsr a, b, c;
  bool has_c = true;
  std::uint32_t num_inputs = 0, num_aux = 0;
  std::uint64_t rows = 0;
  std::size_t bytes = 0;
};

}  // namespace cuzk::gpu
