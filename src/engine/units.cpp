#include "engine/units.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

#include "base/text.hpp"

namespace cuzk::engine {
namespace {

// A non-negative decimal number with an optional fraction; returns the characters consumed (0 = none).
std::size_t parse_number(std::string_view s, long double& out) {
  std::size_t i = 0;
  long double v = 0;
  bool digits = false;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    v = v * 10 + (s[i] - '0');
    ++i;
    digits = true;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    long double scale = 0.1L;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      v += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
      digits = true;
    }
  }
  if (!digits) return 0;
  out = v;
  return i;
}

}  // namespace

Result<std::uint64_t> parse_size(std::string_view text) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  std::string_view s = trim_space(text);
  if (s.empty()) return Error{"empty size"};
  if (s.front() == '-') return Error{"size " + quoted + " is negative"};
  long double v = 0;
  std::size_t n = parse_number(s, v);
  if (n == 0) return Error{"size " + quoted + " does not start with a number"};
  std::string unit = ascii_lower(trim_space(s.substr(n)));
  long double mult = 0;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "kib" || unit == "k") mult = 1024.0L;
  else if (unit == "mib" || unit == "m") mult = 1024.0L * 1024;
  else if (unit == "gib" || unit == "g") mult = 1024.0L * 1024 * 1024;
  else if (unit == "tib" || unit == "t") mult = 1024.0L * 1024 * 1024 * 1024;
  else if (unit == "kb") mult = 1e3L;
  else if (unit == "mb") mult = 1e6L;
  else if (unit == "gb") mult = 1e9L;
  else if (unit == "tb") mult = 1e12L;
  else return Error{"size " + quoted + ": unknown unit \"" + unit + "\" (use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)"};
  long double bytes = std::floor(v * mult + 0.5L);
  if (bytes > static_cast<long double>(std::numeric_limits<std::uint64_t>::max() / 2)) {
    return Error{"size " + quoted + " is too large"};
  }
  return static_cast<std::uint64_t>(bytes);
}

Result<std::chrono::milliseconds> parse_duration(std::string_view text) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  std::string_view s = trim_space(text);
  if (s.empty()) return Error{"empty duration"};
  if (s.front() == '-') return Error{"duration " + quoted + " is negative"};
  long double total_ms = 0;
  bool any = false;
  while (!s.empty()) {
    long double v = 0;
    std::size_t n = parse_number(s, v);
    if (n == 0) return Error{"duration " + quoted + ": expected a number at \"" + std::string(s) + "\""};
    s.remove_prefix(n);
    s = trim_space(s);
    std::size_t u = 0;
    while (u < s.size() && std::isalpha(static_cast<unsigned char>(s[u]))) ++u;
    std::string unit = ascii_lower(s.substr(0, u));
    s.remove_prefix(u);
    s = trim_space(s);
    long double mult;
    if (unit.empty()) {
      if (any || !s.empty()) return Error{"duration " + quoted + ": a number without a unit must stand alone"};
      mult = 1000;  // bare number: seconds
    } else if (unit == "ms") mult = 1;
    else if (unit == "s" || unit == "sec" || unit == "secs") mult = 1000;
    else if (unit == "m" || unit == "min" || unit == "mins") mult = 60e3L;
    else if (unit == "h" || unit == "hr" || unit == "hours" || unit == "hour") mult = 3600e3L;
    else if (unit == "d" || unit == "day" || unit == "days") mult = 86400e3L;
    else return Error{"duration " + quoted + ": unknown unit \"" + unit + "\" (use ms, s, m, h or d)"};
    total_ms += v * mult;
    any = true;
  }
  if (total_ms > 1e15L) return Error{"duration " + quoted + " is too long"};
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::floor(total_ms + 0.5L)));
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  long double v = static_cast<long double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[64];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else std::snprintf(buf, sizeof buf, "%.2Lf %s", v, units[u]);
  return buf;
}

}  // namespace cuzk::engine
