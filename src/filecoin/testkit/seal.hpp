// Sealing a (small) sector the way filecoin-proofs' seal_pre_commit_phase1/2 does, keeping in memory
// everything that commit phase 1 (vanilla proofs) needs (filecoin-formats.md §6.7, §6.8):
//   fr32 pad → tree D (comm_d) → replica_id → labels of all layers → tree C over column hashes
//   (comm_c) → replica = label_L + data → tree R (comm_r_last) → comm_r = Poseidon2(comm_c, comm_r_last).
// Memory is about (L + 4)·sector bytes (labels, data/tree D, trees C and R, transient parent cache):
// ~4 GiB for 512 MiB. 32/64 GiB sectors are out of scope for this in-memory sealer.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "filecoin/porep/config.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/testkit/tree.hpp"

namespace cuzk::filecoin::testkit {

struct SealInputs {
  Bytes32 prover_id{};
  std::uint64_t sector_id = 0;
  Bytes32 ticket{};  // sealing randomness
  Bytes32 seed{};    // interactive randomness (commit phase)
  // Unpadded sector content, at most sector_size·127/128 bytes; zero-filled up to that size.
  std::vector<std::uint8_t> data;
};

struct PhaseTiming {
  std::string phase;
  double seconds = 0;
};

struct SealedSector {
  porep::PorepConfig config;
  Bytes32 prover_id{}, ticket{}, porep_id{}, replica_id{};
  std::uint64_t sector_id = 0;
  Bytes32 comm_d{}, comm_c{}, comm_r_last{}, comm_r{};
  std::vector<Bytes32> labels;  // layer-major: labels[(ℓ−1)·nodes + n]
  ShaTree tree_d;               // leaves = padded data
  PoseidonTree tree_c;          // leaves = column hashes
  PoseidonTree tree_r;          // leaves = replica nodes
  std::vector<PhaseTiming> timings;

  const Bytes32& label(std::size_t layer, std::uint64_t node) const {
    return labels[(layer - 1) * config.nodes + node];
  }
  std::span<const Bytes32> data() const { return tree_d.leaves(); }
  // The sealed sector file: replica nodes as 32-byte LE field elements.
  std::vector<std::uint8_t> replica_bytes() const;
};

// The in-memory sealer takes sectors up to 1 GiB (2 KiB, 8 MiB, 512 MiB); throws std::invalid_argument
// naming the proof otherwise. seal() and random_unpadded_data() call it first.
void require_in_memory_sealable(const porep::PorepConfig& config);

// Called as each phase ends (e.g. for live progress); the same entries end up in SealedSector::timings.
using PhaseCallback = std::function<void(const PhaseTiming&)>;

// Called during the labels phase (optional, for live progress): (layer, nodes of that layer labelled
// so far), every 2^18 nodes and at each layer's end; config.layers layers of config.nodes nodes.
using LayerCallback = std::function<void(std::size_t layer, std::uint64_t nodes_done)>;

// Throws std::invalid_argument for oversized data or a sector size the in-memory sealer refuses.
SealedSector seal(const porep::PorepConfig& config, const SealInputs& inputs, const PhaseCallback& on_phase = {},
                  const LayerCallback& on_layer = {});

// Unpadded pseudo-random sector content from a 64-bit seed (ChaCha20 keystream), for tests and
// `cuzk seal --random`.
std::vector<std::uint8_t> random_unpadded_data(const porep::PorepConfig& config, std::uint64_t rng_seed);

}  // namespace cuzk::filecoin::testkit
