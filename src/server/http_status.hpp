// A minimal HTTP/1.1 endpoint for operators and Prometheus scrapers, on TCP:
//   GET /status   200 application/json (status_render.hpp), Access-Control-Allow-Origin: *
//   GET /metrics  200 text/plain; version=0.0.4 (status_render.hpp)
//   anything else 404 (405 for methods other than GET/HEAD)
// One connection at a time, each closed after its response; requests are read with a 2 s timeout
// and at most 8 KiB, so a slow or hostile client cannot hold the daemon.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/result.hpp"

namespace cuzk::server {

class HttpStatusServer {
 public:
  struct Handlers {
    std::function<std::string()> status_json;
    std::function<std::string()> metrics_text;
  };
  // addr: "host:port" (port 0 = any free port).
  static Result<std::unique_ptr<HttpStatusServer>> start(const std::string& addr, Handlers handlers);
  ~HttpStatusServer();
  int port() const;
  std::string endpoint() const;
  void stop();  // idempotent

 private:
  struct Impl;
  explicit HttpStatusServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::server
