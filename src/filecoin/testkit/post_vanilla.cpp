// PoSt vanilla proofs for tests (see post_vanilla.hpp): from `cuzk seal` output folders, and
// SYNTHETIC TEST DATA sectors (sparse tree R, sparse_tree.hpp), one sector per thread.
#include "filecoin/testkit/post_vanilla.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <unordered_map>

#include "base/parallel.hpp"
#include "circuit/poseidon.hpp"
#include "filecoin/common/sha.hpp"
#include "filecoin/post/challenges.hpp"
#include "filecoin/testkit/sparse_tree.hpp"

namespace cuzk::filecoin::testkit {
namespace {

Fr poseidon2(const Fr& a, const Fr& b) {
  const Fr pair[2] = {a, b};
  return circuit::poseidon_hash(circuit::poseidon_constants(2), std::span<const Fr>(pair, 2));
}

Result<std::vector<std::uint8_t>> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open"};
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Error{path + ": read error"};
  return bytes;
}

Result<Bytes32> hex_field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_string()) return Error{where + ": no string field \"" + key + "\""};
  auto b = bytes32_from_hex(j[key].get<std::string>());
  if (!b) return Error{where + ": \"" + key + "\": " + b.error()};
  return *b;
}

// Domain tags of the synthetic sectors' pseudo-random values (one PRF keyed by position, so that
// nothing depends on the thread count or the order values are drawn in).
enum Tag : std::uint8_t { kTagLeaf = 'L', kTagSibling = 'S', kTagCommC = 'C' };

// SHA-254("cuzk-synthetic-post" ‖ tag ‖ rng_seed ‖ sector_id ‖ a ‖ b): a canonical field element.
Fr prf(Tag tag, std::uint64_t rng_seed, std::uint64_t sector_id, std::uint64_t a, std::uint64_t b) {
  static constexpr char kDomain[] = "cuzk-synthetic-post";
  std::uint8_t msg[sizeof(kDomain) - 1 + 1 + 32];
  std::size_t o = 0;
  for (std::size_t i = 0; i + 1 < sizeof(kDomain); ++i) msg[o++] = std::uint8_t(kDomain[i]);
  msg[o++] = tag;
  for (std::uint64_t v : {rng_seed, sector_id, a, b})
    for (int i = 0; i < 8; ++i) msg[o++] = std::uint8_t(v >> (8 * i));
  return fr_from_bytes(sha254(msg));
}

std::uint64_t sector_index_of(const post::PostConfig& config, std::uint32_t partition_index, std::size_t i) {
  return config.type == post::PostType::kWinning ? 0 : std::uint64_t(partition_index) * config.sector_count + i;
}

}  // namespace

Result<PostSector> load_sealed_sector(const std::string& dir, const post::PostConfig& config) {
  const std::string comm_path = dir + "/comm.json", sealed_path = dir + "/sealed";
  auto text = read_all(comm_path);
  if (!text) return Error{text.error()};
  const nlohmann::json j = nlohmann::json::parse(text->begin(), text->end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{comm_path + ": not a JSON object"};
  if (!j.contains("sector_size") || !j["sector_size"].is_number_unsigned())
    return Error{comm_path + ": no unsigned field \"sector_size\""};
  if (!j.contains("sector_id") || !j["sector_id"].is_number_unsigned())
    return Error{comm_path + ": no unsigned field \"sector_id\""};
  const std::uint64_t size = j["sector_size"].get<std::uint64_t>();
  if (size != config.sector_size)
    return Error{comm_path + ": a sector of " + std::to_string(size) + " bytes, " + config.name +
                 " proves sectors of " + std::to_string(config.sector_size)};
  PostSector s;
  s.sector_id = j["sector_id"].get<std::uint64_t>();
  for (auto [key, out] : {std::pair{"comm_c", &s.comm_c}, {"comm_r_last", &s.comm_r_last}, {"comm_r", &s.comm_r}}) {
    auto b = hex_field(j, key, comm_path);
    if (!b) return Error{b.error()};
    *out = *b;
  }
  auto replica = read_all(sealed_path);
  if (!replica) return Error{replica.error()};
  if (replica->size() != config.sector_size)
    return Error{sealed_path + ": " + std::to_string(replica->size()) + " bytes, expected the sector's " +
                 std::to_string(config.sector_size)};
  std::vector<Fr> leaves(config.nodes);
  for (std::uint64_t n = 0; n < config.nodes; ++n) {
    auto x = Fr::from_bytes_le(std::span<const std::uint8_t>(replica->data() + 32 * n, 32));
    if (!x) return Error{sealed_path + ": node " + std::to_string(n) + " is not a field element"};
    leaves[n] = *x;
  }
  *replica = {};
  s.tree_r = PoseidonTree(config.tree_shape(), std::move(leaves));
  if (fr_to_bytes(s.tree_r.root()) != s.comm_r_last)
    return Error{sealed_path + ": tree R's root differs from comm.json's comm_r_last"};
  if (fr_to_bytes(poseidon2(fr_from_bytes(s.comm_c), fr_from_bytes(s.comm_r_last))) != s.comm_r)
    return Error{comm_path + ": comm_r is not Poseidon(comm_c, comm_r_last)"};
  return s;
}

post::FallbackPostSectorProof post_vanilla_proof(const post::PostConfig& config, const PostSector& sector,
                                                 const Bytes32& randomness, std::uint64_t sector_index) {
  post::SectorProof sp;
  sp.comm_c = sector.comm_c;
  sp.comm_r_last = sector.comm_r_last;
  for (std::uint64_t leaf : post::sector_challenges(config, randomness, sector.sector_id, sector_index))
    sp.inclusion_proofs.push_back(sector.tree_r.proof(leaf));
  post::FallbackPostSectorProof p;
  p.sector_id = sector.sector_id;
  p.comm_r = sector.comm_r;
  p.sectors.push_back(std::move(sp));
  return p;
}

std::vector<post::FallbackPostSectorProof> synthetic_post_vanilla(const post::PostConfig& config, std::size_t count,
                                                                  const Bytes32& randomness,
                                                                  std::uint32_t partition_index,
                                                                  std::uint64_t first_sector_id,
                                                                  std::uint64_t rng_seed) {
  if (count == 0) throw std::invalid_argument("synthetic PoSt: no sectors");
  if (config.type == post::PostType::kWinning && (count != 1 || partition_index != 0))
    throw std::invalid_argument("synthetic PoSt: WinningPoSt proves exactly one sector, partition 0");
  if (count > config.sector_count)
    throw std::invalid_argument("synthetic PoSt: " + std::to_string(count) + " sectors, more than the " +
                                std::to_string(config.sector_count) + " of one " + config.name + " partition");
  if (first_sector_id > ~std::uint64_t(0) - count) throw std::invalid_argument("synthetic PoSt: sector ids overflow");
  const circuit::TreeShape shape = config.tree_shape();
  std::vector<post::FallbackPostSectorProof> out(count);
  // One sector per thread: each tree is a few hundred hashes, hashed on its own thread.
  parallel_for(
      count,
      [&](std::size_t i) {
        const std::uint64_t id = first_sector_id + i;
        const auto challenges =
            post::sector_challenges(config, randomness, id, sector_index_of(config, partition_index, i));
        std::unordered_map<std::uint64_t, Fr> leaves;
        for (std::uint64_t c : challenges) leaves.emplace(c, prf(kTagLeaf, rng_seed, id, c, 0));
        const SparsePoseidonTree tree(
            shape, std::move(leaves),
            [&](std::size_t level, std::uint64_t index) { return prf(kTagSibling, rng_seed, id, level, index); },
            false);
        post::SectorProof sp;
        sp.comm_c = fr_to_bytes(prf(kTagCommC, rng_seed, id, 0, 0));
        sp.comm_r_last = fr_to_bytes(tree.root());
        for (std::uint64_t c : challenges) sp.inclusion_proofs.push_back(tree.proof(c));
        post::FallbackPostSectorProof& p = out[i];
        p.sector_id = id;
        p.comm_r = fr_to_bytes(poseidon2(fr_from_bytes(sp.comm_c), tree.root()));
        p.sectors.push_back(std::move(sp));
      },
      1);
  return out;
}

}  // namespace cuzk::filecoin::testkit
