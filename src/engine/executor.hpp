// What an executable brings to the engine to prove with: the backends its workers run, and for a
// backend that proves from memory of its own (a GPU), the uploads of keys into it. The engine and the
// SrsManager ask this interface and never name a backend; the apps implement it
// (apps/common/device_backends.hpp: the CPU backend, or one CUDA backend per device and lane).
//
// Ownership (ARCHITECTURE.md seam 4): what upload() returns belongs to the SrsManager entry of that
// key, which keeps it beside the key, charges its pinned host memory to the budget, hands it to every
// proof on that slot and drops it when the key is evicted. A backend keeps no key of its own.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "engine/key_tiers.hpp"
#include "groth16/keys.hpp"
#include "groth16/prover.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::engine {

// The backend the engine's devices prove on, and where the urgent lane's small partitions go.
enum class BackendKind : std::uint8_t { kCpu, kCuda };
// "cpu", "cuda" (status, logs, metrics)
constexpr const char* backend_name(BackendKind b) { return b == BackendKind::kCuda ? "cuda" : "cpu"; }
enum class LaneKind : std::uint8_t { kOff, kCpu, kGpu };
constexpr const char* lane_name(LaneKind l) { return l == LaneKind::kGpu ? "gpu" : l == LaneKind::kCpu ? "cpu" : ""; }

// A place backends prove at: a device's main backend, or its urgent lane's.
struct BackendSlot {
  std::uint32_t device = 0;
  bool lane = false;
  friend auto operator<=>(const BackendSlot&, const BackendSlot&) = default;
};

// Where a partition's a, b, c, H and MSM scalars live while it proves: kHost, in host memory (the
// CPU backend: partitions reserve them in the budget); kDevice, in device memory (the host reserves
// only the witness and synthesis transients).
enum class MemoryModel : std::uint8_t { kHost, kDevice };

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string name() const = 0;  // "cpu", "cuda": status and logs
  virtual MemoryModel memory_model() const = 0;
  // A backend for one worker at `slot` (several workers of one slot may share one underneath).
  virtual std::unique_ptr<groth16::Backend> make(BackendSlot slot) = 0;
  // Whether the slot's backend proves from a copy made by upload(); false: from the host key.
  virtual bool uses_copies(BackendSlot slot) const = 0;
  // The slot's copy of `key` and `shape`; pinned host memory is charged through `charge` first.
  // `request`: the form the plan across keys chose (key_tiers.hpp; kAny: the backend decides).
  virtual Result<std::shared_ptr<groth16::KeyCopy>> upload(BackendSlot slot, const groth16::ProvingKey& key,
                                                           const groth16::R1csShape* shape,
                                                           const groth16::HostCharge& charge,
                                                           const groth16::CopyRequest& request = {}) = 0;
  // What a copy of `key` on `slot` costs in each form, for the plan across keys; nullopt: the slot's
  // backend has no forms to choose between (the default: no plan).
  virtual std::optional<CopyCost> copy_cost(BackendSlot slot, const groth16::ProvingKey& key,
                                            const groth16::R1csShape* shape) const {
    (void)slot, (void)key, (void)shape;
    return std::nullopt;
  }
  // Device memory copies and proofs may use on `device` now (free, under gpus.memory_limit); nullopt:
  // unknown (the default: no plan).
  virtual std::optional<std::uint64_t> usable_device_bytes(std::uint32_t device) const {
    (void)device;
    return std::nullopt;
  }
  // Device memory the backends hold besides the copies (proof buffers), for status.
  virtual std::uint64_t workspace_bytes() const = 0;
  // Asked after a start() or an upload() on `device` failed: why the device can no longer prove (a
  // sticky CUDA error, a device that fell off the bus), or nullopt when the failure was the work's own
  // (bad input, cancelled, out of memory). The engine takes a device that answers out of service and
  // gives its work to the others (docs/daemon.md, "Several GPUs"). Default: nullopt (nothing to lose).
  virtual std::optional<std::string> device_fault(std::uint32_t device) {
    (void)device;
    return std::nullopt;
  }
};

// The CPU backend on every slot (the engine's default).
std::shared_ptr<Executor> make_cpu_executor();

// Backends from `make`, proving from host memory (no copies, no device memory of their own): the CPU
// executor, and the simulated devices of tests and benchmarks. `device_fault` answers
// Executor::device_fault (unset: never the device's fault).
std::shared_ptr<Executor> make_host_executor(
    std::string name, MemoryModel model, std::function<std::unique_ptr<groth16::Backend>(BackendSlot)> make,
    std::function<std::optional<std::string>(std::uint32_t)> device_fault = {});

}  // namespace cuzk::engine
