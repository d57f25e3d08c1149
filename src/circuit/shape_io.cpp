#include "circuit/shape_io.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "base/parallel.hpp"

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

// Read-only mapping of a whole file (closed and unmapped on destruction).
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return;
    struct stat st{};
    if (::fstat(fd_, &st) != 0) return;
    size_ = std::size_t(st.st_size);
    if (size_ == 0) {
      ok_ = true;
      return;
    }
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd_, 0);
    if (p == MAP_FAILED) return;
    data_ = static_cast<const std::uint8_t*>(p);
    ::madvise(p, size_, MADV_SEQUENTIAL);
    ok_ = true;
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<std::uint8_t*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  bool ok() const { return ok_; }
  std::span<const std::uint8_t> bytes() const { return {data_, size_}; }

 private:
  int fd_ = -1;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  bool ok_ = false;
};

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

Result<groth16::R1csShape> deserialize_shape(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kHeaderBytes + 8) return Error{"shape file: truncated header"};
  if (std::memcmp(bytes.data(), kMagic, 8) != 0) return Error{"shape file: bad magic (not a cuzk R1CS shape)"};
  const std::uint32_t version = le32(bytes.data() + 8);
  if (version != kShapeFormatVersion) {
    return Error{"shape file: version " + std::to_string(version) + ", expected " + std::to_string(kShapeFormatVersion)};
  }
  const std::uint64_t stored_sum = le64(bytes.data() + bytes.size() - 8);
  if (shape_checksum(bytes.subspan(0, bytes.size() - 8)) != stored_sum) return Error{"shape file: checksum mismatch (corrupt or truncated)"};
  const std::uint32_t flags = le32(bytes.data() + 12), ni = le32(bytes.data() + 16), na = le32(bytes.data() + 20);
  const std::uint64_t rows = le64(bytes.data() + 24), ncoeffs = le64(bytes.data() + 32);
  std::size_t pos = kHeaderBytes;
  const std::size_t end = bytes.size() - 8;
  auto left = [&] { return end - pos; };
  if (flags & ~1u) return Error{"shape file: unknown flags"};
  if (ni == 0) return Error{"shape file: num_inputs is 0 (ONE is missing)"};
  const std::uint64_t nvars = std::uint64_t(ni) + na;
  if (nvars > 0xffffffffULL) return Error{"shape file: too many variables"};
  if (ncoeffs > left() / 32) return Error{"shape file: coefficient table larger than the file"};
  std::vector<Fr> coeffs;
  coeffs.reserve(ncoeffs);
  std::unordered_map<math::Limbs<4>, std::uint32_t, groth16::FrLimbsHash> seen;
  for (std::uint64_t i = 0; i < ncoeffs; ++i, pos += 32) {
    auto c = Fr::from_bytes_le(bytes.subspan(pos, 32));
    if (!c) return Error{"shape file: coefficient " + std::to_string(i) + " is not a canonical field element"};
    auto [it, inserted] = seen.try_emplace(c->mont_raw(), std::uint32_t(i));
    if (!inserted) return Error{"shape file: coefficient " + std::to_string(i) + " repeats coefficient " + std::to_string(it->second)};
    coeffs.push_back(*c);
  }
  if (rows > left() / 4) return Error{"shape file: row count larger than the file"};
  groth16::R1csShape shape;
  shape.num_inputs = ni;
  shape.num_aux = na;
  shape.has_c = flags & 1;
  groth16::CsrMatrix* mats[3] = {&shape.a, &shape.b, &shape.c};
  const char* names[3] = {"A", "B", "C"};
  for (int m = 0; m < 3; ++m) {
    if (left() < 8) return Error{std::string("shape file: truncated before matrix ") + names[m]};
    const std::uint64_t nnz = le64(bytes.data() + pos);
    pos += 8;
    if (left() < rows * 4 || (left() - rows * 4) / 8 < nnz) {
      return Error{std::string("shape file: matrix ") + names[m] + " larger than the file"};
    }
    auto& mat = *mats[m];
    mat.row_ptr.resize(rows + 1);
    mat.row_ptr[0] = 0;
    const std::uint8_t* lens = bytes.data() + pos;
    std::uint64_t acc = 0;
    for (std::uint64_t k = 0; k < rows; ++k) mat.row_ptr[k + 1] = acc += le32(lens + 4 * k);
    pos += rows * 4;
    if (acc != nnz) return Error{std::string("shape file: matrix ") + names[m] + " row lengths do not sum to nnz"};
    mat.cols.resize(nnz);
    mat.coeff_ids.resize(nnz);
    std::memcpy(mat.cols.data(), bytes.data() + pos, nnz * 4);
    std::memcpy(mat.coeff_ids.data(), bytes.data() + pos + nnz * 4, nnz * 4);
    pos += nnz * 8;
    // Range checks in parallel (722M entries at 32 GiB); the first bad entry is reported.
    std::atomic<std::uint64_t> first_bad{nnz};
    parallel_chunks(nnz, nnz < (1u << 20) ? 1 : default_threads(), [&](std::size_t b, std::size_t e, std::size_t) {
      for (std::size_t k = b; k < e; ++k) {
        if (mat.cols[k] >= nvars || mat.coeff_ids[k] >= ncoeffs) {
          std::uint64_t cur = first_bad.load();
          while (k < cur && !first_bad.compare_exchange_weak(cur, k)) {
          }
          return;
        }
      }
    });
    if (const std::uint64_t k = first_bad.load(); k < nnz) {
      if (mat.cols[k] >= nvars) {
        return Error{std::string("shape file: matrix ") + names[m] + " entry " + std::to_string(k) + " names variable " +
                     std::to_string(mat.cols[k]) + " of " + std::to_string(nvars)};
      }
      return Error{std::string("shape file: matrix ") + names[m] + " entry " + std::to_string(k) + " has a bad coefficient index"};
    }
    mat.coeffs = coeffs;  // the file's table serves every matrix (a few KB)
  }
  if (left() != 0) return Error{"shape file: trailing bytes after matrix C"};
  return shape;
}

Status save_shape(const groth16::R1csShape& shape, const std::string& path) {
  // Streamed through a small buffer (the 32 GiB PoRep shape is a 7 GB file): the checksum is
  // computed on the way, so no second copy of the shape is ever held.
  const GlobalCoefficients gc(shape);
  const std::uint64_t body = file_size_of(shape, gc.table.size()) - 8;
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return Error{"cannot create " + tmp};
  ShapeChecksum sum(body);
  bool ok = true;
  std::vector<std::uint8_t> buf;
  buf.reserve(std::size_t(4) << 20);
  auto flush = [&] {
    if (!buf.empty() && std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) ok = false;
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
  if (std::fclose(f) != 0) ok = false;
  if (!ok) {
    std::remove(tmp.c_str());
    return Error{"cannot write " + tmp};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Error{"cannot rename " + tmp + " to " + path};
  }
  return ok_status();
}

Result<groth16::R1csShape> load_shape(const std::string& path) {
  MappedFile file(path);
  if (!file.ok()) return Error{"cannot open " + path};
  auto r = deserialize_shape(file.bytes());
  if (!r) return Error{path + ": " + r.error()};
  return r;
}

}  // namespace cuzk::circuit
