// C1 JSON (filecoin/porep/c1_json.hpp parse_c1_json): any text gives a C1 or an error. A C1 that
// parses is written (serde_json's compact form) and read back: the same document again, so parse and
// write agree on every value that gets through. The unchunked reference parse must agree on
// acceptance and on the value.
#include "filecoin/porep/c1_json.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::filecoin::porep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  auto c1 = parse_c1_json(in.text());
  auto ref = detail::parse_c1_json_unchunked(in.text());
  CUZK_FUZZ_CHECK(c1.ok() == ref.ok(), c1.ok() ? ref.error() : c1.error());
  if (!c1) return 0;
  const std::string w = write_c1_json(*c1);
  CUZK_FUZZ_CHECK(w == write_c1_json(*ref));
  auto again = parse_c1_json(w);
  CUZK_FUZZ_CHECK(again.ok(), again.error());
  CUZK_FUZZ_CHECK(write_c1_json(*again) == w);
  return 0;
}
