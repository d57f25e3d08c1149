#include "filecoin/porep/c1_json.hpp"

#include <simdjson.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "filecoin/porep/config.hpp"

namespace cuzk::filecoin::porep {

static_assert(kC1JsonPadding >= simdjson::SIMDJSON_PADDING);

namespace detail {

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

BigBuffer::BigBuffer(std::size_t n) : n_(n) {
  if (n == 0) return;
  if (n < (std::size_t(1) << 20)) {
    p_ = new std::uint8_t[n]();
    return;
  }
  void* m = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (m != MAP_FAILED) {
    p_ = static_cast<std::uint8_t*>(m);
    mapped_ = true;
  } else {
    p_ = new std::uint8_t[n]();
  }
}

BigBuffer& BigBuffer::operator=(BigBuffer&& o) noexcept {
  if (this != &o) {
    this->~BigBuffer();
    p_ = std::exchange(o.p_, nullptr);
    n_ = std::exchange(o.n_, 0);
    mapped_ = std::exchange(o.mapped_, false);
  }
  return *this;
}

BigBuffer::~BigBuffer() {
  if (p_ == nullptr) return;
  if (mapped_)
    ::munmap(p_, n_);
  else
    delete[] p_;
  p_ = nullptr;
}

}  // namespace detail

using detail::JsonPath;

namespace {

namespace dom = simdjson::dom;

// ------------------------------------------------------------------------------------------------
// Syntax-error locator: simdjson reports only an error code for malformed text; this small strict
// scanner (run only after a failure) finds the byte offset and the path of the enclosing value.

class Locator {
 public:
  explicit Locator(std::string_view s) : s_(s) {}

  // Empty string when the scanner finds no error (simdjson rejected something subtler, e.g. UTF-8).
  std::string run() {
    JsonPath root = detail::root_path();
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
      const bool fits = tok[0] == '-' ? std::from_chars(b, e, i).ec == std::errc() : std::from_chars(b, e, u).ec == std::errc();
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
    const auto at = [&](std::size_t k) -> unsigned { return i + k < s_.size() ? static_cast<unsigned char>(s_[i + k]) : 0u; };
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

std::string syntax_error(std::string_view text, simdjson::error_code code) {
  std::string located = Locator(text).run();
  if (!located.empty()) return located;
  return std::string("(document): invalid JSON: ") + simdjson::error_message(code);
}

// ------------------------------------------------------------------------------------------------
// Outline scanner for the fast paths. It only finds where values begin and end (brackets, strings);
// it validates nothing: every byte is still parsed by simdjson, and whenever the fast path fails the
// whole document is parsed again the plain way, which produces the canonical error message.
//
// Why: a simdjson DOM needs ~12 bytes of fresh memory per input byte, and on virtual machines the first
// touch of fresh memory costs ~6–13 µs per 4 KiB page — for a 50 MB C1 that is most of a second. Cutting
// the challenge proofs out and parsing them one at a time with one reused parser keeps that memory
// small and hot.

struct Range {
  std::size_t begin = 0, end = 0;
};

constexpr std::array<std::uint8_t, 256> make_outline_class() {
  std::array<std::uint8_t, 256> t{};
  t['{'] = t['['] = 1;
  t['}'] = t[']'] = 2;
  t['"'] = 3;
  return t;
}
constexpr std::array<std::uint8_t, 256> kClass = make_outline_class();

class Outline {
 public:
  explicit Outline(std::string_view s) : p_(s.data()), n_(s.size()) {}
  std::size_t pos() const { return i_; }
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
      switch (kClass[static_cast<unsigned char>(x)]) {
        case 0: ++i_; continue;
        case 1: ++depth; ++i_; continue;
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
  static bool is_delim(char c) { return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

  const char* p_;
  std::size_t n_;
  std::size_t i_ = 0;
};

// The byte ranges of the challenge-proof objects vanilla_proofs.<variant>[p][c], in document order;
// false when the outline is not that of a C1 document.
bool split_challenge_proofs(std::string_view json, std::vector<Range>& out) {
  Outline o(json);
  const bool ok = o.members([&](std::string_view key) {
    if (key != "vanilla_proofs" || !o.at('{')) return o.value();
    return o.members([&](std::string_view) {
      if (!o.at('[')) return o.value();
      return o.elements([&] {
        if (!o.at('[')) return o.value();
        return o.elements([&] {
          if (!o.at('{')) return o.value();
          Range r;
          r.begin = o.pos();
          if (!o.value()) return false;
          r.end = o.pos();
          out.push_back(r);
          return true;
        });
      });
    });
  });
  return ok && o.at_end();
}

// ------------------------------------------------------------------------------------------------
// Strict reader over the simdjson DOM.

constexpr std::array<std::string_view, 5> kVanillaKeys = {"StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1",
                                                          "StackedDrg32GiBV1", "StackedDrg64GiBV1"};

class Reader {
 public:
  std::string err;

  // Chunked mode: the challenge proofs were cut out of the document and replaced by their index in
  // `ranges`; each is parsed on its own with one reused parser.
  struct Chunks {
    std::string_view doc;
    std::size_t readable = 0;  // bytes readable from doc.data() (simdjson reads up to 64 past the end)
    std::vector<Range> ranges;
    std::size_t next = 0;
    dom::parser parser;
    std::string copy;
  };
  Chunks* chunks = nullptr;

  bool fail(const JsonPath& p, std::string_view msg) {
    err = p.str();
    err += ": ";
    err += msg;
    return false;
  }

  static std::string describe(dom::element e) {
    switch (e.type()) {
      case dom::element_type::ARRAY: return "array";
      case dom::element_type::OBJECT: return "object";
      case dom::element_type::NULL_VALUE: return "null";
      default: break;
    }
    const char* kind = "";
    switch (e.type()) {
      case dom::element_type::INT64:
      case dom::element_type::UINT64: kind = "integer "; break;
      case dom::element_type::DOUBLE: kind = "number "; break;
      case dom::element_type::STRING: kind = "string "; break;
      case dom::element_type::BOOL: kind = "boolean "; break;
      default: break;
    }
    std::string text = simdjson::to_string(e);
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return kind + text;
  }

  // Object with a fixed field list; optional_mask marks fields that may be absent. f(i, value, path).
  template <std::size_t N, class F>
  bool object(dom::element e, const JsonPath& p, const std::array<std::string_view, N>& names,
              std::uint32_t optional_mask, F&& f) {
    dom::object obj;
    if (e.get_object().get(obj) != simdjson::SUCCESS) return fail(p, "expected object, got " + describe(e));
    std::uint32_t seen = 0;
    for (dom::key_value_pair kv : obj) {
      std::size_t i = 0;
      while (i < N && names[i] != kv.key) ++i;
      const JsonPath c = p.child(kv.key);
      if (i == N) return fail(c, "unknown field (expected " + join(names) + ")");
      if ((seen >> i) & 1u) return fail(c, "duplicate field");
      seen |= 1u << i;
      if (!f(i, kv.value, c)) return false;
    }
    for (std::size_t i = 0; i < N; ++i)
      if (!((seen >> i) & 1u) && !((optional_mask >> i) & 1u))
        return fail(p, "missing field '" + std::string(names[i]) + "'");
    return true;
  }

  // Externally tagged enum: an object with exactly one key, one of `names`.
  template <std::size_t N, class F>
  bool variant(dom::element e, const JsonPath& p, const std::array<std::string_view, N>& names, const char* what, F&& f) {
    dom::object obj;
    if (e.get_object().get(obj) != simdjson::SUCCESS)
      return fail(p, std::string("expected ") + what + " (object with one of " + join(names) + "), got " + describe(e));
    std::size_t count = 0;
    for (dom::key_value_pair kv : obj) {
      (void)kv;
      ++count;
    }
    if (count != 1)
      return fail(p, std::string("expected ") + what + " with exactly one variant (" + join(names) + "), got " +
                         std::to_string(count) + " keys");
    dom::key_value_pair kv = *obj.begin();
    std::size_t i = 0;
    while (i < N && names[i] != kv.key) ++i;
    const JsonPath c = p.child(kv.key);
    if (i == N) return fail(c, std::string("unknown ") + what + " variant (expected " + join(names) + ")");
    return f(i, kv.value, c);
  }

  template <std::size_t N>
  static std::string join(const std::array<std::string_view, N>& names) {
    std::string s;
    for (std::size_t i = 0; i < N; ++i) {
      if (i) s += ", ";
      s += names[i];
    }
    return s;
  }

  template <class T, class F>
  bool array_of(dom::element e, const JsonPath& p, std::vector<T>& out, F&& elem) {
    dom::array arr;
    if (e.get_array().get(arr) != simdjson::SUCCESS) return fail(p, "expected array, got " + describe(e));
    out.clear();
    out.resize(arr.size());
    std::uint64_t i = 0;
    for (dom::element v : arr) {
      if (i >= out.size()) out.emplace_back();  // size() saturates only for huge arrays
      if (!elem(v, p.child(i), out[i])) return false;
      ++i;
    }
    out.resize(i);
    return true;
  }

  __attribute__((flatten)) bool bytes32(dom::element e, const JsonPath& p, Bytes32& out) {
    dom::array arr;
    if (e.get_array().get(arr) != simdjson::SUCCESS)
      return fail(p, "expected array of 32 bytes, got " + describe(e));
    const std::size_t n = arr.size();
    if (n != 32) return fail(p, "expected 32 bytes, got " + std::to_string(n));
    std::size_t i = 0;
    for (dom::element v : arr) {
      std::uint64_t x;
      if (v.get_uint64().get(x) != simdjson::SUCCESS || x > 255)
        return fail(p.child(i), "expected integer 0..255, got " + describe(v));
      out[i++] = static_cast<std::uint8_t>(x);
    }
    return true;
  }

  bool bytes32_vec(dom::element e, const JsonPath& p, std::vector<Bytes32>& out) {
    return array_of(e, p, out, [&](dom::element v, const JsonPath& c, Bytes32& b) { return bytes32(v, c, b); });
  }

  bool u64(dom::element e, const JsonPath& p, std::uint64_t& out) {
    if (e.get_uint64().get(out) != simdjson::SUCCESS)
      return fail(p, "expected unsigned 64-bit integer, got " + describe(e));
    return true;
  }
  bool u32(dom::element e, const JsonPath& p, std::uint32_t& out) {
    std::uint64_t x;
    if (e.get_uint64().get(x) != simdjson::SUCCESS || x > 0xffffffffu)
      return fail(p, "expected unsigned 32-bit integer, got " + describe(e));
    out = static_cast<std::uint32_t>(x);
    return true;
  }

  bool inclusion_path(dom::element e, const JsonPath& p, InclusionPath& out) {
    static constexpr std::array<std::string_view, 1> kFields = {"path"};
    return object(e, p, kFields, 0, [&](std::size_t, dom::element v, const JsonPath& c) {
      return array_of(v, c, out, [&](dom::element ev, const JsonPath& ec, PathElement& pe) {
        static constexpr std::array<std::string_view, 2> kElem = {"hashes", "index"};
        return object(ev, ec, kElem, 0, [&](std::size_t i, dom::element fv, const JsonPath& fc) {
          return i == 0 ? bytes32_vec(fv, fc, pe.hashes) : u64(fv, fc, pe.index);
        });
      });
    });
  }

  bool merkle_proof(dom::element e, const JsonPath& p, VanillaMerkleProof& out) {
    static constexpr std::array<std::string_view, 1> kFields = {"data"};
    return object(e, p, kFields, 0, [&](std::size_t, dom::element v, const JsonPath& c) {
      static constexpr std::array<std::string_view, 3> kKinds = {"Single", "Sub", "Top"};
      return variant(v, c, kKinds, "ProofData", [&](std::size_t k, dom::element pv, const JsonPath& pc) {
        out.kind = static_cast<MerkleProofKind>(k);
        out.base.clear();
        out.sub.clear();
        out.top.clear();
        if (k == 0) {
          static constexpr std::array<std::string_view, 3> kSingle = {"root", "leaf", "path"};
          return object(pv, pc, kSingle, 0, [&](std::size_t i, dom::element fv, const JsonPath& fc) {
            if (i == 0) return bytes32(fv, fc, out.root);
            if (i == 1) return bytes32(fv, fc, out.leaf);
            return inclusion_path(fv, fc, out.base);
          });
        }
        if (k == 1) {
          static constexpr std::array<std::string_view, 4> kSub = {"base_proof", "sub_proof", "root", "leaf"};
          return object(pv, pc, kSub, 0, [&](std::size_t i, dom::element fv, const JsonPath& fc) {
            if (i == 0) return inclusion_path(fv, fc, out.base);
            if (i == 1) return inclusion_path(fv, fc, out.sub);
            if (i == 2) return bytes32(fv, fc, out.root);
            return bytes32(fv, fc, out.leaf);
          });
        }
        static constexpr std::array<std::string_view, 5> kTop = {"base_proof", "sub_proof", "top_proof", "root", "leaf"};
        return object(pv, pc, kTop, 0, [&](std::size_t i, dom::element fv, const JsonPath& fc) {
          if (i == 0) return inclusion_path(fv, fc, out.base);
          if (i == 1) return inclusion_path(fv, fc, out.sub);
          if (i == 2) return inclusion_path(fv, fc, out.top);
          if (i == 3) return bytes32(fv, fc, out.root);
          return bytes32(fv, fc, out.leaf);
        });
      });
    });
  }

  bool column_proof(dom::element e, const JsonPath& p, ColumnProof& out) {
    static constexpr std::array<std::string_view, 2> kFields = {"column", "inclusion_proof"};
    return object(e, p, kFields, 0, [&](std::size_t i, dom::element v, const JsonPath& c) {
      if (i == 1) return merkle_proof(v, c, out.inclusion_proof);
      static constexpr std::array<std::string_view, 3> kColumn = {"index", "rows", "_h"};
      return object(v, c, kColumn, 0b100, [&](std::size_t j, dom::element fv, const JsonPath& fc) {
        if (j == 0) return u32(fv, fc, out.index);
        if (j == 1) return bytes32_vec(fv, fc, out.rows);
        if (!fv.is_null()) return fail(fc, "expected null, got " + describe(fv));
        return true;
      });
    });
  }

  bool labeling_proof(dom::element e, const JsonPath& p, LabelingProof& out) {
    static constexpr std::array<std::string_view, 3> kFields = {"parents", "layer_index", "node"};
    return object(e, p, kFields, 0, [&](std::size_t i, dom::element v, const JsonPath& c) {
      if (i == 0) return bytes32_vec(v, c, out.parents);
      if (i == 1) return u32(v, c, out.layer_index);
      return u64(v, c, out.node);
    });
  }

  bool challenge_proof(dom::element e, const JsonPath& p, ChallengeProof& out) {
    static constexpr std::array<std::string_view, 5> kFields = {"comm_d_proofs", "comm_r_last_proof",
                                                                "replica_column_proofs", "labeling_proofs",
                                                                "encoding_proof"};
    return object(e, p, kFields, 0, [&](std::size_t i, dom::element v, const JsonPath& c) {
      switch (i) {
        case 0: return merkle_proof(v, c, out.comm_d_proofs);
        case 1: return merkle_proof(v, c, out.comm_r_last_proof);
        case 2: {
          static constexpr std::array<std::string_view, 3> kRcp = {"c_x", "drg_parents", "exp_parents"};
          return object(v, c, kRcp, 0, [&](std::size_t j, dom::element fv, const JsonPath& fc) {
            auto col = [&](dom::element x, const JsonPath& xc, ColumnProof& cp) { return column_proof(x, xc, cp); };
            if (j == 0) return column_proof(fv, fc, out.c_x);
            if (j == 1) return array_of(fv, fc, out.drg_parents, col);
            return array_of(fv, fc, out.exp_parents, col);
          });
        }
        case 3:
          return array_of(v, c, out.labeling_proofs, [&](dom::element x, const JsonPath& xc, LabelingProof& lp) {
            return labeling_proof(x, xc, lp);
          });
        default: return labeling_proof(v, c, out.encoding_proof);
      }
    });
  }

  bool challenge_entry(dom::element e, const JsonPath& p, ChallengeProof& out) {
    if (chunks == nullptr) return challenge_proof(e, p, out);
    std::uint64_t idx;
    if (e.get_uint64().get(idx) != simdjson::SUCCESS || idx != chunks->next || idx >= chunks->ranges.size())
      return fail(p, "not a challenge proof cut out by the outline scan");
    const Range r = chunks->ranges[chunks->next++];
    const char* b = chunks->doc.data() + r.begin;
    const std::size_t len = r.end - r.begin;
    if (r.end + kC1JsonPadding > chunks->readable) {
      chunks->copy.assign(b, len);
      chunks->copy.append(kC1JsonPadding, ' ');
      b = chunks->copy.data();
    }
    dom::element root;
    if (chunks->parser.parse(b, len, false).get(root) != simdjson::SUCCESS) return fail(p, "syntax error");
    return challenge_proof(root, p, out);
  }

  bool c1(dom::element e, C1Output& out) {
    const JsonPath root = detail::root_path();
    static constexpr std::array<std::string_view, 7> kFields = {"registered_proof", "vanilla_proofs", "comm_r", "comm_d",
                                                                "replica_id",       "seed",           "ticket"};
    return object(e, root, kFields, 0, [&](std::size_t i, dom::element v, const JsonPath& c) {
      switch (i) {
        case 0: {
          std::string_view s;
          if (v.get_string().get(s) != simdjson::SUCCESS) return fail(c, "expected string, got " + describe(v));
          for (const auto& cfg : all_porep_configs())
            if (cfg.name == s) {
              out.registered_proof = cfg.name;
              return true;
            }
          return fail(c, "unknown registered proof '" + std::string(s.substr(0, 64)) + "'");
        }
        case 1:
          return variant(v, c, kVanillaKeys, "VanillaSealProof", [&](std::size_t k, dom::element pv, const JsonPath& pc) {
            out.vanilla_key = std::string(kVanillaKeys[k]);
            return array_of(pv, pc, out.vanilla_proofs,
                            [&](dom::element part, const JsonPath& partc, std::vector<ChallengeProof>& proofs) {
                              return array_of(part, partc, proofs,
                                              [&](dom::element x, const JsonPath& xc, ChallengeProof& cp) {
                                                return challenge_entry(x, xc, cp);
                                              });
                            });
          });
        case 2: return bytes32(v, c, out.comm_r);
        case 3: return bytes32(v, c, out.comm_d);
        case 4: return bytes32(v, c, out.replica_id);
        case 5: return bytes32(v, c, out.seed);
        default: return bytes32(v, c, out.ticket);
      }
    });
  }
};

// ------------------------------------------------------------------------------------------------
// Writer: serde_json compact output.

struct DigitEntry {
  char c[4];
  std::uint8_t len;  // digits + the trailing comma
};
constexpr std::array<DigitEntry, 256> make_digits() {
  std::array<DigitEntry, 256> t{};
  for (int v = 0; v < 256; ++v) {
    DigitEntry d{};
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
constexpr std::array<DigitEntry, 256> kDigits = make_digits();

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
  void b32(const Bytes32& b) {
    char* d = reserve(1 + 32 * 4 + 4);
    char* const start = d;
    *d++ = '[';
    for (std::uint8_t v : b) {
      std::memcpy(d, kDigits[v].c, 4);
      d += kDigits[v].len;
    }
    d[-1] = ']';
    n_ += std::size_t(d - start);
  }
  void b32_vec(const std::vector<Bytes32>& v) {
    if (v.empty()) {
      lit("[]");
      return;
    }
    ch('[');
    for (const Bytes32& b : v) {
      b32(b);
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

template <class T, class F>
void write_array(JsonOut& o, const std::vector<T>& v, F&& f) {
  o.ch('[');
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) o.ch(',');
    f(v[i]);
  }
  o.ch(']');
}

void write_path(JsonOut& o, const InclusionPath& p) {
  o.lit("{\"path\":");
  write_array(o, p, [&](const PathElement& e) {
    o.lit("{\"hashes\":");
    o.b32_vec(e.hashes);
    o.lit(",\"index\":");
    o.u64(e.index);
    o.ch('}');
  });
  o.ch('}');
}

void write_merkle(JsonOut& o, const VanillaMerkleProof& m) {
  switch (m.kind) {
    case MerkleProofKind::kSingle:
      o.lit("{\"data\":{\"Single\":{\"root\":");
      o.b32(m.root);
      o.lit(",\"leaf\":");
      o.b32(m.leaf);
      o.lit(",\"path\":");
      write_path(o, m.base);
      break;
    case MerkleProofKind::kSub:
      o.lit("{\"data\":{\"Sub\":{\"base_proof\":");
      write_path(o, m.base);
      o.lit(",\"sub_proof\":");
      write_path(o, m.sub);
      o.lit(",\"root\":");
      o.b32(m.root);
      o.lit(",\"leaf\":");
      o.b32(m.leaf);
      break;
    case MerkleProofKind::kTop:
      o.lit("{\"data\":{\"Top\":{\"base_proof\":");
      write_path(o, m.base);
      o.lit(",\"sub_proof\":");
      write_path(o, m.sub);
      o.lit(",\"top_proof\":");
      write_path(o, m.top);
      o.lit(",\"root\":");
      o.b32(m.root);
      o.lit(",\"leaf\":");
      o.b32(m.leaf);
      break;
  }
  o.lit("}}}");
}

void write_column(JsonOut& o, const ColumnProof& c) {
  o.lit("{\"column\":{\"index\":");
  o.u64(c.index);
  o.lit(",\"rows\":");
  o.b32_vec(c.rows);
  o.lit(",\"_h\":null},\"inclusion_proof\":");
  write_merkle(o, c.inclusion_proof);
  o.ch('}');
}

void write_labeling(JsonOut& o, const LabelingProof& l) {
  o.lit("{\"parents\":");
  o.b32_vec(l.parents);
  o.lit(",\"layer_index\":");
  o.u64(l.layer_index);
  o.lit(",\"node\":");
  o.u64(l.node);
  o.ch('}');
}

void write_challenge(JsonOut& o, const ChallengeProof& p) {
  o.lit("{\"comm_d_proofs\":");
  write_merkle(o, p.comm_d_proofs);
  o.lit(",\"comm_r_last_proof\":");
  write_merkle(o, p.comm_r_last_proof);
  o.lit(",\"replica_column_proofs\":{\"c_x\":");
  write_column(o, p.c_x);
  o.lit(",\"drg_parents\":");
  write_array(o, p.drg_parents, [&](const ColumnProof& c) { write_column(o, c); });
  o.lit(",\"exp_parents\":");
  write_array(o, p.exp_parents, [&](const ColumnProof& c) { write_column(o, c); });
  o.lit("},\"labeling_proofs\":");
  write_array(o, p.labeling_proofs, [&](const LabelingProof& l) { write_labeling(o, l); });
  o.lit(",\"encoding_proof\":");
  write_labeling(o, p.encoding_proof);
  o.ch('}');
}

std::size_t count_values(const VanillaMerkleProof& m) {
  std::size_t n = 2;
  for (const InclusionPath* p : {&m.base, &m.sub, &m.top})
    for (const PathElement& e : *p) n += e.hashes.size() + 1;
  return n;
}

// Upper-bound-ish size estimate (bytes) so that the writer rarely reallocates.
std::size_t estimate_json_size(const C1Output& c1) {
  std::size_t values = 5;
  std::size_t structs = 1;
  for (const auto& part : c1.vanilla_proofs)
    for (const ChallengeProof& p : part) {
      values += count_values(p.comm_d_proofs) + count_values(p.comm_r_last_proof);
      for (const ColumnProof* c : {&p.c_x})
        values += c->rows.size() + count_values(c->inclusion_proof);
      for (const auto* v : {&p.drg_parents, &p.exp_parents})
        for (const ColumnProof& c : *v) values += c.rows.size() + count_values(c.inclusion_proof);
      for (const LabelingProof& l : p.labeling_proofs) values += l.parents.size();
      values += p.encoding_proof.parents.size();
      structs += 40 + p.labeling_proofs.size();
    }
  return values * 120 + structs * 200 + 4096;
}

// One DOM for the whole text (kC1JsonPadding readable bytes after it).
simdjson::error_code parse_dom(dom::parser& parser, std::string_view json, dom::element& root) {
  return parser.parse(json.data(), json.size(), false).get(root);
}

}  // namespace

// ------------------------------------------------------------------------------------------------

std::string vanilla_key_for(std::string_view registered_proof) {
  if (registered_proof.substr(0, 10) != "StackedDrg") return {};
  const std::size_t v = registered_proof.find("V1", 10);
  if (v == std::string_view::npos) return {};
  return std::string(registered_proof.substr(0, v + 2));
}


namespace {

// Fast path (see Outline); nullopt when it does not apply or the document is not accepted, in which
// case the caller parses the whole document (and reports its error).
std::optional<C1Output> parse_chunked(std::string_view json, std::size_t readable) {
  Reader::Chunks chunks;
  if (!split_challenge_proofs(json, chunks.ranges) || chunks.ranges.empty()) return std::nullopt;
  std::string skeleton;
  skeleton.reserve(json.size() / 64 + chunks.ranges.size() * 8 + 4096);
  std::size_t pos = 0;
  for (std::size_t i = 0; i < chunks.ranges.size(); ++i) {
    skeleton.append(json.substr(pos, chunks.ranges[i].begin - pos));
    skeleton += std::to_string(i);
    pos = chunks.ranges[i].end;
  }
  skeleton.append(json.substr(pos));
  skeleton.reserve(skeleton.size() + kC1JsonPadding);
  dom::parser parser;
  dom::element root;
  if (parser.parse(skeleton).get(root) != simdjson::SUCCESS) return std::nullopt;
  chunks.doc = json;
  chunks.readable = readable;
  Reader r;
  r.chunks = &chunks;
  C1Output out;
  if (!r.c1(root, out) || chunks.next != chunks.ranges.size()) return std::nullopt;
  return out;
}

// The reference path: one DOM for the whole document (kC1JsonPadding readable bytes after it).
Result<C1Output> parse_whole(std::string_view json) {
  dom::parser parser;
  dom::element root;
  if (auto code = parse_dom(parser, json, root); code != simdjson::SUCCESS) return Error{syntax_error(json, code)};
  Reader r;
  C1Output out;
  if (!r.c1(root, out)) return Error{std::move(r.err)};
  return out;
}

}  // namespace

Result<C1Output> parse_c1_json_padded(std::string_view json) {
  if (auto fast = parse_chunked(json, json.size() + kC1JsonPadding)) return std::move(*fast);
  return parse_whole(json);
}

Result<C1Output> parse_c1_json(std::string_view json) {
  if (auto fast = parse_chunked(json, json.size())) return std::move(*fast);
  return detail::parse_c1_json_unchunked(json);
}

Result<C1Output> detail::parse_c1_json_unchunked(std::string_view json) {
  detail::BigBuffer padded(json.size() + kC1JsonPadding);
  if (!json.empty()) std::memcpy(padded.data(), json.data(), json.size());
  return parse_whole(std::string_view(reinterpret_cast<const char*>(padded.data()), json.size()));
}

std::string write_c1_json(const C1Output& c1) {
  JsonOut o(estimate_json_size(c1));
  o.lit("{\"registered_proof\":");
  o.str(c1.registered_proof);
  o.lit(",\"vanilla_proofs\":{");
  o.str(c1.vanilla_key.empty() ? vanilla_key_for(c1.registered_proof) : c1.vanilla_key);
  o.ch(':');
  write_array(o, c1.vanilla_proofs, [&](const std::vector<ChallengeProof>& part) {
    write_array(o, part, [&](const ChallengeProof& p) { write_challenge(o, p); });
  });
  o.lit("},\"comm_r\":");
  o.b32(c1.comm_r);
  o.lit(",\"comm_d\":");
  o.b32(c1.comm_d);
  o.lit(",\"replica_id\":");
  o.b32(c1.replica_id);
  o.lit(",\"seed\":");
  o.b32(c1.seed);
  o.lit(",\"ticket\":");
  o.b32(c1.ticket);
  o.ch('}');
  return o.finish();
}

// ------------------------------------------------------------------------------------------------
// base64

namespace {
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::array<std::uint8_t, 256> make_b64_decode() {
  std::array<std::uint8_t, 256> t{};
  for (auto& x : t) x = 0xff;
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kB64[i])] = std::uint8_t(i);
  return t;
}
constexpr std::array<std::uint8_t, 256> kB64Dec = make_b64_decode();

std::string char_desc(char c) {
  char b[16];
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f)
    std::snprintf(b, sizeof b, "'%c'", c);
  else
    std::snprintf(b, sizeof b, "0x%02x", unsigned(u));
  return b;
}
}  // namespace

namespace {
void base64_encode_into(std::span<const std::uint8_t> in, char* out) {
  std::size_t i = 0, o = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t(in[i]) << 16) | (std::uint32_t(in[i + 1]) << 8) | in[i + 2];
    out[o++] = kB64[v >> 18];
    out[o++] = kB64[(v >> 12) & 63];
    out[o++] = kB64[(v >> 6) & 63];
    out[o++] = kB64[v & 63];
  }
  if (in.size() - i == 1) {
    const std::uint32_t v = std::uint32_t(in[i]) << 16;
    out[o++] = kB64[v >> 18];
    out[o++] = kB64[(v >> 12) & 63];
    out[o++] = '=';
    out[o++] = '=';
  } else if (in.size() - i == 2) {
    const std::uint32_t v = (std::uint32_t(in[i]) << 16) | (std::uint32_t(in[i + 1]) << 8);
    out[o++] = kB64[v >> 18];
    out[o++] = kB64[(v >> 12) & 63];
    out[o++] = kB64[(v >> 6) & 63];
    out[o++] = '=';
  }
}
}  // namespace

std::string base64_encode(std::span<const std::uint8_t> in) {
  std::string out((in.size() + 2) / 3 * 4, '=');
  base64_encode_into(in, out.data());
  return out;
}

namespace {

// Decoded size of a padded base64 text, or an error when its length or padding is malformed.
Result<std::size_t> b64_size(std::string_view s) {
  if (s.size() % 4 != 0) return Error{"base64: length " + std::to_string(s.size()) + " is not a multiple of 4"};
  std::size_t pad = 0;
  if (!s.empty() && s.back() == '=') pad = (s.size() >= 2 && s[s.size() - 2] == '=') ? 2 : 1;
  return s.size() / 4 * 3 - pad;
}

// Decodes into out[0 .. b64_size(s)); returns an error message or "".
std::string b64_decode_into(std::string_view s, std::uint8_t* d) {
  std::size_t pad = 0;
  if (!s.empty() && s.back() == '=') pad = (s.size() >= 2 && s[s.size() - 2] == '=') ? 2 : 1;
  const std::size_t full = s.empty() ? 0 : (pad ? s.size() - 4 : s.size());
  const auto* in = reinterpret_cast<const unsigned char*>(s.data());
  for (std::size_t i = 0; i < full; i += 4) {
    const std::uint32_t a = kB64Dec[in[i]], b = kB64Dec[in[i + 1]], c = kB64Dec[in[i + 2]], e = kB64Dec[in[i + 3]];
    if ((a | b | c | e) & 0x80) {
      for (std::size_t k = i; k < i + 4; ++k)
        if (kB64Dec[in[k]] == 0xff) return "base64: invalid character " + char_desc(s[k]) + " at offset " + std::to_string(k);
    }
    const std::uint32_t v = (a << 18) | (b << 12) | (c << 6) | e;
    d[0] = std::uint8_t(v >> 16);
    d[1] = std::uint8_t(v >> 8);
    d[2] = std::uint8_t(v);
    d += 3;
  }
  if (pad) {
    const std::size_t i = full;
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4 - pad; ++k) {
      const std::uint8_t x = kB64Dec[in[i + k]];
      if (x == 0xff) return "base64: invalid character " + char_desc(s[i + k]) + " at offset " + std::to_string(i + k);
      v |= std::uint32_t(x) << (18 - 6 * k);
    }
    if (v & (pad == 2 ? 0xffffu : 0xffu)) return "base64: non-zero unused bits before the padding at offset " + std::to_string(i);
    d[0] = std::uint8_t(v >> 16);
    if (pad == 1) d[1] = std::uint8_t(v >> 8);
  }
  return {};
}

}  // namespace

Result<std::vector<std::uint8_t>> base64_decode(std::string_view s, std::size_t extra) {
  auto n = b64_size(s);
  if (!n) return Error{n.error()};
  std::vector<std::uint8_t> out(*n + extra, 0);
  if (std::string e = b64_decode_into(s, out.data()); !e.empty()) return Error{std::move(e)};
  return out;
}

// ------------------------------------------------------------------------------------------------
// Curio wrapper

namespace {

// Reads the wrapper. `phase1out`, when given, is the raw content of the Phase1Out string (found by the
// outline scan, free of escapes) and `json` is the wrapper with that content removed.
Result<CurioC1> parse_curio_impl(std::string_view json, const std::string_view* phase1out) {
  CurioC1 out;
  detail::BigBuffer inner;  // the decoded C1 JSON, followed by kC1JsonPadding zero bytes
  std::size_t inner_size = 0;
  {
    dom::parser parser;
    dom::element root;
    if (auto code = parse_dom(parser, json, root); code != simdjson::SUCCESS) return Error{syntax_error(json, code)};
    Reader r;
    static constexpr std::array<std::string_view, 3> kFields = {"SectorNum", "Phase1Out", "SectorSize"};
    const JsonPath top = detail::root_path();
    const bool ok = r.object(root, top, kFields, 0, [&](std::size_t i, dom::element v, const JsonPath& c) {
      if (i == 0) {
        if (v.get_int64().get(out.sector_num) != simdjson::SUCCESS)
          return r.fail(c, "expected signed 64-bit integer, got " + Reader::describe(v));
        return true;
      }
      if (i == 2) return r.u64(v, c, out.sector_size);
      std::string_view text;
      if (v.get_string().get(text) != simdjson::SUCCESS)
        return r.fail(c, "expected base64 string, got " + Reader::describe(v));
      if (phase1out != nullptr) text = *phase1out;
      auto n = b64_size(text);
      if (!n) return r.fail(c, n.error());
      detail::BigBuffer buf(*n + kC1JsonPadding);
      if (std::string e = b64_decode_into(text, buf.data()); !e.empty()) return r.fail(c, e);
      inner = std::move(buf);
      inner_size = *n;
      return true;
    });
    if (!ok) return Error{std::move(r.err)};
  }
  auto c1 = parse_c1_json_padded(std::string_view(reinterpret_cast<const char*>(inner.data()), inner_size));
  if (!c1) return Error{"Phase1Out: " + c1.error()};
  out.c1 = std::move(c1.value());
  const PorepConfig& cfg = porep_config_by_name(out.c1.registered_proof);  // known: the parser checked
  if (out.sector_size != cfg.sector_size)
    return Error{"SectorSize: " + std::to_string(out.sector_size) + " does not match registered_proof " + cfg.name + " (" +
                 std::to_string(cfg.sector_size) + " bytes)"};
  return out;
}

// Fast path: the base64 text is decoded straight from the input instead of being copied into a DOM
// first. nullopt when the outline is unusual (escapes, no Phase1Out string, bad structure).
std::optional<std::pair<std::string, std::string_view>> cut_phase1out(std::string_view json) {
  Outline o(json);
  Range r;
  bool found = false, escaped = false;
  const bool ok = o.members([&](std::string_view key) {
    if (key != "Phase1Out" || found || !o.at('"')) return o.value();
    std::string_view content;
    if (!o.string(content, escaped)) return false;
    r.begin = std::size_t(content.data() - json.data());
    r.end = r.begin + content.size();
    found = true;
    return true;
  });
  if (!ok || !o.at_end() || !found || escaped) return std::nullopt;
  std::string skeleton;
  skeleton.reserve(json.size() - (r.end - r.begin) + kC1JsonPadding);
  skeleton.append(json.substr(0, r.begin));
  skeleton.append(json.substr(r.end));
  return std::make_pair(std::move(skeleton), json.substr(r.begin, r.end - r.begin));
}

}  // namespace

Result<CurioC1> parse_curio_c1_padded(std::string_view json) {
  if (auto cut = cut_phase1out(json)) {
    std::string& skeleton = cut->first;
    const std::size_t n = skeleton.size();
    skeleton.append(kC1JsonPadding, ' ');
    return parse_curio_impl(std::string_view(skeleton.data(), n), &cut->second);
  }
  return parse_curio_impl(json, nullptr);
}

Result<CurioC1> parse_curio_c1(std::string_view json) {
  if (auto cut = cut_phase1out(json)) {
    std::string& skeleton = cut->first;
    const std::size_t n = skeleton.size();
    skeleton.append(kC1JsonPadding, ' ');
    return parse_curio_impl(std::string_view(skeleton.data(), n), &cut->second);
  }
  detail::BigBuffer padded(json.size() + kC1JsonPadding);
  if (!json.empty()) std::memcpy(padded.data(), json.data(), json.size());
  return parse_curio_impl(std::string_view(reinterpret_cast<const char*>(padded.data()), json.size()), nullptr);
}

std::string write_curio_c1_json(const CurioC1& c) {
  const std::string inner = write_c1_json(c.c1);
  const std::string head = "{\"SectorNum\":" + std::to_string(c.sector_num) + ",\"Phase1Out\":\"";
  const std::string tail = "\",\"SectorSize\":" + std::to_string(c.sector_size) + "}";
  const std::size_t b64 = (inner.size() + 2) / 3 * 4;
  std::string out;
  out.resize(head.size() + b64 + tail.size());
  std::memcpy(out.data(), head.data(), head.size());
  base64_encode_into(std::span(reinterpret_cast<const std::uint8_t*>(inner.data()), inner.size()), out.data() + head.size());
  std::memcpy(out.data() + head.size() + b64, tail.data(), tail.size());
  return out;
}

}  // namespace cuzk::filecoin::porep
