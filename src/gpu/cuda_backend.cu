// CudaBackend: groth16::Backend on one device, with device caches of keys (resident or streamed,
// the pinned copy charged through CudaBackendOptions::charge_host_bytes) and shapes, keyed by the host
// object's address and a sampled fingerprint (KeyId, ShapeId), and the out-of-memory fallbacks
// (free the cache, drop the H copies, stream the key). Proofs are GpuProver's.
#include <array>
#include <atomic>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "gpu/groth16_device.cuh"

namespace cuzk::gpu {

using groth16::PendingProof;

namespace {

std::uint64_t fnv(std::uint64_t h, const void* p, std::size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}
template <class T>
std::uint64_t hash_elem(std::uint64_t h, const T& x) {
  return fnv(h, &x, sizeof x);
}
template <class C>
std::uint64_t hash_elem(std::uint64_t h, const math::Affine<C>& p) {  // not the padding after the flag
  h = fnv(h, &p.x, sizeof p.x);
  h = fnv(h, &p.y, sizeof p.y);
  return fnv(h, &p.infinity, sizeof p.infinity);
}
// Length and four sampled elements.
template <class V>
std::uint64_t sample(std::uint64_t h, const V& v) {
  const std::size_t n = v.size();
  h = fnv(h, &n, sizeof n);
  if (n) {
    for (std::size_t i : {std::size_t(0), n / 3, n / 2, n - 1}) h = hash_elem(h, v[i]);
  }
  return h;
}

struct KeyId {
  const void* addr = nullptr;
  std::array<const void*, 5> data{};
  std::uint64_t digest = 0;
  bool operator==(const KeyId& o) const { return addr == o.addr && data == o.data && digest == o.digest; }
  static KeyId of(const groth16::ProvingKey& k) {
    KeyId id;
    id.addr = &k;
    id.data = {k.h.data(), k.l.data(), k.a.data(), k.b_g1.data(), k.b_g2.data()};
    std::uint64_t h = 0xcbf29ce484222325ULL;
    std::uint64_t meta[6] = {k.num_inputs, k.num_aux, k.domain_log2, std::uint64_t(k.h_basis),
                             k.a_aux_density.popcount, k.b_aux_density.popcount};
    h = fnv(h, meta, sizeof meta);
    h = sample(h, k.h);
    h = sample(h, k.l);
    h = sample(h, k.a);
    h = sample(h, k.b_g1);
    h = sample(h, k.b_g2);
    h = fnv(h, &k.vk.delta_g1, sizeof k.vk.delta_g1);
    id.digest = h;
    return id;
  }
};

struct ShapeId {
  const void* addr = nullptr;
  std::array<const void*, 6> data{};
  std::uint64_t digest = 0;
  bool operator==(const ShapeId& o) const { return addr == o.addr && data == o.data && digest == o.digest; }
  static ShapeId of(const groth16::R1csShape& s) {
    ShapeId id;
    id.addr = &s;
    id.data = {s.a.row_ptr.data(), s.a.coeff_ids.data(), s.b.row_ptr.data(), s.b.coeff_ids.data(), s.c.row_ptr.data(),
               s.c.coeff_ids.data()};
    std::uint64_t h = 0xcbf29ce484222325ULL;
    std::uint64_t meta[4] = {s.num_inputs, s.num_aux, std::uint64_t(s.has_c), s.num_constraints()};
    h = fnv(h, meta, sizeof meta);
    for (const auto* m : {&s.a, &s.b, &s.c}) {
      h = sample(h, m->row_ptr);
      h = sample(h, m->cols);
      h = sample(h, m->coeff_ids);
      h = sample(h, m->coeffs);
    }
    id.digest = h;
    return id;
  }
};


}  // namespace

struct CudaBackend::Impl {
  CudaBackendOptions opt;
  std::unique_ptr<GpuProver> prover;
  // A cached key, with the charge of its pinned host copy (streamed keys; CudaBackendOptions::
  // charge_host_bytes), which is returned when the entry leaves the cache.
  struct CachedKey {
    KeyId id;
    std::unique_ptr<GpuKey> key;
    std::shared_ptr<void> charge;
  };
  // Guards everything below. Recursive: forget() may be reached from inside a call holding it (a
  // charge that makes the engine evict an idle key, whose unload hook asks this backend to drop it).
  mutable std::recursive_mutex mu;
  std::list<CachedKey> keys;  // most recently used first
  std::list<std::pair<ShapeId, std::unique_ptr<GpuShape>>> shapes;
  CudaBackendStats stats;
  GpuProveTimings last;

  std::atomic<std::size_t> device_bytes_now{0};  // refreshed under mu at the end of every call

  template <class W>  // std::span<const Fr> or groth16::CompactAssignment
  Result<PendingProof> start(const groth16::R1csShape& shape, const W& w, const groth16::ProvingKey& key);

  std::size_t resident_bytes() const {  // under mu
    std::size_t n = 0;
    for (const auto& e : keys) n += e.key->device_bytes();
    for (const auto& e : shapes) n += e.second->device_bytes();
    if (prover) n += prover->device_bytes();
    return n;
  }
  void refresh_bytes() { device_bytes_now.store(resident_bytes(), std::memory_order_relaxed); }

  // forget() requests. One runs at once when `mu` is free or held by the calling thread; otherwise
  // the thread holding `mu` runs it after unlocking (Lock). Waiting for `mu` instead could
  // deadlock two devices' backends whose charges each make the engine unload a key the other caches.
  struct Forget {
    KeyId key;
    std::optional<ShapeId> shape;
  };
  std::mutex forget_mu;
  std::vector<Forget> forgets;  // guarded by forget_mu

  void request_forget(Forget f) {
    {
      std::lock_guard<std::mutex> g(forget_mu);
      forgets.push_back(std::move(f));
    }
    run_forgets();
  }
  // Holds `mu`; after releasing it, runs the forget() requests that came meanwhile.
  class Lock {
   public:
    explicit Lock(Impl& impl) : impl_(impl) { impl_.mu.lock(); }
    ~Lock() {
      impl_.mu.unlock();
      impl_.run_forgets();
    }
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

   private:
    Impl& impl_;
  };
  // Runs the pending requests if `mu` can be taken now (the pusher's try, and every Lock's release,
  // so that none is left behind).
  void run_forgets() {
    while (true) {
      std::unique_lock<std::recursive_mutex> lock(mu, std::try_to_lock);
      if (!lock.owns_lock()) return;  // its holder runs them when it unlocks
      std::vector<Forget> todo;
      {
        std::lock_guard<std::mutex> g(forget_mu);
        todo.swap(forgets);
      }
      if (todo.empty()) return;
      if (opt.device >= 0) cudaSetDevice(opt.device);  // free on the device they live on
      for (const Forget& f : todo) {
        keys.remove_if([&](const auto& e) { return e.id == f.key; });
        if (f.shape) shapes.remove_if([&](const auto& e) { return e.first == *f.shape; });
      }
      cudaGetLastError();
      refresh_bytes();
    }
  }

  // Frees what can be freed to make room (every cached entry but the ones in use, and workspaces).
  void make_room(const GpuKey* keep_key, const GpuShape* keep_shape) {
    keys.remove_if([&](const auto& e) { return e.key.get() != keep_key; });
    shapes.remove_if([&](const auto& e) { return e.second.get() != keep_shape; });
    for (auto& e : keys) e.key->release_workspace();
    if (prover) prover->release_workspace();
    cudaDeviceSynchronize();
    cudaGetLastError();
  }

  Result<GpuKey*> get_key(const groth16::ProvingKey& key) {
    KeyId id = KeyId::of(key);
    for (auto it = keys.begin(); it != keys.end(); ++it) {
      if (it->id == id) {
        keys.splice(keys.begin(), keys, it);
        return keys.front().key.get();
      }
    }
    while (!keys.empty() && keys.size() >= std::max<std::size_t>(1, opt.max_cached_keys)) keys.pop_back();
    const bool stream = opt.key_residency == KeyResidency::kStreamed ||
                        (opt.key_residency == KeyResidency::kAuto && opt.max_resident_key_bytes &&
                         GpuKey::resident_bytes(key) > opt.max_resident_key_bytes);
    std::shared_ptr<void> charge;
    auto up = upload(key, stream, charge);
    if (!up && is_oom(up.error())) {
      make_room(nullptr, nullptr);
      (void)(up = upload(key, stream, charge));
      if (!up && is_oom(up.error()) && !stream && opt.key_residency == KeyResidency::kAuto)
        (void)(up = upload(key, true, charge));  // does not fit: stream it
    }
    return cache_key(id, std::move(up), std::move(charge));
  }

  // GpuKey::upload, charging a streamed key's pinned host copy first (`charge` receives the token).
  Result<std::unique_ptr<GpuKey>> upload(const groth16::ProvingKey& key, bool stream, std::shared_ptr<void>& charge) {
    charge.reset();
    if (stream && opt.charge_host_bytes) {
      const std::size_t bytes = GpuKey::streamed_host_bytes(key);
      auto c = opt.charge_host_bytes(bytes);
      if (!c) {
        return Error{"GPU prover: streaming the proving key needs " + std::to_string(bytes) +
                     " bytes of pinned host memory: " + c.error()};
      }
      charge = std::move(*c);
    }
    auto up = GpuKey::upload(key, key_options(stream));
    if (!up) charge.reset();
    return up;
  }

  GpuKeyOptions key_options(bool stream) const {
    GpuKeyOptions o;
    o.streamed = stream;
    o.chunk_bases = opt.stream_chunk_bases;
    o.h_copies = opt.h_copies;
    return o;
  }

  Result<GpuKey*> cache_key(const KeyId& id, Result<std::unique_ptr<GpuKey>> up, std::shared_ptr<void> charge) {
    if (!up) return Error{up.error()};
    stats.key_uploads++;
    stats.key_bytes_uploaded += (*up)->device_bytes() + (*up)->host_bytes();
    keys.push_front(CachedKey{id, std::move(*up), std::move(charge)});
    return keys.front().key.get();
  }

  // A resident key that fits but leaves too little room to prove (an out-of-memory even after
  // make_room): replaced in the cache by the same key streamed (kAuto only).
  Result<GpuKey*> restream_key(const groth16::ProvingKey& key, GpuKey* resident, const GpuShape* keep_shape) {
    keys.remove_if([&](const auto& e) { return e.key.get() == resident; });
    make_room(nullptr, keep_shape);
    std::shared_ptr<void> charge;
    auto up = upload(key, true, charge);
    return cache_key(KeyId::of(key), std::move(up), std::move(charge));
  }

  Result<GpuShape*> get_shape(const groth16::R1csShape& shape, const GpuKey* keep_key) {
    ShapeId id = ShapeId::of(shape);
    for (auto it = shapes.begin(); it != shapes.end(); ++it) {
      if (it->first == id) {
        shapes.splice(shapes.begin(), shapes, it);
        return shapes.front().second.get();
      }
    }
    while (!shapes.empty() && shapes.size() >= std::max<std::size_t>(1, opt.max_cached_shapes)) shapes.pop_back();
    auto up = GpuShape::upload(shape);
    if (!up && is_oom(up.error())) {
      make_room(keep_key, nullptr);
      (void)(up = GpuShape::upload(shape));
    }
    if (!up) return Error{up.error()};
    stats.shape_uploads++;
    stats.shape_bytes_uploaded += (*up)->device_bytes();
    shapes.emplace_front(id, std::move(*up));
    return shapes.front().second.get();
  }
};

CudaBackend::CudaBackend(CudaBackendOptions opt) : impl_(std::make_unique<Impl>()) { impl_->opt = opt; }
CudaBackend::~CudaBackend() {
  if (impl_ && impl_->opt.device >= 0) cudaSetDevice(impl_->opt.device);  // free on the device it used
}

namespace {

// Every entry point runs on the configured device (cudaSetDevice is per host thread).
void select_device(int device) {
  if (device >= 0) CUZK_CUDA(cudaSetDevice(device));
}

}  // namespace

template <class W>
Result<PendingProof> CudaBackend::Impl::start(const groth16::R1csShape& shape, const W& w,
                                              const groth16::ProvingKey& key) {
  if (auto st = groth16::check_prover_inputs(shape, w, key); !st) return Error{st.error()};
  Lock lock(*this);
  try {
    if (!device_available()) return Error{"GPU prover: no CUDA device"};
    select_device(opt.device);
    if (!prover) prover = std::make_unique<GpuProver>(opt.tuning, opt.stream_rank);
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: ") + e.what()};
  }
  auto k = get_key(key);
  if (!k) return Error{k.error()};
  auto s = get_shape(shape, *k);
  if (!s) return Error{s.error()};
  auto r = prover->start(**k, **s, w, opt.prove, &last);
  if (!r && is_oom(r.error())) {
    make_room(*k, *s);
    (void)(r = prover->start(**k, **s, w, opt.prove, &last));
  }
  if (!r && is_oom(r.error()) && (*k)->drop_h_copies()) {  // the H MSM's copies: a few % of its speed
    make_room(*k, *s);
    (void)(r = prover->start(**k, **s, w, opt.prove, &last));
  }
  if (!r && is_oom(r.error()) && !(*k)->streamed() && opt.key_residency == KeyResidency::kAuto) {
    (void)(k = restream_key(key, *k, *s));
    if (!k) return Error{k.error()};
    (void)(r = prover->start(**k, **s, w, opt.prove, &last));
  }
  if (r) stats.proofs++;
  refresh_bytes();
  return r;
}

Result<PendingProof> CudaBackend::start(const groth16::R1csShape& shape, std::span<const HostFr> w,
                                        const groth16::ProvingKey& key) {
  return impl_->start(shape, w, key);
}

Result<PendingProof> CudaBackend::start(const groth16::R1csShape& shape, const groth16::CompactAssignment& w,
                                        const groth16::ProvingKey& key) {
  return impl_->start(shape, w, key);
}

Status CudaBackend::preload(const groth16::ProvingKey& key, const groth16::R1csShape* shape) {
  Impl::Lock lock(*impl_);
  try {
    if (!device_available()) return Error{"GPU prover: no CUDA device"};
    select_device(impl_->opt.device);
  } catch (const std::exception& e) {
    cudaGetLastError();
    return Error{std::string("GPU prover: ") + e.what()};
  }
  const Status st = [&]() -> Status {
    auto k = impl_->get_key(key);
    if (!k) return Error{k.error()};
    if (!shape) return ok_status();
    auto s = impl_->get_shape(*shape, *k);
    if (!s) return Error{s.error()};
    return ok_status();
  }();
  impl_->refresh_bytes();
  return st;
}

void CudaBackend::evict_all() {
  Impl::Lock lock(*impl_);
  if (impl_->opt.device >= 0) cudaSetDevice(impl_->opt.device);
  impl_->keys.clear();
  impl_->shapes.clear();
  if (impl_->prover) {
    try {
      impl_->prover->release_workspace();
    } catch (const std::exception&) {
      cudaGetLastError();
    }
  }
  impl_->refresh_bytes();
}

void CudaBackend::forget(const groth16::ProvingKey& key, const groth16::R1csShape* shape) {
  Impl::Forget f{KeyId::of(key), std::nullopt};
  if (shape) f.shape = ShapeId::of(*shape);
  impl_->request_forget(std::move(f));
}

CudaBackendStats CudaBackend::stats() const {
  Impl::Lock lock(*impl_);
  CudaBackendStats s = impl_->stats;
  s.resident_keys = impl_->keys.size();
  for (const auto& e : impl_->keys) {
    if (!e.key->streamed()) continue;
    s.streamed_keys++;
    s.key_host_bytes += e.key->host_bytes();
  }
  s.resident_shapes = impl_->shapes.size();
  s.device_bytes = impl_->resident_bytes();
  return s;
}

std::size_t CudaBackend::device_bytes() const { return impl_->device_bytes_now.load(std::memory_order_relaxed); }

GpuProveTimings CudaBackend::last_timings() const {
  Impl::Lock lock(*impl_);
  return impl_->last;
}

void CudaBackend::set_options(const GpuProveOptions& opt) {
  Impl::Lock lock(*impl_);
  impl_->opt.prove = opt;
}

std::unique_ptr<CudaBackend> make_cuda_backend(CudaBackendOptions opt) { return std::make_unique<CudaBackend>(opt); }

}  // namespace cuzk::gpu
