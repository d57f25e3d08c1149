#include "server/auth.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <sys/stat.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cuzk::server {
namespace {

namespace fs = std::filesystem;

std::array<unsigned char, 32> digest(std::string_view s) {
  std::array<unsigned char, 32> d{};
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), d.data());
  return d;
}

// `p` (lexically normal, absolute) is `dir` or below it, compared by components.
bool under(const fs::path& p, const fs::path& dir) {
  auto pi = p.begin();
  for (auto di = dir.begin(); di != dir.end(); ++di, ++pi) {
    if (di->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *di) return false;
  }
  return true;
}

fs::path normal(const std::string& s) {
  fs::path p = fs::path(s).lexically_normal();
  if (p.has_relative_path() && p.filename().empty()) p = p.parent_path();  // "/a/b/" -> "/a/b"
  return p;
}

bool under_any(const fs::path& p, const std::vector<std::string>& dirs) {
  for (const auto& d : dirs)
    if (under(p, fs::path(d))) return true;
  return false;
}

}  // namespace

std::string echo(std::string_view text) {
  constexpr std::size_t kMax = 64;
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f) ? char(c) : '?';
  }
  if (text.size() > kMax) out += "...(" + std::to_string(text.size()) + " bytes)";
  return out;
}

Result<std::string> read_token_file(const std::string& path, std::string* warning) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Error{path + ": cannot read the token file: " + std::strerror(errno)};
  if (!S_ISREG(st.st_mode)) return Error{path + ": the token file is not a regular file"};
  if (st.st_mode & S_IROTH) {
    return Error{path + ": the token file is readable by every user; chmod 0600 (or 0640 for a group)"};
  }
  if (st.st_size > 4096) return Error{path + ": the token file is over 4096 bytes; expected one token"};
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error{path + ": cannot read the token file"};
  std::ostringstream ss;
  ss << f.rdbuf();
  std::string t = ss.str();
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!t.empty() && space(t.back())) t.pop_back();
  std::size_t b = 0;
  while (b < t.size() && space(t[b])) ++b;
  t.erase(0, b);
  if (t.empty()) return Error{path + ": the token file is empty"};
  for (unsigned char c : t) {
    if (c < 0x21 || c > 0x7e)
      return Error{path + ": the token has whitespace or non-printable bytes inside; expected one token"};
  }
  if (t.size() < 16)
    return Error{path + ": the token is " + std::to_string(t.size()) +
                 " characters; use at least 16 (e.g. openssl rand -hex 32)"};
  if (warning) {
    warning->clear();
    if (st.st_mode & S_IRGRP) *warning = path + ": the token file is readable by its group";
  }
  return t;
}

Result<Authenticator> Authenticator::create(const AuthOptions& o) {
  Authenticator a;
  a.insecure_ = o.insecure;
  if (!o.client_token.empty()) {
    a.client_ = digest(o.client_token);
    a.has_client_ = true;
  }
  if (!o.admin_token.empty()) {
    a.admin_ = digest(o.admin_token);
    a.has_admin_ = true;
  }
  if (a.has_client_ && a.has_admin_ && o.client_token == o.admin_token) {
    return Error{"the client and admin tokens are the same; give each scope its own token"};
  }
  for (const auto& d : o.allowed_dirs) {
    if (d.empty() || d[0] != '/') return Error{"allowed directory \"" + d + "\": must be an absolute path"};
    std::error_code ec;
    const fs::path c = fs::canonical(d, ec);
    if (ec) return Error{"allowed directory " + d + ": " + ec.message()};
    if (!fs::is_directory(c, ec)) return Error{"allowed directory " + d + ": not a directory"};
    a.configured_.push_back(normal(d).string());
    a.canonical_.push_back(c.string());
  }
  return a;
}

Result<Caller> Authenticator::identify(std::string_view peer, std::optional<std::string_view> authorization) const {
  Caller c;
  // Only a unix listener gives "unix:" peers (TCP peers are "ipv4:..." or "ipv6:..."), and a client
  // cannot choose its peer string.
  if (peer.rfind("unix:", 0) == 0) {
    c.scope = Scope::kAdmin;
    c.identity = "unix";
    c.unix_socket = true;
    return c;
  }
  if (!authorization) {
    if (!tcp_requires_token()) {
      c.identity = "client";
      return c;
    }
    return Error{
        "missing credentials: send the metadata \"authorization: Bearer <token>\" (Curio's cuzk client "
        "sends none: give Curio the daemon's unix socket)"};
  }
  std::string_view v = *authorization;
  constexpr std::string_view kScheme = "bearer ";
  bool scheme = v.size() > kScheme.size();
  for (std::size_t i = 0; scheme && i < kScheme.size(); ++i)
    scheme = std::tolower(static_cast<unsigned char>(v[i])) == kScheme[i];
  if (!scheme) return Error{"malformed authorization metadata: expected \"Bearer <token>\""};
  v.remove_prefix(kScheme.size());
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  const auto d = digest(v);
  // Both comparisons always run, so the time does not tell which scope (if any) matched.
  const bool admin = has_admin_ && CRYPTO_memcmp(d.data(), admin_.data(), d.size()) == 0;
  const bool client = has_client_ && CRYPTO_memcmp(d.data(), client_.data(), d.size()) == 0;
  if (admin) {
    c.scope = Scope::kAdmin;
    c.identity = "admin";
    return c;
  }
  if (client) {
    c.identity = "client";
    return c;
  }
  if (!tcp_requires_token()) {  // insecure without tokens: whatever a caller sends, it is a client
    c.identity = "client";
    return c;
  }
  return Error{"invalid token"};
}

Result<std::string> Authenticator::resolve(std::string_view field, const std::string& path,
                                           const Caller& caller) const {
  const std::string f(field);
  if (canonical_.empty()) {
    if (caller.unix_socket) return path;  // the old behaviour, on the local socket only
    return Error{f + ": file paths are not accepted over TCP on this daemon (no auth.allowed_dirs); send the bytes"};
  }
  if (path.empty() || path[0] != '/') return Error{f + " \"" + echo(path) + "\": must be an absolute path"};
  const std::string refused = f + " \"" + echo(path) + "\": not under an allowed directory (auth.allowed_dirs)";
  // The lexical form first: a path outside every allowed directory is refused without a look at the
  // file system (no answer then depends on what exists there).
  const fs::path lexical = normal(path);
  if (!under_any(lexical, configured_) && !under_any(lexical, canonical_)) return Error{refused};
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(lexical, ec);
  if (ec) return Error{f + " \"" + echo(path) + "\": cannot be resolved: " + ec.message()};
  if (!under_any(real, canonical_)) return Error{refused};  // a symlink inside pointing out
  return real.string();
}

namespace {

// Opens `path` (absolute, symlink-free when checked) read-only with no symlink followed anywhere on
// it: one openat2 RESOLVE_NO_SYMLINKS call, or, where the kernel has none (before 5.6), one openat
// per component with O_NOFOLLOW from "/". O_NONBLOCK: a FIFO there must not wait for a writer.
int open_no_symlinks(const std::string& path) {
  open_how how{};
  how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const long fd = ::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how);
  if (fd >= 0 || errno != ENOSYS) return int(fd);
  int dir = ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  std::size_t pos = 1;
  while (true) {
    const std::size_t next = path.find('/', pos);
    const std::string part = path.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    const bool last = next == std::string::npos;
    const int flags = last ? O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW
                           : O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;
    const int fd2 = part.empty() ? ::dup(dir) : ::openat(dir, part.c_str(), flags);
    const int e = errno;
    ::close(dir);
    if (fd2 < 0) {
      errno = e;
      return -1;
    }
    if (last) return fd2;
    dir = fd2;
    pos = next + 1;
  }
}

}  // namespace

Result<Authenticator::Opened> Authenticator::open(std::string_view field, const std::string& path,
                                                  const Caller& caller) const {
  auto resolved = resolve(field, path, caller);
  if (!resolved) return Error{resolved.error(), ErrorCode::kPermissionDenied};
  const std::string f(field);
  // With no allowed directories (unix callers only) the path is taken as given, symlinks included
  // (the old behaviour), but still opened here, once.
  const int fd = canonical_.empty() ? ::open(resolved->c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
                                    : open_no_symlinks(*resolved);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP) {
      return Error{f + " \"" + echo(path) + "\": a symlink appeared on its path while it was checked; refused",
                   ErrorCode::kPermissionDenied};
    }
    return Error{f + " \"" + echo(path) + "\": cannot open: " + std::strerror(e), ErrorCode::kInvalidArgument};
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{f + " \"" + echo(path) + "\": not a regular file", ErrorCode::kInvalidArgument};
  }
  return Opened{*resolved, fd};
}

}  // namespace cuzk::server
