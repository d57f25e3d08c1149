// SYNTHETIC TEST DATA: a C1 (SealCommitPhase1Output) for any interactive registered proof —
// 32 GiB and 64 GiB included — built in seconds and a few MB WITHOUT sealing the sector. It is
// internally consistent: every vanilla check of porep::check_c1 passes and the
// partition witnesses satisfy the StackedCircuit. It is NOT the C1 of any real sector: only what the
// challenged paths open is materialized, and everything else (the labels of parents that are not
// challenged themselves, tree siblings off the opened paths) is pseudo-random. It exists to test and
// benchmark C2 (synthesis, proving) at production sizes on machines that cannot seal 32 GiB.
//
// How the circularity replica_id ← comm_d ← tree D ← challenges ← replica_id is broken: the data is
// PERIODIC — data node n = block[n mod 2^k] with a random block of 2^k nodes (k = data_block_log2,
// capped at log2(nodes)), or all zero (zero_data, a committed-capacity sector). Then every tree-D
// subtree of height >= k is the same, comm_d follows from the block alone, and every data path is
// consistent whatever node gets challenged. Then:
//   replica_id = SHA-254(prover_id ‖ sector_id ‖ ticket ‖ comm_d ‖ porep_id)    (exact)
//   challenges = f(replica_id, seed)                                              (exact, interactive)
//   columns: one map node → L rows over the challenged nodes and their 14 parents. Rows of a
//     challenged node are its SDR labels, computed from its parents' rows exactly as SDR does
//     (layer 1: the 6 DRG parents' layer-1 rows; layer ℓ: DRG parents' layer-ℓ rows and the 8 expander
//     parents' layer-(ℓ−1) rows); rows of node 0 are its true labels (no parents); rows of every
//     other node are pseudo-random labels (SHA-254 values).
//   A node that is both challenged and a parent (of another challenge, or an expander parent of
//     itself) is not a conflict: it has ONE column — the computed one — and labels are computed
//     layer by layer, within a layer in increasing node order. DRG parents are < node (checked), so a
//     challenged DRG parent's layer-ℓ label is ready before it is needed; expander parents are read
//     one layer down, which the previous pass finished. So every C1 is consistent; nothing is retried.
//   tree C: a SPARSE Poseidon tree (cfg.tree_rc_shape()) over the column hashes of those nodes,
//     siblings off the opened paths pseudo-random, shared nodes computed once bottom-up → comm_c;
//   tree R: the same over replica = label_L + data at the challenged nodes → comm_r_last;
//   comm_r = Poseidon2(comm_c, comm_r_last); the ChallengeProofs as commit phase 1 builds them.
//
// Synthetic-PoRep and non-interactive variants are NOT supported: their challenges are derived from
// comm_r, which commits to tree R/C values at the challenged nodes (labels that hash the node index),
// so comm_r cannot be fixed before the challenges are known without sealing the whole sector.
// synthetic_c1 throws std::invalid_argument for them.
#pragma once

#include <cstdint>
#include <functional>

#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/common/bytes32.hpp"

namespace cuzk::filecoin::testkit {

struct SyntheticC1Options {
  Bytes32 prover_id{};  // e.g. prover_id_from_actor(miner id)
  std::uint64_t sector_id = 1;
  Bytes32 ticket{};               // sealing randomness (enters replica_id)
  Bytes32 seed{};                 // interactive randomness (selects the challenges)
  std::uint64_t rng_seed = 0;     // everything pseudo-random: data block, parent labels, tree siblings
  unsigned data_block_log2 = 16;  // period of the data (2^k nodes; capped at log2(nodes), at least 1)
  bool zero_data = false;         // all data nodes zero (comm_d = the zero tree's root)
};

struct SyntheticC1Stats {
  std::size_t challenged_nodes = 0;                // distinct challenged nodes over all partitions
  std::size_t columns = 0;                         // distinct nodes with a materialized column (challenged + parents)
  std::size_t shared_columns = 0;                  // challenged nodes that are also a parent of some challenged node
  std::size_t tree_c_nodes = 0, tree_r_nodes = 0;  // materialized nodes of the sparse trees, all levels
  double seconds = 0;
};

// True for V1 and V1_1 (interactive) proofs of any size.
bool synthetic_c1_supported(const porep::PorepConfig& cfg);

// SYNTHETIC TEST DATA (see above). Deterministic in (cfg, opt). Throws std::invalid_argument for
// synthetic-PoRep / non-interactive configurations.
// on_progress (optional, for live progress): ("labels", layers done, cfg.layers) as the challenged
// nodes' labels are computed, then ("vanilla proofs", partitions done, cfg.partitions).
using SyntheticC1Progress = std::function<void(const char* stage, std::size_t done, std::size_t total)>;
porep::C1Output synthetic_c1(const porep::PorepConfig& cfg, const SyntheticC1Options& opt,
                             SyntheticC1Stats* stats = nullptr, const SyntheticC1Progress& on_progress = {});

// The (padded) data node n of that synthetic sector: block[n mod 2^k], or zero. With it a test can
// seal the same data for real and compare comm_d / replica_id.
Bytes32 synthetic_data_node(const porep::PorepConfig& cfg, const SyntheticC1Options& opt, std::uint64_t node);

}  // namespace cuzk::filecoin::testkit
