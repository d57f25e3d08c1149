// The tools' input files, checked when the command line is parsed (issue 41 item 9): a CLI11
// validator, shown as FILE in --help, that refuses at once what would hang or never end if read —
// a device (/dev/zero, /dev/urandom: endless), a FIFO (open() waits for a writer), a socket, a
// directory, and a file of /proc or /sys (they report size 0 and are produced as they are read;
// some without end). Only stat() and statfs() look at the path: nothing is opened, so a FIFO cannot
// block. The readers behind it refuse the same on their own (formats::read_file_bytes); this is
// the one-line exit 2 before any work starts. Header-only, like cli_parse.hpp.
#pragma once

#include <CLI/CLI.hpp>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace cuzk::apps {

// "" when `path` is a regular file outside /proc and /sys, else why not.
inline std::string input_file_problem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return path + ": " + std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return path + ": is a directory, not a file";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return path + ": is a device, not a regular file";
  if (S_ISFIFO(st.st_mode)) return path + ": is a FIFO, not a regular file";
  if (S_ISSOCK(st.st_mode)) return path + ": is a socket, not a regular file";
  if (!S_ISREG(st.st_mode)) return path + ": not a regular file";
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) == 0 && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC)) {
    return path + ": is a /proc or /sys file, not a regular file";
  }
  return {};
}

// ->check(apps::InputFile) on every option that names a file the tool reads.
inline const CLI::Validator InputFile([](std::string& path) { return input_file_problem(path); }, "FILE");

}  // namespace cuzk::apps
