// TEST TOOLING: run a function in a forked child and report its peak resident set, so that a test of
// a parser's memory on a hostile input measures that parse alone (the test binary's own heap and the
// other tests do not pollute ru_maxrss). The function returns a string (e.g. the parser's error, or
// empty on acceptance); it comes back through a pipe, with the child's ru_maxrss (getrusage
// RUSAGE_SELF at the end) and its resident set at the start (/proc/self/statm). Linux only.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

namespace cuzk::filecoin::testkit {

struct ChildRun {
  bool exited = false;          // the child ran f and exited 0 (false: it crashed or was killed)
  std::string result;           // f's return value
  std::uint64_t start_rss = 0;  // bytes resident when the child started (shared with the parent)
  std::uint64_t peak_rss = 0;   // ru_maxrss of the child, bytes
  std::uint64_t growth() const { return peak_rss > start_rss ? peak_rss - start_rss : 0; }
};

inline std::uint64_t resident_bytes_now() {
  unsigned long size = 0, resident = 0;
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%lu %lu", &size, &resident) != 2) resident = 0;
  std::fclose(f);
  return std::uint64_t(resident) * std::uint64_t(::sysconf(_SC_PAGESIZE));
}

inline ChildRun run_in_child(const std::function<std::string()>& f) {
  ChildRun out;
  int fds[2];
  if (::pipe(fds) != 0) return out;
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return out;
  if (pid == 0) {
    ::close(fds[0]);
    const std::uint64_t start = resident_bytes_now();
    std::string r = f();
    struct rusage ru {};
    ::getrusage(RUSAGE_SELF, &ru);
    const std::uint64_t head[3] = {start, std::uint64_t(ru.ru_maxrss) * 1024, r.size()};
    bool ok = ::write(fds[1], head, sizeof head) == ssize_t(sizeof head);
    for (std::size_t off = 0; ok && off < r.size();) {
      const ssize_t w = ::write(fds[1], r.data() + off, r.size() - off);
      ok = w > 0;
      off += ok ? std::size_t(w) : 0;
    }
    ::_exit(ok ? 0 : 3);
  }
  ::close(fds[1]);
  std::string buf;
  char chunk[4096];
  for (ssize_t n; (n = ::read(fds[0], chunk, sizeof chunk)) != 0;) {
    if (n < 0) break;
    buf.append(chunk, std::size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::uint64_t head[3] = {};
  if (buf.size() < sizeof head) return out;
  std::memcpy(head, buf.data(), sizeof head);
  out.start_rss = head[0];
  out.peak_rss = head[1];
  out.result = buf.substr(sizeof head, head[2]);
  out.exited = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return out;
}

}  // namespace cuzk::filecoin::testkit
