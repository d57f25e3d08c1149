#include "filecoin/porep/c1_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "filecoin/porep/c1_bincode.hpp"
#include "filecoin/porep/c1_json.hpp"
#include "filecoin/porep/config.hpp"

namespace cuzk::filecoin::porep {

namespace {

bool is_ws(std::uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// `bytes` must be followed by kC1JsonPadding readable bytes when the content is JSON.
Result<LoadedC1> parse_padded(std::span<const std::uint8_t> bytes, std::uint64_t sector_size) {
  LoadedC1 out;
  out.format = detect_c1_format(bytes);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto tagged = [&](const std::string& e) { return Error{std::string(c1_format_name(out.format)) + ": " + e}; };
  switch (out.format) {
    case C1Format::kCurioJson: {
      auto r = parse_curio_c1_padded(text);
      if (!r) return tagged(r.error());
      out.sector_num = r->sector_num;
      out.sector_size = r->sector_size;
      out.c1 = std::move(r->c1);
      return out;
    }
    case C1Format::kJson: {
      auto r = parse_c1_json_padded(text);
      if (!r) return tagged(r.error());
      out.c1 = std::move(r.value());
      break;
    }
    case C1Format::kBincode: {
      auto r = parse_c1_bincode(bytes, "", sector_size);
      if (!r) return tagged(r.error());
      out.c1 = std::move(r.value());
      break;
    }
  }
  out.sector_size = porep_config_by_name(out.c1.registered_proof).sector_size;  // known: parsers check
  return out;
}

}  // namespace

std::uint64_t c1_parse_bytes(std::uint64_t input_size) {
  if (input_size > (std::uint64_t(1) << 60)) return ~std::uint64_t(0);
  return input_size / 2 * 5 + (std::uint64_t(64) << 20);
}

const char* c1_format_name(C1Format f) {
  switch (f) {
    case C1Format::kCurioJson: return "Curio wrapper JSON";
    case C1Format::kJson: return "C1 JSON";
    case C1Format::kBincode: return "bincode";
  }
  return "?";
}

C1Format detect_c1_format(std::span<const std::uint8_t> b) {
  std::size_t i = 0;
  while (i < b.size() && is_ws(b[i])) ++i;
  if (i >= b.size() || b[i] != '{') return C1Format::kBincode;
  ++i;
  while (i < b.size() && is_ws(b[i])) ++i;
  if (i >= b.size() || b[i] != '"') return C1Format::kJson;
  const std::size_t start = ++i;
  while (i < b.size() && b[i] != '"' && i - start < 64) ++i;
  const std::string_view key(reinterpret_cast<const char*>(b.data()) + start, i - start);
  if (key == "SectorNum" || key == "Phase1Out" || key == "SectorSize") return C1Format::kCurioJson;
  return C1Format::kJson;
}

Result<LoadedC1> parse_c1_any(std::span<const std::uint8_t> bytes, std::uint64_t sector_size) {
  if (detect_c1_format(bytes) == C1Format::kBincode) return parse_padded(bytes, sector_size);
  detail::BigBuffer padded(bytes.size() + kC1JsonPadding);
  if (!bytes.empty()) std::memcpy(padded.data(), bytes.data(), bytes.size());
  return parse_padded(std::span(padded.data(), bytes.size()), sector_size);
}

Result<LoadedC1> load_c1_file_detailed(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return Error{path + ": cannot stat: " + std::strerror(e)};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{path + ": not a regular file"};
  }
  const std::size_t size = std::size_t(st.st_size);
  // Read into a buffer with zeroed padding (the JSON parser reads up to 64 bytes past the end).
  detail::BigBuffer buf(size + kC1JsonPadding);  // zero-filled: the padding is zeros
  std::size_t got = 0;
  while (got < size) {
    const ssize_t r = ::read(fd, buf.data() + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      const int e = errno;
      ::close(fd);
      return Error{path + ": read failed at byte " + std::to_string(got) + ": " +
                   (r == 0 ? "file shrank" : std::strerror(e))};
    }
    got += std::size_t(r);
  }
  ::close(fd);
  auto r = parse_padded(std::span<const std::uint8_t>(buf.data(), size), 0);
  if (!r) return Error{path + ": " + r.error()};
  return r;
}

Result<C1Output> load_c1_file(const std::string& path) {
  auto r = load_c1_file_detailed(path);
  if (!r) return Error{r.error()};
  return std::move(r->c1);
}

}  // namespace cuzk::filecoin::porep
