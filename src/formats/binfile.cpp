#include "formats/binfile.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/file_commit.hpp"

namespace cuzk::formats {

struct BinFile::Storage {
  std::vector<std::uint8_t> bytes;
  void* map = nullptr;
  std::size_t map_len = 0;
  ~Storage() {
    if (map) ::munmap(map, map_len);
  }
};

namespace {

std::string errno_text(int e) { return std::strerror(e); }

constexpr std::size_t kFileHeaderBytes = 12;     // magic, version, nSections
constexpr std::size_t kSectionHeaderBytes = 12;  // id, size

}  // namespace

bool BinFile::mapped() const { return storage_ && storage_->map != nullptr; }

Result<std::vector<std::uint8_t>> read_file_bytes(const std::string& path, std::uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below like every
  // non-regular file (a device such as /dev/zero would otherwise be read without end).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error{path + ": cannot open: " + errno_text(errno)};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Error{path + ": cannot stat: " + errno_text(e)};
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Error{path + ": is a directory"};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{path + ": not a regular file"};
  }
  // At most the size the file reports when opened (files of /proc report 0 and read as empty).
  const std::uint64_t size = std::uint64_t(st.st_size);
  if (size > max_bytes) {
    ::close(fd);
    return Error{path + ": " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) +
                 " this input may have"};
  }
  std::vector<std::uint8_t> out(size);
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, out.data() + got, std::min<std::size_t>(size - got, std::size_t(1) << 30));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      return Error{path + ": read failed at byte " + std::to_string(got) + ": " +
                   (n == 0 ? std::string("the file shrank") : errno_text(e))};
    }
    got += std::size_t(n);
  }
  ::close(fd);
  return out;
}

Status write_file_bytes(const std::string& path, std::span<const std::uint8_t> bytes) {
  const std::string tmp = tmp_name_for(path);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return Error{path + ": cannot create: " + errno_text(errno)};
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
    const int e = errno;
    std::fclose(f);
    std::remove(tmp.c_str());
    return Error{path + ": write failed: " + errno_text(e)};
  }
  return commit_tmp_file(f, tmp, path);
}

Result<BinFile> BinFile::open(const std::string& path, std::string_view magic, std::uint32_t min_version,
                              std::uint32_t max_version, LoadMode mode) {
  if (mode != LoadMode::kRead) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return Error{path + ": cannot open: " + errno_text(errno)};
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      int e = errno;
      ::close(fd);
      return Error{path + ": cannot stat: " + errno_text(e)};
    }
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      return Error{path + ": is a directory"};
    }
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
      void* m = ::mmap(nullptr, std::size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      int e = errno;
      ::close(fd);
      if (m != MAP_FAILED) {
        auto storage = std::make_shared<Storage>();
        storage->map = m;
        storage->map_len = std::size_t(st.st_size);
        std::span<const std::uint8_t> data(static_cast<const std::uint8_t*>(m), storage->map_len);
        return parse(std::move(storage), data, path, magic, min_version, max_version);
      }
      if (mode == LoadMode::kMmap) return Error{path + ": mmap failed: " + errno_text(e)};
    } else {
      ::close(fd);
      if (!S_ISREG(st.st_mode)) return Error{path + ": not a regular file"};
      // Empty regular files fall through to read() (which reports the truncation).
    }
  }
  auto bytes = read_file_bytes(path);
  if (!bytes) return Error{bytes.error()};
  return from_bytes(std::move(*bytes), path, magic, min_version, max_version);
}

Result<BinFile> BinFile::from_bytes(std::vector<std::uint8_t> bytes, std::string name, std::string_view magic,
                                    std::uint32_t min_version, std::uint32_t max_version) {
  auto storage = std::make_shared<Storage>();
  storage->bytes = std::move(bytes);
  std::span<const std::uint8_t> data(storage->bytes);
  return parse(std::move(storage), data, std::move(name), magic, min_version, max_version);
}

Result<BinFile> BinFile::from_span(std::span<const std::uint8_t> bytes, std::string name, std::string_view magic,
                                   std::uint32_t min_version, std::uint32_t max_version) {
  return parse(nullptr, bytes, std::move(name), magic, min_version, max_version);
}

Result<BinFile> BinFile::parse(std::shared_ptr<Storage> storage, std::span<const std::uint8_t> data, std::string name,
                               std::string_view magic, std::uint32_t min_version, std::uint32_t max_version) {
  BinFile f;
  f.storage_ = std::move(storage);
  f.data_ = data;
  f.name_ = std::move(name);
  if (data.size() < 4) {
    return f.error("file is truncated: " + std::to_string(data.size()) + " bytes, too short for the '" +
                   std::string(magic) + "' header");
  }
  if (std::memcmp(data.data(), magic.data(), 4) != 0) {
    // Never the bytes found: the file may be any file a client named (/etc/shadow starts "root").
    return f.error("not a '" + std::string(magic) + "' file");
  }
  if (data.size() < kFileHeaderBytes) {
    return f.error("file is truncated: " + std::to_string(data.size()) + " bytes, the header needs " +
                   std::to_string(kFileHeaderBytes));
  }
  f.version_ = load_u32le(data.data() + 4);
  if (f.version_ < min_version || f.version_ > max_version) {
    std::string want = min_version == max_version ? std::to_string(min_version)
                                                  : std::to_string(min_version) + ".." + std::to_string(max_version);
    return f.error("unsupported version " + std::to_string(f.version_) + " (supported: " + want + ")");
  }
  std::uint32_t n = load_u32le(data.data() + 8);
  std::uint64_t pos = kFileHeaderBytes;
  // No reserve(n): n is untrusted; the loop stops at the end of the data anyway.
  for (std::uint32_t i = 0; i < n; ++i) {
    if (data.size() - pos < kSectionHeaderBytes) {
      return f.error("file is truncated in the header of section table entry " + std::to_string(i) + " of " +
                     std::to_string(n) + " (at byte " + std::to_string(pos) + ", file has " +
                     std::to_string(data.size()) + " bytes)");
    }
    SectionEntry e;
    e.id = load_u32le(data.data() + pos);
    e.size = load_u64le(data.data() + pos + 4);
    e.offset = pos + kSectionHeaderBytes;
    std::uint64_t avail = data.size() - e.offset;
    if (e.size > avail) {
      return f.error("section " + std::to_string(e.id) + " runs past the end of the file: size " +
                     std::to_string(e.size) + " bytes at offset " + std::to_string(e.offset) + ", only " +
                     std::to_string(avail) + " bytes left");
    }
    for (const auto& prev : f.sections_) {
      if (prev.id == e.id) return f.error("section " + std::to_string(e.id) + " appears more than once");
    }
    f.sections_.push_back(e);
    pos = e.offset + e.size;
  }
  if (pos != data.size()) {
    return f.error(std::to_string(data.size() - pos) + " trailing bytes after the last of " + std::to_string(n) +
                   " sections");
  }
  return f;
}

const SectionEntry* BinFile::find(std::uint32_t id) const {
  for (const auto& s : sections_) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

Result<std::span<const std::uint8_t>> BinFile::section(std::uint32_t id, std::string_view what) const {
  const SectionEntry* s = find(id);
  if (!s) return section_error(id, what, "is missing");
  return data_.subspan(s->offset, s->size);
}

Error BinFile::section_error(std::uint32_t id, std::string_view what, std::string_view message) const {
  return error("section " + std::to_string(id) + " (" + std::string(what) + ") " + std::string(message));
}

Status BinFile::expect_size(std::uint32_t id, std::string_view what, std::uint64_t got, std::uint64_t want) const {
  if (got == want) return ok_status();
  if (got < want) {
    return section_error(id, what, "is truncated: " + std::to_string(got) + " bytes, expected " + std::to_string(want));
  }
  return section_error(id, what, "has " + std::to_string(got) + " bytes, expected " + std::to_string(want));
}

// ---------------------------------------------------------------------------------------------------
// Writer

namespace {
constexpr std::size_t kWriteBuffer = std::size_t(1) << 22;
}

Result<BinFileWriter> BinFileWriter::create(const std::string& path, std::string_view magic, std::uint32_t version,
                                            std::uint32_t num_sections) {
  if (magic.size() != 4) return Error{path + ": internal error: magic must have 4 characters"};
  BinFileWriter w;
  w.path_ = path;
  w.tmp_ = tmp_name_for(path);
  w.f_ = std::fopen(w.tmp_.c_str(), "wb");
  if (!w.f_) return Error{path + ": cannot create: " + errno_text(errno)};
  w.buf_.reserve(kWriteBuffer);
  w.sections_left_ = num_sections;
  w.write(std::span(reinterpret_cast<const std::uint8_t*>(magic.data()), 4));
  w.write_u32(version);
  w.write_u32(num_sections);
  return w;
}

BinFileWriter::BinFileWriter(BinFileWriter&& o) noexcept
    : path_(std::move(o.path_)),
      tmp_(std::move(o.tmp_)),
      f_(o.f_),
      buf_(std::move(o.buf_)),
      io_error_(o.io_error_),
      in_section_(o.in_section_),
      sections_left_(o.sections_left_),
      section_id_(o.section_id_),
      section_left_(o.section_left_),
      section_overrun_(o.section_overrun_) {
  o.f_ = nullptr;
}

BinFileWriter::~BinFileWriter() {
  if (f_) {  // never finished: nothing was renamed into place; drop the temporary file
    std::fclose(f_);
    std::remove(tmp_.c_str());
  }
}

void BinFileWriter::flush() {
  if (!f_ || buf_.empty()) return;
  if (std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) io_error_ = true;
  buf_.clear();
}

void BinFileWriter::write(std::span<const std::uint8_t> bytes) {
  if (in_section_) {
    if (bytes.size() > section_left_) {
      section_overrun_ += bytes.size() - section_left_;
      section_left_ = 0;
    } else {
      section_left_ -= bytes.size();
    }
  }
  if (buf_.size() + bytes.size() > kWriteBuffer) flush();
  if (bytes.size() >= kWriteBuffer) {
    if (f_ && std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size()) io_error_ = true;
    return;
  }
  buf_.insert(buf_.end(), bytes.begin(), bytes.end());
}

void BinFileWriter::write_u32(std::uint32_t v) {
  std::uint8_t b[4];
  store_u32le(b, v);
  write(b);
}

void BinFileWriter::write_u64(std::uint64_t v) {
  std::uint8_t b[8];
  store_u64le(b, v);
  write(b);
}

Status BinFileWriter::begin_section(std::uint32_t id, std::uint64_t size) {
  if (in_section_) return Error{path_ + ": internal error: section " + std::to_string(section_id_) + " not ended"};
  if (sections_left_ == 0) return Error{path_ + ": internal error: more sections than declared"};
  write_u32(id);
  write_u64(size);
  in_section_ = true;
  section_id_ = id;
  section_left_ = size;
  section_overrun_ = 0;
  --sections_left_;
  return ok_status();
}

Status BinFileWriter::end_section() {
  if (!in_section_) return Error{path_ + ": internal error: end_section without begin_section"};
  in_section_ = false;
  if (section_left_ || section_overrun_) {
    return Error{path_ + ": internal error: section " + std::to_string(section_id_) + " size mismatch (" +
                 (section_left_ ? std::to_string(section_left_) + " bytes short)"
                                : std::to_string(section_overrun_) + " bytes over)")};
  }
  return ok_status();
}

Status BinFileWriter::finish() {
  if (in_section_) return Error{path_ + ": internal error: section " + std::to_string(section_id_) + " not ended"};
  if (sections_left_) {
    return Error{path_ + ": internal error: " + std::to_string(sections_left_) + " declared sections not written"};
  }
  flush();
  std::FILE* f = f_;
  f_ = nullptr;
  if (io_error_) {
    const int e = errno;
    std::fclose(f);
    std::remove(tmp_.c_str());
    return Error{path_ + ": write failed: " + errno_text(e)};
  }
  return commit_tmp_file(f, tmp_, path_);
}

}  // namespace cuzk::formats
