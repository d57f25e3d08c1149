// The Groth16 prover on the GPU: the CUDA implementation of groth16::Backend::start() (issue 7).
// No CUDA types here, so plain C++ can include it (target cuzk_gpu, which links cuzk_groth16).
//
// start(shape, witness, key) -> PendingProof, the same five MSM results as the CPU backend; the
// shared groth16::finish() adds r and s. Per proof:
//   1. upload the witness (pinned memory straight; pageable memory through two pinned staging
//      buffers, so the host copy of one chunk overlaps the DMA of the previous one);
//   2. a, b, c row evaluations on the GPU from the device-resident CSR shape (GpuShape); or, on a card
//      too small for the shape beside a proof, on the host threads, a matrix at a time, copied up
//      through the staging buffers (start_host_rows; CudaBackend decides: gpu/proof_memory.hpp);
//   3. H: bellperson layout (HBasis::kMonomialOverZ): 3 x (iNTT NR, coset NTT RN), (ab - c)/Z on the
//      coset, coset iNTT NR, exactly the CPU backend's arithmetic; the output stays bit-reversed and
//      the key's H bases are stored bit-reversed on the device (no permutation pass per proof).
//      snarkjs layout (kOddCosetLagrange): index permutation k -> e k, iNTT, shift by the 2n-th root,
//      NTT, ab - c, permutation back (groth16/snarkjs_domain.hpp);
//   4. the five MSMs against device-resident bases (GpuKey): H in full; L, A, B (G1 and G2) with the
//      0/1 split when the non-0/1 scalars are at most `split_max_tail` of the query: a bitmap of the
//      scalars equal to 1 summed by Msm::sum_selected ("batch addition"), and an MSM over the
//      gathered rest (the "tail"), whose bases are copied into a scratch Msm. The B classification
//      is shared by B_G1 and B_G2.
//   With `overlap`, the witness MSMs (L, A, B) run on a second stream while the H NTTs run.
//   A streamed key (GpuKeyOptions::streamed; CudaBackend picks it when the key does not fit) keeps its
//   bases in pinned host memory and sends each query through two device chunk buffers: chunk j+1
//   crosses the bus on a copy stream while chunk j is used. Each query is classified as a whole; per
//   chunk, the batch addition over its bitmap slice and a gather of its tail bases; one tail MSM at
//   the end (H: an MSM per chunk). With `overlap`, H runs on a host thread of its own (its own
//   buffers) while the witness queries stream: H is compute-bound, they are bus-bound. The sums are
//   the same group elements, so the proof is the same byte for byte.
//
// Key copies: CudaBackend::upload() makes the device's copy of a key and its shape (groth16::KeyCopy:
// resident, or streamed from pinned host memory, decided by KeyResidency and the free memory) from the
// key's vectors or, for a key held without its bases, from its source in pieces (no host copy of the
// decoded bases is made). Its owner keeps it (the daemon's SrsManager) and passes it back to start();
// the backend holds no key of its own. start() without a copy uploads one for that proof alone.
//
// Errors (no device, out of GPU memory, any CUDA failure) come back as Result errors. An out-of-memory
// during an MSM first releases the MSM workspaces and retries once.
//
// Files: groth16_device.cuh (GpuKey::Impl, GpuShape::Impl, shared helpers), gpu_key.cu (key upload,
// H copies, chunk rings), gpu_shape.cu (shape upload), groth16_prover.cu (GpuProver: the steps above)
// with rows_eval.cuh (2), h_quotient.cuh (3) and witness_split.cuh (1 compact, 4 split), and
// cuda_backend.cu (CudaBackend and its key copies). Tuning: GpuTuning (gpu/tuning.hpp), data passed in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "gpu/gpu.hpp"
#include "gpu/proof_memory.hpp"
#include "groth16/keys.hpp"
#include "groth16/prover.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::gpu {

struct GpuProveOptions {
  bool overlap = true;   // witness MSMs on a second stream, concurrent with the H NTTs
  bool profile = false;  // synchronize between stages and fill the per-stage times (implies no overlap)
  // Use the 0/1 split for a query when (scalars not in {0, 1}) <= split_max_tail * n; 0 disables it.
  double split_max_tail = 0.5;
  // Bytes of the card the prover plans with (gpus.memory_limit; 0: the whole card): full MSMs are cut
  // into pieces whose workspace fits what is left under it (gpu/msm_pieces.hpp), and CudaBackend::upload
  // streams a key that does not fit under it.
  std::size_t memory_limit = 0;
  // Full MSMs in pieces of at most this many scalars (0: as the memory allows). For checks and benches.
  std::size_t msm_piece_max = 0;
  // Cooperative cancellation (groth16::Backend::set_cancel): checked after the upload, the row
  // evaluations and the NTTs, before every query and between MSM pieces and streamed chunks; start()
  // then waits for the device work already queued and returns Error{"cancelled"}. Empty: never.
  std::function<bool()> cancelled;
};

// Host wall-clock milliseconds of one start(). Per-stage figures are exact only with profile = true
// (otherwise the stages overlap and only total_ms is meaningful).
struct GpuProveTimings {
  double upload_ms = 0;  // witness host -> device
  double eval_ms = 0;    // a, b, c row evaluations (host rows: the host's evaluations and copies, all three)
  double ntt_ms = 0;     // H scalars: 7 NTTs + pointwise (+ snarkjs permutations)
  // Full or tail MSMs. A streamed key's H, with overlap, runs on its own thread: msm_h_ms is then the
  // sum of its chunk MSMs, concurrent with the witness queries.
  double msm_h_ms = 0, msm_l_ms = 0, msm_a_ms = 0, msm_b1_ms = 0, msm_b2_ms = 0;
  double batch_add_ms = 0;  // Msm::sum_selected over the 0/1 parts (L, A, B_G1, B_G2 together)
  double split_ms = 0;      // classification, compaction and gathers of the split
  double total_ms = 0;
  std::size_t upload_bytes = 0;      // host -> device witness bytes
  bool streamed = false;             // the key was streamed from pinned host memory
  int h_copies = 1;                  // copies of the H bases the key holds (GpuKeyOptions::h_copies)
  std::size_t key_stream_bytes = 0;  // host -> device base bytes of a streamed key
  // A key streamed from its file: the prover's wait for chunks read and decoded on the host (the part
  // of the reading the GPU did not hide).
  double key_read_ms = 0;
  bool rows_on_host = false;          // the rows were evaluated on the host (GpuProver::start_host_rows)
  bool compact = false;               // the witness came compact (bits + values) and was expanded on the device
  std::size_t msm_pieces = 1;         // the most pieces one full MSM of this proof was cut into (msm_pieces.hpp)
  std::size_t msm_piece_retries = 0;  // pieces halved after an out-of-memory (another stream took the room)
  std::size_t rows_freed_bytes = 0;   // dead row vectors freed for the MSMs' workspaces (memory was short)
  // The most device memory in use (every process's: total - free) at the stage ends, the queries and
  // the end: what gpus.memory_limit is checked against.
  std::size_t device_used_max = 0;
  // Sizes: query length, scalars equal to 1, tail (neither 0 nor 1), and whether the split was used.
  struct Query {
    std::size_t n = 0, ones = 0, tail = 0;
    bool split = false;
  } l, a, b;
};

// Where a GpuKey's bases live.
struct GpuKeyOptions {
  // false: every base resident in device memory. true: the bases stay in pinned host memory (in the
  // device layout) and are streamed at each proof through two device buffers of chunk_bases bases in
  // each of three rings (H; L, A, B_G1; B_G2); device memory then holds only those buffers and their
  // MSM workspaces.
  bool streamed = false;
  // Streamed keys whose bases are in their file (ProvingKey::source, a mapped .params): the witness
  // queries (L, A, B_G1, B_G2) are not copied to pinned memory but read from the file at each proof,
  // a chunk at a time, decoded on the host threads into one of two pinned staging buffers while the
  // GPU sums the chunk before (issue 39: a 32 GiB WindowPoSt key is 61 GB; this holds its 12.9 GB of
  // H, bit-reversed, and ~3.7 GB of staging). The file's pages are given back after each chunk.
  bool from_file = false;
  std::size_t chunk_bases = 0;  // 0: kDefaultStreamChunk; rounded up to a multiple of 64 (tests use odd ones)
  static constexpr std::size_t kDefaultStreamChunk = std::size_t(1) << 22;
  // Resident keys: shifted copies of the H bases (Msm::add_shifted_copies, copies times H's memory),
  // which make the H MSM 4-7% faster at 2^26-2^27. 0: 3 (the apps take CUZK_GPU_H_COPIES); 1: none. Fewer
  // are taken when the device would keep less than kProofReserveBytes per domain element free for
  // the proofs' workspace; taking none never fails the upload.
  int h_copies = 0;
  static constexpr std::size_t kProofReserveBytes = 512;
  // Resident keys: upload() leaves the H copies to a later add_h_copies() (CudaBackend computes them
  // on the GPU while the host encodes the shape).
  bool defer_h_copies = false;
};

// A proving key for the GPU: the H, L, A, B_G1, B_G2 bases (H bit-reversed for the bellperson
// layout), resident in device memory or streamed from pinned host memory, and the query -> variable
// maps of A and B (always resident).
class GpuKey {
 public:
  // Uploads every query of `key` (checks its consistency first).
  static Result<std::unique_ptr<GpuKey>> upload(const groth16::ProvingKey& key, const GpuKeyOptions& opt = {});
  // Device bytes a resident upload of `key` takes (bases and maps), without touching the device.
  static std::size_t resident_bytes(const groth16::ProvingKey& key);
  // Pinned host bytes a streamed upload of `key` holds (its bases in the device layout); from_file:
  // H's bases and the staging buffers of chunk_bases (0: the default) bases.
  static std::size_t streamed_host_bytes(const groth16::ProvingKey& key, bool from_file = false,
                                         std::size_t chunk_bases = 0);

  // For benchmarks: a key of the given shape with pseudo-random densities and bases generated on the
  // GPU (P_i = (i+1) G: real, distinct points, but no toxic waste behind them, so proofs do not
  // verify). All device memory is allocated before anything is generated, so a key that does not fit
  // fails fast.
  struct SyntheticSpec {
    std::uint32_t domain_log2 = 20;
    std::uint32_t num_inputs = 1, num_aux = 0;
    double a_aux_density = 1.0, b_aux_density = 1.0;
    bool b_inputs_only_one = true;  // B input density: ONE only (as in PoRep), else all inputs
    groth16::HBasis h_basis = groth16::HBasis::kMonomialOverZ;
    std::uint64_t seed = 1;
  };
  static Result<std::unique_ptr<GpuKey>> synthetic(const SyntheticSpec& spec, const GpuKeyOptions& opt = {});

  ~GpuKey();
  GpuKey(const GpuKey&) = delete;
  GpuKey& operator=(const GpuKey&) = delete;

  std::uint32_t num_inputs() const;
  std::uint32_t num_aux() const;
  std::uint32_t domain_log2() const;
  groth16::HBasis h_basis() const;
  std::size_t device_bytes() const;  // bases (or, streamed, the chunk buffers) + maps, H copies included
  int h_copies() const;              // copies of the H bases held (1: the bases alone)
  // Frees the H copies (for room to prove); false if there were none or the device could not make
  // the smaller buffer (the key is then unchanged).
  bool drop_h_copies();
  // The H copies of GpuKeyOptions::h_copies (0: the default) for a key uploaded with defer_h_copies,
  // keeping `keep_free` more device bytes free than they otherwise would (fewer copies when short).
  Status add_h_copies(int asked, std::size_t keep_free);
  bool streamed() const;
  bool from_file() const;          // streamed, the witness queries read from the key's file at each proof
  std::size_t host_bytes() const;  // streamed: the pinned copy of the bases (from_file: H and staging); else 0
  double upload_ms() const;        // upload(): the bases read, converted and copied
  double h_copies_ms() const;      // upload(): the H copies computed
  void release_workspace();        // the MSM workspaces held by this key's Msm objects

  struct Impl;

 private:
  GpuKey();
  std::unique_ptr<Impl> impl_;
  friend class GpuProver;
};

// An R1CS shape resident in device memory: per matrix a row pointer and a stream of 32-bit words,
// one per term (variable index, 2 flag bits: +1, -1, or "explicit coefficient", then one more word
// indexing a table of the distinct explicit coefficients). At most 2^30 variables and 2^32 words
// per matrix.
class GpuShape {
 public:
  static Result<std::unique_ptr<GpuShape>> upload(const groth16::R1csShape& shape);
  // upload() in two halves: encode() makes the device encoding on the host (all threads, no device
  // call), so that it can run beside device work; upload(encoded) copies it.
  struct Encoded;
  static Result<std::shared_ptr<const Encoded>> encode(const groth16::R1csShape& shape);
  static Result<std::unique_ptr<GpuShape>> upload(const Encoded& encoded);

  // For benchmarks: `rows` rows over num_inputs + num_aux variables with pseudo-random terms: on
  // average a_terms / b_terms / c_terms terms per row (rounded per row), one term in eight with an
  // explicit coefficient, the rest +1 / -1. Generated on the GPU.
  struct SyntheticSpec {
    std::uint64_t rows = 0;
    std::uint32_t num_inputs = 1, num_aux = 0;
    double a_terms = 2.4, b_terms = 1.0, c_terms = 2.2;  // each below 15
    // Every long_row_every-th row of A (0: none) has long_row_terms terms of +-1 instead, as the
    // PoRep circuit's bit-packing rows (a_terms is the average of the other rows).
    std::uint32_t long_row_every = 0, long_row_terms = 0;
    std::uint64_t seed = 1;
  };
  static Result<std::unique_ptr<GpuShape>> synthetic(const SyntheticSpec& spec);

  ~GpuShape();
  GpuShape(const GpuShape&) = delete;
  GpuShape& operator=(const GpuShape&) = delete;

  std::size_t num_constraints() const;
  std::size_t device_bytes() const;

  struct Impl;

 private:
  GpuShape();
  std::unique_ptr<Impl> impl_;
  friend class GpuProver;
};

// A device shared with an urgent lane (cuzk-daemon's gpus.urgent_lane = "gpu": a second backend per
// device proves small urgent circuits beside the running partition). The lane's prover (kLane) puts
// every stream at the device's highest priority, so the block scheduler gives it SMs as the main
// proof's blocks finish; a main prover beside it (kBelowLane) puts s0 one level lower, which keeps
// s0 above s1 as alone (kAlone: s0 at the highest, ProverTuning::s0_priority).
enum class StreamRank { kAlone, kBelowLane, kLane };

// The per-proof work on one device: NTT domain, streams, grow-only proof buffers, scratch MSMs for
// the tails. One proof at a time (not thread-safe). Several instances may share a device: each has
// its own non-blocking streams and buffers (the first proof of each size allocates and synchronizes
// the device, later ones do not unless a buffer must grow).
class GpuProver {
 public:
  explicit GpuProver(const GpuTuning& tuning = {}, StreamRank rank = StreamRank::kAlone);
  ~GpuProver();
  GpuProver(const GpuProver&) = delete;
  GpuProver& operator=(const GpuProver&) = delete;

  // w: the full assignment (w[0] = 1, inputs, aux). Checks sizes against key and shape.
  Result<groth16::PendingProof> start(GpuKey& key, const GpuShape& shape, std::span<const math::Fr> w,
                                      const GpuProveOptions& opt = {}, GpuProveTimings* timings = nullptr);
  // The same from the compact witness: uploads the bitmaps and the non-binary values (~1/8 of the
  // dense bytes for PoRep) and expands them on the device (rank of each non-binary aux by popcount +
  // prefix sum over the bitmap words); the rest of the proof is unchanged. Checks the counts first.
  Result<groth16::PendingProof> start(GpuKey& key, const GpuShape& shape, const groth16::CompactAssignment& w,
                                      const GpuProveOptions& opt = {}, GpuProveTimings* timings = nullptr);
  // The same with the rows evaluated on the host threads from `shape`, one matrix at a time, and
  // uploaded (no GpuShape; two row vectors on the device instead of three: gpu/proof_memory.hpp). For
  // the bellperson layout and shapes with C; the same proof byte for byte.
  Result<groth16::PendingProof> start_host_rows(GpuKey& key, const groth16::R1csShape& shape,
                                                std::span<const math::Fr> w, const GpuProveOptions& opt = {},
                                                GpuProveTimings* timings = nullptr);
  Result<groth16::PendingProof> start_host_rows(GpuKey& key, const groth16::R1csShape& shape,
                                                const groth16::CompactAssignment& w, const GpuProveOptions& opt = {},
                                                GpuProveTimings* timings = nullptr);
  // Frees the proof buffers and scratch MSMs (they are reallocated by the next start()).
  void release_workspace();
  std::size_t device_bytes() const;
  // The tuning of the next proofs (benchmarks compare variants in one process). The streams are made
  // by the constructor: ProverTuning::s0_priority keeps the constructor's value.
  void set_tuning(const GpuTuning& tuning);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Whether CudaBackend::upload keeps a key's bases in device memory or streams them from pinned host
// memory, or from its file (kStreamedFromFile: GpuKeyOptions::from_file; a key that holds its bases
// is streamed from pinned memory instead). kAuto: resident while the bases, the shape and a proof's
// workspace fit in the free device memory (and under max_resident_key_bytes); an out-of-memory while
// uploading, or while proving with a resident key, switches that copy to streamed (with a note);
// streamed from the file when the pinned copy is refused (groth16::HostCharge: the memory budget)
// and the key's bases are in its file.
enum class KeyResidency { kAuto, kResident, kStreamed, kStreamedFromFile };

struct CudaBackendOptions {
  GpuProveOptions prove;
  GpuTuning tuning;  // gpu/tuning.hpp: the defaults are the measured choices
  int device = -1;   // CUDA device ordinal every call runs on; -1: the calling thread's current device
  KeyResidency key_residency = KeyResidency::kAuto;
  std::size_t max_resident_key_bytes = 0;       // kAuto: keys needing more device bytes are streamed; 0: no limit
  std::size_t stream_chunk_bases = 0;           // streamed keys: GpuKeyOptions::chunk_bases
  int h_copies = 0;                             // resident keys: GpuKeyOptions::h_copies
  StreamRank stream_rank = StreamRank::kAlone;  // beside an urgent lane, or the lane itself
  // Where each copy's proofs evaluate their rows (gpu/proof_memory.hpp): kAuto decides at upload from
  // the device memory left after the key (under gpus.memory_limit); a device-rows proof that still
  // runs out of memory moves its copy to host rows (with a note).
  RowsPlacement rows = RowsPlacement::kAuto;
  // Receives one line whenever a copy takes a smaller form than asked (streamed instead of
  // resident, H copies dropped) so that the operator's log says why a proof got slower.
  std::function<void(const std::string&)> on_note;
};

// What a copy of a key costs in each form (CudaBackend::copy_costs; the engine's plan across keys,
// engine/key_tiers.hpp): the numbers kAuto's own choice uses.
struct CopyCosts {
  std::size_t resident_bytes = 0;     // device: GpuKey::resident_bytes
  std::size_t proof_bytes = 0;        // device, beside the key: the shape and a proof's workspace
  std::size_t pinned_bytes = 0;       // host, streamed from pinned memory
  std::size_t file_pinned_bytes = 0;  // host, streamed from its file; 0: its bases are not in a file
};

struct CudaBackendStats {
  std::size_t key_uploads = 0, shape_uploads = 0;  // copies made since construction
  std::size_t key_bytes_uploaded = 0, shape_bytes_uploaded = 0;
  std::size_t proofs = 0;
  std::size_t device_bytes = 0;  // the prover's buffers (the copies count their own)
};

// groth16::Backend on the GPU. Calls are serialized, so several engine workers can share one
// instance per device (the daemon does); every copy it makes is the caller's.
class CudaBackend final : public groth16::Backend {
 public:
  explicit CudaBackend(CudaBackendOptions opt = {});
  ~CudaBackend() override;
  std::string name() const override { return "cuda"; }
  Result<std::shared_ptr<groth16::KeyCopy>> upload(const groth16::ProvingKey& key, const groth16::R1csShape* shape,
                                                   const groth16::HostCharge& charge) override;
  // With key_residency kAuto, the asked form instead of the free memory's (an out-of-memory while
  // uploading a resident copy still streams it); other settings: upload().
  Result<std::shared_ptr<groth16::KeyCopy>> upload_planned(const groth16::ProvingKey& key,
                                                           const groth16::R1csShape* shape,
                                                           const groth16::HostCharge& charge,
                                                           const groth16::CopyRequest& request) override;
  // Without touching a device. `chunk_bases`: CudaBackendOptions::stream_chunk_bases.
  static CopyCosts copy_costs(const groth16::ProvingKey& key, const groth16::R1csShape* shape, std::size_t chunk_bases);
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, std::span<const math::Fr> w,
                                      const groth16::ProvingKey& key, groth16::KeyCopy& copy) override;
  // The compact witness goes to the device as it is (GpuProver::start's compact overload).
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, const groth16::CompactAssignment& w,
                                      const groth16::ProvingKey& key, groth16::KeyCopy& copy) override;
  // Without a copy: one is made for this proof and dropped after it.
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, std::span<const math::Fr> w,
                                      const groth16::ProvingKey& key) override;
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, const groth16::CompactAssignment& w,
                                      const groth16::ProvingKey& key) override;
  // Frees the prover's buffers (they are made again by the next proof).
  void release_workspace();
  CudaBackendStats stats() const;  // waits for a running call
  // The prover's device bytes as of the end of the last call; never waits (for status endpoints).
  std::size_t device_bytes() const;
  GpuProveTimings last_timings() const;
  void set_options(const GpuProveOptions& opt);
  // The H copies a copy made by upload() holds (0 for another backend's copy).
  static int h_copies(const groth16::KeyCopy& copy);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The CUDA backend behind the start/finish seam (groth16/prover.hpp).
std::unique_ptr<CudaBackend> make_cuda_backend(CudaBackendOptions opt = {});

}  // namespace cuzk::gpu
