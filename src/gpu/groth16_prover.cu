// GpuProver: one proof on one device (groth16_backend.hpp has the data flow): the witness upload
// (pinned, staged or compact), the row evaluations (rows_eval.cuh), the H scalars (h_quotient.cuh),
// the five MSMs with the 0/1 split (witness_split.cuh) against a resident or streamed key, on two
// streams and, for H, a host thread of its own. Tuning (GpuTuning) is data passed in.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <future>
#include <mutex>
#include <span>
#include <vector>

#include "base/parallel.hpp"
#include "gpu/groth16_device.cuh"
#include "gpu/h_quotient.cuh"
#include "gpu/msm_pieces.hpp"
#include "gpu/rows_eval.cuh"
#include "gpu/staging_pipeline.hpp"
#include "gpu/witness_split.cuh"

namespace cuzk::gpu {

using groth16::PendingProof;

namespace {

// Pinned staging chunk for pageable witnesses.
constexpr std::size_t kStageBytes = std::size_t(64) << 20;

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
  GpuTuning tuning;  // the MSMs' and the NTT domain's, and the scheduling switches (ProverTuning)
  // GpuProveOptions::cancelled of the running prove(); check_cancel throws Cancelled when it says so
  // (run_prover then waits for the queued device work and answers "cancelled").
  struct Cancelled {};
  const std::function<bool()>* cancel_fn = nullptr;
  void check_cancel() const {
    if (cancel_fn && *cancel_fn && (*cancel_fn)()) throw Cancelled{};
  }
  // After H's scalars (ev_ntt) three of the four row vectors a, b, c, tmp are dead: 96 bytes a domain
  // element (12.9 GB at 2^27). When memory is short (a full MSM would be cut into pieces, or a split
  // tail's scratch does not fit) they are freed, once per proof, and that room goes to the MSMs'
  // workspaces; the next proof allocates them again. Without it a dense 2^27 witness beside a resident
  // key on an 80 GB card left room only for pieces of 2^16 scalars: 2,048 a query, 26.4 s (H100).
  std::mutex rows_mu;
  const void* rows_keep = nullptr;  // h_scalars' buffer once the rows are dead; null: nothing to free
  std::size_t rows_freed = 0;       // bytes freed this proof
  bool free_dead_rows() {
    std::lock_guard<std::mutex> lk(rows_mu);
    if (!rows_keep) return false;
    CUZK_CUDA(cudaEventSynchronize(ev_ntt));
    for (DeviceBuffer* b : {&d_a, &d_b, &d_c, &d_tmp}) {
      if (b->get() && b->get() != rows_keep) {
        rows_freed += b->size();
        *b = DeviceBuffer();
      }
    }
    rows_keep = nullptr;
    return rows_freed > 0;
  }

  // The device memory in use now (every process's), into t.device_used_max.
  static void note_memory(GpuProveTimings& t) {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
      t.device_used_max = std::max(t.device_used_max, total_b - free_b);
  }

  // Device bytes still free under opt.memory_limit, less device_room's margin.
  static std::size_t room(const GpuProveOptions& opt) {
    std::size_t free_b = 0, total_b = 0;
    CUZK_CUDA(cudaMemGetInfo(&free_b, &total_b));
    return device_room(free_b, total_b, opt.memory_limit);
  }

  MsmConfig msm_cfg() const {
    MsmConfig c;
    c.tuning = tuning.msm;
    return c;
  }
  // A streamed chunk's MSM under gpus.memory_limit: one window per batch-affine group. By default a
  // group takes windows until it holds 2^28 digits, so a 2^22-base chunk's workspace is that of a 2^26
  // MSM (~10 GB in G2), and each of a ring's two buffers keeps one (measured: 48 GB in use on an H100
  // under a 24 GiB limit); two windows a group still passed a 24 GiB limit by 2.9 GiB (26.85 GiB by
  // nvidia-smi: the H thread's ring and a witness query's ring hold their workspaces at once).
  // MsmTuning::aff_group_log, when set, wins.
  MsmConfig chunk_cfg(std::size_t chunk, const GpuProveOptions& opt) const {
    MsmConfig c = msm_cfg();
    if (opt.memory_limit && !c.tuning.aff_group_log) {
      int lg = 1;
      while ((std::size_t(1) << lg) < chunk) ++lg;
      c.tuning.aff_group_log = lg;
    }
    return c;
  }

  // The transforms' tuning for a proof: under gpus.memory_limit without the inverse twiddle table
  // (32 * m/2 bytes, 2.1 GB at 2^27; the inverse passes then take w^-e = -w^(N/2-e), a negation a
  // butterfly).
  NttTuning ntt_tuning(const GpuProveOptions& opt) const {
    NttTuning nt = tuning.ntt;
    if (opt.memory_limit) nt.inverse_table = false;
    return nt;
  }

  Impl(const GpuTuning& t, StreamRank rank) : tuning(t) {
    // s0 (a,b,c, the NTTs, H) is the longest chain: it gets the device's highest stream priority, so
    // that the witness queries on s1 take the SMs it leaves (2^27 partition 1,089.5 -> 1,084.3 ms
    // with H on its own host thread, RESULTS_gpu.md). ProverTuning::s0_priority turns it off.
    // Beside an urgent lane (StreamRank) the lane's streams all take the highest priority and the
    // main prover's s0 the next one (a numerically greater priority is a lower one).
    int s0_priority = 0, s1_priority = 0, least = 0, greatest = 0;
    if (tuning.prover.s0_priority || rank == StreamRank::kLane) {
      CUZK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      s0_priority = greatest;
      if (rank == StreamRank::kLane) s1_priority = greatest;
      else if (rank == StreamRank::kBelowLane) s0_priority = std::min(least, greatest + 1);
    }
    CUZK_CUDA(cudaStreamCreateWithPriority(&s0, cudaStreamNonBlocking, s0_priority));
    CUZK_CUDA(cudaStreamCreateWithPriority(&s1, cudaStreamNonBlocking, s1_priority));
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
    for (DeviceBuffer* b :
         {&d_w,         &d_a,         &d_b,          &d_c,       &d_tmp,     &d_q,        &d_pieces,
          &cls_counts,  &cls_offsets, &cls_scan_tmp, &cls_ones,  &bitmap,    &tail_idx,   &tail_s,
          &chunk_first, &cw_binary,   &cw_bits,      &cw_values, &cw_counts, &cw_offsets, &cw_scan_tmp})
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
    for (const DeviceBuffer* b :
         {&d_w,         &d_a,         &d_b,          &d_c,       &d_tmp,     &d_q,        &d_pieces,
          &cls_counts,  &cls_offsets, &cls_scan_tmp, &cls_ones,  &bitmap,    &tail_idx,   &tail_s,
          &chunk_first, &cw_binary,   &cw_bits,      &cw_values, &cw_counts, &cw_offsets, &cw_scan_tmp})
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
      parallel_chunks(len, threads,
                      [&](std::size_t b, std::size_t e, std::size_t) { std::memcpy(stage + b, src + off + b, e - b); });
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
    CUZK_CUDA(
        cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, ptr<u32>(cw_counts), ptr<u32>(cw_offsets), int(words), s0));
    cw_scan_tmp.resize_discard(std::max<std::size_t>(tmp_bytes, 16));
    CUZK_CUDA(cub::DeviceScan::ExclusiveSum(cw_scan_tmp.get(), tmp_bytes, ptr<u32>(cw_counts), ptr<u32>(cw_offsets),
                                            int(words), s0));
    compact_expand_kernel<<<grid_for(c.num_aux, 256), 256, 0, s0>>>(ptr<const u64>(cw_binary), ptr<const u64>(cw_bits),
                                                                    ptr<const u32>(cw_offsets),
                                                                    ptr<const Fr>(cw_values), c.num_aux, dev + ni);
    CUZK_CUDA_LAUNCH();
    return c.payload_bytes();
  }

  // Host rows (proof_memory.hpp): matrix `mat`'s row values for w, evaluated on the host threads a
  // chunk of rows at a time into the two pinned staging buffers and copied into dev[0, m) on s0 (rows
  // past the matrix's are zero). Host evaluation of a chunk overlaps the copy of the one before.
  void upload_rows(const groth16::CsrMatrix& mat, const groth16::AssignmentView& w, std::size_t m, Fr* dev) {
    for (auto& p : pinned)
      if (!p) CUZK_CUDA(cudaHostAlloc(&p, kStageBytes, cudaHostAllocDefault));
    const std::size_t rows = std::min(mat.rows(), m), per = kStageBytes / sizeof(Fr);
    const std::size_t threads = default_threads();
    for (std::size_t off = 0, i = 0; off < rows; off += per, ++i) {
      const int k = int(i & 1);
      const std::size_t len = std::min(per, rows - off);
      CUZK_CUDA(cudaEventSynchronize(ev_stage[k]));  // the DMA that last read this buffer is done
      auto* stage = static_cast<HostFr*>(pinned[k]);
      parallel_chunks(len, threads, [&](std::size_t b, std::size_t e, std::size_t) {
        groth16::evaluate_rows_into(mat, w, off + b, off + e, stage + b);
      });
      CUZK_CUDA(cudaMemcpyAsync(dev + off, stage, len * sizeof(Fr), cudaMemcpyHostToDevice, s0));
      CUZK_CUDA(cudaEventRecord(ev_stage[k], s0));
    }
    if (rows < m) CUZK_CUDA(cudaMemsetAsync(dev + rows, 0, (m - rows) * sizeof(Fr), s0));
  }

  // `scratch` holds m elements (the rows' first buffer, overwritten afterwards).
  void ensure_domain(int log, std::size_t m, DeviceBuffer& scratch, const NttTuning& nt) {
    const int need = std::max(1, log);
    if (!dom || dom->max_log() < need) {
      dom.reset();
      dom = std::make_unique<NttDomain>(need, nt);
      warmed_logs.clear();
    } else {
      dom->set_tuning(nt);  // a proof under a memory limit gives the inverse table back
    }
    if (std::find(warmed_logs.begin(), warmed_logs.end(), log) == warmed_logs.end()) {
      // The domain builds its scale tables lazily with synchronous copies on the legacy stream; build
      // them here once (on the legacy stream, then synchronize), not inside the proof's streams.
      CUZK_CUDA(cudaMemset(scratch.get(), 0, m * sizeof(Fr)));
      for (bool coset : {false, true}) {
        dom->inverse(scratch.get(), log, NttOrder::kNR, coset, nullptr);
        dom->forward(scratch.get(), log, NttOrder::kRN, coset, nullptr);
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

  // sum_{i < n} s_i P_i as full MSMs over m's resident bases, in the fewest pieces whose workspace fits
  // the device memory left under opt.memory_limit (msm_pieces.hpp); one piece is msm_device itself.
  // A piece that still runs out of memory (H's thread allocates beside it) is halved and run again.
  template <class C>
  math::Jacobian<C> full_msm(Msm<C>& m, const Fr* s, std::size_t n, cudaStream_t st, const GpuProveOptions& opt,
                             GpuProveTimings& t) {
    using Jac = math::Jacobian<C>;
    if (n == 0) return Jac::identity();
    const MsmConfig cfg = msm_cfg();
    auto plan_now = [&] {
      std::size_t free_b = 0, total_b = 0;
      CUZK_CUDA(cudaMemGetInfo(&free_b, &total_b));
      const std::size_t budget = device_room(free_b, total_b, opt.memory_limit) + m.workspace_bytes();
      return plan_msm_pieces(n, budget, opt.msm_piece_max,
                             [&](std::size_t k) { return m.workspace_bytes_for(k, cfg); });
    };
    MsmPieces plan = plan_now();
    if (plan.pieces > 1 && !opt.msm_piece_max && free_dead_rows()) plan = plan_now();
    t.msm_pieces = std::max(t.msm_pieces, plan.pieces);
    check_cancel();
    if (plan.pieces == 1) return m.msm_device(s, n, cfg, st);
    Jac acc = Jac::identity();
    std::size_t piece = plan.piece;
    for (std::size_t off = 0; off < n;) {
      const std::size_t len = std::min(piece, n - off);
      if (off) check_cancel();
      try {
        acc = acc + m.msm_device_range(s + off, off, len, cfg, st);
        off += len;
      } catch (const std::exception& e) {
        cudaGetLastError();
        if (!is_oom(e.what()) || piece <= kMsmMinPiece) throw;
        CUZK_CUDA(cudaStreamSynchronize(st));  // the failed piece's kernels may still use the workspace
        m.release_workspace();
        piece = std::max(kMsmMinPiece, (piece / 2 + kMsmPieceAlign - 1) / kMsmPieceAlign * kMsmPieceAlign);
        t.msm_piece_retries++;
        t.msm_pieces = std::max(t.msm_pieces, off / plan.piece + (n - off + piece - 1) / piece);
      }
    }
    // Memory is short: the next query's MSM (each query has its own Msm) gets this workspace's room.
    CUZK_CUDA(cudaStreamSynchronize(st));
    m.release_workspace();
    return acc;
  }

  // sum_i s_i P_i over one query: full MSM, or batch addition of the ones plus the tail MSM.
  template <class C>
  math::Jacobian<C> run_query(Msm<C>& full, std::unique_ptr<Msm<C>>& scratch, const Fr* s, const Split& sp,
                              cudaStream_t st, const GpuProveOptions& opt, double& t_msm, GpuProveTimings& t) {
    using Jac = math::Jacobian<C>;
    const bool profile = opt.profile;
    if (sp.n == 0) return Jac::identity();
    double t0 = now_ms();
    if (!sp.split) {
      Jac r = full_msm(full, s, sp.n, st, opt, t);
      t_msm += now_ms() - t0;
      return r;
    }
    Jac sel = Jac::identity(), tail = Jac::identity();
    if (sp.ones) sel = full.sum_selected(bitmap.get(), sp.n, st, tuning.msm);
    double t1 = now_ms();
    t.batch_add_ms += t1 - t0;
    if (sp.tail) {
      if (!scratch || scratch->size() < sp.tail) {
        scratch.reset();
        try {
          scratch = std::make_unique<Msm<C>>(sp.tail + sp.tail / 4);
        } catch (const std::exception& e) {
          cudaGetLastError();
          if (!is_oom(e.what()) || !free_dead_rows()) throw;
          scratch = std::make_unique<Msm<C>>(sp.tail + sp.tail / 4);
        }
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
      tail = full_msm(*scratch, ptr<Fr>(tail_s), sp.tail, st, opt, t);
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
    if (q.src) return for_each_file_chunk(ring, q, n, st, t, f);
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
      if (j) check_cancel();  // (the chunk sent ahead is only a copy: the ring is synchronized on exit)
      if (j + 1 < chunks) send(j + 1);
      CUZK_CUDA(cudaStreamWaitEvent(st, ring.ready[j & 1], 0));
      const std::size_t off = j * chunk;
      f(*ring.buf[j & 1], off, std::min(chunk, n - off));
    }
  }

  // A query streamed from the key's file (QueryBases::src), in staging_pipeline.hpp's order: chunk
  // j + 2 is read and decoded into staging slot j & 1 on a helper thread (once chunk j's copy out of
  // it has finished) while chunk j is used on st. A read error (the file changed under its mapping)
  // fails the proof with the file's message.
  template <class C, class PerChunk>
  void for_each_file_chunk(ChunkRing<C>& ring, const QueryBases<C>& q, std::size_t n, cudaStream_t st,
                           GpuProveTimings& t, PerChunk& f) {
    constexpr std::size_t kBaseBytes = std::is_same_v<C, math::G1Curve> ? sizeof(G1Affine) : sizeof(G2Affine);
    if (n == 0) return;
    const std::size_t chunk = ring.chunk, chunks = (n + chunk - 1) / chunk;
    auto len_of = [&](std::size_t j) { return std::min(chunk, n - j * chunk); };
    int dev = 0;
    CUZK_CUDA(cudaGetDevice(&dev));
    StagingSteps steps;
    steps.read = [&, src = q.src.get(), query = q.q](std::size_t j, int slot) {
      CUZK_CUDA(cudaSetDevice(dev));  // the device is per host thread
      auto r = stage_bases(*src, query, j * chunk, len_of(j), ring.scratch, ring.stage[slot].get());
      if (!r) throw std::runtime_error(r.error());
    };
    steps.wait_sent = [&](int slot) { CUZK_CUDA(cudaEventSynchronize(ring.staged[slot])); };
    steps.send = [&](std::size_t j, int slot) {
      CUZK_CUDA(cudaMemcpyAsync(ring.buf[slot]->device_bases(), ring.stage[slot].get(), len_of(j) * kBaseBytes,
                                cudaMemcpyHostToDevice, ring.copy));
      CUZK_CUDA(cudaEventRecord(ring.staged[slot], ring.copy));
      CUZK_CUDA(cudaEventRecord(ring.ready[slot], ring.copy));
      t.key_stream_bytes += len_of(j) * kBaseBytes;
    };
    steps.use = [&](std::size_t j, int slot) {
      CUZK_CUDA(cudaStreamWaitEvent(st, ring.ready[slot], 0));
      f(*ring.buf[slot], j * chunk, len_of(j));
    };
    steps.between = [&](std::size_t) { check_cancel(); };
    t.key_read_ms += run_staged(chunks, steps);
  }

  // Streamed keys: sum_i s_i P_i over one query, its n scalars at s classified as a whole (sp, as for
  // a resident key; positions relative to the query). Without the split: a full MSM per chunk. With it:
  // per chunk, the batch addition over the chunk's slice of the bitmap (chunks are multiples of 64
  // bases, so a slice starts on a 64-bit word) and the chunk's tail bases gathered into `scratch` at
  // their place in the query's tail; then one tail MSM over the whole tail (a tail MSM per chunk
  // measured 9x slower: small MSMs are mostly fixed costs).
  // Under gpus.memory_limit the ring's two workspaces are given back after the query (the next
  // query's ring then has the room).
  template <class C>
  math::Jacobian<C> run_streamed(ChunkRing<C>& ring, const QueryBases<C>& q, std::unique_ptr<Msm<C>>& scratch,
                                 const Fr* s, const Split& sp, cudaStream_t st, double& t_msm, GpuProveTimings& t,
                                 const GpuProveOptions& opt) {
    using Jac = math::Jacobian<C>;
    using Aff = AffineT<std::conditional_t<std::is_same_v<C, math::G1Curve>, Fp, Fp2>>;
    Jac acc = Jac::identity();
    if (!sp.split) {
      const MsmConfig cfg = chunk_cfg(ring.chunk, opt);
      for_each_chunk(ring, q, sp.n, st, t, [&](Msm<C>& buf, std::size_t off, std::size_t len) {
        const double t0 = now_ms();
        acc = acc + buf.msm_device(s + off, len, cfg, st);
        t_msm += now_ms() - t0;
      });
      if (opt.memory_limit)
        for (auto& b : ring.buf) b->release_workspace();
      return acc;
    }
    // The tail positions of chunk j are tail_idx[first[j] .. first[j + 1]) (tail_idx is ascending).
    const std::size_t chunks = (sp.n + ring.chunk - 1) / ring.chunk;
    std::vector<u32> first(chunks + 1, 0);
    if (sp.tail) {
      chunk_first.resize_discard((chunks + 1) * 4);
      chunk_first_tail_kernel<<<grid_for(chunks + 1, 128), 128, 0, st>>>(
          ptr<const u32>(tail_idx), u32(sp.tail), ring.chunk, u32(chunks), ptr<u32>(chunk_first));
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
      if (sp.ones) acc = acc + buf.sum_selected(static_cast<const u64*>(bitmap.get()) + off / 64, len, st, tuning.msm);
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
      acc = acc + scratch->msm_device(tail_s.get(), sp.tail, msm_cfg(), st);
      t_msm += now_ms() - t0;
    }
    return acc;
  }

  // `sh`: the shape on the device; or, null, `host` and the rows evaluated on the host (upload_rows).
  PendingProof prove(GpuKey::Impl& k, const GpuShape::Impl* sh, const groth16::R1csShape* host, const WitnessIn& w,
                     const GpuProveOptions& opt, GpuProveTimings& t) {
    const bool profile = opt.profile;
    const bool host_rows = sh == nullptr;
    const bool overlap = opt.overlap && !profile;
    const int log = int(k.log_m);
    const std::size_t m = std::size_t(1) << log;
    const std::size_t nvars = w.num_variables();
    // The fixed buffers: the witness and the rows a, b, c (bellperson's H needs no fourth vector:
    // h_quotient.cuh), 128 bytes a domain element (17.2 GB at 2^27); with host rows a and b only
    // (proof_memory.hpp). d_q, the gathered A and B scalars, comes at the A query, after H's
    // transforms, when the dead rows can make room for it.
    if (host_rows) {  // what a device-rows proof before left
      d_c = DeviceBuffer();
      d_tmp = DeviceBuffer();
    }
    d_w.resize_discard(std::max<std::size_t>(nvars, 1) * sizeof(Fr));
    d_a.resize_discard(m * sizeof(Fr));
    ensure_domain(log, m, d_a, ntt_tuning(opt));
    d_b.resize_discard(m * sizeof(Fr));
    if (!host_rows) d_c.resize_discard(m * sizeof(Fr));
    if (!host_rows && k.basis == HBasis::kOddCosetLagrange) d_tmp.resize_discard(m * sizeof(Fr));
    t = GpuProveTimings{};
    t.rows_on_host = host_rows;
    cancel_fn = &opt.cancelled;
    struct Reset {
      const std::function<bool()>*& f;
      ~Reset() { f = nullptr; }
    } reset_cancel{cancel_fn};
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
      if (host_rows) {  // memory is short: the compact form's buffers (a dense witness's values: 4 GB at 2^27) go
        CUZK_CUDA(cudaStreamSynchronize(s0));
        for (DeviceBuffer* cb : {&cw_binary, &cw_bits, &cw_values, &cw_counts, &cw_offsets, &cw_scan_tmp})
          *cb = DeviceBuffer();
      }
    } else {
      upload_host(w.dense.data(), nvars * sizeof(Fr), dw);
      t.upload_bytes = nvars * sizeof(Fr);
    }
    CUZK_CUDA(cudaEventRecord(ev_w, s0));
    note_memory(t);
    lap(t.upload_ms, s0);
    check_cancel();

    // 2. rows (host rows: in step 3, a matrix at a time)
    Fr *a = ptr<Fr>(d_a), *b = ptr<Fr>(d_b), *c = host_rows ? nullptr : ptr<Fr>(d_c);
    Fr* tmp = !host_rows && k.basis == HBasis::kOddCosetLagrange ? ptr<Fr>(d_tmp) : nullptr;
    // Long rows in pieces unless ProverTuning::long_rows_in_pieces is off (one thread per row, for comparison).
    const bool pieces = tuning.prover.long_rows_in_pieces;
    if (!host_rows) {
      eval_rows_kernel<<<grid_for(m, 128), 128, 0, s0>>>(
          sh->a.view(), sh->b.view(), sh->c.view(), pieces ? kLongRowWords : ~0u, sh->has_c, dw, sh->rows, m, a, b, c);
      CUZK_CUDA_LAUNCH();
    }
    if (!host_rows && pieces) {
      const GpuShape::Impl& sh_ = *sh;
      d_pieces.resize_discard(std::max({sh_.a.pieces, sh_.b.pieces, sh_.c.pieces, 1u}) * sizeof(Fr));
      Fr* partial = ptr<Fr>(d_pieces);
      eval_long_rows(sh_.a, dw, a, partial, s0);
      eval_long_rows(sh_.b, dw, b, partial, s0);
      if (sh_.has_c) {
        eval_long_rows(sh_.c, dw, c, partial, s0);
      } else {
        for (const DevCsr* mat : {&sh_.a, &sh_.b}) {
          if (mat->num_long == 0) continue;
          long_rows_product_kernel<<<grid_for(mat->num_long, 128), 128, 0, s0>>>(ptr<const u32>(mat->long_rows),
                                                                                 mat->num_long, a, b, c);
          CUZK_CUDA_LAUNCH();
        }
      }
    }
    lap(t.eval_ms, s0);
    check_cancel();

    // 3. H scalars (h_quotient.cuh)
    const Fr* h_scalars = nullptr;
    if (host_rows) {
      const groth16::AssignmentView view =
          w.compact ? groth16::AssignmentView(*w.compact) : groth16::AssignmentView(w.dense);
      const groth16::CsrMatrix* mats[3] = {&host->a, &host->b, &host->c};
      const double t_rows = now_ms();
      h_scalars = compute_h_scalars_two_rows(*dom, k, a, b, log, m, s0, [&](int i, Fr* dev) {
        check_cancel();
        upload_rows(*mats[i], view, m, dev);
      });
      t.eval_ms = now_ms() - t_rows;  // the host's evaluations (the transforms of the rows before overlap them)
    } else {
      h_scalars = compute_h_scalars(*dom, k, a, b, c, tmp, log, m, s0);
    }
    CUZK_CUDA(cudaEventRecord(ev_ntt, s0));
    {
      std::lock_guard<std::mutex> lk(rows_mu);
      rows_keep = h_scalars;  // the other three rows may now be freed (free_dead_rows)
      rows_freed = 0;
    }
    struct KeepRows {  // however prove() ends, a later proof's rows are not freed by this one's state
      Impl& self;
      ~KeepRows() {
        std::lock_guard<std::mutex> lk(self.rows_mu);
        self.rows_keep = nullptr;
      }
    } keep_rows{*this};
    note_memory(t);
    lap(t.ntt_ms, s0);
    if (host_rows && profile) t.ntt_ms -= std::min(t.ntt_ms, t.eval_ms);
    check_cancel();

    // 4. witness MSMs (second stream when overlapping)
    // With a resident key they start after the NTTs, on a stream as urgent as s0: they then share the
    // SMs with H's digit sort and accumulation instead of the NTT passes (2^27 partition 1,059.7-1,061.7
    // -> 1,056.1-1,057.7 ms, two runs each, order B A B A; RESULTS_gpu.md "Tuning data behind the defaults"). A
    // streamed key's witness queries keep starting right after the upload: theirs are bus-bound and overlap the NTTs.
    // ProverTuning::witness_after_ntt turns it off.
    const bool after_ntt = tuning.prover.witness_after_ntt;
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
    // A resident key's H too, unless ProverTuning::h_thread is off: its MSM is then queued right behind
    // the NTTs instead of behind the witness queries' host waits.
    GpuProveTimings th;                   // the H thread's counters
    std::unique_ptr<MsmG1> h_no_scratch;  // H has no 0/1 split, so no tail
    Split h_all;                          // H: every scalar, no split
    h_all.n = k.h_n;
    std::future<math::G1Jacobian> h_async;
    const bool h_thread_resident = tuning.prover.h_thread;
    const bool h_thread = (k.streamed() || h_thread_resident) && overlap && k.h_n;
    if (h_thread) {
      int dev = 0;
      CUZK_CUDA(cudaGetDevice(&dev));
      h_async = std::async(std::launch::async, [&, dev] {
        CUZK_CUDA(cudaSetDevice(dev));  // the device is per host thread
        if (k.streamed()) return run_streamed(*k.ring_h, k.h, h_no_scratch, h_scalars, h_all, s0, th.msm_h_ms, th, opt);
        const double t0 = now_ms();
        const math::G1Jacobian r = full_msm(*k.h.dev, h_scalars, k.h_n, s0, opt, th);
        th.msm_h_ms = now_ms() - t0;
        return r;
      });
    }
    const double max_tail = opt.split_max_tail;
    // One witness query's sum from its classified scalars, through the key's ring (a streamed key;
    // `ring` is its unique_ptr, null for a resident key) or its resident bases.
    auto query_sum = [&](auto& q, auto& ring, auto& scratch, const Fr* s, const Split& sp, double& t_msm) {
      return k.streamed() ? run_streamed(*ring, q, scratch, s, sp, ms, t_msm, t, opt)
                          : run_query(*q.dev, scratch, s, sp, ms, opt, t_msm, t);
    };
    double tq = now_ms();
    {  // L over the aux part of the witness
      const Fr* s = dw + k.num_inputs;
      const Split sp = classify_query(s, k.l_n, max_tail, ms, profile, tq, t, t.l);
      p.l_acc = query_sum(k.l, k.ring_g1, scratch1, s, sp, t.msm_l_ms);
      note_memory(t);
    }
    tq = now_ms();
    {  // A
      const std::size_t q_bytes = std::max<std::size_t>({k.a_n, k.b_n, 1}) * sizeof(Fr);
      if (d_q.size() < q_bytes) {
        if (room(opt) < q_bytes + (std::size_t(1) << 30)) free_dead_rows();
        d_q.resize_discard(q_bytes);
      }
      gather_scalars_kernel<<<grid_for(k.a_n, 256), 256, 0, ms>>>(ptr<const u32>(k.a_map), dw, k.a_n, ptr<Fr>(d_q));
      CUZK_CUDA_LAUNCH();
      const Fr* s = ptr<Fr>(d_q);
      const Split sp = classify_query(s, k.a_n, max_tail, ms, profile, tq, t, t.a);
      p.a_acc = query_sum(k.a, k.ring_g1, scratch1, s, sp, t.msm_a_ms);
      note_memory(t);
    }
    tq = now_ms();
    {  // B in G1 and G2 share one classification
      gather_scalars_kernel<<<grid_for(k.b_n, 256), 256, 0, ms>>>(ptr<const u32>(k.b_map), dw, k.b_n, ptr<Fr>(d_q));
      CUZK_CUDA_LAUNCH();
      const Fr* s = ptr<Fr>(d_q);
      const Split sp = classify_query(s, k.b_n, max_tail, ms, profile, tq, t, t.b);
      p.b1_acc = query_sum(k.b1, k.ring_g1, scratch1, s, sp, t.msm_b1_ms);
      note_memory(t);
      p.b2_acc = query_sum(k.b2, k.ring_g2, scratch2, s, sp, t.msm_b2_ms);
      note_memory(t);
    }

    // 5. H
    tq = now_ms();
    if (h_thread) {
      p.h_acc = h_async.get();
      t.key_stream_bytes += th.key_stream_bytes;
      t.msm_h_ms = th.msm_h_ms;  // its chunks' MSM time, concurrent with the witness queries
      t.msm_pieces = std::max(t.msm_pieces, th.msm_pieces);
      t.msm_piece_retries += th.msm_piece_retries;
    } else {
      double h_unused = 0;
      p.h_acc = !k.h_n         ? math::G1Jacobian::identity()
                : k.streamed() ? run_streamed(*k.ring_h, k.h, h_no_scratch, h_scalars, h_all, s0, h_unused, t, opt)
                               : full_msm(*k.h.dev, h_scalars, k.h_n, s0, opt, t);
      t.msm_h_ms = now_ms() - tq;
    }
    note_memory(t);
    sync(s0);
    sync(s1x);
    t.rows_freed_bytes = rows_freed;
    t.total_ms = now_ms() - t_start;
    return p;
  }
};

GpuProver::GpuProver(const GpuTuning& tuning, StreamRank rank) : impl_(std::make_unique<Impl>(tuning, rank)) {}
void GpuProver::set_tuning(const GpuTuning& tuning) {
  impl_->tuning.msm = tuning.msm;
  impl_->tuning.prover.long_rows_in_pieces = tuning.prover.long_rows_in_pieces;
  impl_->tuning.prover.witness_after_ntt = tuning.prover.witness_after_ntt;
  impl_->tuning.prover.h_thread = tuning.prover.h_thread;
  impl_->tuning.ntt = tuning.ntt;
  if (impl_->dom) impl_->dom->set_tuning(tuning.ntt);
}
GpuProver::~GpuProver() = default;
void GpuProver::release_workspace() { impl_->release(); }
std::size_t GpuProver::device_bytes() const { return impl_->bytes(); }

namespace {

// Checks sizes, proves, and on an out-of-memory gives the MSM workspaces back and tries once more.
// The shape is `sh` on the device, or `host` with the rows evaluated on the host.
Result<PendingProof> run_prover(GpuProver::Impl& impl, GpuKey& key, GpuKey::Impl& k, const GpuShape::Impl* sh,
                                const groth16::R1csShape* host, const WitnessIn& w, const GpuProveOptions& opt,
                                GpuProveTimings* timings) {
  const std::uint32_t inputs = sh ? sh->num_inputs : host->num_inputs, aux = sh ? sh->num_aux : host->num_aux;
  const std::uint64_t rows = sh ? sh->rows : host->num_constraints();
  if (inputs != k.num_inputs || aux != k.num_aux)
    return Error{"GPU prover: the proving key does not belong to this circuit (variable counts differ)"};
  if (rows > (std::uint64_t(1) << k.log_m))
    return Error{"GPU prover: the proving key does not belong to this circuit (rows exceed its domain)"};
  if (!sh && (k.basis != HBasis::kMonomialOverZ || !host->has_c || host->b.rows() != rows || host->c.rows() != rows))
    return Error{"GPU prover: rows on the host need the bellperson layout and a shape with A, B and C"};
  if (w.num_variables() != std::size_t(k.num_inputs) + k.num_aux)
    return Error{"GPU prover: witness has " + std::to_string(w.num_variables()) + " values, the circuit has " +
                 std::to_string(std::size_t(k.num_inputs) + k.num_aux) + " variables"};
  if (w.compact) {
    if (w.compact->inputs.size() != k.num_inputs)
      return Error{"GPU prover: witness has " + std::to_string(w.compact->inputs.size()) + " inputs, the circuit has " +
                   std::to_string(k.num_inputs)};
    if (auto st = w.compact->check(); !st) return Error{"GPU prover: " + st.error()};
  }
  GpuProveTimings local;
  GpuProveTimings& t = timings ? *timings : local;
  for (int attempt = 0;; ++attempt) {
    try {
      return impl.prove(k, sh, host, w, opt, t);
    } catch (const GpuProver::Impl::Cancelled&) {
      cudaDeviceSynchronize();  // the work already queued ends before its buffers can be reused
      cudaGetLastError();
      return Error{"cancelled"};
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
  return run_prover(*impl_, key, *key.impl_, shape.impl_.get(), nullptr, WitnessIn{w, nullptr}, opt, timings);
}

Result<PendingProof> GpuProver::start(GpuKey& key, const GpuShape& shape, const groth16::CompactAssignment& w,
                                      const GpuProveOptions& opt, GpuProveTimings* timings) {
  return run_prover(*impl_, key, *key.impl_, shape.impl_.get(), nullptr, WitnessIn{{}, &w}, opt, timings);
}

Result<PendingProof> GpuProver::start_host_rows(GpuKey& key, const groth16::R1csShape& shape, std::span<const HostFr> w,
                                                const GpuProveOptions& opt, GpuProveTimings* timings) {
  return run_prover(*impl_, key, *key.impl_, nullptr, &shape, WitnessIn{w, nullptr}, opt, timings);
}

Result<PendingProof> GpuProver::start_host_rows(GpuKey& key, const groth16::R1csShape& shape,
                                                const groth16::CompactAssignment& w, const GpuProveOptions& opt,
                                                GpuProveTimings* timings) {
  return run_prover(*impl_, key, *key.impl_, nullptr, &shape, WitnessIn{{}, &w}, opt, timings);
}

}  // namespace cuzk::gpu
