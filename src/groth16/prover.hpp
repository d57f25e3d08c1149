// The Groth16 prover, split at the backend seam (docs/DESIGN.md):
//   Backend::start(shape, witness, key) -> PendingProof   the heavy part: a,b,c, H by NTTs, five MSMs
//   finish(pending, key, r, s)          -> Proof          cheap assembly with the blinding factors
// The CPU and CUDA backends implement start(); finish() is shared, so r and s enter in one place and
// tests can inject them.
//
// A backend that proves from memory of its own (the GPU's) makes its copy of a key with upload() and
// is handed it back at every start(key, copy): the copy belongs to whoever owns the key (the daemon's
// SrsManager keeps one per device, engine/srs_manager.hpp), never to a cache inside the backend.
#pragma once

#include <cstdint>
#include <functional>
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

// A backend's copy of one proving key and its circuit's shape, made by Backend::upload(): in device
// memory, or in pinned host memory streamed to the device at each proof. It may change its form
// while proving (fewer H copies, or streamed, when the device runs short: the backend says so in
// notes()), and stays valid while its owner keeps it, whatever backend instance made it.
class KeyCopy {
 public:
  virtual ~KeyCopy() = default;
  virtual std::uint64_t device_bytes() const = 0;
  virtual std::uint64_t host_bytes() const = 0;  // pinned host memory (a streamed key)
  virtual bool streamed() const = 0;
  // Streamed, with part of the bases read from the key's file at each proof (gpus.key_residency =
  // "file"): host_bytes() is then what stays pinned.
  virtual bool from_file() const { return false; }
  // Why it took this form, for the operator (/status): "resident: ... fit in ... free", "streamed: ...".
  virtual std::string reason() const { return {}; }
  virtual int device() const = 0;  // the ordinal it lives on
  // How it was made, for the operator's log ("resident, 3 H copies; shape 2.1 s, bases 6.0 s, ...").
  virtual std::string summary() const { return {}; }
};

// Charges pinned host memory to the caller's budget before a copy allocates it; the token is held by
// the copy while it holds that memory. An error fails the upload (or the switch to streaming) with
// its message. Unset: nothing is charged.
using HostCharge = std::function<Result<std::shared_ptr<void>>(std::uint64_t bytes)>;

// The form a backend's copy of a key is asked to take when the engine planned it across keys
// (engine/key_tiers.hpp). kAny: the backend decides alone (its own settings and free memory).
enum class CopyForm : std::uint8_t { kAny, kResident, kPinned, kFile };
const char* copy_form_name(CopyForm f);  // "any", "resident", "pinned", "file"
struct CopyRequest {
  CopyForm form = CopyForm::kAny;
  std::string reason;  // why, for the copy's reason() (/status) and the log
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // This backend's copy of `key` (and `shape`, when given), or a null pointer for a backend that
  // proves from host memory (the CPU backend: the default). The key may be held without its bases
  // (ProvingKey::source): they are then read from its source in bounded pieces.
  virtual Result<std::shared_ptr<KeyCopy>> upload(const ProvingKey& key, const R1csShape* shape,
                                                  const HostCharge& charge);
  // upload() in a planned form: a backend with several forms takes the asked one where its own
  // settings leave it the choice (gpus.key_residency = "auto"), with the request's reason; one that
  // runs out of device memory still falls back as it would alone. The default ignores the request.
  virtual Result<std::shared_ptr<KeyCopy>> upload_planned(const ProvingKey& key, const R1csShape* shape,
                                                          const HostCharge& charge, const CopyRequest& request);
  // start() with a copy from upload() (of this kind of backend, on this backend's device); the key
  // and shape are the ones it was made from. The default ignores the copy.
  virtual Result<PendingProof> start(const R1csShape& shape, std::span<const Fr> w, const ProvingKey& key,
                                     KeyCopy& copy);
  virtual Result<PendingProof> start(const R1csShape& shape, const CompactAssignment& w, const ProvingKey& key,
                                     KeyCopy& copy);
  // w is the full assignment: w[0] = 1, then the other inputs, then aux (size key.num_inputs + num_aux).
  virtual Result<PendingProof> start(const R1csShape& shape, std::span<const Fr> w, const ProvingKey& key) = 0;
  // The same proof from the compact form (binary aux as bits). The default checks it and expands it
  // to the dense assignment on the host (what the CPU backend does); the CUDA backend uploads the
  // compact form and expands it on the device. The PendingProof is identical either way.
  virtual Result<PendingProof> start(const R1csShape& shape, const CompactAssignment& w, const ProvingKey& key);

  // Cooperative cancellation of the start() calls that follow: a backend checks it between its
  // transforms and MSMs and then returns Error{"cancelled"}, so that a cancelled job gives back its
  // memory and worker within one step. Unset (the default): never cancelled. A backend instance has
  // one caller (an engine worker), which sets it around each call.
  void set_cancel(std::function<bool()> cancelled) { cancel_ = std::move(cancelled); }

 protected:
  // The current check, never empty (for code that runs it often).
  std::function<bool()> cancel_check() const {
    if (!cancel_) return [] { return false; };
    return cancel_;
  }

 private:
  std::function<bool()> cancel_;
};

std::unique_ptr<Backend> make_cpu_backend();

// For tools that prove many partitions of one key outside the engine: `backend` with its copy of
// `key` made once (upload()), used by every start() with that key; other keys are proved plainly.
Result<std::unique_ptr<Backend>> with_copy(std::unique_ptr<Backend> backend, const ProvingKey& key,
                                           const R1csShape* shape);

Proof finish(const PendingProof& pending, const ProvingKey& key, const ProofRandomness& rs);

// Checks that shape, witness and key belong together before any heavy work; names the mismatch.
Status check_prover_inputs(const R1csShape& shape, std::span<const Fr> w, const ProvingKey& key);
// The same for a compact witness: also CompactAssignment::check() (counts agree with the bitmaps).
Status check_prover_inputs(const R1csShape& shape, const CompactAssignment& w, const ProvingKey& key);

// The H scalars for the key's basis, from the row evaluations (exposed for tests and the GPU backend).
// `cancelled` is checked between the transforms; once it says true the result is empty.
std::vector<Fr> compute_h_scalars(RowEvaluations ev, const ProvingKey& key,
                                  const std::function<bool()>& cancelled = {});

}  // namespace cuzk::groth16
