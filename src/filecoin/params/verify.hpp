// Checking a parameter cache directory against the published manifest (`cuzk params verify`).
//
// For each of the 44 published files (22 stems x .params/.vk), in all_param_configs() order:
//   MISSING  the file is not in the directory (not an error: operators fetch only what they use);
//   OK       fast path: the file parses (.vk fully, with subgroup checks; .params: every count is
//            consistent with the file size and its verifying key decodes), its size is exactly what
//            the counts say, the PoRep input count matches the circuit, and a .params file's
//            embedded verifying key equals the .vk next to it;
//            full (--full): additionally the first 32 hex characters of the file's BLAKE2b-512
//            equal the published digest (what rust-fil-proofs checks with verify_production_params);
//   BAD      anything else, with a one-line reason.
// A present `.meta` file is also checked (valid JSON with the expected sector_size) and reported.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "filecoin/params/cache_names.hpp"
#include "filecoin/params/manifest.hpp"

namespace cuzk::filecoin::params {

enum class CheckStatus : std::uint8_t { kOk, kMissing, kBad };
const char* status_name(CheckStatus s);  // "OK", "MISSING", "BAD"

struct FileCheck {
  std::string file;  // bare name
  std::string path;  // dir/file
  CheckStatus status = CheckStatus::kMissing;
  std::string reason;  // for BAD; for OK a short summary ("params, 2^17 domain, 40 inputs")
  std::uint64_t size = 0;
  bool digest_checked = false;
};

struct VerifyReport {
  std::vector<FileCheck> files;
  std::size_t ok = 0, missing = 0, bad = 0;
  bool all_good() const { return bad == 0; }
};

struct VerifyOptions {
  bool full = false;  // also compare BLAKE2b digests (reads every byte)
  // Called after each file is checked (progress output); may be empty.
  std::function<void(const FileCheck&)> on_file;
};

VerifyReport verify_params_dir(const std::string& dir, const VerifyOptions& opt,
                               const std::vector<PublishedEntry>& manifest = published_parameters());
inline VerifyReport verify_params_dir(const std::string& dir, bool full) {
  VerifyOptions o;
  o.full = full;
  return verify_params_dir(dir, o);
}

// Number of public inputs (ONE included) of a config's circuit when it is known from the protocol
// constants (PoRep: 3 + 18 per challenge + ONE = 40 or 328); 0 when not known here.
std::uint32_t expected_num_inputs(const ParamConfig& c);

}  // namespace cuzk::filecoin::params
