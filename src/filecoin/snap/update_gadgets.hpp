// The EmptySectorUpdate gadgets (storage-proofs-update gadgets.rs), over the constraint-system
// concept, in bellperson's allocation and row order (post-snap.md §4.2 steps 11–12):
//
//   allocated_num_to_allocated_bits   255 AllocatedBits LSB first, then the row (Σ 2^i b_i)·1 = num —
//                                     not to_bits_le's 0·0 = Σ − num (pitfall 12): 256 rows
//   gen_challenge_bits                per digest j: aux digest_index = k·dpp + j, row
//                                     (dpp·partition + j·ONE)·1 = digest_index (for j = 0 the ONE term
//                                     has coefficient 0 and drops out when the row is stored, as
//                                     bellperson's density trackers skip it), digest = Hc(comm_r_new,
//                                     digest_index) (311), its bits (256): 568 rows per digest; the
//                                     challenges are consecutive rb-bit chunks
//   get_challenge_high_bits           for each of the 6 h: pack_bits(c_bits[cb−h ..]), aux
//                                     c_high_or_zero, row c_high·h_select_bit = c_high_or_zero; aux
//                                     c_high_selected, row (Σ c_high_or_zero)·1 = c_high_selected: 13 rows
//   label_r_new                       product = leaf_d_new·ρ (aux + row), aux label, row
//                                     (leaf_r_old + product)·1 = label: 2 rows
//   apex_por                          the apex tree row by row (SHA hash2), then the partition path
//                                     (por_no_challenge_input over tree D with the partition bits)
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "circuit/constraint_system.hpp"
#include "circuit/gadgets/multipack.hpp"
#include "circuit/gadgets/num.hpp"
#include "circuit/gadgets/por.hpp"
#include "circuit/gadgets/poseidon.hpp"
#include "circuit/gadgets/sha256.hpp"
#include "filecoin/snap/challenges.hpp"

namespace cuzk::filecoin::snap {

using circuit::AllocatedBit;
using circuit::AllocatedNum;
using circuit::Boolean;
using circuit::Name;
using circuit::Var;

// Tree D: binary SHA-256 (filecoin-hashers Sha256Hasher), `levels` levels.
inline circuit::TreeShape tree_d_shape(std::size_t levels) {
  circuit::TreeShape s;
  s.hash = circuit::TreeHash::kSha256;
  s.base_arity = 2;
  s.base_levels = levels;
  return s;
}

template <class CS>
AllocatedNum gen_randomness_circuit(CS& cs, const AllocatedNum& a, const AllocatedNum& b) {
  const AllocatedNum pre[2] = {a, b};
  return circuit::poseidon_hash_circuit(cs, std::span<const AllocatedNum>(pre, 2), gen_randomness_constants());
}

template <class CS>
std::vector<AllocatedBit> allocated_num_to_allocated_bits(CS& cs, const AllocatedNum& num) {
  using LC = typename CS::LC;
  std::vector<AllocatedBit> bits(255);
  circuit::field_into_allocated_bits_le(cs, num.value, std::span<AllocatedBit, 255>(bits.data(), 255));
  LC lc;
  if constexpr (LC::kActive) {
    Fr coeff = Fr::one();
    for (const auto& b : bits) {
      lc.add(b.var, coeff);
      coeff = coeff.dbl();
    }
  }
  cs.enforce("binary decomp", lc, LC(Var::one()), LC(num.var));
  return bits;
}

// `challenges` groups of `bits_per_challenge` generated bits (LSB first) for partition `partition`.
template <class CS>
std::vector<std::vector<AllocatedBit>> gen_challenge_bits(CS& cs, const AllocatedNum& comm_r_new,
                                                          const AllocatedNum& partition, std::size_t challenges,
                                                          std::size_t bits_per_challenge) {
  using LC = typename CS::LC;
  const std::size_t per_digest = circuit::kFrCapacity / bits_per_challenge;
  const std::size_t digests = (challenges + per_digest - 1) / per_digest;
  const Fr dpp = Fr::from_u64(digests);
  std::vector<std::vector<AllocatedBit>> out;
  out.reserve(challenges);
  for (std::size_t j = 0; j < digests; ++j) {
    AllocatedNum digest_index;
    {
      auto g = cs.ns(Name("digest_index", std::int64_t(j)));
      digest_index = circuit::alloc_num(cs, partition.value * dpp + Fr::from_u64(j));
    }
    {
      LC a;
      if constexpr (LC::kActive) {
        a.add(partition.var, dpp);
        a.add(Var::one(), Fr::from_u64(j));
      }
      cs.enforce(Name("digest_index == k * digests_per_partition + j", std::int64_t(j)), a, LC(Var::one()),
                 LC(digest_index.var));
    }
    AllocatedNum digest;
    {
      auto g = cs.ns(Name("digest", std::int64_t(j)));
      digest = gen_randomness_circuit(cs, comm_r_new, digest_index);
    }
    std::vector<AllocatedBit> bits;
    {
      auto g = cs.ns(Name("digest_bits", std::int64_t(j)));
      bits = allocated_num_to_allocated_bits(cs, digest);
    }
    const std::size_t take = j + 1 == digests ? challenges - out.size() : per_digest;
    for (std::size_t t = 0; t < take; ++t)
      out.emplace_back(bits.begin() + std::ptrdiff_t(t * bits_per_challenge),
                       bits.begin() + std::ptrdiff_t((t + 1) * bits_per_challenge));
  }
  return out;
}

template <class CS>
AllocatedNum get_challenge_high_bits(CS& cs, std::span<const AllocatedBit> c_bits,
                                     std::span<const AllocatedBit> h_select_bits, std::span<const std::size_t> hs) {
  using LC = typename CS::LC;
  const std::size_t n = c_bits.size();
  std::vector<Boolean> c(n);
  for (std::size_t i = 0; i < n; ++i) c[i] = Boolean::is(c_bits[i]);
  std::vector<AllocatedNum> or_zero;
  Fr sum = Fr::zero();
  for (std::size_t k = 0; k < hs.size(); ++k) {
    const std::size_t h = hs[k];
    AllocatedNum c_high;
    {
      auto g = cs.ns(Name("c_high (k)", std::int64_t(k)));
      c_high = circuit::pack_bits(cs, std::span<const Boolean>(c).subspan(n - h));
    }
    AllocatedNum z;
    {
      auto g = cs.ns(Name("c_high_or_zero (k)", std::int64_t(k)));
      z = circuit::alloc_num(cs, h_select_bits[k].value ? c_high.value : Fr::zero());
    }
    cs.enforce(Name("c_high_or_zero == c_high * h_select_bit", std::int64_t(k)), LC(c_high.var),
               LC(h_select_bits[k].var), LC(z.var));
    sum += z.value;
    or_zero.push_back(z);
  }
  AllocatedNum selected;
  {
    auto g = cs.ns("c_high_selected");
    selected = circuit::alloc_num(cs, sum);
  }
  LC a;
  if constexpr (LC::kActive)
    for (const auto& z : or_zero) a.add(z.var);
  cs.enforce("c_high_selected == dot(c_highs, h_select_bits)", a, LC(Var::one()), LC(selected.var));
  return selected;
}

template <class CS>
AllocatedNum label_r_new(CS& cs, const AllocatedNum& label_r_old, const AllocatedNum& label_d_new,
                         const AllocatedNum& rho) {
  using LC = typename CS::LC;
  AllocatedNum product;
  {
    auto g = cs.ns("label_d_new * rho");
    product = circuit::num_mul(cs, label_d_new, rho);
  }
  AllocatedNum label;
  {
    auto g = cs.ns("label_r_new");
    label = circuit::alloc_num(cs, label_r_old.value + product.value);
  }
  cs.enforce("label_r_new == label_r_old + label_d_new * rho", LC(label_r_old.var) + product.var, LC(Var::one()),
             LC(label.var));
  return label;
}

template <class CS>
void apex_por(CS& cs, std::span<const AllocatedNum> apex_leafs, std::span<const AllocatedBit> partition_bits,
              const std::vector<std::vector<AllocatedNum>>& partition_path, const AllocatedNum& comm_d) {
  std::vector<AllocatedNum> row(apex_leafs.begin(), apex_leafs.end());
  for (std::int64_t r = 0; row.size() > 1; ++r) {
    std::vector<AllocatedNum> next;
    for (std::size_t i = 0; i < row.size(); i += 2) {
      auto g = cs.ns(Name("apex_tree generation hash (tree_row, siblings)", r, std::int64_t(i / 2)));
      next.push_back(circuit::sha256_hash_multi_leaf(cs, std::span<const AllocatedNum>(&row[i], 2)));
    }
    row = std::move(next);
  }
  std::vector<Boolean> bits;
  for (const auto& b : partition_bits) bits.push_back(Boolean::is(b));
  auto g = cs.ns("partition-tree por");
  circuit::por_no_challenge_input(cs, tree_d_shape(partition_path.size()), bits, row[0], partition_path, comm_d);
}

// Allocates a path's siblings (per level, in order), as the circuits do before each PoR.
template <class CS>
std::vector<std::vector<AllocatedNum>> alloc_path(CS& cs, const circuit::MerkleProof& path, std::size_t levels) {
  std::vector<std::vector<AllocatedNum>> out(levels);
  for (std::size_t l = 0; l < levels; ++l) {
    for (std::size_t s = 0; s < path.siblings[l].size(); ++s) {
      auto g = cs.ns(Name("path sibling (tree_row, sibling_index)", std::int64_t(l), std::int64_t(s)));
      out[l].push_back(circuit::alloc_num(cs, path.siblings[l][s]));
    }
  }
  return out;
}

// aux `name` + inputize (under `input_name`): the circuits' public commitments.
template <class CS>
AllocatedNum alloc_public_num(CS& cs, const char* name, const char* input_name, const Fr& value) {
  AllocatedNum x;
  {
    auto n = cs.ns(name);
    x = circuit::alloc_num(cs, value);
  }
  auto n = cs.ns(input_name);
  circuit::inputize(cs, x);
  return x;
}

template <class CS>
AllocatedNum alloc_private_num(CS& cs, Name name, const Fr& value) {
  auto n = cs.ns(name);
  return circuit::alloc_num(cs, value);
}

// Poseidon2(MerkleTree tag)(comm_c, root) under `name`, then the row calc·1 = comm_r (`eq`).
template <class CS>
void enforce_comm_r(CS& cs, const char* name, const char* eq, const AllocatedNum& comm_c, const AllocatedNum& root,
                    const AllocatedNum& comm_r) {
  using LC = typename CS::LC;
  AllocatedNum calc;
  {
    auto n = cs.ns(name);
    const AllocatedNum pre[2] = {comm_c, root};
    calc = circuit::poseidon_hash_circuit(cs, std::span<const AllocatedNum>(pre, 2), circuit::poseidon_constants(2));
  }
  cs.enforce(eq, LC(calc.var), LC(Var::one()), LC(comm_r.var));
}

inline std::vector<Boolean> booleans(std::span<const AllocatedBit> bits) {
  std::vector<Boolean> out;
  out.reserve(bits.size());
  for (const auto& b : bits) out.push_back(Boolean::is(b));
  return out;
}

}  // namespace cuzk::filecoin::snap
