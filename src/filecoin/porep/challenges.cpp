#include "filecoin/porep/challenges.hpp"

#include <stdexcept>
#include <string_view>

#include "filecoin/common/blake2b.hpp"
#include "filecoin/common/chacha.hpp"
#include "filecoin/common/sha.hpp"

namespace cuzk::filecoin::porep {
namespace {

constexpr std::uint8_t kSynthNonce[12] = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};

std::span<const std::uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// (LE integer of the 32 bytes) mod (nodes − 1) + 1.
std::uint64_t reduce_to_challenge(std::span<const std::uint8_t> le, std::uint64_t nodes) {
  const std::uint64_t m = nodes - 1;
  unsigned __int128 r = 0;
  for (std::size_t i = le.size(); i-- > 0;) r = ((r << 8) | le[i]) % m;
  return std::uint64_t(r) + 1;
}

std::vector<std::uint64_t> hashed_challenges(std::uint64_t nodes, std::span<const std::uint8_t> prefix,
                                             std::size_t per_partition, std::size_t partition) {
  if (nodes < 2) throw std::invalid_argument("challenges: need at least 2 nodes");
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < per_partition; ++i) {
    const std::uint32_t j = std::uint32_t(per_partition * partition + i);
    const std::uint8_t jb[4] = {std::uint8_t(j), std::uint8_t(j >> 8), std::uint8_t(j >> 16), std::uint8_t(j >> 24)};
    Sha256 h;
    h.update(prefix);
    h.update(jb);
    out.push_back(reduce_to_challenge(h.finish(), nodes));
  }
  return out;
}

Bytes32 keyed_blake2b256(std::string_view key, const Bytes32& a, const Bytes32& b) {
  std::uint8_t msg[64];
  std::copy(a.begin(), a.end(), msg);
  std::copy(b.begin(), b.end(), msg + 32);
  Bytes32 out;
  blake2b(out, msg, as_bytes(key));
  return out;
}

}  // namespace

std::vector<std::uint64_t> interactive_challenges(std::uint64_t nodes, const Bytes32& replica_id, const Bytes32& seed,
                                                  std::size_t per_partition, std::size_t partition) {
  std::uint8_t prefix[64];
  std::copy(replica_id.begin(), replica_id.end(), prefix);
  std::copy(seed.begin(), seed.end(), prefix + 32);
  return hashed_challenges(nodes, prefix, per_partition, partition);
}

std::vector<std::uint64_t> ni_challenges(std::uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                         std::size_t per_partition, std::size_t partition) {
  constexpr std::string_view kTag = "filecoin.io|PoRep|1|NonInteractive|1";
  std::vector<std::uint8_t> prefix(kTag.begin(), kTag.end());
  prefix.insert(prefix.end(), replica_id.begin(), replica_id.end());
  prefix.insert(prefix.end(), comm_r.begin(), comm_r.end());
  return hashed_challenges(nodes, prefix, per_partition, partition);
}

std::uint64_t num_synthetic_challenges(std::uint64_t nodes) { return std::min<std::uint64_t>(nodes, 1u << 18); }

std::vector<std::uint64_t> synthetic_challenges(std::uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                std::uint64_t count, std::uint64_t first) {
  if (nodes < 2) throw std::invalid_argument("challenges: need at least 2 nodes");
  const Bytes32 key = keyed_blake2b256("filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r);
  std::vector<std::uint8_t> stream(32 * count);
  chacha20_ietf_keystream(key, kSynthNonce, 32 * first, stream);
  std::vector<std::uint64_t> out;
  for (std::uint64_t i = 0; i < count; ++i) out.push_back(reduce_to_challenge({stream.data() + 32 * i, 32}, nodes));
  return out;
}

std::vector<std::uint64_t> synthetic_selection(const Bytes32& replica_id, const Bytes32& seed, std::uint64_t num_synth,
                                               std::size_t per_partition, std::size_t partition) {
  if (num_synth == 0) throw std::invalid_argument("challenges: empty synthetic set");
  const Bytes32 key = keyed_blake2b256("filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed);
  std::vector<std::uint8_t> stream(4 * per_partition);
  chacha20_ietf_keystream(key, kSynthNonce, 4 * per_partition * partition, stream);
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < per_partition; ++i) {
    const std::uint32_t w = std::uint32_t(stream[4 * i]) | std::uint32_t(stream[4 * i + 1]) << 8 |
                            std::uint32_t(stream[4 * i + 2]) << 16 | std::uint32_t(stream[4 * i + 3]) << 24;
    out.push_back(w % num_synth);
  }
  return out;
}

std::vector<std::uint64_t> partition_challenges(const porep::PorepConfig& config, const Bytes32& replica_id,
                                                const Bytes32& seed, const Bytes32& comm_r, std::size_t partition) {
  const std::size_t c = config.challenges_per_partition;
  switch (config.variant) {
    case porep::PorepVariant::kV1:
    case porep::PorepVariant::kV1_1: return interactive_challenges(config.nodes, replica_id, seed, c, partition);
    case porep::PorepVariant::kNonInteractive: return ni_challenges(config.nodes, replica_id, comm_r, c, partition);
    case porep::PorepVariant::kSynthetic: {
      std::vector<std::uint64_t> out;
      for (std::uint64_t index :
           synthetic_selection(replica_id, seed, num_synthetic_challenges(config.nodes), c, partition))
        out.push_back(synthetic_challenges(config.nodes, replica_id, comm_r, 1, index)[0]);
      return out;
    }
  }
  throw std::logic_error("challenges: unknown PoRep variant");
}

}  // namespace cuzk::filecoin::porep
