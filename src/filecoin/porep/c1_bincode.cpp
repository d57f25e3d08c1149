#include "filecoin/porep/c1_bincode.hpp"

#include <bit>
#include <cstring>
#include <stdexcept>

#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/porep/c1_fields.hpp"
#include "filecoin/porep/c1_limits.hpp"
#include "formats/bincode_fields.hpp"

namespace cuzk::filecoin::porep {

using formats::JsonPath;

namespace {

// bincode of SealCommitPhase1Output: vanilla_proofs (Vec<Vec<Proof>>), then the five 32-byte values.
// Everything below the top level comes from the field declarations (c1_fields.hpp).
bool read_c1(formats::BincodeReader& r, C1Output& out) {
  const JsonPath root = formats::root_path();
  return formats::bincode_read(r, root.child("vanilla_proofs"), out.vanilla_proofs) &&
         formats::bincode_read(r, root.child("comm_r"), out.comm_r) &&
         formats::bincode_read(r, root.child("comm_d"), out.comm_d) &&
         formats::bincode_read(r, root.child("replica_id"), out.replica_id) &&
         formats::bincode_read(r, root.child("seed"), out.seed) &&
         formats::bincode_read(r, root.child("ticket"), out.ticket) && r.end(root, "the C1 output");
}

}  // namespace

std::size_t c1_bincode_size(const C1Output& c1) { return formats::bincode_size(c1.vanilla_proofs) + 5 * 32; }

std::vector<std::uint8_t> write_c1_bincode(const C1Output& c1) {
  const std::size_t size = c1_bincode_size(c1);
  formats::BincodeWriter w(size);
  formats::bincode_write(w, c1.vanilla_proofs);
  for (const Bytes32* b : {&c1.comm_r, &c1.comm_d, &c1.replica_id, &c1.seed, &c1.ticket}) formats::bincode_write(w, *b);
  if (w.pos() != size) throw std::logic_error("c1 bincode: size mismatch");
  return std::move(w).finish();
}

Result<std::string> infer_registered_proof(const C1Output& c1) {
  if (c1.vanilla_proofs.empty() || c1.vanilla_proofs[0].empty())
    return Error{"cannot infer the registered proof: no challenge proofs"};
  const VanillaMerkleProof& d = c1.vanilla_proofs[0][0].comm_d_proofs;
  const std::size_t levels = d.base.size() + d.sub.size() + d.top.size();
  if (levels >= 40) return Error{"cannot infer the registered proof: tree D has " + std::to_string(levels) + " levels"};
  const std::uint64_t nodes = std::uint64_t(1) << levels;
  const PorepConfig* v11 = nullptr;
  const PorepConfig* ni = nullptr;
  for (const PorepConfig& c : all_porep_configs()) {
    if (c.nodes != nodes) continue;
    if (c.variant == PorepVariant::kV1_1) v11 = &c;
    if (c.variant == PorepVariant::kNonInteractive) ni = &c;
  }
  if (v11 == nullptr)
    return Error{"cannot infer the registered proof: tree D depth " + std::to_string(levels) +
                 " (vanilla_proofs[0][0].comm_d_proofs) matches no sector size"};
  if (ni != nullptr && c1.vanilla_proofs.size() == ni->partitions && ni->partitions != v11->partitions) return ni->name;
  return v11->name;
}

Result<C1Output> parse_c1_bincode(std::span<const std::uint8_t> bytes, std::string registered_proof_for_shape,
                                  std::uint64_t sector_size) {
  if (!registered_proof_for_shape.empty()) {
    const PorepConfig* known = nullptr;
    for (const PorepConfig& c : all_porep_configs())
      if (c.name == registered_proof_for_shape) known = &c;
    if (known == nullptr) return Error{"bincode: unknown registered proof '" + registered_proof_for_shape + "'"};
    sector_size = known->sector_size;
  }
  const C1Limits limits(sector_size);  // 0: the maxima over every registered proof
  C1Output out;
  formats::BincodeReader r(bytes);
  r.limits = &limits;
  if (!read_c1(r, out)) return Error{std::move(r.err)};
  if (registered_proof_for_shape.empty()) {
    auto inferred = infer_registered_proof(out);
    if (!inferred) return Error{"bincode: " + inferred.error()};
    registered_proof_for_shape = std::move(inferred.value());
  }
  out.registered_proof = std::move(registered_proof_for_shape);
  out.vanilla_key = vanilla_key_for(out.registered_proof);
  return out;
}

}  // namespace cuzk::filecoin::porep
