// Registered PoRep proofs (rust-filecoin-proofs-api registry.rs; filecoin-formats.md §4.1, §6.1):
// ids 0–19 = {2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB} × {V1, V1_1, V1_1_Feat_SyntheticPoRep,
// V1_2_Feat_NonInteractivePoRep}, with the circuit-relevant per-size configuration.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "circuit/merkle.hpp"

namespace cuzk::filecoin::porep {

enum class PorepVariant { kV1, kV1_1, kSynthetic, kNonInteractive };

struct PorepConfig {
  std::uint32_t id = 0;
  std::string name;  // e.g. "StackedDrg32GiBV1_1"
  PorepVariant variant = PorepVariant::kV1;
  std::string api_version;        // "V1_0_0", "V1_1_0", "V1_2_0"
  std::uint64_t sector_size = 0;  // bytes
  std::uint64_t nodes = 0;        // 32-byte nodes
  std::size_t layers = 0;
  std::size_t base_arity = 8, sub_arity = 0, top_arity = 0;  // tree R / tree C shape
  std::size_t partitions = 0;
  std::size_t challenges_per_partition = 0;

  // Tree D: binary SHA-256 over all nodes.
  circuit::TreeShape tree_d_shape() const;
  // Tree R and tree C: Poseidon base-sub-top (one list of levels per partition proof).
  circuit::TreeShape tree_rc_shape() const;
  std::size_t num_public_inputs() const { return 3 + 18 * challenges_per_partition; }  // ONE excluded
};

// All 20 registered PoRep proofs, in id order.
std::span<const PorepConfig> all_porep_configs();
// Lookup; throw std::invalid_argument with the list of valid names/ids when unknown.
const PorepConfig& porep_config_by_name(std::string_view name);
const PorepConfig& porep_config_by_id(std::uint32_t id);

}  // namespace cuzk::filecoin::porep
