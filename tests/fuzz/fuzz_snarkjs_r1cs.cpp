// circom .r1cs files (formats/snarkjs_r1cs.hpp parse_r1cs). A circuit that parses is written
// (write_r1cs), read back and written again: both files the same bytes, the header the same.
#include <filesystem>

#include "formats/snarkjs_r1cs.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::formats;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  auto r = parse_r1cs(in.bytes(), "fuzz.r1cs");
  if (!r) return 0;
  CUZK_FUZZ_CHECK(r->shape.num_constraints() == r->header.n_constraints);
  const auto p1 = cuzk::fuzz::scratch_dir() / "a.r1cs", p2 = cuzk::fuzz::scratch_dir() / "b.r1cs";
  auto st = write_r1cs(p1.string(), r->shape, r->header);
  CUZK_FUZZ_CHECK(st.ok(), st.error());
  auto back = read_r1cs(p1.string());
  CUZK_FUZZ_CHECK(back.ok(), back.error());
  CUZK_FUZZ_CHECK(back->header.n_wires == r->header.n_wires && back->header.n_constraints == r->header.n_constraints &&
                  back->header.n_public() == r->header.n_public());
  st = write_r1cs(p2.string(), back->shape, back->header);
  CUZK_FUZZ_CHECK(st.ok(), st.error());
  CUZK_FUZZ_CHECK(cuzk::fuzz::read_file_bytes(p1) == cuzk::fuzz::read_file_bytes(p2), "the two writes differ");
  return 0;
}
