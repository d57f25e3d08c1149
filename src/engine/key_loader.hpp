// How the SrsManager learns about a family of proving keys without naming it. A KeyLoader serves the
// ids of one family ("<family>-<size>", e.g. "<family>-32g"): it parses an id once into a typed KeyId, says
// where the file is, how much memory loading it may take at its peak, and loads it into a LoadedKey.
// The kind adapters (src/engine/kinds/) implement loaders and list them in their KindRegistry row;
// the SrsManager asks every registered loader and keeps what they return (ARCHITECTURE.md seam 4:
// the SrsManager owns every key). A loader holds no state about loaded keys and may be called from
// several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace cuzk::engine {

// Where a loaded key came from: a registered snarkjs .zkey (the generic kind's circuits) or a
// Filecoin .params file read by a KeyLoader (the families' keys; the generic kind refuses them).
enum class KeyFormat { kZkey, kParams };

// A loaded key. For a .zkey: the proving key and the circuit's shape (A and B), ready for the
// backend. For a loader of .params: the proving key with its bases left in the mapped file
// (ProvingKey::source; the SrsManager decodes them when a backend proves from host memory) and the
// recorded partition shape (A, B and C).
struct LoadedKey {
  std::string id;
  std::string path;
  KeyFormat format = KeyFormat::kParams;
  groth16::ProvingKey pk;
  groth16::R1csShape shape;
  std::uint32_t n_public = 0;  // ONE excluded
  std::uint32_t n_vars = 0;
  std::uint32_t n_constraints = 0;
  std::uint32_t domain_size = 0;
  std::uint64_t bytes = 0;  // what the budget is charged (0 from a loader: the SrsManager computes it)
};

// A key id parsed once, by the loader that serves it.
struct KeyId {
  std::string text;               // as clients spell it: "<family>-32g"
  std::string family;             // the loader's family()
  std::uint64_t sector_size = 0;  // Filecoin families: the sector size in bytes; 0 otherwise
};

// What loading a key may take at its peak: `load` with its bases left in the mapped file, and
// `decode` more when they are decoded for a backend that proves from host memory (the SrsManager
// reserves it only where one may: a key only GPUs prove is never decoded — the 32 GiB WindowPoSt key
// would otherwise ask ~136 GB for a load that holds ~10 GB).
struct LoadEstimate {
  std::uint64_t load = 0;
  std::uint64_t decode = 0;
};

class KeyLoader {
 public:
  virtual ~KeyLoader() = default;
  virtual std::string family() const = 0;
  // Every id this loader serves, e.g. <family>-2k ... <family>-64g (for listings and error messages).
  virtual std::vector<std::string> ids() const = 0;
  // The typed id, or nullopt when `id` is not one of this loader's.
  virtual std::optional<KeyId> parse(std::string_view id) const = 0;
  // The file for `id` under the parameter cache directory.
  virtual Result<std::string> path(const KeyId& id, const std::string& param_cache) const = 0;
  // Memory a load may take at its peak (the budget reserves it first); load 0 when the file is missing.
  virtual LoadEstimate load_estimate(const KeyId& id, const std::string& path) const = 0;
  // Loads the key; `bytes` may be left 0 (the SrsManager then counts the key and shape it holds).
  virtual Result<std::shared_ptr<LoadedKey>> load(const KeyId& id, const std::string& path) const = 0;
};

}  // namespace cuzk::engine
