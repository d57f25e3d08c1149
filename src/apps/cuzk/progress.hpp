// Progress lines of the long-running subcommands (`cuzk setup`, `seal`, `gen-c1`): the library calls
// take an optional progress callback, and the app turns its reports into at most one stderr line
// every `interval` seconds ("cuzk setup: 37% of the key's points (section h, 4.1 of 11.0 M), 41 s"),
// so an operator sees that minutes of work are moving. stdout is never touched: tests and scripts
// parse it. --progress S sets the interval (default 5 s; 0 turns the lines off).
#pragma once

#include <chrono>
#include <cstdarg>
#include <cstdio>

#include <CLI/CLI.hpp>

namespace cuzk::cli {

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  // cmd: the subcommand's name, as the line's prefix; interval_s <= 0: never due.
  ProgressLine(const char* cmd, double interval_s) : cmd_(cmd), interval_s_(interval_s) {}

  bool enabled() const { return interval_s_ > 0; }
  // True when a line may be printed now (the interval has passed since the start or the last line).
  bool due() const { return interval_s_ > 0 && seconds(last_) >= interval_s_; }

  // Prints "cuzk <cmd>: <text>, <elapsed> s" if due(); the text is formatted only then.
  void operator()(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    if (!due()) return;
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "cuzk %s: %s, %.0f s\n", cmd_, text, seconds(start_));
    std::fflush(stderr);
    last_ = Clock::now();
  }

 private:
  static double seconds(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
  const char* cmd_;
  double interval_s_;
  Clock::time_point start_ = Clock::now(), last_ = start_;
};

// --progress S on a subcommand (default 5).
inline void add_progress_option(CLI::App* sub, double& interval_s) {
  sub->add_option("--progress", interval_s, "a progress line on stderr every S seconds at most (default 5; 0: none)")
      ->check(CLI::NonNegativeNumber);
}

}  // namespace cuzk::cli
