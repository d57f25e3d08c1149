// NTT over Fr on the GPU.
//
// Radix-2 butterflies grouped into passes of r <= 11 stages. A pass loads, per thread block, 2^r
// rows x C columns of the array into shared memory (element i = hi*2^(s+r) + j*2^s + lo, j the row,
// (hi, lo) the column, s the pass's first stage), runs its r stages there in register rounds of up
// to 2 stages (4 elements per thread; the kernel shape, below, sets it), and writes back. 2^27 takes
// 3 passes (3 reads + 3 writes of the array). Decimation in time (Cooley-Tukey, bit-reversed in ->
// natural out) and in frequency (Gentleman-Sande, natural in -> bit-reversed out) share the kernel.
// Twiddles w^(k N/2m) come from one table of w_N^e, e < N/2, built once per domain; inverse
// transforms read a second table of w_N^-e, built on the first one (without it they would use
// w^-e = -w^(N/2-e) with a sign per butterfly: 2^27 iNTT NR 35.03 ms against 34.76, H200).
// Coset and 1/n scalings are fused into the first pass's loads or the last pass's stores, with
// factors c*h^m taken from two 2^14-entry tables (one multiplication each).
#include <algorithm>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "gpu/cuda_util.cuh"
#include "gpu/gpu.hpp"

namespace cuzk::gpu {
namespace {

constexpr int kLoBits = 14;
constexpr u32 kLoMask = (1u << kLoBits) - 1;
constexpr int kMaxLog = 28;
constexpr int kMaxElemsPerBlock = 2048;  // 64 KB of shared memory
// NttTuning::elems_per_block defaults to 1024: measured faster than 2048 on the H200.
constexpr int kMaxFirstPass = 11;
constexpr int kMaxPass = 9;

// f(m) = hi[m >> 14] * lo[m & mask]; lo == nullptr means the constant hi[0]; hi == nullptr: none.
// shift > 0 instead divides by 2^shift (the plain inverse's 1/n: Fr::div_pow2 costs N limb products
// where a multiplication by the constant 1/n costs 2N^2).
struct ScaleTab {
  const Fr* hi = nullptr;
  const Fr* lo = nullptr;
  bool rev = false;  // natural index m of array position i is bitrev(i)
  int shift = 0;
};

__device__ __forceinline__ u32 bitrev(u32 x, int bits) { return bits == 0 ? 0 : __brev(x) >> (32 - bits); }

__device__ __forceinline__ Fr scale_factor(const ScaleTab& t, u32 m) {
  Fr h = ldg_f(t.hi + (t.lo ? (m >> kLoBits) : 0));
  if (t.lo) h = h * ldg_f(t.lo + (m & kLoMask));
  return h;
}

struct PassArgs {
  Fr* data;
  const Fr* tw;  // w_N^e, e < N/2
  int logn;      // transform size
  int logN;      // twiddle table's domain
  int s, r, logC;
  bool inverse;
  ScaleTab pre, post;
};

// Shared-memory slot of element (j, c): row-major with an XOR swizzle of the low two bits so the
// 32-byte elements of one quarter-warp spread over the banks.
__device__ __forceinline__ int smem_slot(int idx) { return idx ^ ((idx >> 3) & 3); }

__device__ __forceinline__ Fr sm_load(const Fr* sm, int idx) { return load_f(sm + smem_slot(idx)); }
__device__ __forceinline__ void sm_store(Fr* sm, int idx, const Fr& v) { store_f(sm + smem_slot(idx), v); }

// Twiddle for exponent e (in units of w_N, e < N/2); sets neg when the table value must be negated.
__device__ __forceinline__ Fr twiddle(const Fr* tw, u32 e, u32 half, bool inverse, bool& neg) {
  neg = inverse && e != 0;
  return ldg_f(tw + (neg ? half - e : e));
}

template <int Q, bool DIF>
__device__ __forceinline__ void ntt_round(Fr* sm, const PassArgs& a, int u0, u64 col0) {
  constexpr int M = 1 << Q;
  const int C = 1 << a.logC;
  const int groups = (1 << (a.r - Q)) << a.logC;
  const u32 half = 1u << (a.logN - 1);
  for (int g = threadIdx.x; g < groups; g += blockDim.x) {
    const int c = g & (C - 1);
    const int rest = g >> a.logC;
    const int jb = (rest & ((1 << u0) - 1)) | ((rest >> u0) << (u0 + Q));
    const u32 lo = a.s == 0 ? 0u : u32((col0 + c) & ((u64(1) << a.s) - 1));
    Fr x[M];
#pragma unroll
    for (int m = 0; m < M; ++m) x[m] = sm_load(sm, ((jb + (m << u0)) << a.logC) + c);
    const u32 jlow = u32(jb & ((1 << u0) - 1));
#pragma unroll
    for (int vv = 0; vv < Q; ++vv) {
      const int v = DIF ? Q - 1 - vv : vv;
      const int t = a.s + u0 + v;
      // the 2^v distinct twiddles of this stage: k = (jlow + mm 2^u0) 2^s + lo
      Fr tws[M / 2];
      bool negs[M / 2];
      u32 es[M / 2];
#pragma unroll
      for (int mm = 0; mm < (1 << v); ++mm) {
        const u32 k = ((jlow + (u32(mm) << u0)) << a.s) | lo;
        es[mm] = k << (a.logN - 1 - t);
        tws[mm] = twiddle(a.tw, es[mm], half, a.inverse, negs[mm]);
      }
#pragma unroll
      for (int m = 0; m < M; ++m) {
        if (m & (1 << v)) continue;
        const Fr& w = tws[m & ((1 << v) - 1)];
        const bool neg = negs[m & ((1 << v) - 1)];
        const u32 e = es[m & ((1 << v) - 1)];
        Fr& lo_e = x[m];
        Fr& hi_e = x[m | (1 << v)];
        if (!DIF) {
          Fr vh = e ? hi_e * w : hi_e;
          Fr s0 = lo_e + vh, d0 = lo_e - vh;
          lo_e = neg ? d0 : s0;
          hi_e = neg ? s0 : d0;
        } else {
          Fr s0 = lo_e + hi_e;
          Fr d0 = neg ? hi_e - lo_e : lo_e - hi_e;
          lo_e = s0;
          hi_e = e ? d0 * w : d0;
        }
      }
    }
#pragma unroll
    for (int m = 0; m < M; ++m) sm_store(sm, ((jb + (m << u0)) << a.logC) + c, x[m]);
  }
}

template <int QMAX, bool DIF>
__device__ __forceinline__ void run_round(int q, Fr* sm, const PassArgs& a, int u0, u64 col0) {
  if constexpr (QMAX >= 3) {
    if (q == 3) {
      ntt_round<3, DIF>(sm, a, u0, col0);
      return;
    }
  }
  if (q == 2) ntt_round<2, DIF>(sm, a, u0, col0);
  else ntt_round<1, DIF>(sm, a, u0, col0);
}

// Kernel shapes (NttTuning::shape selects one, for tuning): stages per register round (QMAX, 2^QMAX
// elements per thread), and the launch bounds (TMAX threads per block, MINB blocks per SM), which cap
// the registers at 65536 / (TMAX * MINB). Shape 0 is the default. The passes are bound by instruction
// latency, so warps per SM matter more than work per thread: radix-4 rounds in 80 registers (6 blocks
// of 128 per SM, 24 warps) beat radix-8 rounds in 128 registers (16 warps) by 2% at 2^27 and 8% at
// 2^24 on the H200 (2^27 fwd NR 36.6 against 37.3 ms; RESULTS_gpu.md "Tuning data behind the defaults", which also has
// the shapes measured and dropped: 5, 7 and 8 blocks of 128, 12 blocks of 64, radix-8 at 2 or 3 blocks).
struct NttShape {
  int qmax, tmax, minb;
};
constexpr NttShape kNttShapes[] = {{2, 128, 6}, {3, 256, 2}, {2, 128, 5}, {2, 128, 7}};
constexpr int kNttShapeCount = int(sizeof(kNttShapes) / sizeof(kNttShapes[0]));
static_assert(kNttShapeCount == NttTuning::kShapeCount, "gpu/tuning.hpp names the shape count");
static_assert(kMaxFirstPass == NttTuning::kMaxPassBits, "gpu/tuning.hpp names the largest pass");

template <bool DIF, int SHAPE>
__global__ void __launch_bounds__(kNttShapes[SHAPE].tmax, kNttShapes[SHAPE].minb) ntt_pass_kernel(PassArgs a) {
  constexpr int QMAX = kNttShapes[SHAPE].qmax;
  extern __shared__ uint4 smem_raw[];
  Fr* sm = reinterpret_cast<Fr*>(smem_raw);
  const int R = 1 << a.r;
  const int C = 1 << a.logC;
  const int E = R << a.logC;
  const u64 col0 = u64(blockIdx.x) << a.logC;
  u64 base, sj, sc;
  if (a.s == 0) {
    base = col0 << a.r;
    sj = 1;
    sc = u64(R);
  } else {
    const u64 hi = col0 >> a.s, lo = col0 & ((u64(1) << a.s) - 1);
    base = (hi << (a.s + a.r)) + lo;
    sj = u64(1) << a.s;
    sc = 1;
  }
  for (int L = threadIdx.x; L < E; L += blockDim.x) {
    int j, c;
    if (a.s == 0) {
      j = L & (R - 1);
      c = L >> a.r;
    } else {
      c = L & (C - 1);
      j = L >> a.logC;
    }
    const u64 gi = base + u64(j) * sj + u64(c) * sc;
    Fr x = load_f(a.data + gi);
    if (a.pre.hi) x = x * scale_factor(a.pre, a.pre.rev ? bitrev(u32(gi), a.logn) : u32(gi));
    sm_store(sm, (j << a.logC) + c, x);
  }
  __syncthreads();
  // rounds of QMAX stages (the last one shorter); the Q = 3 round is compiled only when QMAX allows it,
  // since the registers of every round count against the kernel's budget
  if (!DIF) {
    for (int u = 0; u < a.r;) {
      const int q = a.r - u >= QMAX ? QMAX : a.r - u;
      run_round<QMAX, false>(q, sm, a, u, col0);
      u += q;
      __syncthreads();
    }
  } else {
    for (int u = a.r; u > 0;) {
      const int q = u >= QMAX ? QMAX : u;
      u -= q;
      run_round<QMAX, true>(q, sm, a, u, col0);
      __syncthreads();
    }
  }
  for (int L = threadIdx.x; L < E; L += blockDim.x) {
    int j, c;
    if (a.s == 0) {
      j = L & (R - 1);
      c = L >> a.r;
    } else {
      c = L & (C - 1);
      j = L >> a.logC;
    }
    const u64 gi = base + u64(j) * sj + u64(c) * sc;
    Fr x = sm_load(sm, (j << a.logC) + c);
    if (a.post.hi) x = x * scale_factor(a.post, a.post.rev ? bitrev(u32(gi), a.logn) : u32(gi));
    else if (a.post.shift) x = x.div_pow2(a.post.shift);
    store_f(a.data + gi, x);
  }
}

// The kernels of every shape: f(dit kernel, dif kernel) for each.
template <class Fn, int... S>
void for_each_shape_impl(Fn&& f, std::integer_sequence<int, S...>) {
  (f(ntt_pass_kernel<false, S>, ntt_pass_kernel<true, S>), ...);
}
template <class Fn>
void for_each_shape(Fn&& f) {
  for_each_shape_impl(f, std::make_integer_sequence<int, kNttShapeCount>{});
}

void launch_pass(int shape, bool dif, unsigned blocks, int threads, std::size_t smem, cudaStream_t st,
                 const PassArgs& a) {
  int i = 0;
  for_each_shape([&](auto dit_k, auto dif_k) {
    if (i++ != shape) return;
    if (dif) dif_k<<<blocks, threads, smem, st>>>(a);
    else dit_k<<<blocks, threads, smem, st>>>(a);
  });
  CUZK_CUDA_LAUNCH();
}

// In-place bit-reversal permutation with an optional scaling by the natural (source) index.
__global__ void bitrev_kernel(Fr* d, int logn, ScaleTab sc) {
  const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >> logn) return;
  const u32 j = bitrev(u32(i), logn);
  if (i < j) {
    Fr a = load_f(d + i), b = load_f(d + j);
    if (sc.hi) {
      a = a * scale_factor(sc, u32(i));
      b = b * scale_factor(sc, j);
    }
    store_f(d + i, b);
    store_f(d + j, a);
  } else if (i == j && sc.hi) {
    store_f(d + i, load_f(d + i) * scale_factor(sc, u32(i)));
  }
}

__global__ void twiddle_kernel(Fr* tw, u64 count, const Fr* hi, const Fr* lo) {
  const u64 e = u64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= count) return;
  store_f(tw + e, ldg_f(hi + (e >> kLoBits)) * ldg_f(lo + (e & kLoMask)));
}

math::Fr root_of_order(int log) {  // primitive 2^log-th root of unity
  math::Fr w = math::fr_root_of_unity();
  for (int i = log; i < int(math::kFrTwoAdicity); ++i) w = w.square();
  return w;
}

// hi[k] = c * h^(k * 2^14) for k < ceil(count / 2^14), lo[m] = h^m for m < min(count, 2^14).
void build_split_tables(std::size_t count, const math::Fr& h, const math::Fr& c, std::vector<math::Fr>& hi,
                        std::vector<math::Fr>& lo) {
  std::size_t nlo = std::min<std::size_t>(count, std::size_t(1) << kLoBits);
  std::size_t nhi = std::max<std::size_t>(1, (count + (std::size_t(1) << kLoBits) - 1) >> kLoBits);
  lo.resize(nlo);
  math::Fr x = math::Fr::one();
  for (std::size_t m = 0; m < nlo; ++m) {
    lo[m] = x;
    x *= h;
  }
  math::Fr step = h;
  for (int i = 0; i < kLoBits; ++i) step = step.square();  // h^(2^14)
  hi.resize(nhi);
  x = c;
  for (std::size_t k = 0; k < nhi; ++k) {
    hi[k] = x;
    x *= step;
  }
}

// w^e for e < 2^(log - 1) on the device (w of order 2^log), from two tables of 2^14 powers.
DeviceBuffer twiddle_table(int log, const math::Fr& w) {
  const std::size_t half = std::size_t(1) << (log - 1);
  std::vector<math::Fr> hi, lo;
  build_split_tables(half, w, math::Fr::one(), hi, lo);
  DeviceBuffer dhi(hi.size() * sizeof(Fr)), dlo(lo.size() * sizeof(Fr));
  dhi.upload(hi.data(), hi.size() * sizeof(Fr));
  dlo.upload(lo.data(), lo.size() * sizeof(Fr));
  DeviceBuffer t(half * sizeof(Fr));
  twiddle_kernel<<<grid_for(half, 256), 256>>>(static_cast<Fr*>(t.get()), half, static_cast<const Fr*>(dhi.get()),
                                               static_cast<const Fr*>(dlo.get()));
  CUZK_CUDA_LAUNCH();
  CUZK_CUDA(cudaDeviceSynchronize());
  return t;
}

struct Plan {
  std::vector<int> r;  // pass sizes in DIT order (first pass has s = 0)
};

Plan make_plan(int logn) {
  Plan p;
  if (logn <= kMaxFirstPass) {
    p.r.push_back(logn);
    return p;
  }
  int npass = 1 + (logn - kMaxFirstPass + kMaxPass - 1) / kMaxPass;
  int target = (logn + npass - 1) / npass;
  int other = std::min(kMaxPass, target);
  int first = logn - other * (npass - 1);
  if (first > kMaxFirstPass) {  // cannot happen with the sizes above, kept as a guard
    first = kMaxFirstPass;
  }
  // From 2^26 up: a first (s = 0) pass of 10 stages, the rest split evenly with the larger pass first.
  // H200 (CUZK_NTT_PLAN sweep, RESULTS_gpu.md "Tuning data behind the defaults"): 2^27 [10,9,8] fwd NR 36.1 ms
  // against 36.8 for [9,9,9]; 2^26 [10,8,8] 17.3 against 17.5 for [8,9,9]; 2^28 [10,9,9] unchanged.
  const bool wide_first = logn >= 26 && npass == 3;
  if (wide_first) first = 10;
  p.r.push_back(first);
  int left = logn - first;
  for (int i = 1; i < npass; ++i) {
    const int rest = npass - i;
    int rr = wide_first ? (left + rest - 1) / rest : left / rest;
    p.r.push_back(rr);
    left -= rr;
  }
  return p;
}

// Pass sizes from a tuning override r0,r1,... (r0 is the s = 0 pass, NttTuning::plan), used when they
// are in [1, kMaxFirstPass] and add up to logn; otherwise `dflt`.
Plan plan_override(const std::vector<int>& rs, int logn, const Plan& dflt) {
  Plan p;
  int sum = 0;
  for (int r : rs) {
    if (r < 1 || r > kMaxFirstPass) return dflt;
    p.r.push_back(r);
    sum += r;
  }
  return sum == logn && !rs.empty() ? p : dflt;
}

}  // namespace

struct NttDomain::Impl {
  int max_log = 0;
  DeviceBuffer tw;      // w_N^e, e < N/2
  DeviceBuffer tw_inv;  // w_N^-e, e < N/2: made on the first inverse transform (NttTuning::inverse_table off: never)
  NttTuning tuning;
  std::mutex mu;
  // scale tables keyed by (log n, kind): kind 0 = coset forward (g^m), 1 = inverse (1/n: no table,
  // a division by 2^(log n)), 2 = coset inverse (g^-m / n)
  struct Tab {
    DeviceBuffer hi, lo;
    bool has_lo = false;
  };
  std::map<std::pair<int, int>, Tab> tabs;
  bool smem_configured = false;

  ScaleTab scale(int logn, int kind, bool rev) {
    if (kind == 1) {
      ScaleTab s;
      s.shift = logn;
      return s;
    }
    std::lock_guard<std::mutex> lock(mu);
    auto key = std::make_pair(logn, kind);
    auto it = tabs.find(key);
    if (it == tabs.end()) {
      Tab t;
      std::size_t n = std::size_t(1) << logn;
      math::Fr g = math::Fr::from_u64(math::kFrMultiplicativeGenerator);
      math::Fr ninv = math::Fr::from_u64(n).inverse();
      std::vector<math::Fr> hi, lo;
      if (kind == 0) build_split_tables(n, g, math::Fr::one(), hi, lo);
      else build_split_tables(n, g.inverse(), ninv, hi, lo);
      t.hi = DeviceBuffer(hi.size() * sizeof(Fr));
      t.hi.upload(hi.data(), hi.size() * sizeof(Fr));
      if (!lo.empty()) {
        t.lo = DeviceBuffer(lo.size() * sizeof(Fr));
        t.lo.upload(lo.data(), lo.size() * sizeof(Fr));
        t.has_lo = true;
      }
      it = tabs.emplace(key, std::move(t)).first;
    }
    ScaleTab s;
    s.hi = static_cast<const Fr*>(it->second.hi.get());
    s.lo = it->second.has_lo ? static_cast<const Fr*>(it->second.lo.get()) : nullptr;
    s.rev = rev;
    return s;
  }

  // The inverse twiddles, w^-e, as a table of their own (half as large as the domain's array of
  // elements): the inverse passes then run exactly the forward ones' code, without the sign that
  // w^-e = -w^(N/2-e) costs per butterfly. nullptr when turned off (NttTuning::inverse_table).
  const Fr* inverse_twiddles() {
    if (!tuning.inverse_table) return nullptr;
    std::lock_guard<std::mutex> lock(mu);
    if (!tw_inv.get()) tw_inv = twiddle_table(max_log, root_of_order(max_log).inverse());
    return static_cast<const Fr*>(tw_inv.get());
  }

  void run_passes(Fr* d, int logn, bool dif, bool inverse, ScaleTab pre, ScaleTab post, cudaStream_t st) {
    const Fr* tw_table = static_cast<const Fr*>(tw.get());
    if (inverse) {
      if (const Fr* t = inverse_twiddles()) {
        tw_table = t;
        inverse = false;  // the passes of a forward transform, on the inverse twiddles
      }
    }
    if (!smem_configured) {
      for_each_shape([](auto dit, auto dif) {
        CUZK_CUDA(cudaFuncSetAttribute(dit, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       kMaxElemsPerBlock * int(sizeof(Fr))));
        CUZK_CUDA(cudaFuncSetAttribute(dif, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       kMaxElemsPerBlock * int(sizeof(Fr))));
      });
      smem_configured = true;
    }
    // tuning (NttTuning): a shape or block size out of range keeps the default
    const int shape = tuning.shape >= 0 && tuning.shape < kNttShapeCount ? tuning.shape : 0;
    const int v = tuning.elems_per_block;
    const int max_elems = v >= 256 && v <= kMaxElemsPerBlock && (v & (v - 1)) == 0 ? v : 1024;
    Plan plan = make_plan(logn);
    if (!tuning.plan.empty()) plan = plan_override(tuning.plan, logn, plan);
    const int np = int(plan.r.size());
    std::vector<int> starts(np);
    for (int i = 0, s = 0; i < np; ++i) {
      starts[i] = s;
      s += plan.r[i];
    }
    for (int step = 0; step < np; ++step) {
      const int idx = dif ? np - 1 - step : step;  // DIF runs the top stages first
      PassArgs a;
      a.data = d;
      a.tw = tw_table;
      a.logn = logn;
      a.logN = max_log;
      a.s = starts[idx];
      a.r = plan.r[idx];
      int logC;
      if (a.s == 0) {
        logC = 0;
      } else {
        logC = 0;
        while ((1 << (logC + 1)) * (1 << a.r) <= max_elems && logC + 1 <= 3 && logC + 1 <= a.s) ++logC;
      }
      // s = 0: group several runs of 2^r elements per block, up to max_elems (a 2^27 transform's s = 0
      // pass of r = 9 took 15.1 ms in blocks of 512 elements / 64 threads against 13.2 ms for the other
      // passes in blocks of 1,024; Nsight Compute, logs/h200_2026-11-30_s6_ncu_ntt_2e27.txt)
      if (a.s == 0) {
        while ((1 << (logC + 1)) * (1 << a.r) <= max_elems && a.r + logC + 1 <= logn && logC < 3) ++logC;
      }
      a.logC = logC;
      a.inverse = inverse;
      a.pre = step == 0 ? pre : ScaleTab{};
      a.post = step == np - 1 ? post : ScaleTab{};
      const int E = 1 << (a.r + logC);
      const NttShape& sh = kNttShapes[shape];
      const int threads = std::max(32, std::min(sh.tmax, E >> sh.qmax));
      const u64 blocks = (u64(1) << logn) / u64(E);
      const std::size_t smem = std::size_t(E) * sizeof(Fr);
      launch_pass(shape, dif, unsigned(blocks), threads, smem, st, a);
    }
  }

  void transform(void* data, int logn, NttOrder order, bool coset, bool inverse, cudaStream_t st) {
    if (logn < 0 || logn > max_log) throw std::invalid_argument("NttDomain: size outside the domain");
    Fr* d = static_cast<Fr*>(data);
    if (logn == 0) return;  // n = 1: every transform is the identity
    ScaleTab none;
    if (!inverse) {
      switch (order) {
        case NttOrder::kNN: {
          ScaleTab pre = coset ? scale(logn, 0, false) : none;
          bitrev_kernel<<<grid_for(std::size_t(1) << logn, 256), 256, 0, st>>>(d, logn, pre);
          CUZK_CUDA_LAUNCH();
          run_passes(d, logn, false, false, none, none, st);
          break;
        }
        case NttOrder::kNR: run_passes(d, logn, true, false, coset ? scale(logn, 0, false) : none, none, st); break;
        case NttOrder::kRN: run_passes(d, logn, false, false, coset ? scale(logn, 0, true) : none, none, st); break;
      }
    } else {
      const int kind = coset ? 2 : 1;
      switch (order) {
        case NttOrder::kNN:
          bitrev_kernel<<<grid_for(std::size_t(1) << logn, 256), 256, 0, st>>>(d, logn, none);
          CUZK_CUDA_LAUNCH();
          run_passes(d, logn, false, true, none, scale(logn, kind, false), st);
          break;
        case NttOrder::kNR: run_passes(d, logn, true, true, none, scale(logn, kind, true), st); break;
        case NttOrder::kRN: run_passes(d, logn, false, true, none, scale(logn, kind, false), st); break;
      }
    }
  }
};

NttDomain::NttDomain(int max_log, const NttTuning& tuning) : impl_(std::make_unique<Impl>()) {
  if (max_log < 1 || max_log > kMaxLog) throw std::invalid_argument("NttDomain: max_log must be in [1, 28]");
  impl_->max_log = max_log;
  impl_->tuning = tuning;
  impl_->tw = twiddle_table(max_log, root_of_order(max_log));
}

NttDomain::~NttDomain() = default;
int NttDomain::max_log() const { return impl_->max_log; }
std::size_t NttDomain::device_bytes() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->tw.size() + impl_->tw_inv.size();
}
int NttDomain::shape_count() { return kNttShapeCount; }
void NttDomain::set_tuning(const NttTuning& tuning) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->tuning = tuning;
  if (!tuning.inverse_table) impl_->tw_inv = DeviceBuffer();  // its 32 * N/2 bytes given back
}

void NttDomain::forward(void* d, int log_n, NttOrder order, bool coset, void* stream) {
  impl_->transform(d, log_n, order, coset, false, as_stream(stream));
}
void NttDomain::inverse(void* d, int log_n, NttOrder order, bool coset, void* stream) {
  impl_->transform(d, log_n, order, coset, true, as_stream(stream));
}

namespace {
int log2_exact(std::size_t n) {
  if (n == 0 || (n & (n - 1))) throw std::invalid_argument("NTT size must be a power of two");
  int l = 0;
  while ((std::size_t(1) << l) < n) ++l;
  return l;
}
void host_transform(NttDomain& dom, std::span<math::Fr> a, bool inverse, bool coset) {
  int logn = log2_exact(a.size());
  DeviceBuffer buf(a.size_bytes());
  buf.upload(a.data(), a.size_bytes());
  if (inverse) dom.inverse(buf.get(), logn, NttOrder::kNN, coset);
  else dom.forward(buf.get(), logn, NttOrder::kNN, coset);
  buf.download(a.data(), a.size_bytes());
}
}  // namespace

void NttDomain::ntt(std::span<math::Fr> a) { host_transform(*this, a, false, false); }
void NttDomain::intt(std::span<math::Fr> a) { host_transform(*this, a, true, false); }
void NttDomain::coset_ntt(std::span<math::Fr> a) { host_transform(*this, a, false, true); }
void NttDomain::coset_intt(std::span<math::Fr> a) { host_transform(*this, a, true, true); }

}  // namespace cuzk::gpu
