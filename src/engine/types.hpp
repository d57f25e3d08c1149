// The engine's vocabulary: priorities, requests, results and per-partition timings. Nothing here
// knows about gRPC; server/ converts between these and the cuzk.v1 messages (the numeric values of
// Priority and ResultStatus are the wire values). A request's proof_kind is its wire value; what a
// kind is called and how it is proved is the KindRegistry's (kind_registry.hpp).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::engine {

// Wire values of cuzk.v1.Priority; higher runs first.
enum class Priority : std::uint8_t { kLow = 1, kNormal = 2, kHigh = 3, kCritical = 4 };

// Wire values of cuzk.v1.AwaitProofResponse.Status.
enum class ResultStatus : std::uint8_t { kUnknown = 0, kCompleted = 1, kFailed = 2, kCancelled = 3, kTimeout = 4 };

const char* priority_name(Priority p);    // "LOW", "NORMAL", "HIGH", "CRITICAL"
const char* status_name(ResultStatus s);  // "COMPLETED", ...
// A file opened by whoever checked its path (the server, against auth.allowed_dirs, at submission):
// the engine reads it through this descriptor (path()), never by its name again, so nothing can be
// swapped in between (issue 41 item 6). Closed with the last reference.
class OpenFile {
 public:
  explicit OpenFile(int fd) : fd_(fd) {}
  ~OpenFile();
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  int fd() const { return fd_; }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }  // the open file itself

 private:
  int fd_;
};

using ContentDigest = std::array<std::uint8_t, 32>;
// The first `hex_chars` hex digits of a digest: the content tag in the ids of jobs that share a
// request_id ("wdpost-1000-0-[…]@3fa2b1c9").
std::string content_tag(const ContentDigest& d, std::size_t hex_chars = 8);

// One proof request as it came off the wire. Byte fields are std::string so that the server can move
// protobuf's buffers in without copying (a vanilla proof input can be ~50 MB).
struct ProofRequest {
  std::string request_id;
  std::uint32_t proof_kind = 0;
  std::uint64_t sector_size = 0;
  std::uint64_t registered_proof = 0;
  std::uint32_t priority = 0;
  std::string vanilla_proof;
  std::vector<std::string> vanilla_proofs;
  std::uint64_t sector_number = 0;
  std::uint64_t miner_id = 0;
  std::string randomness;
  std::uint32_t partition_index = 0;
  std::string comm_r_old, comm_r_new, comm_d_new;
  // GENERIC_GROTH16
  std::string circuit_id;
  std::string witness_wtns;
  std::string witness_path;
  std::shared_ptr<const OpenFile> witness_file;  // witness_path as opened when it was checked (server)
  // Who submitted it ("unix", "admin", "client": the server's caller identity; "" in-process). Not
  // part of the proof: a later submission of the same request joins the job and keeps its owner.
  std::string owner;

  // SHA-256 over every field that defines the proof (all but request_id, priority and owner, each
  // field length-prefixed): a job's identity is its request_id and this digest (docs/daemon.md,
  // "Idempotency"). Cryptographic because a match hands one caller the proof made for another's
  // request: no client can craft other content that joins someone else's job.
  ContentDigest content_digest() const;
  // Bytes the request's fields hold (what the engine charges to its requests' slice).
  std::uint64_t held_bytes() const;
};

// Microseconds since the engine started (one steady clock for every job).
using Micros = std::uint64_t;

struct PartitionTimes {
  std::uint32_t index = 0;
  Micros queued = 0, dispatched = 0, synth_start = 0, synth_end = 0;
  Micros backend_start = 0, backend_locked = 0, backend_end = 0, finalize_start = 0, finalize_end = 0;
  std::int32_t synth_worker = -1, backend_worker = -1, finalizer = -1;
  std::uint32_t device = 0;
};

struct JobResult {
  std::string job_id;
  ResultStatus status = ResultStatus::kUnknown;
  std::string proof;  // 192 bytes per partition
  std::string error;
  std::uint32_t proof_kind = 0;
  std::uint32_t num_partitions = 0;
  // Milliseconds, as on the wire (cuzk-behaviour.md 4.13, docs/daemon.md "Timings").
  std::uint64_t queue_wait_ms = 0, srs_load_ms = 0, synthesis_ms = 0, gpu_compute_ms = 0, total_ms = 0, verify_ms = 0;
  Micros submitted = 0, completed = 0;
  std::vector<PartitionTimes> partitions;
};

}  // namespace cuzk::engine
