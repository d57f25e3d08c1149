// The gRPC front end: cuzk.v1.ProvingEngine served from the engine on every listen address (unix
// sockets and TCP at once), with server reflection (grpc.reflection.v1alpha, so grpcurl and other
// generic tools list and call it) and the standard health service (grpc.health.v1.Health: SERVING
// for "" and "cuzk.v1.ProvingEngine" once started, NOT_SERVING after set_serving(false), as while
// draining, and at shutdown). No gRPC types appear here, so the daemon's main does not pay for them.
//
// AwaitProof and Prove cost no thread while they wait (gRPC's callback API); AwaitProof timeouts
// are clamped to 1 hour (0 = none, Prove waits until the end).
//
// Access control (auth.hpp, docs/daemon.md "Access control"): every ProvingEngine RPC over TCP needs
// a bearer token (UNAUTHENTICATED otherwise), unix-socket callers are admin; EvictSRS, replacing a
// registered circuit and cancelling another caller's job need the admin scope (PERMISSION_DENIED);
// request paths are confined to the allowed directories; ids and paths are bounded (INVALID_ARGUMENT
// naming the field and the limit). Health and reflection stay open: they tell nothing but "serving"
// and the schema, and load balancers probe them without credentials.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/engine.hpp"
#include "server/auth.hpp"
#include "server/device_info.hpp"

namespace cuzk::server {

struct ServerOptions {
  std::vector<std::string> listen;                             // "unix:///path", "host:port" (port 0 = any)
  std::uint64_t max_message_bytes = std::uint64_t(512) << 20;  // both directions
  // gRPC's memory quota for the server (a grpc::ResourceQuota): requests being received and answered
  // hold at most about this much before gRPC stops reading more; 0: no quota. The daemon sets the
  // engine's request slice plus one largest message, so that many large requests at once cannot take
  // the process past its memory budget before the engine refuses them.
  std::uint64_t memory_quota_bytes = 0;
  // GetStatus / GetMetrics: the devices (name, memory, compute capability). Unset or empty: the CPU
  // backend, whose device slots are listed with name "cpu".
  DeviceProvider devices;
  // Tokens, insecure and allowed_dirs. A TCP listener without a token refuses to start unless
  // auth.insecure is set.
  AuthOptions auth;
  // PEM text (not paths), both or neither: TCP listeners speak TLS with this certificate and key.
  std::string tls_cert_pem, tls_key_pem;
  // Unix socket files: created with this mode (never wider in between) and, when set, this group
  // (a name or a number; the daemon must be allowed to chown to it).
  std::uint32_t unix_socket_mode = 0660;
  std::string unix_socket_group;
  // Unfinished jobs one caller identity ("unix", "admin", "client") may have; more submissions are
  // RESOURCE_EXHAUSTED. Urgent jobs are counted apart, with the same limit. 0 = no limit.
  std::uint32_t max_jobs_per_client = 1000;
};

// Limits on request strings, checked before anything else looks at them.
inline constexpr std::size_t kMaxIdBytes = engine::Engine::kMaxIdBytes;        // request_id, circuit_id
inline constexpr std::size_t kMaxJobIdBytes = engine::Engine::kMaxJobIdBytes;  // job_id (request_id@tag)
inline constexpr std::size_t kMaxPathBytes = engine::Engine::kMaxPathBytes;    // witness_path, zkey_path

// What start() checks before binding anything: the listen addresses, the access-control options (an
// allowed directory that does not exist, a group that does not) and the rule that a TCP listener
// needs a token unless auth.insecure. The daemon calls it before it loads keys.
Status check_listeners(const ServerOptions& options);

class GrpcServer {
 public:
  // Binds every address or fails naming the one that could not be bound.
  static Result<std::unique_ptr<GrpcServer>> start(engine::Engine& engine, const ServerOptions& options);
  ~GrpcServer();

  // The bound endpoints, TCP ports resolved ("127.0.0.1:40123", "unix:///run/cuzk.sock").
  const std::vector<std::string>& endpoints() const;
  // Stops accepting calls; calls still running get `grace` to finish, then are cancelled. Removes the
  // unix socket files. Idempotent.
  void shutdown(std::chrono::milliseconds grace);
  // The health service's answer: SERVING (true, the state after start) or NOT_SERVING (false: the
  // daemon is draining and refuses new work).
  void set_serving(bool serving);

 private:
  struct Impl;
  explicit GrpcServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// gRPC's own log lines (gpr_log: transport errors, bind failures) go through the "server" spdlog
// logger from now on, so that they reach the operator's log in its format (one JSON object per line
// with logging.format = "json") instead of gRPC's raw stderr lines. Process-wide; call once after the
// logging set-up.
void route_grpc_logs_to_spdlog();

}  // namespace cuzk::server
