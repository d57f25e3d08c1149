// HttpStatusServer (src/server/http_status.hpp) over real sockets: the routes and their headers,
// slow and idle clients that must not block a scrape, oversized requests, the connection limit,
// the idle timeout and connection lifetime, and a prompt stop() with clients still connected.
#include "server/http_status.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace cuzk::server {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// A connected blocking socket with send, receive and connect timeouts; -1 if the connect failed.
int dial(int port, bool v6 = false, std::chrono::milliseconds rcv_timeout = 3000ms) {
  int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  timeval tv{static_cast<time_t>(rcv_timeout.count() / 1000),
             static_cast<suseconds_t>((rcv_timeout.count() % 1000) * 1000)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);  // bounds connect() too
  int rc;
  if (v6) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(static_cast<uint16_t>(port));
    a.sin6_addr = in6addr_loopback;
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  if (rc != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool send_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += std::size_t(n);
  }
  return true;
}

// Everything the server sends until it closes (or the receive timeout).
std::string read_to_eof(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, std::size_t(n));
  }
  return out;
}

struct Reply {
  int code = 0;
  std::string head;  // status line and headers
  std::string body;
  std::string header(const std::string& name) const {
    std::string lower_head;
    for (char c : head) lower_head += char(std::tolower(static_cast<unsigned char>(c)));
    std::string key = "\r\n";
    for (char c : name) key += char(std::tolower(static_cast<unsigned char>(c)));
    key += ": ";
    auto p = lower_head.find(key);
    if (p == std::string::npos) return "<absent>";
    p += key.size();
    return head.substr(p, head.find("\r\n", p) - p);
  }
};

Reply parse(const std::string& raw) {
  Reply r;
  auto end = raw.find("\r\n\r\n");
  if (raw.rfind("HTTP/1.", 0) != 0 || end == std::string::npos) return r;
  r.code = std::stoi(raw.substr(9, 3));
  r.head = raw.substr(0, end + 2);
  r.body = raw.substr(end + 4);
  return r;
}

// One request on a fresh connection that the server closes after its reply.
Reply request(int port, const std::string& raw, bool v6 = false) {
  int fd = dial(port, v6);
  if (fd < 0) return {};
  send_all(fd, raw);
  Reply r = parse(read_to_eof(fd));
  ::close(fd);
  return r;
}

Reply get(int port, const std::string& path, const std::string& method = "GET") {
  return request(port, method + " " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
}

// True while the peer has neither closed nor reset the connection.
bool still_open(int fd) {
  char c;
  ssize_t n = ::recv(fd, &c, 1, MSG_DONTWAIT | MSG_PEEK);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

// Milliseconds until the server closes fd (recv returns 0 or an error), or -1 after `limit`.
double ms_until_closed(int fd, std::chrono::milliseconds limit) {
  auto t0 = Clock::now();
  char buf[512];
  while (Clock::now() - t0 < limit) {
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) return ms_since(t0);
    std::this_thread::sleep_for(10ms);
  }
  return -1;
}

bool wait_for(const std::function<bool()>& cond, std::chrono::milliseconds limit = 3000ms) {
  auto t0 = Clock::now();
  while (!cond()) {
    if (Clock::now() - t0 > limit) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

HttpStatusServer::Handlers handlers() {
  return {[] { return std::string("{\"ok\":true}"); }, [] { return std::string("cuzk_up 1\n"); }};
}

TEST(HttpStatusServer, RoutesHeadersAndMethods) {
  auto h = HttpStatusServer::start("127.0.0.1:0", handlers());
  ASSERT_TRUE(h) << h.error();
  const int port = (*h)->port();
  ASSERT_GT(port, 0);
  EXPECT_EQ((*h)->endpoint(), "127.0.0.1:" + std::to_string(port));

  Reply m = get(port, "/metrics");
  EXPECT_EQ(m.code, 200);
  EXPECT_EQ(m.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(m.header("Content-Length"), "10");
  EXPECT_EQ(m.body, "cuzk_up 1\n");

  Reply s = get(port, "/status?pretty=1");
  EXPECT_EQ(s.code, 200);
  EXPECT_EQ(s.header("Content-Type"), "application/json");
  EXPECT_EQ(s.header("Access-Control-Allow-Origin"), "*");
  EXPECT_EQ(s.body, "{\"ok\":true}");

  Reply head = get(port, "/metrics", "HEAD");
  EXPECT_EQ(head.code, 200);
  EXPECT_EQ(head.header("Content-Length"), "10");
  EXPECT_EQ(head.body, "");

  Reply nf = get(port, "/nope");
  EXPECT_EQ(nf.code, 404);
  EXPECT_EQ(nf.body, "404 Not Found\n");
  for (const char* method : {"POST", "PUT", "DELETE", "OPTIONS"}) {
    Reply r = get(port, "/status", method);
    EXPECT_EQ(r.code, 405) << method;
    EXPECT_EQ(r.header("Allow"), "GET, HEAD") << method;
  }
  EXPECT_EQ(get(port, "/status", "BREW").code, 501);
  EXPECT_EQ(request(port, "nonsense\r\n\r\n").code, 400);

  // HTTP/1.0 without keep-alive, and two requests pipelined on one HTTP/1.1 connection.
  EXPECT_EQ(request(port, "GET /metrics HTTP/1.0\r\n\r\n").body, "cuzk_up 1\n");
  int fd = dial(port);
  ASSERT_GE(fd, 0);
  send_all(fd, "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\nGET /status HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  std::string both = read_to_eof(fd);
  ::close(fd);
  auto second = both.find("HTTP/1.1 200", 1);
  ASSERT_NE(second, std::string::npos) << both;
  EXPECT_EQ(parse(both.substr(0, second)).body, "cuzk_up 1\n");
  EXPECT_EQ(parse(both.substr(second)).body, "{\"ok\":true}");
  (*h)->stop();
  (*h)->stop();  // idempotent

  EXPECT_FALSE(HttpStatusServer::start("unix:///tmp/x.sock", {}));
  EXPECT_FALSE(HttpStatusServer::start("not an address", {}));
}

TEST(HttpStatusServer, AHandlerThatThrowsAnswers500AndTheServerGoesOn) {
  int calls = 0;
  auto h = HttpStatusServer::start("127.0.0.1:0", {[] { return std::string("{}"); },
                                                   [&calls]() -> std::string {
                                                     if (++calls == 1) throw std::runtime_error("snapshot failed");
                                                     return "ok 1\n";
                                                   }});
  ASSERT_TRUE(h) << h.error();
  Reply r = get((*h)->port(), "/metrics");
  EXPECT_EQ(r.code, 500);
  EXPECT_EQ(r.body, "500 rendering /metrics: snapshot failed\n");
  EXPECT_EQ(get((*h)->port(), "/metrics").body, "ok 1\n");
}

// The issue 28 scenario: 50 clients that trickle a request (a byte every 1.5 s) and 40 that say
// nothing; /metrics must still answer each of 5 scrapes in under a second, and stop() must not
// wait for any of them.
TEST(HttpStatusServer, SlowAndIdleClientsDoNotBlockScrapes) {
  auto h = HttpStatusServer::start("127.0.0.1:0", handlers());
  ASSERT_TRUE(h) << h.error();
  const int port = (*h)->port();
  std::vector<int> slow, idle;
  for (int i = 0; i < 50; ++i) {
    int fd = dial(port);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(send_all(fd, "GET /metr"));
    slow.push_back(fd);
  }
  for (int i = 0; i < 40; ++i) {
    int fd = dial(port);
    ASSERT_GE(fd, 0);
    idle.push_back(fd);
  }
  ASSERT_TRUE(wait_for([&] { return (*h)->open_connections() == 90; })) << (*h)->open_connections();
  std::atomic<bool> done{false};
  std::atomic<int> drips{0};
  std::thread dripper([&] {
    while (!done.load()) {
      for (int fd : slow) send_all(fd, "x");
      ++drips;
      for (int i = 0; i < 150 && !done.load(); ++i) std::this_thread::sleep_for(10ms);
    }
  });
  ASSERT_TRUE(wait_for([&] { return drips.load() >= 2; }, 3000ms));  // a drip 1.5 s after the first
  for (int i = 0; i < 5; ++i) {
    auto t0 = Clock::now();
    Reply r = get(port, "/metrics");
    double ms = ms_since(t0);
    EXPECT_EQ(r.code, 200) << "scrape " << i;
    EXPECT_EQ(r.body, "cuzk_up 1\n") << "scrape " << i;
    EXPECT_LT(ms, 1000.0) << "scrape " << i;
    std::this_thread::sleep_for(100ms);
  }
  // The slow and idle clients were held, not dropped, while the scrapes were served.
  int open = 0;
  for (int fd : slow) open += still_open(fd);
  for (int fd : idle) open += still_open(fd);
  EXPECT_EQ(open, 90);
  EXPECT_EQ((*h)->open_connections(), 90);

  auto t0 = Clock::now();
  (*h)->stop();
  EXPECT_LT(ms_since(t0), 1000.0);
  done = true;
  dripper.join();
  EXPECT_GE(ms_until_closed(slow[0], 1000ms), 0.0);
  EXPECT_GE(ms_until_closed(idle[0], 1000ms), 0.0);
  for (int fd : slow) ::close(fd);
  for (int fd : idle) ::close(fd);
}

TEST(HttpStatusServer, OversizedRequestsAreRefusedAndTheServerGoesOn) {
  auto h = HttpStatusServer::start("127.0.0.1:0", handlers());  // 8 KiB of request line and headers
  ASSERT_TRUE(h) << h.error();
  const int port = (*h)->port();
  // Just under the limit: served (404 for the long path, 200 with the long header).
  EXPECT_EQ(request(port, "GET /" + std::string(8000, 'a') + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").code,
            404);
  EXPECT_EQ(request(port, "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\nX-Big: " + std::string(8000, 'b') +
                              "\r\n\r\n")
                .code,
            200);
  // Over it: evhttp answers 400 and closes.
  Reply line = request(port, "GET /" + std::string(9000, 'a') + " HTTP/1.1\r\nHost: t\r\n\r\n");
  EXPECT_EQ(line.code, 400) << line.head;
  Reply header = request(port, "GET /metrics HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(9000, 'b') + "\r\n\r\n");
  EXPECT_EQ(header.code, 400) << header.head;
  Reply body = request(port, "POST /status HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n");
  EXPECT_EQ(body.code, 413) << body.head;
  EXPECT_EQ(get(port, "/metrics").body, "cuzk_up 1\n");
  EXPECT_TRUE(wait_for([&] { return (*h)->open_connections() == 0; })) << (*h)->open_connections();
}

TEST(HttpStatusServer, ConnectionLimitIdleTimeoutAndLifetime) {
  HttpStatusLimits lim;
  lim.max_connections = 4;
  lim.idle_timeout = 600ms;
  lim.connection_lifetime = 1500ms;
  auto h = HttpStatusServer::start("127.0.0.1:0", handlers(), lim);
  ASSERT_TRUE(h) << h.error();
  const int port = (*h)->port();

  // Over the limit: closed at once, without a response.
  std::vector<int> held;
  for (int i = 0; i < 4; ++i) held.push_back(dial(port));
  ASSERT_TRUE(wait_for([&] { return (*h)->open_connections() == 4; })) << (*h)->open_connections();
  int extra = dial(port);
  ASSERT_GE(extra, 0);
  double refused = ms_until_closed(extra, 1000ms);
  EXPECT_GE(refused, 0.0);
  EXPECT_LT(refused, 300.0);
  ::close(extra);

  // Idle connections are closed after idle_timeout, then scrapes are served again.
  auto t0 = Clock::now();
  for (int fd : held) EXPECT_GE(ms_until_closed(fd, 2000ms), 0.0);
  EXPECT_GT(ms_since(t0), 400.0);
  for (int fd : held) ::close(fd);
  EXPECT_EQ(get(port, "/metrics").code, 200);

  // A client that is never idle (a byte every 200 ms) is closed at connection_lifetime.
  int slow = dial(port);
  ASSERT_GE(slow, 0);
  t0 = Clock::now();
  ASSERT_TRUE(send_all(slow, "GET /metr"));
  double closed_at = -1;
  while (ms_since(t0) < 4000) {
    std::this_thread::sleep_for(200ms);
    if (!send_all(slow, "x") || !still_open(slow)) {
      closed_at = ms_since(t0);
      break;
    }
  }
  ::close(slow);
  EXPECT_GT(closed_at, 1200.0);
  EXPECT_LT(closed_at, 2500.0);
  EXPECT_TRUE(wait_for([&] { return (*h)->open_connections() == 0; })) << (*h)->open_connections();
  EXPECT_EQ(get(port, "/status").code, 200);
}

// Out of descriptors, accept() fails on every loop turn: the listener pauses for a second instead
// of spinning, and the waiting client is served once descriptors are back.
TEST(HttpStatusServer, AcceptFailuresPauseInsteadOfSpinning) {
  auto h = HttpStatusServer::start("127.0.0.1:0", handlers());
  ASSERT_TRUE(h) << h.error();
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &old), 0);
  int lowest = ::dup(0);
  ASSERT_GE(lowest, 0);
  ::close(lowest);
  rlimit tight = old;
  tight.rlim_cur = rlim_t(lowest) + 1;  // room for the client's socket only
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &tight), 0);
  rusage r0{}, r1{};
  ::getrusage(RUSAGE_SELF, &r0);
  int fd = dial((*h)->port());
  std::this_thread::sleep_for(700ms);  // the server's accept() fails with EMFILE meanwhile
  ::getrusage(RUSAGE_SELF, &r1);
  ::setrlimit(RLIMIT_NOFILE, &old);
  ASSERT_GE(fd, 0);
  auto cpu_ms = [](const rusage& r) {
    return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
  };
  EXPECT_LT(cpu_ms(r1) - cpu_ms(r0), 200.0);  // a spinning loop would burn ~700 ms
  ASSERT_TRUE(send_all(fd, "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
  Reply r = parse(read_to_eof(fd));  // within the 1 s pause and the 3 s receive timeout
  ::close(fd);
  EXPECT_EQ(r.code, 200);
  EXPECT_EQ(r.body, "cuzk_up 1\n");
}

TEST(HttpStatusServer, Ipv6Loopback) {
  auto h = HttpStatusServer::start("[::1]:0", handlers());
  if (!h && h.error().find("cannot bind") != std::string::npos) GTEST_SKIP() << "no IPv6 loopback: " << h.error();
  ASSERT_TRUE(h) << h.error();
  EXPECT_EQ((*h)->endpoint(), "[::1]:" + std::to_string((*h)->port()));
  Reply r = request((*h)->port(), "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", true);
  EXPECT_EQ(r.code, 200);
  EXPECT_EQ(r.body, "cuzk_up 1\n");
}

}  // namespace
}  // namespace cuzk::server
