// One accepted request and its exactly-once end. A Job is created by Engine::submit and shared by
// every stage that works on it; its terminal result is decided once (claim) and made visible once
// (publish), in two steps so that the engine can drop the job's queued work and update its counters
// in between: whoever sees the result also sees the counters. `stop` is set at the claim, and every
// stage polls it, so work on a finished job stops at the next check point.
//
// Locking: `mu` guards everything below it; the engine never holds its own mutex while taking a
// job's, except to read a field it owns (state for status).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/memory_budget.hpp"
#include "engine/job_kind.hpp"
#include "engine/types.hpp"
#include "groth16/proof.hpp"

namespace cuzk::engine {

class Job {
 public:
  enum class State { kQueued, kPreparing, kRunning, kDone };

  // Set at submission, then read-only.
  std::string id;          // the request_id, or request_id@<content tag> when another job has it
  std::string request_id;  // as the caller sent it
  std::uint64_t seq = 0;   // arrival order
  std::uint32_t kind = 0;
  Priority priority = Priority::kNormal;
  ContentDigest digest{};  // ProofRequest::content_digest(): with request_id, the job's identity
  Micros submitted = 0;
  std::string owner;              // ProofRequest::owner
  std::atomic<bool> stop{false};  // set once the job has a terminal result: work on it stops

  // Who follows the job (guarded by the engine's mutex, not `mu`): callers waiting for it now
  // (Prove, AwaitProof), whether a SubmitProof created or joined it (its result is fetched later, so
  // it is never cancelled as abandoned), and whether it was cancelled as abandoned (a request that
  // arrives meanwhile runs it again instead of joining a job about to end CANCELLED).
  std::uint32_t waiters = 0;
  bool fetched_later = false;
  bool abandoned = false;

  mutable std::mutex mu;
  std::condition_variable cv;
  std::shared_ptr<const ProofRequest> req;  // dropped at the claim (a C1 is ~50 MB)
  Reservation request_charge;               // req's bytes in the engine's request slice; dropped with it
  State state = State::kQueued;
  std::optional<JobResult> result;
  Micros finished_at = 0;
  std::shared_ptr<PreparedJob> prepared;  // tasks hold copies; dropped at the claim
  std::string circuit_id;
  std::uint32_t num_parts = 0;
  std::uint32_t parts_done = 0;
  std::vector<PartitionTimes> times;
  std::vector<std::optional<groth16::Proof>> proofs;
  std::uint64_t srs_load_ms = 0;

  // What the claim took from the job: its result (not yet visible) and what must be released
  // outside every lock.
  struct Claim {
    JobResult result;
    std::shared_ptr<PreparedJob> prepared;
    std::shared_ptr<const ProofRequest> request;
    Reservation request_charge;  // returned once the request is dropped (declared after it)
  };
  // The first call decides the terminal result and returns it; every later call returns nullopt.
  std::optional<Claim> claim(ResultStatus status, std::string proof, std::string error, std::uint64_t verify_ms,
                             Micros now);
  // Makes the claimed result visible and wakes every waiter.
  void publish(JobResult result);
  // The terminal result, when it is visible.
  std::optional<JobResult> current_result() const;
  // Waits for the result; TIMEOUT (the job keeps running) after `timeout` (0 = none) or once
  // `abandon` returns true (polled).
  JobResult wait(std::chrono::milliseconds timeout, const std::function<bool()>& abandon);

  // Calls `f` once the result is visible: at once on this thread when it already is (returns 0),
  // else on the thread that publishes it, outside `mu` (returns a handle for forget_done). `f` must be
  // quick and must not wait. Lets a caller wait without a thread (the server's AwaitProof).
  std::uint64_t on_done(std::function<void()> f);
  // Drops a callback that has not run (a waiter that timed out or went away); no-op otherwise.
  void forget_done(std::uint64_t handle);

  // Stores partition `index`'s proof; true when it was the last one (`all` then holds them in order).
  bool add_proof(std::uint32_t index, const groth16::Proof& proof, std::vector<groth16::Proof>& all);

 private:
  bool claimed_ = false;                                                    // under mu
  std::uint64_t next_callback_ = 1;                                         // under mu
  std::vector<std::pair<std::uint64_t, std::function<void()>>> callbacks_;  // under mu
  JobResult make_result(ResultStatus st, std::string proof, std::string error, std::uint64_t verify_ms,
                        Micros now) const;
};

}  // namespace cuzk::engine
