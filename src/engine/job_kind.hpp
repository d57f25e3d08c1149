// The seam between the engine and what it proves. A JobKind turns one request into a PreparedJob: it
// validates the request, acquires its proving key(s) from the SrsManager and says how many partition
// circuits the proof has and how much memory each needs. The engine then drives every partition
// through its pipeline:
//
//   scheduler ─▶ reserve memory ─▶ synthesize(k) ─▶ Backend::start ─▶ finish ─▶ ... ─▶ verify(all)
//
// A kind never sees threads, queues or budgets, so a proof family plugs in here as partitioner +
// synthesizer. The kinds are the executables' (kinds/builtin_kinds.hpp registers one KindRegistry row
// each); the engine only calls this interface.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "base/result.hpp"
#include "engine/memory_budget.hpp"
#include "engine/srs_manager.hpp"
#include "engine/types.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"
#include "groth16/r1cs.hpp"
#include "groth16/witness.hpp"

namespace cuzk::engine {

// Cooperative cancellation: long-running kind code polls it between steps.
class CancelToken {
 public:
  CancelToken() = default;
  explicit CancelToken(const std::atomic<bool>* flag) : flag_(flag) {}
  bool cancelled() const { return flag_ && flag_->load(std::memory_order_relaxed); }
  std::function<bool()> as_function() const {
    auto f = flag_;
    return [f] { return f && f->load(std::memory_order_relaxed); };
  }

 private:
  const std::atomic<bool>* flag_ = nullptr;
};

// Memory one partition holds from dispatch until the backend's start() returns (`full`), and the part
// of it still held afterwards until finish() (`after_start`; the pending MSM results and bookkeeping).
struct PartitionMemory {
  std::uint64_t full = 0;
  std::uint64_t after_start = 0;
};

// What synthesis hands to the backend. The shape and key pointers stay valid for the life of the
// PreparedJob (it holds the SrsLease). The witness is dense (generic jobs: a parsed .wtns) or compact
// (circuits synthesized here: binary aux as bits, ~1/8 of the dense size for circuits that are mostly bits; the CUDA
// backend uploads it as it is and expands it on the device).
struct SynthesizedPartition {
  const groth16::R1csShape* shape = nullptr;
  const groth16::ProvingKey* key = nullptr;
  const KeyCopies* copies = nullptr;  // the backends' copies of the key (SrsLease::copies()), if any
  // dense: the full assignment w[0] = 1, inputs, aux
  std::variant<std::vector<math::Fr>, groth16::CompactAssignment> witness;

  // On the backend at `slot`: with that slot's copy of the key when it has one.
  Result<groth16::PendingProof> start(groth16::Backend& backend, BackendSlot slot) const {
    groth16::KeyCopy* copy = copies ? copies->find(slot) : nullptr;
    return std::visit(
        [&](const auto& w) { return copy ? backend.start(*shape, w, *key, *copy) : backend.start(*shape, w, *key); },
        witness);
  }
};

class PreparedJob {
 public:
  virtual ~PreparedJob() = default;
  virtual std::uint32_t num_partitions() const = 0;
  virtual PartitionMemory partition_memory(std::uint32_t index) const = 0;
  // Runs on a synthesis worker; may be called for different partitions concurrently.
  virtual Result<SynthesizedPartition> synthesize(std::uint32_t index, const CancelToken& cancel) = 0;
  // The key finish() needs for partition `index` (the same one synthesize() returned). Valid from
  // prepare() on: the engine reads its domain_log2 when it queues the partition (a small urgent
  // partition runs on the urgent lane, engine.hpp).
  virtual const groth16::ProvingKey& key(std::uint32_t index) const = 0;
  // Self-check of the assembled proof (partition order), run before the result is returned.
  virtual Status verify(std::span<const groth16::Proof> proofs) = 0;
  // The proving key this job uses, for status ("" if none).
  virtual std::string circuit_id() const { return {}; }
};

struct PrepareContext {
  SrsManager& srs;
  CancelToken cancel;
  std::uint64_t srs_load_ms = 0;  // out: time spent getting the proving key
  bool allow_witness_paths = true;
  // The executor's (executor.hpp): kDevice keeps a, b, c, H and the MSM scalars in device memory,
  // so partitions reserve only what the host holds (the witness and synthesis transients).
  MemoryModel memory_model = MemoryModel::kHost;
  // The request's parse bound (JobKind::parse_bytes), reserved from the budget before prepare is
  // called; given back when prepare returns, or earlier by the kind once its parse is done and before
  // it waits for a proving key (acquire_proving_key does), so that the two never wait on each other.
  Reservation parse;
};

// A parse bound for JSON parsed whole into a simdjson DOM (the PoSt and SnapDeals vanilla proofs):
// the padded copy (1x), the tape (up to 16 bytes for a 2-byte number: 8x) and a model no larger than
// the input (1x), plus 1 MiB. Not measured: an upper bound by construction. The C1 parsers parse in
// pieces and have a measured, smaller bound (filecoin/porep/c1_io.hpp c1_parse_bytes).
inline std::uint64_t generic_parse_bytes(std::uint64_t input_bytes) {
  if (input_bytes > (std::uint64_t(1) << 59)) return ~std::uint64_t(0);
  return input_bytes * 10 + (std::uint64_t(1) << 20);
}

class JobKind {
 public:
  virtual ~JobKind() = default;
  virtual std::string name() const = 0;
  // Validates the request and sets the job up. Errors become the job's FAILED message verbatim, so
  // they must name the field and the reason.
  // The request outlives the prepared job, which may keep pointers into it.
  virtual Result<std::unique_ptr<PreparedJob>> prepare(std::shared_ptr<const ProofRequest> req,
                                                       PrepareContext& ctx) = 0;
  // An upper bound on the memory prepare takes to parse the request, beyond the request itself; the
  // engine reserves it before calling prepare (PrepareContext::parse). The default, for parsers whose
  // model is no larger than their input: generic_parse_bytes of the request's bytes.
  virtual std::uint64_t parse_bytes(const ProofRequest& req) const { return generic_parse_bytes(req.held_bytes()); }
};

}  // namespace cuzk::engine
