// The SDR graph (storage-proofs-porep StackedBucketGraph; filecoin-formats.md §6.3–§6.5): 6 DRG
// (bucket-sampling) parents and 8 expander (Feistel) parents per node. Parents are computed per node
// on demand (a few µs), so 32/64 GiB configurations need no cache; build_parent_cache() materialises
// all of them when a whole sector is labelled.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "filecoin/porep/config.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/porep/feistel.hpp"

namespace cuzk::filecoin::porep {

inline constexpr std::size_t kDrgDegree = 6;
inline constexpr std::size_t kExpDegree = 8;
inline constexpr std::size_t kDegree = kDrgDegree + kExpDegree;

class Graph {
 public:
  explicit Graph(const porep::PorepConfig& config);
  // Any node count / porep_id (the published label KATs use porep ids that are not registered).
  // legacy_v1_0 selects API V1_0_0: DRG "n-1" parent in the last slot and the u32 expander cast.
  Graph(std::uint64_t nodes, const Bytes32& porep_id, bool legacy_v1_0);

  std::uint64_t nodes() const { return nodes_; }
  const Bytes32& porep_id() const { return porep_id_; }
  bool legacy_v1_0() const { return legacy_; }
  const std::array<std::uint64_t, 4>& feistel_keys() const { return keys_; }

  void drg_parents(std::uint64_t node, std::uint32_t out[kDrgDegree]) const;
  void exp_parents(std::uint64_t node, std::uint32_t out[kExpDegree]) const;
  void parents(std::uint64_t node, std::uint32_t out[kDegree]) const;  // 6 DRG then 8 expander

 private:
  std::uint64_t nodes_;
  Bytes32 porep_id_;
  bool legacy_;
  std::array<std::uint8_t, 28> drg_seed_;
  std::array<std::uint64_t, 4> keys_;
  Feistel feistel_;
};

// All parents, node-major: cache[14·n + i] (the layout of upstream's parent cache file). Parallel.
std::vector<std::uint32_t> build_parent_cache(const Graph& g);

// SHA-256 of the parent cache file content (14 × u32 LE per node), as in parent_cache.json.
Bytes32 parent_cache_digest(const Graph& g);
// "v28-sdr-parent-<hex SHA-256(\"poseidon_hasher\" ‖ graph identifier ‖ keys u64 LE ‖ nodes u32 LE)>".
std::string parent_cache_name(const Graph& g);

}  // namespace cuzk::filecoin::porep
