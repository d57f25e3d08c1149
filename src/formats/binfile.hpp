// The iden3 "binfile" container shared by circom/snarkjs files (.r1cs, .wtns, .zkey, .ptau):
//
//   magic[4]  u32 version  u32 nSections  then nSections x (u32 id, u64 size, size bytes of payload)
//
// all integers little-endian. Real files do not keep the sections in id order (circom writes r1cs
// as 2,1,3; `groth16 setup` writes zkey as 1,2,4,3,9,8,5,6,7,10), so the table is scanned once and
// sections are looked up by id. A section whose size runs past the end of the file, a duplicated
// id, trailing bytes after the last section, a wrong magic or an unsupported version are errors.
//
// Every error is one line that starts with the file's name (BinFile::error), e.g.
//   "circuit.zkey: section 5 (A points) is truncated: 1000 bytes, expected 9600".
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace cuzk::formats {

inline std::uint32_t load_u32le(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}
inline std::uint64_t load_u64le(const std::uint8_t* p) {
  return std::uint64_t(load_u32le(p)) | std::uint64_t(load_u32le(p + 4)) << 32;
}
inline void store_u32le(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = std::uint8_t(v >> (8 * i));
}
inline void store_u64le(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = std::uint8_t(v >> (8 * i));
}

// Forward-only little-endian reader over one section. Callers check `remaining()` (or the section
// size up front) before reading; reading past the end is a programming error and is clamped to
// zeros rather than overrunning the buffer.
class ByteCursor {
 public:
  explicit ByteCursor(std::span<const std::uint8_t> d) : d_(d) {}
  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return d_.size() - pos_; }
  bool has(std::size_t n) const { return n <= remaining(); }
  std::uint32_t u32() {
    if (!has(4)) return skip_all(), 0;
    std::uint32_t v = load_u32le(d_.data() + pos_);
    pos_ += 4;
    return v;
  }
  std::uint64_t u64() {
    if (!has(8)) return skip_all(), 0;
    std::uint64_t v = load_u64le(d_.data() + pos_);
    pos_ += 8;
    return v;
  }
  std::span<const std::uint8_t> bytes(std::size_t n) {
    if (!has(n)) return skip_all(), std::span<const std::uint8_t>{};
    auto s = d_.subspan(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  void skip_all() { pos_ = d_.size(); }
  std::span<const std::uint8_t> d_;
  std::size_t pos_ = 0;
};

struct SectionEntry {
  std::uint32_t id = 0;
  std::uint64_t offset = 0;  // of the payload, from the start of the file
  std::uint64_t size = 0;
};

enum class LoadMode : std::uint8_t {
  kAuto,  // mmap when possible, else read
  kRead,  // read the whole file into memory
  kMmap,  // mmap (fails when the file cannot be mapped)
};

class BinFile {
 public:
  // Opens and validates the container of a file: magic must equal `magic` (4 characters) and the
  // version must lie in [min_version, max_version].
  static Result<BinFile> open(const std::string& path, std::string_view magic, std::uint32_t min_version,
                              std::uint32_t max_version, LoadMode mode = LoadMode::kAuto);
  // Same over bytes already in memory; `name` is used in error messages.
  static Result<BinFile> from_bytes(std::vector<std::uint8_t> bytes, std::string name, std::string_view magic,
                                    std::uint32_t min_version, std::uint32_t max_version);
  // Non-owning: `bytes` must outlive the BinFile and everything read from its sections.
  static Result<BinFile> from_span(std::span<const std::uint8_t> bytes, std::string name, std::string_view magic,
                                   std::uint32_t min_version, std::uint32_t max_version);

  const std::string& name() const { return name_; }
  std::uint32_t version() const { return version_; }
  std::span<const std::uint8_t> bytes() const { return data_; }
  const std::vector<SectionEntry>& sections() const { return sections_; }  // in file order
  bool mapped() const;

  const SectionEntry* find(std::uint32_t id) const;
  bool has(std::uint32_t id) const { return find(id) != nullptr; }
  // The payload of section `id`; "section 5 (A points) is missing" when absent. `what` names the
  // section in messages.
  Result<std::span<const std::uint8_t>> section(std::uint32_t id, std::string_view what) const;

  // Error helpers: "<name>: <message>".
  Error error(std::string_view message) const { return Error{name_ + ": " + std::string(message)}; }
  // "<name>: section <id> (<what>) <message>"
  Error section_error(std::uint32_t id, std::string_view what, std::string_view message) const;
  // Checks an exact section size: "is truncated: N bytes, expected M" / "has N bytes, expected M".
  Status expect_size(std::uint32_t id, std::string_view what, std::uint64_t got, std::uint64_t want) const;

 private:
  struct Storage;
  static Result<BinFile> parse(std::shared_ptr<Storage> storage, std::span<const std::uint8_t> data, std::string name,
                               std::string_view magic, std::uint32_t min_version, std::uint32_t max_version);

  std::shared_ptr<Storage> storage_;  // keeps the bytes (vector or mapping) alive; null for from_span
  std::span<const std::uint8_t> data_;
  std::string name_;
  std::uint32_t version_ = 0;
  std::vector<SectionEntry> sections_;
};

// Reads a whole regular file into memory: at most the size it reports when opened, and at most
// max_bytes. Devices, FIFOs, sockets and directories are refused ("<path>: not a regular file"),
// never read to an end that may not come; every error is one line naming the path.
inline constexpr std::uint64_t kMaxReadBytes = std::uint64_t(1) << 40;
Result<std::vector<std::uint8_t>> read_file_bytes(const std::string& path, std::uint64_t max_bytes = kMaxReadBytes);
// Writes bytes to a file, replacing it all at once (base/file_commit.hpp: a temporary name, fsync,
// rename), so a process killed at any point leaves the old file or the whole new one, never a part.
Status write_file_bytes(const std::string& path, std::span<const std::uint8_t> bytes);

// Streaming writer of the container. Section sizes are declared up front (the header of each section
// precedes its payload and the writer never seeks), and end_section() checks that exactly that many
// bytes were written. Output goes through a large buffer to tmp_name_for(path); finish() flushes,
// syncs and renames it into place and must be called for the file to exist (the destructor of an
// unfinished writer removes the temporary file; a killed process leaves only that).
class BinFileWriter {
 public:
  static Result<BinFileWriter> create(const std::string& path, std::string_view magic, std::uint32_t version,
                                      std::uint32_t num_sections);
  BinFileWriter(BinFileWriter&&) noexcept;
  BinFileWriter& operator=(BinFileWriter&&) = delete;
  BinFileWriter(const BinFileWriter&) = delete;
  ~BinFileWriter();

  Status begin_section(std::uint32_t id, std::uint64_t size);
  void write(std::span<const std::uint8_t> bytes);
  void write_u32(std::uint32_t v);
  void write_u64(std::uint64_t v);
  Status end_section();
  Status finish();

 private:
  BinFileWriter() = default;
  std::string path_;
  std::string tmp_;  // written here, renamed to path_ by finish()
  std::FILE* f_ = nullptr;
  std::vector<std::uint8_t> buf_;
  bool io_error_ = false;
  bool in_section_ = false;
  std::uint32_t sections_left_ = 0;
  std::uint32_t section_id_ = 0;
  std::uint64_t section_left_ = 0;
  std::uint64_t section_overrun_ = 0;
  void flush();
};

}  // namespace cuzk::formats
