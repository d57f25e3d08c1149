// A cuzk.v1.ProvingEngine client with plain C++ types (gRPC stays inside client.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/types.hpp"

namespace cuzk::bench {

struct SubmitReply {
  std::string job_id;
  std::uint32_t queue_position = 0;
  bool joined = false;
};

struct GpuInfo {
  std::uint32_t ordinal = 0;
  std::string name;
  std::uint64_t vram_total = 0, vram_free = 0;
  std::string job_id, kind;
};
struct SrsInfo {
  std::string id;
  int tier = 0;
  std::string tier_name;
  std::uint64_t bytes = 0;
  std::uint32_t refs = 0;
};
struct QueueInfo {
  std::string kind;
  std::uint32_t pending = 0, in_progress = 0;
};
struct WorkerInfo {
  std::string stage;
  std::uint32_t id = 0, device = 0;
  std::string job_id;
  std::uint32_t partition = 0;
  std::uint64_t busy_ms = 0, items_done = 0;
};
struct StatusReply {
  std::vector<GpuInfo> gpus;
  std::vector<SrsInfo> srs;
  std::vector<QueueInfo> queues;
  std::vector<WorkerInfo> workers;
  std::uint64_t completed = 0, failed = 0, cancelled = 0, uptime_s = 0, pinned = 0, pinned_limit = 0;
  std::uint64_t budget = 0, used = 0, peak = 0, srs_bytes = 0, partition_bytes = 0, rss = 0, peak_rss = 0;
  std::uint32_t waiters = 0, jobs_queued = 0, jobs_running = 0;
  std::string backend;
  bool draining = false;
};
struct PreloadReply {
  bool already_loaded = false;
  std::uint64_t load_ms = 0;
};
struct EvictReply {
  bool was_loaded = false;
  std::uint64_t freed_bytes = 0;
};
struct CancelReply {
  bool found = false, was_running = false;
};
struct RegisterReply {
  std::uint32_t n_public = 0, n_vars = 0, n_constraints = 0, domain_size = 0;
  bool replaced = false;
  std::uint64_t load_ms = 0;
};

class Client {
 public:
  // addr: "unix:///path", "host:port" or "http://host:port". Waits up to connect_timeout_ms for the
  // channel to come up.
  // `token`: sent as "authorization: Bearer <token>" on every call ("" = none); `tls_ca_pem`: TLS to a
  // TCP address, the daemon's certificate checked against these roots ("" = plain TCP).
  struct Access {
    std::string token;
    std::string tls_ca_pem;
  };
  static Result<std::unique_ptr<Client>> connect(const std::string& addr, std::uint64_t max_message_bytes,
                                                 const Access& access = {}, std::uint64_t connect_timeout_ms = 10000);
  ~Client();

  Result<engine::JobResult> prove(const engine::ProofRequest& req);
  Result<SubmitReply> submit(const engine::ProofRequest& req);
  Result<engine::JobResult> await(const std::string& job_id, std::uint64_t timeout_ms);
  Result<CancelReply> cancel(const std::string& job_id);
  Result<StatusReply> status();
  Result<std::string> metrics();
  Result<PreloadReply> preload(const std::string& circuit_id);
  Result<EvictReply> evict(const std::string& circuit_id);
  Result<RegisterReply> register_circuit(const std::string& id, const std::string& zkey_path, bool preload);

 private:
  struct Impl;
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::bench
