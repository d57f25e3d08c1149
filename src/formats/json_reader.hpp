// A strict JSON reader over simdjson's DOM, driven by field declarations (formats/fields.hpp): every
// field required (a phantom may be absent and must be null), unknown or duplicate fields, unknown enum
// variants, wrong JSON types, integers out of range and byte arrays of the wrong length refused, fields
// in any order; every error one line starting with the JSON path of the offending value, e.g.
//   vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[3].column.rows[1]: expected 32 bytes, got
//   31
// Array counts are checked against an optional ElementLimits (element_limits.hpp) before anything is
// allocated, and vectors grow only as their elements validate.
// Header-only (the including library links simdjson). Types that are not a plain field list get a
// JsonReadCodec<T> specialization (static bool read(StrictJsonReader&, element, path, T&)).
#pragma once

#include <simdjson.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "formats/bincode_fields.hpp"  // is_byte_array, is_vector
#include "formats/element_limits.hpp"
#include "formats/fields.hpp"
#include "formats/json_path.hpp"

namespace cuzk::formats {

class StrictJsonReader;

template <class T>
struct JsonReadCodec;

template <class T>
concept HasJsonReadCodec = requires {
  &JsonReadCodec<T>::read;
};

class StrictJsonReader {
 public:
  std::string err;  // set by the first failure
  // The most elements each array may have (element_limits.hpp); none when null. Not owned.
  const ElementLimits* limits = nullptr;

  bool fail(const JsonPath& p, std::string_view msg) {
    err = p.str();
    err += ": ";
    err += msg;
    return false;
  }

  static std::string describe(simdjson::dom::element e) {
    switch (e.type()) {
      case simdjson::dom::element_type::ARRAY: return "array";
      case simdjson::dom::element_type::OBJECT: return "object";
      case simdjson::dom::element_type::NULL_VALUE: return "null";
      default: break;
    }
    const char* kind = "";
    switch (e.type()) {
      case simdjson::dom::element_type::INT64:
      case simdjson::dom::element_type::UINT64: kind = "integer "; break;
      case simdjson::dom::element_type::DOUBLE: kind = "number "; break;
      case simdjson::dom::element_type::STRING: kind = "string "; break;
      case simdjson::dom::element_type::BOOL: kind = "boolean "; break;
      default: break;
    }
    std::string text = simdjson::to_string(e);
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return kind + text;
  }

  // Object with a fixed field list; optional_mask marks fields that may be absent. f(i, value, path).
  template <std::size_t N, class F>
  bool object(simdjson::dom::element e, const JsonPath& p, const std::array<std::string_view, N>& names,
              std::uint32_t optional_mask, F&& f) {
    simdjson::dom::object obj;
    if (e.get_object().get(obj) != simdjson::SUCCESS) return fail(p, "expected object, got " + describe(e));
    std::uint32_t seen = 0;
    for (simdjson::dom::key_value_pair kv : obj) {
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
  bool variant(simdjson::dom::element e, const JsonPath& p, const std::array<std::string_view, N>& names,
               const char* what, F&& f) {
    simdjson::dom::object obj;
    if (e.get_object().get(obj) != simdjson::SUCCESS)
      return fail(p, std::string("expected ") + what + " (object with one of " + join(names) + "), got " + describe(e));
    std::size_t count = 0;
    for (simdjson::dom::key_value_pair kv : obj) {
      (void)kv;
      ++count;
    }
    if (count != 1)
      return fail(p, std::string("expected ") + what + " with exactly one variant (" + join(names) + "), got " +
                         std::to_string(count) + " keys");
    simdjson::dom::key_value_pair kv = *obj.begin();
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

  // An array of elements read by elem(value, path, out). The count is checked against `limits`
  // (when given) before anything is allocated, and the vector grows only as elements validate, so an
  // array of a million zeros where structs are expected costs nothing but its DOM.
  template <class T, class F>
  bool array_of(simdjson::dom::element e, const JsonPath& p, std::vector<T>& out, F&& elem) {
    simdjson::dom::array arr;
    if (e.get_array().get(arr) != simdjson::SUCCESS) return fail(p, "expected array, got " + describe(e));
    out.clear();
    std::uint64_t n = arr.size();
    if (n >= 0xFFFFFFu) {  // simdjson's size() saturates at 2^24 - 1: count them
      n = 0;
      for (simdjson::dom::element v : arr) (void)v, ++n;
    }
    const std::uint64_t max = limits != nullptr ? limits->max_elements(p) : kNoElementLimit;
    if (n > max) return fail(p, too_many_elements(n, max, limits->expected_for()));
    if (max != kNoElementLimit) out.reserve(n);  // small: the shape bounds it
    std::uint64_t i = 0;
    for (simdjson::dom::element v : arr) {
      out.emplace_back();
      if (!elem(v, p.child(i), out.back())) return false;
      ++i;
    }
    return true;
  }

  // [u8; N]: an array of exactly N integers 0..255.
  template <std::size_t N>
  __attribute__((flatten)) bool bytes(simdjson::dom::element e, const JsonPath& p, std::array<std::uint8_t, N>& out) {
    simdjson::dom::array arr;
    if (e.get_array().get(arr) != simdjson::SUCCESS)
      return fail(p, "expected array of " + std::to_string(N) + " bytes, got " + describe(e));
    const std::size_t n = arr.size();
    if (n != N) return fail(p, "expected " + std::to_string(N) + " bytes, got " + std::to_string(n));
    std::size_t i = 0;
    for (simdjson::dom::element v : arr) {
      std::uint64_t x;
      if (v.get_uint64().get(x) != simdjson::SUCCESS || x > 255)
        return fail(p.child(i), "expected integer 0..255, got " + describe(v));
      out[i++] = static_cast<std::uint8_t>(x);
    }
    return true;
  }

  bool u64(simdjson::dom::element e, const JsonPath& p, std::uint64_t& out) {
    if (e.get_uint64().get(out) != simdjson::SUCCESS)
      return fail(p, "expected unsigned 64-bit integer, got " + describe(e));
    return true;
  }
  bool u32(simdjson::dom::element e, const JsonPath& p, std::uint32_t& out) {
    std::uint64_t x;
    if (e.get_uint64().get(x) != simdjson::SUCCESS || x > 0xffffffffu)
      return fail(p, "expected unsigned 32-bit integer, got " + describe(e));
    out = static_cast<std::uint32_t>(x);
    return true;
  }

  // Any declared type (see the file comment).
  template <class T>
  bool read(simdjson::dom::element e, const JsonPath& p, T& v) {
    if constexpr (HasJsonReadCodec<T>) {
      return JsonReadCodec<T>::read(*this, e, p, v);
    } else if constexpr (std::is_same_v<T, std::uint32_t>) {
      return u32(e, p, v);
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
      return u64(e, p, v);
    } else if constexpr (is_byte_array<T>::value) {
      return bytes(e, p, v);
    } else if constexpr (is_vector<T>::value) {
      using E = typename is_vector<T>::element;
      return array_of(e, p, v, [&](simdjson::dom::element x, const JsonPath& c, E& out) { return read(x, c, out); });
    } else {
      static_assert(Described<T>, "json: no field declaration or codec for this type");
      return read_fields(e, p, v, fields_of<T>());
    }
  }

  // An object whose keys are the elements of `elems` (fields, groups, phantoms) of `v`.
  template <class T, class Tuple>
  bool read_fields(simdjson::dom::element e, const JsonPath& p, T& v, const Tuple& elems) {
    constexpr std::size_t N = std::tuple_size_v<Tuple>;
    const std::array<std::string_view, N> names =
        std::apply([](const auto&... f) { return std::array<std::string_view, N>{f.name...}; }, elems);
    std::uint32_t optional = 0;
    phantom_mask(elems, optional, std::make_index_sequence<N>{});
    return object(e, p, names, optional, [&](std::size_t i, simdjson::dom::element fv, const JsonPath& fc) {
      return dispatch(i, fv, fc, v, elems, std::make_index_sequence<N>{});
    });
  }

 private:
  template <class Tuple, std::size_t... I>
  static void phantom_mask(const Tuple&, std::uint32_t& mask, std::index_sequence<I...>) {
    ((mask |= std::is_same_v<std::tuple_element_t<I, Tuple>, Phantom> ? (1u << I) : 0u), ...);
  }
  template <class T, class Tuple, std::size_t... I>
  bool dispatch(std::size_t i, simdjson::dom::element fv, const JsonPath& fc, T& v, const Tuple& elems,
                std::index_sequence<I...>) {
    bool ok = false;
    (void)((i == I ? (ok = element(fv, fc, v, std::get<I>(elems)), true) : false) || ...);
    return ok;
  }
  template <class T, class F>
  bool element(simdjson::dom::element fv, const JsonPath& fc, T& v, const F& f) {
    if constexpr (requires { f.member; }) {
      return read(fv, fc, v.*(f.member));
    } else if constexpr (requires { f.fields; }) {
      return read_fields(fv, fc, v, f.fields);
    } else {
      if (!fv.is_null()) return fail(fc, "expected null, got " + describe(fv));
      return true;
    }
  }
};

}  // namespace cuzk::formats
