#include "filecoin/snap/config.hpp"

#include <bit>
#include <charconv>
#include <vector>

namespace cuzk::filecoin::snap {
namespace {

constexpr std::uint64_t kKiB = 1024, kMiB = kKiB << 10, kGiB = kMiB << 10;
constexpr std::size_t kFrCapacity = 254;  // Fr::CAPACITY

struct Shape {
  std::uint64_t bytes;
  std::size_t sub, top;  // base arity 8; base levels follow from the node count
};
// storage-proofs-update constants.rs ALLOWED_SECTOR_SIZES with the tree R shapes its tests use
// (tests/circuit.rs: 1 KiB 8-4-0, 4 KiB 8-2-0, 8 KiB 8-4-0, 16 KiB 8-8-0, 32 KiB 8-8-2; the published
// sizes are filecoin-proofs SectorShape*).
constexpr Shape kShapes[] = {{1 * kKiB, 4, 0},   {2 * kKiB, 0, 0},  {4 * kKiB, 2, 0}, {8 * kKiB, 4, 0},
                             {16 * kKiB, 8, 0},  {32 * kKiB, 8, 2}, {8 * kMiB, 0, 0}, {16 * kMiB, 2, 0},
                             {512 * kMiB, 0, 0}, {32 * kGiB, 8, 0}, {64 * kGiB, 8, 2}};

// constants.rs partition_count / challenge_count / hs / apex_leaf_count, in nodes.
std::size_t partition_count(std::uint64_t n) {
  return n <= (1u << 8) ? 1 : n <= (1u << 10) ? 2 : n <= (1u << 19) ? 4 : 16;
}
std::size_t challenge_count(std::uint64_t n) { return n <= (1u << 19) ? 10 : 86; }
std::size_t apex_leaf_count(std::uint64_t n) { return n <= (1u << 8) ? 8 : 128; }

std::string size_name(std::uint64_t bytes) {
  if (bytes >= kGiB) return std::to_string(bytes / kGiB) + "GiB";
  if (bytes >= kMiB) return std::to_string(bytes / kMiB) + "MiB";
  return std::to_string(bytes / kKiB) + "KiB";
}

std::vector<UpdateConfig> make_configs() {
  std::vector<UpdateConfig> v;
  for (std::uint64_t bytes : {2 * kKiB, 8 * kMiB, 512 * kMiB, 32 * kGiB, 64 * kGiB}) {
    UpdateConfig c;
    c.code = std::uint32_t(v.size());
    c.name = "StackedDrg" + size_name(bytes) + "V1";
    c.sector_size = bytes;
    c.geometry = snap_geometry(bytes).value();
    v.push_back(std::move(c));
  }
  return v;
}

const std::vector<UpdateConfig>& configs() {
  static const std::vector<UpdateConfig> v = make_configs();
  return v;
}

}  // namespace

const char* to_string(UpdateVariant v) { return v == UpdateVariant::kPoseidon ? "snapdeals-poseidon" : "snapdeals"; }

Result<SnapGeometry> snap_geometry(std::uint64_t sector_bytes, UpdateVariant variant) {
  const Shape* shape = nullptr;
  for (const Shape& s : kShapes)
    if (s.bytes == sector_bytes) shape = &s;
  if (!shape)
    return Error{"sector size " + std::to_string(sector_bytes) +
                 " is not an EmptySectorUpdate size (1, 2, 4, 8, 16, 32 KiB, 8, 16, 512 MiB, 32, 64 GiB)"};
  SnapGeometry g;
  g.variant = variant;
  g.nodes = sector_bytes / 32;
  g.challenge_bits = std::size_t(std::countr_zero(g.nodes));
  const std::size_t sub_bits = shape->sub ? std::size_t(std::countr_zero(shape->sub)) : 0;
  const std::size_t top_bits = shape->top ? std::size_t(std::countr_zero(shape->top)) : 0;
  g.tree_r.hash = circuit::TreeHash::kPoseidon;
  g.tree_r.base_arity = 8;
  g.tree_r.base_levels = (g.challenge_bits - sub_bits - top_bits) / 3;
  g.tree_r.sub_arity = shape->sub;
  g.tree_r.top_arity = shape->top;
  if (g.nodes <= (1u << 10)) g.hs = {1, 1, 1, 1, 1, 1};
  else g.hs = {7, 8, 9, 10, 11, 12};
  g.h = g.hs[3];
  for (std::size_t i = 0; i < g.hs.size(); ++i)
    if (g.hs[i] == g.h) {
      g.h_select = std::size_t(1) << i;
      break;
    }
  const std::size_t p = partition_count(g.nodes);
  if (variant == UpdateVariant::kPartitioned) {
    g.partitions = p;
    g.challenge_count = challenge_count(g.nodes);
    g.apex_leaf_count = apex_leaf_count(g.nodes);
    g.apex_bits = std::size_t(std::countr_zero(g.apex_leaf_count));
  } else {
    g.partitions = 1;
    g.challenge_count = challenge_count(g.nodes) * p;  // challenge_count_poseidon
  }
  g.partition_bits = std::size_t(std::countr_zero(g.partitions));
  g.random_bits = g.challenge_bits - g.partition_bits;
  g.challenges_per_digest = kFrCapacity / g.random_bits;
  g.digests_per_partition = (g.challenge_count + g.challenges_per_digest - 1) / g.challenges_per_digest;
  return g;
}

std::span<const UpdateConfig> all_update_configs() { return configs(); }

Result<const UpdateConfig*> update_config_by_code(std::uint64_t code) {
  if (code >= configs().size())
    return Error{"registered update proof " + std::to_string(code) +
                 " is unknown (0 StackedDrg2KiBV1, 1 8MiB, 2 512MiB, 3 32GiB, 4 64GiB)"};
  return &configs()[code];
}

Result<const UpdateConfig*> update_config_by_name(std::string_view name) {
  std::uint64_t code = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), code);
  if (!name.empty() && ec == std::errc() && end == name.data() + name.size()) return update_config_by_code(code);
  std::string_view bare = name;
  if (bare.starts_with("RegisteredUpdateProof_")) bare.remove_prefix(22);
  for (const UpdateConfig& c : configs())
    if (c.name == bare) return &c;
  return Error{"unknown registered update proof '" + std::string(name) +
               "' (StackedDrg2KiBV1, StackedDrg8MiBV1, StackedDrg512MiBV1, StackedDrg32GiBV1, StackedDrg64GiBV1, "
               "or the codes 0-4)"};
}

Result<const UpdateConfig*> update_config_by_sector_size(std::uint64_t sector_size) {
  for (const UpdateConfig& c : configs())
    if (c.sector_size == sector_size) return &c;
  return Error{"sector size " + std::to_string(sector_size) +
               " has no registered update proof (2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB)"};
}

}  // namespace cuzk::filecoin::snap
