// SrsManager: the one owner of every proving key (ARCHITECTURE.md seam 4). Keys are known by a
// circuit id — a registered snarkjs .zkey ("mulchain"), or an id one of the KeyLoaders serves
// ("<family>-<size>"; key_loader.hpp, registered with the kinds) — and are loaded once, on
// first use or by preload(), into the best tier the build offers:
//
//   device  a copy in GPU memory                (a backend that proves from copies: CUDA)
//   pinned  a copy in page-locked host memory, streamed to the GPU at each proof (or only H there,
//           the rest read from the mapped file at each proof: gpus.key_residency = "file")
//   host    decoded in ordinary memory          (what the CPU backend proves from)
//   mapped  the file mmap'd, not decoded        (its bases read from the file when a copy is made)
//   cold    registered, nothing loaded
//
// One owner: an entry holds the key, the copies the executor's backends prove from (one per slot,
// executor.hpp) and every budget reservation behind them (the key's, and a streamed copy's pinned
// memory), and drops them together. Which slots get a copy and whether the host keeps the decoded
// bases is the engine's placement rule (KeyPlacement): a key only GPUs prove keeps no decoded host
// copy of its bases (a 32 GiB PoRep key: 45 GB) — they are read from the mapped file, piece by
// piece, when a copy is made. Every loaded key is reference counted by the jobs using it (SrsLease),
// and can be evicted when no job holds it: explicitly (evict()), or by the budget's evictor, least
// recently used first, once idle for `min_idle`. A load runs without the
// manager's lock held (cuzk-behaviour.md 8.1 #9): other keys stay usable, and concurrent users of the
// key being loaded wait for that one load. This file names no proof family: what an id means is its
// loader's.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "engine/executor.hpp"
#include "engine/key_loader.hpp"
#include "engine/key_tiers.hpp"
#include "engine/memory_budget.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::engine {

enum class SrsTier : std::uint8_t { kDevice, kPinned, kHost, kMapped, kCold };
const char* tier_name(SrsTier t);  // "device", "pinned", "host", "mapped", "cold"

// One backend copy of a loaded key, for status.
struct SrsCopyInfo {
  BackendSlot slot;
  SrsTier tier = SrsTier::kDevice;  // kDevice (resident) or kPinned (streamed)
  bool from_file = false;           // kPinned: only part pinned, the rest read from the file at each proof
  std::uint64_t device_bytes = 0, host_bytes = 0;
  std::string reason;  // why the backend chose this form (KeyCopy::reason)
  // The form the plan across keys asked for (kAny: the copy was placed alone).
  groth16::CopyForm planned = groth16::CopyForm::kAny;
};

struct SrsInfo {
  std::string id;
  std::string path;
  SrsTier tier = SrsTier::kCold;  // the highest tier a copy or the key is in
  std::vector<SrsCopyInfo> copies;
  std::uint64_t bytes = 0;
  std::uint32_t refs = 0;
  std::uint64_t idle_ms = 0;
  std::uint64_t load_ms = 0;
  bool loading = false;
  std::string last_error;
};

// The backends' copies of one loaded key, one per slot. The key they were made from lives as long:
// `items` is declared after `key`, so the copies go first.
struct KeyCopies {
  std::shared_ptr<const LoadedKey> key;
  std::vector<std::pair<BackendSlot, std::shared_ptr<groth16::KeyCopy>>> items;
  // The slots whose copy was asked for in a form planned across keys (SrsManager::preload_planned).
  std::vector<std::pair<BackendSlot, groth16::CopyForm>> planned;
  groth16::KeyCopy* find(BackendSlot slot) const {
    for (const auto& [s, c] : items)
      if (s == slot) return c.get();
    return nullptr;
  }
};

// Where a key goes when it is loaded (decided by the engine from its executor and lanes).
struct KeyPlacement {
  bool host_bases = true;           // some backend proves it from host memory: decode its bases
  std::vector<BackendSlot> copies;  // the slots that prove from a copy of their own
};

class SrsManager;
namespace detail {
struct SrsEntry;
struct SrsState;
}  // namespace detail

// Keeps a key loaded and counted as in use; movable.
class SrsLease {
 public:
  SrsLease() = default;
  SrsLease(SrsLease&&) noexcept;
  SrsLease& operator=(SrsLease&&) noexcept;
  SrsLease(const SrsLease&) = delete;
  SrsLease& operator=(const SrsLease&) = delete;
  ~SrsLease();
  const LoadedKey& key() const { return *key_; }
  const LoadedKey* operator->() const { return key_.get(); }
  explicit operator bool() const { return key_ != nullptr; }
  // The backends' copies of the key (valid while the lease is held; empty without copies).
  const KeyCopies& copies() const { return *copies_; }

 private:
  friend class SrsManager;
  SrsLease(std::shared_ptr<detail::SrsState> st, std::shared_ptr<detail::SrsEntry> entry,
           std::shared_ptr<const LoadedKey> key, std::shared_ptr<const KeyCopies> copies)
      : state_(std::move(st)), entry_(std::move(entry)), key_(std::move(key)), copies_(std::move(copies)) {}
  void release();
  std::shared_ptr<detail::SrsState> state_;
  std::shared_ptr<detail::SrsEntry> entry_;
  std::shared_ptr<const LoadedKey> key_;
  std::shared_ptr<const KeyCopies> copies_;
};

class SrsManager {
 public:
  struct Options {
    std::string param_cache;                                      // directory of the Filecoin .params files
    std::chrono::milliseconds min_idle{std::chrono::minutes(5)};  // before the evictor may drop a key
    // Makes the copies of KeyPlacement::copies (unset: no copies are made).
    std::shared_ptr<Executor> executor;
    // Where a freshly loaded key goes (unset: host bases, no copies).
    std::function<KeyPlacement(const LoadedKey&)> placement;
    // Whether `placement` may ask for host bases for some key: a loader's decode estimate is reserved
    // before the load only then (unset: it may).
    std::function<bool()> may_decode_bases;
    // A copy that failed: copy_failed(slot) says whether the key goes on without that slot (the
    // engine's answer when the executor blames the device and another one is still in service; the
    // error is then logged); unset or false: the load fails with the error.
    std::function<bool(BackendSlot)> copy_failed;
    // The families of keys served by id (KindRegistry::loaders()).
    std::vector<std::shared_ptr<const KeyLoader>> loaders;
    // Whether a key's proofs have a chain deadline (the engine: a deadline-bound kind's loader serves
    // it): preload_planned() places such keys' copies first. Unset: none is.
    std::function<bool(std::string_view id)> deadline_bound;
  };
  SrsManager(MemoryBudget& budget, Options options);
  ~SrsManager();
  SrsManager(const SrsManager&) = delete;
  SrsManager& operator=(const SrsManager&) = delete;

  // Registers (or re-registers) a .zkey under an id. Fails when a loader serves the id, or when
  // it is registered to a different file that is loaded and in use. `replaced` reports whether an
  // earlier registration under the id was replaced. With `allow_replace` false, an id registered to
  // another file is refused instead, with ErrorCode::kPermissionDenied (the server's unprivileged
  // callers; checked under the lock, so two callers racing for a new id cannot replace each other's).
  Status register_zkey(const std::string& id, const std::string& path, bool* replaced = nullptr,
                       bool allow_replace = true);

  // Returns the loaded key, loading it first if needed (waiting for budget, evicting idle keys).
  // `load_ms` receives the time this call spent loading or waiting for another caller's load.
  Result<SrsLease> acquire(const std::string& id, const std::function<bool()>& cancelled = {},
                           std::uint64_t* load_ms = nullptr);

  struct PreloadOutcome {
    bool already_loaded = false;
    std::uint64_t load_ms = 0;
  };
  Result<PreloadOutcome> preload(const std::string& id);
  // Several keys, their copies placed by one plan across them (key_tiers.hpp; the daemon's start-up):
  // every key is loaded without copies first (acquire() waits for its copies meanwhile), the
  // executor prices each copy, and the copies are made in the plan's order and forms — the
  // deadline-bound families' first. Keys the executor cannot price (the CPU backend: no copies) are
  // placed as preload() would. A key whose copy fails goes back to cold with the error; the others
  // go on. One outcome per id, in the order asked (load_ms includes the copies).
  std::vector<std::pair<std::string, Result<PreloadOutcome>>> preload_planned(const std::vector<std::string>& ids);

  struct EvictOutcome {
    bool was_loaded = false;
    std::uint64_t freed_bytes = 0;
  };
  // Fails (with the reference count in the message) when jobs hold the key; unknown ids are an error.
  Result<EvictOutcome> evict(const std::string& id);

  // The budget's evictor: drops idle, unreferenced keys (least recently used first, idle >= min_idle)
  // until `needed` bytes are freed; returns the bytes freed.
  std::uint64_t evict_idle(std::uint64_t needed);

  std::vector<SrsInfo> list() const;  // every registered or loaded key, sorted by id
  bool known(const std::string& id) const;
  std::uint64_t loaded_bytes() const;

  // Every id the loaders serve, and the file an id maps to.
  std::vector<std::string> loader_ids() const;
  Result<std::string> params_path(const std::string& id) const;
  // The file behind `id`: a registered .zkey's path, else the loader's parameter file.
  Result<std::string> key_path(const std::string& id) const;

 private:
  Result<std::shared_ptr<detail::SrsEntry>> find_or_create(const std::string& id);  // state lock held
  // The loader serving `id` and its parsed form, if any.
  std::optional<std::pair<const KeyLoader*, KeyId>> served(std::string_view id) const;
  // After a loader's load: the placement's host bases and copies (no lock held).
  // `load` is the load's reservation, trimmed here to what the key holds.
  // Without `with_copies` the copies are left to preload_planned().
  Result<std::shared_ptr<const KeyCopies>> place(std::shared_ptr<LoadedKey> key, Reservation& load, bool with_copies);
  // The copies of `where`, each in the form `plan` gives its slot's device (none: the backend decides).
  Result<std::shared_ptr<const KeyCopies>> make_copies(std::shared_ptr<const LoadedKey> key, const KeyPlacement& where,
                                                       const TierPlan* plan);
  Result<SrsLease> acquire_impl(const std::string& id, const std::function<bool()>& cancelled, std::uint64_t* load_ms,
                                bool with_copies);

  MemoryBudget& budget_;
  Options options_;
  std::shared_ptr<detail::SrsState> state_;  // mutex, cv and entries, shared with leases
};

}  // namespace cuzk::engine
