// CudaBackend: groth16::Backend on one device. upload() makes a CudaKeyCopy (the key resident or
// streamed, and the circuit's shape) that its owner keeps and hands back to start(); the backend
// holds no copy of its own. The out-of-memory fallbacks (free workspaces, drop the H copies, stream
// the key) change the copy in place and say so through CudaBackendOptions::on_note.
#include <atomic>
#include <future>
#include <cstdio>
#include <mutex>

#include "gpu/msm_pieces.hpp"
#include "gpu/groth16_device.cuh"

namespace cuzk::gpu {

using groth16::PendingProof;

namespace {

// Every entry point runs on the configured device (cudaSetDevice is per host thread).
void select_device(int device) {
  if (device >= 0) CUZK_CUDA(cudaSetDevice(device));
}

int current_device(int configured) {
  if (configured >= 0) return configured;
  int d = 0;
  cudaGetDevice(&d);
  return d;
}

}  // namespace

// One key and shape on one device. Used by one backend call at a time (the backend's lock).
class CudaKeyCopy final : public groth16::KeyCopy {
 public:
  CudaKeyCopy(int device, const groth16::ProvingKey& key, groth16::HostCharge charge)
      : device_(device), pk_(&key), charge_(std::move(charge)) {}
  ~CudaKeyCopy() override {
    cudaSetDevice(device_);  // free on the device the buffers live on
    key.reset();
    shape.reset();
    cudaGetLastError();
  }
  std::uint64_t device_bytes() const override {
    return (key ? key->device_bytes() : 0) + (shape ? shape->device_bytes() : 0);
  }
  std::uint64_t host_bytes() const override { return key ? key->host_bytes() : 0; }
  bool streamed() const override { return key && key->streamed(); }
  bool from_file() const override { return key && key->from_file(); }
  std::string reason() const override { return why; }
  std::string why;  // the form's reason (CudaBackend::Impl::upload and its fallbacks)
  int device() const override { return device_; }
  std::string summary() const override {
    if (!key) return "no key";
    char b[240];
    std::snprintf(b, sizeof b, "%s, %d H cop%s; bases %.1f s, H copies %.1f s, ",
                  key->from_file()  ? "streamed from its file"
                  : key->streamed() ? "streamed"
                                    : "resident",
                  key->h_copies(), key->h_copies() == 1 ? "y" : "ies", key->upload_ms() / 1e3,
                  key->h_copies_ms() / 1e3);
    char r[80];
    if (rows_on_host) std::snprintf(r, sizeof r, "rows on the host (no shape on the device)");
    else std::snprintf(r, sizeof r, "shape %.1f s after them", shape_ms / 1e3);
    return std::string(b) + r;
  }
  double shape_ms = 0;
  bool rows_on_host = false;  // proofs evaluate their rows on the host (gpu/proof_memory.hpp); no shape here

  // The key's bases uploaded (resident), put in pinned memory (streamed, charged first), or H alone
  // in pinned memory and the rest read from the key's file at each proof (charged first: H and the
  // staging buffers). `refused`: set when the charge was refused.
  enum class Form { kResident, kPinned, kFile };
  Status make_key(Form form, const GpuKeyOptions& base, bool* refused = nullptr) {
    key.reset();
    token_.reset();
    if (form != Form::kResident && charge_) {
      const std::size_t bytes = GpuKey::streamed_host_bytes(*pk_, form == Form::kFile, base.chunk_bases);
      auto c = charge_(bytes);
      if (!c) {
        if (refused) *refused = true;
        return Error{"GPU prover: streaming the proving key " +
                     std::string(form == Form::kFile ? "from its file " : "") + "needs " + std::to_string(bytes) +
                     " bytes of pinned host memory: " + c.error()};
      }
      token_ = std::move(*c);
    }
    GpuKeyOptions o = base;
    o.streamed = form != Form::kResident;
    o.from_file = form == Form::kFile;
    auto up = GpuKey::upload(*pk_, o);
    if (!up) {
      token_.reset();
      return Error{up.error()};
    }
    key = std::move(*up);
    return ok_status();
  }

  const groth16::ProvingKey& proving_key() const { return *pk_; }

  std::unique_ptr<GpuKey> key;
  std::unique_ptr<GpuShape> shape;

 private:
  int device_;
  const groth16::ProvingKey* pk_;  // owned by the copy's owner, which keeps it longer than the copy
  groth16::HostCharge charge_;
  std::shared_ptr<void> token_;  // the pinned copy's charge
};

// The shape's device bytes, counted without encoding it (+1% and 64 MiB for the long-row pieces and
// allocation granularity).
static std::size_t shape_device_estimate(const groth16::R1csShape* shape) {
  if (!shape) return 0;
  std::size_t bytes = 0;
  for (const auto* m : {&shape->a, &shape->b, &shape->c}) bytes += encoded_csr_bytes(*m);
  return bytes + bytes / 100 + (std::size_t(64) << 20);
}

struct CudaBackend::Impl {
  CudaBackendOptions opt;
  std::unique_ptr<GpuProver> prover;
  mutable std::mutex mu;  // one call at a time on this backend
  CudaBackendStats stats;
  GpuProveTimings last;
  std::atomic<std::size_t> device_bytes_now{0};

  void note(const std::string& what) const {
    if (opt.on_note) opt.on_note("GPU " + std::to_string(current_device(opt.device)) + ": " + what);
  }

  // A streamed copy: from pinned memory, or from the key's file (kStreamedFromFile; kAuto when the
  // pinned copy is refused and the key's bases are in its file).
  Status make_streamed(CudaKeyCopy& c, const GpuKeyOptions& ko) const {
    using Form = CudaKeyCopy::Form;
    const bool file_ok = !c.proving_key().holds_bases();
    if (opt.key_residency == KeyResidency::kStreamedFromFile && file_ok) return c.make_key(Form::kFile, ko);
    bool refused = false;
    Status st = c.make_key(Form::kPinned, ko, &refused);
    if (!st && refused && file_ok && opt.key_residency == KeyResidency::kAuto) {
      note(st.error() + "; its witness queries are read from its file at each proof instead");
      c.why += "; from its file: the memory budget refused the pinned copy";
      return c.make_key(Form::kFile, ko);
    }
    return st;
  }

  GpuKeyOptions key_options() const {
    GpuKeyOptions o;
    o.chunk_bases = opt.stream_chunk_bases;
    o.h_copies = opt.h_copies;
    return o;
  }

  Status ready() {
    try {
      if (!device_available()) return Error{"GPU prover: no CUDA device"};
      select_device(opt.device);
      if (!prover) prover = std::make_unique<GpuProver>(opt.tuning, opt.stream_rank);
    } catch (const std::exception& e) {
      cudaGetLastError();
      return Error{std::string("GPU prover: ") + e.what()};
    }
    return ok_status();
  }

  // Frees what the device holds beyond the copy in use: MSM workspaces and the prover's buffers.
  void make_room(CudaKeyCopy& c) {
    if (c.key) c.key->release_workspace();
    if (prover) prover->release_workspace();
    cudaDeviceSynchronize();
    cudaGetLastError();
  }

  // Resident or streamed: kAuto keeps the key resident while its bases, the shape and a proof's
  // workspace (kProofReserveBytes per domain element) fit in the free memory and under
  // max_resident_key_bytes; a resident upload that still runs out of memory is streamed instead.
  // Resident: the bases first, then the H copies on the GPU while another thread encodes the shape
  // on the host (32 GiB PoRep on the H200: 5.9-7.9 s of copies beside ~5 s of encoding), then the
  // shape's copy; the copies keep the shape's memory free (its encoded size, counted first).
  Result<std::shared_ptr<groth16::KeyCopy>> upload(const groth16::ProvingKey& key, const groth16::R1csShape* shape,
                                                   const groth16::HostCharge& charge,
                                                   const groth16::CopyRequest& request = {}) {
    if (auto st = key.check_consistency(); !st) return Error{st.error()};
    if (auto st = ready(); !st) return Error{st.error()};
    const int device = current_device(opt.device);
    auto c = std::make_shared<CudaKeyCopy>(device, key, charge);
    const std::size_t shape_estimate = shape_device_estimate(shape);
    const bool planned = opt.key_residency == KeyResidency::kAuto && request.form != groth16::CopyForm::kAny;
    try {
      bool stream =
          opt.key_residency == KeyResidency::kStreamed || opt.key_residency == KeyResidency::kStreamedFromFile;
      const std::size_t need = GpuKey::resident_bytes(key);
      c->why = opt.key_residency == KeyResidency::kResident   ? "resident: gpus.key_residency = \"resident\""
               : opt.key_residency == KeyResidency::kStreamed ? "streamed: gpus.key_residency = \"streamed\""
                                                              : "streamed from its file: gpus.key_residency = \"file\"";
      if (planned) {
        stream = request.form != groth16::CopyForm::kResident;
        c->why = request.reason;
      } else if (opt.key_residency == KeyResidency::kAuto) {
        std::size_t free_b = 0, total_b = 0;
        CUZK_CUDA(cudaMemGetInfo(&free_b, &total_b));
        free_b = device_free_under(free_b, total_b, opt.prove.memory_limit);  // gpus.memory_limit
        const std::size_t reserve = (GpuKeyOptions::kProofReserveBytes << key.domain_log2) + shape_estimate;
        const bool over_limit = opt.max_resident_key_bytes && need > opt.max_resident_key_bytes;
        const std::string sizes =
            std::to_string(need >> 20) + " MiB resident + " + std::to_string(reserve >> 20) +
            " MiB for the shape and a proof " + (over_limit || need + reserve > free_b ? ">" : "<=") + " " +
            std::to_string(free_b >> 20) + " MiB free" + (opt.prove.memory_limit ? " under gpus.memory_limit" : "");
        if (over_limit || need + reserve > free_b) {
          stream = true;
          const std::string why = over_limit ? "above gpus.max_resident_key_bytes" : sizes;
          note("proving key of 2^" + std::to_string(key.domain_log2) + " streamed from pinned host memory: " + why);
          c->why = "streamed: " + why;
        } else {
          c->why = "resident: " + sizes;
        }
      }
      GpuKeyOptions ko = key_options();
      ko.defer_h_copies = true;
      Status st = !stream ? c->make_key(CudaKeyCopy::Form::kResident, ko)
                  : planned && request.form == groth16::CopyForm::kFile && !key.holds_bases()
                      ? c->make_key(CudaKeyCopy::Form::kFile, ko)
                      : make_streamed(*c, ko);
      if (!st && is_oom(st.error()) && !stream && opt.key_residency == KeyResidency::kAuto) {
        note("proving key does not fit resident (" + st.error() + "): streamed instead");
        c->why = "streamed: the resident upload ran out of device memory";
        stream = true;
        (void)(st = make_streamed(*c, ko));
      }
      if (!st) return Error{st.error()};
      if (shape) {
        std::size_t free_b = 0, total_b = 0;
        CUZK_CUDA(cudaMemGetInfo(&free_b, &total_b));
        // the prover's buffers of earlier proofs are made again at the size this key's proofs need
        free_b = device_free_under(free_b + (prover ? prover->device_bytes() : 0), total_b, opt.prove.memory_limit);
        const RowsPlan rows = plan_rows(opt.rows, footprint(key, *shape), shape_estimate, free_b);
        c->why += "; " + rows.why;
        if (rows.on_host) {
          c->rows_on_host = true;
          note("proving key of 2^" + std::to_string(key.domain_log2) + ": " + rows.why);
        }
      }
      if (shape && !c->rows_on_host) {
        const double t0 = now_ms();
        // The host half of the shape's upload beside the H copies (a key with none: just before).
        auto encoding = std::async(std::launch::async, [shape] { return GpuShape::encode(*shape); });
        Status copies = c->key->add_h_copies(opt.h_copies, shape_estimate);
        auto enc = encoding.get();
        if (!copies) return Error{copies.error()};
        if (!enc) return Error{enc.error()};
        auto up = GpuShape::upload(**enc);
        if (!up) return Error{up.error()};
        c->shape = std::move(*up);
        c->shape_ms = now_ms() - t0 - c->key->h_copies_ms();
        stats.shape_uploads++;
        stats.shape_bytes_uploaded += c->shape->device_bytes();
      } else if (auto copies = c->key->add_h_copies(
                     opt.h_copies, c->rows_on_host ? GpuKeyOptions::kProofReserveBytes << key.domain_log2 : 0);
                 !copies) {
        return Error{copies.error()};
      }
      stats.key_uploads++;
      stats.key_bytes_uploaded += c->key->device_bytes() + c->key->host_bytes();
    } catch (const std::exception& e) {
      cudaGetLastError();
      return Error{std::string("GPU prover: ") + e.what()};
    }
    refresh();
    return std::shared_ptr<groth16::KeyCopy>(std::move(c));
  }

  template <class W>  // std::span<const Fr> or groth16::CompactAssignment
  Result<PendingProof> start(const groth16::R1csShape& shape, const W& w, const groth16::ProvingKey& key,
                             CudaKeyCopy& c, const std::function<bool()>& cancelled) {
    GpuProveOptions po = opt.prove;
    po.cancelled = cancelled;  // Backend::set_cancel's check, between the prover's stages and MSM pieces
    if (auto st = groth16::check_prover_inputs(shape, w, key); !st) return Error{st.error()};
    if (&c.proving_key() != &key) return Error{"GPU prover: the key copy was made from another proving key"};
    if (auto st = ready(); !st) return Error{st.error()};
    if (c.device() != current_device(opt.device))
      return Error{"GPU prover: the key copy lives on GPU " + std::to_string(c.device())};
    if (!c.shape && !c.rows_on_host) {
      auto s = GpuShape::upload(shape);
      if (!s) return Error{s.error()};
      c.shape = std::move(*s);
      stats.shape_uploads++;
    }
    auto prove = [&] {
      return c.rows_on_host ? prover->start_host_rows(*c.key, shape, w, po, &last)
                            : prover->start(*c.key, *c.shape, w, po, &last);
    };
    auto r = prove();
    if (!r && is_oom(r.error())) {
      make_room(c);
      (void)(r = prove());
    }
    if (!r && is_oom(r.error()) && c.key->drop_h_copies()) {  // the H MSM's copies: a few % of its speed
      note("out of device memory while proving: the key's H copies dropped");
      make_room(c);
      (void)(r = prove());
    }
    if (!r && is_oom(r.error()) && !c.key->streamed() && opt.key_residency == KeyResidency::kAuto) {
      note("out of device memory while proving: the proving key is streamed from pinned host memory from now on");
      c.why = "streamed: a proof with the resident key ran out of device memory";
      make_room(c);
      if (auto st = make_streamed(c, key_options()); !st) return Error{st.error()};
      (void)(r = prove());
    }
    if (!r && is_oom(r.error()) && !c.rows_on_host && opt.rows == RowsPlacement::kAuto &&
        footprint(key, shape).host_rows_possible()) {
      note("out of device memory while proving: rows evaluated on the host from now on (the shape leaves the device)");
      c.why += "; rows on the host: a proof with the rows on the device ran out of device memory";
      c.rows_on_host = true;
      c.shape.reset();
      make_room(c);
      (void)(r = prove());
    }
    if (r) stats.proofs++;
    refresh();
    return r;
  }

  // Without a copy: one made for this proof alone (tests and one-off tools; nothing is kept).
  template <class W>
  Result<PendingProof> start_once(const groth16::R1csShape& shape, const W& w, const groth16::ProvingKey& key,
                                  const std::function<bool()>& cancelled) {
    if (auto st = groth16::check_prover_inputs(shape, w, key); !st) return Error{st.error()};
    auto c = upload(key, &shape, {});
    if (!c) return Error{c.error()};
    return start(shape, w, key, static_cast<CudaKeyCopy&>(**c), cancelled);
  }

  static ProofFootprint footprint(const groth16::ProvingKey& key, const groth16::R1csShape& shape) {
    ProofFootprint p;
    p.domain_log2 = key.domain_log2;
    p.num_variables = shape.num_variables();
    p.a_n = key.query_size(groth16::Query::kA);
    p.b_n = key.query_size(groth16::Query::kBG1);
    p.snarkjs_layout = key.h_basis == groth16::HBasis::kOddCosetLagrange;
    p.has_c = shape.has_c;
    return p;
  }

  void refresh() { device_bytes_now.store(prover ? prover->device_bytes() : 0, std::memory_order_relaxed); }
};

CudaBackend::CudaBackend(CudaBackendOptions opt) : impl_(std::make_unique<Impl>()) { impl_->opt = std::move(opt); }
CudaBackend::~CudaBackend() {
  if (impl_ && impl_->opt.device >= 0) cudaSetDevice(impl_->opt.device);  // free on the device it used
}

namespace {
CudaKeyCopy* as_cuda(groth16::KeyCopy& c) { return dynamic_cast<CudaKeyCopy*>(&c); }
}  // namespace

Result<std::shared_ptr<groth16::KeyCopy>> CudaBackend::upload(const groth16::ProvingKey& key,
                                                              const groth16::R1csShape* shape,
                                                              const groth16::HostCharge& charge) {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->upload(key, shape, charge);
}

Result<std::shared_ptr<groth16::KeyCopy>> CudaBackend::upload_planned(const groth16::ProvingKey& key,
                                                                      const groth16::R1csShape* shape,
                                                                      const groth16::HostCharge& charge,
                                                                      const groth16::CopyRequest& request) {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->upload(key, shape, charge, request);
}

CopyCosts CudaBackend::copy_costs(const groth16::ProvingKey& key, const groth16::R1csShape* shape,
                                  std::size_t chunk_bases) {
  CopyCosts c;
  c.resident_bytes = GpuKey::resident_bytes(key);
  c.proof_bytes = (GpuKeyOptions::kProofReserveBytes << key.domain_log2) + shape_device_estimate(shape);
  c.pinned_bytes = GpuKey::streamed_host_bytes(key, false, chunk_bases);
  if (!key.holds_bases()) c.file_pinned_bytes = GpuKey::streamed_host_bytes(key, true, chunk_bases);
  return c;
}

Result<PendingProof> CudaBackend::start(const groth16::R1csShape& shape, std::span<const HostFr> w,
                                        const groth16::ProvingKey& key) {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->start_once(shape, w, key, cancel_check());
}

Result<PendingProof> CudaBackend::start(const groth16::R1csShape& shape, const groth16::CompactAssignment& w,
                                        const groth16::ProvingKey& key) {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->start_once(shape, w, key, cancel_check());
}

Result<PendingProof> CudaBackend::start(const groth16::R1csShape& shape, std::span<const HostFr> w,
                                        const groth16::ProvingKey& key, groth16::KeyCopy& copy) {
  CudaKeyCopy* c = as_cuda(copy);
  if (!c) return Error{"GPU prover: the key copy was not made by the CUDA backend"};
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->start(shape, w, key, *c, cancel_check());
}

Result<PendingProof> CudaBackend::start(const groth16::R1csShape& shape, const groth16::CompactAssignment& w,
                                        const groth16::ProvingKey& key, groth16::KeyCopy& copy) {
  CudaKeyCopy* c = as_cuda(copy);
  if (!c) return Error{"GPU prover: the key copy was not made by the CUDA backend"};
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->start(shape, w, key, *c, cancel_check());
}

CudaBackendStats CudaBackend::stats() const {
  std::lock_guard<std::mutex> g(impl_->mu);
  CudaBackendStats s = impl_->stats;
  s.device_bytes = impl_->prover ? impl_->prover->device_bytes() : 0;
  return s;
}

std::size_t CudaBackend::device_bytes() const { return impl_->device_bytes_now.load(std::memory_order_relaxed); }

GpuProveTimings CudaBackend::last_timings() const {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->last;
}

void CudaBackend::set_options(const GpuProveOptions& opt) {
  std::lock_guard<std::mutex> g(impl_->mu);
  impl_->opt.prove = opt;
}

void CudaBackend::release_workspace() {
  std::lock_guard<std::mutex> g(impl_->mu);
  if (impl_->opt.device >= 0) cudaSetDevice(impl_->opt.device);
  if (impl_->prover) {
    try {
      impl_->prover->release_workspace();
    } catch (const std::exception&) {
      cudaGetLastError();
    }
  }
  impl_->refresh();
}

int CudaBackend::h_copies(const groth16::KeyCopy& copy) {
  auto* c = dynamic_cast<const CudaKeyCopy*>(&copy);
  return c && c->key ? c->key->h_copies() : 0;
}

std::unique_ptr<CudaBackend> make_cuda_backend(CudaBackendOptions opt) { return std::make_unique<CudaBackend>(opt); }

}  // namespace cuzk::gpu
