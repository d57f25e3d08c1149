// Registered update proofs (go-state-types abi.RegisteredUpdateProof, the wire's `registered_proof`
// for SNAP_DEALS_UPDATE; post-snap.md §1.1) and the EmptySectorUpdate geometry of every sector size
// storage-proofs-update allows (constants.rs), test sizes included:
//
//   0–4  StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1    (the circuit does not depend on the api version)
//
//   nodes   ≤ 8 KiB: P = 1, A = 8;  ≤ 32 KiB: P = 2;  ≤ 16 MiB: P = 4;  else P = 16 (A = 128)
//   C       10 up to 16 MiB, else 86;   hs = [1;6] up to 32 KiB, else [7..12];  h = hs[3]
//   h_select = 1 << (first i with hs[i] == h)   → 1 for ≤ 32 KiB (the 2 KiB trap), 8 above
//   challenge bits: cb = log2 nodes, pb = log2 P, rb = cb − pb, cpd = floor(254 / rb),
//   dpp = ceil(C / cpd); apex leaves of partition k sit at TreeD height cb − pb − ab (ab = log2 A)
//
// The single-partition Poseidon variant (storage-proofs-update/src/poseidon, "NOT AUDITED") has no
// registered code: P = 1, C = C·P of the partitioned variant, rb = cb, no apex; only the library and
// `cuzk … --poseidon` reach it.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "circuit/merkle.hpp"
#include "filecoin/params/cache_names.hpp"

namespace cuzk::filecoin::snap {

enum class UpdateVariant { kPartitioned, kPoseidon };
const char* to_string(UpdateVariant v);  // "snapdeals", "snapdeals-poseidon"

struct SnapGeometry {
  UpdateVariant variant = UpdateVariant::kPartitioned;
  std::uint64_t nodes = 0;                // sector_size / 32
  circuit::TreeShape tree_r;              // Poseidon base-sub-top (tree R old and new)
  std::size_t partitions = 0;             // P
  std::size_t challenge_count = 0;        // C per partition
  std::size_t apex_leaf_count = 0;        // A (0 for the Poseidon variant)
  std::array<std::size_t, 6> hs{};        // allowed h values
  std::size_t h = 0;                      // h_default = hs[3]
  std::size_t h_select = 0;               // 1 << (first index of h in hs)
  std::size_t challenge_bits = 0;         // cb = log2(nodes)
  std::size_t partition_bits = 0;         // pb = log2(P)
  std::size_t random_bits = 0;            // rb = cb − pb
  std::size_t challenges_per_digest = 0;  // floor(Fr::CAPACITY = 254 / rb)
  std::size_t digests_per_partition = 0;  // ceil(C / cpd)
  std::size_t apex_bits = 0;              // ab = log2(A)
  std::size_t apex_level() const { return challenge_bits - partition_bits - apex_bits; }  // TreeD height of apex leaves

  // k | (h_select << pb): the first public input of partition k (2 KiB → 1; 8 MiB → k + 32; 16-way → k + 128).
  std::uint64_t k_and_h_select(std::size_t k) const {
    return std::uint64_t(k) | (std::uint64_t(h_select) << partition_bits);
  }
  std::size_t tree_r_levels() const { return tree_r.level_arities().size(); }
  static constexpr std::size_t kNumPublicInputs =
      4;  // [k_and_h_select | h_select, comm_r_old, comm_d_new, comm_r_new], ONE excluded
};

// The geometry of storage-proofs-update for a sector of `sector_bytes` (one of the 11 ALLOWED_SECTOR_SIZES:
// 1, 2, 4, 8, 16, 32 KiB, 8, 16, 512 MiB, 32, 64 GiB) with its tree R shape (8-4-0, 8-0-0, 8-2-0, 8-4-0,
// 8-8-0, 8-8-2, 8-0-0, 8-2-0, 8-0-0, 8-8-0, 8-8-2 — the shapes storage-proofs-update's tests use).
Result<SnapGeometry> snap_geometry(std::uint64_t sector_bytes, UpdateVariant variant = UpdateVariant::kPartitioned);

struct UpdateConfig {
  std::uint32_t code = 0;  // RegisteredUpdateProof
  std::string name;        // go-state-types, e.g. "StackedDrg32GiBV1"
  std::uint64_t sector_size = 0;
  SnapGeometry geometry;  // the partitioned variant

  params::ProofFamily family() const { return params::ProofFamily::kSnapDeals; }
  static constexpr const char* kind_name() { return "snap-update"; }  // the daemon's kind name
};

// All 5 registered update proofs, in code order.
std::span<const UpdateConfig> all_update_configs();
// By code 0–4; the error lists the valid codes.
Result<const UpdateConfig*> update_config_by_code(std::uint64_t code);
// By go-state-types name (StackedDrg2KiBV1 … StackedDrg64GiBV1, also with the
// "RegisteredUpdateProof_" prefix Go prints) or decimal code 0–4.
Result<const UpdateConfig*> update_config_by_name(std::string_view name);
// By sector size (the daemon's sector_size field).
Result<const UpdateConfig*> update_config_by_sector_size(std::uint64_t sector_size);

}  // namespace cuzk::filecoin::snap
