// Writers for bellperson's `.params`, `.vk` and `.meta` files, byte-identical in layout to
// bellperson's Parameters::write / VerifyingKey::write and rust-fil-proofs' CacheEntryMetadata
// (serde_json: {"sector_size":N}, no spaces, no newline). See params.hpp for the layout.
//
// Files are written to "<path>.tmp-<pid>" and renamed into place, so a reader never sees half a file.
// The writer refuses what bellperson's reader would reject: an identity point in ic, or in h/l/a/b
// (unless WriteOptions::allow_identity, for building corrupt test files), and counts above 2^32 - 1.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "formats/bellperson/params.hpp"
#include "groth16/keys.hpp"

namespace cuzk::formats::bellperson {

// What a .params file holds, by reference.
struct ParamsRef {
  const groth16::VerifyingKey* vk = nullptr;
  std::span<const G1Affine> h, l, a, b_g1;
  std::span<const G2Affine> b_g2;

  static ParamsRef of(const ParamsContents& c) { return {&c.vk, c.h, c.l, c.a, c.b_g1, c.b_g2}; }
  // The key must use HBasis::kMonomialOverZ (checked by the writers).
  static ParamsRef of(const groth16::ProvingKey& pk) { return {&pk.vk, pk.h, pk.l, pk.a, pk.b_g1, pk.b_g2}; }
};

struct WriteOptions {
  bool allow_identity = false;  // tests only: write identity points where bellperson's reader rejects them
  std::size_t threads = 0;      // encoding threads; 0: cuzk::default_threads()
};

// Size in bytes of the .params file for these vectors.
std::uint64_t params_file_size(const ParamsRef& p);

Status write_params(const std::string& path, const ParamsRef& p, const WriteOptions& opt = {});
Status write_params(const std::string& path, const groth16::ProvingKey& pk, const WriteOptions& opt = {});
Result<std::vector<std::uint8_t>> encode_params(const ParamsRef& p, const WriteOptions& opt = {});

Status write_vk(const std::string& path, const groth16::VerifyingKey& vk, const WriteOptions& opt = {});
Result<std::vector<std::uint8_t>> encode_vk(const groth16::VerifyingKey& vk, const WriteOptions& opt = {});

// `.meta`: rust-fil-proofs' CacheEntryMetadata.
struct Meta {
  std::uint64_t sector_size = 0;
};
std::string encode_meta(const Meta& m);  // {"sector_size":2048}
Status write_meta(const std::string& path, const Meta& m);
// Accepts any JSON object with an unsigned integer "sector_size" (serde ignores other fields).
Result<Meta> parse_meta(std::string_view text, const std::string& name);
Result<Meta> read_meta_file(const std::string& path);

}  // namespace cuzk::formats::bellperson
