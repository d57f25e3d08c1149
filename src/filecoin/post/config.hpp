// Registered PoSt proofs (go-state-types abi.RegisteredPoStProof = filecoin-ffi's #[repr(i32)] codes,
// the wire's `registered_proof`; post-snap.md §1.1) with the circuit-relevant configuration of each:
//
//   0–4    StackedDrgWinning{2KiB,8MiB,512MiB,32GiB,64GiB}V1      api V1_0_0
//   5–9    StackedDrgWindow{…}V1                                  api V1_0_0
//   10–14  StackedDrgWindow{…}V1_1  (Rust proofs-api: …V1_2)      api V1_2_0
//
// The trap: FFI's V1_1 codes map to proofs-api's V1_2 names, whose ApiVersion V1_2_0 changes the
// challenge index rule (challenges.hpp). Both spellings are accepted by name.
//
// Circuit geometry (FallbackPoSt setup parameters, filecoin-proofs constants.rs): Winning proves
// 66 "sectors" of 1 challenge (one real sector, its 66 vanilla challenges unrolled); Window proves
// sector_count sectors (2 for the test sizes, 2,349 at 32 GiB, 2,300 at 64 GiB) of 10 challenges each.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "circuit/merkle.hpp"
#include "filecoin/params/cache_names.hpp"

namespace cuzk::filecoin::post {

enum class PostType { kWinning, kWindow };
const char* to_string(PostType t);  // "winning", "window"

struct PostConfig {
  std::uint32_t code = 0;  // RegisteredPoStProof
  std::string name;        // go-state-types, e.g. "StackedDrgWindow32GiBV1_1"
  std::string rust_name;   // proofs-api, e.g. "StackedDrgWindow32GiBV1_2" (= name for codes 0–9)
  PostType type = PostType::kWindow;
  bool v1_2_challenges = false;  // ApiVersion V1_2_0: challenge index j = n (else sector_index·C + n)
  std::uint64_t sector_size = 0;
  std::uint64_t nodes = 0;                                    // sector_size / 32
  std::size_t base_levels = 0, sub_arity = 0, top_arity = 0;  // tree R: 8^base_levels · sub · top leaves
  std::size_t sector_count = 0;                               // sectors per partition circuit
  std::size_t challenge_count = 0;                            // challenges per circuit sector (Winning 1, Window 10)
  std::size_t vanilla_challenges = 0;  // inclusion proofs per vanilla SectorProof (Winning 66, Window 10)

  circuit::TreeShape tree_shape() const;  // tree R (Poseidon 8-0-0 / 8-8-0 / 8-8-2)
  std::size_t path_levels() const { return base_levels + (sub_arity ? 1 : 0) + (top_arity ? 1 : 0); }
  std::size_t num_public_inputs() const { return sector_count * (1 + challenge_count); }  // ONE excluded
  params::ProofFamily family() const {
    return type == PostType::kWinning ? params::ProofFamily::kWinningPoSt : params::ProofFamily::kWindowPoSt;
  }
  // "winning-post" / "window-post" (the daemon's kind names)
  const char* kind_name() const { return type == PostType::kWinning ? "winning-post" : "window-post"; }
};

// All 15 registered PoSt proofs, in code order.
std::span<const PostConfig> all_post_configs();
// By code 0–14; the error lists the valid codes.
Result<const PostConfig*> post_config_by_code(std::uint64_t code);
// By go-state-types name, proofs-api name (…V1_2 aliases of the …V1_1 codes) or decimal code.
Result<const PostConfig*> post_config_by_name(std::string_view name);

}  // namespace cuzk::filecoin::post
