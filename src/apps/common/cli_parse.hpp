// Command-line parsing with the exit statuses the docs promise (README, docs/daemon.md): --help and
// --version exit 0, and every usage error (unknown flag, missing or malformed value, missing
// subcommand) is one line on stderr — "<prog>: <what> (see --help)" — and exit 2, where CLI11's own
// exit codes would be 105-109. An exception escaping a subcommand is one line and exit 2 as well.
// Header-only: each executable includes it with its CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <string>

#include "base/exception_barrier.hpp"

namespace cuzk::apps {

inline constexpr int kUsageExit = 2;

// nullopt: parsed, go on; otherwise the exit status to return from main now.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const std::string& prog) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // CLI::Success
    std::cerr << prog << ": " << e.what() << " (see --help)\n";
    return kUsageExit;
  } catch (...) {
    // The subcommands run inside parse(): whatever escapes them (an allocation bounded by nothing,
    // a library's exception) is one line and exit 2, not an abort.
    std::cerr << prog << ": " << current_exception_message() << "\n";
    return kUsageExit;
  }
  return std::nullopt;
}

}  // namespace cuzk::apps
