// The offline tools' loop over a partitioned proof (PoRep C2, SnapDeals): for each partition in
// order, synthesize → backend start/finish → self-verify against the inputs derived from the
// request, reporting per-partition timings. The daemon runs the same steps through its pipeline.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/witness.hpp"

namespace cuzk::filecoin {

struct PartitionTiming {
  double synth_ms = 0, prove_ms = 0, verify_ms = 0;
};
struct PartitionProveOptions {
  bool self_verify = true;
  // Called after each partition (for progress output).
  std::function<void(std::size_t partition, const PartitionTiming&)> on_partition;
};

struct PartitionSource {
  std::uint32_t count = 0;
  std::function<Result<groth16::CompactAssignment>(std::uint32_t k)> synthesize;
  std::function<std::span<const math::Fr>(std::uint32_t k)> public_inputs;  // ONE excluded
};

// Errors are prefixed "partition k: ".
Result<std::vector<groth16::Proof>> prove_partitions(const PartitionSource& src, const groth16::R1csShape& shape,
                                                     const groth16::ProvingKey& key, groth16::Backend& backend,
                                                     const PartitionProveOptions& opt = {});

}  // namespace cuzk::filecoin
