// `cuzk inspect FILE`: what a parameter, key, circuit or witness file holds — sizes, counts, domain,
// per-section offsets — read from its headers and counts only; the big point vectors are never
// decoded (the verifying key of a .params/.vk file is, with subgroup checks, since it is small).
//
//   .params / .vk / .meta   bellperson / Filecoin (formats/bellperson)
//   .r1cs / .wtns / .zkey   iden3 binfile container headers (formats/binfile.hpp)
// The type is taken from the file's magic when it is a binfile, else from the extension, else by
// trying the bellperson layouts.
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "apps/common/input_file.hpp"
#include "apps/cuzk/commands.hpp"
#include "filecoin/params/cache_names.hpp"
#include "filecoin/params/verify.hpp"
#include "formats/bellperson/params.hpp"
#include "formats/bellperson/writer.hpp"
#include "formats/binfile.hpp"
#include "formats/snarkjs_common.hpp"

namespace cuzk::cli {
namespace {

namespace bp = formats::bellperson;
namespace fp = filecoin::params;

std::string human_bytes(std::uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(n);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[64];
  if (u == 0) std::snprintf(buf, sizeof buf, "%" PRIu64 " B", n);
  else std::snprintf(buf, sizeof buf, "%" PRIu64 " bytes (%.2f %s)", n, v, units[u]);
  return buf;
}

std::string base_name(const std::string& path) {
  auto p = path.find_last_of('/');
  return p == std::string::npos ? path : path.substr(p + 1);
}

std::string extension(const std::string& path) {
  std::string b = base_name(path);
  auto p = b.find_last_of('.');
  return p == std::string::npos ? "" : b.substr(p + 1);
}

void print_filecoin_name(const std::string& path) {
  if (auto cfg = fp::find_config_for_file(base_name(path))) {
    std::cout << "filecoin:     " << cfg->label() << " (" << cfg->stem << ")\n";
    if (std::uint32_t want = fp::expected_num_inputs(*cfg)) {
      std::cout << "              the circuit has " << want << " inputs (ONE included)\n";
    }
  }
}

void print_sections(const bp::Layout& lay) {
  std::printf("%-7s %12s %16s %16s %16s\n", "section", "count", "count offset", "points offset", "bytes");
  for (const auto& s : lay.sections) {
    if (s.section == bp::Section::kVk) {
      std::printf("%-7s %12s %16s %16" PRIu64 " %16" PRIu64 "\n", "vk", "6 points", "-", s.offset, s.bytes());
    } else {
      std::printf("%-7s %12" PRIu32 " %16" PRIu64 " %16" PRIu64 " %16" PRIu64 "\n", bp::section_name(s.section),
                  s.count, s.count_offset, s.offset, s.bytes());
    }
  }
  std::fflush(stdout);
}

int inspect_params(const std::string& path) {
  auto f = bp::ParamsFile::open(path);
  if (!f) return fail("inspect", f.error());
  const auto& lay = f->layout();
  std::cout << "file:         " << path << "\n"
            << "format:       bellperson Groth16 parameters (.params)\n"
            << "size:         " << human_bytes(f->file_size()) << "\n"
            << "domain:       2^" << f->domain_log2() << " rows (h has " << lay.get(bp::Section::kH).count
            << " points)\n"
            << "inputs:       " << f->num_inputs() << " (ONE included), " << (f->num_inputs() ? f->num_inputs() - 1 : 0)
            << " public inputs to the verifier\n"
            << "aux:          " << f->num_aux() << " variables (l)\n"
            << "A query:      " << lay.get(bp::Section::kA).count << " points = " << f->num_inputs() << " inputs + "
            << (lay.get(bp::Section::kA).count >= f->num_inputs() ? lay.get(bp::Section::kA).count - f->num_inputs()
                                                                  : 0)
            << " aux with A density\n"
            << "B query:      " << lay.get(bp::Section::kBG1).count
            << " points in G1 and in G2 (inputs and aux with B density)\n"
            << "vk:           " << lay.vk_bytes()
            << " bytes at offset 0 (the .vk prefix); points decoded, subgroup checked\n";
  print_filecoin_name(path);
  print_sections(lay);
  return kExitOk;
}

int inspect_vk(const std::string& path) {
  auto v = bp::read_vk_file(path);
  if (!v) return fail("inspect", v.error());
  std::cout << "file:         " << path << "\n"
            << "format:       bellperson Groth16 verifying key (.vk)\n"
            << "size:         " << human_bytes(v->layout.file_size) << "\n"
            << "inputs:       " << v->vk.ic.size() << " ic points (ONE included), " << v->vk.num_public_inputs()
            << " public inputs to the verifier\n"
            << "vk:           points decoded, subgroup checked\n";
  print_filecoin_name(path);
  print_sections(v->layout);
  return kExitOk;
}

int inspect_meta(const std::string& path) {
  auto m = bp::read_meta_file(path);
  if (!m) return fail("inspect", m.error());
  std::cout << "file:         " << path << "\n"
            << "format:       rust-fil-proofs parameter metadata (.meta)\n"
            << "sector_size:  " << m->sector_size << " (" << fp::sector_size_name(m->sector_size) << ")\n";
  print_filecoin_name(path);
  return kExitOk;
}

// Section table of an iden3 binfile plus the fields of its header section.
int inspect_binfile(const std::string& path, const std::string& magic) {
  std::uint32_t max_version = magic == "wtns" ? 2 : 1;
  auto bf = formats::BinFile::open(path, magic, 1, max_version);
  if (!bf) return fail("inspect", bf.error());
  std::cout << "file:         " << path << "\n"
            << "format:       " << magic << " (iden3 binfile, version " << bf->version() << ")\n"
            << "size:         " << human_bytes(bf->bytes().size()) << "\n";
  auto field = [&](std::uint32_t sec, const char* what) -> std::span<const std::uint8_t> {
    auto s = bf->section(sec, what);
    return s ? *s : std::span<const std::uint8_t>{};
  };
  auto prime_text = [](std::span<const std::uint8_t> p) { return formats::describe_prime(p); };
  if (magic == "r1cs") {
    auto h = field(1, "header");
    formats::ByteCursor c(h);
    std::uint32_t n8 = c.u32();
    auto prime = c.bytes(n8);
    std::uint32_t wires = c.u32(), pub_out = c.u32(), pub_in = c.u32(), prv_in = c.u32();
    std::uint64_t labels = c.u64();
    std::uint32_t constraints = c.u32();
    if (h.empty() || c.remaining() != 0 || prime.size() != n8) return fail("inspect", path + ": malformed r1cs header");
    std::uint64_t rows = std::uint64_t(constraints) + 1 + pub_out + pub_in;
    std::uint32_t log = 0;
    while ((std::uint64_t(1) << log) < rows) ++log;
    std::cout << "prime:        " << prime_text(prime) << "\n"
              << "wires:        " << wires << " (1 + " << pub_out << " public outputs + " << pub_in
              << " public inputs + " << (wires - 1 - pub_out - pub_in) << " private, of which " << prv_in
              << " private inputs)\n"
              << "constraints:  " << constraints << " (+ " << (1 + pub_out + pub_in) << " input rows = " << rows
              << "; domain 2^" << log << ")\n"
              << "labels:       " << labels << "\n";
  } else if (magic == "wtns") {
    auto h = field(1, "header");
    formats::ByteCursor c(h);
    std::uint32_t n8 = c.u32();
    auto prime = c.bytes(n8);
    std::uint32_t n = c.u32();
    if (h.empty() || prime.size() != n8) return fail("inspect", path + ": malformed wtns header");
    std::cout << "prime:        " << prime_text(prime) << "\n"
              << "witness:      " << n << " values\n";
  } else if (magic == "zkey") {
    auto s1 = field(1, "protocol");
    std::uint32_t protocol = s1.size() >= 4 ? formats::load_u32le(s1.data()) : 0;
    auto h = field(2, "groth16 header");
    formats::ByteCursor c(h);
    std::uint32_t n8q = c.u32();
    auto q = c.bytes(n8q);
    std::uint32_t n8r = c.u32();
    auto r = c.bytes(n8r);
    std::uint32_t vars = c.u32(), pub = c.u32(), domain = c.u32();
    if (h.empty() || q.size() != n8q || r.size() != n8r) return fail("inspect", path + ": malformed zkey header");
    std::cout << "protocol:     " << (protocol == 1 ? "groth16" : std::to_string(protocol)) << "\n"
              << "base field:   " << prime_text(q) << "\n"
              << "scalar field: " << prime_text(r) << "\n"
              << "variables:    " << vars << " (1 + " << pub << " public + " << (vars >= pub + 1 ? vars - pub - 1 : 0)
              << " private)\n"
              << "domain:       " << domain << " rows\n";
  }
  std::printf("%-8s %16s %16s\n", "section", "offset", "bytes");
  for (const auto& s : bf->sections())
    std::printf("%-8" PRIu32 " %16" PRIu64 " %16" PRIu64 "\n", s.id, s.offset, s.size);
  std::fflush(stdout);
  return kExitOk;
}

std::string read_magic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char m[4] = {};
  if (!in.read(m, 4)) return "";
  return std::string(m, 4);
}

int inspect(const std::string& path) {
  std::string magic = read_magic(path);
  if (magic == "r1cs" || magic == "wtns" || magic == "zkey") return inspect_binfile(path, magic);
  std::string ext = extension(path);
  if (ext == "params") return inspect_params(path);
  if (ext == "vk") return inspect_vk(path);
  if (ext == "meta") return inspect_meta(path);
  if (ext == "r1cs" || ext == "wtns" || ext == "zkey") {
    return fail("inspect", path + ": not a ." + ext + " file (the magic is not \"" + ext + "\")");
  }
  // Unknown extension: try the bellperson layouts (their errors are the most specific).
  if (bp::ParamsFile::open(path)) return inspect_params(path);
  if (bp::read_vk_file(path)) return inspect_vk(path);
  if (bp::read_meta_file(path)) return inspect_meta(path);
  return fail("inspect", path + ": unrecognised file (expected .params, .vk, .meta, .r1cs, .wtns or .zkey)");
}

}  // namespace

void register_inspect(CLI::App& app, int& exit_code) {
  auto file = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "inspect",
      "Print what a .params/.vk/.meta/.r1cs/.wtns/.zkey file holds (sizes, counts, domain, sections) "
      "without decoding its point vectors");
  cmd->add_option("file", *file, "the file")->required()->check(apps::InputFile);
  cmd->callback([file, &exit_code] { exit_code = inspect(*file); });
}

}  // namespace cuzk::cli
