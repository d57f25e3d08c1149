// What the PoSt subcommands share (cmd_post.cpp, cmd_gen_vanilla.cpp, cmd_post_prove.cpp): the
// options --registered-proof NAME (go-state-types name, the proofs-api …V1_2 alias or the code 0–14),
// --miner-id N (prover id = porep::prover_id_from_actor; only validated: the PoSt circuit does not
// use it), --randomness HEX (32 bytes, a field element: refused otherwise, never masked),
// --partition K (Window only), and the vanilla-proof files (raw bincode or a JSON array of base64,
// several files concatenated). Every error is one line; the callers exit 2 on it.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "apps/cuzk/common.hpp"
#include "base/result.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/common/vanilla_file.hpp"
#include "filecoin/porep/ids.hpp"
#include "filecoin/post/challenges.hpp"
#include "filecoin/post/config.hpp"
#include "filecoin/post/vanilla.hpp"

namespace cuzk::cli {

struct PostOptions {
  std::string proof, randomness;
  std::uint64_t miner_id = 0;
  std::uint32_t partition = 0;
};

struct PostRequest {
  const filecoin::post::PostConfig* config = nullptr;
  filecoin::Bytes32 randomness{}, prover_id{};
  std::uint32_t partition = 0;
};

inline void add_post_options(CLI::App* sub, PostOptions& o, bool with_partition = true) {
  sub->add_option("--registered-proof", o.proof,
                  "registered PoSt proof: StackedDrgWindow2KiBV1_1 (alias ...V1_2), StackedDrgWinning32GiBV1, ... "
                  "or its code 0-14")
      ->required();
  sub->add_option("--miner-id", o.miner_id, "miner actor id (prover id = its LEB128 varint, zero padded)")->required();
  sub->add_option("--randomness", o.randomness, "PoSt randomness, 32 bytes hex (a field element)")->required();
  if (with_partition) sub->add_option("--partition", o.partition, "WindowPoSt partition index (default 0)");
}

inline Result<PostRequest> parse_post_options(const PostOptions& o) {
  PostRequest r;
  auto c = filecoin::post::post_config_by_name(o.proof);
  if (!c) return Error{"--registered-proof: " + c.error()};
  r.config = *c;
  auto rand = filecoin::bytes32_from_hex(o.randomness);
  if (!rand) return Error{"--randomness: must be 64 hex digits (32 bytes): " + rand.error()};
  if (auto st = filecoin::post::check_fr(*rand, "--randomness"); !st) return Error{st.error()};
  r.randomness = *rand;
  r.prover_id = filecoin::porep::prover_id_from_actor(o.miner_id);
  if (auto st = filecoin::post::check_fr(r.prover_id, "--miner-id (prover id)"); !st) return Error{st.error()};
  if (r.config->type == filecoin::post::PostType::kWinning && o.partition != 0)
    return Error{"--partition " + std::to_string(o.partition) + ": WinningPoSt has one partition (0)"};
  r.partition = o.partition;
  return r;
}

// The blobs of every file in order (filecoin::read_vanilla_blobs), the error naming the file.
inline Result<std::vector<std::vector<std::uint8_t>>> read_vanilla_files(const std::vector<std::string>& files) {
  std::vector<std::vector<std::uint8_t>> out;
  for (const std::string& f : files) {
    auto bytes = read_file(f);
    if (!bytes) return Error{bytes.error()};
    auto blobs = filecoin::read_vanilla_blobs(*bytes);
    if (!blobs) return Error{f + ": " + blobs.error()};
    for (auto& b : *blobs) out.push_back(std::move(b));
  }
  return out;
}

// Each blob decoded and shape-checked against the registered proof ("vanilla_proofs[i] (sector N): …").
inline Result<std::vector<filecoin::post::FallbackPostSectorProof>> parse_vanilla(
    const filecoin::post::PostConfig& config, const std::vector<std::vector<std::uint8_t>>& blobs) {
  std::vector<filecoin::post::FallbackPostSectorProof> out;
  out.reserve(blobs.size());
  for (std::size_t i = 0; i < blobs.size(); ++i) {
    auto p = filecoin::post::parse_sector_proof(blobs[i], config, i);
    if (!p) return Error{p.error()};
    out.push_back(std::move(*p));
  }
  return out;
}

// The request's sector count, before any check (malformed input, not a proof that fails): Window 1 to
// sector_count sectors, Winning exactly one.
inline Status check_sector_count(const filecoin::post::PostConfig& config, std::size_t n) {
  if (n == 0) return Error{"vanilla_proofs: no sector proofs"};
  if (config.type == filecoin::post::PostType::kWinning && n != 1)
    return Error{"vanilla_proofs: " + std::to_string(n) + " sector proofs, WinningPoSt proves exactly one sector"};
  if (n > config.sector_count)
    return Error{"vanilla_proofs: " + std::to_string(n) + " sectors, more than the " +
                 std::to_string(config.sector_count) + " of one " + config.name + " partition"};
  return ok_status();
}

}  // namespace cuzk::cli
