// Curio's C1 wrapper {"SectorNum","Phase1Out" (base64 C1 JSON),"SectorSize"} (c1_json.hpp
// parse_curio_c1): a wrapper that parses is written and read back to the same wrapper.
#include "filecoin/porep/c1_json.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::filecoin::porep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  auto w = parse_curio_c1(in.text());
  if (!w) return 0;
  const std::string out = write_curio_c1_json(*w);
  auto again = parse_curio_c1(out);
  CUZK_FUZZ_CHECK(again.ok(), again.error());
  CUZK_FUZZ_CHECK(again->sector_num == w->sector_num && again->sector_size == w->sector_size);
  CUZK_FUZZ_CHECK(write_curio_c1_json(*again) == out);
  return 0;
}
