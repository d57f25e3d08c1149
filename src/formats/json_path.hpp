// Where in a JSON (or JSON-shaped binary) document a value is, for one-line error messages:
//   JsonPath     a path such as vanilla_proofs.StackedDrg2KiBV1[0][1].comm_r, kept as a chain of stack
//                nodes (nothing is allocated until an error is rendered)
//   locate_json_syntax_error  a small strict scanner, run only after a fast parser (simdjson) refused
//                a text, that names the byte offset and the path of the enclosing value
// Generic: the C1 reader and the bincode reader use it today, the PoSt / Snap vanilla-proof readers next.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cuzk::formats {

// is_key: ".key" (no dot at the top level); otherwise "[index]". A child refers to its parent by
// address: keep every level that outlives the full expression in a named variable (no stored
// a.child(x).child(y), whose middle temporary dies at the semicolon).
struct JsonPath {
  const JsonPath* parent = nullptr;
  std::string_view key{};
  std::uint64_t index = 0;
  bool is_key = false;

  JsonPath child(std::string_view k) const { return JsonPath{this, k, 0, true}; }
  JsonPath child(std::uint64_t i) const { return JsonPath{this, {}, i, false}; }
  std::string str() const;  // "(document)" for the empty path
};
inline JsonPath root_path() { return JsonPath{}; }

// "<path>: syntax error at byte N: <what>" for the first error in `text` (RFC 8259, strict UTF-8,
// integers within 64 bits, finite numbers); empty when the scanner finds none.
std::string locate_json_syntax_error(std::string_view text);

}  // namespace cuzk::formats
