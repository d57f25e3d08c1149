// Sealed test sectors shared by the C2 tests (sealing a 2 KiB sector takes milliseconds).
#pragma once

#include "filecoin/porep/config.hpp"
#include "filecoin/porep/ids.hpp"
#include "filecoin/testkit/seal.hpp"
#include "filecoin/testkit/vanilla.hpp"

namespace cuzk::filecoin::test {

inline porep::C1Output sealed_c1(const std::string& proof, std::uint64_t rng_seed, std::uint8_t seed_byte = 0x22) {
  const auto& cfg = porep::porep_config_by_name(proof);
  testkit::SealInputs in;
  in.prover_id = porep::prover_id_from_actor(1000 + rng_seed);
  in.sector_id = rng_seed;
  in.ticket.fill(std::uint8_t(0x11 + rng_seed));
  in.ticket[31] = 0;
  in.seed.fill(seed_byte);
  in.seed[31] = 0;
  in.data = testkit::random_unpadded_data(cfg, rng_seed);
  return testkit::seal_commit_phase1(cfg, in);
}

}  // namespace cuzk::filecoin::test
