#include "formats/json_path.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cuzk::formats {

std::string JsonPath::str() const {
  // Collect the chain (leaf → root), then render root → leaf.
  const JsonPath* nodes[64];
  std::size_t n = 0;
  std::size_t depth = 0;
  for (const JsonPath* p = this; p != nullptr && p->parent != nullptr; p = p->parent) {
    if (n < 64) nodes[n++] = p;
    ++depth;
  }
  if (n == 0) return "(document)";
  std::string s;
  if (depth > n) s = "...";
  for (std::size_t i = n; i-- > 0;) {
    const JsonPath* p = nodes[i];
    if (p->is_key) {
      if (!s.empty()) s += '.';
      s.append(p->key.data(), p->key.size());
    } else {
      s += '[';
      s += std::to_string(p->index);
      s += ']';
    }
  }
  return s;
}

namespace {

class Locator {
 public:
  explicit Locator(std::string_view s) : s_(s) {}

  // Empty string when the scanner finds no error (simdjson rejected something subtler, e.g. UTF-8).
  std::string run() {
    JsonPath root = root_path();
    ws();
    if (!value(root, 0)) return err_;
    ws();
    if (pos_ != s_.size()) {
      fail(root, "unexpected text after the document");
      return err_;
    }
    return {};
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
  std::string err_;

  bool fail(const JsonPath& p, std::string_view what) {
    err_ = p.str() + ": syntax error at byte " + std::to_string(pos_) + ": " + std::string(what);
    return false;
  }
  bool eof_fail(const JsonPath& p) { return fail(p, "unexpected end of input"); }
  void ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  bool value(const JsonPath& p, int depth) {
    if (depth > 512) return fail(p, "nesting too deep");
    if (pos_ >= s_.size()) return eof_fail(p);
    const char c = s_[pos_];
    if (c == '{') return object(p, depth);
    if (c == '[') return array(p, depth);
    if (c == '"') {
      std::string_view dummy;
      return string(p, dummy);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(p);
    if (c == 't') return literal(p, "true");
    if (c == 'f') return literal(p, "false");
    if (c == 'n') return literal(p, "null");
    return fail(p, std::string("unexpected character '") + printable(c) + "'");
  }
  static std::string printable(char c) {
    if (c >= 0x20 && c < 0x7f) return std::string(1, c);
    char b[8];
    std::snprintf(b, sizeof b, "\\x%02x", unsigned(static_cast<unsigned char>(c)));
    return b;
  }
  bool literal(const JsonPath& p, std::string_view lit) {
    for (char c : lit) {
      if (pos_ >= s_.size()) return eof_fail(p);
      if (s_[pos_] != c) return fail(p, "invalid literal (expected " + std::string(lit) + ")");
      ++pos_;
    }
    return true;
  }
  bool digits(const JsonPath& p) {
    if (pos_ >= s_.size()) return eof_fail(p);
    if (s_[pos_] < '0' || s_[pos_] > '9') return fail(p, "invalid number: expected a digit");
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    return true;
  }
  bool number(const JsonPath& p) {
    const std::size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size()) return eof_fail(p);
    if (s_[pos_] == '0') {
      ++pos_;
      if (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') return fail(p, "invalid number: leading zero");
    } else if (!digits(p)) {
      return false;
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (!digits(p)) return false;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digits(p)) return false;
    }
    if (pos_ < s_.size()) {
      const char c = s_[pos_];
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.')
        return fail(p, std::string("invalid number: unexpected '") + c + "'");
    }
    // Range: integers must fit i64/u64, other numbers a finite double (what simdjson accepts).
    const std::string_view tok = s_.substr(start, pos_ - start);
    const std::size_t at = pos_;
    pos_ = start;
    if (tok.find_first_of(".eE") == std::string_view::npos) {
      std::uint64_t u;
      std::int64_t i;
      const char* b = tok.data();
      const char* e = b + tok.size();
      const bool fits =
          tok[0] == '-' ? std::from_chars(b, e, i).ec == std::errc() : std::from_chars(b, e, u).ec == std::errc();
      if (!fits) return fail(p, "integer " + std::string(tok.substr(0, 40)) + " out of 64-bit range");
    } else {
      const double d = std::strtod(std::string(tok).c_str(), nullptr);
      if (!std::isfinite(d)) return fail(p, "number " + std::string(tok.substr(0, 40)) + " out of range");
    }
    pos_ = at;
    return true;
  }
  bool string(const JsonPath& p, std::string_view& raw) {
    ++pos_;  // opening quote
    const std::size_t start = pos_;
    while (true) {
      if (pos_ >= s_.size()) return fail(p, "unterminated string");
      const unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') break;
      if (c < 0x20) return fail(p, "control character in string");
      if (c >= 0x80) {
        const std::size_t n = utf8_length(pos_);
        if (n == 0) return fail(p, "invalid UTF-8 in string");
        pos_ += n;
        continue;
      }
      if (c == '\\') {
        ++pos_;
        if (pos_ >= s_.size()) return fail(p, "unterminated string");
        const char e = s_[pos_];
        if (e == 'u') {
          for (int i = 0; i < 4; ++i) {
            ++pos_;
            if (pos_ >= s_.size()) return fail(p, "unterminated string");
            if (!std::isxdigit(static_cast<unsigned char>(s_[pos_]))) return fail(p, "invalid \\u escape");
          }
        } else if (std::strchr("\"\\/bfnrt", e) == nullptr || e == '\0') {
          return fail(p, "invalid escape");
        }
      }
      ++pos_;
    }
    raw = s_.substr(start, pos_ - start);
    ++pos_;  // closing quote
    return true;
  }
  // Length of the well-formed UTF-8 sequence at i (RFC 3629), 0 when ill-formed.
  std::size_t utf8_length(std::size_t i) const {
    const auto at = [&](std::size_t k) -> unsigned {
      return i + k < s_.size() ? static_cast<unsigned char>(s_[i + k]) : 0u;
    };
    const unsigned c = at(0);
    std::size_t n;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 3;
      if (c == 0xe0) lo = 0xa0;
      if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 4;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;
    } else {
      return 0;
    }
    if (at(1) < lo || at(1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
      if (at(k) < 0x80 || at(k) > 0xbf) return 0;
    return n;
  }

  bool array(const JsonPath& p, int depth) {
    ++pos_;
    ws();
    if (pos_ >= s_.size()) return eof_fail(p);
    if (s_[pos_] == ']') {
      ++pos_;
      return true;
    }
    for (std::uint64_t i = 0;; ++i) {
      JsonPath c = p.child(i);
      ws();
      if (!value(c, depth + 1)) return false;
      ws();
      if (pos_ >= s_.size()) return eof_fail(p);
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == ']') {
        ++pos_;
        return true;
      }
      return fail(p, "expected ',' or ']' in array");
    }
  }
  bool object(const JsonPath& p, int depth) {
    ++pos_;
    ws();
    if (pos_ >= s_.size()) return eof_fail(p);
    if (s_[pos_] == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      ws();
      if (pos_ >= s_.size()) return eof_fail(p);
      if (s_[pos_] != '"') return fail(p, "expected a string key in object");
      std::string_view key;
      if (!string(p, key)) return false;
      JsonPath c = p.child(key);
      ws();
      if (pos_ >= s_.size()) return eof_fail(c);
      if (s_[pos_] != ':') return fail(c, "expected ':' after key");
      ++pos_;
      ws();
      if (!value(c, depth + 1)) return false;
      ws();
      if (pos_ >= s_.size()) return eof_fail(p);
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == '}') {
        ++pos_;
        return true;
      }
      return fail(p, "expected ',' or '}' in object");
    }
  }
};

}  // namespace

std::string locate_json_syntax_error(std::string_view text) { return Locator(text).run(); }

}  // namespace cuzk::formats
