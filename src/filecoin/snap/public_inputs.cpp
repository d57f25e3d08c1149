#include "filecoin/snap/public_inputs.hpp"

#include "filecoin/common/merkle_path.hpp"

namespace cuzk::filecoin::snap {

Result<SnapPublic> check_commitments(const SnapCommitments& c) {
  auto r_old = fr_from_bytes32(c.comm_r_old, "comm_r_old");
  if (!r_old) return Error{r_old.error()};
  auto r_new = fr_from_bytes32(c.comm_r_new, "comm_r_new");
  if (!r_new) return Error{r_new.error()};
  auto d_new = fr_from_bytes32(c.comm_d_new, "comm_d_new");
  if (!d_new) return Error{d_new.error()};
  return SnapPublic{*r_old, *r_new, *d_new};
}

std::vector<math::Fr> partition_public_inputs(const SnapGeometry& g, const SnapPublic& pub, std::size_t k) {
  // The Poseidon variant has no partition bits: its first input is h_select alone (k = 0, pb = 0).
  const std::uint64_t first = g.variant == UpdateVariant::kPoseidon ? std::uint64_t(g.h_select) : g.k_and_h_select(k);
  return {math::Fr::from_u64(first), pub.comm_r_old, pub.comm_d_new, pub.comm_r_new};
}

}  // namespace cuzk::filecoin::snap
