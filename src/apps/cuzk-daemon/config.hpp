// The daemon's TOML configuration (the daemon app's, not the engine's: listeners, auth, TLS and
// logging are the daemon's business; engine_options_from maps the rest to engine::EngineOptions).
// The schema is the Rust daemon's (cuzk-behaviour.md 2.2) so that
// existing cuzk.toml files keep working; keys the Rust daemon ignored are accepted with a warning,
// and what it lacked lives in new keys and sections (docs/daemon.md lists every key). Unlike the
// Rust parser, a malformed value is an error that names the key, never a silent default.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "engine/engine.hpp"

namespace cuzk::apps {

struct CircuitConfig {
  std::string id;
  std::string zkey;
  bool preload = false;
};

struct DaemonConfig {
  // [daemon]
  std::vector<std::string> listen{"unix:///run/curio/cuzk.sock"};  // string or array of strings
  std::string status_listen;                                       // HTTP /status and /metrics; "" = off
  std::uint64_t max_message_bytes = std::uint64_t(512) << 20;      // gRPC, both directions (>= 256 MiB)
  bool shutdown_drain = true;                                      // shutdown = "drain" | "cancel"
  std::chrono::milliseconds drain_timeout{std::chrono::minutes(30)};
  // [memory]
  bool budget_auto = true;         // total_budget = "auto"
  std::uint64_t total_budget = 0;  // when not auto
  std::uint64_t safety_margin = std::uint64_t(5) << 30;
  bool request_budget_auto = true;   // ours: request_budget = "auto" (total_budget / 8, at most 4 GiB)
  std::uint64_t request_budget = 0;  // ours: unfinished jobs' request bytes, when not auto (0 = not charged)
  std::chrono::milliseconds eviction_min_idle{std::chrono::minutes(5)};
  double partition_memory_factor = 1.0;  // our key: scales partition reservations
  bool measure_partitions = true;        // our key: learn partition sizes from solo runs
  bool urgent_reserve_auto = true;       // ours: urgent_reserve = "auto" (learned from urgent partitions)
  std::uint64_t urgent_reserve = 0;      // ours: headroom non-urgent partitions leave, when not auto
  // [gpus]
  std::vector<std::uint32_t> devices;
  std::uint32_t gpu_threads = 0;
  std::uint32_t gpu_workers_per_device = 2;
  std::string key_residency = "auto";        // ours: auto, resident, streamed (CUDA proving keys)
  std::uint64_t max_resident_key_bytes = 0;  // ours: auto streams keys needing more device memory; 0 = no limit
  std::uint64_t memory_limit = 0;        // ours: bytes of each card cuzk plans and allocates with; 0 = the whole card
  std::uint64_t stream_chunk_bases = 0;  // ours: streamed keys' chunk (bases); 0 = the backend's default
  std::uint32_t h_copies = 0;            // ours: shifted copies of resident H bases (0 = backend's default, 1 = none)
  std::string urgent_lane = "auto";      // ours: auto, gpu, cpu, off (small urgent partitions' backend)
  double hang_multiple = 10;             // ours: a partition past this x its key's time (CUDA): device suspect; 0 = off
  std::chrono::milliseconds hang_min{std::chrono::seconds(60)};  // ours: and past at least this
  std::chrono::milliseconds probe_interval{
      std::chrono::minutes(5)};                    // ours: devices out of service re-probed; 0 = never
  std::uint32_t urgent_lane_max_domain_log2 = 22;  // ours: largest key domain (log2) the lane takes
  // [backend] (ours)
  std::string backend = "auto";  // "cpu", "cuda", "auto"
  // [scheduler]
  std::uint32_t max_batch_size = 1;
  std::uint32_t max_active_jobs = 1024;                            // ours
  std::chrono::milliseconds result_ttl{std::chrono::minutes(10)};  // ours
  std::uint32_t max_results = 10000;                               // ours
  std::string urgent_priority = "high";                            // ours: "high", "critical" or "off" (what is urgent)
  // ours: kinds whose job is cancelled when its last waiting caller goes away (names or aliases, []
  // = none); unset: the deadline-bound kinds (WindowPoSt, WinningPoSt). Resolved against the kinds by
  // the daemon (KindRegistry::wires).
  std::optional<std::vector<std::string>> cancel_abandoned;
  // [synthesis]
  std::uint32_t synthesis_threads = 0;
  // [pipeline]
  bool pipeline_enabled = true;
  std::uint32_t synthesis_concurrency = 1;
  std::uint32_t max_parallel_synthesis = 18;
  std::uint32_t max_gpu_queue_depth = 0;
  std::uint32_t finalizer_threads = 2;         // ours
  std::uint32_t urgent_synthesis_workers = 1;  // ours: synthesis slots reserved for urgent partitions
  bool self_verify = true;                     // ours
  bool timeline = false;                       // ours: TIMELINE lines on stderr
  // [srs]
  std::string param_cache = "/data/zk/params";
  std::vector<std::string> preload;     // honoured here (the Rust daemon ignored it)
  std::vector<CircuitConfig> circuits;  // [[srs.circuits]] id, zkey, preload
  bool allow_witness_paths = true;
  // [auth] (ours; docs/daemon.md "Access control"): who may call, and which files requests may name.
  std::string token_file;         // the client scope's bearer token; "" = none
  std::string admin_token_file;   // the admin scope's bearer token; "" = none
  std::string tls_cert, tls_key;  // PEM files, both or neither: TLS on the TCP listeners
  bool insecure = false;          // TCP listeners without a token (refused at start otherwise)
  std::uint32_t unix_socket_mode = 0660;
  std::string unix_socket_group;             // name or number; "" = the daemon's own group
  std::vector<std::string> allowed_dirs;     // where witness_path and zkey_path may lie
  std::uint32_t max_jobs_per_client = 1000;  // unfinished jobs per caller identity (urgent apart); 0 = none
  // [logging]
  std::string log_level = "info";
  std::string log_format = "text";  // "text" | "json"

  std::vector<std::string> warnings;  // deprecated or unknown keys, for the log
};

// Parses TOML text; `name` prefixes error messages ("cuzk.toml: memory.total_budget: ...").
Result<DaemonConfig> parse_config(std::string_view text, const std::string& name);
// Reads and parses a file. A missing file gives the defaults with `*missing` set (the Rust
// daemon's behaviour, but the daemon logs it).
Result<DaemonConfig> load_config(const std::string& path, bool* missing = nullptr);

// What the binary and the machine offer for backend.kind (the daemon probes it; the engine does not
// link the CUDA code).
struct BackendAvailability {
  bool cuda_built = false;         // this build has the CUDA backend
  std::uint32_t cuda_devices = 0;  // CUDA devices present
  // The present devices this binary can prove on (kernels load, enough memory); empty = all of
  // 0..cuda_devices-1 (callers that do not check). gpus.devices = [] means these.
  std::vector<std::uint32_t> usable_devices;
};

// backend.kind -> the backend to run: "cpu" as asked; "cuda" when built and a device is present (else
// a one-line error that says which is missing); "auto" -> "cuda" when it would succeed, else "cpu".
Result<engine::BackendKind> resolve_backend(const std::string& kind, const BackendAvailability& avail);

// Engine options from a config: resolves total_budget = "auto" (MemTotal - safety_margin), the
// worker counts and the backend (resolve_backend; with "cuda", gpus.devices must name present
// devices, and an empty gpus.devices means every usable device, as in the Rust daemon). `hardware_threads` is
// std::thread::hardware_concurrency() unless a test says otherwise. executor is left empty: the daemon sets it
// (apps::DeviceBackends, which links the CUDA backend when built; its lane slots are CUDA backends with the GPU lane,
// CPU backends otherwise). gpus.urgent_lane = "auto" resolves to "gpu" on the CUDA backend and "cpu" on the CPU
// backend.
Result<engine::EngineOptions> engine_options_from(const DaemonConfig& cfg, unsigned hardware_threads,
                                                  const BackendAvailability& avail = {});

}  // namespace cuzk::apps
