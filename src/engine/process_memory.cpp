#include "engine/process_memory.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

namespace cuzk::engine {
namespace {

std::uint64_t read_kb_field(const char* file, const char* field) {
  std::ifstream f(file);
  std::string line;
  const std::size_t n = std::strlen(field);
  while (std::getline(f, line)) {
    if (line.compare(0, n, field) == 0) return std::strtoull(line.c_str() + n, nullptr, 10) * 1024;
  }
  return 0;
}

}  // namespace

std::uint64_t process_rss_bytes() { return read_kb_field("/proc/self/status", "VmRSS:"); }
std::uint64_t process_peak_rss_bytes() { return read_kb_field("/proc/self/status", "VmHWM:"); }
std::uint64_t system_memory_bytes() { return read_kb_field("/proc/meminfo", "MemTotal:"); }

bool reset_peak_rss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.flush();
  return bool(f);
}

std::string make_uuid_v4() {
  static thread_local std::mt19937_64 rng{std::random_device{}() ^ (std::uint64_t(std::random_device{}()) << 32)};
  std::uint64_t a = rng(), b = rng();
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", unsigned(a >> 32), unsigned((a >> 16) & 0xffff),
                unsigned(a & 0xffff), unsigned(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

}  // namespace cuzk::engine
