#include "apps/common/logging.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <optional>

#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>

#include "base/text.hpp"

namespace cuzk::apps {
namespace {

using spdlog::level::level_enum;

std::optional<level_enum> parse_level(std::string_view s) {
  const std::string l = ascii_lower(trim_space(s));
  if (l == "trace") return spdlog::level::trace;
  if (l == "debug") return spdlog::level::debug;
  if (l == "info") return spdlog::level::info;
  if (l == "warn") return spdlog::level::warn;
  if (l == "error") return spdlog::level::err;
  if (l == "off") return spdlog::level::off;
  return std::nullopt;
}

// The Rust daemon's crates and the loggers that do their work here.
const std::map<std::string, std::vector<std::string>>& crates() {
  static const std::map<std::string, std::vector<std::string>> m{
      {"cuzk_core", {"engine", "srs"}}, {"cuzk_server", {"server"}}, {"cuzk_daemon", {"daemon"}}};
  return m;
}

const char* json_level(level_enum l) {
  switch (l) {
    case spdlog::level::trace: return "trace";
    case spdlog::level::debug: return "debug";
    case spdlog::level::info: return "info";
    case spdlog::level::warn: return "warn";
    case spdlog::level::err: return "error";
    case spdlog::level::critical: return "critical";
    default: return "off";
  }
}

}  // namespace

const std::vector<std::string>& known_loggers() {
  static const std::vector<std::string> names{"daemon", "engine", "server", "srs"};
  return names;
}

Result<LogLevels> resolve_log_levels(const std::string& level, std::string_view filter) {
  LogLevels out;
  auto base = parse_level(level);
  if (!base) return Error{"log level \"" + level + "\": expected trace, debug, info, warn, error or off"};
  out.base = *base;
  // (loggers, level) per directive: crate directives first, then logger names, each in order.
  std::vector<std::pair<std::vector<std::string>, level_enum>> by_crate, by_name;
  std::string_view rest = filter;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view d = trim_space(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (d.empty()) continue;
    if (d.find_first_of("[]{}") != std::string_view::npos)
      return Error{"log filter \"" + std::string(filter) + "\": directive \"" + std::string(d) +
                   "\": span filters are not supported; use LEVEL or TARGET=LEVEL"};
    const std::size_t eq = d.find('=');
    if (eq == std::string_view::npos) {
      auto l = parse_level(d);
      if (!l) {
        // A bare target (RUST_LOG "cuzk_core") means that target at trace.
        by_name.push_back({{std::string(d)}, spdlog::level::trace});
        continue;
      }
      out.base = *l;
      continue;
    }
    const std::string target(trim_space(d.substr(0, eq)));
    auto l = parse_level(d.substr(eq + 1));
    if (!l)
      return Error{"log filter \"" + std::string(filter) + "\": directive \"" + std::string(d) + "\": level \"" +
                   std::string(trim_space(d.substr(eq + 1))) + "\" is not trace, debug, info, warn, error or off"};
    if (target.empty() || target.find(' ') != std::string::npos)
      return Error{"log filter \"" + std::string(filter) + "\": directive \"" + std::string(d) +
                   "\": expected TARGET=LEVEL"};
    by_name.push_back({{target}, *l});
  }
  // Sort the target directives into crates and logger names; keep the unknown ones to report.
  std::vector<std::pair<std::vector<std::string>, level_enum>> names;
  for (auto& [targets, l] : by_name) {
    const std::string& t = targets.front();
    const std::string crate = t.substr(0, t.find("::"));
    if (auto it = crates().find(crate); it != crates().end()) {
      by_crate.push_back({it->second, l});
    } else if (std::find(known_loggers().begin(), known_loggers().end(), t) != known_loggers().end()) {
      names.push_back({targets, l});
    } else if (std::find(out.unknown_targets.begin(), out.unknown_targets.end(), t) == out.unknown_targets.end()) {
      out.unknown_targets.push_back(t);
    }
  }
  for (const auto& n : known_loggers()) out.loggers[n] = out.base;
  for (auto* group : {&by_crate, &names})
    for (const auto& [targets, l] : *group)
      for (const auto& t : targets) out.loggers[t] = l;
  return out;
}

// ---- JSON lines

void JsonLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  using namespace std::chrono;
  const auto since = msg.time.time_since_epoch();
  const auto secs = duration_cast<seconds>(since);
  const auto ms = duration_cast<milliseconds>(since - secs).count();
  const std::time_t t = std::time_t(secs.count());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[80];
  std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, int(ms));
  // ordered_json keeps the fields in this order; dump() escapes quotes, backslashes and control
  // characters, and `replace` turns invalid UTF-8 into U+FFFD instead of throwing.
  nlohmann::ordered_json j;
  j["time"] = stamp;
  j["level"] = json_level(msg.level);
  j["target"] = std::string(msg.logger_name.data(), msg.logger_name.size());
  j["msg"] = std::string(msg.payload.data(), msg.payload.size());
  const std::string line = j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  dest.append(line.data(), line.data() + line.size());
  dest.push_back('\n');
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter::clone() const { return std::make_unique<JsonLogFormatter>(); }

// ---- set-up

Status setup_logging(const LogSettings& s) {
  if (s.format != "text" && s.format != "json")
    return Error{"logging.format \"" + s.format + "\": expected \"text\" or \"json\""};
  auto levels = resolve_log_levels(s.level, s.filter);
  if (!levels) return Error{levels.error()};

  // One sink for every logger: a line is never interleaved with another, and all go to stderr.
  spdlog::sink_ptr sink;
  if (s.format == "json") sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  else sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();

  std::vector<std::string> names = known_loggers();
  if (std::find(names.begin(), names.end(), s.app) == names.end()) names.push_back(s.app);
  spdlog::drop_all();  // a second set-up (tests) replaces the loggers of the first
  spdlog::set_level(levels->base);
  spdlog::details::registry::instance().set_levels(
      spdlog::details::registry::log_levels(levels->loggers.begin(), levels->loggers.end()), &levels->base);
  // The registry's formatter is what loggers created later (engine/log.hpp) are given: set it
  // before any logger is initialised, so that none resets the shared sink to the default pattern.
  if (s.format == "json") spdlog::set_formatter(std::make_unique<JsonLogFormatter>());
  else spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %n: %v");
  spdlog::flush_on(spdlog::level::info);
  for (const auto& n : names) {
    auto logger = std::make_shared<spdlog::logger>(n, sink);
    spdlog::initialize_logger(logger);
    if (n == s.app) spdlog::set_default_logger(logger);
  }
  if (!levels->unknown_targets.empty()) {
    std::string unknown, known;
    for (const auto& t : levels->unknown_targets) unknown += (unknown.empty() ? "" : ", ") + t;
    for (const auto& n : known_loggers()) known += (known.empty() ? "" : ", ") + n;
    for (const auto& [c, _] : crates()) known += ", " + c;
    spdlog::warn("log filter \"{}\": unknown target(s) {} ignored (known: {})", s.filter, unknown, known);
  }
  return ok_status();
}

// ---- progress

StillRunning::StillRunning(std::string what, std::chrono::milliseconds every) : what_(std::move(what)) {
  thread_ = std::thread([this, every] {
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lk(mu_);
    while (!cv_.wait_for(lk, every, [this] { return done_; })) {
      const auto s = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - t0).count();
      spdlog::info("{}: still running ({} s)", what_, s);
    }
  });
}

StillRunning::~StillRunning() {
  {
    std::lock_guard<std::mutex> g(mu_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

}  // namespace cuzk::apps
