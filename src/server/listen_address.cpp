#include "server/listen_address.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace cuzk::server {

std::string ListenAddress::grpc_target() const { return unix_socket ? "unix:" + path : host + ":" + port; }
std::string ListenAddress::display() const { return unix_socket ? "unix://" + path : host + ":" + port; }

Status check_listen_address(const std::string& addr) {
  if (addr.empty()) return Error{"empty listen address"};
  if (addr.rfind("unix:", 0) == 0) {
    std::string path = addr.rfind("unix://", 0) == 0 ? addr.substr(7) : addr.substr(5);
    if (path.empty() || path[0] != '/')
      return Error{"\"" + addr + "\": a unix socket needs an absolute path (unix:///run/cuzk.sock)"};
    if (path.size() > 100) return Error{"\"" + addr + "\": unix socket paths are limited to about 100 characters"};
    return ok_status();
  }
  auto colon = addr.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 >= addr.size()) {
    return Error{"\"" + addr + "\": expected host:port, [ipv6]:port or unix:///path"};
  }
  std::string port = addr.substr(colon + 1);
  for (char c : port)
    if (!std::isdigit(static_cast<unsigned char>(c))) return Error{"\"" + addr + "\": the port is not a number"};
  if (port.size() > 5 || std::stoul(port) > 65535) return Error{"\"" + addr + "\": the port is out of range"};
  if (addr[0] == '[' && addr[colon - 1] != ']') return Error{"\"" + addr + "\": unbalanced [ ] around an IPv6 address"};
  return ok_status();
}

Result<ListenAddress> parse_listen_address(const std::string& text) {
  std::string t = text;
  for (const char* scheme : {"http://", "https://", "dns:///"}) {
    if (t.rfind(scheme, 0) == 0) t = t.substr(std::strlen(scheme));
  }
  while (!t.empty() && t.back() == '/' && t.rfind("unix:", 0) != 0) t.pop_back();
  if (auto st = check_listen_address(t); !st) return Error{st.error()};
  ListenAddress a;
  if (t.rfind("unix:", 0) == 0) {
    a.unix_socket = true;
    a.path = t.rfind("unix://", 0) == 0 ? t.substr(7) : t.substr(5);
    return a;
  }
  auto colon = t.rfind(':');
  a.host = t.substr(0, colon);
  a.port = t.substr(colon + 1);
  return a;
}

Status prepare_unix_socket(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  if (ec) return Error{"cannot create " + p.parent_path().string() + ": " + ec.message()};
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return ok_status();  // nothing there
  if (!S_ISSOCK(st.st_mode)) return Error{path + " exists and is not a socket; not removing it"};
  // Is someone accepting on it?
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, path.c_str(), sizeof(sa.sun_path) - 1);
    int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
    ::close(fd);
    if (rc == 0) return Error{"another process is already listening on unix://" + path};
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return Error{"cannot remove stale socket " + path + ": " + std::strerror(errno)};
  }
  return ok_status();
}

}  // namespace cuzk::server
