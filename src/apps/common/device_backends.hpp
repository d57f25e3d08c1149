// The proving backends an executable can run: the CPU backend always, the CUDA backend when the build
// has it (target cuzk_gpu) and a device is present. The daemon and `cuzk prove-porep` choose here.
//
// CUDA: one gpu::CudaBackend per device, shared by every backend worker of that device (its start()
// serializes them), so the proving key is uploaded once per device and stays resident; workers get
// thin handles. preload() uploads a key ahead of the first proof. A key that does not fit in device
// memory is streamed from pinned host memory at each proof (KeyResidencySettings).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "groth16/keys.hpp"
#include "groth16/prover.hpp"

namespace cuzk::apps {

struct BackendProbe {
  bool cuda_built = false;
  std::uint32_t cuda_devices = 0;
  std::string device_name;  // of device 0, "" when none
};
// Never throws; a machine without a driver reports 0 devices.
BackendProbe probe_backends();

// "auto" | "cpu" | "cuda" as the command line spells it -> "cpu" | "cuda", or a one-line error.
Result<std::string> choose_backend(const std::string& requested, const BackendProbe& probe);

// Where the CUDA backend keeps proving keys (config [gpus]; gpu::KeyResidency and its options).
struct KeyResidencySettings {
  std::string residency = "auto";  // auto: resident while it fits, else streamed; resident; streamed
  std::uint64_t max_resident_key_bytes = 0;  // auto: keys needing more device bytes are streamed; 0: no limit
  std::uint64_t stream_chunk_bases = 0;      // 0: the backend's default
};

class DeviceBackends {
 public:
  // name: "cpu" or "cuda" (already resolved; "cuda" needs a CUDA build). keys: ignored by "cpu".
  static Result<std::shared_ptr<DeviceBackends>> create(const std::string& name, const KeyResidencySettings& keys = {});
  virtual ~DeviceBackends() = default;

  virtual std::string name() const = 0;
  // A backend for one worker on `device` (CUDA: a handle to that device's shared backend).
  virtual std::unique_ptr<groth16::Backend> make(std::uint32_t device) = 0;
  // Uploads `key` to each of `devices` now (CUDA); a no-op for the CPU backend.
  virtual Status preload(const groth16::ProvingKey& key, const std::vector<std::uint32_t>& devices) = 0;
  // Device memory held (resident keys, shapes, buffers) over all devices; 0 for the CPU backend.
  virtual std::uint64_t device_bytes() const = 0;
};

}  // namespace cuzk::apps
