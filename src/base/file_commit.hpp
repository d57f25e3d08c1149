// Files replaced all at once (issue 41 item 2): a writer writes "<path>.tmp-<pid>", then
// commit_tmp_file flushes it, syncs it to the disk (fsync) and renames it over `path`. A process
// killed at any point, or a power loss after the rename, leaves either the old file or the whole
// new one under the name — never a part of it (at worst a stray .tmp-<pid>, which nothing reads).
// Used by every file cuzk writes for later use: keys (.params, .vk, .meta, .zkey), the tools'
// proofs and JSON, the shape cache.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/result.hpp"

namespace cuzk {

inline std::string tmp_name_for(const std::string& path) { return path + ".tmp-" + std::to_string(::getpid()); }

// Takes `f` (open on `tmp`) and closes it; on any failure `tmp` is removed and the error names
// `path` and the reason.
inline Status commit_tmp_file(std::FILE* f, const std::string& tmp, const std::string& path) {
  bool ok = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  int e = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    return Error{path + ": write failed: " + std::strerror(e)};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    e = errno;
    std::remove(tmp.c_str());
    return Error{path + ": cannot rename " + tmp + " into place: " + std::strerror(e)};
  }
  return ok_status();
}

}  // namespace cuzk
