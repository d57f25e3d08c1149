#include "engine/executor.hpp"

namespace cuzk::engine {
namespace {

class HostExecutor final : public Executor {
 public:
  using Make = std::function<std::unique_ptr<groth16::Backend>(BackendSlot)>;
  using Fault = std::function<std::optional<std::string>(std::uint32_t)>;
  HostExecutor(std::string name, MemoryModel model, Make make, Fault fault)
      : name_(std::move(name)), model_(model), make_(std::move(make)), fault_(std::move(fault)) {}
  std::string name() const override { return name_; }
  MemoryModel memory_model() const override { return model_; }
  std::unique_ptr<groth16::Backend> make(BackendSlot slot) override { return make_(slot); }
  bool uses_copies(BackendSlot) const override { return false; }
  Result<std::shared_ptr<groth16::KeyCopy>> upload(BackendSlot, const groth16::ProvingKey&, const groth16::R1csShape*,
                                                   const groth16::HostCharge&, const groth16::CopyRequest&) override {
    return std::shared_ptr<groth16::KeyCopy>();
  }
  std::uint64_t workspace_bytes() const override { return 0; }
  std::optional<std::string> device_fault(std::uint32_t device) override {
    return fault_ ? fault_(device) : std::nullopt;
  }

 private:
  std::string name_;
  MemoryModel model_;
  Make make_;
  Fault fault_;
};

}  // namespace

std::shared_ptr<Executor> make_host_executor(std::string name, MemoryModel model,
                                             std::function<std::unique_ptr<groth16::Backend>(BackendSlot)> make,
                                             std::function<std::optional<std::string>(std::uint32_t)> device_fault) {
  return std::make_shared<HostExecutor>(std::move(name), model, std::move(make), std::move(device_fault));
}

std::shared_ptr<Executor> make_cpu_executor() {
  return make_host_executor("cpu", MemoryModel::kHost, [](BackendSlot) { return groth16::make_cpu_backend(); });
}

}  // namespace cuzk::engine
