#include "apps/common/device_backends.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#if CUZK_HAVE_CUDA
#include "gpu/gpu.hpp"
#include "gpu/groth16_backend.hpp"
#endif

namespace cuzk::apps {
namespace {

class CpuBackends final : public DeviceBackends {
 public:
  std::string name() const override { return "cpu"; }
  std::unique_ptr<groth16::Backend> make(std::uint32_t) override { return groth16::make_cpu_backend(); }
  Status preload(const groth16::ProvingKey&, const groth16::R1csShape*, const std::vector<std::uint32_t>&) override {
    return ok_status();
  }
  std::uint64_t device_bytes() const override { return 0; }
  void set_host_charger(HostCharger) override {}
  void forget(const groth16::ProvingKey&, const groth16::R1csShape*) override {}
  void evict_all() override {}
};

#if CUZK_HAVE_CUDA

// CUZK_GPU_PROFILE=1: every proof runs its GPU stages one after the other (GpuProveOptions::profile,
// a few per cent slower) and prints its per-stage times as one GPU_PROFILE line on stderr, so a
// daemon run shows where a real partition's GPU time goes.
bool gpu_profile_requested() {
  static const bool on = [] {
    const char* v = std::getenv("CUZK_GPU_PROFILE");
    return v && *v && *v != '0';
  }();
  return on;
}

void print_gpu_profile(const gpu::GpuProveTimings& t) {
  std::fprintf(stderr,
               "GPU_PROFILE total_ms=%.1f upload=%.1f eval=%.1f ntt_h=%.1f msm_h=%.1f msm_l=%.1f msm_a=%.1f msm_b1=%.1f "
               "msm_b2=%.1f batch_add=%.1f split=%.1f upload_bytes=%zu l_tail=%zu/%zu a_tail=%zu/%zu b_tail=%zu/%zu "
               "key=%s h_copies=%d key_stream_bytes=%zu\n",
               t.total_ms, t.upload_ms, t.eval_ms, t.ntt_ms, t.msm_h_ms, t.msm_l_ms, t.msm_a_ms, t.msm_b1_ms, t.msm_b2_ms,
               t.batch_add_ms, t.split_ms, std::size_t(t.upload_bytes), t.l.tail, t.l.n, t.a.tail, t.a.n, t.b.tail, t.b.n,
               t.streamed ? "streamed" : "resident", t.h_copies, t.key_stream_bytes);
}

// A worker's view of its device's shared backend.
class SharedCudaHandle final : public groth16::Backend {
 public:
  SharedCudaHandle(std::shared_ptr<gpu::CudaBackend> b, std::shared_ptr<std::mutex> profile_mu)
      : b_(std::move(b)), profile_mu_(std::move(profile_mu)) {}
  std::string name() const override { return "cuda"; }
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, std::span<const math::Fr> w,
                                      const groth16::ProvingKey& key) override {
    return run([&] { return b_->start(shape, w, key); });
  }
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, const groth16::CompactAssignment& w,
                                      const groth16::ProvingKey& key) override {
    return run([&] { return b_->start(shape, w, key); });
  }

 private:
  template <class F>
  Result<groth16::PendingProof> run(F&& prove) {
    if (!gpu_profile_requested()) return prove();
    // The backend serializes proofs anyway; holding the lock until the times are read keeps another
    // worker's proof from replacing them.
    std::lock_guard<std::mutex> g(*profile_mu_);
    auto r = prove();
    if (r) print_gpu_profile(b_->last_timings());
    return r;
  }
  std::shared_ptr<gpu::CudaBackend> b_;
  std::shared_ptr<std::mutex> profile_mu_;
};

class CudaBackends final : public DeviceBackends {
 public:
  explicit CudaBackends(const KeyResidencySettings& keys) : keys_(keys) {}
  std::string name() const override { return "cuda"; }
  std::unique_ptr<groth16::Backend> make(std::uint32_t device) override {
    return std::make_unique<SharedCudaHandle>(of(device), profile_mu_);
  }
  Status preload(const groth16::ProvingKey& key, const groth16::R1csShape* shape,
                 const std::vector<std::uint32_t>& devices) override {
    for (std::uint32_t d : devices) {
      if (auto st = of(d)->preload(key, shape); !st) return Error{"device " + std::to_string(d) + ": " + st.error()};
    }
    return ok_status();
  }
  std::uint64_t device_bytes() const override {
    std::lock_guard<std::mutex> g(mu_);
    std::uint64_t n = 0;
    for (const auto& [d, b] : by_device_) n += b->device_bytes();  // never waits for a running proof
    return n;
  }
  void set_host_charger(HostCharger charger) override {
    std::lock_guard<std::mutex> g(charger_->mu);
    charger_->fn = std::move(charger);
  }
  void forget(const groth16::ProvingKey& key, const groth16::R1csShape* shape) override {
    for (const auto& b : all()) b->forget(key, shape);
  }
  void evict_all() override {
    for (const auto& b : all()) b->evict_all();
  }

 private:
  std::shared_ptr<gpu::CudaBackend> of(std::uint32_t device) {
    std::lock_guard<std::mutex> g(mu_);
    auto& b = by_device_[device];
    if (!b) {
      gpu::CudaBackendOptions opt;
      opt.device = int(device);
      // PoRep and a generic circuit may alternate; on an out-of-memory the backend frees the
      // key not in use and retries, so two resident keys cost nothing when they do not fit.
      opt.max_cached_keys = 2;
      opt.key_residency = keys_.residency == "streamed"   ? gpu::KeyResidency::kStreamed
                          : keys_.residency == "resident" ? gpu::KeyResidency::kResident
                                                          : gpu::KeyResidency::kAuto;
      opt.max_resident_key_bytes = keys_.max_resident_key_bytes;
      opt.stream_chunk_bases = keys_.stream_chunk_bases;
      opt.h_copies = int(keys_.h_copies);
      opt.prove.profile = gpu_profile_requested();
      opt.charge_host_bytes = [slot = charger_](std::size_t bytes) -> Result<std::shared_ptr<void>> {
        HostCharger fn;
        {
          std::lock_guard<std::mutex> g(slot->mu);
          fn = slot->fn;
        }
        if (!fn) return std::shared_ptr<void>();
        return fn(bytes);
      };
      b = std::make_shared<gpu::CudaBackend>(opt);
    }
    return b;
  }
  // The backends made so far (called without mu_ held, since forget() and evict_all() wait for a
  // running proof).
  std::vector<std::shared_ptr<gpu::CudaBackend>> all() const {
    std::lock_guard<std::mutex> g(mu_);
    std::vector<std::shared_ptr<gpu::CudaBackend>> v;
    for (const auto& [d, b] : by_device_) v.push_back(b);
    return v;
  }
  // Shared with every backend's options, so that a charger set after they were made reaches them.
  struct ChargerSlot {
    std::mutex mu;
    HostCharger fn;
  };
  std::shared_ptr<ChargerSlot> charger_ = std::make_shared<ChargerSlot>();
  KeyResidencySettings keys_;
  mutable std::mutex mu_;
  std::map<std::uint32_t, std::shared_ptr<gpu::CudaBackend>> by_device_;
  std::shared_ptr<std::mutex> profile_mu_ = std::make_shared<std::mutex>();
};

#endif

}  // namespace

BackendProbe probe_backends() {
  BackendProbe p;
#if CUZK_HAVE_CUDA
  p.cuda_built = true;
  try {
    p.cuda_devices = gpu::device_count();
    if (p.cuda_devices) p.device_name = gpu::device_name();
  } catch (const std::exception&) {
    p.cuda_devices = 0;
  }
#endif
  return p;
}

Result<std::string> choose_backend(const std::string& requested, const BackendProbe& probe) {
  if (requested == "cpu") return std::string("cpu");
  if (requested == "auto") return std::string(probe.cuda_built && probe.cuda_devices ? "cuda" : "cpu");
  if (requested != "cuda") return Error{"backend: expected auto, cpu or cuda, got \"" + requested + "\""};
  if (!probe.cuda_built) return Error{"backend cuda: this build has no CUDA backend; use cpu or auto"};
  if (!probe.cuda_devices) return Error{"backend cuda: no CUDA device found; use cpu or auto"};
  return std::string("cuda");
}

Result<std::uint32_t> resolve_h_copies(std::uint32_t configured, const char* env_value) {
  if (configured != 0 || !env_value || !*env_value) return configured;
  const std::string_view v(env_value);
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
  if (ec != std::errc() || end != v.data() + v.size() || value > 4)
    return Error{"CUZK_GPU_H_COPIES=\"" + std::string(v) + "\": expected an integer from 0 to 4"};
  return std::uint32_t(value);
}

Result<std::shared_ptr<DeviceBackends>> DeviceBackends::create(const std::string& name,
                                                                const KeyResidencySettings& keys) {
  if (name == "cpu") return std::shared_ptr<DeviceBackends>(std::make_shared<CpuBackends>());
  if (keys.residency != "auto" && keys.residency != "resident" && keys.residency != "streamed")
    return Error{"key residency: expected auto, resident or streamed, got \"" + keys.residency + "\""};
  auto copies = resolve_h_copies(keys.h_copies, std::getenv("CUZK_GPU_H_COPIES"));
  if (!copies) return Error{copies.error()};
#if CUZK_HAVE_CUDA
  if (name == "cuda") {
    KeyResidencySettings resolved = keys;
    resolved.h_copies = *copies;
    return std::shared_ptr<DeviceBackends>(std::make_shared<CudaBackends>(resolved));
  }
#endif
  return Error{"backend " + name + " is not available in this build"};
}

}  // namespace cuzk::apps
