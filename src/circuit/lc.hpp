// Variables, linear combinations and names: the vocabulary every constraint system and gadget shares.
//
// A Var is a 32-bit handle. During synthesis inputs and aux variables are numbered separately (as in
// bellperson: Index::Input(i) / Index::Aux(j)); the aux tag lives in the top bit, so sorting raw
// handles puts inputs first, each kind ascending — the same order they get in the final assignment
// (inputs, then aux), so a remap at the end keeps every row sorted.
//
// Two linear-combination types implement one interface:
//   LinearCombination — terms kept sorted by variable with duplicates merged (bellpepper's Indexer
//                       semantics: x + y - x leaves a 0·x term, which drops out when the row is
//                       stored, exactly as bellperson's density trackers skip zero coefficients);
//   NullLC            — every operation is a no-op. The witness and counting systems use it, so
//                       the same gadget source compiles to pure value computation there.
// Gadgets spell the type `typename CS::LC` and may skip coefficient arithmetic with
// `if constexpr (LC::kActive)`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "math/ff/bls12_381.hpp"

namespace cuzk::circuit {

using math::Fr;

struct Var {
  static constexpr std::uint32_t kAuxBit = 0x80000000u;
  std::uint32_t raw = 0;

  static constexpr Var input(std::uint32_t i) { return Var{i}; }
  static constexpr Var aux(std::uint32_t j) { return Var{j | kAuxBit}; }
  static constexpr Var one() { return Var{0}; }  // the implicit input ONE
  constexpr bool is_aux() const { return (raw & kAuxBit) != 0; }
  constexpr std::uint32_t index() const { return raw & ~kAuxBit; }
  friend constexpr bool operator==(Var a, Var b) { return a.raw == b.raw; }
  friend constexpr bool operator!=(Var a, Var b) { return a.raw != b.raw; }
};

inline const Fr& fr_one() {
  static const Fr one = Fr::one();
  return one;
}
inline const Fr& fr_minus_one() {
  static const Fr m = -Fr::one();
  return m;
}

class LinearCombination {
 public:
  static constexpr bool kActive = true;
  using Term = std::pair<std::uint32_t, Fr>;  // (raw variable, coefficient)

  LinearCombination() = default;
  explicit LinearCombination(Var v) { terms_.emplace_back(v.raw, Fr::one()); }
  LinearCombination(Var v, const Fr& coeff) { terms_.emplace_back(v.raw, coeff); }
  static LinearCombination zero() { return {}; }

  // Adds coeff·v, merging with an existing term for v.
  LinearCombination& add(Var v, const Fr& coeff) {
    std::uint32_t key = v.raw;
    if (terms_.empty() || terms_.back().first < key) {  // the common, appending case
      terms_.emplace_back(key, coeff);
      return *this;
    }
    auto it =
        std::lower_bound(terms_.begin(), terms_.end(), key, [](const Term& t, std::uint32_t k) { return t.first < k; });
    if (it != terms_.end() && it->first == key) {
      it->second += coeff;
    } else {
      terms_.insert(it, Term{key, coeff});
    }
    return *this;
  }
  LinearCombination& add(Var v) { return add(v, fr_one()); }
  LinearCombination& sub(Var v, const Fr& coeff) { return add(v, -coeff); }
  LinearCombination& sub(Var v) { return add(v, fr_minus_one()); }
  // this += coeff · other (merging).
  LinearCombination& add(const LinearCombination& other, const Fr& coeff) { return merge(other, &coeff, false); }
  LinearCombination& add(const LinearCombination& other) { return merge(other, nullptr, false); }
  LinearCombination& sub(const LinearCombination& other) { return merge(other, nullptr, true); }
  LinearCombination& sub(const LinearCombination& other, const Fr& coeff) { return merge(other, &coeff, true); }
  // Multiplies every coefficient (bellpepper Num::scale).
  LinearCombination& scale(const Fr& s) {
    for (auto& t : terms_) t.second *= s;
    return *this;
  }

  friend LinearCombination operator+(LinearCombination lc, Var v) { return std::move(lc.add(v)); }
  friend LinearCombination operator-(LinearCombination lc, Var v) { return std::move(lc.sub(v)); }
  friend LinearCombination operator+(LinearCombination lc, const LinearCombination& o) { return std::move(lc.add(o)); }
  friend LinearCombination operator-(LinearCombination lc, const LinearCombination& o) { return std::move(lc.sub(o)); }

  const std::vector<Term>& terms() const { return terms_; }
  std::size_t size() const { return terms_.size(); }
  bool empty() const { return terms_.empty(); }
  void clear() { terms_.clear(); }

  // Value of the combination given per-kind value arrays (inputs include ONE at index 0).
  template <class InputVals, class AuxVals>
  Fr eval(const InputVals& inputs, const AuxVals& aux) const {
    Fr acc = Fr::zero();
    for (const auto& [raw, c] : terms_) {
      Var v{raw};
      const Fr& x = v.is_aux() ? aux[v.index()] : inputs[v.index()];
      acc += c.is_one() ? x : c * x;
    }
    return acc;
  }

 private:
  LinearCombination& merge(const LinearCombination& other, const Fr* coeff, bool negate) {
    if (other.terms_.empty()) return *this;
    auto scaled = [&](const Fr& c) {
      Fr r = coeff ? c * *coeff : c;
      return negate ? -r : r;
    };
    if (terms_.empty() || terms_.back().first < other.terms_.front().first) {
      terms_.reserve(terms_.size() + other.terms_.size());
      for (const auto& t : other.terms_) terms_.emplace_back(t.first, scaled(t.second));
      return *this;
    }
    std::vector<Term> out;
    out.reserve(terms_.size() + other.terms_.size());
    std::size_t i = 0, j = 0;
    while (i < terms_.size() || j < other.terms_.size()) {
      if (j == other.terms_.size() || (i < terms_.size() && terms_[i].first < other.terms_[j].first)) {
        out.push_back(terms_[i++]);
      } else if (i == terms_.size() || other.terms_[j].first < terms_[i].first) {
        out.emplace_back(other.terms_[j].first, scaled(other.terms_[j].second));
        ++j;
      } else {
        out.emplace_back(terms_[i].first, terms_[i].second + scaled(other.terms_[j].second));
        ++i;
        ++j;
      }
    }
    terms_ = std::move(out);
    return *this;
  }

  std::vector<Term> terms_;
};

// The linear combination of the fast modes: same interface, no state, no work.
struct NullLC {
  static constexpr bool kActive = false;
  NullLC() = default;
  explicit NullLC(Var) {}
  NullLC(Var, const Fr&) {}
  static NullLC zero() { return {}; }
  NullLC& add(Var, const Fr&) { return *this; }
  NullLC& add(Var) { return *this; }
  NullLC& sub(Var, const Fr&) { return *this; }
  NullLC& sub(Var) { return *this; }
  NullLC& add(const NullLC&, const Fr&) { return *this; }
  NullLC& add(const NullLC&) { return *this; }
  NullLC& sub(const NullLC&) { return *this; }
  NullLC& sub(const NullLC&, const Fr&) { return *this; }
  NullLC& scale(const Fr&) { return *this; }
  friend NullLC operator+(NullLC lc, Var) { return lc; }
  friend NullLC operator-(NullLC lc, Var) { return lc; }
  friend NullLC operator+(NullLC lc, const NullLC&) { return lc; }
  friend NullLC operator-(NullLC lc, const NullLC&) { return lc; }
  void clear() {}
};

// Names of variables, rows and namespaces. Built for free (a pointer and up to two integers); only
// the checking system ever turns one into text ("bit 5", "pick 1, 3").
struct Name {
  const char* s = "";
  std::int64_t i = -1;
  std::int64_t j = -1;
  constexpr Name() = default;
  constexpr Name(const char* str) : s(str) {}  // NOLINT: implicit by design
  constexpr Name(const char* str, std::int64_t a) : s(str), i(a) {}
  constexpr Name(const char* str, std::int64_t a, std::int64_t b) : s(str), i(a), j(b) {}
  std::string str() const {
    std::string out = s;
    if (i >= 0) {
      out.push_back(' ');
      out.append(std::to_string(i));
    }
    if (j >= 0) {
      out.append(", ");
      out.append(std::to_string(j));
    }
    return out;
  }
};

// The namespace guard of the fast modes.
struct NoNamespace {
  NoNamespace() = default;
  ~NoNamespace() {}  // user-provided: a guard that is never read is not an "unused variable"
  NoNamespace(const NoNamespace&) = delete;
  NoNamespace& operator=(const NoNamespace&) = delete;
};

}  // namespace cuzk::circuit
