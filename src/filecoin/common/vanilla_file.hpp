// A vanilla-proof file as the tools take it, for every family that sends a list of bincode blobs
// (PoSt: one FallbackPoStSectorProof per sector; SnapDeals: one PartitionProof per partition, Curio's
// snap-vproof.json): one raw bincode blob, or a JSON array of base64 strings (what Curio's tooling and
// the Rust `cuzk-bench --vanilla` use). The blobs are returned undecoded; each family's parser checks
// them. JSON is a file whose first non-blank byte is '[' and that has no NUL byte: a bincode blob
// always has NULs (the high bytes of its u64 lengths) but may start with '[' (PoSt sector 91 = 0x5b).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace cuzk::filecoin {

Result<std::vector<std::vector<std::uint8_t>>> read_vanilla_blobs(std::span<const std::uint8_t> file);
// The JSON array form, one base64 string per blob.
std::string write_vanilla_json(std::span<const std::vector<std::uint8_t>> blobs);

}  // namespace cuzk::filecoin
