#include "server/http_status.hpp"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "server/listen_address.hpp"

namespace cuzk::server {
namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  auto c = ms.count() < 0 ? 0 : ms.count();
  return timeval{static_cast<time_t>(c / 1000), static_cast<suseconds_t>((c % 1000) * 1000)};
}

spdlog::logger& server_log() {
  auto log = spdlog::get("server");
  return log ? *log : *spdlog::default_logger();
}

// libevent writes its warnings ("[warn] ...") to stderr; they go to the operator log instead (a
// process-wide setting of libevent's, which only this server uses).
void route_libevent_logs_to_spdlog() {
  static std::once_flag once;
  std::call_once(once, [] {
    event_set_log_callback([](int severity, const char* msg) {
      server_log().log(severity >= EVENT_LOG_ERR    ? spdlog::level::err
                       : severity == EVENT_LOG_WARN ? spdlog::level::warn
                                                    : spdlog::level::debug,
                       "libevent: {}", msg ? msg : "");
    });
  });
}

const char* reason_of(int code) {
  switch (code) {
    case 200: return "OK";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    default: return "Internal Server Error";
  }
}

}  // namespace

struct HttpStatusServer::Impl {
  Handlers handlers;
  HttpStatusLimits limits;
  timeval lifetime{};
  event_base* base = nullptr;
  evhttp* http = nullptr;
  event* wake_ev = nullptr;
  int wake_fd = -1;
  int listen_fd = -1;  // owned here until evhttp takes it
  int port = 0;
  std::string host;
  std::thread thread;
  std::atomic<bool> stopped{false};
  int live = 0;  // loop thread only
  std::atomic<int> live_seen{0};

  ~Impl() {
    if (wake_ev) event_free(wake_ev);
    if (http) evhttp_free(http);  // when the loop never ran; closes the listener and connections
    for (bufferevent* bev : pending) bufferevent_decref(bev);
    if (adopt_ev) event_free(adopt_ev);
    if (resume_ev) event_free(resume_ev);
    if (base) {
      event_base_loop(base, EVLOOP_NONBLOCK);  // run the bufferevents' finalizers
      event_base_free(base);
    }
    if (listen_fd >= 0) ::close(listen_fd);
    if (wake_fd >= 0) ::close(wake_fd);
  }

  // Connections are counted through evhttp's own objects (libevent 2.1 has no connection limit or
  // new-connection hook): evhttp asks on_new_connection for each accepted connection's bufferevent
  // and then makes it call back into that connection, so once the accept callback has returned,
  // the bufferevent's callback argument is its evhttp_connection (checked against
  // evhttp_connection_get_bufferevent). on_adopt then sets a close callback, which evhttp calls
  // exactly once when it closes the socket, and the lifetime deadline.
  struct Conn {
    Impl* impl;
    evhttp_connection* evcon;
    event* deadline;
  };
  event* adopt_ev = nullptr;
  std::vector<bufferevent*> pending;  // handed to evhttp, not yet adopted (each with a reference of ours)

  static bufferevent* on_new_connection(event_base* base, void* arg) {
    auto* im = static_cast<Impl*>(arg);
    bufferevent* bev = bufferevent_socket_new(base, -1, 0);  // what evhttp makes by default
    if (!bev) return nullptr;
    bufferevent_incref(bev);  // kept valid until on_adopt, even if evhttp drops the connection first
    im->pending.push_back(bev);
    event_active(im->adopt_ev, EV_TIMEOUT, 1);  // runs after this accept callback returns
    return bev;
  }

  static void on_adopt(evutil_socket_t, short, void* arg) {
    auto* im = static_cast<Impl*>(arg);
    std::vector<bufferevent*> batch;
    batch.swap(im->pending);
    for (bufferevent* bev : batch) {
      bufferevent_data_cb rd = nullptr, wr = nullptr;
      bufferevent_event_cb ev = nullptr;
      void* cbarg = nullptr;
      bufferevent_getcb(bev, &rd, &wr, &ev, &cbarg);
      auto* evcon = static_cast<evhttp_connection*>(cbarg);
      // No callbacks: evhttp already freed the connection (it failed during accept).
      if (rd && evcon && evhttp_connection_get_bufferevent(evcon) == bev) im->adopt(evcon);
      bufferevent_decref(bev);
    }
  }

  void adopt(evhttp_connection* evcon) {
    if (live >= limits.max_connections) {
      evhttp_connection_free(evcon);  // over the limit: closed at once, nothing read or answered
      return;
    }
    auto* c = new Conn{this, evcon, nullptr};
    c->deadline = evtimer_new(base, &Impl::on_deadline, c);
    if (!c->deadline) {
      delete c;
      evhttp_connection_free(evcon);
      return;
    }
    evtimer_add(c->deadline, &lifetime);
    evhttp_connection_set_closecb(evcon, &Impl::on_closed, c);
    live_seen.store(++live);
  }

  // connection_lifetime reached, however the client is trickling.
  static void on_deadline(evutil_socket_t, short, void* arg) {
    evhttp_connection_free(static_cast<Conn*>(arg)->evcon);  // runs on_closed
  }

  static void on_closed(evhttp_connection*, void* arg) {
    auto* c = static_cast<Conn*>(arg);
    event_free(c->deadline);
    c->impl->live_seen.store(--c->impl->live);
    delete c;
  }

  // accept() failing (EMFILE when the process is out of descriptors) would fire the level-triggered
  // listener on every loop turn; it pauses for a second instead. The error callback's argument is
  // evhttp's, so the Impl is found through the loop thread (one loop, one Impl).
  static thread_local Impl* loop_impl;
  evconnlistener* listener = nullptr;
  event* resume_ev = nullptr;
  static void on_accept_error(evconnlistener* lev, void*) {
    const int err = EVUTIL_SOCKET_ERROR();
    Impl* im = loop_impl;
    if (!im) return;
    evconnlistener_disable(lev);
    timeval pause{1, 0};
    evtimer_add(im->resume_ev, &pause);
    server_log().warn("HTTP status {}:{}: accept failed ({}); not accepting for 1 s", im->host, im->port,
                      evutil_socket_error_to_string(err));
  }
  static void on_resume(evutil_socket_t, short, void* arg) { evconnlistener_enable(static_cast<Impl*>(arg)->listener); }

  static void on_wake(evutil_socket_t, short, void* arg) { event_base_loopbreak(static_cast<Impl*>(arg)->base); }

  static void on_request(evhttp_request* req, void* arg) {
    auto* im = static_cast<Impl*>(arg);
    const evhttp_cmd_type cmd = evhttp_request_get_command(req);
    const evhttp_uri* uri = evhttp_request_get_evhttp_uri(req);
    const char* p = uri ? evhttp_uri_get_path(uri) : nullptr;
    const std::string path = p ? p : "";
    int code = 200;
    std::string type = "text/plain; charset=utf-8", body;
    try {
      if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD) {
        code = 405;
        body = "405 Method Not Allowed\n";
      } else if (path == "/status") {
        type = "application/json";
        body = im->handlers.status_json ? im->handlers.status_json() : "{}";
      } else if (path == "/metrics") {
        type = "text/plain; version=0.0.4; charset=utf-8";
        body = im->handlers.metrics_text ? im->handlers.metrics_text() : "";
      } else {
        code = 404;
        body = "404 Not Found\n";
      }
    } catch (const std::exception& e) {
      code = 500;
      type = "text/plain; charset=utf-8";
      body = std::string("500 rendering ") + path + ": " + e.what() + "\n";
    } catch (...) {
      code = 500;
      type = "text/plain; charset=utf-8";
      body = "500 rendering " + path + ": unknown exception\n";
    }
    evkeyvalq* h = evhttp_request_get_output_headers(req);
    evhttp_add_header(h, "Content-Type", type.c_str());
    evhttp_add_header(h, "Content-Length", std::to_string(body.size()).c_str());
    evhttp_add_header(h, "Access-Control-Allow-Origin", "*");
    if (code == 405) evhttp_add_header(h, "Allow", "GET, HEAD");
    // evhttp writes whatever is in the output buffer, HEAD or not: HEAD gets the headers only.
    if (cmd != EVHTTP_REQ_HEAD) evbuffer_add(evhttp_request_get_output_buffer(req), body.data(), body.size());
    evhttp_send_reply(req, code, reason_of(code), nullptr);
  }

  void loop() {
    // evbuffer writes can raise SIGPIPE when a client has gone; blocked on this thread they fail
    // with EPIPE instead (the daemon also ignores it process-wide; tests and other hosts may not).
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &s, nullptr);
    loop_impl = this;
    event_base_dispatch(base);
    evhttp_free(http);  // closes the listener and every connection, slow ones included
    http = nullptr;
    event_base_loop(base, EVLOOP_NONBLOCK);
  }
};

thread_local HttpStatusServer::Impl* HttpStatusServer::Impl::loop_impl = nullptr;

HttpStatusServer::HttpStatusServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpStatusServer::~HttpStatusServer() { stop(); }

Result<std::unique_ptr<HttpStatusServer>> HttpStatusServer::start(const std::string& addr, Handlers handlers,
                                                                  HttpStatusLimits limits) {
  auto a = parse_listen_address(addr);
  if (!a) return Error{"status_listen: " + a.error()};
  if (a->unix_socket) return Error{"status_listen: the HTTP status server listens on TCP only"};
  if (limits.max_connections < 1) return Error{"status_listen: max_connections must be at least 1"};
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
  impl->limits = limits;
  impl->lifetime = to_timeval(limits.connection_lifetime);
  impl->host = a->host;
  std::string last_err = "no address";
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
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

  route_libevent_logs_to_spdlog();
  Impl* im = impl.get();
  im->base = event_base_new();
  if (!im->base) return Error{"status_listen " + addr + ": event_base_new failed"};
  im->http = evhttp_new(im->base);
  if (!im->http) return Error{"status_listen " + addr + ": evhttp_new failed"};
  timeval idle = to_timeval(limits.idle_timeout);
  evhttp_set_timeout_tv(im->http, &idle);
  evhttp_set_max_headers_size(im->http, static_cast<ev_ssize_t>(limits.max_header_bytes));
  evhttp_set_max_body_size(im->http, static_cast<ev_ssize_t>(limits.max_body_bytes));
  // Every method evhttp parses reaches on_request, which answers 405 to all but GET and HEAD.
  evhttp_set_allowed_methods(im->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT |
                                           EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |
                                           EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
  evhttp_set_gencb(im->http, &Impl::on_request, im);
  im->adopt_ev = event_new(im->base, -1, 0, &Impl::on_adopt, im);
  if (!im->adopt_ev) return Error{"status_listen " + addr + ": event_new failed"};
  evhttp_set_bevcb(im->http, &Impl::on_new_connection, im);
  evhttp_bound_socket* bound = evhttp_accept_socket_with_handle(im->http, im->listen_fd);
  if (!bound) return Error{"status_listen " + addr + ": evhttp cannot accept on the socket"};
  im->listen_fd = -1;  // evhttp's now (closed by evhttp_free)
  im->listener = evhttp_bound_socket_get_listener(bound);
  im->resume_ev = evtimer_new(im->base, &Impl::on_resume, im);
  if (!im->resume_ev) return Error{"status_listen " + addr + ": event_new failed"};
  evconnlistener_set_error_cb(im->listener, &Impl::on_accept_error);
  im->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (im->wake_fd < 0) return Error{"status_listen: eventfd: " + std::string(std::strerror(errno))};
  im->wake_ev = event_new(im->base, im->wake_fd, EV_READ, &Impl::on_wake, im);
  if (!im->wake_ev || event_add(im->wake_ev, nullptr) != 0) return Error{"status_listen: cannot watch the stop event"};
  im->thread = std::thread([im] { im->loop(); });
  return std::unique_ptr<HttpStatusServer>(new HttpStatusServer(std::move(impl)));
}

int HttpStatusServer::port() const { return impl_->port; }
std::string HttpStatusServer::endpoint() const { return impl_->host + ":" + std::to_string(impl_->port); }
int HttpStatusServer::open_connections() const { return impl_->live_seen.load(); }

void HttpStatusServer::stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(impl_->wake_fd, &one, sizeof one);
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace cuzk::server
