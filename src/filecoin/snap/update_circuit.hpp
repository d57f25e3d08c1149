// The EmptySectorUpdate circuit, 16-partition variant (storage-proofs-update circuit.rs
// EmptySectorUpdateCircuit::synthesize), over the constraint system, in bellperson's allocation and
// row order (post-snap.md §4.2). Partition k:
//
//   prefix     aux k_and_h_select + inputize; pb + 6 AllocatedBits and the row (Σ 2^i b_i)·1 =
//              k_and_h_select; partition = pack_bits(partition bits); aux + inputize comm_r_old,
//              comm_d_new, comm_r_new; φ = Hc(comm_d_new, comm_r_old); aux comm_c, root_r_old,
//              root_r_new, the A apex leaves, the pb partition-path siblings; Poseidon2(comm_c, root)
//              = comm_r for old and new; apex_por; gen_challenge_bits (update_gadgets.hpp)
//   challenge  c_bits = its rb generated bits ‖ partition bits (LSB first); c_high and ρ = Hc(φ,
//              c_high); aux leaf_r_old, leaf_d_new; label_r_new; tree R old siblings + PoR to
//              root_r_old; tree R new siblings + PoR of the label to root_r_new; the apex leaf selected
//              by c_bits[cb−pb−ab .. cb−pb] (MSB first); tree D siblings below the apex + PoR to it
//
// Every index bit comes from the in-circuit challenge, never from the vanilla paths. The challenge
// blocks all have one shape (the gadgets never branch on values), and a block reads only the prefix's
// variables, which is what lets the witness builder run blocks on separate threads. Rows: 2 KiB
// 1,705,039; 32 GiB 81,049,499 = 951 + 5,944,658 apex + 5,680 challenge bits + 86 × 873,235.
#pragma once

#include <vector>

#include "filecoin/snap/circuit_values.hpp"
#include "filecoin/snap/update_gadgets.hpp"

namespace cuzk::filecoin::snap {

// What every challenge block reads from the prefix.
struct UpdatePrefix {
  AllocatedNum phi, root_r_old, root_r_new, comm_d_new;
  std::vector<AllocatedNum> apex_leafs;
  std::vector<AllocatedBit> partition_bits, h_select_bits;
  std::vector<std::vector<AllocatedBit>> generated_bits;  // per challenge, rb bits
};

template <class CS>
UpdatePrefix synthesize_update_prefix(CS& cs, const SnapGeometry& g, const PartitionValues& v) {
  using LC = typename CS::LC;
  UpdatePrefix p;
  const std::size_t pb = g.partition_bits, nh = g.hs.size();
  const Fr khs = Fr::from_u64(g.k_and_h_select(v.k));
  AllocatedNum k_and_h_select;
  {
    auto n = cs.ns("k_and_h_select");
    k_and_h_select = circuit::alloc_num(cs, khs);
  }
  {
    auto n = cs.ns("k_and_h_select (public input)");
    circuit::inputize(cs, k_and_h_select);
  }
  {
    const std::uint64_t bits = g.k_and_h_select(v.k);
    std::vector<AllocatedBit> kh;
    for (std::size_t i = 0; i < pb + nh; ++i) {
      auto n = cs.ns(Name("k_and_h_select_bit", std::int64_t(i)));
      kh.push_back(circuit::alloc_bit(cs, (bits >> i) & 1));
    }
    LC lc;
    if constexpr (LC::kActive) {
      Fr coeff = Fr::one();
      for (const auto& b : kh) {
        lc.add(b.var, coeff);
        coeff = coeff.dbl();
      }
    }
    cs.enforce("k_and_h_select binary decomp", lc, LC(Var::one()), LC(k_and_h_select.var));
    p.partition_bits.assign(kh.begin(), kh.begin() + std::ptrdiff_t(pb));
    p.h_select_bits.assign(kh.begin() + std::ptrdiff_t(pb), kh.end());
  }
  AllocatedNum partition;
  {
    auto n = cs.ns("pack partition bits");
    const auto bits = booleans(p.partition_bits);
    partition = circuit::pack_bits(cs, std::span<const Boolean>(bits));
  }
  const AllocatedNum comm_r_old = alloc_public_num(cs, "comm_r_old", "comm_r_old_input", v.comm_r_old);
  p.comm_d_new = alloc_public_num(cs, "comm_d_new", "comm_d_new_input", v.comm_d_new);
  const AllocatedNum comm_r_new = alloc_public_num(cs, "comm_r_new", "comm_r_new_input", v.comm_r_new);
  {
    auto n = cs.ns("phi");
    p.phi = gen_randomness_circuit(cs, p.comm_d_new, comm_r_old);
  }
  const AllocatedNum comm_c = alloc_private_num(cs, "comm_c", v.comm_c);
  p.root_r_old = alloc_private_num(cs, "root_r_old", v.root_r_old);
  p.root_r_new = alloc_private_num(cs, "root_r_new", v.root_r_new);
  for (std::size_t i = 0; i < v.apex_leafs.size(); ++i)
    p.apex_leafs.push_back(alloc_private_num(cs, Name("apex_leaf", std::int64_t(i)), v.apex_leafs[i]));
  std::vector<std::vector<AllocatedNum>> partition_path;
  for (std::size_t i = 0; i < v.partition_path.size(); ++i)
    partition_path.push_back(
        {alloc_private_num(cs, Name("partition_path_sibling", std::int64_t(i)), v.partition_path[i])});
  enforce_comm_r(cs, "comm_r_old_calc", "enforce comm_r_old_calc == comm_r_old", comm_c, p.root_r_old, comm_r_old);
  enforce_comm_r(cs, "comm_r_new_calc", "enforce comm_r_new_calc == comm_r_new", comm_c, p.root_r_new, comm_r_new);
  {
    auto n = cs.ns("apex_gadget");
    apex_por(cs, p.apex_leafs, p.partition_bits, partition_path, p.comm_d_new);
  }
  {
    auto n = cs.ns("gen_challenge_bits");
    p.generated_bits = gen_challenge_bits(cs, comm_r_new, partition, g.challenge_count, g.random_bits);
  }
  return p;
}

template <class CS>
void synthesize_update_challenge(CS& cs, const SnapGeometry& g, const PartitionValues& v, const UpdatePrefix& p,
                                 std::size_t i) {
  const ChallengeValues& cv = v.challenges[i];
  const std::int64_t ci = std::int64_t(i);
  std::vector<AllocatedBit> c_bits = p.generated_bits[i];
  c_bits.insert(c_bits.end(), p.partition_bits.begin(), p.partition_bits.end());
  AllocatedNum c_high, rho;
  {
    auto n = cs.ns(Name("get_challenge_high_bits (c_index)", ci));
    c_high = get_challenge_high_bits(cs, c_bits, p.h_select_bits, g.hs);
  }
  {
    auto n = cs.ns(Name("rho (c_index)", ci));
    rho = gen_randomness_circuit(cs, p.phi, c_high);
  }
  AllocatedNum leaf_r_old, leaf_d_new, leaf_r_new;
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
  const std::vector<Boolean> bits = booleans(c_bits);
  const std::size_t levels_r = g.tree_r_levels();
  {
    auto path = alloc_path(cs, cv.path_r_old, levels_r);
    auto n = cs.ns(Name("por tree_r_old (c_index)", ci));
    circuit::por_no_challenge_input(cs, g.tree_r, bits, leaf_r_old, path, p.root_r_old);
  }
  {
    auto path = alloc_path(cs, cv.path_r_new, levels_r);
    auto n = cs.ns(Name("por tree_r_new (c_index)", ci));
    circuit::por_no_challenge_input(cs, g.tree_r, bits, leaf_r_new, path, p.root_r_new);
  }
  const std::size_t to_apex = g.apex_level();
  AllocatedNum apex_leaf;
  {
    auto n = cs.ns(Name("select_apex_leaf (c_index)", ci));
    apex_leaf = circuit::select(cs, std::span<const AllocatedNum>(p.apex_leafs),
                                std::span<const Boolean>(bits).subspan(to_apex, g.apex_bits));
  }
  auto path = alloc_path(cs, cv.path_d_new, to_apex);
  auto n = cs.ns(Name("por to_apex_leaf (c_index)", ci));
  circuit::por_no_challenge_input(cs, tree_d_shape(to_apex), std::span<const Boolean>(bits).first(to_apex), leaf_d_new,
                                  path, apex_leaf);
}

template <class CS>
void synthesize_update_circuit(CS& cs, const SnapGeometry& g, const PartitionValues& v) {
  const UpdatePrefix p = synthesize_update_prefix(cs, g, v);
  for (std::size_t i = 0; i < g.challenge_count; ++i) synthesize_update_challenge(cs, g, v, p, i);
}

}  // namespace cuzk::filecoin::snap
