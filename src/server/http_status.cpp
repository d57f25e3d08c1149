#include "server/http_status.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include "server/listen_address.hpp"

namespace cuzk::server {

struct HttpStatusServer::Impl {
  Handlers handlers;
  int listen_fd = -1;
  int wake[2] = {-1, -1};
  int port = 0;
  std::string host;
  std::thread thread;
  std::atomic<bool> stopped{false};

  ~Impl() {
    for (int fd : {listen_fd, wake[0], wake[1]})
      if (fd >= 0) ::close(fd);
  }

  static void send_all(int fd, const std::string& s) {
    std::size_t off = 0;
    while (off < s.size()) {
      ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        return;
      }
      off += std::size_t(n);
    }
  }

  void serve(int fd) {
    timeval tv{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    std::string req;
    char buf[2048];
    while (req.size() < 8192 && req.find("\r\n\r\n") == std::string::npos && req.find("\n\n") == std::string::npos) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        break;
      }
      req.append(buf, std::size_t(n));
    }
    auto eol = req.find_first_of("\r\n");
    std::string line = req.substr(0, eol);
    auto sp1 = line.find(' '), sp2 = line.find(' ', sp1 == std::string::npos ? 0 : sp1 + 1);
    std::string method = line.substr(0, sp1);
    std::string path = sp1 == std::string::npos ? "" : line.substr(sp1 + 1, sp2 == std::string::npos ? std::string::npos : sp2 - sp1 - 1);
    if (auto q = path.find('?'); q != std::string::npos) path.resize(q);
    int code = 200;
    std::string type = "text/plain; charset=utf-8", body;
    if (method != "GET" && method != "HEAD") {
      code = 405;
      body = "405 Method Not Allowed\n";
    } else if (path == "/status") {
      type = "application/json";
      body = handlers.status_json ? handlers.status_json() : "{}";
    } else if (path == "/metrics") {
      type = "text/plain; version=0.0.4; charset=utf-8";
      body = handlers.metrics_text ? handlers.metrics_text() : "";
    } else {
      code = 404;
      body = "404 Not Found\n";
    }
    const char* reason = code == 200 ? "OK" : code == 404 ? "Not Found" : "Method Not Allowed";
    std::string head = "HTTP/1.1 " + std::to_string(code) + " " + reason + "\r\nContent-Type: " + type +
                       "\r\nContent-Length: " + std::to_string(body.size()) +
                       "\r\nAccess-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n";
    send_all(fd, method == "HEAD" ? head : head + body);
    ::shutdown(fd, SHUT_WR);
  }

  void loop() {
    while (!stopped.load()) {
      pollfd p[2] = {{listen_fd, POLLIN, 0}, {wake[0], POLLIN, 0}};
      int n = ::poll(p, 2, -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (p[1].revents) return;
      if (p[0].revents & POLLIN) {
        int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        serve(fd);
        ::close(fd);
      }
    }
  }
};

HttpStatusServer::HttpStatusServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpStatusServer::~HttpStatusServer() { stop(); }

Result<std::unique_ptr<HttpStatusServer>> HttpStatusServer::start(const std::string& addr, Handlers handlers) {
  auto a = parse_listen_address(addr);
  if (!a) return Error{"status_listen: " + a.error()};
  if (a->unix_socket) return Error{"status_listen: the HTTP status server listens on TCP only"};
  std::string host = a->host;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), a->port.c_str(), &hints, &res); rc != 0) {
    return Error{"status_listen " + addr + ": " + ::gai_strerror(rc)};
  }
  auto impl = std::make_unique<Impl>();
  impl->handlers = std::move(handlers);
  impl->host = a->host;
  std::string last_err = "no address";
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 16) == 0) {
      impl->listen_fd = fd;
      break;
    }
    last_err = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(res);
  if (impl->listen_fd < 0) return Error{"status_listen " + addr + ": cannot bind: " + last_err};
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(impl->listen_fd, reinterpret_cast<sockaddr*>(&ss), &len);
  impl->port = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                         : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  if (::pipe2(impl->wake, O_CLOEXEC) != 0) return Error{"status_listen: pipe: " + std::string(std::strerror(errno))};
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->loop(); });
  return std::unique_ptr<HttpStatusServer>(new HttpStatusServer(std::move(impl)));
}

int HttpStatusServer::port() const { return impl_->port; }
std::string HttpStatusServer::endpoint() const { return impl_->host + ":" + std::to_string(impl_->port); }

void HttpStatusServer::stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  char c = 1;
  [[maybe_unused]] auto n = ::write(impl_->wake[1], &c, 1);
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace cuzk::server
