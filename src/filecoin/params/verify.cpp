#include "filecoin/params/verify.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "formats/bellperson/params.hpp"
#include "formats/bellperson/writer.hpp"

namespace cuzk::filecoin::params {
namespace bp = formats::bellperson;

namespace {

std::string join(const std::string& dir, const std::string& file) {
  if (dir.empty()) return file;
  return dir.back() == '/' ? dir + file : dir + "/" + file;
}

FileCheck make_check(const std::string& dir, const std::string& file) {
  FileCheck fc;
  fc.file = file;
  fc.path = join(dir, file);
  return fc;
}

// Fills path/size; returns false (status set) when the file is missing or not a regular file.
bool locate(FileCheck& fc) {
  struct stat st {};
  if (::stat(fc.path.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      fc.status = CheckStatus::kMissing;
    } else {
      fc.status = CheckStatus::kBad;
      fc.reason = std::string("cannot stat: ") + std::strerror(errno);
    }
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    fc.status = CheckStatus::kBad;
    fc.reason = "not a regular file";
    return false;
  }
  fc.size = std::uint64_t(st.st_size);
  return true;
}

void bad(FileCheck& fc, std::string reason) {
  fc.status = CheckStatus::kBad;
  fc.reason = std::move(reason);
}

// Drops a leading "<path>: " from a reader error, since the report line already names the file.
std::string strip_path(const std::string& msg, const std::string& path) {
  std::string prefix = path + ": ";
  return msg.compare(0, prefix.size(), prefix) == 0 ? msg.substr(prefix.size()) : msg;
}

void check_digest(FileCheck& fc, const std::vector<PublishedEntry>& manifest) {
  const PublishedEntry* e = find_published(manifest, fc.file);
  if (!e) return bad(fc, "not in the published manifest, no digest to compare");
  auto d = blake2b512_file_hex(fc.path);
  if (!d) return bad(fc, strip_path(d.error(), fc.path));
  fc.digest_checked = true;
  std::string got = d->substr(0, 32);
  if (got != e->digest) return bad(fc, "BLAKE2b digest " + got + " does not match the published " + e->digest);
  fc.reason += ", digest matches";
}

std::string inputs_text(std::size_t ic) { return std::to_string(ic) + " inputs (ONE included)"; }

}  // namespace

const char* status_name(CheckStatus s) {
  switch (s) {
    case CheckStatus::kOk: return "OK";
    case CheckStatus::kMissing: return "MISSING";
    case CheckStatus::kBad: return "BAD";
  }
  return "?";
}

std::uint32_t expected_num_inputs(const ParamConfig& c) {
  if (c.family != ProofFamily::kPoRep) return 0;
  // replica_id, comm_d, comm_r, then 18 inputs per challenge (filecoin-formats.md 4.2), plus ONE.
  return std::uint32_t(3 + 18 * porep_challenges_per_partition(c.sector_size) + 1);
}

VerifyReport verify_params_dir(const std::string& dir, const VerifyOptions& opt,
                               const std::vector<PublishedEntry>& manifest) {
  VerifyReport rep;
  auto finish = [&](FileCheck fc) {
    switch (fc.status) {
      case CheckStatus::kOk: ++rep.ok; break;
      case CheckStatus::kMissing: ++rep.missing; break;
      case CheckStatus::kBad: ++rep.bad; break;
    }
    if (opt.on_file) opt.on_file(fc);
    rep.files.push_back(std::move(fc));
  };

  for (const ParamConfig& cfg : all_param_configs()) {
    const std::uint32_t want_ic = expected_num_inputs(cfg);

    // .vk first (the .params check compares against it), reported after the .params line.
    FileCheck vk = make_check(dir, cfg.vk_file());
    std::optional<bp::VkFile> vk_parsed;
    std::vector<std::uint8_t> vk_bytes;
    if (locate(vk)) {
      auto r = bp::read_vk_file(vk.path);
      if (!r) {
        bad(vk, strip_path(r.error(), vk.path));
      } else if (want_ic && r->vk.ic.size() != want_ic) {
        bad(vk,
            "has " + inputs_text(r->vk.ic.size()) + ", the " + cfg.label() + " circuit has " + std::to_string(want_ic));
      } else {
        vk.status = CheckStatus::kOk;
        vk.reason = "vk, " + inputs_text(r->vk.ic.size());
        vk_parsed = std::move(*r);
        auto enc = bp::encode_vk(vk_parsed->vk);
        if (enc) vk_bytes = std::move(*enc);
        if (opt.full) check_digest(vk, manifest);
      }
    }

    FileCheck pf = make_check(dir, cfg.params_file());
    if (locate(pf)) {
      auto r = bp::ParamsFile::open(pf.path);
      if (!r) {
        bad(pf, strip_path(r.error(), pf.path));
      } else if (want_ic && r->num_inputs() != want_ic) {
        bad(pf,
            "has " + inputs_text(r->num_inputs()) + ", the " + cfg.label() + " circuit has " + std::to_string(want_ic));
      } else if (vk_parsed && !vk_bytes.empty() &&
                 !std::equal(vk_bytes.begin(), vk_bytes.end(), r->vk_bytes().begin(), r->vk_bytes().end())) {
        bad(pf, "its verifying key differs from " + cfg.vk_file());
      } else {
        pf.status = CheckStatus::kOk;
        pf.reason = "params, domain 2^" + std::to_string(r->domain_log2()) + ", " + inputs_text(r->num_inputs()) +
                    ", " + std::to_string(r->num_aux()) + " aux";
        if (opt.full) check_digest(pf, manifest);
      }
    }
    finish(std::move(pf));
    finish(std::move(vk));

    FileCheck meta = make_check(dir, cfg.meta_file());
    if (locate(meta)) {  // optional: reported only when present
      auto m = bp::read_meta_file(meta.path);
      if (!m) {
        bad(meta, strip_path(m.error(), meta.path));
      } else if (m->sector_size != cfg.sector_size) {
        bad(meta, "sector_size " + std::to_string(m->sector_size) + ", expected " + std::to_string(cfg.sector_size));
      } else {
        meta.status = CheckStatus::kOk;
        meta.reason = "meta, sector_size " + std::to_string(m->sector_size);
      }
      finish(std::move(meta));
    }
  }
  return rep;
}

}  // namespace cuzk::filecoin::params
