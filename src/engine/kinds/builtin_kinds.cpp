#include "engine/kinds/builtin_kinds.hpp"

#include <stdexcept>

#include "engine/kinds/filecoin_keys.hpp"
#include "engine/kinds/generic_groth16_kind.hpp"
#include "engine/kinds/porep_kind.hpp"
#include "engine/kinds/post_kind.hpp"
#include "engine/kinds/snap_kind.hpp"
#include "filecoin/post/config.hpp"
#include "filecoin/snap/config.hpp"

namespace cuzk::engine::kinds {
namespace {

constexpr std::uint32_t wire(ProofKind k) { return static_cast<std::uint32_t>(k); }

Result<std::uint64_t> post_registered_proof(std::string_view name) {
  auto c = filecoin::post::post_config_by_name(name);
  if (!c) return Error{c.error()};
  return std::uint64_t((*c)->code);
}

Result<std::uint64_t> snap_registered_proof(std::string_view name) {
  auto c = filecoin::snap::update_config_by_name(name);
  if (!c) return Error{c.error()};
  return std::uint64_t((*c)->code);
}

void add(KindRegistry& r, KindRow row) {
  // The table below is fixed at build time: a clash is a programming error, caught by every test.
  if (auto st = r.add(std::move(row)); !st) throw std::logic_error(st.error());
}

}  // namespace

void register_generic_kind(KindRegistry& r) {
  add(r, {wire(ProofKind::kGenericGroth16),
          "GENERIC_GROTH16",
          "generic-groth16",
          Priority::kNormal,
          {"generic", "groth16"},
          make_generic_groth16_kind(),
          {},
          false,
          0,
          {},
          {.witness = true}});
}

void register_builtin_kinds(KindRegistry& r, const BuiltinKindOptions& o) {
  // wire, proto name, name, priority, aliases, kind, key loaders, deadline-bound, default registered
  // proof (32 GiB: StackedDrgWindow32GiBV1_1 = 13, StackedDrgWinning32GiBV1 = 3, the 32 GiB update = 3),
  // registered-proof names, the request's inputs
  add(r, {wire(ProofKind::kPoRepC2),
          "POREP_SEAL_COMMIT",
          "porep-c2",
          Priority::kNormal,
          {"porep", "seal-commit"},
          make_porep_c2_kind(),
          {porep_key_loader(o.shape_cache)},
          false,
          0,
          {},
          {.c1 = true}});
  add(r, {wire(ProofKind::kSnapUpdate),
          "SNAP_DEALS_UPDATE",
          "snap-update",
          Priority::kNormal,
          {"snap", "snap-deals", "update"},
          make_snap_update_kind(),
          {snap_key_loader(o.shape_cache)},
          false,
          3,
          snap_registered_proof,
          {.vanilla_proofs = true, .comm_rs = true}});
  add(r, {wire(ProofKind::kWindowPoSt),
          "WINDOW_POST_PARTITION",
          "window-post",
          Priority::kHigh,
          {"wpost", "windowpost"},
          make_window_post_kind(),
          {wpost_key_loader(o.shape_cache)},
          true,
          13,
          post_registered_proof,
          {.vanilla_proofs = true, .randomness = true}});
  add(r, {wire(ProofKind::kWinningPoSt),
          "WINNING_POST",
          "winning-post",
          Priority::kCritical,
          {"winning", "winningpost"},
          make_winning_post_kind(),
          {winning_key_loader(o.shape_cache)},
          true,
          3,
          post_registered_proof,
          {.vanilla_proofs = true, .randomness = true}});
  register_generic_kind(r);
}

}  // namespace cuzk::engine::kinds
