// JSON outline scanner for fast paths: it only finds where values begin and end (brackets, strings)
// and validates nothing — a caller cuts a big document into pieces with it and parses every byte of
// every piece with a real parser (simdjson); the C1 reader also bounds each piece's size by its shape
// and, for an oversized one, counts array elements with it to name the array (c1_json.cpp).
//
// Why: a simdjson DOM needs ~12 bytes of fresh memory per input byte, and on virtual machines the first
// touch of fresh memory costs ~6–13 µs per 4 KiB page — for a 50 MB C1 that is most of a second. Cutting
// the repeated records out and parsing them one at a time with one reused parser keeps that memory
// small and hot.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace cuzk::formats {

struct JsonRange {
  std::size_t begin = 0, end = 0;
};

inline constexpr std::array<std::uint8_t, 256> make_outline_class() {
  std::array<std::uint8_t, 256> t{};
  t['{'] = t['['] = 1;
  t['}'] = t[']'] = 2;
  t['"'] = 3;
  return t;
}
inline constexpr std::array<std::uint8_t, 256> kOutlineClass = make_outline_class();

class JsonOutline {
 public:
  explicit JsonOutline(std::string_view s) : p_(s.data()), n_(s.size()) {}
  std::size_t pos() const { return i_; }
  void seek(std::size_t i) { i_ = i < n_ ? i : n_; }
  bool at(char c) {
    ws();
    return i_ < n_ && p_[i_] == c;
  }
  bool eat(char c) {
    if (!at(c)) return false;
    ++i_;
    return true;
  }
  // At '"': moves past the closing quote; `content` = the raw text between the quotes.
  bool string(std::string_view& content, bool& escaped) {
    if (!at('"')) return false;
    const std::size_t b = ++i_;
    escaped = false;
    while (true) {
      const void* q = std::memchr(p_ + i_, '"', n_ - i_);
      if (q == nullptr) return false;
      const std::size_t k = std::size_t(static_cast<const char*>(q) - p_);
      std::size_t bs = 0;
      while (k - bs > b && p_[k - bs - 1] == '\\') ++bs;
      if (bs) escaped = true;
      i_ = k + 1;
      if (bs % 2 == 0) {
        content = std::string_view(p_ + b, k - b);
        if (!escaped && std::memchr(p_ + b, '\\', k - b) != nullptr) escaped = true;
        return true;
      }
    }
  }
  // Any value: containers by bracket counting (strings skipped), scalars up to the next delimiter.
  bool value() {
    ws();
    if (i_ >= n_) return false;
    const char c = p_[i_];
    if (c == '"') {
      std::string_view sv;
      bool e;
      return string(sv, e);
    }
    if (c != '{' && c != '[') {
      while (i_ < n_ && !is_delim(p_[i_])) ++i_;
      return true;
    }
    std::size_t depth = 0;
    while (i_ < n_) {
      // Skip 8 bytes at a time while none of them can be a bracket or a quote (the C1 bulk is
      // "123,45,..."): b | 0x20 maps '[' ']' to '{' '}'; a false candidate only falls through to the
      // byte-wise switch.
      while (i_ + 8 <= n_) {
        std::uint64_t w;
        std::memcpy(&w, p_ + i_, 8);
        w |= 0x2020202020202020ULL;
        if (has_zero(w ^ 0x7b7b7b7b7b7b7b7bULL) | has_zero(w ^ 0x7d7d7d7d7d7d7d7dULL) |
            has_zero(w ^ 0x2222222222222222ULL))
          break;
        i_ += 8;
      }
      if (i_ >= n_) break;
      const char x = p_[i_];
      switch (kOutlineClass[static_cast<unsigned char>(x)]) {
        case 0: ++i_; continue;
        case 1:
          ++depth;
          ++i_;
          continue;
        case 2:
          ++i_;
          if (--depth == 0) return true;
          continue;
        default: {
          std::string_view sv;
          bool e;
          if (!string(sv, e)) return false;
        }
      }
    }
    return false;
  }
  // Object members: f(key) is called at the start of each value and must consume it.
  template <class F>
  bool members(F&& f) {
    if (!eat('{')) return false;
    if (eat('}')) return true;
    while (true) {
      std::string_view key;
      bool escaped;
      if (!string(key, escaped) || !eat(':')) return false;
      ws();
      if (!f(escaped ? std::string_view() : key)) return false;
      if (eat(',')) continue;
      return eat('}');
    }
  }
  template <class F>
  bool elements(F&& f) {
    if (!eat('[')) return false;
    if (eat(']')) return true;
    while (true) {
      ws();
      if (!f()) return false;
      if (eat(',')) continue;
      return eat(']');
    }
  }
  void ws() {
    while (i_ < n_ && (p_[i_] == ' ' || p_[i_] == '\n' || p_[i_] == '\r' || p_[i_] == '\t')) ++i_;
  }
  bool at_end() {
    ws();
    return i_ == n_;
  }

 private:
  static std::uint64_t has_zero(std::uint64_t v) { return (v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL; }
  static bool is_delim(char c) {
    return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' || c == '\t';
  }

  const char* p_;
  std::size_t n_;
  std::size_t i_ = 0;
};

}  // namespace cuzk::formats
