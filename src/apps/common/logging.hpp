// The executables' log set-up: every named spdlog logger (daemon, engine, srs, server) writes to one
// shared stderr sink, so that journald gets everything, at a level per logger resolved from the
// config, the command line and RUST_LOG; as text or as one JSON object per line. The app's main
// reads the environment (RUST_LOG, else CUZK_LOG) and passes the value in; nothing here reads it.
//
// Levels: `level` (logging.level, or --log-level, which the caller has already applied) is the
// base; the filter, when set, wins (cuzk-behaviour.md §2.1: RUST_LOG over --log-level over the file).
// Filter syntax is RUST_LOG's directives, comma separated: `LEVEL` (sets the base) or
// `TARGET=LEVEL`, e.g. "info,cuzk_core=debug,cuzk_server::service=trace". A TARGET is one of our
// logger names, or a crate of the Rust daemon, which names the loggers doing that crate's work:
//   cuzk_core -> engine, srs     cuzk_server -> server     cuzk_daemon -> daemon
// and "crate::module" means the crate's loggers. Crate directives apply first, then logger names
// (the more specific), each group in order. An unknown target (tonic=warn) is ignored with one
// warning; a bad level or directive is a one-line error. LEVEL: trace, debug, info, warn, error,
// off (any case). Unlike Rust's EnvFilter, a filter without a bare LEVEL keeps the base level for
// the loggers it does not name, instead of turning them down to error.
//
// Formats:
//   text  "2024-05-01T12:00:00.123 info engine: job ... done"   (local time; colours on a tty)
//   json  {"time":"2024-05-01T10:00:00.123Z","level":"info","target":"engine","msg":"job ... done"}
//         one object per line, time in UTC (RFC 3339, ms); level is trace, debug, info, warn,
//         error or critical; msg is JSON-escaped and invalid UTF-8 becomes U+FFFD (JsonLogFormatter).
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <spdlog/formatter.h>
#include <spdlog/spdlog.h>

#include "base/result.hpp"

namespace cuzk::apps {

struct LogSettings {
  std::string level = "info";   // logging.level, or --log-level
  std::string format = "text";  // "text" or "json"
  std::string filter;           // RUST_LOG (else CUZK_LOG) as the app read it; "" when unset
  std::string app = "daemon";   // the default logger's name (spdlog::info(...) lines carry it)
};

// Every logger name setup_logging creates (the targets a filter may name besides the crates).
const std::vector<std::string>& known_loggers();

// The effective level of every known logger, and the filter's targets that name none.
struct LogLevels {
  spdlog::level::level_enum base = spdlog::level::info;
  std::map<std::string, spdlog::level::level_enum> loggers;  // one entry per known_loggers() name
  std::vector<std::string> unknown_targets;
};
// `level` must be one of the LEVEL names; `filter` as above ("" = none).
Result<LogLevels> resolve_log_levels(const std::string& level, std::string_view filter);

// Writes one JSON object per message (see above), "\n"-terminated.
class JsonLogFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

// Creates the shared stderr sink and every known logger on it, sets the levels and the format,
// and makes `app` the default logger. Logs one warning when the filter names unknown targets.
// Errors (bad level, bad filter, unknown format) are one line naming what; nothing is changed then.
Status setup_logging(const LogSettings& settings);

// While alive, logs "<what>: still running (<N> s)" at info on the default logger every `every`,
// from a thread of its own (a long key load says it is alive). Destroying it stops the thread.
class StillRunning {
 public:
  StillRunning(std::string what, std::chrono::milliseconds every = std::chrono::seconds(10));
  ~StillRunning();
  StillRunning(const StillRunning&) = delete;
  StillRunning& operator=(const StillRunning&) = delete;

 private:
  std::string what_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace cuzk::apps
