// Listen addresses as the daemon and cuzk-bench accept them: "unix:///abs/path" (also "unix:/abs"),
// "host:port", "[v6]:port", and for clients also "http://host:port" (the Rust bench's default form).
#pragma once

#include <string>

#include "base/result.hpp"

namespace cuzk::server {

struct ListenAddress {
  bool unix_socket = false;
  std::string path;  // unix socket path
  std::string host;  // TCP
  std::string port;
  std::string grpc_target() const;  // "unix:/abs/path" or "host:port"
  std::string display() const;      // "unix:///abs/path" or "host:port"
};

// Checks a listen address as the daemon's config and --listen take it: "unix:///abs/path",
// "unix:/abs/path", "host:port", "[v6]:port".
Status check_listen_address(const std::string& addr);

Result<ListenAddress> parse_listen_address(const std::string& text);

// Before binding a unix socket: creates the parent directory, refuses when another process is
// accepting on the path, and removes a stale socket file (never a regular file).
Status prepare_unix_socket(const std::string& path);

}  // namespace cuzk::server
