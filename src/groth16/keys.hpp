// Groth16 keys in the in-memory form the prover uses: affine points in Montgomery form, query vectors
// density-compressed exactly as bellperson's parameter files store them (filecoin-formats.md 1.2):
//   a    = [A_i for every input] ++ [A_j for aux j with a_aux_density]
//   b_g1 = [B_i for inputs with b_input_density] ++ [B_j for aux with b_aux_density]   (b_g2 alike)
//   l    = one point per aux variable; ic = one point per input (ONE included)
// Two H bases exist: bellperson's tau^i t(tau)/delta (i < m-1, the quotient's coefficients are the
// scalars) and snarkjs' odd-coset Lagrange points of the 2n domain (the evaluations of a*b-c on the
// odd coset are the scalars, no division by Z) — see peers-and-deps.md 3d.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/huge_vector.hpp"
#include "base/result.hpp"
#include "math/ec/bls12_381.hpp"

namespace cuzk::groth16 {

using math::G1Affine;
using math::G2Affine;

struct VerifyingKey {
  G1Affine alpha_g1, beta_g1;
  G2Affine beta_g2, gamma_g2;
  G1Affine delta_g1;
  G2Affine delta_g2;
  std::vector<G1Affine> ic;  // one per input, ONE first

  std::size_t num_public_inputs() const { return ic.empty() ? 0 : ic.size() - 1; }  // excluding ONE
};

enum class HBasis : std::uint8_t {
  kMonomialOverZ,     // bellperson / Filecoin .params
  kOddCosetLagrange,  // snarkjs .zkey
};

// Bitset with the population count cached; used for the query densities.
struct Density {
  std::vector<bool> bits;
  std::size_t popcount = 0;
  static Density from_bits(std::vector<bool> b) {
    Density d;
    d.popcount = 0;
    for (bool x : b) d.popcount += x;
    d.bits = std::move(b);
    return d;
  }
  static Density all(std::size_t n) { return from_bits(std::vector<bool>(n, true)); }
};

// The five base queries of a proving key.
enum class Query : std::uint8_t { kH, kL, kA, kBG1, kBG2 };
const char* query_name(Query q);  // "h", "l", "a", "b_g1", "b_g2"

// Where the bases of a key held without them come from: ranges decoded on demand from the key's file
// (a mapped .params; formats/bellperson/params.hpp). A GPU proves from its own copy of the bases, so
// the host keeps only this (issue 27: the decoded 32 GiB PoRep key is 45 GB). Thread-safe; an error
// names the file, the query and the point.
class BaseSource {
 public:
  virtual ~BaseSource() = default;
  virtual std::size_t size(Query q) const = 0;
  // Bases [first, first + out.size()) of a G1 query (not kBG2), resp. of B_G2. Pages of the file
  // that were read are given back afterwards (they stay in the page cache, not in this process).
  virtual Status read(Query q, std::size_t first, std::span<G1Affine> out) const = 0;
  virtual Status read_b_g2(std::size_t first, std::span<G2Affine> out) const = 0;
};

struct ProvingKey {
  VerifyingKey vk;
  HBasis h_basis = HBasis::kMonomialOverZ;
  std::uint32_t num_inputs = 0;  // including ONE
  std::uint32_t num_aux = 0;
  std::uint32_t domain_log2 = 0;  // m = 2^domain_log2 rows (padded)
  Density a_aux_density, b_input_density, b_aux_density;
  // Gigabytes each for real circuits: HugeVector (base/huge_vector.hpp) is filled in parallel.
  HugeVector<G1Affine> h, l, a, b_g1;
  HugeVector<G2Affine> b_g2;
  // Set when the bases are not held (the vectors above are then empty): they are read from here.
  std::shared_ptr<const BaseSource> source;

  std::size_t domain_size() const { return std::size_t(1) << domain_log2; }
  bool holds_bases() const { return source == nullptr; }
  // The length of a query, from the counts and densities (equal to the vector's when bases are held).
  std::size_t query_size(Query q) const;
  // Checks that every vector length (or the source's) agrees with the counts and densities; names
  // the first mismatch.
  Status check_consistency() const;
  // Decodes every base from `source` into the vectors and drops the source (for a backend that
  // proves from host memory). A no-op when the bases are held.
  Status load_bases();
};

}  // namespace cuzk::groth16
