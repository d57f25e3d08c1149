// The daemon's TOML configuration (apps/cuzk-daemon/config.hpp parse_config): any text gives a configuration or
// an error that names the key; a configuration that parses gives engine options or an error
// (engine_options_from, on a machine with 2 threads and, per the first byte, no GPU or two).
#include "apps/cuzk-daemon/config.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cuzk::fuzz::Input in{data, size};
  cuzk::apps::BackendAvailability avail;
  if (in.take_byte() & 1) avail.cuda_built = true, avail.cuda_devices = 2;
  auto c = cuzk::apps::parse_config(in.text(), "fuzz.toml");
  if (!c) return 0;
  auto o = cuzk::apps::engine_options_from(*c, 2, avail);
  (void)o;
  return 0;
}
