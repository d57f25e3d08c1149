// Filecoin's Groth16 parameter cache: which parameter sets exist and what their files are called.
//
// A file name is v<VERSION>-<cache_prefix>-<sha256_hex(identifier)>.{params,vk,meta}
// (rust-fil-proofs storage-proofs-core parameter_cache.rs, VERSION = 28), where
//   * cache_prefix is the proof family plus the Merkle tree shape
//       stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher
//       proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0
//       empty-sector-update[-poseidon]-merkletree-poseidon_hasher-8-8-2
//   * identifier is the Debug-like rendering of the public parameters (ParameterSetMetadata), e.g.
//       FallbackPoSt::PublicParams{sector_size: 2048, challenge_count: 10, sector_count: 2}
// Both are rebuilt here from the protocol constants (filecoin-formats.md 1.4, 4.1), not from a table
// of names; the tests check the result against the published parameters.json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::filecoin::params {

inline constexpr int kParameterCacheVersion = 28;

enum class ProofFamily : std::uint8_t {
  kPoRep,              // StackedDrg seal (interactive, synthetic and NI share these files)
  kWinningPoSt,        // FallbackPoSt, 1 challenge x 66 sectors
  kWindowPoSt,         // FallbackPoSt, 10 challenges x N sectors
  kSnapDeals,          // EmptySectorUpdate
  kSnapDealsPoseidon,  // EmptySectorUpdate, single-partition Poseidon variant
};
const char* family_name(ProofFamily f);  // "porep", "winning-post", "window-post", "snapdeals", "snapdeals-poseidon"

// The sector sizes with published parameters.
inline constexpr std::uint64_t kSectorSize2KiB = 2048;
inline constexpr std::uint64_t kSectorSize8MiB = std::uint64_t(8) << 20;
inline constexpr std::uint64_t kSectorSize512MiB = std::uint64_t(512) << 20;
inline constexpr std::uint64_t kSectorSize32GiB = std::uint64_t(32) << 30;
inline constexpr std::uint64_t kSectorSize64GiB = std::uint64_t(64) << 30;
inline constexpr std::uint64_t kPublishedSectorSizes[] = {kSectorSize2KiB, kSectorSize8MiB, kSectorSize512MiB,
                                                          kSectorSize32GiB, kSectorSize64GiB};
std::string sector_size_name(std::uint64_t bytes);  // "2KiB", "8MiB", "512MiB", "32GiB", "64GiB"

struct ParamConfig {
  ProofFamily family;
  std::uint64_t sector_size = 0;
  std::string cache_prefix;  // e.g. proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0
  std::string identifier;    // the string whose SHA-256 names the file
  std::string stem;          // v28-<cache_prefix>-<sha256 hex>
  std::string params_file() const { return stem + ".params"; }
  std::string vk_file() const { return stem + ".vk"; }
  std::string meta_file() const { return stem + ".meta"; }
  std::string label() const;  // "window-post 32GiB"
};

// One config; nullopt when the family has no published parameters at that size.
std::optional<ParamConfig> make_param_config(ProofFamily family, std::uint64_t sector_size);

// All 22 published configurations: PoRep, Winning PoSt, Window PoSt and SnapDeals at 2KiB, 8MiB,
// 512MiB, 32GiB and 64GiB, and the SnapDeals Poseidon variant at 32GiB and 64GiB.
const std::vector<ParamConfig>& all_param_configs();

// The config whose .params/.vk/.meta file this is (a bare file name, no directory).
std::optional<ParamConfig> find_config_for_file(const std::string& file_name);

// Interactive PoRep structure per sector size (filecoin-proofs constants.rs): 2 layers, 1 partition and
// 2 challenges for the test sizes; 11 layers, 10 partitions, ceil(176 / 10) = 18 challenges for 32/64 GiB.
int porep_layers(std::uint64_t sector_size);
int porep_partitions(std::uint64_t sector_size);
int porep_challenges_per_partition(std::uint64_t sector_size);

// Lowercase hex SHA-256 of a string (OpenSSL).
std::string sha256_hex(const std::string& s);

// The parameter cache directory: `env_value` (the apps pass $FIL_PROOFS_PARAMETER_CACHE, read once at
// start) when non-empty, else /var/tmp/filecoin-proof-parameters (rust-fil-proofs' default); a trailing
// '/' is dropped. The library reads no environment.
std::string parameter_cache_dir(std::string_view env_value = {});
inline constexpr const char* kDefaultParameterCacheDir = "/var/tmp/filecoin-proof-parameters";

}  // namespace cuzk::filecoin::params
