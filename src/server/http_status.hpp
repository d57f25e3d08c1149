// The HTTP/1.1 endpoint for operators and Prometheus scrapers, on TCP:
//   GET /status   200 application/json (status_render.hpp), Access-Control-Allow-Origin: *
//   GET /metrics  200 text/plain; version=0.0.4 (status_render.hpp)
//   other paths 404; methods other than GET/HEAD 405 (unknown methods 501; malformed requests and a
//   request line + headers over max_header_bytes 400; a body over max_body_bytes 413)
// HEAD answers the GET headers (Content-Length included) without the body; every response carries
// Access-Control-Allow-Origin: *; connections may be kept alive.
//
// Why libevent's evhttp (Debian libevent-dev): one event loop on one thread serves every connection,
// so a client that sends a byte every few seconds, or connects and says nothing, costs a socket and
// a few KiB but never blocks anyone else (the previous loop served one connection at a time: one
// slow client stopped /metrics). cpp-httplib was the other candidate; it gives each connection a
// thread from a fixed pool, so as many slow clients as threads block every scrape.
//
// Limits (HttpStatusLimits): at most max_connections open at once (the next is closed at once,
// without a response); a connection with no byte read or written for idle_timeout is closed; any
// connection is closed connection_lifetime after it was accepted, however it is trickling (a
// slow-header client cannot hold a slot longer than that). The handlers run on the loop thread, so
// they must be short (they render a snapshot); an exception from one answers 500.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "base/result.hpp"

namespace cuzk::server {

struct HttpStatusLimits {
  int max_connections = 128;
  std::chrono::milliseconds idle_timeout{5000};
  std::chrono::milliseconds connection_lifetime{15000};
  std::size_t max_header_bytes = 8192;  // request line and headers together
  std::size_t max_body_bytes = 4096;
};

class HttpStatusServer {
 public:
  struct Handlers {
    std::function<std::string()> status_json;
    std::function<std::string()> metrics_text;
  };
  // addr: "host:port" or "[v6]:port" (port 0 = any free port); the loop thread starts serving at once.
  static Result<std::unique_ptr<HttpStatusServer>> start(const std::string& addr, Handlers handlers,
                                                         HttpStatusLimits limits = {});
  ~HttpStatusServer();
  int port() const;
  std::string endpoint() const;
  int open_connections() const;  // accepted and not yet closed (refused ones included until closed)
  void stop();                   // idempotent; closes every connection, slow ones included, and joins the loop thread

 private:
  struct Impl;
  explicit HttpStatusServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::server
