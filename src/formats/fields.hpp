// One field declaration per struct, read by every format that serializes it: bincode
// (formats/bincode_fields.hpp), the strict JSON reader (json_reader.hpp) and the JSON writer
// (json_fields.hpp). A struct is described in its own namespace by a function found by
// argument-dependent lookup:
//
//   constexpr auto fields(const LabelingProof*) {
//     return std::make_tuple(formats::field("parents", &LabelingProof::parents),
//                            formats::field("layer_index", &LabelingProof::layer_index),
//                            formats::field("node", &LabelingProof::node));
//   }
//
// in serde's declaration order. `group("name", ...)` is a nested serde struct whose fields live in the
// outer C++ struct (ColumnProof's `column`); `phantom("name")` is a PhantomData field (JSON null,
// absent in bincode). Types whose encoding is not a plain field list (tagged enums, wrappers) get a
// codec specialization instead (BincodeCodec / JsonCodec / JsonReadCodec<VanillaMerkleProof>).
#pragma once

#include <string_view>
#include <tuple>
#include <type_traits>

namespace cuzk::formats {

template <class T, class M>
struct Field {
  std::string_view name;
  M T::*member;
};
template <class T, class M>
constexpr Field<T, M> field(std::string_view name, M T::*member) {
  return {name, member};
}

template <class... Fs>
struct Group {
  std::string_view name;
  std::tuple<Fs...> fields;
};
template <class... Fs>
constexpr Group<Fs...> group(std::string_view name, Fs... fs) {
  return {name, std::tuple<Fs...>(fs...)};
}

struct Phantom {
  std::string_view name;
};
constexpr Phantom phantom(std::string_view name) { return {name}; }

// Whether T has a field declaration.
template <class T>
concept Described = requires {
  fields(static_cast<const T*>(nullptr));
};

template <class T>
constexpr auto fields_of() {
  return fields(static_cast<const T*>(nullptr));
}

}  // namespace cuzk::formats
