// bincode 1.x (Rust's default configuration: little-endian fixed-width integers, u64 lengths before
// Vecs, u32 enum variant indices, [u8; N] raw) as two generic cursors, so that every vanilla-proof
// reader (PoRep's C1 today, PoSt / Snap next) checks lengths the same way:
//   BincodeReader  bounds every read by the remaining bytes, and every Vec length by the remaining
//                  bytes / the element's smallest encoding BEFORE anything is allocated (a corrupt
//                  length cannot make it allocate more than a small multiple of the input) and, when
//                  given an ElementLimits (element_limits.hpp), by the proof's expected shape; errors are
//                  "bincode: offset N: <path>: <message>" with the JSON path of the field
//   BincodeWriter  into a buffer pre-sized by the caller (the exact encoded size)
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "formats/element_limits.hpp"
#include "formats/json_path.hpp"

namespace cuzk::formats {

class BincodeReader {
 public:
  explicit BincodeReader(std::span<const std::uint8_t> b) : d_(b.data()), n_(b.size()) {}
  std::string err;  // set by the first failure
  // The most elements each Vec may have (element_limits.hpp); none when null. Not owned.
  const ElementLimits* limits = nullptr;

  std::size_t left() const { return n_ - pos_; }
  std::size_t pos() const { return pos_; }

  bool fail_at(std::size_t at, const JsonPath& p, const std::string& msg) {
    err = "bincode: offset " + std::to_string(at) + ": " + p.str() + ": " + msg;
    return false;
  }
  bool need(const JsonPath& p, std::size_t k) {
    if (left() < k)
      return fail_at(
          pos_, p,
          "unexpected end of data (need " + std::to_string(k) + " bytes, " + std::to_string(left()) + " left)");
    return true;
  }
  bool u32(const JsonPath& p, std::uint32_t& v) {
    if (!need(p, 4)) return false;
    std::uint32_t x;
    std::memcpy(&x, d_ + pos_, 4);
    if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap32(x);
    v = x;
    pos_ += 4;
    return true;
  }
  bool u64(const JsonPath& p, std::uint64_t& v) {
    if (!need(p, 8)) return false;
    std::uint64_t x;
    std::memcpy(&x, d_ + pos_, 8);
    if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
    v = x;
    pos_ += 8;
    return true;
  }
  // [u8; N]
  template <std::size_t N>
  bool bytes(const JsonPath& p, std::uint8_t (&out)[N]) {
    return raw(p, out, N);
  }
  bool raw(const JsonPath& p, std::uint8_t* out, std::size_t k) {
    if (!need(p, k)) return false;
    std::memcpy(out, d_ + pos_, k);
    pos_ += k;
    return true;
  }
  // A Vec length whose elements take at least min_elem bytes each, and at most what `limits` allows.
  bool len(const JsonPath& p, std::size_t min_elem, std::uint64_t& v) {
    const std::size_t at = pos_;
    if (!u64(p, v)) return false;
    if (v > left() / min_elem)
      return fail_at(at, p,
                     "length " + std::to_string(v) + " needs at least " +
                         (v > ~std::uint64_t(0) / min_elem ? std::string("2^64") : std::to_string(v * min_elem)) +
                         " bytes, " + std::to_string(left()) + " left");
    if (limits != nullptr) {
      const std::uint64_t max = limits->max_elements(p);
      if (v > max) return fail_at(at, p, too_many_elements(v, max, limits->expected_for()));
    }
    return true;
  }
  // Vec<[u8; N]> of trivially copyable N-byte elements (e.g. std::array<std::uint8_t, 32>).
  template <class T>
  bool fixed_vec(const JsonPath& p, std::vector<T>& out) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::uint64_t k;
    if (!len(p, sizeof(T), k)) return false;
    out.resize(k);
    if (k) std::memcpy(out.data(), d_ + pos_, k * sizeof(T));
    pos_ += k * sizeof(T);
    return true;
  }
  // Vec<T> with f(path_of_element, element) reading one element of at least min_elem bytes.
  template <class T, class F>
  bool vec(const JsonPath& p, std::size_t min_elem, std::vector<T>& out, F&& f) {
    std::uint64_t k;
    if (!len(p, min_elem, k)) return false;
    out.resize(k);
    for (std::uint64_t i = 0; i < k; ++i)
      if (!f(p.child(i), out[i])) return false;
    return true;
  }
  bool end(const JsonPath& p, const char* what) {
    if (left() != 0) return fail_at(pos_, p, std::to_string(left()) + " trailing bytes after " + what);
    return true;
  }

 private:
  const std::uint8_t* d_;
  std::size_t n_;
  std::size_t pos_ = 0;
};

class BincodeWriter {
 public:
  explicit BincodeWriter(std::size_t size) : out_(size) {}
  void u32(std::uint32_t v) {
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
    std::memcpy(out_.data() + pos_, &v, 4);
    pos_ += 4;
  }
  void u64(std::uint64_t v) {
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
    std::memcpy(out_.data() + pos_, &v, 8);
    pos_ += 8;
  }
  void raw(const std::uint8_t* p, std::size_t k) {
    if (k) std::memcpy(out_.data() + pos_, p, k);
    pos_ += k;
  }
  template <class T>
  void fixed_vec(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    u64(v.size());
    raw(reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(T));
  }
  std::size_t pos() const { return pos_; }
  std::vector<std::uint8_t> finish() && { return std::move(out_); }

 private:
  std::vector<std::uint8_t> out_;
  std::size_t pos_ = 0;
};

}  // namespace cuzk::formats
