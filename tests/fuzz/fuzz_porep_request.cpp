// A PoRep C2 request's C1 bytes as the engine's porep kind and `cuzk prove-porep` hand them to
// filecoin::porep::PorepJob::prepare (any C1 form; first byte: the request's sector size, 0 = not
// given, or 2 KiB): parse, registered proof, shape and vanilla checks, public inputs. Any C1 gives a job
// or an error.
#include "filecoin/porep/porep_job.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::filecoin::porep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  const std::uint64_t sector_size = (in.take_byte() & 1) ? 2048 : 0;
  auto job = PorepJob::prepare(in.bytes(), sector_size);
  if (!job) return 0;
  CUZK_FUZZ_CHECK(sector_size == 0 || job->sector_size() == sector_size);
  CUZK_FUZZ_CHECK(job->partitions() >= 1);
  return 0;
}
