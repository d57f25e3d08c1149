// Executors for the engine tests (engine/executor.hpp), with no GPU:
//   * factory_executor: backends from a function, proving from host memory (a CPU-like executor whose
//     workers' backends a test controls);
//   * CopyExecutor: a device-memory executor whose backends prove only from copies it made: each copy
//     records its slot and the key it was made from and counts itself alive; a "streamed" copy
//     charges its pinned bytes through the HostCharge; uploads can be refused. Its backends check that
//     they get their own slot's copy of the right key, then prove on the CPU (the test keys hold
//     their bases), so every proof still verifies.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/executor.hpp"
#include "groth16/prover.hpp"

namespace cuzk::test {

using engine::BackendSlot;
using engine::Executor;
using engine::MemoryModel;

// Backends from `f`, proving from host memory (engine::make_host_executor).
using Factory = std::function<std::unique_ptr<groth16::Backend>(BackendSlot)>;
inline std::shared_ptr<Executor> factory_executor(Factory f) {
  return engine::make_host_executor("test", MemoryModel::kHost, std::move(f));
}

struct CopyLedger {
  std::atomic<int> alive{0};
  std::atomic<int> made{0};
  std::atomic<int> proofs_with_copy{0};
  std::atomic<int> wrong_copy{0};  // a backend got another slot's copy, or another key's
  int fail_device = -1;            // the first start() there (main backend or lane) fails
  std::atomic<int> failed_starts{0};
  std::mutex mu;
  std::vector<std::string> log;  // "upload <device>[ lane]" / "drop <device>[ lane]"
  void note(const std::string& s) {
    std::lock_guard<std::mutex> g(mu);
    log.push_back(s);
  }
};

class FakeCopy final : public groth16::KeyCopy {
 public:
  FakeCopy(std::shared_ptr<CopyLedger> l, BackendSlot slot, const groth16::ProvingKey* key, bool streamed,
           std::uint64_t bytes, std::shared_ptr<void> charge, bool from_file = false, std::string reason = {})
      : reason_(std::move(reason)),
        l_(std::move(l)),
        slot_(slot),
        key_(key),
        streamed_(streamed),
        from_file_(streamed && from_file),
        bytes_(bytes),
        charge_(std::move(charge)) {
    l_->alive++;
    l_->made++;
    l_->note("upload " + tag());
  }
  ~FakeCopy() override {
    l_->alive--;
    l_->note("drop " + tag());
  }
  std::uint64_t device_bytes() const override { return streamed_ ? 1024 : bytes_; }
  std::uint64_t host_bytes() const override { return streamed_ ? bytes_ : 0; }
  bool streamed() const override { return streamed_; }
  bool from_file() const override { return from_file_; }
  std::string reason() const override { return reason_; }
  int device() const override { return int(slot_.device); }
  BackendSlot slot() const { return slot_; }
  const groth16::ProvingKey* key() const { return key_; }

 private:
  std::string tag() const { return std::to_string(slot_.device) + (slot_.lane ? " lane" : ""); }
  std::string reason_;
  std::shared_ptr<CopyLedger> l_;
  BackendSlot slot_;
  const groth16::ProvingKey* key_;
  bool streamed_, from_file_;
  std::uint64_t bytes_;
  std::shared_ptr<void> charge_;
};

class CopyBackend final : public groth16::Backend {
 public:
  CopyBackend(std::shared_ptr<CopyLedger> l, BackendSlot slot) : l_(std::move(l)), slot_(slot) {}
  std::string name() const override { return "copy-test"; }
  using groth16::Backend::start;
  Result<groth16::PendingProof> start(const groth16::R1csShape&, std::span<const math::Fr>,
                                      const groth16::ProvingKey&) override {
    return Error{"copy-test backend: no copy of the key was given"};
  }
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, std::span<const math::Fr> w,
                                      const groth16::ProvingKey& key, groth16::KeyCopy& copy) override {
    if (int(slot_.device) == l_->fail_device && l_->failed_starts.fetch_add(1) == 0)
      return Error{"CUDA error: unspecified launch failure in msm_h"};
    auto* c = dynamic_cast<FakeCopy*>(&copy);
    if (!c || c->slot() != slot_ || c->key() != &key) {
      l_->wrong_copy++;
      return Error{"copy-test backend: wrong copy"};
    }
    l_->proofs_with_copy++;
    return cpu_->start(shape, w, key);
  }
  Result<groth16::PendingProof> start(const groth16::R1csShape& shape, const groth16::CompactAssignment& w,
                                      const groth16::ProvingKey& key, groth16::KeyCopy& copy) override {
    const std::vector<math::Fr> dense = w.assignment();
    return start(shape, std::span<const math::Fr>(dense), key, copy);
  }

 private:
  std::shared_ptr<CopyLedger> l_;
  BackendSlot slot_;
  std::unique_ptr<groth16::Backend> cpu_ = groth16::make_cpu_backend();
};

class CopyExecutor final : public Executor {
 public:
  struct Options {
    bool streamed = false;  // copies are "pinned": their bytes are charged through HostCharge
    std::uint64_t copy_bytes = 1u << 20;
    bool lane_copies = false;               // the lane slots prove from copies too (a GPU lane)
    int refuse_device = -1;                 // uploads to this device fail
    bool refused_device_is_faulty = false;  // and device_fault() then blames that device
    int fail_device = -1;                   // the first start() on this device fails; device_fault() then blames it
    bool from_file = false;                 // streamed copies say they read the rest from the key's file
    // Planning (SrsManager::preload_planned): the cost of a copy of the key with that many aux
    // variables (zkeys differ in it), and every device's usable memory; none: copies are not priced.
    std::map<std::uint32_t, engine::CopyCost> cost_by_aux;
    std::uint64_t usable_device_bytes = 0;
  };
  explicit CopyExecutor(Options o) : o_(o) { ledger->fail_device = o.fail_device; }
  std::shared_ptr<CopyLedger> ledger = std::make_shared<CopyLedger>();
  std::atomic<bool> refused{false};
  std::vector<std::uint32_t> upload_order;  // the num_aux of each key copied, in upload order

  std::string name() const override { return "copy-test"; }
  std::optional<std::string> device_fault(std::uint32_t device) override {
    if (int(device) == o_.fail_device && ledger->failed_starts > 0)
      return "cudaErrorLaunchFailure: unspecified launch failure";
    if (!o_.refused_device_is_faulty || int(device) != o_.refuse_device || !refused) return std::nullopt;
    return "device " + std::to_string(device) + " is full and faulty";
  }
  MemoryModel memory_model() const override { return MemoryModel::kDevice; }
  std::unique_ptr<groth16::Backend> make(BackendSlot slot) override {
    if (!uses_copies(slot)) return groth16::make_cpu_backend();
    return std::make_unique<CopyBackend>(ledger, slot);
  }
  bool uses_copies(BackendSlot slot) const override { return !slot.lane || o_.lane_copies; }
  std::optional<engine::CopyCost> copy_cost(BackendSlot, const groth16::ProvingKey& key,
                                            const groth16::R1csShape*) const override {
    auto it = o_.cost_by_aux.find(key.num_aux);
    if (it == o_.cost_by_aux.end()) return std::nullopt;
    return it->second;
  }
  std::optional<std::uint64_t> usable_device_bytes(std::uint32_t) const override {
    if (o_.cost_by_aux.empty()) return std::nullopt;
    return o_.usable_device_bytes;
  }
  // A planned form is taken as asked: resident, pinned (streamed) or file (streamed from its file),
  // charging the pinned bytes of that form.
  Result<std::shared_ptr<groth16::KeyCopy>> upload(BackendSlot slot, const groth16::ProvingKey& key,
                                                   const groth16::R1csShape*, const groth16::HostCharge& charge,
                                                   const groth16::CopyRequest& request) override {
    upload_order.push_back(key.num_aux);
    if (request.form != groth16::CopyForm::kAny) {
      const bool streamed = request.form != groth16::CopyForm::kResident;
      const engine::CopyCost cost = o_.cost_by_aux.at(key.num_aux);
      const std::uint64_t bytes = request.form == groth16::CopyForm::kFile     ? cost.file_pinned_bytes
                                  : request.form == groth16::CopyForm::kPinned ? cost.pinned_bytes
                                                                               : cost.resident_bytes;
      std::shared_ptr<void> token;
      if (streamed && charge) {
        auto c = charge(bytes);
        if (!c) return Error{"pinned copy: " + c.error()};
        token = std::move(*c);
      }
      return std::shared_ptr<groth16::KeyCopy>(
          std::make_shared<FakeCopy>(ledger, slot, &key, streamed, bytes, std::move(token),
                                     request.form == groth16::CopyForm::kFile, request.reason));
    }
    if (int(slot.device) == o_.refuse_device) {
      refused = true;
      return Error{"device " + std::to_string(slot.device) + " is full"};
    }
    std::shared_ptr<void> token;
    if (o_.streamed && charge) {
      auto c = charge(o_.copy_bytes);
      if (!c) return Error{"pinned copy: " + c.error()};
      token = std::move(*c);
    }
    return std::shared_ptr<groth16::KeyCopy>(
        std::make_shared<FakeCopy>(ledger, slot, &key, o_.streamed, o_.copy_bytes, std::move(token), o_.from_file));
  }
  std::uint64_t workspace_bytes() const override { return 0; }

 private:
  Options o_;
};

}  // namespace cuzk::test
