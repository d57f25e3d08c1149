// The engine's view of a Filecoin proof family's job (porep::PorepJob, snap::SnapJob, post::PostJob):
// the key comes from the SrsManager lease, everything else from the job through the one interface
// every family's job has (filecoin::PartitionedJob, filecoin/common/partitioned_job.hpp; the
// constraint below refuses a job that lacks a piece of it at compile time).
//
// A kind adapter is then its prepare(): request fields → Job::prepare → acquire_proving_key.
#pragma once

#include <string>
#include <utility>

#include "engine/job_kind.hpp"
#include "engine/srs_manager.hpp"
#include "filecoin/common/partitioned_job.hpp"

namespace cuzk::engine::kinds {

template <filecoin::PartitionedJob Job>
class PartitionedPrepared final : public PreparedJob {
 public:
  PartitionedPrepared(std::string name, Job job, SrsLease lease, bool device_backend)
      : name_(std::move(name)), job_(std::move(job)), lease_(std::move(lease)), device_backend_(device_backend) {}

  std::uint32_t num_partitions() const override { return job_.partitions(); }

  PartitionMemory partition_memory(std::uint32_t) const override {
    const auto m = job_.partition_memory(lease_->shape, lease_->pk.domain_log2, device_backend_);
    return {m.full, m.after_start};
  }

  Result<SynthesizedPartition> synthesize(std::uint32_t k, const CancelToken& cancel) override {
    if (cancel.cancelled()) return Error{"cancelled"};
    auto w = job_.synthesize(k, lease_->shape, cancel.as_function());
    if (!w) return Error{name_ + ": partition " + std::to_string(k) + ": " + w.error()};
    SynthesizedPartition s;
    s.shape = &lease_->shape;
    s.key = &lease_->pk;
    s.copies = &lease_.copies();
    s.witness = std::move(*w);
    return s;
  }

  const groth16::ProvingKey& key(std::uint32_t) const override { return lease_->pk; }

  Status verify(std::span<const groth16::Proof> proofs) override {
    std::size_t failed = 0;
    auto ok = job_.verify(lease_->pk.vk, proofs, &failed);
    if (!ok) return Error{name_ + ": self-check: " + ok.error()};
    if (!*ok) return Error{name_ + ": self-check failed: partition " + std::to_string(failed) + " does not verify"};
    return ok_status();
  }

  std::string circuit_id() const override { return lease_->id; }

 private:
  std::string name_;
  Job job_;
  SrsLease lease_;
  bool device_backend_ = false;  // the backend keeps the prover's buffers on the device
};

}  // namespace cuzk::engine::kinds
