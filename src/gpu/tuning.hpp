// The GPU backend's tuning knobs as plain data (issue 23: tuning is data). Every field's default is
// the value the code has always used (the measured choice; the comments at the use sites give the
// bench/RESULTS_gpu.md rows), so a default-constructed GpuTuning changes nothing. Nothing in src/gpu
// reads the environment: the apps and the bench/check programs fill these structs in one place
// (src/apps/common/gpu_tuning.{hpp,cpp}, which maps each field to its CUZK_* variable and range-checks
// it) and pass them in: MsmTuning through MsmConfig / Msm::sum_selected, NttTuning to NttDomain,
// GpuTuning to GpuProver and CudaBackendOptions.
//
// Plain C++ with no CUDA types and no dependencies, so the CPU-only build and the tuning reader can
// include it. The library still clamps what it uses (a segment length of 0 cannot divide by zero).
#pragma once

#include <optional>
#include <vector>

namespace cuzk::gpu {

// Msm<C> (msm_*.cuh). Curve-dependent defaults are std::nullopt ("the curve's own value").
struct MsmTuning {
  // Accumulation segment length L of the mixed XYZZ path (entries per thread); halved down to 8 when
  // there is too little work to fill the GPU. CUZK_MSM_SEG, >= 1.
  int seg = 256;
  // accumulate_l1 blocks of 128 per SM (launch bounds): G1 2, G2 1. G1 takes 1-4, G2 1-2. CUZK_MSM_OCC.
  std::optional<int> occ;
  // Batch-affine accumulation from 2^affine_log scalars (0: never): G1 0, G2 20. CUZK_MSM_AFFINE_LOG.
  std::optional<int> affine_log;
  // Batch-affine groups: g windows with g N <= 2^aff_group_log entries (1-30): 28 for both curves.
  // CUZK_MSM_AFF_GROUP_LOG.
  std::optional<int> aff_group_log;
  int aff_per = 16;          // batch-affine output slots per thread (>= 1). CUZK_MSM_AFF_PER.
  bool aff_profile = false;  // print the affine rounds' phase times (waits after each). CUZK_MSM_AFF_PROFILE.
  // G2 window cap with default windows: 16 up to 2^22 scalars, else 17. CUZK_MSM_G2_CMAX.
  std::optional<int> g2_cmax;
  bool mixed = true;  // G1: mixed window widths on the XYZZ path. CUZK_MSM_MIXED.
  // Buckets per thread in the bucket reduction: G1 64, G2 32. CUZK_MSM_RED_CHUNK, >= 1.
  std::optional<int> red_chunk;
  // sum_selected: bases per thread (0: automatic; else rounded down to a multiple of 64, at least
  // 64). CUZK_SEL_PER.
  int sel_per = 0;
  int sel_occ = 1;  // sum_selected blocks of 128 per SM, G1 only (1-4). CUZK_SEL_OCC.
};

// NttDomain (ntt.cu).
struct NttTuning {
  static constexpr int kShapeCount = 4;    // kernel shapes in ntt.cu's kNttShapes (static_assert there)
  static constexpr int kMaxPassBits = 11;  // the largest pass (stages per pass)
  // A second table of inverse twiddles, made on the first inverse transform. CUZK_NTT_INV_TABLE.
  bool inverse_table = true;
  int shape = 0;               // pass-kernel shape in [0, kShapeCount). CUZK_NTT_SHAPE.
  int elems_per_block = 1024;  // shared-memory elements per block: a power of two, 256-2048. CUZK_NTT_ELEMS.
  // Pass sizes r0,r1,... (r0: the s = 0 pass), each in [1, kMaxPassBits]; used for the transforms
  // whose log size they add up to, the default plan elsewhere. Empty: the default. CUZK_NTT_PLAN.
  std::vector<int> plan;
};

// GpuProver (groth16_prover.cu): scheduling switches, each on by default (off for A/B comparisons).
struct ProverTuning {
  bool s0_priority = true;          // the H chain's stream at the device's highest priority. CUZK_GPU_S0_PRIORITY.
  bool long_rows_in_pieces = true;  // long rows summed in pieces (else one thread per row). CUZK_GPU_LONG_ROWS.
  bool witness_after_ntt = true;    // resident keys: witness MSMs start after the NTTs. CUZK_GPU_WITNESS_AFTER_NTT.
  bool h_thread = true;             // resident keys: H's MSM on a host thread of its own. CUZK_GPU_H_THREAD.
};

struct GpuTuning {
  MsmTuning msm;
  NttTuning ntt;
  ProverTuning prover;
};

}  // namespace cuzk::gpu
