#include "engine/types.hpp"

namespace cuzk::engine {

std::string kind_name(std::uint32_t kind) {
  switch (static_cast<ProofKind>(kind)) {
    case ProofKind::kPoRepC2: return "porep-c2";
    case ProofKind::kSnapUpdate: return "snap-update";
    case ProofKind::kWindowPoSt: return "window-post";
    case ProofKind::kWinningPoSt: return "winning-post";
    case ProofKind::kGenericGroth16: return "generic-groth16";
    case ProofKind::kUnspecified: return "unspecified";
  }
  return "kind-" + std::to_string(kind);
}

std::string kind_label(std::uint32_t kind) {
  std::string n = kind_name(kind);
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}

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

Priority resolve_priority(std::uint32_t wire_priority, std::uint32_t kind) {
  switch (wire_priority) {
    case 0:
      if (kind == static_cast<std::uint32_t>(ProofKind::kWinningPoSt)) return Priority::kCritical;
      if (kind == static_cast<std::uint32_t>(ProofKind::kWindowPoSt)) return Priority::kHigh;
      return Priority::kNormal;
    case 1: return Priority::kLow;
    case 3: return Priority::kHigh;
    case 4: return Priority::kCritical;
    default: return Priority::kNormal;
  }
}

}  // namespace cuzk::engine
