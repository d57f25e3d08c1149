// A SnapDeals request as the engine's snap kind and `cuzk prove-snap` hand it to
// filecoin::snap::SnapJob::prepare, 2 KiB geometry (first byte: 16-partition or Poseidon variant):
// comm_r_old, comm_r_new, comm_d_new (32 bytes each), then the vanilla_proofs blobs, each a u32
// little-endian length and its bytes. prepare decodes every partition proof, checks it against the
// commitments and derives the public inputs: any request gives a job or an error.
#include "filecoin/snap/snap_job.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::filecoin::snap;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  const UpdateVariant variant = (in.take_byte() & 1) ? UpdateVariant::kPoseidon : UpdateVariant::kPartitioned;
  auto g = snap_geometry(2048, variant);
  CUZK_FUZZ_CHECK(g.ok(), g.error());
  SnapCommitments comms;
  in.take(comms.comm_r_old.data(), 32);
  in.take(comms.comm_r_new.data(), 32);
  in.take(comms.comm_d_new.data(), 32);
  const auto blobs = in.take_parts(4);
  auto job = SnapJob::prepare(*g, comms, blobs);
  if (!job) return 0;
  CUZK_FUZZ_CHECK(blobs.size() == g->partitions);
  return 0;
}
