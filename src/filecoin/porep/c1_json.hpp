// C1 (SealCommitPhase1Output) as JSON (filecoin-formats.md §3.1–3.3): the serde_json form that
// filecoin-ffi's seal_commit_phase1 returns, and the Curio / lotus-bench wrapper around it.
//
// Reading is strict: every field of every struct is required (except Column._h, which must be null
// when present), unknown or duplicate fields, unknown enum variants, wrong JSON types, integers out of
// range and 32-byte values of the wrong length are rejected. Fields may come in any order (Curio's Go
// encoder orders them differently from serde). Every error is one line that starts with the JSON path
// of the offending value, e.g.
//   vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents[3].column.rows[1]: expected 32 bytes, got
//   31
// Syntax errors name the byte offset and the path of the enclosing value. Counts are bounded before
// anything is allocated by the VanillaSealProof's sector size (c1_limits.hpp: at most that size's
// partitions, challenges, layers, parents, levels), and a piece of JSON larger than its shape allows
// is refused unparsed, so parse memory is bounded by the shape (c1_io.hpp c1_parse_bytes); the exact
// shape (how many partitions, levels, rows, parents; field-element ranges) is check_c1_shape's.
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
#include "formats/base64.hpp"
#include "formats/big_buffer.hpp"
#include "formats/json_path.hpp"

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

// Base64 of the Curio wrapper (formats/base64.hpp), under the names the callers use.
using formats::base64_decode;
using formats::base64_encode;

namespace detail {

// The generic pieces the C1 readers share (formats/): paths for error messages, big buffers.
using formats::BigBuffer;
using formats::JsonPath;
using formats::root_path;

// The reference parse: one simdjson DOM for the whole document (parse_c1_json normally parses the
// challenge proofs one at a time and falls back to this on any error; both give the same result).
Result<C1Output> parse_c1_json_unchunked(std::string_view json);

}  // namespace detail

}  // namespace cuzk::filecoin::porep
