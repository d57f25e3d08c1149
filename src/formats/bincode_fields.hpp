// bincode driven by field declarations (formats/fields.hpp): read, write, encoded size and smallest
// encoding of any described struct, recursively, with the generic cursors of formats/bincode.hpp.
//   u32 / u64              little-endian
//   std::array<u8, N>      N raw bytes
//   std::vector<T>         u64 length (bounded by the remaining bytes / T's smallest encoding before
//                          anything is allocated), then the elements
//   described struct       its fields in declaration order (groups inline, phantoms absent)
//   BincodeCodec<T>        a specialization for anything else (tagged enums, wrappers)
// Errors name the field path as the JSON form would: vanilla_proofs[0][1].comm_d_proofs.data.Single.root.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include "formats/bincode.hpp"
#include "formats/fields.hpp"
#include "formats/json_path.hpp"

namespace cuzk::formats {

// Specialize with static read / write / size / min_size for types that are not a plain field list.
template <class T>
struct BincodeCodec;

template <class T>
concept HasBincodeCodec = requires {
  BincodeCodec<T>::min_size();
};

template <class T>
struct is_byte_array : std::false_type {};
template <std::size_t N>
struct is_byte_array<std::array<std::uint8_t, N>> : std::true_type {};

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {
  using element = T;
};

template <class T>
constexpr std::size_t bincode_min_size();
template <class T>
bool bincode_read(BincodeReader& r, const JsonPath& p, T& v);
template <class T>
void bincode_write(BincodeWriter& w, const T& v);
template <class T>
std::size_t bincode_size(const T& v);

namespace detail {

template <class Owner, class F>
constexpr std::size_t element_min_size(const F& f) {
  if constexpr (requires { f.member; }) {
    return bincode_min_size<std::remove_cvref_t<decltype(std::declval<Owner&>().*(f.member))>>();
  } else if constexpr (requires { f.fields; }) {
    return std::apply([](const auto&... g) { return (std::size_t(0) + ... + element_min_size<Owner>(g)); }, f.fields);
  } else {
    return 0;  // phantom
  }
}

template <class Owner, class F>
bool element_read(BincodeReader& r, const JsonPath& p, Owner& o, const F& f) {
  if constexpr (requires { f.member; }) {
    return bincode_read(r, p.child(f.name), o.*(f.member));
  } else if constexpr (requires { f.fields; }) {
    const JsonPath g = p.child(f.name);
    return std::apply([&](const auto&... e) { return (element_read(r, g, o, e) && ...); }, f.fields);
  } else {
    return true;
  }
}

template <class Owner, class F>
void element_write(BincodeWriter& w, const Owner& o, const F& f) {
  if constexpr (requires { f.member; }) {
    bincode_write(w, o.*(f.member));
  } else if constexpr (requires { f.fields; }) {
    std::apply([&](const auto&... e) { (element_write(w, o, e), ...); }, f.fields);
  }
}

template <class Owner, class F>
std::size_t element_size(const Owner& o, const F& f) {
  if constexpr (requires { f.member; }) {
    return bincode_size(o.*(f.member));
  } else if constexpr (requires { f.fields; }) {
    return std::apply([&](const auto&... e) { return (std::size_t(0) + ... + element_size(o, e)); }, f.fields);
  } else {
    return 0;
  }
}

}  // namespace detail

template <class T>
constexpr std::size_t bincode_min_size() {
  if constexpr (HasBincodeCodec<T>) {
    return BincodeCodec<T>::min_size();
  } else if constexpr (std::is_same_v<T, std::uint32_t>) {
    return 4;
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    return 8;
  } else if constexpr (is_byte_array<T>::value) {
    return std::tuple_size_v<T>;
  } else if constexpr (is_vector<T>::value) {
    return 8;
  } else {
    static_assert(Described<T>, "bincode: no field declaration or codec for this type");
    return std::apply([](const auto&... f) { return (std::size_t(0) + ... + detail::element_min_size<T>(f)); },
                      fields_of<T>());
  }
}

template <class T>
bool bincode_read(BincodeReader& r, const JsonPath& p, T& v) {
  if constexpr (HasBincodeCodec<T>) {
    return BincodeCodec<T>::read(r, p, v);
  } else if constexpr (std::is_same_v<T, std::uint32_t>) {
    return r.u32(p, v);
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    return r.u64(p, v);
  } else if constexpr (is_byte_array<T>::value) {
    return r.raw(p, v.data(), v.size());
  } else if constexpr (is_vector<T>::value) {
    using E = typename is_vector<T>::element;
    if constexpr (is_byte_array<E>::value) {
      return r.fixed_vec(p, v);
    } else {
      return r.vec(p, bincode_min_size<E>(), v, [&](const JsonPath& ep, E& e) { return bincode_read(r, ep, e); });
    }
  } else {
    return std::apply([&](const auto&... f) { return (detail::element_read(r, p, v, f) && ...); }, fields_of<T>());
  }
}

template <class T>
void bincode_write(BincodeWriter& w, const T& v) {
  if constexpr (HasBincodeCodec<T>) {
    BincodeCodec<T>::write(w, v);
  } else if constexpr (std::is_same_v<T, std::uint32_t>) {
    w.u32(v);
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    w.u64(v);
  } else if constexpr (is_byte_array<T>::value) {
    w.raw(v.data(), v.size());
  } else if constexpr (is_vector<T>::value) {
    using E = typename is_vector<T>::element;
    if constexpr (is_byte_array<E>::value) {
      w.fixed_vec(v);
    } else {
      w.u64(v.size());
      for (const E& e : v) bincode_write(w, e);
    }
  } else {
    std::apply([&](const auto&... f) { (detail::element_write(w, v, f), ...); }, fields_of<T>());
  }
}

template <class T>
std::size_t bincode_size(const T& v) {
  if constexpr (HasBincodeCodec<T>) {
    return BincodeCodec<T>::size(v);
  } else if constexpr (std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t> ||
                       is_byte_array<T>::value) {
    return sizeof(T);
  } else if constexpr (is_vector<T>::value) {
    using E = typename is_vector<T>::element;
    if constexpr (is_byte_array<E>::value) {
      return 8 + v.size() * sizeof(E);
    } else {
      std::size_t n = 8;
      for (const E& e : v) n += bincode_size(e);
      return n;
    }
  } else {
    return std::apply([&](const auto&... f) { return (std::size_t(0) + ... + detail::element_size(v, f)); },
                      fields_of<T>());
  }
}

}  // namespace cuzk::formats
