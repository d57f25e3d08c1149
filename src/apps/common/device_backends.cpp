#include "apps/common/device_backends.hpp"

#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#if CUZK_HAVE_CUDA
#include "gpu/gpu.hpp"
#include "gpu/groth16_backend.hpp"
#include "gpu/msm_pieces.hpp"
#endif

namespace cuzk::apps {
namespace {

class CpuBackends final : public DeviceBackends {
 public:
  std::string name() const override { return "cpu"; }
  engine::MemoryModel memory_model() const override { return engine::MemoryModel::kHost; }
  std::unique_ptr<groth16::Backend> make(engine::BackendSlot) override { return groth16::make_cpu_backend(); }
  bool uses_copies(engine::BackendSlot) const override { return false; }
  Result<std::shared_ptr<groth16::KeyCopy>> upload(engine::BackendSlot, const groth16::ProvingKey&,
                                                   const groth16::R1csShape*, const groth16::HostCharge&,
                                                   const groth16::CopyRequest&) override {
    return std::shared_ptr<groth16::KeyCopy>();
  }
  std::uint64_t workspace_bytes() const override { return 0; }
};

#if CUZK_HAVE_CUDA

void print_gpu_profile(const gpu::GpuProveTimings& t) {
  std::fprintf(
      stderr,
      "GPU_PROFILE total_ms=%.1f upload=%.1f eval=%.1f ntt_h=%.1f msm_h=%.1f msm_l=%.1f msm_a=%.1f msm_b1=%.1f "
      "msm_b2=%.1f batch_add=%.1f split=%.1f upload_bytes=%zu l_tail=%zu/%zu a_tail=%zu/%zu b_tail=%zu/%zu "
      "key=%s h_copies=%d key_stream_bytes=%zu key_read=%.1f rows=%s msm_pieces=%zu rows_freed=%zu "
      "device_used_max=%zu\n",
      t.total_ms, t.upload_ms, t.eval_ms, t.ntt_ms, t.msm_h_ms, t.msm_l_ms, t.msm_a_ms, t.msm_b1_ms, t.msm_b2_ms,
      t.batch_add_ms, t.split_ms, std::size_t(t.upload_bytes), t.l.tail, t.l.n, t.a.tail, t.a.n, t.b.tail, t.b.n,
      t.streamed ? "streamed" : "resident", t.h_copies, t.key_stream_bytes, t.key_read_ms,
      t.rows_on_host ? "host" : "device", t.msm_pieces, t.rows_freed_bytes, t.device_used_max);
}

// A worker's view of its device's shared backend. With GpuEnvTuning::profile (CUZK_GPU_PROFILE=1)
// every proof runs its GPU stages one after the other (GpuProveOptions::profile, a few per cent
// slower) and prints its per-stage times as one GPU_PROFILE line on stderr, so a daemon run shows
// where a real partition's GPU time goes.
class SharedCudaHandle final : public groth16::Backend {
 public:
  SharedCudaHandle(std::shared_ptr<gpu::CudaBackend> b, std::shared_ptr<std::mutex> profile_mu, bool profile)
      : b_(std::move(b)), profile_mu_(std::move(profile_mu)), profile_(profile) {}
  std::string name() const override { return "cuda"; }
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, std::span<const math::Fr> w,
                                      const groth16::ProvingKey& key) override {
    return run([&] { return b_->start(shape, w, key); });
  }
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, const groth16::CompactAssignment& w,
                                      const groth16::ProvingKey& key) override {
    return run([&] { return b_->start(shape, w, key); });
  }
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, std::span<const math::Fr> w,
                                      const groth16::ProvingKey& key, groth16::KeyCopy& copy) override {
    return run([&] { return b_->start(shape, w, key, copy); });
  }
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, const groth16::CompactAssignment& w,
                                      const groth16::ProvingKey& key, groth16::KeyCopy& copy) override {
    return run([&] { return b_->start(shape, w, key, copy); });
  }
  Result<std::shared_ptr<groth16::KeyCopy>> upload(const groth16::ProvingKey& key, const groth16::R1csShape* shape,
                                                   const groth16::HostCharge& charge) override {
    return b_->upload(key, shape, charge);
  }

 private:
  template <class F>
  Result<groth16::PendingProof> run(F&& prove) {
    if (!profile_) return prove();
    // The backend serializes proofs anyway; holding the lock until the times are read keeps another
    // worker's proof from replacing them.
    std::lock_guard<std::mutex> g(*profile_mu_);
    auto r = prove();
    if (r) print_gpu_profile(b_->last_timings());
    return r;
  }
  std::shared_ptr<gpu::CudaBackend> b_;
  std::shared_ptr<std::mutex> profile_mu_;
  bool profile_;
};

class CudaBackends final : public DeviceBackends {
 public:
  CudaBackends(const KeyResidencySettings& keys, const GpuEnvTuning& gpu, bool gpu_lane,
               std::function<void(const std::string&)> on_note)
      : keys_(keys), gpu_(gpu), gpu_lane_(gpu_lane), on_note_(std::move(on_note)) {}
  std::string name() const override { return "cuda"; }
  engine::MemoryModel memory_model() const override { return engine::MemoryModel::kDevice; }
  std::unique_ptr<groth16::Backend> make(engine::BackendSlot slot) override {
    if (slot.lane && !gpu_lane_) return groth16::make_cpu_backend();
    // The lane has its own profile lock: the main backend's would order the lane's proofs behind
    // the partition's.
    return std::make_unique<SharedCudaHandle>(of(slot), slot.lane ? lane_profile_mu_ : profile_mu_, gpu_.profile);
  }
  bool uses_copies(engine::BackendSlot slot) const override { return !slot.lane || gpu_lane_; }
  Result<std::shared_ptr<groth16::KeyCopy>> upload(engine::BackendSlot slot, const groth16::ProvingKey& key,
                                                   const groth16::R1csShape* shape, const groth16::HostCharge& charge,
                                                   const groth16::CopyRequest& request) override {
    if (!uses_copies(slot)) return std::shared_ptr<groth16::KeyCopy>();
    return of(slot)->upload_planned(key, shape, charge, request);
  }
  // Only keys whose form is ours to choose are planned (gpus.key_residency = "auto"); a key above
  // gpus.max_resident_key_bytes is not (the backend streams it, as the operator asked).
  std::optional<engine::CopyCost> copy_cost(engine::BackendSlot slot, const groth16::ProvingKey& key,
                                            const groth16::R1csShape* shape) const override {
    if (!uses_copies(slot) || keys_.residency != "auto") return std::nullopt;
    const gpu::CopyCosts c = gpu::CudaBackend::copy_costs(key, shape, keys_.stream_chunk_bases);
    if (keys_.max_resident_key_bytes && c.resident_bytes > keys_.max_resident_key_bytes) return std::nullopt;
    return engine::CopyCost{c.resident_bytes, c.proof_bytes, c.pinned_bytes, c.file_pinned_bytes};
  }
  std::optional<std::uint64_t> usable_device_bytes(std::uint32_t device) const override {
    std::uint64_t free_b = 0, total_b = 0;
    device_memory(device, &free_b, &total_b);
    if (!total_b) return std::nullopt;
    return gpu::device_free_under(free_b, total_b, keys_.memory_limit);
  }
  std::uint64_t workspace_bytes() const override {
    std::lock_guard<std::mutex> g(mu_);
    std::uint64_t n = 0;
    for (const auto& [s, b] : backends_) n += b->device_bytes();  // never waits for a running proof
    return n;
  }
  std::optional<std::string> device_fault(std::uint32_t device) override { return gpu::device_fault(device); }

 private:
  // The slot's backend (lane: no H copies, every stream at the top priority).
  std::shared_ptr<gpu::CudaBackend> of(engine::BackendSlot slot) {
    std::lock_guard<std::mutex> g(mu_);
    auto& b = backends_[slot];
    if (!b) {
      gpu::CudaBackendOptions opt;
      opt.device = int(slot.device);
      opt.key_residency = keys_.residency == "file"       ? gpu::KeyResidency::kStreamedFromFile
                          : keys_.residency == "streamed" ? gpu::KeyResidency::kStreamed
                          : keys_.residency == "resident" ? gpu::KeyResidency::kResident
                                                          : gpu::KeyResidency::kAuto;
      opt.max_resident_key_bytes = keys_.max_resident_key_bytes;
      opt.stream_chunk_bases = keys_.stream_chunk_bases;
      opt.h_copies = int(keys_.h_copies);
      opt.prove.profile = gpu_.profile;
      opt.prove.memory_limit = keys_.memory_limit;
      opt.tuning = gpu_.tuning;
      opt.on_note = on_note_;
      if (slot.lane) {
        opt.h_copies = 1;  // small keys: the copies' few per cent are not worth the memory beside a partition
        opt.stream_rank = gpu::StreamRank::kLane;
      } else if (gpu_lane_) {
        opt.stream_rank = gpu::StreamRank::kBelowLane;
      }
      b = std::make_shared<gpu::CudaBackend>(opt);
    }
    return b;
  }
  KeyResidencySettings keys_;
  GpuEnvTuning gpu_;
  bool gpu_lane_ = false;
  std::function<void(const std::string&)> on_note_;
  mutable std::mutex mu_;
  std::map<engine::BackendSlot, std::shared_ptr<gpu::CudaBackend>> backends_;
  std::shared_ptr<std::mutex> profile_mu_ = std::make_shared<std::mutex>();
  std::shared_ptr<std::mutex> lane_profile_mu_ = std::make_shared<std::mutex>();
};

#endif

}  // namespace

BackendProbe probe_backends() {
  BackendProbe p;
#if CUZK_HAVE_CUDA
  p.cuda_built = true;
  p.architectures = gpu::built_architectures();
  try {
    for (auto& d : gpu::device_infos()) {
      p.devices.push_back(
          judged({d.ordinal, d.name, d.cc_major, d.cc_minor, d.total_bytes, d.free_bytes, d.loadable, d.problem}));
    }
    p.cuda_devices = std::uint32_t(p.devices.size());
    if (!p.devices.empty()) p.device_name = p.devices[0].name;
  } catch (const std::exception&) {
    p.cuda_devices = 0;
    p.devices.clear();
  }
#endif
  return p;
}

GpuDevice judged(GpuDevice g) {
  if (g.usable && g.total_bytes < kMinDeviceMemory) {
    g.usable = false;
    g.problem = "too little memory (" + std::to_string(g.total_bytes >> 20) + " MiB; at least " +
                std::to_string(kMinDeviceMemory >> 20) + " MiB needed)";
  }
  return g;
}

std::vector<std::uint32_t> BackendProbe::usable() const {
  std::vector<std::uint32_t> out;
  for (const auto& d : devices)
    if (d.usable) out.push_back(d.ordinal);
  return out;
}

std::string describe(const GpuDevice& d) {
  auto gib = [](std::uint64_t b) {
    char s[32];
    std::snprintf(s, sizeof s, "%.1f GiB", double(b) / double(1ull << 30));
    return std::string(s);
  };
  return "GPU " + std::to_string(d.ordinal) + ": " + (d.name.empty() ? "(unknown)" : d.name) + ", compute " +
         std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) + ", " + gib(d.total_bytes) +
         (d.usable ? " (" + gib(d.free_bytes) + " free): usable" : ": not used: " + d.problem);
}

void device_memory(std::uint32_t ordinal, std::uint64_t* free_bytes, std::uint64_t* total_bytes) {
#if CUZK_HAVE_CUDA
  gpu::device_memory(ordinal, free_bytes, total_bytes);
#else
  (void)ordinal;
  *free_bytes = *total_bytes = 0;
#endif
}

Result<engine::BackendKind> choose_backend(const std::string& requested, const BackendProbe& probe) {
  using engine::BackendKind;
  if (requested == "cpu") return BackendKind::kCpu;
  const bool usable = !probe.usable().empty();
  if (requested == "auto") return probe.cuda_built && usable ? BackendKind::kCuda : BackendKind::kCpu;
  if (requested != "cuda") return Error{"backend: expected auto, cpu or cuda, got \"" + requested + "\""};
  if (!probe.cuda_built) return Error{"backend cuda: this build has no CUDA backend; use cpu or auto"};
  if (!probe.cuda_devices) return Error{"backend cuda: no CUDA device found; use cpu or auto"};
  if (!usable)
    return Error{"backend cuda: no usable CUDA device (" + describe(probe.devices[0]) + "); use cpu or auto"};
  return BackendKind::kCuda;
}

Result<std::uint32_t> resolve_h_copies(std::uint32_t configured, const char* env_value) {
  if (configured != 0) return configured;
  auto v = parse_env_int("CUZK_GPU_H_COPIES", env_value, 0, 4);
  if (!v) return Error{v.error()};
  return std::uint32_t(v->value_or(0));
}

Result<std::shared_ptr<DeviceBackends>> DeviceBackends::create(engine::BackendKind backend,
                                                               const KeyResidencySettings& keys,
                                                               const GpuEnvTuning& gpu_env, bool gpu_lane,
                                                               std::function<void(const std::string&)> on_note) {
  if (backend == engine::BackendKind::kCpu) {
    (void)on_note;
    return std::shared_ptr<DeviceBackends>(std::make_shared<CpuBackends>());
  }
  if (keys.residency != "auto" && keys.residency != "resident" && keys.residency != "streamed" &&
      keys.residency != "file")
    return Error{"key residency: expected auto, resident, streamed or file, got \"" + keys.residency + "\""};
#if CUZK_HAVE_CUDA
  if (backend == engine::BackendKind::kCuda) {
    KeyResidencySettings resolved = keys;
    if (resolved.h_copies == 0) resolved.h_copies = gpu_env.h_copies;  // the config wins
    return std::shared_ptr<DeviceBackends>(
        std::make_shared<CudaBackends>(resolved, gpu_env, gpu_lane, std::move(on_note)));
  }
#endif
  return Error{std::string("backend ") + engine::backend_name(backend) + " is not available in this build"};
}

}  // namespace cuzk::apps
