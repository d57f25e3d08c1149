// The table of proof kinds a daemon serves: one row per kind, registered by the executable
// (kinds/builtin_kinds.hpp), so the engine itself names no proof family. Everything the engine, the
// server and the tools say about a kind derives from its row: the wire value and its proto name, the
// name in logs and /status, the Prometheus label (and the zero series every row gets from the
// start), the default priority of a request that leaves priority unset, the spellings cuzk-bench
// accepts, the JobKind that proves it, the KeyLoaders of the keys it uses, and whether its proof is
// bound to a chain deadline.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "engine/key_loader.hpp"
#include "engine/types.hpp"

namespace cuzk::engine {

class JobKind;

// Which ProofRequest fields a kind reads, for tools that build requests (cuzk-bench): what it
// requires, and what it defaults.
struct RequestInputs {
  bool c1 = false;              // vanilla_proof: PoRep's C1 output (cuzk-bench --c1)
  bool vanilla_proofs = false;  // the list of vanilla proofs: PoSt sectors, SnapDeals partitions (--vanilla)
  bool randomness = false;      // 32 bytes of chain randomness (--randomness; cuzk-bench sends zeros without it)
  bool comm_rs = false;         // SnapDeals' comm_r_old, comm_r_new, comm_d_new
  bool witness = false;         // circuit_id and a .wtns (--circuit-id, --wtns or --wtns-path)
};

struct KindRow {
  std::uint32_t wire = 0;  // cuzk.v1.ProofKind value
  std::string wire_name;   // the proto enum name
  std::string name;        // logs, /status, job errors ("generic-groth16")
  Priority default_priority = Priority::kNormal;
  std::vector<std::string> aliases;  // other spellings a tool accepts ("generic", "groth16")
  std::shared_ptr<JobKind> kind;
  std::vector<std::shared_ptr<const KeyLoader>> loaders;
  // Its proof is worth nothing once a chain deadline passes (WindowPoSt, WinningPoSt): by default a
  // job of it is cancelled when the last caller waiting for it goes away (scheduler.cancel_abandoned).
  bool deadline_bound = false;
  // What a tool sends as the request's registered_proof when it is given none (cuzk-bench: the 32 GiB
  // code of PoSt and SnapDeals; 0: none, the input carries it), and the code of a registered-proof
  // name ("StackedDrgWindow32GiBV1_1"); no function: the kind takes numbers only.
  std::uint64_t default_registered_proof = 0;
  std::function<Result<std::uint64_t>(std::string_view name)> registered_proof_by_name;
  RequestInputs inputs;

  std::string label() const;  // Prometheus label value: name with '-' as '_'
};

class KindRegistry {
 public:
  // Refuses a row whose wire value, name or alias is taken, or that has no name or JobKind.
  Status add(KindRow row);
  // Adds or replaces the row for row.wire (tests swap in their own kinds).
  void put(KindRow row);

  const KindRow* find(std::uint32_t wire) const;
  // By name, alias or wire_name (case-insensitive), e.g. cuzk-bench's -t.
  const KindRow* find(std::string_view name) const;
  const std::vector<KindRow>& rows() const { return rows_; }  // by wire value

  std::string name(std::uint32_t wire) const;  // "kind-<n>" when no row has it
  std::string label(std::uint32_t wire) const;
  // Wire values of the kinds named (name, alias or wire name), or an error naming the first unknown.
  Result<std::vector<std::uint32_t>> wires(const std::vector<std::string>& names) const;
  // The kinds whose rows are deadline_bound.
  std::vector<std::uint32_t> deadline_bound() const;
  // The request's priority: 0 takes the kind's default, 1..4 are the wire values, anything else NORMAL
  // (the Rust daemon's mapping).
  Priority priority(std::uint32_t wire_priority, std::uint32_t kind) const;
  // "unknown proof_kind 7 (expected 1 <WIRE_NAME>, ... or 1000 GENERIC_GROTH16)".
  std::string unknown_kind_message(std::uint32_t wire) const;
  // Every row's loaders, in row order.
  std::vector<std::shared_ptr<const KeyLoader>> loaders() const;

 private:
  std::vector<KindRow> rows_;
};

}  // namespace cuzk::engine
