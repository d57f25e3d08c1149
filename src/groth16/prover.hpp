// The Groth16 prover, split at the backend seam (docs/DESIGN.md):
//   Backend::start(shape, witness, key) -> PendingProof   the heavy part: a,b,c, H by NTTs, five MSMs
//   finish(pending, key, r, s)          -> Proof          cheap assembly with the blinding factors
// The CPU and CUDA backends implement start(); finish() is shared, so r and s enter in one place and
// tests can inject them.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "base/result.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/witness.hpp"

namespace cuzk::groth16 {

// The MSM results a backend hands to finish(): everything that depends on the witness.
struct PendingProof {
  math::G1Jacobian a_acc;   // sum over the A query
  math::G1Jacobian b1_acc;  // sum over the B query in G1
  math::G2Jacobian b2_acc;  // sum over the B query in G2
  math::G1Jacobian h_acc;   // quotient term
  math::G1Jacobian l_acc;   // aux term
};

struct ProofRandomness {
  Fr r, s;
  static ProofRandomness random();  // from the OS entropy source
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // w is the full assignment: w[0] = 1, then the other inputs, then aux (size key.num_inputs + num_aux).
  virtual Result<PendingProof> start(const R1csShape& shape, std::span<const Fr> w, const ProvingKey& key) = 0;
  // The same proof from the compact form (binary aux as bits). The default checks it and expands it
  // to the dense assignment on the host (what the CPU backend does); the CUDA backend uploads the
  // compact form and expands it on the device. The PendingProof is identical either way.
  virtual Result<PendingProof> start(const R1csShape& shape, const CompactAssignment& w, const ProvingKey& key);
};

std::unique_ptr<Backend> make_cpu_backend();

Proof finish(const PendingProof& pending, const ProvingKey& key, const ProofRandomness& rs);

// Checks that shape, witness and key belong together before any heavy work; names the mismatch.
Status check_prover_inputs(const R1csShape& shape, std::span<const Fr> w, const ProvingKey& key);
// The same for a compact witness: also CompactAssignment::check() (counts agree with the bitmaps).
Status check_prover_inputs(const R1csShape& shape, const CompactAssignment& w, const ProvingKey& key);

// The H scalars for the key's basis, from the row evaluations (exposed for tests and the GPU backend).
std::vector<Fr> compute_h_scalars(RowEvaluations ev, const ProvingKey& key);

}  // namespace cuzk::groth16
