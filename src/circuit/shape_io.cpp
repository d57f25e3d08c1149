#include "circuit/shape_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <array>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "base/parallel.hpp"
#include "circuit/huge_pages.hpp"

namespace cuzk::circuit {

// Bulk arrays are copied with memcpy in both directions: the format is little-endian, and so is
// every host cuzk runs on (x86-64, aarch64).
static_assert(std::endian::native == std::endian::little, "shape_io assumes a little-endian host");

namespace {
using math::Fr;

constexpr char kMagic[8] = {'C', 'U', 'Z', 'K', 'R', '1', 'C', 'S'};
constexpr std::size_t kHeaderBytes = 8 + 4 * 4 + 2 * 8;

std::uint32_t le32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
std::uint64_t le64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// The file-wide coefficient table: every distinct coefficient of A, B, C in order of first use
// (A's entries, then B's, then C's), and for each matrix the map from its own coefficient ids to
// the table's. Only distinct values are hashed, never entries.
struct GlobalCoefficients {
  std::vector<Fr> table;
  std::array<std::vector<std::uint32_t>, 3> local_to_global;

  explicit GlobalCoefficients(const groth16::R1csShape& shape) {
    constexpr std::uint32_t kUnset = 0xffffffffu;
    std::unordered_map<math::Limbs<4>, std::uint32_t, groth16::FrLimbsHash> index;
    const groth16::CsrMatrix* mats[3] = {&shape.a, &shape.b, &shape.c};
    for (int m = 0; m < 3; ++m) {
      const auto& mat = *mats[m];
      auto& map = local_to_global[m];
      map.assign(mat.coeffs.size(), kUnset);
      std::size_t assigned = 0;
      for (std::size_t k = 0; k < mat.nnz() && assigned < map.size(); ++k) {
        const std::uint32_t id = mat.coeff_ids[k];
        if (map[id] != kUnset) continue;
        auto [it, inserted] = index.try_emplace(mat.coeffs[id].mont_raw(), std::uint32_t(table.size()));
        if (inserted) table.push_back(mat.coeffs[id]);
        map[id] = it->second;
        ++assigned;
      }
    }
  }
};

std::uint64_t file_size_of(const groth16::R1csShape& shape, std::size_t ncoeffs) {
  const std::uint64_t rows = shape.num_constraints();
  return kHeaderBytes + 32 * std::uint64_t(ncoeffs) + 3 * (8 + 4 * rows) +
         8 * std::uint64_t(shape.a.nnz() + shape.b.nnz() + shape.c.nnz()) + 8;
}

// Emits the file body (everything before the checksum) as consecutive byte ranges to put(ptr, n).
template <class Put>
void emit_shape(const groth16::R1csShape& shape, const GlobalCoefficients& gc, Put&& put) {
  std::array<std::uint8_t, kHeaderBytes> head{};
  std::size_t pos = 0;
  auto h32 = [&](std::uint32_t v) { std::memcpy(head.data() + pos, &v, 4), pos += 4; };
  auto h64 = [&](std::uint64_t v) { std::memcpy(head.data() + pos, &v, 8), pos += 8; };
  std::memcpy(head.data(), kMagic, 8);
  pos = 8;
  h32(kShapeFormatVersion);
  h32(shape.has_c ? 1 : 0);
  h32(shape.num_inputs);
  h32(shape.num_aux);
  h64(shape.num_constraints());
  h64(gc.table.size());
  put(head.data(), head.size());
  std::array<std::uint8_t, 32> fr;
  for (const Fr& c : gc.table) {
    c.to_bytes_le(fr);
    put(fr.data(), 32);
  }
  const groth16::CsrMatrix* mats[3] = {&shape.a, &shape.b, &shape.c};
  const std::size_t rows = shape.num_constraints();
  std::vector<std::uint32_t> buf(std::size_t(1) << 16);
  for (int m = 0; m < 3; ++m) {
    const auto& mat = *mats[m];
    const std::uint64_t nnz = mat.nnz();
    put(&nnz, 8);
    for (std::size_t r0 = 0; r0 < rows; r0 += buf.size()) {
      const std::size_t n = std::min(buf.size(), rows - r0);
      for (std::size_t i = 0; i < n; ++i) buf[i] = std::uint32_t(mat.row_ptr[r0 + i + 1] - mat.row_ptr[r0 + i]);
      put(buf.data(), 4 * n);
    }
    put(mat.cols.data(), 4 * nnz);
    const auto& map = gc.local_to_global[m];
    for (std::size_t k0 = 0; k0 < nnz; k0 += buf.size()) {
      const std::size_t n = std::min<std::size_t>(buf.size(), nnz - k0);
      for (std::size_t i = 0; i < n; ++i) buf[i] = map[mat.coeff_ids[k0 + i]];
      put(buf.data(), 4 * n);
    }
  }
}

}  // namespace

ShapeChecksum::ShapeChecksum(std::uint64_t total_bytes) : h_(0x6a09e667f3bcc908ULL ^ (total_bytes * kK2)) {}

void ShapeChecksum::mix(std::uint64_t w) {
  w *= kK1;
  w = (w << 31) | (w >> 33);
  w *= kK2;
  h_ ^= w;
  h_ = ((h_ << 27) | (h_ >> 37)) * 5 + 0x52dce729;
}

void ShapeChecksum::update(std::span<const std::uint8_t> bytes) {
  const std::uint8_t* p = bytes.data();
  std::size_t n = bytes.size();
  while (pending_len_ > 0 && pending_len_ < 8 && n > 0) {  // complete a word split across calls
    pending_ |= std::uint64_t(*p++) << (8 * pending_len_++);
    --n;
    if (pending_len_ == 8) {
      mix(pending_);
      pending_ = 0;
      pending_len_ = 0;
    }
  }
  for (; n >= 8; n -= 8, p += 8) mix(le64(p));
  for (; n > 0; --n) pending_ |= std::uint64_t(*p++) << (8 * pending_len_++);
}

std::uint64_t ShapeChecksum::finish() const {
  std::uint64_t h = h_ ^ (pending_ * kK1);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

std::uint64_t shape_checksum(std::span<const std::uint8_t> bytes) {
  // Word-wise multiply-rotate mixing with a murmur-style finalizer: fast (GB/s) and sensitive to any
  // bit flip, truncation or reordering of words. Corruption detection, not a cryptographic MAC.
  ShapeChecksum sum(bytes.size());
  sum.update(bytes);
  return sum.finish();
}

std::vector<std::uint8_t> serialize_shape(const groth16::R1csShape& shape) {
  const GlobalCoefficients gc(shape);
  std::vector<std::uint8_t> out(file_size_of(shape, gc.table.size()));
  std::size_t pos = 0;
  emit_shape(shape, gc, [&](const void* p, std::size_t n) {
    std::memcpy(out.data() + pos, p, n);
    pos += n;
  });
  const std::uint64_t sum = shape_checksum(std::span(out.data(), pos));
  std::memcpy(out.data() + pos, &sum, 8);
  return out;
}

namespace {

// Decodes a shape file from its bytes in order. `read(dst, n)` copies the next n bytes of the file
// (false on an I/O error), so a file is read straight into the shape's arrays — no second copy of
// gigabytes — and the checksum is computed over the same pieces on the way. Sizes are bounded by the
// file size before anything is allocated; the checksum is compared at the end.
template <class Read>
class ShapeDecoder {
 public:
  ShapeDecoder(std::uint64_t file_size, Read& read) : read_(read), body_left_(file_size - 8), sum_(file_size - 8) {}

  Result<groth16::R1csShape> run() {
    std::array<std::uint8_t, kHeaderBytes> head;
    if (!take(head.data(), head.size())) return io_error();
    if (std::memcmp(head.data(), kMagic, 8) != 0) return Error{"shape file: bad magic (not a cuzk R1CS shape)"};
    const std::uint32_t version = le32(head.data() + 8);
    if (version != kShapeFormatVersion) {
      return Error{"shape file: version " + std::to_string(version) + ", expected " +
                   std::to_string(kShapeFormatVersion)};
    }
    const std::uint32_t flags = le32(head.data() + 12), ni = le32(head.data() + 16), na = le32(head.data() + 20);
    const std::uint64_t rows = le64(head.data() + 24), ncoeffs = le64(head.data() + 32);
    if (flags & ~1u) return Error{"shape file: unknown flags"};
    if (ni == 0) return Error{"shape file: num_inputs is 0 (ONE is missing)"};
    const std::uint64_t nvars = std::uint64_t(ni) + na;
    if (nvars > 0xffffffffULL) return Error{"shape file: too many variables"};
    if (ncoeffs > body_left_ / 32) return Error{"shape file: coefficient table larger than the file"};
    std::vector<Fr> coeffs;
    coeffs.reserve(ncoeffs);
    std::unordered_map<math::Limbs<4>, std::uint32_t, groth16::FrLimbsHash> seen;
    std::array<std::uint8_t, 32> fr;
    for (std::uint64_t i = 0; i < ncoeffs; ++i) {
      if (!take(fr.data(), 32)) return io_error();
      auto c = Fr::from_bytes_le(fr);
      if (!c) return Error{"shape file: coefficient " + std::to_string(i) + " is not a canonical field element"};
      auto [it, inserted] = seen.try_emplace(c->mont_raw(), std::uint32_t(i));
      if (!inserted)
        return Error{"shape file: coefficient " + std::to_string(i) + " repeats coefficient " +
                     std::to_string(it->second)};
      coeffs.push_back(*c);
    }
    if (rows > body_left_ / 4) return Error{"shape file: row count larger than the file"};
    groth16::R1csShape shape;
    shape.num_inputs = ni;
    shape.num_aux = na;
    shape.has_c = flags & 1;
    groth16::CsrMatrix* mats[3] = {&shape.a, &shape.b, &shape.c};
    const char* names[3] = {"A", "B", "C"};
    std::vector<std::uint32_t> lens(std::size_t(1) << 16);
    for (int m = 0; m < 3; ++m) {
      const std::string what = std::string("shape file: matrix ") + names[m];
      std::uint64_t nnz;
      if (body_left_ < 8) return Error{std::string("shape file: truncated before matrix ") + names[m]};
      if (!take(&nnz, 8)) return io_error();
      if (body_left_ < rows * 4 || (body_left_ - rows * 4) / 8 < nnz) return Error{what + " larger than the file"};
      auto& mat = *mats[m];
      resize_with_huge_pages(mat.row_ptr, rows + 1);
      mat.row_ptr[0] = 0;
      std::uint64_t acc = 0;
      for (std::uint64_t r0 = 0; r0 < rows; r0 += lens.size()) {
        const std::size_t n = std::min<std::uint64_t>(lens.size(), rows - r0);
        if (!take(lens.data(), 4 * n)) return io_error();
        for (std::size_t i = 0; i < n; ++i) mat.row_ptr[r0 + i + 1] = acc += lens[i];
      }
      if (acc != nnz) return Error{what + " row lengths do not sum to nnz"};
      resize_with_huge_pages(mat.cols, nnz);
      resize_with_huge_pages(mat.coeff_ids, nnz);
      if (!take_array(mat.cols.data(), nnz) || !take_array(mat.coeff_ids.data(), nnz)) return io_error();
      // Range checks in parallel (722M entries at 32 GiB); the first bad entry is reported.
      std::atomic<std::uint64_t> first_bad{nnz};
      parallel_chunks(nnz, nnz < (1u << 20) ? 1 : default_threads(), [&](std::size_t b, std::size_t e, std::size_t) {
        for (std::size_t k = b; k < e; ++k) {
          if (mat.cols[k] >= nvars || mat.coeff_ids[k] >= ncoeffs) {
            std::uint64_t cur = first_bad.load();
            while (k < cur && !first_bad.compare_exchange_weak(cur, k)) {}
            return;
          }
        }
      });
      if (const std::uint64_t k = first_bad.load(); k < nnz) {
        if (mat.cols[k] >= nvars) {
          return Error{what + " entry " + std::to_string(k) + " names variable " + std::to_string(mat.cols[k]) +
                       " of " + std::to_string(nvars)};
        }
        return Error{what + " entry " + std::to_string(k) + " has a bad coefficient index"};
      }
      mat.coeffs = coeffs;  // the file's table serves every matrix (a few KB)
    }
    if (body_left_ != 0) return Error{"shape file: trailing bytes after matrix C"};
    std::uint64_t stored_sum;
    if (!read_(&stored_sum, 8)) return io_error();
    if (sum_.finish() != stored_sum) return Error{"shape file: checksum mismatch (corrupt or truncated)"};
    return shape;
  }

 private:
  Error io_error() const { return Error{"shape file: read error"}; }
  bool take(void* dst, std::size_t n) {
    if (n > body_left_ || !read_(dst, n)) return false;
    sum_.update({static_cast<const std::uint8_t*>(dst), n});
    body_left_ -= n;
    return true;
  }
  // n u32 in pieces that stay in cache between the read and the checksum.
  bool take_array(std::uint32_t* dst, std::uint64_t n) {
    constexpr std::uint64_t kPiece = std::uint64_t(1) << 20;
    for (std::uint64_t k = 0; k < n; k += kPiece) {
      if (!take(dst + k, 4 * std::min(kPiece, n - k))) return false;
    }
    return true;
  }

  Read& read_;
  std::uint64_t body_left_;
  ShapeChecksum sum_;
};

template <class Read>
Result<groth16::R1csShape> decode_shape(std::uint64_t file_size, Read&& read) {
  if (file_size < kHeaderBytes + 8) return Error{"shape file: truncated header"};
  ShapeDecoder<std::remove_reference_t<Read>> d(file_size, read);
  return d.run();
}

}  // namespace

Result<groth16::R1csShape> deserialize_shape(std::span<const std::uint8_t> bytes) {
  std::size_t pos = 0;
  return decode_shape(bytes.size(), [&](void* dst, std::size_t n) {
    std::memcpy(dst, bytes.data() + pos, n);
    pos += n;
    return true;
  });
}

Status save_shape(const groth16::R1csShape& shape, const std::string& path) {
  // Streamed through a small buffer (the 32 GiB PoRep shape is a 7 GB file): the checksum is
  // computed on the way, so no second copy of the shape is ever held.
  const GlobalCoefficients gc(shape);
  const std::uint64_t body = file_size_of(shape, gc.table.size()) - 8;
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return Error{"cannot create " + tmp + ": " + std::strerror(errno)};
  ShapeChecksum sum(body);
  bool ok = true;
  int write_errno = 0;  // the first failure's reason (ENOSPC, EFBIG under a file-size limit, EIO)
  std::vector<std::uint8_t> buf;
  buf.reserve(std::size_t(4) << 20);
  auto flush = [&] {
    if (!buf.empty() && ok && std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) {
      ok = false;
      write_errno = errno;
    }
    buf.clear();
  };
  emit_shape(shape, gc, [&](const void* p, std::size_t n) {
    auto* b = static_cast<const std::uint8_t*>(p);
    sum.update({b, n});
    while (n > 0) {
      const std::size_t take = std::min(n, buf.capacity() - buf.size());
      buf.insert(buf.end(), b, b + take);
      b += take;
      n -= take;
      if (buf.size() == buf.capacity()) flush();
    }
  });
  const std::uint64_t s = sum.finish();
  const auto* sb = reinterpret_cast<const std::uint8_t*>(&s);
  buf.insert(buf.end(), sb, sb + 8);
  flush();
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    write_errno = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    return Error{"cannot write " + tmp + ": " + std::strerror(write_errno)};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    return Error{"cannot rename " + tmp + " to " + path + ": " + std::strerror(e)};
  }
  return ok_status();
}

Result<groth16::R1csShape> load_shape(const std::string& path) {
  // O_NONBLOCK: a FIFO at the cache path must not hold the daemon's start-up until a writer comes;
  // it is refused below like every other file that is not a regular one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error{"cannot open " + path + ": " + std::strerror(errno)};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return Error{"cannot read " + path};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{path + ": not a regular file"};
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  auto r = decode_shape(std::uint64_t(st.st_size), [fd](void* dst, std::size_t n) {
    auto* p = static_cast<char*>(dst);
    while (n > 0) {
      const ssize_t got = ::read(fd, p, n);
      if (got <= 0) {
        if (got < 0 && errno == EINTR) continue;
        return false;
      }
      p += got;
      n -= std::size_t(got);
    }
    return true;
  });
  ::close(fd);
  if (!r) return Error{path + ": " + r.error()};
  return r;
}

}  // namespace cuzk::circuit
