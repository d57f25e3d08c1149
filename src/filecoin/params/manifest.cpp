#include "filecoin/params/manifest.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/hex.hpp"

namespace cuzk::filecoin::params {
namespace detail {
extern const char* const kParametersJson;
}  // namespace detail

namespace {

std::string to_hex(const unsigned char* p, std::size_t n) { return hex_encode(std::span<const std::uint8_t>(p, n)); }

struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

}  // namespace

std::string_view published_parameters_json() { return detail::kParametersJson; }

Result<std::vector<PublishedEntry>> parse_manifest(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{"parameters manifest: not a JSON object"};
  std::vector<PublishedEntry> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const auto& v = it.value();
    if (!v.is_object() || !v.contains("digest") || !v["digest"].is_string() || !v.contains("sector_size") ||
        !v["sector_size"].is_number_unsigned()) {
      return Error{"parameters manifest: entry " + it.key() + " lacks a string digest or a sector_size"};
    }
    PublishedEntry e;
    e.file = it.key();
    e.digest = v["digest"].get<std::string>();
    e.sector_size = v["sector_size"].get<std::uint64_t>();
    if (v.contains("cid") && v["cid"].is_string()) e.cid = v["cid"].get<std::string>();
    out.push_back(std::move(e));
  }
  return out;
}

const std::vector<PublishedEntry>& published_parameters() {
  static const std::vector<PublishedEntry> entries = [] {
    auto r = parse_manifest(published_parameters_json());
    if (!r) std::abort();  // the embedded manifest is part of the build; the tests parse it
    return std::move(*r);
  }();
  return entries;
}

const PublishedEntry* find_published(const std::vector<PublishedEntry>& manifest, const std::string& file) {
  for (const auto& e : manifest) {
    if (e.file == file) return &e;
  }
  return nullptr;
}

std::string blake2b512_hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_blake2b512(), nullptr);
  return to_hex(md, len);
}

Result<std::string> blake2b512_file_hex(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_blake2b512(), nullptr) != 1) {
    ::close(fd);
    return Error{path + ": BLAKE2b-512 is not available from OpenSSL"};
  }
  std::vector<unsigned char> buf(std::size_t(8) << 20);
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return Error{path + ": read failed: " + std::strerror(e)};
    }
    if (n == 0) break;
    EVP_DigestUpdate(ctx.get(), buf.data(), std::size_t(n));
  }
  ::close(fd);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &len);
  return to_hex(md, len);
}

}  // namespace cuzk::filecoin::params
