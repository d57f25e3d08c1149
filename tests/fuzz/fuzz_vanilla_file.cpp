// The vanilla-proof file form the PoSt and SnapDeals tools read (filecoin/common/vanilla_file.hpp
// read_vanilla_blobs: one raw bincode blob, or a JSON array of base64 strings). Blobs read from a file
// are written as the JSON form and read back to the same blobs.
#include "filecoin/common/vanilla_file.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  auto blobs = cuzk::filecoin::read_vanilla_blobs(in.bytes());
  if (!blobs) return 0;
  if (blobs->empty()) return 0;
  const std::string json = cuzk::filecoin::write_vanilla_json(*blobs);
  auto back = cuzk::filecoin::read_vanilla_blobs(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(json.data()), json.size()));
  CUZK_FUZZ_CHECK(back.ok(), back.error());
  CUZK_FUZZ_CHECK(*back == *blobs);
  return 0;
}
