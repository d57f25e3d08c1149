#include "filecoin/post/challenges.hpp"

#include <cstring>

#include "filecoin/common/sha.hpp"

namespace cuzk::filecoin::post {

std::uint64_t leaf_challenge(const Bytes32& randomness, std::uint64_t sector_id, std::uint64_t challenge_index,
                             std::uint64_t nodes) {
  std::uint8_t msg[48];
  std::memcpy(msg, randomness.data(), 32);
  for (int b = 0; b < 8; ++b) {
    msg[32 + b] = std::uint8_t(sector_id >> (8 * b));
    msg[40 + b] = std::uint8_t(challenge_index >> (8 * b));
  }
  const Bytes32 h = sha256(msg);
  std::uint64_t x = 0;
  for (int b = 7; b >= 0; --b) x = (x << 8) | h[std::size_t(b)];
  return x % nodes;
}

std::vector<std::uint64_t> sector_challenges(const PostConfig& config, const Bytes32& randomness,
                                             std::uint64_t sector_id, std::uint64_t sector_index) {
  const std::uint64_t c = config.vanilla_challenges;
  std::vector<std::uint64_t> out(c);
  for (std::uint64_t n = 0; n < c; ++n) {
    const std::uint64_t j = config.v1_2_challenges ? n : sector_index * c + n;
    out[n] = leaf_challenge(randomness, sector_id, j, config.nodes);
  }
  return out;
}

Status check_fr(const Bytes32& value, const char* what) {
  if (!math::Fr::from_bytes_le(value))
    return Error{std::string(what) +
                 ": not a field element (a value >= r; Lotus and Curio clear the top two bits "
                 "of byte 31)"};
  return ok_status();
}

}  // namespace cuzk::filecoin::post
