// Loading a C1 (SealCommitPhase1Output) file in any of its three forms, detected from the content:
//   * Curio / lotus-bench wrapper JSON {"SectorNum","Phase1Out" (base64 C1 JSON),"SectorSize"};
//   * raw C1 JSON (filecoin-ffi's serde_json output, or Curio's Go encoding with other field order);
//   * bincode (supraseal's `commit-phase1-output`), whose registered proof is inferred from the shape
//     (infer_registered_proof: StackedDrg<size>V1_1 as Curio assumes, NI when the partition count says so).
// Loading parses strictly but does not check the shape: call check_c1_shape (c1_shape.hpp) next.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/porep/c1.hpp"

namespace cuzk::filecoin::porep {

enum class C1Format { kCurioJson, kJson, kBincode };
const char* c1_format_name(C1Format f);  // "Curio wrapper JSON", "C1 JSON", "bincode"

// JSON when the first non-whitespace byte is '{' (wrapper when its first key is SectorNum, Phase1Out
// or SectorSize), bincode otherwise.
C1Format detect_c1_format(std::span<const std::uint8_t> bytes);

struct LoadedC1 {
  C1Output c1;
  C1Format format = C1Format::kJson;
  std::int64_t sector_num = 0;    // from the Curio wrapper only
  std::uint64_t sector_size = 0;  // from the wrapper, else the registered proof's
};

// Errors are "<path>: <format>: <message>".
Result<C1Output> load_c1_file(const std::string& path);
Result<LoadedC1> load_c1_file_detailed(const std::string& path);
// Same from memory (JSON forms are copied once into a padded buffer). sector_size (when nonzero)
// bounds a bincode C1's lengths by that size's shape (JSON names its size in the VanillaSealProof).
Result<LoadedC1> parse_c1_any(std::span<const std::uint8_t> bytes, std::uint64_t sector_size = 0);

// An upper bound on the memory parse_c1_any / PorepJob::prepare take to parse `input_size` bytes of
// any C1 form, beyond the input itself, for a caller that charges it to a budget before parsing:
// 2.5 × input_size + 64 MiB. Where it goes: JSON forms are copied once into a padded buffer (1×); C1
// JSON then holds the model (~0.3×; a 32-byte value takes >= 65 bytes of JSON) and DOMs only of
// pieces within the shape's size (C1Limits, tens of MiB at most); the Curio wrapper the decoded
// base64 (0.75×) and its model; bincode its model (~1.2×; every length bounded by the bytes that
// remain and the shape). Measured (c1_limits_test ParseMemoryWithinTheEstimate, a forked child's peak
// RSS growth, 32 GiB-shaped C1): C1 JSON 36.9 MiB -> 51.6 MiB (1.40×), Curio wrapper 49.1 MiB ->
// 100.8 MiB (2.05×), bincode 10.5 MiB -> 12.6 MiB (1.20×); a hostile 38 MiB C1 (zeros in any array)
// adds its padded copy only (~1×).
std::uint64_t c1_parse_bytes(std::uint64_t input_size);

// Hex of 32-byte values (filecoin/common/bytes32.hpp), under the names the callers use.
using filecoin::bytes32_from_hex;
using filecoin::bytes32_hex;

}  // namespace cuzk::filecoin::porep
