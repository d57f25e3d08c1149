#include "filecoin/post/config.hpp"

#include <array>
#include <charconv>
#include <vector>

namespace cuzk::filecoin::post {
namespace {

struct Size {
  const char* name;
  std::uint64_t bytes;
  std::size_t base_levels, sub, top, window_sectors;
};
// Tree R shapes (filecoin-proofs SectorShape*): 2 KiB = 8^2, 8 MiB = 8^6, 512 MiB = 8^8 (8-0-0);
// 32 GiB = 8^9 · 8 (8-8-0); 64 GiB = 8^9 · 8 · 2 (8-8-2). Window sector counts: constants.rs
// WINDOW_POST_SECTOR_COUNT.
constexpr std::array<Size, 5> kSizes{{{"2KiB", 2048, 2, 0, 0, 2},
                                      {"8MiB", std::uint64_t(8) << 20, 6, 0, 0, 2},
                                      {"512MiB", std::uint64_t(512) << 20, 8, 0, 0, 2},
                                      {"32GiB", std::uint64_t(32) << 30, 9, 8, 0, 2349},
                                      {"64GiB", std::uint64_t(64) << 30, 9, 8, 2, 2300}}};

constexpr std::size_t kWinningSectorCount = 66;  // WINNING_POST_SECTOR_COUNT
constexpr std::size_t kWinningChallenges = 66;   // WINNING_POST_CHALLENGE_COUNT (vanilla side)
constexpr std::size_t kWindowChallenges = 10;    // WINDOW_POST_CHALLENGE_COUNT

std::vector<PostConfig> make_configs() {
  std::vector<PostConfig> v;
  for (int group = 0; group < 3; ++group) {
    for (const Size& s : kSizes) {
      PostConfig c;
      c.code = std::uint32_t(v.size());
      const bool winning = group == 0;
      const std::string stem = std::string(winning ? "StackedDrgWinning" : "StackedDrgWindow") + s.name;
      c.name = stem + (group == 2 ? "V1_1" : "V1");
      c.rust_name = stem + (group == 2 ? "V1_2" : "V1");
      c.type = winning ? PostType::kWinning : PostType::kWindow;
      c.v1_2_challenges = group == 2;
      c.sector_size = s.bytes;
      c.nodes = s.bytes / 32;
      c.base_levels = s.base_levels;
      c.sub_arity = s.sub;
      c.top_arity = s.top;
      c.sector_count = winning ? kWinningSectorCount : s.window_sectors;
      c.challenge_count = winning ? 1 : kWindowChallenges;
      c.vanilla_challenges = winning ? kWinningChallenges : kWindowChallenges;
      v.push_back(std::move(c));
    }
  }
  return v;
}

const std::vector<PostConfig>& configs() {
  static const std::vector<PostConfig> v = make_configs();
  return v;
}

}  // namespace

const char* to_string(PostType t) { return t == PostType::kWinning ? "winning" : "window"; }

circuit::TreeShape PostConfig::tree_shape() const {
  circuit::TreeShape s;
  s.hash = circuit::TreeHash::kPoseidon;
  s.base_arity = 8;
  s.base_levels = base_levels;
  s.sub_arity = sub_arity;
  s.top_arity = top_arity;
  return s;
}

std::span<const PostConfig> all_post_configs() { return configs(); }

Result<const PostConfig*> post_config_by_code(std::uint64_t code) {
  if (code >= configs().size())
    return Error{"registered PoSt proof " + std::to_string(code) +
                 " is unknown (0-4 StackedDrgWinning*V1, 5-9 StackedDrgWindow*V1, 10-14 StackedDrgWindow*V1_1)"};
  return &configs()[code];
}

Result<const PostConfig*> post_config_by_name(std::string_view name) {
  std::uint64_t code = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), code);
  if (!name.empty() && ec == std::errc() && end == name.data() + name.size()) return post_config_by_code(code);
  for (const PostConfig& c : configs())
    if (c.name == name || c.rust_name == name) return &c;
  return Error{"unknown registered PoSt proof '" + std::string(name) +
               "' (StackedDrgWinning{2KiB,8MiB,512MiB,32GiB,64GiB}V1, StackedDrgWindow{…}V1, "
               "StackedDrgWindow{…}V1_1 (alias …V1_2), or the codes 0-14)"};
}

}  // namespace cuzk::filecoin::post
