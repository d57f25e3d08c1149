// A PoSt request as the engine's window-post / winning-post kinds and `cuzk prove-post` hand it to
// filecoin::post::PostJob::prepare: registered proof (first byte: 2 KiB Window V1_1 or V1, or Winning), partition
// index (next byte), randomness (32 bytes), then the vanilla_proofs blobs, each a u32 little-endian
// length and its bytes. prepare decodes every blob, runs the vanilla checks and derives the public
// inputs: any request gives a job or an error.
#include "filecoin/post/post_job.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace cuzk::filecoin::post;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  static constexpr const char* kConfigs[] = {"StackedDrgWindow2KiBV1_1", "StackedDrgWinning2KiBV1",
                                             "StackedDrgWindow2KiBV1"};
  auto config = post_config_by_name(kConfigs[in.take_byte() % std::size(kConfigs)]);
  CUZK_FUZZ_CHECK(config.ok(), config.error());
  const std::uint32_t partition = in.take_byte();
  cuzk::filecoin::Bytes32 randomness{};
  in.take(randomness.data(), randomness.size());
  const auto blobs = in.take_parts(8);
  auto job = PostJob::prepare(**config, randomness, partition, blobs);
  if (!job) return 0;
  CUZK_FUZZ_CHECK(job->sectors().size() == blobs.size());
  CUZK_FUZZ_CHECK(job->public_inputs(0).size() == (**config).num_public_inputs());
  return 0;
}
