#include "filecoin/params/cache_names.hpp"

#include <openssl/evp.h>

#include <cstdlib>

#include "base/hex.hpp"

namespace cuzk::filecoin::params {
namespace {

// Protocol constants (rust-fil-proofs filecoin-proofs/src/constants.rs, filecoin-formats.md 4.1).
constexpr std::uint64_t kNodeBytes = 32;
constexpr int kDrgDegree = 6;       // BASE_DEGREE
constexpr int kExpanderDegree = 8;  // EXP_DEGREE
constexpr int kWinningPostChallengeCount = 66;
constexpr int kWinningPostSectorCount = 1;
constexpr int kWindowPostChallengeCount = 10;

bool is_production_size(std::uint64_t s) { return s == kSectorSize32GiB || s == kSectorSize64GiB; }

// Merkle tree shape (base arity 8; sub and top arities by size) as Tree::display() prints it.
std::string tree_display(std::uint64_t sector_size) {
  int sub = 0, top = 0;
  if (sector_size == kSectorSize32GiB) sub = 8;
  if (sector_size == kSectorSize64GiB) sub = 8, top = 2;
  return "merkletree-poseidon_hasher-8-" + std::to_string(sub) + "-" + std::to_string(top);
}

int porep_min_challenges(std::uint64_t s) { return is_production_size(s) ? 176 : 2; }
int window_post_sector_count(std::uint64_t s) {
  if (s == kSectorSize32GiB) return 2349;
  if (s == kSectorSize64GiB) return 2300;
  return 2;
}

std::string porep_identifier(std::uint64_t s) {
  std::string graph = "drgraph::BucketGraph{size: " + std::to_string(s / kNodeBytes) +
                      "; degree: " + std::to_string(kDrgDegree) + "; hasher: poseidon_hasher}";
  std::string stacked = "stacked_graph::StackedGraph{expansion_degree: " + std::to_string(kExpanderDegree) +
                        " base_graph: " + graph + " }";
  return "layered_drgporep::PublicParams{ graph: " + stacked +
         ", challenges: LayerChallenges { layers: " + std::to_string(porep_layers(s)) +
         ", max_count: " + std::to_string(porep_challenges_per_partition(s)) + " }, tree: " + tree_display(s) + " }";
}

// filecoin-proofs winning_post_setup_params: sector_count = challenge_count / sector_count and
// challenge_count = challenge_count / that, i.e. 66 "sectors" of 1 challenge.
std::string post_identifier(std::uint64_t s, int challenge_count, int sector_count) {
  return "FallbackPoSt::PublicParams{sector_size: " + std::to_string(s) +
         ", challenge_count: " + std::to_string(challenge_count) + ", sector_count: " + std::to_string(sector_count) +
         "}";
}

std::string update_identifier(std::uint64_t s) {
  return "empty_sector_update::PublicParams{ sector_nodes: " + std::to_string(s / kNodeBytes) + " }";
}

bool published_size(std::uint64_t s) {
  for (auto p : kPublishedSectorSizes) {
    if (p == s) return true;
  }
  return false;
}

}  // namespace

int porep_layers(std::uint64_t s) { return is_production_size(s) ? 11 : 2; }
int porep_partitions(std::uint64_t s) { return is_production_size(s) ? 10 : 1; }
int porep_challenges_per_partition(std::uint64_t s) {
  int p = porep_partitions(s);
  return (porep_min_challenges(s) + p - 1) / p;  // ceil(minimum challenges / partitions)
}

const char* family_name(ProofFamily f) {
  switch (f) {
    case ProofFamily::kPoRep: return "porep";
    case ProofFamily::kWinningPoSt: return "winning-post";
    case ProofFamily::kWindowPoSt: return "window-post";
    case ProofFamily::kSnapDeals: return "snapdeals";
    case ProofFamily::kSnapDealsPoseidon: return "snapdeals-poseidon";
  }
  return "?";
}

std::string sector_size_name(std::uint64_t b) {
  if (b >= (std::uint64_t(1) << 30) && b % (std::uint64_t(1) << 30) == 0) return std::to_string(b >> 30) + "GiB";
  if (b >= (std::uint64_t(1) << 20) && b % (std::uint64_t(1) << 20) == 0) return std::to_string(b >> 20) + "MiB";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + "KiB";
  return std::to_string(b) + "B";
}

std::string ParamConfig::label() const {
  return std::string(family_name(family)) + " " + sector_size_name(sector_size);
}

std::string sha256_hex(const std::string& s) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(s.data(), s.size(), md, &len, EVP_sha256(), nullptr);
  return hex_encode(std::span<const std::uint8_t>(md, len));
}

std::optional<ParamConfig> make_param_config(ProofFamily family, std::uint64_t s) {
  if (!published_size(s)) return std::nullopt;
  ParamConfig c;
  c.family = family;
  c.sector_size = s;
  const std::string tree = tree_display(s);
  switch (family) {
    case ProofFamily::kPoRep:
      c.cache_prefix = "stacked-proof-of-replication-" + tree + "-sha256_hasher";
      c.identifier = porep_identifier(s);
      break;
    case ProofFamily::kWinningPoSt: {
      int sectors = kWinningPostChallengeCount / kWinningPostSectorCount;
      int challenges = kWinningPostChallengeCount / sectors;
      c.cache_prefix = "proof-of-spacetime-fallback-" + tree;
      c.identifier = post_identifier(s, challenges, sectors);
      break;
    }
    case ProofFamily::kWindowPoSt:
      c.cache_prefix = "proof-of-spacetime-fallback-" + tree;
      c.identifier = post_identifier(s, kWindowPostChallengeCount, window_post_sector_count(s));
      break;
    case ProofFamily::kSnapDeals:
      c.cache_prefix = "empty-sector-update-" + tree;
      c.identifier = update_identifier(s);
      break;
    case ProofFamily::kSnapDealsPoseidon:
      if (!is_production_size(s)) return std::nullopt;  // published for 32 GiB and 64 GiB only
      c.cache_prefix = "empty-sector-update-poseidon-" + tree;
      c.identifier = update_identifier(s);
      break;
  }
  // v<VERSION>-<prefix>-<sha256>; built with += (GCC 12 gives a false -Wrestrict on a + chain here).
  std::string stem(1, 'v');
  stem += std::to_string(kParameterCacheVersion);
  stem += '-';
  stem += c.cache_prefix;
  stem += '-';
  stem += sha256_hex(c.identifier);
  c.stem = std::move(stem);
  return c;
}

const std::vector<ParamConfig>& all_param_configs() {
  static const std::vector<ParamConfig> all = [] {
    std::vector<ParamConfig> v;
    for (ProofFamily f : {ProofFamily::kPoRep, ProofFamily::kWinningPoSt, ProofFamily::kWindowPoSt,
                          ProofFamily::kSnapDeals, ProofFamily::kSnapDealsPoseidon}) {
      for (std::uint64_t s : kPublishedSectorSizes) {
        if (auto c = make_param_config(f, s)) v.push_back(std::move(*c));
      }
    }
    return v;
  }();
  return all;
}

std::optional<ParamConfig> find_config_for_file(const std::string& file_name) {
  for (const auto& c : all_param_configs()) {
    if (file_name == c.params_file() || file_name == c.vk_file() || file_name == c.meta_file()) return c;
  }
  return std::nullopt;
}

std::string parameter_cache_dir(std::string_view env_value) {
  std::string dir = env_value.empty() ? std::string(kDefaultParameterCacheDir) : std::string(env_value);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace cuzk::filecoin::params
