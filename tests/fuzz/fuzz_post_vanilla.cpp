// PoSt vanilla proofs (filecoin/post/vanilla.hpp parse_sector_proof): one bincode
// FallbackPoStSectorProof, its shape checked against the registered proof the first byte picks (2 KiB
// Window and Winning: Single 8-0-0 trees; 32 GiB Window: Sub 8-8-0; 64 GiB Window: Top 8-8-2). A proof
// that parses has the configuration's exact size and writes back to exactly its bytes.
#include <algorithm>

#include "filecoin/post/vanilla.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::filecoin::post;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  static constexpr const char* kConfigs[] = {"StackedDrgWindow2KiBV1_1", "StackedDrgWinning2KiBV1",
                                             "StackedDrgWindow32GiBV1_1", "StackedDrgWindow64GiBV1_1"};
  auto config = post_config_by_name(kConfigs[in.take_byte() % std::size(kConfigs)]);
  CUZK_FUZZ_CHECK(config.ok(), config.error());
  auto p = parse_sector_proof(in.bytes(), **config, 0);
  if (!p) return 0;
  CUZK_FUZZ_CHECK(p->sectors.size() == 1);
  CUZK_FUZZ_CHECK(in.size == expected_sector_proof_size(**config));
  CUZK_FUZZ_CHECK(sector_proof_bincode_size(*p) == in.size);
  const std::vector<std::uint8_t> w = write_sector_proof(*p);
  CUZK_FUZZ_CHECK(w.size() == in.size && std::equal(w.begin(), w.end(), in.data), "written bytes differ");
  return 0;
}
