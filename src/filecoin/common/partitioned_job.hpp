// The one interface of a Filecoin proof family's job (porep::PorepJob, snap::SnapJob, post::PostJob
// with its one partition): what the engine's kind adapter (engine/kinds/partitioned_prepared.hpp) and
// the CLI's prove driver (apps/cuzk/prove_driver.hpp) are written against, once for every family.
// A job is made by the family's own prepare() from a request (decoded and checked before any key is
// touched); from then on:
//
//   partitions()                                   P, the partition proofs of one request
//   check_key(shape)                               the key's shape is this request's circuit
//   partition_memory(shape, domain_log2, device)   the family's model of one partition in flight
//   synthesize(k, shape, cancelled)                partition k's compact witness, its inputs checked
//   public_inputs(k)                               partition k's inputs (ONE excluded), derived from the request
//   verify(vk, proofs, &failed)                    all P proofs against inputs re-derived independently
//                                                  of synthesis; Ok(false) and `failed` when one fails
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "filecoin/common/partition_memory.hpp"
#include "filecoin/common/partition_prover.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/witness.hpp"

namespace cuzk::filecoin {

template <class J>
concept PartitionedJob = requires(const J& job, std::uint32_t k, const groth16::R1csShape& shape,
                                  std::uint32_t domain_log2, bool device_backend,
                                  const std::function<bool()>& cancelled, const groth16::VerifyingKey& vk,
                                  std::span<const groth16::Proof> proofs, std::size_t* failed) {
  { job.partitions() } -> std::convertible_to<std::uint32_t>;
  { job.check_key(shape) } -> std::same_as<Status>;
  { job.partition_memory(shape, domain_log2, device_backend) } -> std::same_as<PartitionBytes>;
  { job.synthesize(k, shape, cancelled) } -> std::same_as<Result<groth16::CompactAssignment>>;
  { job.public_inputs(k) } -> std::same_as<std::span<const math::Fr>>;
  { job.verify(vk, proofs, failed) } -> std::same_as<Result<bool>>;
};

// The offline loop over a job (prove_partitions): every partition synthesized, proved with `backend`
// and self-verified in order. `shape` is the key's (after check_key).
template <PartitionedJob Job>
Result<std::vector<groth16::Proof>> prove_job(const Job& job, const groth16::R1csShape& shape,
                                              const groth16::ProvingKey& key, groth16::Backend& backend,
                                              const PartitionProveOptions& opt = {}) {
  const PartitionSource src{job.partitions(), [&](std::uint32_t k) { return job.synthesize(k, shape, {}); },
                            [&](std::uint32_t k) { return job.public_inputs(k); }};
  return prove_partitions(src, shape, key, backend, opt);
}

}  // namespace cuzk::filecoin
