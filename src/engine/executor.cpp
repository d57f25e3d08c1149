#include "engine/executor.hpp"

namespace cuzk::engine {
namespace {

class CpuExecutor final : public Executor {
 public:
  std::string name() const override { return "cpu"; }
  MemoryModel memory_model() const override { return MemoryModel::kHost; }
  std::unique_ptr<groth16::Backend> make(BackendSlot) override { return groth16::make_cpu_backend(); }
  bool uses_copies(BackendSlot) const override { return false; }
  Result<std::shared_ptr<groth16::KeyCopy>> upload(BackendSlot, const groth16::ProvingKey&, const groth16::R1csShape*,
                                                   const groth16::HostCharge&) override {
    return std::shared_ptr<groth16::KeyCopy>();
  }
  std::uint64_t workspace_bytes() const override { return 0; }
};

}  // namespace

std::shared_ptr<Executor> make_cpu_executor() { return std::make_shared<CpuExecutor>(); }

}  // namespace cuzk::engine
