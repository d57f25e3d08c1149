#include "engine/types.hpp"

#include <functional>

namespace cuzk::engine {

const char* priority_name(Priority p) {
  switch (p) {
    case Priority::kLow: return "LOW";
    case Priority::kNormal: return "NORMAL";
    case Priority::kHigh: return "HIGH";
    case Priority::kCritical: return "CRITICAL";
  }
  return "NORMAL";
}

const char* status_name(ResultStatus s) {
  switch (s) {
    case ResultStatus::kCompleted: return "COMPLETED";
    case ResultStatus::kFailed: return "FAILED";
    case ResultStatus::kCancelled: return "CANCELLED";
    case ResultStatus::kTimeout: return "TIMEOUT";
    case ResultStatus::kUnknown: return "UNKNOWN";
  }
  return "UNKNOWN";
}

std::size_t ProofRequest::fingerprint() const {
  std::size_t fp = std::hash<std::string_view>{}(vanilla_proof);
  auto mix = [&fp](std::size_t h) { fp ^= h + 0x9e3779b97f4a7c15ULL + (fp << 6) + (fp >> 2); };
  mix(proof_kind);
  mix(sector_size);
  mix(registered_proof);
  mix(sector_number);
  mix(miner_id);
  mix(partition_index);
  for (const auto& v : vanilla_proofs) mix(std::hash<std::string_view>{}(v));
  for (const std::string* s : {&randomness, &comm_r_old, &comm_r_new, &comm_d_new, &circuit_id, &witness_wtns,
                               &witness_path}) {
    mix(std::hash<std::string_view>{}(*s));
  }
  return fp;
}

}  // namespace cuzk::engine
