#include "filecoin/porep/public_inputs.hpp"

#include "filecoin/porep/challenges.hpp"
#include "filecoin/porep/graph.hpp"

namespace cuzk::filecoin::porep {

namespace {
math::Fr fr_reduced(const Bytes32& b) {
  auto x = math::Fr::from_bytes_le(b);
  if (x) return *x;
  // Non-canonical: the caller validated the C1 already; reduce rather than fail here.
  math::Fr acc = math::Fr::zero();
  const math::Fr k256 = math::Fr::from_u64(256);
  for (int i = 31; i >= 0; --i) acc = acc * k256 + math::Fr::from_u64(b[std::size_t(i)]);
  return acc;
}
}  // namespace

std::vector<math::Fr> partition_public_inputs(const porep::PorepConfig& config, const porep::Graph& graph,
                                              const SectorPublic& sector, std::size_t partition) {
  std::vector<math::Fr> in;
  in.reserve(3 + 18 * config.challenges_per_partition);
  in.push_back(fr_reduced(sector.replica_id));
  in.push_back(fr_reduced(sector.comm_d));
  in.push_back(fr_reduced(sector.comm_r));
  const auto challenges = porep::partition_challenges(config, sector.replica_id, sector.seed, sector.comm_r, partition);
  for (std::uint64_t c : challenges) {
    const math::Fr fc = math::Fr::from_u64(c);
    in.push_back(fc);
    std::uint32_t drg[6], exp[8];
    graph.drg_parents(c, drg);
    graph.exp_parents(c, exp);
    for (auto p : drg) in.push_back(math::Fr::from_u64(p));
    for (auto p : exp) in.push_back(math::Fr::from_u64(p));
    in.push_back(fc);
    in.push_back(fc);
    in.push_back(fc);
  }
  return in;
}

}  // namespace cuzk::filecoin::porep
