// Pippenger MSM in G1 and G2 on the GPU (one set of kernels templated over the base field).
// Private to cuzk_gpu: msm_g1.cu and msm_g2.cu each instantiate one curve (two translation units
// that compile in parallel; G2 alone takes several minutes).
//
// 1. digits:     one thread per scalar: Montgomery -> canonical; scalars above (r-1)/2 become r - k
//                with the point negated; one signed digit per window (WindowLayout: ceil(255/c)
//                windows of c bits, or for G1 a count of windows of c and c + 1 bits covering 255),
//                in [-2^(width-1), 2^(width-1)]; per window a key |digit| (the bucket) and a value
//                (point index | sign << 31). Zero digits are counted per window and skipped from then on.
//                With shifted copies of the bases (Msm::add_shifted_copies, CopyPlan), copy k's windows
//                take the scalar's bits from k * shift on and share the buckets of copy 0's windows.
// 2. sort:       per window, CUB radix sort of (key, value) on the window's width, from slot w + 1 of
//                nwin + 1 rotating slots into slot w.
// 3. accumulate: the sorted nonzero entries of each window are cut into segments of L entries, one
//                thread each, added with mixed XYZZ additions; a bucket run wholly inside a segment
//                is stored straight into its bucket, a run touching a segment end becomes a partial
//                sum in a list of 2 slots per segment (key, XYZZ), which is still sorted by key. The
//                same step on that list (full XYZZ additions, segments of L2) repeats until one
//                segment remains. Work per thread is bounded by L whatever the digit distribution:
//                all-equal scalars give one huge bucket that is summed as a tree.
//                G2 (and G1 with MsmTuning::affine_log) from 2^20 scalars instead: digits, sort and
//                batch-affine rounds by groups of windows (msm_affine.cuh), one point per bucket.
// 4. reduce:     per window, sum_b b * B_b by chunks of K buckets (running sums), the chunks' plain
//                sums reduced again the same way (their offsets), then tree sums of the chunk results.
// 5. host:       Horner over the window sums (width doublings each) in host Jacobian coordinates.
//
// Files: msm_layout.cuh (windows, copies, per-curve constants), msm_digits.cuh (1), msm_accumulate.cuh
// (3, XYZZ path and the 0/1 path), msm_affine.cuh (3, batch-affine path), msm_reduce.cuh (4); this
// file holds Msm<C>::Impl, which plans and launches them, and the Msm<C> API. Tuning: MsmTuning
// (gpu/tuning.hpp), passed in MsmConfig, never read from the environment here.
#pragma once

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "gpu/cuda_util.cuh"
#include "gpu/gpu.hpp"
#include "gpu/msm_accumulate.cuh"
#include "gpu/msm_affine.cuh"
#include "gpu/msm_digits.cuh"
#include "gpu/msm_layout.cuh"
#include "gpu/msm_reduce.cuh"

namespace cuzk::gpu {

void upload_host_bases(G1Affine* d_out, const math::G1Affine* host, std::size_t n);  // common.cu
void upload_host_bases(G2Affine* d_out, const math::G2Affine* host, std::size_t n);
// upload_bases_by_piece: groth16_device.cuh

namespace {

// Lap timer of the affine rounds' phases (MsmTuning::aff_profile); does nothing otherwise.
struct PhaseClock {
  float* sums;
  cudaStream_t st;
  cudaEvent_t a = nullptr, b = nullptr;
  PhaseClock(float* s, cudaStream_t stream, bool on) : sums(s), st(stream) {
    if (!on) return;
    CUZK_CUDA(cudaEventCreate(&a));
    CUZK_CUDA(cudaEventCreate(&b));
    CUZK_CUDA(cudaEventRecord(a, st));
  }
  void lap(int i) {
    if (!a) return;
    CUZK_CUDA(cudaEventRecord(b, st));
    CUZK_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    CUZK_CUDA(cudaEventElapsedTime(&ms, a, b));
    sums[i] += ms;
    std::swap(a, b);
  }
  ~PhaseClock() {
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
  }
};

float elapsed(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CUZK_CUDA(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

}  // namespace

template <class C>
struct Msm<C>::Impl {
  using F = typename DevCurve<C>::F;
  using Aff = AffineT<F>;
  using Xyzz = XyzzT<F>;
  using HostXyzz = math::Xyzz<C>;
  static_assert(sizeof(Xyzz) == sizeof(HostXyzz), "host/device XYZZ layout");

  std::size_t n = 0;
  DeviceBuffer bases;  // copies * n points: copy k holds 2^(k * copy_shift) P_i (CopyPlan)
  int copies = 1, copy_shift = kScalarBits;
  std::size_t base_off = 0;  // the running MSM's first base (msm_device_range: a query in pieces)
  // workspace (grow-only)
  DeviceBuffer keys_in, vals_in, keys_out, vals_out, cub_tmp, zero_counts, buckets, lvl_keys[2], lvl_pts[2],
      lvl_counts[2], partial[2], result, red_sums;
  // batch-affine path (msm_affine.cuh): per-bucket offsets/counts and the lists of two rounds,
  // the inversion levels, and small counters (list lengths per round, the largest bucket)
  DeviceBuffer aff_off[2], aff_cnt[2], aff_keys[2], aff_pts[2], aff_refs, aff_inv, aff_misc;
  // MsmTuning::aff_profile: time of the affine rounds' phases (plan, forward, inverse, backward),
  // summed per MSM and printed to stderr; waits after every phase, so for profiling only
  float phase_ms[4] = {};
  MsmProfile prof;
  cudaEvent_t ev[8] = {};
  MsmTuning tuning;  // the running MSM's (MsmConfig::tuning), set by run()

  Impl() {
    for (auto& e : ev) CUZK_CUDA(cudaEventCreate(&e));
  }
  // Every workspace buffer (not the bases), for release_workspace and workspace_bytes.
  std::vector<DeviceBuffer*> workspace() {
    return {&keys_in,     &vals_in,     &keys_out,   &vals_out,   &cub_tmp,       &zero_counts,   &buckets,
            &lvl_keys[0], &lvl_keys[1], &lvl_pts[0], &lvl_pts[1], &lvl_counts[0], &lvl_counts[1], &partial[0],
            &partial[1],  &result,      &aff_off[0], &aff_off[1], &aff_cnt[0],    &aff_cnt[1],    &aff_keys[0],
            &aff_keys[1], &aff_pts[0],  &aff_pts[1], &aff_refs,   &aff_inv,       &aff_misc,      &red_sums};
  }
  ~Impl() {
    for (auto& e : ev)
      if (e) cudaEventDestroy(e);
  }

  static HostXyzz to_host(const Xyzz& d) {
    HostXyzz h;
    std::memcpy(static_cast<void*>(&h), &d, sizeof(h));
    return h;
  }

  // Sum of `count` XYZZ points per window (stride in_stride) -> host points, one per window.
  void reduce_windows(const Xyzz* in, u32 count, u32 in_stride, int nwin, std::vector<HostXyzz>& out, cudaStream_t st) {
    const Xyzz* cur = in;
    u32 cur_count = count, cur_stride = in_stride;
    int which = 0;
    while (true) {
      u32 blocks = std::max<u32>(1, std::min<u32>((cur_count + 8 * kReduceThreads - 1) / (8 * kReduceThreads), 1024));
      if (cur_count <= 4 * kReduceThreads) blocks = 1;
      partial[which].resize_discard(std::size_t(nwin) * blocks * sizeof(Xyzz));
      Xyzz* o = static_cast<Xyzz*>(partial[which].get());
      sum_kernel<F><<<dim3(blocks, nwin), kReduceThreads, 0, st>>>(cur, cur_count, cur_stride, o);
      CUZK_CUDA_LAUNCH();
      cur = o;
      cur_count = blocks;
      cur_stride = blocks;
      which ^= 1;
      if (blocks == 1) break;
    }
    std::vector<Xyzz> h(nwin);
    CUZK_CUDA(cudaMemcpyAsync(h.data(), cur, nwin * sizeof(Xyzz), cudaMemcpyDeviceToHost, st));
    CUZK_CUDA(cudaStreamSynchronize(st));
    out.resize(nwin);
    for (int w = 0; w < nwin; ++w) out[w] = to_host(h[w]);
  }

  // Msm::add_shifted_copies: copy k from copy k - 1 by `shift` doublings, in chunks (XYZZ scratch of
  // 192 bytes per point), each chunk's ZZZ inverted in one batch.
  void add_copies(int K) {
    if constexpr (!std::is_same_v<F, Fp>) {  // for G2 the else branch is discarded, never compiled
      throw std::invalid_argument("Msm: shifted copies are for G1 only");
    } else {
      if (K < 1 || K > 8) throw std::invalid_argument("Msm: copies must be in [1, 8]");
      if (K == copies) return;
      if (n * std::size_t(K) >= (std::size_t(1) << 31)) throw std::invalid_argument("Msm: copies * bases >= 2^31");
      const int shift = K > 1 ? g1_copy_shift(n, K) : kScalarBits;
      DeviceBuffer next(std::max<std::size_t>(1, n * K) * sizeof(Aff));
      cudaStream_t st = nullptr;
      if (n) CUZK_CUDA(cudaMemcpyAsync(next.get(), bases.get(), n * sizeof(Aff), cudaMemcpyDeviceToDevice, st));
      const std::size_t chunk = std::min<std::size_t>(std::max<std::size_t>(n, 1), std::size_t(1) << 22);
      if (K > 1) {
        DeviceBuffer tmp(chunk * sizeof(Xyzz)), zzz(chunk * sizeof(F));
        Aff* dst = static_cast<Aff*>(next.get());
        for (int k = 1; k < K; ++k) {
          for (std::size_t off = 0; off < n; off += chunk) {
            const u32 len = u32(std::min(chunk, n - off));
            shift_points_kernel<F><<<grid_for(len, 128), 128, 0, st>>>(
                dst + (k - 1) * n + off, len, shift, static_cast<Xyzz*>(tmp.get()), static_cast<F*>(zzz.get()));
            CUZK_CUDA_LAUNCH();
            invert_in_place(static_cast<F*>(zzz.get()), len, st);
            xyzz_to_affine_kernel<F><<<grid_for(len, 128), 128, 0, st>>>(
                static_cast<const Xyzz*>(tmp.get()), static_cast<const F*>(zzz.get()), len, dst + k * n + off);
            CUZK_CUDA_LAUNCH();
          }
        }
      }
      CUZK_CUDA(cudaStreamSynchronize(st));
      aff_inv = DeviceBuffer();  // the inversion's scratch
      bases = std::move(next);
      copies = K;
      copy_shift = shift;
    }
  }

  // Inverts the n values at `vals` in place (nonzero), by levels of kInvGroup (msm_affine.cuh).
  void invert_in_place(F* vals, u32 n, cudaStream_t st) {
    std::vector<u32> sizes{n};
    while (sizes.back() > 1) sizes.push_back((sizes.back() + kInvGroup - 1) / kInvGroup);
    std::size_t words = 0;  // per level >= 1: values; per level: prefix products
    for (std::size_t l = 0; l < sizes.size(); ++l) words += (l > 0 ? sizes[l] : 0) + sizes[l];
    aff_inv.resize_discard(std::max<std::size_t>(words, 1) * sizeof(F));
    std::vector<F*> v{vals}, pre;
    F* next = static_cast<F*>(aff_inv.get());
    for (std::size_t l = 0; l < sizes.size(); ++l) {
      pre.push_back(next);
      next += sizes[l];
      if (l + 1 < sizes.size()) {
        v.push_back(next);
        next += sizes[l + 1];
      }
    }
    const std::size_t top = sizes.size() - 1;
    for (std::size_t l = 0; l < top; ++l)
      product_forward_kernel<F><<<grid_for(sizes[l + 1], 128), 128, 0, st>>>(v[l], pre[l], sizes[l], v[l + 1]);
    invert_one_kernel<F><<<1, 1, 0, st>>>(v[top]);
    for (std::size_t l = top; l-- > 0;)
      product_backward_kernel<F><<<grid_for(sizes[l + 1], 128), 128, 0, st>>>(v[l], pre[l], sizes[l], v[l + 1]);
    CUZK_CUDA_LAUNCH();
  }

  // One round: input list (its length at len[0], at most in_bound) -> output list (length at len[1],
  // at most out_bound).
  template <bool kFromBases>
  void pair_round(PairSource<F, kFromBases> src, RoundKeys keys, const u32* len, u32 in_bound, const u32* off,
                  const u32* cnt, const u32* off_next, u32 out_bound, u32* keys_next, Aff* pts_next, cudaStream_t st) {
    PhaseClock clock(phase_ms, st, tuning.aff_profile);
    uint2* refs = static_cast<uint2*>(aff_refs.get());
    pair_plan_kernel<F, kFromBases>
        <<<grid_for(in_bound, 256), 256, 0, st>>>(src, keys, len, off, cnt, off_next, keys_next, refs, pts_next);
    CUZK_CUDA_LAUNCH();
    clock.lap(0);
    const u32 per = u32(std::max(1, tuning.aff_per));  // output slots per thread (tuning)
    const u32 nthreads = std::max<u32>(1, (out_bound + per - 1) / per);
    result.resize_discard(std::size_t(nthreads) * sizeof(F));
    F* totals = static_cast<F*>(result.get());
    const dim3 grid(grid_for(nthreads, 128));
    constexpr int kMinB = DevCurve<C>::kOcc;
    pair_forward_kernel<F, kFromBases, kMinB>
        <<<grid, 128, 0, st>>>(src, len + 1, refs, per, nthreads, pts_next, totals);
    CUZK_CUDA_LAUNCH();
    clock.lap(1);
    invert_in_place(totals, nthreads, st);
    clock.lap(2);
    pair_backward_kernel<F, kFromBases, kMinB>
        <<<grid, 128, 0, st>>>(src, len + 1, refs, per, nthreads, pts_next, totals);
    CUZK_CUDA_LAUNCH();
    clock.lap(3);
  }

  // Batch-affine accumulation (msm_affine.cuh) by groups of g windows (digits, sorts, rounds, buckets):
  // the workspace is g windows' sort plus two lists (about 0.75 g N points) instead of every window's
  // digits, and each round's inversion serves the whole group.
  void accumulate_affine(const Fr* d_scalars, u32 N, int c, Xyzz* bk, bool timing, cudaStream_t st) {
    const int nwin = num_windows(c);   // c bits each (WindowLayout::uniform)
    const u32 nb = u32(1) << (c - 1);  // buckets per window
    // windows per group: g N <= 2^group_log entries (MsmTuning::aff_group_log overrides), positions < 2^31
    const int group_log = std::clamp(tuning.aff_group_log.value_or(DevCurve<C>::kGroupLog), 1, 30);
    const int g = int(std::clamp<u64>((u64(1) << group_log) / N, 1, u64(nwin)));
    const u32 GN = u32(g) * N, GB = u32(g) * nb;
    keys_in.resize_discard(std::size_t(GN) * 4);
    vals_in.resize_discard(std::size_t(GN) * 4);
    keys_out.resize_discard(std::size_t(GN) * 4);
    vals_out.resize_discard(std::size_t(GN) * 4);
    u32* kin = static_cast<u32*>(keys_in.get());
    u32* vin = static_cast<u32*>(vals_in.get());
    u32* kout = static_cast<u32*>(keys_out.get());
    u32* vout = static_cast<u32*>(vals_out.get());
    u32* zc = static_cast<u32*>(zero_counts.get());
    // list length bounds per round: a round at most halves the entries plus one per nonempty bucket
    std::vector<u32> bound{GN};
    while (bound.size() < 40) {
      const u32 m = bound.back();
      bound.push_back(u32((std::size_t(m) + std::min(m, GB) + 1) / 2));
    }
    for (int i = 0; i < 2; ++i) {
      aff_off[i].resize_discard(std::size_t(GB) * 4);
      aff_cnt[i].resize_discard(std::size_t(GB) * 4);
      aff_keys[i].resize_discard(std::size_t(bound[i + 1]) * 4);
      aff_pts[i].resize_discard(std::size_t(bound[i + 1]) * sizeof(Aff));
    }
    aff_refs.resize_discard(std::size_t(bound[1]) * sizeof(uint2));
    aff_misc.resize_discard(64 * 4);
    u32* len = static_cast<u32*>(aff_misc.get());  // len[r]: list length of round r; len[63]: largest bucket
    auto OFF = [&](int i) { return static_cast<u32*>(aff_off[i & 1].get()); };
    auto CNT = [&](int i) { return static_cast<u32*>(aff_cnt[i & 1].get()); };
    auto LKEYS = [&](int i) { return static_cast<u32*>(aff_keys[i & 1].get()); };
    auto LPTS = [&](int i) { return static_cast<Aff*>(aff_pts[i & 1].get()); };
    const Aff* pb = static_cast<const Aff*>(bases.get()) + base_off;
    std::size_t scan_bytes = 0;
    CUZK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, CNT(0), OFF(0), int(GB), st));
    std::size_t sort_bytes = 0;
    CUZK_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, kin, kout, vin, vout, int(N), 0, c, st));
    cub_tmp.resize_discard(std::max<std::size_t>({sort_bytes, scan_bytes, 16}));

    for (int w0 = 0; w0 < nwin; w0 += g) {
      const int gw = std::min(g, nwin - w0);
      const u32 n = u32(gw) * N, nbk = u32(gw) * nb;  // this group's entries and buckets
      if (timing) CUZK_CUDA(cudaEventRecord(ev[5], st));
      digits_kernel<<<grid_for(N, 256), 256, 0, st>>>(d_scalars, N, WindowLayout::uniform(c), w0, w0 + gw, CopyPlan{},
                                                      kin, vin, zc);
      CUZK_CUDA_LAUNCH();
      if (timing) CUZK_CUDA(cudaEventRecord(ev[6], st));
      for (int i = 0; i < gw; ++i) {
        std::size_t tb = cub_tmp.size();
        const std::size_t o = std::size_t(i) * N;
        CUZK_CUDA(
            cub::DeviceRadixSort::SortPairs(cub_tmp.get(), tb, kin + o, kout + o, vin + o, vout + o, int(N), 0, c, st));
      }
      if (timing) CUZK_CUDA(cudaEventRecord(ev[7], st));

      const RoundKeys keys0{kout, N, nb};
      CUZK_CUDA(cudaMemsetAsync(OFF(0), 0, std::size_t(nbk) * 4, st));
      CUZK_CUDA(cudaMemsetAsync(CNT(0), 0, std::size_t(nbk) * 4, st));
      CUZK_CUDA(cudaMemsetAsync(len, 0, 64 * 4, st));
      run_bounds_kernel<<<grid_for(n, 256), 256, 0, st>>>(keys0, n, OFF(0), CNT(0));
      run_counts_kernel<<<grid_for(nbk, 256), 256, 0, st>>>(OFF(0), CNT(0), nbk, len + 63, n, len);
      CUZK_CUDA_LAUNCH();
      u32 largest = 0;  // the number of rounds depends on it: one wait per group
      CUZK_CUDA(cudaMemcpyAsync(&largest, len + 63, 4, cudaMemcpyDeviceToHost, st));
      CUZK_CUDA(cudaStreamSynchronize(st));
      int rounds = 0;
      while ((u64(1) << rounds) < largest) ++rounds;

      for (int r = 0; r < rounds; ++r) {
        halve_counts_kernel<<<grid_for(nbk, 256), 256, 0, st>>>(CNT(r), CNT(r + 1), nbk);
        std::size_t sb = cub_tmp.size();
        CUZK_CUDA(cub::DeviceScan::ExclusiveSum(cub_tmp.get(), sb, CNT(r + 1), OFF(r + 1), int(nbk), st));
        list_len_kernel<<<1, 1, 0, st>>>(OFF(r + 1), CNT(r + 1), nbk, len + r + 1);
        CUZK_CUDA_LAUNCH();
        if (r == 0)
          pair_round<true>(PairSource<F, true>{pb, vout}, keys0, len, n, OFF(0), CNT(0), OFF(1), bound[1], LKEYS(0),
                           LPTS(0), st);
        else
          pair_round<false>(PairSource<F, false>{LPTS(r - 1), nullptr}, RoundKeys{LKEYS(r - 1), 0, nb}, len + r,
                            bound[r], OFF(r), CNT(r), OFF(r + 1), bound[r + 1], LKEYS(r), LPTS(r), st);
      }
      Xyzz* B = bk + std::size_t(w0) * nb;
      if (rounds == 0)
        scatter_buckets_kernel<F, true>
            <<<grid_for(nbk, 128), 128, 0, st>>>(PairSource<F, true>{pb, vout}, OFF(0), CNT(0), nbk, B);
      else
        scatter_buckets_kernel<F, false><<<grid_for(nbk, 128), 128, 0, st>>>(
            PairSource<F, false>{LPTS(rounds - 1), nullptr}, OFF(rounds), CNT(rounds), nbk, B);
      CUZK_CUDA_LAUNCH();
      if (timing) {
        CUZK_CUDA(cudaEventRecord(ev[4], st));
        CUZK_CUDA(cudaEventSynchronize(ev[4]));
        prof.digits_ms += elapsed(ev[5], ev[6]);
        prof.sort_ms += elapsed(ev[6], ev[7]);
        prof.accumulate_ms += elapsed(ev[7], ev[4]);
      }
    }
    if (phase_ms[1] > 0) {
      std::fprintf(stderr,
                   "msm affine phases (n=%u, c=%d, g=%d): plan %.1f forward %.1f inverse %.1f backward %.1f ms\n", N, c,
                   g, phase_ms[0], phase_ms[1], phase_ms[2], phase_ms[3]);
      std::fill(std::begin(phase_ms), std::end(phase_ms), 0.f);
    }
  }

  // Mixed XYZZ accumulation of every window at once (the segment levels of the header comment).
  // With shifted copies each window's list holds plan.copies * n entries (n scalars): N below.
  void accumulate_xyzz(const Fr* d_scalars, u32 n, const WindowLayout& win, const CopyPlan& plan, Xyzz* bk, bool timing,
                       cudaStream_t st) {
    const int nwin = win.nwin;
    const u32 N = u32(plan.copies) * n;
    // nwin + 1 slots of N entries: the digits of window w go to slot w + 1 and its sort writes slot w,
    // which window w - 1's sort has just read (CUB's own alternate buffers are in cub_tmp). Half the
    // memory of separate input and output lists: 14 instead of 26 GB at 2^27.
    const std::size_t slots = std::size_t(nwin + 1) * N;
    keys_in.resize_discard(slots * 4);
    vals_in.resize_discard(slots * 4);
    u32* kout = static_cast<u32*>(keys_in.get());
    u32* vout = static_cast<u32*>(vals_in.get());
    u32* kin = kout + N;
    u32* vin = vout + N;
    u32* zc = static_cast<u32*>(zero_counts.get());

    digits_kernel<<<grid_for(n, 256), 256, 0, st>>>(d_scalars, n, win, 0, nwin, plan, kin, vin, zc);
    CUZK_CUDA_LAUNCH();
    if (timing) CUZK_CUDA(cudaEventRecord(ev[1], st));

    std::size_t tmp_bytes = 0;
    CUZK_CUDA(
        cub::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, kin, kout, vin, vout, int(N), 0, win.max_width(), st));
    cub_tmp.resize_discard(std::max<std::size_t>(tmp_bytes, 16));
    for (int w = 0; w < nwin; ++w) {  // keys are at most 2^(width - 1): width bits
      std::size_t tb = cub_tmp.size();
      CUZK_CUDA(cub::DeviceRadixSort::SortPairs(cub_tmp.get(), tb, kin + std::size_t(w) * N, kout + std::size_t(w) * N,
                                                vin + std::size_t(w) * N, vout + std::size_t(w) * N, int(N), 0,
                                                win.width(w), st));
    }
    if (timing) CUZK_CUDA(cudaEventRecord(ev[2], st));

    // segment length: up to 256, smaller when there is too little work to fill the GPU
    // (tuning overrides: MsmTuning::seg, ::occ; a length below 1 is taken as 1, never a division by 0)
    u32 L = u32(std::max(1, tuning.seg));
    const int occ = tuning.occ.value_or(DevCurve<C>::kOcc);
    while (L > 8 && (std::size_t(nwin) * N) / L < (std::size_t(1) << 17)) L >>= 1;
    u32 stride0 = 2 * ((N + L - 1) / L);
    u32 stride1 = 2 * ((stride0 + kL2 - 1) / kL2);
    const u32 strides[2] = {stride0, std::max<u32>(stride1, 2)};
    for (int i = 0; i < 2; ++i) {
      lvl_keys[i].resize_discard(std::size_t(nwin) * strides[i] * 4);
      lvl_pts[i].resize_discard(std::size_t(nwin) * strides[i] * sizeof(Xyzz));
      lvl_counts[i].resize_discard(256 * 4);
    }
    auto LK = [&](int i) { return static_cast<u32*>(lvl_keys[i].get()); };
    auto LP = [&](int i) { return static_cast<Xyzz*>(lvl_pts[i].get()); };
    auto LC = [&](int i) { return static_cast<u32*>(lvl_counts[i].get()); };

    {
      const u32 segs = (N + L - 1) / L;
      dim3 grid(grid_for(segs, 128), nwin);
      // copy k of base base_off + i is at k * n + base_off + i (CopyPlan's stride is the full n)
      const Aff* pb = static_cast<const Aff*>(bases.get()) + base_off;
      if (occ <= 1) {
        launch_l1<F, 1>(grid, st, pb, kout, vout, N, L, zc, bk, win, LK(0), LP(0), strides[0], LC(0));
      } else if constexpr (std::is_same_v<F, Fp>) {  // G1 only: Fp2 points do not fit in fewer registers
        if (occ == 3) launch_l1<F, 3>(grid, st, pb, kout, vout, N, L, zc, bk, win, LK(0), LP(0), strides[0], LC(0));
        else if (occ >= 4)
          launch_l1<F, 4>(grid, st, pb, kout, vout, N, L, zc, bk, win, LK(0), LP(0), strides[0], LC(0));
        else launch_l1<F, 2>(grid, st, pb, kout, vout, N, L, zc, bk, win, LK(0), LP(0), strides[0], LC(0));
      } else {
        launch_l1<F, 2>(grid, st, pb, kout, vout, N, L, zc, bk, win, LK(0), LP(0), strides[0], LC(0));
      }
      CUZK_CUDA_LAUNCH();
    }
    u32 m = stride0;  // upper bound of every window's list length
    int in = 0;
    while (true) {
      const u32 segs = (m + kL2 - 1) / kL2;
      const u32 out_len = 2 * segs;
      const int out = in ^ 1;
      if (out_len > strides[out]) throw std::logic_error("Msm: level buffer too small");
      dim3 grid(grid_for(segs, 128), nwin);
      accumulate_lk_kernel<F><<<grid, 128, 0, st>>>(LK(in), LP(in), strides[in], LC(in), kL2, bk, win, LK(out), LP(out),
                                                    strides[out], LC(out));
      CUZK_CUDA_LAUNCH();
      if (m <= kL2) break;
      m = out_len;
      in = out;
    }
    if (timing) {
      CUZK_CUDA(cudaEventRecord(ev[3], st));
      CUZK_CUDA(cudaEventSynchronize(ev[3]));
      prof.digits_ms = elapsed(ev[0], ev[1]);
      prof.sort_ms = elapsed(ev[1], ev[2]);
      prof.accumulate_ms = elapsed(ev[2], ev[3]);
    }
  }

  // What run() chooses for `count` scalars under cfg: window bits, accumulation path, windows.
  struct Plan {
    int c = 0;
    bool affine = false;
    CopyPlan copy;
    WindowLayout win;
  };
  Plan plan_for(std::size_t count, const MsmConfig& cfg) const {
    const MsmTuning& tn = cfg.tuning;
    Plan p;
    int c = cfg.window_bits > 0 ? cfg.window_bits : msm_default_window_bits(count);
    // G2: the bucket reduction is relatively dearer (Fp2 register pressure); 17 measured best at 2^23
    // and the windows stay at 15 down to c = 17.
    // Measured on the H200 (2026-11-29): c = 16 beats 17 up to 2^22 (2^21: 76.0 vs 89.5 ms, 3.3M: 114.9 vs
    // 119.0, 2^22: 131.4 vs 144.7). Tuning override of the cap: MsmTuning::g2_cmax.
    if (cfg.window_bits <= 0 && std::is_same_v<F, Fp2>)
      c = std::min(c, tn.g2_cmax.value_or(count <= (std::size_t(1) << 22) ? 16 : 17));
    if (c < 2 || c > 24) throw std::invalid_argument("Msm: window bits must be in [2, 24]");  // <= 128 windows
    // batch-affine accumulation from 2^affine_log scalars (MsmTuning::affine_log overrides; 0 = never)
    const int affine_log = tn.affine_log.value_or(DevCurve<C>::kAffineLog);
    p.c = c;
    p.affine = affine_log > 0 && count >= (u64(1) << affine_log);
    // G1 on the XYZZ path picks mixed window widths by default (tuning override: MsmTuning::mixed);
    // the affine rounds and an explicit window size keep c bits throughout
    const bool mixed = std::is_same_v<F, Fp> && !p.affine && cfg.window_bits <= 0 && tn.mixed;
    // shifted copies serve the mixed layouts (G1, XYZZ, default windows); the other paths use copy 0
    p.copy = mixed ? CopyPlan{copies, copy_shift, u32(n)} : CopyPlan{};
    p.win = mixed ? g1_copy_layout(count, p.copy.copies, p.copy.shift) : WindowLayout::uniform(c);
    return p;
  }

  // run(offset, count): sum over the bases [offset, offset + count) of the scalars at d_scalars.
  Jacobian run(const Fr* d_scalars, std::size_t count, const MsmConfig& cfg, cudaStream_t st, std::size_t offset = 0) {
    if (offset > n || count > n - offset) throw std::invalid_argument("Msm: more scalars than bases");
    if (count >= (std::size_t(1) << 31)) throw std::invalid_argument("Msm: at most 2^31 - 1 scalars");
    prof = MsmProfile{};
    tuning = cfg.tuning;
    base_off = offset;
    if (count == 0) return Jacobian::identity();
    const u32 N = u32(count);
    const Plan pl = plan_for(count, cfg);
    const int c = pl.c;
    const bool affine = pl.affine;
    const CopyPlan plan = pl.copy;
    const WindowLayout win = pl.win;
    const int nwin = win.nwin;
    prof.window_bits = win.c;
    prof.windows = nwin;
    prof.copies = plan.copies;
    const bool timing = cfg.profile;
    if (timing) CUZK_CUDA(cudaEventRecord(ev[0], st));
    zero_counts.resize_discard(256 * 4);
    CUZK_CUDA(cudaMemsetAsync(zero_counts.get(), 0, 256 * 4, st));
    // buckets: all-zero memory is the point at infinity
    const std::size_t bucket_bytes = win.total_buckets() * sizeof(Xyzz);
    buckets.resize_discard(bucket_bytes);
    CUZK_CUDA(cudaMemsetAsync(buckets.get(), 0, bucket_bytes, st));
    Xyzz* bk = static_cast<Xyzz*>(buckets.get());
    if (affine) accumulate_affine(d_scalars, N, c, bk, timing, st);
    else accumulate_xyzz(d_scalars, N, win, plan, bk, timing, st);
    if (timing) CUZK_CUDA(cudaEventRecord(ev[3], st));

    const std::vector<Jacobian> wsum = reduce_buckets(bk, win, st);
    if (timing) {
      CUZK_CUDA(cudaEventRecord(ev[4], st));
      CUZK_CUDA(cudaEventSynchronize(ev[4]));
      prof.reduce_ms = elapsed(ev[3], ev[4]);
      prof.total_ms = elapsed(ev[0], ev[4]);
    }
    // Horner over windows on the host
    Jacobian acc = wsum[nwin - 1];
    for (int w = nwin - 2; w >= 0; --w) {
      for (int i = 0; i < win.width(w); ++i) acc = acc.dbl();
      acc += wsum[w];
    }
    return acc;
  }

  // Device bytes of workspace run() holds after an MSM of `count` scalars under cfg: every buffer it
  // sizes, by the same choices (plan_for); CUB's sort scratch as CUB itself reports it. Used to cut a
  // query into pieces that fit the memory left (GpuProver's dense MSMs), so it errs on the large side.
  std::size_t workspace_for(std::size_t count, const MsmConfig& cfg) const {
    if (count == 0) return 0;
    const Plan pl = plan_for(count, cfg);
    const MsmTuning& tn = cfg.tuning;
    const WindowLayout& win = pl.win;
    const int nwin = win.nwin;
    std::size_t total = 256 * 4 + 64 * 4;  // zero_counts, aff_misc
    total += win.total_buckets() * sizeof(Xyzz);
    auto sort_bytes = [](std::size_t len, int bits) {
      std::size_t b = 0;
      CUZK_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, b, static_cast<const u32*>(nullptr),
                                                static_cast<u32*>(nullptr), static_cast<const u32*>(nullptr),
                                                static_cast<u32*>(nullptr), int(len), 0, bits));
      return b;
    };
    std::size_t result_bytes = 0;
    if (pl.affine) {
      const std::size_t N = count, nb = std::size_t(1) << (pl.c - 1);
      const int group_log = std::clamp(tn.aff_group_log.value_or(DevCurve<C>::kGroupLog), 1, 30);
      const std::size_t g = std::clamp<std::size_t>((std::size_t(1) << group_log) / N, 1, std::size_t(nwin));
      const std::size_t GN = g * N, GB = g * nb;
      const std::size_t b1 = (GN + std::min(GN, GB) + 1) / 2, b2 = (b1 + std::min(b1, GB) + 1) / 2;
      total += 4 * GN * 4;                     // keys and values, in and out
      total += 4 * GB * 4;                     // two rounds' offsets and counts
      total += (b1 + b2) * (4 + sizeof(Aff));  // two rounds' lists
      total += b1 * sizeof(uint2);             // aff_refs
      const std::size_t per = std::size_t(std::max(1, tn.aff_per)), threads = (b1 + per - 1) / per;
      result_bytes = threads * sizeof(F);
      total += 3 * threads * sizeof(F);  // the inversion's levels (aff_inv)
      std::size_t scan = 0;
      CUZK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan, static_cast<u32*>(nullptr), static_cast<u32*>(nullptr),
                                              int(GB)));
      total += std::max({sort_bytes(N, pl.c), scan, std::size_t(16)});
    } else {
      const std::size_t N = std::size_t(pl.copy.copies) * count;
      total += std::size_t(nwin + 1) * N * 8;  // digit keys and values, nwin + 1 slots
      total += std::max<std::size_t>(sort_bytes(N, win.max_width()), 16);
      std::size_t L = std::size_t(std::max(1, tn.seg));
      while (L > 8 && (std::size_t(nwin) * N) / L < (std::size_t(1) << 17)) L >>= 1;
      const std::size_t s0 = 2 * ((N + L - 1) / L), s1 = std::max<std::size_t>(2 * ((s0 + kL2 - 1) / kL2), 2);
      total += std::size_t(nwin) * (s0 + s1) * (4 + sizeof(Xyzz)) + 2 * 256 * 4;
    }
    // the bucket reduction (result is shared with the affine rounds' totals; partial sums are small)
    const std::size_t chunk = std::size_t(std::max(1, tn.red_chunk.value_or(DevCurve<C>::kReduceChunk)));
    const std::size_t r0 = (win.buckets(nwin - 1) + chunk - 1) / chunk;
    total += std::max(result_bytes, 2 * std::size_t(nwin) * r0 * sizeof(Xyzz)) + std::size_t(nwin) * r0 * sizeof(Xyzz);
    total += 2 * std::size_t(nwin) * 1024 * sizeof(Xyzz);  // reduce_windows' partial sums, at most
    return total;
  }

  // sum_b b B_b for every window (the two levels of bucket_reduce_kernel), as host points.
  std::vector<Jacobian> reduce_buckets(Xyzz* bk, const WindowLayout& win, cudaStream_t st) {
    const int nwin = win.nwin;
    // buckets per thread (tuning override: MsmTuning::red_chunk)
    const u32 chunk = u32(std::max(1, tuning.red_chunk.value_or(DevCurve<C>::kReduceChunk)));
    const u32 stride0 = (win.buckets(nwin - 1) + chunk - 1) / chunk;  // the widest window's chunks
    // t0: level 0's results in rows 0 .. nwin - 1 and level 1's in rows nwin .. 2 nwin - 1 (stride0
    // apart, padded with infinity), so that one tree sum and one wait serve both levels
    result.resize_discard(2 * std::size_t(nwin) * stride0 * sizeof(Xyzz));
    red_sums.resize_discard(std::size_t(nwin) * stride0 * sizeof(Xyzz));
    Xyzz* t0 = static_cast<Xyzz*>(result.get());
    Xyzz* s0 = static_cast<Xyzz*>(red_sums.get());
    bucket_reduce_kernel<F, LayoutBuckets, true>
        <<<dim3(grid_for(stride0, 128), nwin), 128, 0, st>>>(bk, LayoutBuckets{win}, chunk, stride0, t0, s0);
    CUZK_CUDA_LAUNCH();
    std::vector<HostXyzz> w0;
    std::vector<Jacobian> wsum(nwin);
    if (stride0 == 1) {  // one chunk per window: no level 1
      reduce_windows(t0, stride0, stride0, nwin, w0, st);
      for (int w = 0; w < nwin; ++w) wsum[w] = w0[w].to_jacobian();
      return wsum;
    }
    // level 1 in chunks of 8: its few values would otherwise leave long serial chains to few threads
    // (measured: chunks of 64 cost ~2 ms at 2^20 scalars)
    constexpr u32 chunk1 = 8;
    bucket_reduce_kernel<F, ChunkSums, false><<<dim3(grid_for(stride0, 128), nwin), 128, 0, st>>>(
        s0, ChunkSums{win, chunk, stride0}, chunk1, stride0, t0 + std::size_t(nwin) * stride0, nullptr);
    CUZK_CUDA_LAUNCH();
    reduce_windows(t0, stride0, stride0, 2 * nwin, w0, st);
    // window sum = sum_j t_j + chunk * sum_j j s_j
    for (int w = 0; w < nwin; ++w) {
      Jacobian k = w0[nwin + w].to_jacobian();
      wsum[w] = w0[w].to_jacobian();
      for (u32 bits = chunk; bits; bits >>= 1, k = k.dbl())
        if (bits & 1) wsum[w] += k;
    }
    return wsum;
  }
};

template <class C>
Msm<C>::Msm(std::span<const Affine> host_bases) : impl_(std::make_unique<Impl>()) {
  impl_->n = host_bases.size();
  impl_->bases = DeviceBuffer(std::max<std::size_t>(1, impl_->n) * sizeof(typename Impl::Aff));
  if (impl_->n) upload_host_bases(static_cast<typename Impl::Aff*>(impl_->bases.get()), host_bases.data(), impl_->n);
}

template <class C>
Msm<C>::Msm(std::size_t n) : impl_(std::make_unique<Impl>()) {
  impl_->n = n;
  impl_->bases = DeviceBuffer(std::max<std::size_t>(1, n) * sizeof(typename Impl::Aff));
  impl_->bases.zero();
}

template <class C>
Msm<C>::~Msm() = default;
template <class C>
std::size_t Msm<C>::size() const {
  return impl_->n;
}
template <class C>
void* Msm<C>::device_bases() const {
  return impl_->bases.get();
}
template <class C>
void Msm<C>::add_shifted_copies(int copies) {
  impl_->add_copies(copies);
}
template <class C>
int Msm<C>::copies() const {
  return impl_->copies;
}
template <class C>
int Msm<C>::copy_shift() const {
  return impl_->copy_shift;
}
template <class C>
const MsmProfile& Msm<C>::last_profile() const {
  return impl_->prof;
}

template <class C>
void Msm<C>::release_workspace() {
  for (DeviceBuffer* b : impl_->workspace()) *b = DeviceBuffer();
}

template <class C>
std::size_t Msm<C>::workspace_bytes() const {
  std::size_t s = 0;
  for (const DeviceBuffer* b : impl_->workspace()) s += b->size();
  return s;
}

template <class C>
typename Msm<C>::Jacobian Msm<C>::msm(std::span<const math::Fr> scalars, const MsmConfig& cfg) {
  DeviceBuffer d(std::max<std::size_t>(1, scalars.size()) * sizeof(Fr));
  if (!scalars.empty()) d.upload(scalars.data(), scalars.size_bytes());
  return impl_->run(static_cast<const Fr*>(d.get()), scalars.size(), cfg, nullptr);
}

template <class C>
typename Msm<C>::Jacobian Msm<C>::msm_device(const void* d_scalars, std::size_t n, const MsmConfig& cfg, void* stream) {
  return impl_->run(static_cast<const Fr*>(d_scalars), n, cfg, as_stream(stream));
}

template <class C>
typename Msm<C>::Jacobian Msm<C>::msm_device_range(const void* d_scalars, std::size_t offset, std::size_t n,
                                                   const MsmConfig& cfg, void* stream) {
  return impl_->run(static_cast<const Fr*>(d_scalars), n, cfg, as_stream(stream), offset);
}

template <class C>
std::size_t Msm<C>::workspace_bytes_for(std::size_t n, const MsmConfig& cfg) const {
  return impl_->workspace_for(n, cfg);
}

template <class C>
typename Msm<C>::Jacobian Msm<C>::sum_selected(const void* d_bitmap, std::size_t n, void* stream,
                                               const MsmTuning& tuning) {
  using F = typename Impl::F;
  if (n > impl_->n) throw std::invalid_argument("Msm::sum_selected: n larger than the base count");
  if (n == 0) return Jacobian::identity();
  cudaStream_t st = as_stream(stream);
  // Bases per thread, a multiple of 64 (tuning override: MsmTuning::sel_per). G1: about 2^15 threads (two
  // blocks of 128 per SM): 2^27 bases, 50% set, measured 35.1 ms at 64-128 per thread, 31.1 at 1024,
  // 30.0 at 4096 (fewer partial sums to reduce). G2: at most about a million threads, as measured before.
  const int per_env = tuning.sel_per;
  u32 per = std::max<u32>(64, u32(per_env) & ~63u);
  const std::size_t max_threads =
      (per_env > 0 || !std::is_same_v<F, Fp>) ? (std::size_t(1) << 20) : (std::size_t(1) << 15);
  while ((n + per - 1) / per > max_threads) per *= 2;
  const u32 nthreads = u32((n + per - 1) / per);
  impl_->result.resize_discard(std::size_t(nthreads) * sizeof(typename Impl::Xyzz));
  auto* sums = static_cast<typename Impl::Xyzz*>(impl_->result.get());
  const auto* pb = static_cast<const typename Impl::Aff*>(impl_->bases.get());
  const auto* bm = static_cast<const u64*>(d_bitmap);
  const dim3 grid(grid_for(nthreads, 128));
  // blocks of 128 per SM the register allocation must allow (tuning override: MsmTuning::sel_occ; G1 only)
  const int occ = tuning.sel_occ;
  if constexpr (std::is_same_v<F, Fp>) {
    if (occ == 2) sum_selected_kernel<F, 2><<<grid, 128, 0, st>>>(pb, bm, n, per, sums, nthreads);
    else if (occ == 3) sum_selected_kernel<F, 3><<<grid, 128, 0, st>>>(pb, bm, n, per, sums, nthreads);
    else if (occ >= 4) sum_selected_kernel<F, 4><<<grid, 128, 0, st>>>(pb, bm, n, per, sums, nthreads);
    else sum_selected_kernel<F, 1><<<grid, 128, 0, st>>>(pb, bm, n, per, sums, nthreads);
  } else {
    sum_selected_kernel<F, 1><<<grid, 128, 0, st>>>(pb, bm, n, per, sums, nthreads);
  }
  CUZK_CUDA_LAUNCH();
  std::vector<typename Impl::HostXyzz> out;
  impl_->reduce_windows(sums, nthreads, nthreads, 1, out, st);
  return out[0].to_jacobian();
}

}  // namespace cuzk::gpu
