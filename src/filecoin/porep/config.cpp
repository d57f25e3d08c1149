#include "filecoin/porep/config.hpp"

#include <bit>
#include <stdexcept>
#include <vector>

namespace cuzk::filecoin::porep {
namespace {

struct SizeRow {
  const char* label;
  std::uint64_t sector_size;
  std::size_t layers, sub, top;
  std::size_t min_challenges_interactive, min_challenges_ni, partitions_interactive, partitions_ni;
};

constexpr std::uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
// filecoin-formats.md §4.1 (filecoin-proofs constants.rs): test sizes 2 layers, 1 / 13 partitions,
// minimum challenges 2 / 26; production 11 layers, 10 / 126 partitions, 176 / 2253 challenges.
constexpr SizeRow kSizes[] = {
    {"2KiB", 2 * kKiB, 2, 0, 0, 2, 26, 1, 13},          {"8MiB", 8 * kMiB, 2, 0, 0, 2, 26, 1, 13},
    {"512MiB", 512 * kMiB, 2, 0, 0, 2, 26, 1, 13},      {"32GiB", 32 * kGiB, 11, 8, 0, 176, 2253, 10, 126},
    {"64GiB", 64 * kGiB, 11, 8, 2, 176, 2253, 10, 126},
};
constexpr std::size_t kMaxChallengesPerPartition = 18;

std::vector<PorepConfig> build() {
  std::vector<PorepConfig> out;
  const struct {
    PorepVariant v;
    const char* suffix;
    const char* api;
  } variants[] = {{PorepVariant::kV1, "V1", "V1_0_0"},
                  {PorepVariant::kV1_1, "V1_1", "V1_1_0"},
                  {PorepVariant::kSynthetic, "V1_1_Feat_SyntheticPoRep", "V1_2_0"},
                  {PorepVariant::kNonInteractive, "V1_2_Feat_NonInteractivePoRep", "V1_2_0"}};
  std::uint32_t id = 0;
  for (const auto& var : variants) {
    for (const auto& s : kSizes) {
      PorepConfig c;
      c.id = id++;
      c.name = std::string("StackedDrg") + s.label + var.suffix;
      c.variant = var.v;
      c.api_version = var.api;
      c.sector_size = s.sector_size;
      c.nodes = s.sector_size / 32;
      c.layers = s.layers;
      c.base_arity = 8;
      c.sub_arity = s.sub;
      c.top_arity = s.top;
      const bool ni = var.v == PorepVariant::kNonInteractive;
      c.partitions = ni ? s.partitions_ni : s.partitions_interactive;
      const std::size_t minimum = ni ? s.min_challenges_ni : s.min_challenges_interactive;
      c.challenges_per_partition = (minimum + c.partitions - 1) / c.partitions;
      if (c.challenges_per_partition > kMaxChallengesPerPartition) throw std::logic_error("porep: too many challenges");
      out.push_back(std::move(c));
    }
  }
  return out;
}

const std::vector<PorepConfig>& table() {
  static const std::vector<PorepConfig> t = build();
  return t;
}

std::string valid_names() {
  std::string s;  // one line: errors are one line everywhere (see `cuzk porep list` for a table)
  for (const auto& c : table()) s += (s.empty() ? " " : ", ") + std::to_string(c.id) + "=" + c.name;
  return s;
}

}  // namespace

circuit::TreeShape PorepConfig::tree_d_shape() const {
  circuit::TreeShape t;
  t.hash = circuit::TreeHash::kSha256;
  t.base_arity = 2;
  t.base_levels = std::size_t(std::countr_zero(nodes));
  return t;
}

circuit::TreeShape PorepConfig::tree_rc_shape() const {
  circuit::TreeShape t;
  t.hash = circuit::TreeHash::kPoseidon;
  t.base_arity = base_arity;
  t.sub_arity = sub_arity;
  t.top_arity = top_arity;
  std::uint64_t base_nodes = nodes / (sub_arity ? sub_arity : 1) / (top_arity ? top_arity : 1);
  t.base_levels = std::size_t(std::countr_zero(base_nodes)) / std::size_t(std::countr_zero(base_arity));
  return t;
}

std::span<const PorepConfig> all_porep_configs() { return table(); }

const PorepConfig& porep_config_by_name(std::string_view name) {
  for (const auto& c : table())
    if (c.name == name) return c;
  throw std::invalid_argument("unknown registered PoRep proof '" + std::string(name) + "'; valid:" + valid_names());
}

const PorepConfig& porep_config_by_id(std::uint32_t id) {
  if (id >= table().size())
    throw std::invalid_argument("unknown registered PoRep proof id " + std::to_string(id) + "; valid:" + valid_names());
  return table()[id];
}

}  // namespace cuzk::filecoin::porep
