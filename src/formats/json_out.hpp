// A compact JSON writer into one growing buffer, as serde_json::to_vec writes (no spaces; byte arrays
// as arrays of numbers through a 256-entry digit table, the bulk of a vanilla proof). Generic: the C1
// writer and, through formats/json_fields.hpp, any struct with a field declaration.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::formats {

struct JsonByteDigits {
  char c[4];
  std::uint8_t len;  // digits + the trailing comma
};
inline constexpr std::array<JsonByteDigits, 256> make_json_byte_digits() {
  std::array<JsonByteDigits, 256> t{};
  for (int v = 0; v < 256; ++v) {
    JsonByteDigits d{};
    int n = 0;
    if (v >= 100) d.c[n++] = char('0' + v / 100);
    if (v >= 10) d.c[n++] = char('0' + (v / 10) % 10);
    d.c[n++] = char('0' + v % 10);
    d.c[n++] = ',';
    d.len = std::uint8_t(n);
    t[std::size_t(v)] = d;
  }
  return t;
}
inline constexpr std::array<JsonByteDigits, 256> kJsonByteDigits = make_json_byte_digits();

class JsonOut {
 public:
  explicit JsonOut(std::size_t estimate) { buf_.resize(std::max<std::size_t>(estimate, 256)); }

  char* reserve(std::size_t k) {
    if (n_ + k > buf_.size()) buf_.resize(std::max(buf_.size() * 2, n_ + k));
    return buf_.data() + n_;
  }
  void lit(std::string_view s) {
    char* d = reserve(s.size());
    std::memcpy(d, s.data(), s.size());
    n_ += s.size();
  }
  void ch(char c) {
    *reserve(1) = c;
    ++n_;
  }
  void u64(std::uint64_t v) {
    char* d = reserve(24);
    n_ = std::size_t(std::to_chars(d, d + 24, v).ptr - buf_.data());
  }
  void str(std::string_view s) {
    ch('"');
    for (char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        ch('\\');
        ch(c);
      } else if (u < 0x20) {
        char b[8];
        std::snprintf(b, sizeof b, "\\u%04x", unsigned(u));
        lit(b);
      } else {
        ch(c);
      }
    }
    ch('"');
  }
  // [u8; N] as an array of numbers.
  template <std::size_t N>
  void bytes(const std::array<std::uint8_t, N>& b) {
    static_assert(N > 0);
    char* d = reserve(1 + N * 4 + 4);
    char* const start = d;
    *d++ = '[';
    for (std::uint8_t v : b) {
      std::memcpy(d, kJsonByteDigits[v].c, 4);
      d += kJsonByteDigits[v].len;
    }
    d[-1] = ']';
    n_ += std::size_t(d - start);
  }
  template <std::size_t N>
  void bytes_vec(const std::vector<std::array<std::uint8_t, N>>& v) {
    if (v.empty()) {
      lit("[]");
      return;
    }
    ch('[');
    for (const auto& b : v) {
      bytes(b);
      ch(',');
    }
    buf_[n_ - 1] = ']';
  }
  std::string finish() {
    buf_.resize(n_);
    return std::move(buf_);
  }

 private:
  std::string buf_;
  std::size_t n_ = 0;
};

}  // namespace cuzk::formats
