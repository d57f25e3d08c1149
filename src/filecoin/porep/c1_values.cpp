#include "filecoin/porep/c1_values.hpp"

namespace cuzk::filecoin::porep {
namespace {

Result<porep::ColumnOpening> to_column(const porep::ColumnProof& c, std::size_t layers,
                                       std::span<const std::size_t> arities, const std::string& where) {
  if (c.rows.size() != layers)
    return Error{where + ".column.rows: " + std::to_string(c.rows.size()) + " rows, expected " +
                 std::to_string(layers)};
  porep::ColumnOpening out;
  for (std::size_t l = 0; l < layers; ++l) {
    auto v = fr_from_bytes32(c.rows[l], where + ".column.rows[" + std::to_string(l) + "]");
    if (!v) return Error{v.error()};
    out.rows.push_back(*v);
  }
  auto path = to_circuit_path(c.inclusion_proof, arities, where + ".inclusion_proof");
  if (!path) return Error{path.error()};
  out.path = std::move(*path);
  return out;
}

}  // namespace

Result<porep::StackedPartitionValues> partition_values(const porep::C1Output& c1, const porep::PorepConfig& config,
                                                       std::size_t partition) {
  if (partition >= c1.vanilla_proofs.size())
    return Error{"vanilla_proofs: no partition " + std::to_string(partition) + " (the C1 has " +
                 std::to_string(c1.vanilla_proofs.size()) + ")"};
  const auto& proofs = c1.vanilla_proofs[partition];
  const std::string base = "vanilla_proofs." + c1.vanilla_key + "[" + std::to_string(partition) + "]";
  if (proofs.size() != config.challenges_per_partition)
    return Error{base + ": " + std::to_string(proofs.size()) + " challenge proofs, expected " +
                 std::to_string(config.challenges_per_partition)};
  const auto d_arities = config.tree_d_shape().level_arities();
  const auto rc_arities = config.tree_rc_shape().level_arities();

  porep::StackedPartitionValues v;
  auto top = [&](const Bytes32& b, const std::string& name, math::Fr& out) -> Status {
    auto x = fr_from_bytes32(b, name);
    if (!x) return Error{x.error()};
    out = *x;
    return ok_status();
  };
  if (auto st = top(c1.replica_id, "replica_id", v.replica_id); !st) return Error{st.error()};
  if (auto st = top(c1.comm_d, "comm_d", v.comm_d); !st) return Error{st.error()};
  if (auto st = top(c1.comm_r, "comm_r", v.comm_r); !st) return Error{st.error()};
  // All proofs of a partition open the same trees; the circuit takes the roots from the first one.
  if (proofs.empty()) return Error{base + ": no challenge proofs"};
  if (auto st = top(proofs[0].comm_r_last_proof.root, base + "[0].comm_r_last_proof.root", v.comm_r_last); !st)
    return Error{st.error()};
  if (auto st = top(proofs[0].c_x.inclusion_proof.root, base + "[0].replica_column_proofs.c_x.inclusion_proof.root",
                    v.comm_c);
      !st)
    return Error{st.error()};

  for (std::size_t i = 0; i < proofs.size(); ++i) {
    const auto& p = proofs[i];
    const std::string at = base + "[" + std::to_string(i) + "]";
    porep::ChallengeValues ch;
    if (p.labeling_proofs.empty()) return Error{at + ".labeling_proofs: empty"};
    ch.challenge = p.labeling_proofs[0].node;
    auto d = to_circuit_path(p.comm_d_proofs, d_arities, at + ".comm_d_proofs");
    if (!d) return Error{d.error()};
    ch.data_leaf = d->leaf;
    ch.comm_d_path = std::move(*d);
    const std::string cols = at + ".replica_column_proofs";
    if (p.drg_parents.size() != porep::kDrgParents || p.exp_parents.size() != porep::kExpanderParents)
      return Error{cols + ": expected 6 drg_parents and 8 exp_parents"};
    for (std::size_t k = 0; k < p.drg_parents.size(); ++k) {
      auto c = to_column(p.drg_parents[k], config.layers, rc_arities, cols + ".drg_parents[" + std::to_string(k) + "]");
      if (!c) return Error{c.error()};
      ch.drg_parents.push_back(std::move(*c));
    }
    for (std::size_t k = 0; k < p.exp_parents.size(); ++k) {
      auto c = to_column(p.exp_parents[k], config.layers, rc_arities, cols + ".exp_parents[" + std::to_string(k) + "]");
      if (!c) return Error{c.error()};
      ch.exp_parents.push_back(std::move(*c));
    }
    auto r = to_circuit_path(p.comm_r_last_proof, rc_arities, at + ".comm_r_last_proof");
    if (!r) return Error{r.error()};
    ch.comm_r_last_path = std::move(*r);
    auto c = to_circuit_path(p.c_x.inclusion_proof, rc_arities, cols + ".c_x.inclusion_proof");
    if (!c) return Error{c.error()};
    ch.comm_c_path = std::move(*c);
    v.challenges.push_back(std::move(ch));
  }
  return v;
}

}  // namespace cuzk::filecoin::porep
