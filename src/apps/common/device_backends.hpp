// The proving backends an executable can run: the CPU backend always, the CUDA backend when the build
// has it (target cuzk_gpu) and a device is present. The daemon and `cuzk prove-porep` choose here.
//
// DeviceBackends is the engine's Executor (engine/executor.hpp). CUDA: one gpu::CudaBackend per device,
// shared by every backend worker of that device (its start() serializes them); workers get thin
// handles. upload() makes a device's copy of a key, which the SrsManager keeps (one per device) and
// hands back at every proof; a key that does not fit in device memory is streamed from pinned host
// memory (KeyResidencySettings).
//
// The urgent lane (docs/daemon.md, "Deadlines under load"; EngineOptions::lane_backend_factory):
// make_lane(device) is a backend for small urgent proofs that run beside the partition holding the
// device, not after it. CUDA: a second gpu::CudaBackend on that device with its own GpuProver
// (streams, proof buffers, scratch MSMs) and its own key cache; nothing in the CUDA code is shared
// between instances but the device (no globals; every stream is non-blocking, so the lane's work is
// not ordered behind the main proof's). Its streams take the device's highest priority and the main
// backends' s0 the next one (gpu::StreamRank, set for every backend when created with gpu_lane). It
// keeps no H copies. Caveats, measured on no device
// yet: the first lane proof of a key allocates and synchronizes the device (cudaMalloc/cudaFree and
// the NTT warm-up), so it waits for the running partition's queued work once; preload the lane's
// keys (the SrsManager makes the lane's copy when it loads a key small enough for the lane). CPU: a
// CPU backend, on every slot (a CUDA executor without a GPU lane puts one on the lane slots too).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apps/common/gpu_tuning.hpp"
#include "base/result.hpp"
#include "engine/executor.hpp"
#include "groth16/keys.hpp"
#include "groth16/prover.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::apps {

// One CUDA device as found at start-up (gpu::device_infos), with the verdict: `usable` when this
// binary's kernels load on it and it has at least kMinDeviceMemory; otherwise `problem` says why, and
// the daemon serves without it (on the other devices, or on the CPU backend when none is left).
struct GpuDevice {
  std::uint32_t ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  std::uint64_t total_bytes = 0, free_bytes = 0;
  bool usable = false;
  std::string problem;
};
// Below this a device cannot hold even a streamed 32 GiB proof's working buffers (the smallest card
// SPs run for PoRep, an RTX 3080, has 10 GB); smaller keys stream too, but such a device is not worth
// the risk of out-of-memory failures mid-proof.
inline constexpr std::uint64_t kMinDeviceMemory = std::uint64_t(6) << 30;

// The memory rule on top of the CUDA check: a loadable device below kMinDeviceMemory is not usable.
GpuDevice judged(GpuDevice d);

struct BackendProbe {
  bool cuda_built = false;
  std::uint32_t cuda_devices = 0;  // present, usable or not
  std::string device_name;         // of device 0, "" when none
  std::string architectures;       // the CUDA architectures this binary holds ("" without CUDA)
  std::vector<GpuDevice> devices;  // every present device
  std::vector<std::uint32_t> usable() const;
};
// Never throws; a machine without a driver reports 0 devices.
BackendProbe probe_backends();
// One line per device for the start-up log: "GPU 0: NVIDIA H200, compute 9.0, 139.8 GiB (139.2 GiB
// free): usable" or "...: not used: <problem>".
std::string describe(const GpuDevice& d);
// Free and total memory of one device now (0, 0 without CUDA).
void device_memory(std::uint32_t ordinal, std::uint64_t* free_bytes, std::uint64_t* total_bytes);

// "auto" | "cpu" | "cuda" as the command line spells it -> the backend, or a one-line error.
Result<engine::BackendKind> choose_backend(const std::string& requested, const BackendProbe& probe);

// Where the CUDA backend keeps proving keys (config [gpus]; gpu::KeyResidency and its options).
struct KeyResidencySettings {
  std::string residency = "auto";            // auto: resident while it fits, else streamed; resident; streamed; file
  std::uint64_t max_resident_key_bytes = 0;  // auto: keys needing more device bytes are streamed; 0: no limit
  std::uint64_t stream_chunk_bases = 0;      // 0: the backend's default
  std::uint32_t h_copies = 0;      // resident keys' H copies (GpuKeyOptions::h_copies); 0: GpuEnvTuning::h_copies
  std::uint64_t memory_limit = 0;  // bytes of each card the backends plan with (GpuProveOptions); 0: all
};

// The H copies a CUDA backend takes (KeyResidencySettings::h_copies): the configured count, or, when
// that is 0, the CUZK_GPU_H_COPIES value given here (0-4; null or empty: 0, the backend's default).
// Anything else is a one-line error naming the variable. (gpu_tuning_from_env reads it the same way.)
Result<std::uint32_t> resolve_h_copies(std::uint32_t configured, const char* env_value);

class DeviceBackends : public engine::Executor {
 public:
  // backend: already resolved (kCuda needs a CUDA build). keys, gpu_env: ignored by kCpu.
  // gpu_env: the tuning read by gpu_tuning_from_env (the defaults when not given).
  // gpu_lane: the lane slots get CUDA backends (the main backends' streams then leave them the
  // highest priority); otherwise the lane slots get CPU backends.
  // on_note: lines about a key taking a smaller form than asked (streamed, fewer H copies).
  static Result<std::shared_ptr<DeviceBackends>> create(engine::BackendKind backend,
                                                        const KeyResidencySettings& keys = {},
                                                        const GpuEnvTuning& gpu_env = {}, bool gpu_lane = false,
                                                        std::function<void(const std::string&)> on_note = {});
  ~DeviceBackends() override = default;
};

}  // namespace cuzk::apps
