#include "circuit/shape_io.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unordered_map>

namespace cuzk::circuit {

namespace {
using math::Fr;

constexpr char kMagic[8] = {'C', 'U', 'Z', 'K', 'R', '1', 'C', 'S'};

struct FrKeyHash {
  std::size_t operator()(const math::Limbs<4>& k) const {
    return std::size_t(k[0] * 0x9e3779b97f4a7c15ULL ^ k[1] ^ (k[2] << 1) ^ (k[3] << 2));
  }
};

class Writer {
 public:
  std::vector<std::uint8_t> out;
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
  }
  void bytes(const void* p, std::size_t n) {
    auto* b = static_cast<const std::uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
};

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> b) : b_(b) {}
  bool u32(std::uint32_t& v) {
    if (left() < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t(b_[pos_ + i]) << (8 * i);
    pos_ += 4;
    return true;
  }
  bool u64(std::uint64_t& v) {
    if (left() < 8) return false;
    v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t(b_[pos_ + i]) << (8 * i);
    pos_ += 8;
    return true;
  }
  std::span<const std::uint8_t> take(std::size_t n) {
    auto s = b_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  std::size_t left() const { return b_.size() - pos_; }
  std::size_t pos() const { return pos_; }

 private:
  std::span<const std::uint8_t> b_;
  std::size_t pos_ = 0;
};

std::uint32_t le32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}

}  // namespace

std::uint64_t shape_checksum(std::span<const std::uint8_t> bytes) {
  // Word-wise multiply-rotate mixing with a murmur-style finalizer: fast (GB/s) and sensitive to any
  // bit flip, truncation or reordering of words. Corruption detection, not a cryptographic MAC.
  constexpr std::uint64_t k1 = 0x87c37b91114253d5ULL, k2 = 0x4cf5ad432745937fULL;
  std::uint64_t h = 0x6a09e667f3bcc908ULL ^ (bytes.size() * k2);
  std::size_t n = bytes.size() / 8;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t w;
    std::memcpy(&w, bytes.data() + 8 * i, 8);
    w *= k1;
    w = (w << 31) | (w >> 33);
    w *= k2;
    h ^= w;
    h = ((h << 27) | (h >> 37)) * 5 + 0x52dce729;
  }
  std::uint64_t tail = 0;
  for (std::size_t i = 8 * n; i < bytes.size(); ++i) tail |= std::uint64_t(bytes[i]) << (8 * (i - 8 * n));
  h ^= tail * k1;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

std::vector<std::uint8_t> serialize_shape(const groth16::R1csShape& shape) {
  std::unordered_map<math::Limbs<4>, std::uint32_t, FrKeyHash> dict;
  std::vector<Fr> coeffs;
  const groth16::CsrMatrix* mats[3] = {&shape.a, &shape.b, &shape.c};
  std::vector<std::uint32_t> idx[3];
  for (int m = 0; m < 3; ++m) {
    idx[m].reserve(mats[m]->nnz());
    for (const Fr& v : mats[m]->vals) {
      auto [it, inserted] = dict.try_emplace(v.mont_raw(), std::uint32_t(coeffs.size()));
      if (inserted) coeffs.push_back(v);
      idx[m].push_back(it->second);
    }
  }
  Writer w;
  std::size_t rows = shape.num_constraints();
  std::size_t total_nnz = shape.a.nnz() + shape.b.nnz() + shape.c.nnz();
  w.out.reserve(48 + coeffs.size() * 32 + 3 * (8 + 4 * rows) + 8 * total_nnz + 8);
  w.bytes(kMagic, 8);
  w.u32(kShapeFormatVersion);
  w.u32(shape.has_c ? 1 : 0);
  w.u32(shape.num_inputs);
  w.u32(shape.num_aux);
  w.u64(rows);
  w.u64(coeffs.size());
  std::array<std::uint8_t, 32> buf;
  for (const Fr& c : coeffs) {
    c.to_bytes_le(buf);
    w.bytes(buf.data(), 32);
  }
  for (int m = 0; m < 3; ++m) {
    const auto& mat = *mats[m];
    w.u64(mat.nnz());
    for (std::size_t r = 0; r < rows; ++r) w.u32(std::uint32_t(mat.row_ptr[r + 1] - mat.row_ptr[r]));
    for (auto c : mat.cols) w.u32(c);
    for (auto i : idx[m]) w.u32(i);
  }
  w.u64(shape_checksum(w.out));
  return std::move(w.out);
}

Result<groth16::R1csShape> deserialize_shape(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 8 + 4 * 4 + 16 + 8) return Error{"shape file: truncated header"};
  if (std::memcmp(bytes.data(), kMagic, 8) != 0) return Error{"shape file: bad magic (not a cuzk R1CS shape)"};
  std::uint64_t stored_sum = 0;
  for (int i = 0; i < 8; ++i) stored_sum |= std::uint64_t(bytes[bytes.size() - 8 + i]) << (8 * i);
  Reader r(bytes.subspan(8, bytes.size() - 16));
  std::uint32_t version, flags, ni, na;
  std::uint64_t rows, ncoeffs;
  r.u32(version);
  if (version != kShapeFormatVersion) {
    return Error{"shape file: version " + std::to_string(version) + ", expected " + std::to_string(kShapeFormatVersion)};
  }
  if (shape_checksum(bytes.subspan(0, bytes.size() - 8)) != stored_sum) return Error{"shape file: checksum mismatch (corrupt or truncated)"};
  r.u32(flags);
  r.u32(ni);
  r.u32(na);
  r.u64(rows);
  r.u64(ncoeffs);
  if (flags & ~1u) return Error{"shape file: unknown flags"};
  if (ni == 0) return Error{"shape file: num_inputs is 0 (ONE is missing)"};
  std::uint64_t nvars = std::uint64_t(ni) + na;
  if (nvars > 0xffffffffULL) return Error{"shape file: too many variables"};
  if (ncoeffs > r.left() / 32) return Error{"shape file: coefficient table larger than the file"};
  std::vector<Fr> coeffs;
  coeffs.reserve(ncoeffs);
  for (std::uint64_t i = 0; i < ncoeffs; ++i) {
    auto c = Fr::from_bytes_le(r.take(32));
    if (!c) return Error{"shape file: coefficient " + std::to_string(i) + " is not a canonical field element"};
    coeffs.push_back(*c);
  }
  if (rows > r.left() / 4) return Error{"shape file: row count larger than the file"};
  groth16::R1csShape shape;
  shape.num_inputs = ni;
  shape.num_aux = na;
  shape.has_c = flags & 1;
  groth16::CsrMatrix* mats[3] = {&shape.a, &shape.b, &shape.c};
  const char* names[3] = {"A", "B", "C"};
  for (int m = 0; m < 3; ++m) {
    std::uint64_t nnz;
    if (!r.u64(nnz)) return Error{std::string("shape file: truncated before matrix ") + names[m]};
    if (r.left() < rows * 4 || (r.left() - rows * 4) / 8 < nnz) {
      return Error{std::string("shape file: matrix ") + names[m] + " larger than the file"};
    }
    auto& mat = *mats[m];
    mat.row_ptr.assign(1, 0);
    mat.row_ptr.reserve(rows + 1);
    auto lens = r.take(rows * 4);
    std::uint64_t acc = 0;
    for (std::uint64_t k = 0; k < rows; ++k) {
      acc += le32(lens.data() + 4 * k);
      mat.row_ptr.push_back(acc);
    }
    if (acc != nnz) return Error{std::string("shape file: matrix ") + names[m] + " row lengths do not sum to nnz"};
    auto cols = r.take(nnz * 4);
    auto ids = r.take(nnz * 4);
    mat.cols.resize(nnz);
    mat.vals.resize(nnz);
    for (std::uint64_t k = 0; k < nnz; ++k) {
      std::uint32_t c = le32(cols.data() + 4 * k), id = le32(ids.data() + 4 * k);
      if (c >= nvars) return Error{std::string("shape file: matrix ") + names[m] + " entry " + std::to_string(k) + " names variable " + std::to_string(c) + " of " + std::to_string(nvars)};
      if (id >= ncoeffs) return Error{std::string("shape file: matrix ") + names[m] + " entry " + std::to_string(k) + " has a bad coefficient index"};
      mat.cols[k] = c;
      mat.vals[k] = coeffs[id];
    }
  }
  if (r.left() != 0) return Error{"shape file: trailing bytes after matrix C"};
  return shape;
}

Status save_shape(const groth16::R1csShape& shape, const std::string& path) {
  auto bytes = serialize_shape(shape);
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return Error{"cannot create " + tmp};
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!f) return Error{"cannot write " + tmp};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return Error{"cannot rename " + tmp + " to " + path};
  return ok_status();
}

Result<groth16::R1csShape> load_shape(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return Error{"cannot open " + path};
  std::streamsize n = f.tellg();
  f.seekg(0);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(std::max<std::streamsize>(n, 0)));
  if (!f.read(reinterpret_cast<char*>(bytes.data()), n)) return Error{"cannot read " + path};
  auto r = deserialize_shape(bytes);
  if (!r) return Error{path + ": " + r.error()};
  return r;
}

}  // namespace cuzk::circuit
