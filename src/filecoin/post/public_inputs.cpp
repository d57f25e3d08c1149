#include "filecoin/post/public_inputs.hpp"

#include "filecoin/post/challenges.hpp"

namespace cuzk::filecoin::post {

std::uint64_t circuit_challenge(const PostConfig& config, const Bytes32& randomness, std::uint64_t sector_id,
                                std::uint32_t partition_index, std::size_t i, std::size_t n) {
  const std::uint64_t c = config.challenge_count;
  const std::uint64_t sector_index = std::uint64_t(partition_index) * config.sector_count + i;
  const std::uint64_t j = config.v1_2_challenges ? n : sector_index * c + n;
  return leaf_challenge(randomness, sector_id, j, config.nodes);
}

Result<std::vector<math::Fr>> partition_public_inputs(const PostConfig& config, const Bytes32& randomness,
                                                      std::span<const PublicSector> sectors,
                                                      std::uint32_t partition_index) {
  if (auto st = check_fr(randomness, "randomness"); !st) return Error{st.error()};
  const std::size_t n = sectors.size();
  if (n == 0) return Error{"no sectors"};
  if (config.type == PostType::kWinning && n != 1)
    return Error{std::to_string(n) + " sectors: WinningPoSt proves exactly one"};
  if (n > config.sector_count)
    return Error{std::to_string(n) + " sectors, more than the " + std::to_string(config.sector_count) + " of one " +
                 config.name + " partition"};
  std::vector<math::Fr> out;
  out.reserve(config.num_public_inputs());
  for (std::size_t i = 0; i < config.sector_count; ++i) {
    const bool winning = config.type == PostType::kWinning;
    if (!winning && i >= n) {  // padding: the last real sector's block again
      const std::size_t block = 1 + config.challenge_count;
      const std::size_t last = (n - 1) * block;
      for (std::size_t t = 0; t < block; ++t) out.push_back(out[last + t]);
      continue;
    }
    const PublicSector& s = sectors[winning ? 0 : i];
    auto comm_r = math::Fr::from_bytes_le(s.comm_r);
    if (!comm_r) return Error{"sector " + std::to_string(s.id) + ": comm_r is not a field element"};
    out.push_back(*comm_r);
    for (std::size_t c = 0; c < config.challenge_count; ++c)
      out.push_back(math::Fr::from_u64(circuit_challenge(config, randomness, s.id, partition_index, i, c)));
  }
  return out;
}

}  // namespace cuzk::filecoin::post
