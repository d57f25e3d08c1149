// The C1 loader's format detection and dispatch (c1_io.hpp parse_c1_any: Curio wrapper, C1 JSON or
// bincode), with and without a sector size bound (the first byte picks one). A C1 that loads is written
// as bincode and read back to the same C1 (its JSON form compared).
#include "filecoin/porep/c1_bincode.hpp"
#include "filecoin/porep/c1_io.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::filecoin::porep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  static constexpr std::uint64_t kSizes[] = {0, 2048, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30, 4096};
  const std::uint64_t sector_size = kSizes[in.take_byte() % std::size(kSizes)];
  auto loaded = parse_c1_any(in.bytes(), sector_size);
  if (!loaded) return 0;
  CUZK_FUZZ_CHECK(loaded->format == detect_c1_format(in.bytes()));
  const std::vector<std::uint8_t> bin = write_c1_bincode(loaded->c1);
  auto back = parse_c1_bincode(bin, loaded->c1.registered_proof);
  CUZK_FUZZ_CHECK(back.ok(), back.error());
  CUZK_FUZZ_CHECK(write_c1_json(*back) == write_c1_json(loaded->c1));
  return 0;
}
