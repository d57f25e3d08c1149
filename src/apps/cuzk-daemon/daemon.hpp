// The proving daemon as a function, so that one binary can be both the tool and the daemon:
//
//   cuzk-daemon [-c cuzk.toml] [-l ADDR]... [--status-listen ADDR] [--log-level LEVEL] [--check-config]
//   cuzk [--config cuzk.toml] ...    cuzk daemon [...]     (the Rust daemon's command lines)
//
// Curio installs the Rust daemon as /usr/local/bin/cuzk and its documented unit runs
// `cuzk --config /data/zk/cuzk.toml`; the same unit works with ours (apps/cuzk/main.cpp sends that
// form here). The flags are the Rust daemon's (-c/--config, -l/--listen, --log-level) plus ours.
// Returns the exit status: 0 after a clean shutdown, 2 on a usage or start-up error (one line on
// stderr, prefixed with `prog`).
//
// Once serving it prints one line on stdout for supervisors and tests:
// "READY grpc=<endpoint>[,<endpoint>...] http=<endpoint or ->", and tells systemd READY=1
// (Type=notify) when run under it — after the preloaded keys are in memory, so that a unit ordered
// before Curio starts it only once proofs can be taken.
#pragma once

#include <iostream>
#include <string>

#include "base/exception_barrier.hpp"

namespace cuzk::apps {

int run_daemon(int argc, char** argv, const std::string& prog);

// run_daemon behind an exception barrier: whatever escapes the main thread (start-up, shutdown) is
// one line on stderr and exit 2, not an abort. The engine's workers have barriers of their own.
inline int run_daemon_guarded(int argc, char** argv, const std::string& prog) {
  try {
    return run_daemon(argc, argv, prog);
  } catch (...) {
    std::cerr << prog << ": " << current_exception_message() << "\n";
    return 2;
  }
}

}  // namespace cuzk::apps
