// JSON writing driven by field declarations (formats/fields.hpp), exactly as serde_json::to_vec writes
// the same Rust structs: fields in declaration order, a group as a nested object, a phantom as null.
//   u32 / u64 numbers, [u8; N] arrays of numbers, Vec<T> arrays, described structs objects,
//   JsonCodec<T> a specialization for anything else (tagged enums, wrappers).
#pragma once

#include <array>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include "formats/bincode_fields.hpp"  // is_byte_array, is_vector
#include "formats/fields.hpp"
#include "formats/json_out.hpp"

namespace cuzk::formats {

// Specialize with static void write(JsonOut&, const T&).
template <class T>
struct JsonCodec;

template <class T>
concept HasJsonCodec = requires(JsonOut& o, const T& v) {
  JsonCodec<T>::write(o, v);
};

template <class T>
void json_write(JsonOut& o, const T& v);

namespace detail {

inline void json_key(JsonOut& o, std::string_view name, bool& first) {
  if (!first) o.ch(',');
  first = false;
  o.ch('"');
  o.lit(name);
  o.lit("\":");
}

template <class Owner, class F>
void json_element(JsonOut& o, const Owner& v, const F& f, bool& first) {
  json_key(o, f.name, first);
  if constexpr (requires { f.member; }) {
    json_write(o, v.*(f.member));
  } else if constexpr (requires { f.fields; }) {
    o.ch('{');
    bool inner_first = true;
    std::apply([&](const auto&... e) { (json_element(o, v, e, inner_first), ...); }, f.fields);
    o.ch('}');
  } else {
    o.lit("null");  // PhantomData
  }
}

}  // namespace detail

template <class T>
void json_write(JsonOut& o, const T& v) {
  if constexpr (HasJsonCodec<T>) {
    JsonCodec<T>::write(o, v);
  } else if constexpr (std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>) {
    o.u64(v);
  } else if constexpr (is_byte_array<T>::value) {
    o.bytes(v);
  } else if constexpr (is_vector<T>::value) {
    using E = typename is_vector<T>::element;
    if constexpr (is_byte_array<E>::value) {
      o.bytes_vec(v);
    } else {
      o.ch('[');
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) o.ch(',');
        json_write(o, v[i]);
      }
      o.ch(']');
    }
  } else {
    static_assert(Described<T>, "json: no field declaration or codec for this type");
    o.ch('{');
    bool first = true;
    std::apply([&](const auto&... f) { (detail::json_element(o, v, f, first), ...); }, fields_of<T>());
    o.ch('}');
  }
}

}  // namespace cuzk::formats
