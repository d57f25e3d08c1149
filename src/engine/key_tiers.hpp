// Key tiers planned across keys (issue 39 item 2): where each device's copy of each preloaded key
// lives — resident in device memory, streamed from pinned host memory, or streamed from its mapped
// file through a small pinned staging ring — decided once for every key the daemon preloads, with
// the keys whose proofs have a chain deadline placed first.
//
// Why one plan and not each key alone: a key placed alone takes what fits when its turn comes, so the
// order of the preload list decides. A 32 GiB PoRep key (resident ~46 GB) preloaded before the 32 GiB
// WindowPoSt key (~61 GB) leaves an H200 (139 GiB) too little for both beside a 2^27 proof's
// workspace, and the WindowPoSt key — the proof whose miss is a fault — would be the one streamed
// (~8 s of PCIe and decoding per proof on the h100, bench/RESULTS_post.md). The plan puts the
// deadline-bound keys first (WinningPoSt, WindowPoSt), then the rest, each in the best tier that still
// fits, and says why in words the operator reads in the log, /status (copies[].reason) and /metrics.
//
// The rules, per device (each copy is planned on the device of its slot):
//   order     deadline-bound keys before the others; within each group the smaller resident copy first
//             (more keys fit), then by id (the same plan every start);
//   resident  when the copies made resident so far, this one, and the largest workspace any planned
//             key's proof needs on that device (its shape and proof buffers: every key's proofs
//             run there, resident or not) fit in the device's usable memory (free memory under
//             gpus.memory_limit at planning time);
//   pinned    else when its pinned copy fits what is left of the host memory for pinned copies (the
//             memory budget's room, shared by every device's copies);
//   file      else when its bases are in a file (a mapped .params): only H and the staging buffers
//             are pinned;
//   else      pinned anyway, with the reason: the load then fails with the budget's words.
// Plain data: no device, no budget; the engine fills the inputs from the executor (Executor::copy_cost).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "groth16/prover.hpp"

namespace cuzk::engine {

// What one copy of a key costs on one device (the backend's numbers: Executor::copy_cost).
struct CopyCost {
  std::uint64_t resident_bytes = 0;     // device memory of a resident copy (bases and maps)
  std::uint64_t proof_bytes = 0;        // device memory a proof with this key needs beside it (shape, buffers)
  std::uint64_t pinned_bytes = 0;       // pinned host memory of a copy streamed from pinned memory
  std::uint64_t file_pinned_bytes = 0;  // pinned host memory streamed from its file; 0: not in a file
};

struct TierKey {
  std::string id;
  bool deadline_bound = false;         // its proofs are worthless after a chain deadline (PoSt)
  std::vector<std::uint32_t> devices;  // one entry per copy asked for (a lane's copy repeats its device)
  CopyCost cost;
};

struct TierDevice {
  std::uint32_t device = 0;
  std::uint64_t usable_bytes = 0;  // free device memory under gpus.memory_limit
};

struct TierChoice {
  std::string id;
  std::uint32_t device = 0;
  groth16::CopyForm form = groth16::CopyForm::kResident;
  std::string reason;
};

struct TierPlan {
  std::vector<TierChoice> choices;  // in planning order: the order the copies are made
  // The choice for a key's copy on a device (nullptr when the plan has none).
  const TierChoice* find(std::string_view id, std::uint32_t device) const;
  // The keys in planning order, each once.
  std::vector<std::string> key_order() const;
};

// `pinned_room`: host memory the pinned copies may take together (the memory budget's free room).
// A key on a device the plan does not list gets no choice (its copies take what fits when made).
TierPlan plan_key_tiers(std::span<const TierDevice> devices, std::span<const TierKey> keys, std::uint64_t pinned_room);

}  // namespace cuzk::engine
