// bellperson `.params` files (formats/bellperson/params.hpp ParamsFile::from_bytes, the reader the
// mmap path shares): the section table, the verifying key (subgroup-checked), then every vector decoded
// (decode_all). A file that decodes is encoded again (writer.hpp encode_params) to exactly its bytes:
// the uncompressed encoding has one form per point.
#include <algorithm>

#include "formats/bellperson/params.hpp"
#include "formats/bellperson/writer.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::formats::bellperson;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto file = ParamsFile::from_bytes(std::vector<std::uint8_t>(data, data + size), "fuzz.params");
  if (!file) return 0;
  CUZK_FUZZ_CHECK(file->file_size() == size);
  DecodeOptions opt;
  opt.threads = 1;
  auto contents = decode_all(*file, opt);
  if (!contents) return 0;
  WriteOptions wopt;
  wopt.threads = 1;
  auto enc = encode_params(ParamsRef::of(*contents), wopt);
  CUZK_FUZZ_CHECK(enc.ok(), enc.error());
  CUZK_FUZZ_CHECK(enc->size() == size && std::equal(enc->begin(), enc->end(), data), "encoded bytes differ");
  return 0;
}
