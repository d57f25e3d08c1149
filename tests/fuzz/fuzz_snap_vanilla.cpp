// SnapDeals partition proofs (filecoin/snap/vanilla.hpp parse_partition_proof), 2 KiB geometry, the
// 16-partition or the Poseidon variant (first byte). A proof that parses has the geometry's exact size
// and writes back to exactly its bytes.
#include <algorithm>

#include "filecoin/snap/vanilla.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::filecoin::snap;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  const UpdateVariant variant = (in.take_byte() & 1) ? UpdateVariant::kPoseidon : UpdateVariant::kPartitioned;
  auto g = snap_geometry(2048, variant);
  CUZK_FUZZ_CHECK(g.ok(), g.error());
  auto p = parse_partition_proof(in.bytes(), *g, 0);
  if (!p) return 0;
  CUZK_FUZZ_CHECK(in.size == expected_partition_proof_size(*g));
  const std::vector<std::uint8_t> w = write_partition_proof(*p, variant);
  CUZK_FUZZ_CHECK(w.size() == in.size && std::equal(w.begin(), w.end(), in.data), "written bytes differ");
  return 0;
}
