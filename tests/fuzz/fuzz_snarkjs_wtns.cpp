// snarkjs .wtns files (formats/snarkjs_wtns.hpp parse_wtns; the generic-groth16 kind parses a request's
// witness bytes with it). A witness that parses is written (write_wtns) and read back equal.
#include "formats/snarkjs_wtns.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::formats;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  auto w = parse_wtns(in.bytes(), "fuzz.wtns");
  if (!w) return 0;
  CUZK_FUZZ_CHECK(!w->empty());
  const auto path = cuzk::fuzz::scratch_dir() / "w.wtns";
  auto st = write_wtns(path.string(), *w);
  CUZK_FUZZ_CHECK(st.ok(), st.error());
  auto back = read_wtns(path.string());
  CUZK_FUZZ_CHECK(back.ok(), back.error());
  CUZK_FUZZ_CHECK(*back == *w);
  return 0;
}
