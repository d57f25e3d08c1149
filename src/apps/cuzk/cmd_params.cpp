// `cuzk params list | verify [DIR] [--full] | path`: the Filecoin Groth16 parameter cache.
#include <sys/stat.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "apps/cuzk/commands.hpp"
#include "apps/cuzk/environment.hpp"
#include "filecoin/params/cache_names.hpp"
#include "filecoin/params/verify.hpp"

namespace cuzk::cli {
namespace fp = filecoin::params;

void register_params(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("params", "Filecoin Groth16 parameter files: list names, verify a cache, print its path");
  cmd->require_subcommand(1);

  struct ListState {
    bool files = false;
    bool labels = false;
  };
  auto ls = std::make_shared<ListState>();
  auto* list = cmd->add_subcommand(
      "list", "Print the file stem of every published Filecoin parameter set (PoRep, PoSt, SnapDeals), one a line");
  list->add_flag("--files", ls->files, "print the 44 file names (.params and .vk) instead of the 22 stems");
  list->add_flag("--labels", ls->labels, "append the proof family and sector size to each line");
  list->callback([ls, &exit_code] {
    for (const auto& c : fp::all_param_configs()) {
      std::string suffix = ls->labels ? "\t" + c.label() : "";
      if (ls->files) {
        std::cout << c.params_file() << suffix << "\n" << c.vk_file() << suffix << "\n";
      } else {
        std::cout << c.stem << suffix << "\n";
      }
    }
    exit_code = kExitOk;
  });

  struct VerifyState {
    std::string dir;
    bool full = false;
    bool quiet = false;
  };
  auto vs = std::make_shared<VerifyState>();
  auto* verify = cmd->add_subcommand(
      "verify",
      "Check the published parameter files present in DIR: OK / MISSING / BAD per file; exit 1 if any is BAD");
  verify->add_option("dir", vs->dir,
                     "parameter directory (default: $FIL_PROOFS_PARAMETER_CACHE, else " +
                         std::string(fp::kDefaultParameterCacheDir) + ")");
  verify->add_flag("--full", vs->full,
                   "also compare each file's BLAKE2b-512 digest with parameters.json (reads every byte)");
  verify->add_flag("--quiet,-q", vs->quiet, "print only BAD files and the summary");
  verify->callback([vs, &exit_code] {
    const std::string dir = vs->dir.empty() ? default_param_dir() : vs->dir;
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      exit_code = fail("params verify", dir + ": not a directory");
      return;
    }
    fp::VerifyOptions opt;
    opt.full = vs->full;
    opt.on_file = [&](const fp::FileCheck& fc) {
      if (vs->quiet && fc.status != fp::CheckStatus::kBad) return;
      std::string line = std::string(fp::status_name(fc.status));
      line.resize(8, ' ');
      line += fc.file;
      if (fc.status == fp::CheckStatus::kBad) line += ": " + fc.reason;
      else if (fc.status == fp::CheckStatus::kOk && !fc.reason.empty()) line += " (" + fc.reason + ")";
      std::cout << line << std::endl;
    };
    fp::VerifyReport rep = fp::verify_params_dir(dir, opt);
    std::cout << rep.ok << " OK, " << rep.missing << " MISSING, " << rep.bad << " BAD in " << dir
              << (vs->full ? " (sizes, headers and BLAKE2b digests)"
                           : " (sizes and headers; --full also checks digests)")
              << "\n";
    exit_code = rep.all_good() ? kExitOk : kExitInvalid;
  });

  auto* path = cmd->add_subcommand("path", "Print the parameter cache directory ($FIL_PROOFS_PARAMETER_CACHE, else " +
                                               std::string(fp::kDefaultParameterCacheDir) + ")");
  path->callback([&exit_code] {
    std::cout << default_param_dir() << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace cuzk::cli
