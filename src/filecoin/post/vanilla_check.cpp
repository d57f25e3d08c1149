#include "filecoin/post/vanilla_check.hpp"

#include <atomic>
#include <mutex>
#include <string>

#include "base/parallel.hpp"
#include "circuit/poseidon.hpp"
#include "filecoin/common/merkle_path.hpp"
#include "filecoin/post/challenges.hpp"

namespace cuzk::filecoin::post {
namespace {

std::string str(std::uint64_t x) { return std::to_string(x); }

Result<CheckedSector> check_sector(const PostConfig& config, const Bytes32& randomness, std::uint32_t partition_index,
                                   const FallbackPostSectorProof& p, std::size_t i) {
  const std::string where = "vanilla_proofs[" + str(i) + "] (sector " + str(p.sector_id) + ")";
  const SectorProof& s = p.sectors.at(0);
  CheckedSector out;
  out.pub = {p.sector_id, p.comm_r};
  auto comm_r = fr_from_bytes32(p.comm_r, where + ".comm_r");
  if (!comm_r) return Error{comm_r.error()};
  auto comm_c = fr_from_bytes32(s.comm_c, where + ".comm_c");
  if (!comm_c) return Error{comm_c.error()};
  auto comm_r_last = fr_from_bytes32(s.comm_r_last, where + ".comm_r_last");
  if (!comm_r_last) return Error{comm_r_last.error()};
  const math::Fr pre[2] = {*comm_c, *comm_r_last};
  if (circuit::poseidon_hash(circuit::poseidon_constants(2), std::span<const math::Fr>(pre, 2)) != *comm_r)
    return Error{where + ": comm_r is not Poseidon(comm_c, comm_r_last)"};
  out.values.comm_r = *comm_r;
  out.values.comm_c = *comm_c;
  out.values.comm_r_last = *comm_r_last;

  const std::uint64_t sector_index =
      config.type == PostType::kWinning ? 0 : std::uint64_t(partition_index) * config.sector_count + i;
  const std::vector<std::uint64_t> challenges = sector_challenges(config, randomness, p.sector_id, sector_index);
  const auto arities = config.tree_shape().level_arities();
  out.values.paths.reserve(s.inclusion_proofs.size());
  for (std::size_t n = 0; n < s.inclusion_proofs.size(); ++n) {
    const std::string at = where + ".inclusion_proofs[" + str(n) + "]";
    auto path = to_circuit_path(s.inclusion_proofs[n], arities, at);
    if (!path) return Error{path.error()};
    const PathResult r = hash_path(*path, circuit::TreeHash::kPoseidon);
    if (r.root != path->root) return Error{at + ": the path does not hash to its root"};
    if (path->root != *comm_r_last) return Error{at + ".root: differs from the sector's comm_r_last"};
    if (r.index != challenges[n])
      return Error{where + ": challenge " + str(n) + ": the proof opens leaf " + str(r.index) +
                   ", the randomness and sector id challenge leaf " + str(challenges[n])};
    out.values.paths.push_back(std::move(*path));
  }
  return out;
}

}  // namespace

Result<std::vector<CheckedSector>> check_vanilla_proofs(const PostConfig& config, const Bytes32& randomness,
                                                        std::uint32_t partition_index,
                                                        std::span<const FallbackPostSectorProof> proofs,
                                                        const std::function<bool()>& cancelled) {
  if (auto st = check_fr(randomness, "randomness"); !st) return Error{st.error()};
  const std::size_t n = proofs.size();
  if (n == 0) return Error{"vanilla_proofs: empty (expected one FallbackPoStSectorProof per sector)"};
  if (config.type == PostType::kWinning && n != 1)
    return Error{"vanilla_proofs: " + str(n) + " sector proofs, WinningPoSt proves exactly one sector"};
  if (n > config.sector_count)
    return Error{"vanilla_proofs: " + str(n) + " sectors, more than the " + str(config.sector_count) + " of one " +
                 config.name + " partition"};
  for (std::size_t i = 1; i < n; ++i)
    if (proofs[i].sector_id <= proofs[i - 1].sector_id)
      return Error{"vanilla_proofs[" + str(i) + "] (sector " + str(proofs[i].sector_id) + "): follows sector " +
                   str(proofs[i - 1].sector_id) + "; sectors must be in strictly ascending order"};
  for (const auto& p : proofs)
    if (p.sectors.size() != 1) return Error{"sector " + str(p.sector_id) + ": expected exactly one SectorProof"};

  std::vector<CheckedSector> out(n);
  std::mutex mu;
  std::size_t first_bad = n;
  std::string first_error;
  std::atomic<bool> stop{false};
  parallel_for(
      n,
      [&](std::size_t i) {
        if (stop.load(std::memory_order_relaxed)) return;
        if (cancelled && cancelled()) {
          stop = true;
          return;
        }
        auto r = check_sector(config, randomness, partition_index, proofs[i], i);
        if (r) {
          out[i] = std::move(*r);
          return;
        }
        std::lock_guard<std::mutex> g(mu);
        if (i < first_bad) {  // report the first failing sector in request order
          first_bad = i;
          first_error = r.error();
        }
      },
      1);
  if (cancelled && cancelled()) return Error{"cancelled"};
  if (first_bad < n) return Error{first_error};
  return out;
}

}  // namespace cuzk::filecoin::post
