// Who may call cuzk.v1.ProvingEngine, with what rights, and which files a request may name (issue 28
// item 1; the operator's rules are docs/daemon.md, "Access control"). Without these any process that
// could reach a TCP port could make the daemon open any host file, replace circuits, evict keys and
// cancel other clients' jobs.
//
//   * A caller over a unix socket is admin without a token: the socket file's mode and group are
//     the credential (GrpcServer sets them).
//   * Over TCP a caller sends `authorization: Bearer <token>`: the admin token gives the admin scope,
//     the client token the client scope; anything else is refused. Tokens are compared as SHA-256
//     digests with CRYPTO_memcmp, so the time taken says nothing about the token.
//   * With `insecure` and no client token, a TCP caller without a token has the client scope (the
//     operator asked for it explicitly).
//   * A path in a request is accepted only when it lies under one of allowed_dirs, checked on the
//     lexical form first (a path outside never touches the file system) and again with symlinks
//     resolved; the file is opened there at once (open()), and the engine reads that descriptor. With no allowed_dirs,
//     unix callers keep the old behaviour (any path) and TCP callers may name none.
// Errors are one line and never contain a file's bytes; echoed request text is bounded (echo()).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace cuzk::server {

enum class Scope : std::uint8_t { kClient, kAdmin };

struct Caller {
  Scope scope = Scope::kClient;
  // Recorded as the owner of the jobs it submits: "unix", "admin" or "client". A client may cancel
  // the jobs of its own identity; the admin scope any job.
  std::string identity;
  bool unix_socket = false;
  bool admin() const { return scope == Scope::kAdmin; }
};

struct AuthOptions {
  std::string client_token;  // "" = none
  std::string admin_token;   // "" = none
  bool insecure = false;     // TCP callers without a token are clients when there is no client token
  // Directories under which request paths may lie, as configured (absolute). resolve() checks them.
  std::vector<std::string> allowed_dirs;
};

// Reads a token file: the whole file with surrounding whitespace trimmed. Refuses a missing or
// unreadable file, an empty token, a token with whitespace or control characters inside, and a file
// other users may read (mode & 0007): one line naming the file. `warning` receives a line when the
// file's group may read it.
Result<std::string> read_token_file(const std::string& path, std::string* warning = nullptr);

// The first 64 bytes of untrusted text for an error message, non-printable bytes as '?', and
// "...(N bytes)" when cut.
std::string echo(std::string_view text);

class Authenticator {
 public:
  // Fails when an allowed directory is relative, missing or not a directory.
  static Result<Authenticator> create(const AuthOptions& options);

  // Whether TCP callers must send a token (some token is configured, or insecure is off).
  bool tcp_requires_token() const { return has_client_ || has_admin_ || !insecure_; }
  bool has_tokens() const { return has_client_ || has_admin_; }

  // The caller of one RPC. `peer` is ServerContext::peer() ("unix:..." for unix sockets, "ipv4:"/
  // "ipv6:" for TCP); `authorization` the metadata value, nullopt when absent. An error is the
  // UNAUTHENTICATED message.
  Result<Caller> identify(std::string_view peer, std::optional<std::string_view> authorization) const;

  // The path the engine may open for `field` ("witness_path", "zkey_path"), or the refusal.
  Result<std::string> resolve(std::string_view field, const std::string& path, const Caller& caller) const;

  // resolve(), then the file opened there at once, read-only, without following any symlink on the
  // way (openat2 RESOLVE_NO_SYMLINKS; O_NOFOLLOW per component where the kernel lacks it): a symlink
  // swapped in after the check is refused, not followed. Refuses what is not a regular file. The
  // engine reads the descriptor, so the file checked is the file read (issue 41 item 6).
  struct Opened {
    std::string path;  // resolved, for logs and errors
    int fd = -1;       // the caller owns it
  };
  Result<Opened> open(std::string_view field, const std::string& path, const Caller& caller) const;

  const std::vector<std::string>& allowed_dirs() const { return canonical_; }

 private:
  using Digest = std::array<unsigned char, 32>;
  Digest client_{}, admin_{};
  bool has_client_ = false, has_admin_ = false, insecure_ = false;
  std::vector<std::string> configured_;  // lexically normal, as configured
  std::vector<std::string> canonical_;   // symlinks resolved
};

}  // namespace cuzk::server
