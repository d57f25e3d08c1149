// Sizes and durations as operators write them in the config: "64GiB", "1.5 TiB", "500MB", "4096";
// "30s", "5m", "1h", "1h30m", "250ms", "300" (seconds). Stricter than the Rust daemon, which turned
// unparsable values into 50 GiB / 300 s silently (cuzk-behaviour.md 2.2): here they are errors.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace cuzk::engine {

// Suffixes (case-insensitive, optional space): B, KiB, MiB, GiB, TiB (powers of 1024); KB, MB, GB, TB
// (powers of 1000); a bare number is bytes. Fractions are allowed ("1.5GiB"); negative values,
// overflow and trailing garbage are errors.
Result<std::uint64_t> parse_size(std::string_view text);

// Units: ms, s, m, h, d; components may be chained ("1h30m"); a bare number is seconds.
Result<std::chrono::milliseconds> parse_duration(std::string_view text);

// "1.50 GiB", "512 MiB", "17 B".
std::string format_bytes(std::uint64_t bytes);

}  // namespace cuzk::engine
