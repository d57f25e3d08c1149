// The published parameter manifest (rust-fil-proofs parameters.json, see PARAMETERS_SOURCE.md),
// compiled into the library: file name -> {cid, digest, sector_size}. `digest` is the first 32 hex
// characters of the BLAKE2b-512 digest of the whole file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace cuzk::filecoin::params {

struct PublishedEntry {
  std::string file;    // e.g. v28-stacked-...-032d3138....params
  std::string cid;     // IPFS CID (paramfetch)
  std::string digest;  // 32 lowercase hex characters
  std::uint64_t sector_size = 0;
};

// All 44 entries, sorted by file name.
const std::vector<PublishedEntry>& published_parameters();
const PublishedEntry* find_published(const std::vector<PublishedEntry>& manifest, const std::string& file);
inline const PublishedEntry* find_published(const std::string& file) {
  return find_published(published_parameters(), file);
}
// The manifest text as committed.
std::string_view published_parameters_json();
// Parses a manifest in the parameters.json format (tests, other manifests).
Result<std::vector<PublishedEntry>> parse_manifest(std::string_view json_text);

// BLAKE2b-512 of a whole file, as 128 lowercase hex characters; the published digest is its first 32.
Result<std::string> blake2b512_file_hex(const std::string& path);
std::string blake2b512_hex(std::string_view bytes);

}  // namespace cuzk::filecoin::params
