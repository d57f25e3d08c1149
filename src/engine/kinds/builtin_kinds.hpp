// The proof kinds the cuzk executables serve: one KindRegistry row per kind (wire value, names,
// default priority, JobKind, key loaders), registered by the apps. A new proof family adds its
// folder under src/filecoin/, its adapter here, and one line in builtin_kinds.cpp.
#pragma once

#include <cstdint>

#include "engine/kind_registry.hpp"

namespace cuzk::engine {

// Wire values of cuzk.v1.ProofKind (Curio's numbering; extensions from 1000).
enum class ProofKind : std::uint32_t {
  kUnspecified = 0,
  kPoRepC2 = 1,
  kSnapUpdate = 2,
  kWindowPoSt = 3,
  kWinningPoSt = 4,
  kGenericGroth16 = 1000,
};

namespace kinds {

// What the executables pass to the kinds (read once from their config and environment).
struct BuiltinKindOptions {
  bool shape_cache = true;  // keep recorded partition shapes in "<params>.shape" (CUZK_SHAPE_CACHE)
};

// Adds the rows for PoRep C2, SnapDeals, WindowPoSt, WinningPoSt and generic-groth16.
void register_builtin_kinds(KindRegistry& registry, const BuiltinKindOptions& options = {});
// Only generic-groth16 (tests of the engine that need no Filecoin key).
void register_generic_kind(KindRegistry& registry);

}  // namespace kinds
}  // namespace cuzk::engine
