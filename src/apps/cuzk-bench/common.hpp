// cuzk-bench's shared pieces: the global and per-proof options, request building from them, the
// daemon connection, and the JSON/timeline outputs every subcommand uses. One file per subcommand
// beside it (cmd_single, cmd_batch, cmd_daemon); main.cpp wires the command line.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "apps/cuzk-bench/client.hpp"
#include "apps/cuzk-bench/timeline_svg.hpp"
#include "base/result.hpp"
#include "engine/kind_registry.hpp"
#include "engine/types.hpp"

namespace cuzk::bench {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct Global {
  std::string addr = "http://127.0.0.1:9820";
  std::string log_level = "info";
  bool json = false;
  std::string max_message = "512MiB";
  std::string token_file;  // --token-file: the bearer token for a daemon's TCP listener
  std::string tls_ca;      // --tls-ca: PEM roots for a daemon's TLS listener
};

struct ProofArgs {
  std::string type;
  std::vector<std::string> c1;  // single: one file; batch: cycled over
  std::string vanilla;
  std::string out;         // single: write the proof bytes here
  std::string proofs_dir;  // batch: write every completed proof here (and index.tsv)
  // A number, or for PoSt a registered-proof name (StackedDrgWindow32GiBV1_1, …V1_2 aliases); empty:
  // wpost 13 and winning 3 (32 GiB, the Rust gen-vanilla defaults), 0 for the other kinds.
  std::string registered_proof;
  std::uint64_t sector_num = 1, miner_id = 1000, sector_size = 0;
  std::uint32_t partition = 0;
  std::string randomness, comm_r_old, comm_r_new, comm_d_new;
  std::string circuit_id, wtns, wtns_path;
  std::string priority;
  std::string request_id;
  std::string timeline;
  std::uint32_t count = 3, concurrency = 1;
};

int usage_error(const std::string& msg);
Result<std::string> read_file(const std::string& path);
Result<std::string> hex_decode(const std::string& flag, std::string_view h);
std::string hex_encode(const std::string& b);
const engine::KindRegistry& kind_table();
Result<std::uint32_t> parse_type(const std::string& t);
Result<engine::ProofRequest> build_request(const ProofArgs& a, std::size_t c1_index = 0);
Result<std::unique_ptr<Client>> connect(const Global& g);
json timings_json(const engine::JobResult& r);
Status write_timeline(const std::string& path, const std::vector<TimelineJob>& jobs, const std::string& title);
void add_proof_options(CLI::App* sub, ProofArgs& a, bool batch);

int run_single(const Global& g, const ProofArgs& a);
int run_batch(const Global& g, const ProofArgs& a);
int run_status(const Global& g);
int run_metrics(const Global& g);
int run_preload(const Global& g, const std::string& id);
int run_evict(const Global& g, const std::string& id);
int run_cancel(const Global& g, const std::string& job);
int run_register(const Global& g, const std::string& id, const std::string& zkey, bool preload);

}  // namespace cuzk::bench
