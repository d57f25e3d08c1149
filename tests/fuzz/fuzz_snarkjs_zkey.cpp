// snarkjs .zkey files (formats/snarkjs_zkey.hpp parse_zkey; the large vectors subgroup-checked or not,
// first byte): any bytes give a key or an error; a key that parses is consistent with its header.
#include "formats/snarkjs_zkey.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::formats;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  ZkeyReadOptions opt;
  opt.check_subgroup = in.take_byte() & 1;
  auto z = parse_zkey(in.bytes(), "fuzz.zkey", opt);
  if (!z) return 0;
  CUZK_FUZZ_CHECK(z->pk.vk.ic.size() == std::size_t(z->n_public) + 1);
  CUZK_FUZZ_CHECK(z->shape.num_variables() == z->n_vars);
  CUZK_FUZZ_CHECK(z->shape.num_constraints() == std::size_t(z->n_constraints) + z->n_public + 1);
  return 0;
}
