// bincode C1 (supraseal's commit-phase1-output; c1_bincode.hpp parse_c1_bincode), its registered proof
// inferred from the shape and its lengths bounded by every registered proof's maxima. The encoding has
// one form per value and no trailing bytes, so a C1 that parses writes back to exactly the input.
#include "filecoin/porep/c1_bincode.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::filecoin::porep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  auto c1 = parse_c1_bincode(in.bytes(), "");
  if (!c1) return 0;
  CUZK_FUZZ_CHECK(c1_bincode_size(*c1) == size);
  const std::vector<std::uint8_t> w = write_c1_bincode(*c1);
  CUZK_FUZZ_CHECK(w.size() == size && std::equal(w.begin(), w.end(), data), "written bytes differ from the input");
  return 0;
}
