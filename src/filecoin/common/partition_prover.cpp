#include "filecoin/common/partition_prover.hpp"

#include <chrono>
#include <string>

#include "groth16/verifier.hpp"

namespace cuzk::filecoin {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Result<std::vector<groth16::Proof>> prove_partitions(const PartitionSource& src, const groth16::R1csShape& shape,
                                                     const groth16::ProvingKey& key, groth16::Backend& backend,
                                                     const PartitionProveOptions& opt) {
  std::vector<groth16::Proof> proofs;
  for (std::uint32_t k = 0; k < src.count; ++k) {
    const std::string where = "partition " + std::to_string(k);
    PartitionTiming t;
    auto t0 = std::chrono::steady_clock::now();
    auto synthesized = src.synthesize(k);
    if (!synthesized) return Error{where + ": " + synthesized.error()};
    groth16::CompactAssignment w = std::move(*synthesized);
    t.synth_ms = ms_since(t0);

    t0 = std::chrono::steady_clock::now();
    auto pending = backend.start(shape, w, key);  // compact: the CUDA backend expands it on the device
    if (!pending) return Error{where + ": " + pending.error()};
    w = {};
    groth16::Proof proof = groth16::finish(*pending, key, groth16::ProofRandomness::random());
    t.prove_ms = ms_since(t0);
    if (opt.self_verify) {
      t0 = std::chrono::steady_clock::now();
      auto ok = groth16::verify(key.vk, src.public_inputs(k), proof);
      if (!ok) return Error{where + ": self-verification: " + ok.error()};
      if (!*ok) return Error{where + ": the proof failed self-verification"};
      t.verify_ms = ms_since(t0);
    }
    if (opt.on_partition) opt.on_partition(k, t);
    proofs.push_back(proof);
  }
  return proofs;
}

}  // namespace cuzk::filecoin
