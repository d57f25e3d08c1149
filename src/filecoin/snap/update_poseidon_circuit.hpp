// The EmptySectorUpdate-Poseidon circuit (storage-proofs-update poseidon/circuit.rs, marked "NOT
// AUDITED" upstream; post-snap.md §4.3): one partition, no apex. Differences from update_circuit.hpp:
// the first public input is h_select (6 bits and their decomposition row, no partition bits); after
// the two comm_r checks an aux `partition` = 0 is allocated with no constraint (it feeds the
// digest-index rows); C·P challenges of cb generated bits; and each challenge's new data leaf is
// proved by a tree-R-shaped Poseidon path to the comm_d_new input (comm_d_new is then a Poseidon
// root, not the on-chain SHA CommD). No registered proof requests this variant: the library and the
// tool (`--poseidon`) reach it. Rows: 1 KiB 32,164; 8 KiB 47,974; 32 GiB 22,305,906.
#pragma once

#include "filecoin/snap/circuit_values.hpp"
#include "filecoin/snap/update_gadgets.hpp"

namespace cuzk::filecoin::snap {

template <class CS>
void synthesize_update_poseidon_circuit(CS& cs, const SnapGeometry& g, const PartitionValues& v) {
  using LC = typename CS::LC;
  const std::size_t nh = g.hs.size();
  AllocatedNum h_select;
  {
    auto n = cs.ns("h_select");
    h_select = circuit::alloc_num(cs, Fr::from_u64(g.h_select));
  }
  {
    auto n = cs.ns("h_select (public input)");
    circuit::inputize(cs, h_select);
  }
  std::vector<AllocatedBit> h_select_bits;
  {
    LC lc;
    Fr coeff = Fr::one();
    for (std::size_t i = 0; i < nh; ++i) {
      auto n = cs.ns(Name("h_select_bit", std::int64_t(i)));
      h_select_bits.push_back(circuit::alloc_bit(cs, (g.h_select >> i) & 1));
      if constexpr (LC::kActive) {
        lc.add(h_select_bits.back().var, coeff);
        coeff = coeff.dbl();
      }
    }
    cs.enforce("h_select binary decomp", lc, LC(Var::one()), LC(h_select.var));
  }
  const AllocatedNum comm_r_old = alloc_public_num(cs, "comm_r_old", "comm_r_old_input", v.comm_r_old);
  const AllocatedNum comm_d_new = alloc_public_num(cs, "comm_d_new", "comm_d_new_input", v.comm_d_new);
  const AllocatedNum comm_r_new = alloc_public_num(cs, "comm_r_new", "comm_r_new_input", v.comm_r_new);
  AllocatedNum phi;
  {
    auto n = cs.ns("phi");
    phi = gen_randomness_circuit(cs, comm_d_new, comm_r_old);
  }
  const AllocatedNum comm_c = alloc_private_num(cs, "comm_c", v.comm_c);
  const AllocatedNum root_r_old = alloc_private_num(cs, "root_r_old", v.root_r_old);
  const AllocatedNum root_r_new = alloc_private_num(cs, "root_r_new", v.root_r_new);
  enforce_comm_r(cs, "comm_r_old_calc", "enforce comm_r_old_calc == comm_r_old", comm_c, root_r_old, comm_r_old);
  enforce_comm_r(cs, "comm_r_new_calc", "enforce comm_r_new_calc == comm_r_new", comm_c, root_r_new, comm_r_new);
  const AllocatedNum partition = alloc_private_num(cs, "gen_challenge_bits partition zero", Fr::zero());
  std::vector<std::vector<AllocatedBit>> generated;
  {
    auto n = cs.ns("gen_challenge_bits");
    generated = gen_challenge_bits(cs, comm_r_new, partition, g.challenge_count, g.challenge_bits);
  }
  const std::size_t levels = g.tree_r_levels();
  for (std::size_t i = 0; i < g.challenge_count; ++i) {
    const ChallengeValues& cv = v.challenges[i];
    const std::int64_t ci = std::int64_t(i);
    AllocatedNum c_high, rho, leaf_r_old, leaf_d_new, leaf_r_new;
    {
      auto n = cs.ns(Name("get_challenge_high_bits (c_index)", ci));
      c_high = get_challenge_high_bits(cs, generated[i], h_select_bits, g.hs);
    }
    {
      auto n = cs.ns(Name("rho (c_index)", ci));
      rho = gen_randomness_circuit(cs, phi, c_high);
    }
    {
      auto n = cs.ns(Name("leaf_r_old (c_index)", ci));
      leaf_r_old = circuit::alloc_num(cs, cv.leaf_r_old);
    }
    {
      auto n = cs.ns(Name("leaf_d_new (c_index)", ci));
      leaf_d_new = circuit::alloc_num(cs, cv.leaf_d_new);
    }
    {
      auto n = cs.ns(Name("leaf_r_new (c_index)", ci));
      leaf_r_new = label_r_new(cs, leaf_r_old, leaf_d_new, rho);
    }
    const std::vector<Boolean> bits = booleans(generated[i]);
    struct Por {
      const char* name;
      const circuit::MerkleProof* path;
      const AllocatedNum* leaf;
      const AllocatedNum* root;
    };
    for (const Por& por : {Por{"por tree_r_old (c_index)", &cv.path_r_old, &leaf_r_old, &root_r_old},
                           Por{"por tree_r_new (c_index)", &cv.path_r_new, &leaf_r_new, &root_r_new},
                           Por{"por tree_d_new (c_index)", &cv.path_d_new, &leaf_d_new, &comm_d_new}}) {
      auto path = alloc_path(cs, *por.path, levels);
      auto n = cs.ns(Name(por.name, ci));
      circuit::por_no_challenge_input(cs, g.tree_r, bits, *por.leaf, path, *por.root);
    }
  }
}

}  // namespace cuzk::filecoin::snap
