// The most elements a Vec of an untrusted document may have, by its path, so that a reader refuses a
// count before it allocates for it: the strict JSON reader (json_reader.hpp) and the bincode cursor
// (bincode.hpp) ask the ElementLimits they were given about every array / Vec length and refuse one
// above the maximum with one line naming the path, the count and what the maximum comes from, e.g.
//   vanilla_proofs.StackedDrg32GiBV1[0]: 19999999 elements, at most 18 expected for 32GiB
// Why: a count checked only against the bytes that remain still lets a 512 MiB message of zeros make
// a reader allocate a per-element struct (hundreds of bytes) per input byte; the registered proof's
// shape (partitions, challenges, parents, layers, Merkle path lengths) bounds every count by a small
// number. Each proof family implements the lookup (porep/c1_limits.hpp, post and snap readers); a
// path it does not know has no maximum (the readers still grow vectors only as elements validate).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "formats/json_path.hpp"

namespace cuzk::formats {

inline constexpr std::uint64_t kNoElementLimit = ~std::uint64_t(0);

class ElementLimits {
 public:
  virtual ~ElementLimits() = default;
  // The most elements the array / Vec at `vec` may have; kNoElementLimit when the path is unknown.
  virtual std::uint64_t max_elements(const JsonPath& vec) const = 0;
  // What the maximum comes from, for the message ("32GiB", "StackedDrgWindow32GiBV1_1").
  virtual std::string_view expected_for() const = 0;
};

// "N elements, at most M expected for X".
inline std::string too_many_elements(std::uint64_t n, std::uint64_t max, std::string_view expected_for) {
  std::string s = std::to_string(n) + " elements, at most " + std::to_string(max) + " expected";
  if (!expected_for.empty()) {
    s += " for ";
    s.append(expected_for.data(), expected_for.size());
  }
  return s;
}

// The key of `p` when it is a key, else empty; the same for an ancestor `up` levels above.
inline std::string_view path_key(const JsonPath* p, int up = 0) {
  for (; p != nullptr && up > 0; --up) p = p->parent;
  if (p == nullptr || p->parent == nullptr || !p->is_key) return {};
  return p->key;
}

}  // namespace cuzk::formats
