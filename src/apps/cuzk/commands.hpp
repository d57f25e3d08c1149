// Subcommands of the `cuzk` tool. Each register_* adds one subcommand to the app; its callback sets
// the process exit code through the returned reference. Exit codes: 0 success, 1 a proof that does
// not verify, 2 bad input or usage (with a one-line error on stderr).
#pragma once

#include <CLI/CLI.hpp>

namespace cuzk::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitError = 2;

void register_prove(CLI::App& app, int& exit_code);
void register_verify(CLI::App& app, int& exit_code);
void register_setup(CLI::App& app, int& exit_code);
void register_params(CLI::App& app, int& exit_code);
void register_inspect(CLI::App& app, int& exit_code);
void register_porep(CLI::App& app, int& exit_code);
void register_porep_c2(CLI::App& app, int& exit_code);     // prove-porep, verify-porep
void register_seal(CLI::App& app, int& exit_code);         // SDR sealing of test sectors -> replica, comm.json, c1.json
void register_gen_c1(CLI::App& app, int& exit_code);       // SYNTHETIC TEST DATA C1 of any size, without sealing
void register_post(CLI::App& app, int& exit_code);         // post list|stats|inputs|check
void register_gen_vanilla(CLI::App& app, int& exit_code);  // PoSt vanilla proofs: sealed or SYNTHETIC sectors
void register_post_prove(CLI::App& app, int& exit_code);   // prove-post, verify-post
void register_snap_encode(CLI::App& app, int& exit_code);  // SnapDeals test inputs from a `cuzk seal` sector
void register_snap(CLI::App& app, int& exit_code);         // snap stats|inputs|check
void register_snap_prove(CLI::App& app, int& exit_code);   // prove-snap, verify-snap

// Prints "cuzk <cmd>: <message>" to stderr and returns kExitError.
int fail(const std::string& cmd, const std::string& message);

}  // namespace cuzk::cli
