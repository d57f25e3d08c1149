// The gRPC front end: cuzk.v1.ProvingEngine served from the engine on every listen address (unix
// sockets and TCP at once), with server reflection (grpc.reflection.v1alpha, so grpcurl and other
// generic tools list and call it) and the standard health service (grpc.health.v1.Health: SERVING
// for "" and "cuzk.v1.ProvingEngine" once started, NOT_SERVING after set_serving(false), as while
// draining, and at shutdown). No gRPC types appear here, so the daemon's main does not pay for them.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/engine.hpp"
#include "server/device_info.hpp"

namespace cuzk::server {

struct ServerOptions {
  std::vector<std::string> listen;                             // "unix:///path", "host:port" (port 0 = any)
  std::uint64_t max_message_bytes = std::uint64_t(512) << 20;  // both directions
  // GetStatus / GetMetrics: the devices (name, memory, compute capability). Unset or empty: the CPU
  // backend, whose device slots are listed with name "cpu".
  DeviceProvider devices;
};

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
