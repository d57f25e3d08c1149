// `cuzk snap-encode --sector DIR --data FILE --out DIR2`: a SnapDeals update of a `cuzk seal` sector
// (TEST INPUTS, without Lotus; testkit/snap_vanilla.hpp encode_update, FIP-0019):
//   DIR    a `cuzk seal` folder: DIR/sealed (replica), DIR/comm.json (sector_size, comm_c, comm_r_last,
//          comm_r); tree R is rebuilt from the replica and checked against comm.json
//   FILE   the new data, either
//            unpadded bytes, at most sector_size·127/128: zero-filled to that size and fr32-padded, or
//            exactly sector_size bytes, already fr32-padded (every node's two top bits zero)
//          any other size is refused
// Writes DIR2/sealed (the updated replica), DIR2/data (the padded data), DIR2/p_aux (comm_c ‖
// comm_r_last_new, 64 raw bytes, as Curio's update-cache p_aux) and DIR2/comm.json:
//   {registered_update_proof, registered_update_proof_code, sector_size, comm_r_old, comm_r_new,
//    comm_d_new, comm_c, comm_r_last_old, comm_r_last_new, data}  (hex = the raw 32 LE bytes)
// and prints the three commitments. In-memory: sizes up to 512 MiB.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "apps/common/input_file.hpp"
#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/snap_common.hpp"
#include "filecoin/testkit/fr32.hpp"

namespace cuzk::cli {
namespace snap = filecoin::snap;
namespace testkit = filecoin::testkit;

namespace {

struct EncodeArgs {
  std::string sector_dir, data_file, out_dir;
};

// The padded data nodes of `file` for a sector of `sector_size` bytes (see the header).
Result<std::vector<filecoin::Bytes32>> load_data(const std::string& file, std::uint64_t sector_size) {
  auto bytes = read_file(file);
  if (!bytes) return Error{bytes.error()};
  const std::uint64_t unpadded = testkit::unpadded_size(sector_size);
  if (bytes->size() == sector_size) {
    std::vector<filecoin::Bytes32> nodes(sector_size / 32);
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      std::copy_n(bytes->data() + 32 * n, 32, nodes[n].begin());
      if (nodes[n][31] & 0xc0)
        return Error{file + ": " + std::to_string(sector_size) + " bytes are taken as fr32-padded data, but node " +
                     std::to_string(n) + " has its top two bits set"};
    }
    return nodes;
  }
  if (bytes->size() > unpadded)
    return Error{file + ": " + std::to_string(bytes->size()) + " bytes; give at most " + std::to_string(unpadded) +
                 " unpadded bytes or exactly " + std::to_string(sector_size) + " fr32-padded bytes"};
  bytes->resize(unpadded, 0);
  return testkit::fr32_pad(*bytes);
}

std::string updated_comm_json(const snap::UpdateConfig& c, const testkit::UpdatedSector& s, const std::string& data) {
  auto q = [](const std::string& v) { return "\"" + v + "\""; };
  auto h = [&](const filecoin::Bytes32& b) { return q(filecoin::bytes32_hex(b)); };
  std::string j = "{\n";
  j += "  \"registered_update_proof\": " + q(c.name) + ",\n";
  j += "  \"registered_update_proof_code\": " + std::to_string(c.code) + ",\n";
  j += "  \"sector_size\": " + std::to_string(c.sector_size) + ",\n";
  j += "  \"comm_r_old\": " + h(s.comm_r_old) + ",\n";
  j += "  \"comm_r_new\": " + h(s.comm_r_new) + ",\n";
  j += "  \"comm_d_new\": " + h(s.comm_d_new) + ",\n";
  j += "  \"comm_c\": " + h(s.comm_c) + ",\n";
  j += "  \"comm_r_last_old\": " + h(s.comm_r_last_old) + ",\n";
  j += "  \"comm_r_last_new\": " + h(s.comm_r_last_new) + ",\n";
  nlohmann::json d = data;
  j += "  \"data\": " + d.dump() + "\n";
  j += "}\n";
  return j;
}

int run_encode(const EncodeArgs& a) {
  const std::string cmd = "snap-encode";
  try {
    Stopwatch clock;
    auto sealed = load_sealed_folder(a.sector_dir);
    if (!sealed) return fail(cmd, sealed.error());
    const snap::UpdateConfig& config = *sealed->config;
    auto data = load_data(a.data_file, config.sector_size);
    if (!data) return fail(cmd, data.error());
    auto s = encode_checked(a.sector_dir, *sealed, *data);
    if (!s) return fail(cmd, s.error());
    const double encode_ms = clock.ms();

    std::error_code ec;
    std::filesystem::create_directories(a.out_dir, ec);
    if (ec) return fail(cmd, a.out_dir + ": cannot create: " + ec.message());
    const std::string dir = a.out_dir + "/";
    const std::vector<std::uint8_t> replica = s->new_replica_bytes();
    std::vector<std::uint8_t> padded(data->size() * 32);
    for (std::size_t n = 0; n < data->size(); ++n)
      std::copy(data->at(n).begin(), data->at(n).end(), padded.begin() + 32 * n);
    std::vector<std::uint8_t> p_aux(s->comm_c.begin(), s->comm_c.end());
    p_aux.insert(p_aux.end(), s->comm_r_last_new.begin(), s->comm_r_last_new.end());
    const std::string comm = updated_comm_json(config, *s, a.data_file);
    for (auto [name, bytes] : {std::pair<const char*, std::span<const std::uint8_t>>{"sealed", replica},
                               {"data", padded},
                               {"p_aux", p_aux},
                               {"comm.json", {reinterpret_cast<const std::uint8_t*>(comm.data()), comm.size()}}})
      if (auto st = write_file(dir + name, bytes); !st) return fail(cmd, st.error());
    print_comms(stdout, s->commitments());
    std::fprintf(stderr, "cuzk %s: %s sector updated (P=%zu) in %.0f ms -> %s\n", cmd.c_str(), config.name.c_str(),
                 config.geometry.partitions, encode_ms, a.out_dir.c_str());
    return kExitOk;
  } catch (const std::exception& e) {
    return fail(cmd, e.what());
  }
}

}  // namespace

void register_snap_encode(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<EncodeArgs>();
  auto* cmd = app.add_subcommand(
      "snap-encode",
      "SnapDeals TEST INPUTS: encode new data into a `cuzk seal` sector (updated replica, comm.json, p_aux)");
  cmd->add_option("--sector", a->sector_dir, "a `cuzk seal` output folder (sealed, comm.json)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--data", a->data_file,
                  "the new data: at most sector_size*127/128 unpadded bytes (zero-filled, fr32-padded here) or exactly "
                  "sector_size fr32-padded bytes")
      ->required()
      ->check(apps::InputFile);
  cmd->add_option("--out", a->out_dir, "output folder (sealed, data, p_aux, comm.json)")->required();
  add_threads_option(cmd);
  cmd->callback([a, &exit_code] { exit_code = run_encode(*a); });
}

}  // namespace cuzk::cli
