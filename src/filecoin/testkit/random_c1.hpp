// TEST TOOLING: a C1 of the right shape for a registered proof with random values that pass
// porep::check_c1_shape (consistent indices and roots, canonical values, labeling parents laid out
// from the columns as upstream does). Not a valid proof (no hash holds): for the C1 readers' tests
// and c1_parse_bench, which need 32 GiB-shaped documents without sealing anything.
#pragma once

#include <cstdint>

#include "filecoin/porep/c1.hpp"
#include "filecoin/porep/config.hpp"

namespace cuzk::filecoin::testkit {

porep::C1Output random_c1_for_tests(const porep::PorepConfig& cfg, std::uint64_t seed);

}  // namespace cuzk::filecoin::testkit
