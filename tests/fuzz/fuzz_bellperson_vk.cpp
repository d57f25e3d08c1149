// bellperson `.vk` files (params.hpp parse_vk: the six points and ic, subgroup-checked) and the
// `.meta` files beside them (writer.hpp parse_meta); the first byte picks which. A .vk that parses
// encodes again (encode_vk) to exactly its bytes; a .meta's sector size survives encode_meta.
#include <algorithm>

#include "formats/bellperson/params.hpp"
#include "formats/bellperson/writer.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::formats::bellperson;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  if (in.take_byte() & 1) {
    auto m = parse_meta(in.text(), "fuzz.meta");
    if (!m) return 0;
    auto back = parse_meta(encode_meta(*m), "fuzz.meta");
    CUZK_FUZZ_CHECK(back.ok(), back.error());
    CUZK_FUZZ_CHECK(back->sector_size == m->sector_size);
    return 0;
  }
  auto vk = parse_vk(in.bytes(), "fuzz.vk");
  if (!vk) return 0;
  CUZK_FUZZ_CHECK(vk->layout.file_size == in.size);
  auto enc = encode_vk(vk->vk);
  CUZK_FUZZ_CHECK(enc.ok(), enc.error());
  CUZK_FUZZ_CHECK(enc->size() == in.size && std::equal(enc->begin(), enc->end(), in.data), "encoded bytes differ");
  return 0;
}
