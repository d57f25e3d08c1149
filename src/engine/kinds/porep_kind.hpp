// PoRep C2 as a job kind: a C1 (Curio's wrapper JSON, raw C1 JSON or supraseal bincode) in
// `vanilla_proof`, config.partitions partition proofs of 192 bytes out. The steps are
// filecoin::porep::PorepJob's (filecoin/porep/porep_job.hpp); this kind only adds the key:
//
//   prepare     parse the C1, refuse it when the vanilla checks fail (the failed check named), acquire
//               porep-<size> from the SrsManager (the .params decoded into a proving key, with the
//               recorded partition shape), derive every partition's public inputs from the
//               commitments and randomness (never from the vanilla proofs)
//   synthesize  partition values from the C1 -> witness builder -> full assignment; the witness's
//               inputs must equal the derived ones
//   verify      every partition proof against the derived inputs and porep-<size>'s verifying key
//
// The backend is whatever the engine's executor makes (CPU today): a kind only hands over
// shape, key and witness, which is the seam a CUDA backend plugs into.
#pragma once

#include <memory>

#include "engine/job_kind.hpp"

namespace cuzk::engine::kinds {

std::shared_ptr<JobKind> make_porep_c2_kind();

}  // namespace cuzk::engine::kinds
