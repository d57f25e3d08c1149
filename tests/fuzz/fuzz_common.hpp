// What the harnesses share: the input as bytes or text, a selector byte, length-framed parts, a check
// that reports and aborts (libFuzzer keeps the input), and a scratch folder for the writers that take
// a path. Each harness is one parser's contract: every input gives a value or an error, never a
// crash, a hang or an unbounded allocation; where a writer exists, a value written and read back is
// the same value.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::fuzz {

struct Input {
  const std::uint8_t* data;
  std::size_t size;

  std::span<const std::uint8_t> bytes() const { return {data, size}; }
  std::string_view text() const { return {reinterpret_cast<const char*>(data), size}; }
  bool empty() const { return size == 0; }
  // The first byte (0 when empty), consumed.
  std::uint8_t take_byte() {
    if (size == 0) return 0;
    const std::uint8_t b = *data;
    ++data, --size;
    return b;
  }
  // Exactly n bytes into out (zero-filled when short), consumed.
  void take(std::uint8_t* out, std::size_t n) {
    const std::size_t k = n < size ? n : size;
    if (k) std::memcpy(out, data, k);
    if (k < n) std::memset(out + k, 0, n - k);
    data += k, size -= k;
  }
  // The rest cut into parts, each a u32 little-endian length and that many bytes (the last part
  // takes what is left when its length runs past the end).
  std::vector<std::span<const std::uint8_t>> take_parts(std::size_t max_parts = 64) {
    std::vector<std::span<const std::uint8_t>> parts;
    while (size >= 4 && parts.size() < max_parts) {
      std::uint32_t n = 0;
      for (int i = 3; i >= 0; --i) n = (n << 8) | data[i];
      data += 4, size -= 4;
      const std::size_t k = n < size ? n : size;
      parts.emplace_back(data, k);
      data += k, size -= k;
    }
    return parts;
  }
};

[[noreturn]] inline void fail(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz check failed: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  std::fflush(stderr);
  std::abort();
}

#define CUZK_FUZZ_CHECK(cond, ...)                                     \
  do {                                                                 \
    if (!(cond)) ::cuzk::fuzz::fail(#cond __VA_OPT__(, ) __VA_ARGS__); \
  } while (0)

// A per-process scratch folder ($TMPDIR, else /tmp) for writers that take a path; removed at exit.
inline const std::filesystem::path& scratch_dir() {
  struct Dir {
    std::filesystem::path p;
    Dir() {
      const char* t = std::getenv("TMPDIR");
      p = std::filesystem::path(t && *t ? t : "/tmp") / ("cuzk-fuzz-" + std::to_string(::getpid()));
      std::filesystem::create_directories(p);
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
    }
  };
  static Dir d;
  return d.p;
}

inline std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace cuzk::fuzz
