#include "filecoin/snap/challenges.hpp"

namespace cuzk::filecoin::snap {

const circuit::PoseidonConstants& gen_randomness_constants() {
  static const circuit::PoseidonConstants c = circuit::make_poseidon_constants(2, circuit::poseidon_tag_custom(1));
  return c;
}

Fr gen_randomness_hash(const Fr& a, const Fr& b) {
  const Fr pre[2] = {a, b};
  return circuit::poseidon_hash(gen_randomness_constants(), pre);
}

Fr phi(const Fr& comm_d_new, const Fr& comm_r_old) { return gen_randomness_hash(comm_d_new, comm_r_old); }

Fr rho(const Fr& phi_value, std::uint64_t high) { return gen_randomness_hash(phi_value, Fr::from_u64(high)); }

std::vector<std::uint64_t> partition_challenges(const SnapGeometry& g, const Fr& comm_r_new, std::size_t k) {
  std::vector<std::uint64_t> out;
  out.reserve(g.challenge_count);
  const std::size_t rb = g.random_bits;
  std::uint64_t digest_index = std::uint64_t(k) * g.digests_per_partition;
  while (out.size() < g.challenge_count) {
    const auto words = gen_randomness_hash(comm_r_new, Fr::from_u64(digest_index)).to_canonical();
    auto bit = [&](std::size_t i) { return (words[i / 64] >> (i % 64)) & 1; };
    for (std::size_t t = 0; t < g.challenges_per_digest && out.size() < g.challenge_count; ++t) {
      std::uint64_t c = 0;
      for (std::size_t j = 0; j < rb; ++j) c |= std::uint64_t(bit(t * rb + j)) << j;
      out.push_back(c | (std::uint64_t(k) << rb));
    }
    ++digest_index;
  }
  return out;
}

}  // namespace cuzk::filecoin::snap
