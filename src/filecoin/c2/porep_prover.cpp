#include "filecoin/c2/porep_prover.hpp"

#include <chrono>

#include "circuit/constraint_system.hpp"
#include "filecoin/c2/c1_values.hpp"
#include "filecoin/c2/vanilla_check.hpp"
#include "filecoin/porep/c1_shape.hpp"
#include "filecoin/porep/stacked_circuit.hpp"
#include "filecoin/sdr/graph.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::filecoin::c2 {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

SectorPublic sector_public(const porep::C1Output& c1) { return {c1.replica_id, c1.comm_d, c1.comm_r, c1.seed}; }

}  // namespace

Result<const porep::PorepConfig*> config_of(const porep::C1Output& c1) {
  try {
    return &porep::porep_config_by_name(c1.registered_proof);
  } catch (const std::invalid_argument& e) {
    return Error{std::string("registered_proof: ") + e.what()};
  }
}

Status check_c1(const porep::C1Output& c1, const porep::PorepConfig& config) {
  if (auto st = porep::check_c1_shape(c1, config); !st) return st;
  sdr::Graph graph(config);
  return check_vanilla_proofs(c1, config, graph);
}

Result<groth16::CompactAssignment> synthesize_porep_partition(const porep::C1Output& c1,
                                                             const porep::PorepConfig& config, std::size_t partition,
                                                             const groth16::R1csShape& shape,
                                                             std::span<const math::Fr> derived_inputs,
                                                             const std::function<bool()>& cancelled) {
  auto stop = [&] { return cancelled && cancelled(); };
  auto values = partition_values(c1, config, partition);
  if (!values) return Error{values.error()};
  if (stop()) return Error{"cancelled"};
  const auto params = porep::StackedCircuitParams::from_config(config);
  circuit::Witness w =
      circuit::build_witness([&](auto& cs) { porep::synthesize_stacked_circuit(cs, params, *values); });
  *values = {};
  if (stop()) return Error{"cancelled"};
  if (w.num_variables() != shape.num_variables() || w.inputs.size() != shape.num_inputs)
    return Error{"the witness has " + std::to_string(w.num_variables()) + " variables (" +
                 std::to_string(w.inputs.size()) + " inputs), the circuit " + std::to_string(shape.num_variables()) +
                 " (" + std::to_string(shape.num_inputs) + ")"};
  if (auto st = w.check(); !st) return Error{st.error()};
  if (derived_inputs.size() + 1 != shape.num_inputs)
    return Error{std::to_string(derived_inputs.size()) + " derived public inputs, the circuit has " +
                 std::to_string(shape.num_inputs - 1)};
  for (std::size_t j = 0; j < derived_inputs.size(); ++j)
    if (w.inputs[1 + j] != derived_inputs[j])
      return Error{"public input " + std::to_string(j) + " of the witness differs from the derived one"};
  return w;
}

Result<groth16::Proof> prove_porep_partition(const porep::C1Output& c1, const porep::PorepConfig& config,
                                             std::size_t partition, const groth16::R1csShape& shape,
                                             const groth16::ProvingKey& key, groth16::Backend& backend,
                                             PartitionTiming* timing) {
  PartitionTiming t;
  const std::string where = "partition " + std::to_string(partition);
  auto t0 = std::chrono::steady_clock::now();
  sdr::Graph graph(config);
  const auto inputs = partition_public_inputs(config, graph, sector_public(c1), partition);
  auto synthesized = synthesize_porep_partition(c1, config, partition, shape, inputs);
  if (!synthesized) return Error{where + ": " + synthesized.error()};
  groth16::CompactAssignment w = std::move(*synthesized);
  t.synth_ms = ms_since(t0);

  t0 = std::chrono::steady_clock::now();
  auto pending = backend.start(shape, w, key);  // compact: the CUDA backend expands it on the device
  if (!pending) return Error{where + ": " + pending.error()};
  w = {};
  groth16::Proof proof = groth16::finish(*pending, key, groth16::ProofRandomness::random());
  t.prove_ms = ms_since(t0);
  if (timing) *timing = t;
  return proof;
}

Result<std::vector<groth16::Proof>> prove_porep(const porep::C1Output& c1, const groth16::R1csShape& shape,
                                                const groth16::ProvingKey& key, groth16::Backend& backend,
                                                const PorepProveOptions& opt) {
  auto config = config_of(c1);
  if (!config) return Error{config.error()};
  if (!opt.c1_checked)
    if (auto st = check_c1(c1, **config); !st) return Error{st.error()};
  sdr::Graph graph(**config);
  std::vector<groth16::Proof> proofs;
  for (std::size_t k = 0; k < (*config)->partitions; ++k) {
    PartitionTiming t;
    auto proof = prove_porep_partition(c1, **config, k, shape, key, backend, &t);
    if (!proof) return Error{proof.error()};
    if (opt.self_verify) {
      auto t0 = std::chrono::steady_clock::now();
      const auto inputs = partition_public_inputs(**config, graph, sector_public(c1), k);
      auto ok = groth16::verify(key.vk, inputs, *proof);
      if (!ok) return Error{"partition " + std::to_string(k) + ": self-verification: " + ok.error()};
      if (!*ok) return Error{"partition " + std::to_string(k) + ": the proof failed self-verification"};
      t.verify_ms = ms_since(t0);
    }
    if (opt.on_partition) opt.on_partition(k, t);
    proofs.push_back(*proof);
  }
  return proofs;
}

Result<bool> verify_porep(const porep::PorepConfig& config, const SectorPublic& sector,
                          const groth16::VerifyingKey& vk, std::span<const std::uint8_t> proof_bytes,
                          std::size_t* failed_partition) {
  if (proof_bytes.size() != config.partitions * groth16::kProofBytes)
    return Error{"proof: " + std::to_string(proof_bytes.size()) + " bytes, " + config.name + " needs " +
                 std::to_string(config.partitions) + " partition proofs of " +
                 std::to_string(groth16::kProofBytes) + " bytes"};
  auto proofs = groth16::split_proofs(proof_bytes);
  if (!proofs) return Error{"proof: " + proofs.error()};
  sdr::Graph graph(config);
  for (std::size_t k = 0; k < proofs->size(); ++k) {
    const auto inputs = partition_public_inputs(config, graph, sector, k);
    auto ok = groth16::verify(vk, inputs, (*proofs)[k]);
    if (!ok) return Error{"partition " + std::to_string(k) + ": " + ok.error()};
    if (!*ok) {
      if (failed_partition) *failed_partition = k;
      return false;
    }
  }
  return true;
}

}  // namespace cuzk::filecoin::c2
