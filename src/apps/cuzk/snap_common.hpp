// What the SnapDeals subcommands share (cmd_snap.cpp, cmd_snap_encode.cpp, cmd_gen_vanilla.cpp,
// cmd_snap_prove.cpp, cmd_setup.cpp):
//   --update-proof NAME   go-state-types RegisteredUpdateProof (StackedDrg2KiBV1 … StackedDrg64GiBV1, also
//                         with the RegisteredUpdateProof_ prefix) or its code 0–4
//   --comm-r-old / --comm-r-new / --comm-d-new HEX   the request's commitments, 64 hex digits each (the
//                         raw 32 LE bytes), each a field element (snap::check_commitments)
// and the sector folders: DIR (a `cuzk seal` output: DIR/sealed, DIR/comm.json with sector_size,
// comm_c, comm_r_last, comm_r) and DIR2 (a `cuzk snap-encode` output: DIR2/data, DIR2/sealed,
// DIR2/comm.json with comm_r_old, comm_r_new, comm_d_new, …). The updated sector is always rebuilt
// from DIR/sealed and DIR2/data (testkit::encode_update), and every commitment the folders state is
// compared with the rebuilt trees, so a stale or mixed-up folder is refused with a line naming the
// file and field. Every error is one line; the callers exit 2 on it.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "apps/cuzk/common.hpp"
#include "base/result.hpp"
#include "filecoin/common/bytes32.hpp"
#include "filecoin/snap/config.hpp"
#include "filecoin/snap/public_inputs.hpp"
#include "filecoin/testkit/snap_vanilla.hpp"

namespace cuzk::cli {

struct UpdateOptions {
  std::string proof, comm_r_old, comm_r_new, comm_d_new;
  bool poseidon = false;
};

struct UpdateRequest {
  const filecoin::snap::UpdateConfig* config = nullptr;
  filecoin::snap::SnapGeometry geometry;  // the partitioned variant, or the Poseidon one with --poseidon
  filecoin::snap::SnapCommitments comms;
};

inline void add_update_proof_option(CLI::App* sub, UpdateOptions& o) {
  sub->add_option("--update-proof", o.proof,
                  "registered update proof: StackedDrg2KiBV1, StackedDrg8MiBV1, StackedDrg512MiBV1, StackedDrg32GiBV1, "
                  "StackedDrg64GiBV1, or its code 0-4")
      ->required();
}

inline void add_poseidon_flag(CLI::App* sub, UpdateOptions& o) {
  sub->add_flag("--poseidon", o.poseidon,
                "the single-partition SnapDeals-Poseidon variant (library feature, NOT AUDITED upstream; no registered "
                "code reaches it)");
}

inline void add_update_options(CLI::App* sub, UpdateOptions& o) {
  add_update_proof_option(sub, o);
  sub->add_option("--comm-r-old", o.comm_r_old, "comm_r of the sealed sector, 64 hex digits (32 LE bytes)")->required();
  sub->add_option("--comm-r-new", o.comm_r_new, "comm_r of the updated replica, 64 hex digits")->required();
  sub->add_option("--comm-d-new", o.comm_d_new, "comm_d of the new data, 64 hex digits")->required();
}

// The registered proof and (with_comms) the commitments, each checked.
inline Result<UpdateRequest> parse_update_options(const UpdateOptions& o, bool with_comms = true) {
  UpdateRequest r;
  auto c = filecoin::snap::update_config_by_name(o.proof);
  if (!c) return Error{"--update-proof: " + c.error()};
  r.config = *c;
  if (o.poseidon) {
    auto g = filecoin::snap::snap_geometry(r.config->sector_size, filecoin::snap::UpdateVariant::kPoseidon);
    if (!g) return Error{"--poseidon: " + g.error()};
    r.geometry = *g;
  } else {
    r.geometry = r.config->geometry;
  }
  if (!with_comms) return r;
  for (auto [flag, text, out] : {std::tuple{"--comm-r-old", &o.comm_r_old, &r.comms.comm_r_old},
                                 {"--comm-r-new", &o.comm_r_new, &r.comms.comm_r_new},
                                 {"--comm-d-new", &o.comm_d_new, &r.comms.comm_d_new}}) {
    auto b = filecoin::bytes32_from_hex(*text);
    if (!b) return Error{std::string(flag) + ": must be 64 hex digits (32 bytes): " + b.error()};
    *out = *b;
  }
  if (auto pub = filecoin::snap::check_commitments(r.comms); !pub) return Error{pub.error()};
  return r;
}

// ---- Sector folders.

inline Result<nlohmann::json> read_json_object(const std::string& path) {
  auto bytes = read_file(path);
  if (!bytes) return Error{bytes.error()};
  nlohmann::json j = nlohmann::json::parse(bytes->begin(), bytes->end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{path + ": not a JSON object"};
  return j;
}

inline Result<filecoin::Bytes32> json_hex(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_string()) return Error{where + ": no string field \"" + key + "\""};
  auto b = filecoin::bytes32_from_hex(j[key].get<std::string>());
  if (!b) return Error{where + ": \"" + key + "\": " + b.error()};
  return *b;
}

inline Result<std::uint64_t> json_u64(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number_unsigned()) return Error{where + ": no unsigned field \"" + key + "\""};
  return j[key].get<std::uint64_t>();
}

// A file of exactly `nodes` 32-byte nodes.
inline Result<std::vector<filecoin::Bytes32>> read_nodes(const std::string& path, std::uint64_t nodes) {
  auto bytes = read_file(path);
  if (!bytes) return Error{bytes.error()};
  if (bytes->size() != nodes * 32)
    return Error{path + ": " + std::to_string(bytes->size()) + " bytes, expected the sector's " +
                 std::to_string(nodes * 32)};
  std::vector<filecoin::Bytes32> out(nodes);
  for (std::uint64_t n = 0; n < nodes; ++n) std::copy_n(bytes->data() + 32 * n, 32, out[n].begin());
  return out;
}

// A `cuzk seal` folder: its sector size's update proof, comm_c / comm_r_last / comm_r and the replica.
struct SealedFolder {
  const filecoin::snap::UpdateConfig* config = nullptr;
  filecoin::Bytes32 comm_c{}, comm_r_last{}, comm_r{};
  std::vector<filecoin::Bytes32> replica;
};

inline Result<SealedFolder> load_sealed_folder(const std::string& dir) {
  const std::string comm_path = dir + "/comm.json";
  auto j = read_json_object(comm_path);
  if (!j) return Error{j.error()};
  auto size = json_u64(*j, "sector_size", comm_path);
  if (!size) return Error{size.error()};
  SealedFolder f;
  auto c = filecoin::snap::update_config_by_sector_size(*size);
  if (!c) return Error{comm_path + ": sector_size " + std::to_string(*size) + ": " + c.error()};
  f.config = *c;
  for (auto [key, out] : {std::pair{"comm_c", &f.comm_c}, {"comm_r_last", &f.comm_r_last}, {"comm_r", &f.comm_r}}) {
    auto b = json_hex(*j, key, comm_path);
    if (!b) return Error{b.error()};
    *out = *b;
  }
  auto replica = read_nodes(dir + "/sealed", f.config->geometry.nodes);
  if (!replica) return Error{replica.error()};
  f.replica = std::move(*replica);
  return f;
}

// The update of `sealed` by `data` (sector-size padded nodes), checked against DIR's comm.json: tree R
// old's root must be its comm_r_last and Poseidon2(comm_c, root) its comm_r.
inline Result<filecoin::testkit::UpdatedSector> encode_checked(const std::string& dir, const SealedFolder& sealed,
                                                               const std::vector<filecoin::Bytes32>& data) {
  auto s = filecoin::testkit::encode_update(sealed.config->geometry, sealed.replica, sealed.comm_c, data);
  if (!s) return Error{s.error()};
  if (s->comm_r_last_old != sealed.comm_r_last)
    return Error{dir + "/sealed: tree R's root differs from " + dir + "/comm.json's comm_r_last"};
  if (s->comm_r_old != sealed.comm_r) return Error{dir + "/comm.json: comm_r is not Poseidon(comm_c, comm_r_last)"};
  return s;
}

// DIR2/comm.json checked against the rebuilt update (every commitment it states, and the sector size).
inline Status check_updated_comm(const std::string& dir2, const filecoin::testkit::UpdatedSector& s,
                                 const filecoin::snap::UpdateConfig& config) {
  const std::string path = dir2 + "/comm.json";
  auto j = read_json_object(path);
  if (!j) return Error{j.error()};
  auto size = json_u64(*j, "sector_size", path);
  if (!size) return Error{size.error()};
  if (*size != config.sector_size)
    return Error{path + ": sector_size " + std::to_string(*size) + ", the sealed sector has " +
                 std::to_string(config.sector_size)};
  for (auto [key, want] : {std::pair{"comm_r_old", &s.comm_r_old},
                           {"comm_r_new", &s.comm_r_new},
                           {"comm_d_new", &s.comm_d_new},
                           {"comm_c", &s.comm_c},
                           {"comm_r_last_new", &s.comm_r_last_new}}) {
    auto b = json_hex(*j, key, path);
    if (!b) return Error{b.error()};
    if (*b != *want)
      return Error{path + ": \"" + key + "\" differs from the update rebuilt from the sector and " + dir2 + "/data"};
  }
  return ok_status();
}

inline void print_comms(FILE* to, const filecoin::snap::SnapCommitments& c) {
  std::fprintf(to, "comm_r_old=%s\ncomm_r_new=%s\ncomm_d_new=%s\n", filecoin::bytes32_hex(c.comm_r_old).c_str(),
               filecoin::bytes32_hex(c.comm_r_new).c_str(), filecoin::bytes32_hex(c.comm_d_new).c_str());
}

inline std::string comms_json(const filecoin::snap::SnapCommitments& c) {
  auto q = [](const filecoin::Bytes32& b) { return "\"" + filecoin::bytes32_hex(b) + "\""; };
  return "{\n  \"comm_r_old\": " + q(c.comm_r_old) + ",\n  \"comm_r_new\": " + q(c.comm_r_new) +
         ",\n  \"comm_d_new\": " + q(c.comm_d_new) + "\n}\n";
}

}  // namespace cuzk::cli
