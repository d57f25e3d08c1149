// C1 (SealCommitPhase1Output) as JSON (filecoin-formats.md §3.1–3.3): the serde_json form that
// filecoin-ffi's seal_commit_phase1 returns, and the Curio / lotus-bench wrapper around it.
//
// Reading is strict: every field of every struct is required (except Column._h, which must be null
// when present), unknown or duplicate fields, unknown enum variants, wrong JSON types, integers out of
// range and 32-byte values of the wrong length are rejected. Fields may come in any order (Curio's Go
// encoder orders them differently from serde). Every error is one line that starts with the JSON path
// of the offending value, e.g.
//   vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[3].column.rows[1]: expected 32 bytes, got 31
// Syntax errors name the byte offset and the path of the enclosing value. Shape rules (how many
// partitions, levels, rows, parents; field-element ranges) are not checked here: see c1_shape.hpp.
//
// Writing produces exactly serde_json's compact output (declaration field order, `"_h":null`,
// externally tagged enums), so parse → write is the identity on documents written by filecoin-ffi or
// by write_c1_json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "filecoin/porep/c1.hpp"

namespace cuzk::filecoin::porep {

// Bytes that must be readable (any value) after the end of the text given to the *_padded parsers.
inline constexpr std::size_t kC1JsonPadding = 64;

// Parse C1 JSON (copies the text once into a padded buffer).
Result<C1Output> parse_c1_json(std::string_view json);
// Same without the copy: the caller guarantees kC1JsonPadding readable bytes after json.end().
Result<C1Output> parse_c1_json_padded(std::string_view json);

// serde_json::to_vec of the model (compact).
std::string write_c1_json(const C1Output& c1);

// Curio / lotus-bench wrapper {"SectorNum":N,"Phase1Out":"<std base64 of the C1 JSON>","SectorSize":N}.
// SectorSize must equal the registered proof's sector size.
Result<CurioC1> parse_curio_c1(std::string_view json);
Result<CurioC1> parse_curio_c1_padded(std::string_view json);  // kC1JsonPadding readable bytes after
std::string write_curio_c1_json(const CurioC1& c);

// VanillaSealProof variant for a registered proof: the name up to and including "V1"
// ("StackedDrg32GiBV1_1_Feat_SyntheticPoRep" -> "StackedDrg32GiBV1"); empty when the name does not
// have that form.
std::string vanilla_key_for(std::string_view registered_proof);

// Standard base64 (RFC 4648 alphabet, '=' padding, as Go's base64.StdEncoding writes it). Decoding
// is strict: no whitespace, length a multiple of 4, padding only at the end, unused bits zero.
std::string base64_encode(std::span<const std::uint8_t> bytes);
// `extra` zero bytes are allocated after the decoded data (e.g. kC1JsonPadding); they are not part of
// the returned size.
Result<std::vector<std::uint8_t>> base64_decode(std::string_view text, std::size_t extra = 0);

namespace detail {

// A JSON path as a chain of stack nodes (nothing is allocated until an error is rendered):
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

// Large temporary buffers. On virtual machines the first touch of fresh memory can cost ~6–13 µs per
// 4 KiB page, more than parsing the page; these are mapped with MAP_POPULATE, which halves that.
// Anonymous, zero-filled memory (mmap), unmapped on destruction; falls back to the heap.
class BigBuffer {
 public:
  BigBuffer() = default;
  explicit BigBuffer(std::size_t n);
  BigBuffer(BigBuffer&& o) noexcept { *this = std::move(o); }
  BigBuffer& operator=(BigBuffer&& o) noexcept;
  BigBuffer(const BigBuffer&) = delete;
  BigBuffer& operator=(const BigBuffer&) = delete;
  ~BigBuffer();
  std::uint8_t* data() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  std::uint8_t* p_ = nullptr;
  std::size_t n_ = 0;
  bool mapped_ = false;
};

// The reference parse: one simdjson DOM for the whole document (parse_c1_json normally parses the
// challenge proofs one at a time and falls back to this on any error; both give the same result).
Result<C1Output> parse_c1_json_unchunked(std::string_view json);

}  // namespace detail

}  // namespace cuzk::filecoin::porep
