// apps/common/logging.hpp: RUST_LOG-style filters resolved to our loggers' levels, the JSON-lines
// formatter's escaping (checked by parsing its output with nlohmann::json), and setup_logging's
// errors.
#include "apps/common/logging.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include <spdlog/sinks/ostream_sink.h>

namespace cuzk::apps {
namespace {

using spdlog::level::level_enum;
namespace lv = spdlog::level;

LogLevels resolve(const std::string& level, const std::string& filter) {
  auto r = resolve_log_levels(level, filter);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? *r : LogLevels{};
}

TEST(LogFilter, NoFilterIsTheBaseLevelEverywhere) {
  auto l = resolve("warn", "");
  EXPECT_EQ(l.base, lv::warn);
  ASSERT_EQ(l.loggers.size(), 4u);
  for (const char* n : {"daemon", "engine", "server", "srs"}) EXPECT_EQ(l.loggers.at(n), lv::warn) << n;
  EXPECT_TRUE(l.unknown_targets.empty());
}

TEST(LogFilter, RustCratesMapToOurLoggers) {
  auto l = resolve("warn", "info,cuzk_core=debug,cuzk_server::service=trace");
  EXPECT_EQ(l.base, lv::info);  // the bare level wins over the config's
  EXPECT_EQ(l.loggers.at("engine"), lv::debug);
  EXPECT_EQ(l.loggers.at("srs"), lv::debug);
  EXPECT_EQ(l.loggers.at("server"), lv::trace);
  EXPECT_EQ(l.loggers.at("daemon"), lv::info);
  EXPECT_TRUE(l.unknown_targets.empty());
}

TEST(LogFilter, LoggerNamesBeatCratesWhateverTheOrder) {
  auto l = resolve("info", " srs = error , cuzk_core=debug,cuzk_daemon=OFF");
  EXPECT_EQ(l.base, lv::info);
  EXPECT_EQ(l.loggers.at("engine"), lv::debug);
  EXPECT_EQ(l.loggers.at("srs"), lv::err);
  EXPECT_EQ(l.loggers.at("daemon"), lv::off);
  EXPECT_EQ(l.loggers.at("server"), lv::info);
  // Within one kind of target the later directive wins; a bare target means trace (Rust's rule).
  l = resolve("info", "engine=warn,engine=debug,server");
  EXPECT_EQ(l.loggers.at("engine"), lv::debug);
  EXPECT_EQ(l.loggers.at("server"), lv::trace);
}

TEST(LogFilter, UnknownTargetsAreListedOnceAndIgnored) {
  auto l = resolve("info", "tonic=warn,h2=error,tonic::transport=debug,tonic=info,engine=debug");
  EXPECT_EQ(l.unknown_targets, (std::vector<std::string>{"tonic", "h2", "tonic::transport"}));
  EXPECT_EQ(l.loggers.at("engine"), lv::debug);
  EXPECT_EQ(l.loggers.at("srs"), lv::info);
}

TEST(LogFilter, BadLevelsAreOneLineErrors) {
  auto r = resolve_log_levels("info", "info,cuzk_core=loud");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "log filter \"info,cuzk_core=loud\": directive \"cuzk_core=loud\": level \"loud\" is not trace, debug, "
            "info, warn, error or off");
  r = resolve_log_levels("chatty", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "log level \"chatty\": expected trace, debug, info, warn, error or off");
  r = resolve_log_levels("info", "=debug");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "log filter \"=debug\": directive \"=debug\": expected TARGET=LEVEL");
  r = resolve_log_levels("info", "cuzk_core[job{id=1}]=debug");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "log filter \"cuzk_core[job{id=1}]=debug\": directive \"cuzk_core[job{id=1}]=debug\": span "
            "filters are not supported; use LEVEL or TARGET=LEVEL");
}

std::string format_json(const std::string& target, level_enum level, std::string_view payload,
                        std::chrono::system_clock::time_point at) {
  spdlog::details::log_msg msg(spdlog::source_loc{}, target, level, payload);
  msg.time = at;
  spdlog::memory_buf_t buf;
  JsonLogFormatter().format(msg, buf);
  return std::string(buf.data(), buf.size());
}

TEST(JsonLines, EscapesEverythingAndParses) {
  const std::string text = "job \"a\\b\" failed:\nline 2\tcol\x01 end";
  // 2023-11-14T22:13:20.042Z
  const auto at = std::chrono::system_clock::time_point(std::chrono::milliseconds(1700000000042));
  const std::string line = format_json("engine", lv::err, text, at);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line per message: " << line;
  auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j.at("msg").get<std::string>(), text);
  EXPECT_EQ(j.at("level").get<std::string>(), "error");
  EXPECT_EQ(j.at("target").get<std::string>(), "engine");
  EXPECT_EQ(j.at("time").get<std::string>(), "2023-11-14T22:13:20.042Z");
  EXPECT_EQ(j.size(), 4u);
  // The field order is fixed: time, level, target, msg.
  EXPECT_EQ(line.rfind("{\"time\":\"2023-11-14T22:13:20.042Z\",\"level\":\"error\",\"target\":\"engine\",\"msg\":", 0),
            0u)
      << line;
  EXPECT_NE(line.find("\\u0001"), std::string::npos) << line;
}

TEST(JsonLines, InvalidUtf8BecomesReplacementCharacters) {
  const std::string text = std::string("ok \xff\xfe bad, \xc3\xa9 good, cut \xe2\x82");
  const auto line = format_json("srs", lv::warn, text, std::chrono::system_clock::time_point{});
  auto j = nlohmann::json::parse(line);  // would throw on invalid UTF-8
  const std::string msg = j.at("msg").get<std::string>();
  EXPECT_EQ(msg.find("\xff"), std::string::npos);
  EXPECT_EQ(msg.rfind("ok \xEF\xBF\xBD", 0), 0u) << msg;                // U+FFFD for the bad bytes
  EXPECT_NE(msg.find(" bad, \xc3\xa9 good, cut "), std::string::npos);  // valid text kept as is
  EXPECT_EQ(msg.substr(msg.size() - 3), "\xEF\xBF\xBD");                // a truncated sequence too
  EXPECT_EQ(j.at("level").get<std::string>(), "warn");
  EXPECT_EQ(j.at("time").get<std::string>(), "1970-01-01T00:00:00.000Z");
}

TEST(SetupLogging, ErrorsChangeNothingAndLevelsApply) {
  auto st = setup_logging({"info", "yaml", "", "daemon"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error(), "logging.format \"yaml\": expected \"text\" or \"json\"");
  st = setup_logging({"info", "json", "cuzk_core=verbose", "daemon"});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("level \"verbose\""), std::string::npos);

  ASSERT_TRUE(setup_logging({"warn", "json", "cuzk_core=debug,srs=trace", "daemon"}).ok());
  ASSERT_NE(spdlog::get("engine"), nullptr);
  EXPECT_EQ(spdlog::get("engine")->level(), lv::debug);
  EXPECT_EQ(spdlog::get("srs")->level(), lv::trace);
  EXPECT_EQ(spdlog::get("server")->level(), lv::warn);
  EXPECT_EQ(spdlog::default_logger()->name(), "daemon");
  EXPECT_EQ(spdlog::default_logger()->level(), lv::warn);
  // Every logger shares the one sink.
  ASSERT_EQ(spdlog::get("engine")->sinks().size(), 1u);
  EXPECT_EQ(spdlog::get("engine")->sinks()[0], spdlog::default_logger()->sinks()[0]);
  EXPECT_EQ(spdlog::get("srs")->sinks()[0], spdlog::default_logger()->sinks()[0]);
  // A second set-up replaces the first.
  ASSERT_TRUE(setup_logging({"error", "text", "", "daemon"}).ok());
  EXPECT_EQ(spdlog::get("engine")->level(), lv::err);
}

TEST(StillRunning, SaysSoEveryPeriodUntilDestroyed) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  sink->set_pattern("%v");
  auto saved = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("t", sink));
  {
    StillRunning w("preloading porep-32g", std::chrono::milliseconds(40));
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
  }
  const std::string first = out.str();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  spdlog::set_default_logger(saved);
  std::size_t n = 0;
  for (std::size_t at = 0; (at = first.find("preloading porep-32g: still running (0 s)\n", at)) != std::string::npos;
       ++at)
    ++n;
  EXPECT_GE(n, 2u) << first;
  EXPECT_LE(n, 4u) << first;
  EXPECT_EQ(out.str(), first) << "a line after the destructor";
}

}  // namespace
}  // namespace cuzk::apps
