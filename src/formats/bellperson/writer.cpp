#include "formats/bellperson/writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/file_commit.hpp"
#include "base/parallel.hpp"

namespace cuzk::formats::bellperson {
namespace {

void put_u32be(std::uint8_t* p, std::uint32_t v) {
  p[0] = std::uint8_t(v >> 24);
  p[1] = std::uint8_t(v >> 16);
  p[2] = std::uint8_t(v >> 8);
  p[3] = std::uint8_t(v);
}

void put_point(std::uint8_t* out, const G1Affine& p) {
  auto b = math::g1_to_uncompressed(p);
  std::memcpy(out, b.data(), b.size());
}
void put_point(std::uint8_t* out, const G2Affine& p) {
  auto b = math::g2_to_uncompressed(p);
  std::memcpy(out, b.data(), b.size());
}

// A byte sink: a file or a vector.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void put(const std::uint8_t* p, std::size_t n) = 0;
};

class VectorSink : public Sink {
 public:
  explicit VectorSink(std::vector<std::uint8_t>& v) : v_(v) {}
  void put(const std::uint8_t* p, std::size_t n) override { v_.insert(v_.end(), p, p + n); }

 private:
  std::vector<std::uint8_t>& v_;
};

class FileSink : public Sink {
 public:
  explicit FileSink(std::FILE* f) : f_(f) {}
  void put(const std::uint8_t* p, std::size_t n) override {
    if (!failed_ && std::fwrite(p, 1, n, f_) != n) {
      failed_ = true;
      err_ = errno;
    }
  }
  bool failed() const { return failed_; }
  int err() const { return err_; }

 private:
  std::FILE* f_;
  bool failed_ = false;
  int err_ = 0;
};

Status check_vector(const char* what, std::size_t n, bool identity_found, std::size_t first_identity) {
  if (n > std::numeric_limits<std::uint32_t>::max()) {
    return Error{std::string("cannot write section ") + what + ": " + std::to_string(n) +
                 " points do not fit the u32 count"};
  }
  if (identity_found) {
    return Error{std::string("cannot write section ") + what + ": point " + std::to_string(first_identity) +
                 " is the identity, which bellperson's reader rejects"};
  }
  return ok_status();
}

template <class A>
Status scan_identity(const char* what, std::span<const A> v, bool allow) {
  std::size_t first = 0;
  bool found = false;
  if (!allow) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i].is_identity()) {
        found = true;
        first = i;
        break;
      }
    }
  }
  return check_vector(what, v.size(), found, first);
}

// Encodes a vector section (count + points) in parallel batches and streams it out.
template <class A>
void emit_vector(Sink& sink, std::span<const A> v, std::size_t threads) {
  constexpr std::size_t kBytes = std::is_same_v<A, G2Affine> ? kG2Bytes : kG1Bytes;
  std::uint8_t cnt[4];
  put_u32be(cnt, std::uint32_t(v.size()));
  sink.put(cnt, 4);
  constexpr std::size_t kBatch = 1 << 16;
  std::vector<std::uint8_t> buf(std::min(v.size(), kBatch) * kBytes);
  for (std::size_t b = 0; b < v.size(); b += kBatch) {
    std::size_t n = std::min(kBatch, v.size() - b);
    std::size_t chunks = std::max<std::size_t>(1, std::min(threads, n / 1024));
    parallel_chunks(n, chunks, [&](std::size_t lo, std::size_t hi, std::size_t) {
      for (std::size_t i = lo; i < hi; ++i) put_point(buf.data() + i * kBytes, v[b + i]);
    });
    sink.put(buf.data(), n * kBytes);
  }
}

void emit_vk(Sink& sink, const groth16::VerifyingKey& vk, std::size_t threads) {
  std::uint8_t head[kVkPointsBytes];
  put_point(head + 0, vk.alpha_g1);
  put_point(head + 96, vk.beta_g1);
  put_point(head + 192, vk.beta_g2);
  put_point(head + 384, vk.gamma_g2);
  put_point(head + 576, vk.delta_g1);
  put_point(head + 672, vk.delta_g2);
  sink.put(head, sizeof head);
  emit_vector<G1Affine>(sink, vk.ic, threads);
}

Status check_vk(const groth16::VerifyingKey& vk) {
  // ic identity is rejected by bellperson's VerifyingKey::read in every mode.
  return scan_identity<G1Affine>("ic", vk.ic, false);
}

Status check_params(const ParamsRef& p, const WriteOptions& opt) {
  if (!p.vk) return Error{"cannot write params: no verifying key"};
  if (auto s = check_vk(*p.vk); !s) return s;
  if (p.b_g1.size() != p.b_g2.size()) {
    return Error{"cannot write params: b_g1 has " + std::to_string(p.b_g1.size()) + " points but b_g2 has " +
                 std::to_string(p.b_g2.size())};
  }
  std::uint64_t m = std::uint64_t(p.h.size()) + 1;
  if (m & (m - 1)) {
    return Error{"cannot write params: h has " + std::to_string(p.h.size()) +
                 " points, not 2^k - 1 (is the key in the snarkjs H basis?)"};
  }
  const bool allow = opt.allow_identity;
  for (auto s : {scan_identity<G1Affine>("h", p.h, allow), scan_identity<G1Affine>("l", p.l, allow),
                 scan_identity<G1Affine>("a", p.a, allow), scan_identity<G1Affine>("b_g1", p.b_g1, allow),
                 scan_identity<G2Affine>("b_g2", p.b_g2, allow)}) {
    if (!s) return s;
  }
  return ok_status();
}

std::size_t threads_of(const WriteOptions& opt) { return opt.threads ? opt.threads : default_threads(); }

// Writes through a temporary file and renames it into place.
template <class Emit>
Status write_file(const std::string& path, Emit emit) {
  std::string tmp = tmp_name_for(path);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return Error{path + ": cannot create " + tmp + ": " + std::strerror(errno)};
  std::vector<char> iobuf(1 << 20);
  std::setvbuf(f, iobuf.data(), _IOFBF, iobuf.size());
  FileSink sink(f);
  emit(sink);
  if (sink.failed()) {
    std::fclose(f);
    std::remove(tmp.c_str());
    return Error{path + ": write failed: " + std::strerror(sink.err())};
  }
  return commit_tmp_file(f, tmp, path);  // fsync, then the rename
}

}  // namespace

std::uint64_t params_file_size(const ParamsRef& p) {
  std::uint64_t n = kVkPointsBytes + 6 * kCountBytes;
  n += std::uint64_t(p.vk ? p.vk->ic.size() : 0) * kG1Bytes;
  n += std::uint64_t(p.h.size() + p.l.size() + p.a.size() + p.b_g1.size()) * kG1Bytes;
  n += std::uint64_t(p.b_g2.size()) * kG2Bytes;
  return n;
}

static void emit_params(Sink& sink, const ParamsRef& p, std::size_t threads) {
  emit_vk(sink, *p.vk, threads);
  emit_vector<G1Affine>(sink, p.h, threads);
  emit_vector<G1Affine>(sink, p.l, threads);
  emit_vector<G1Affine>(sink, p.a, threads);
  emit_vector<G1Affine>(sink, p.b_g1, threads);
  emit_vector<G2Affine>(sink, p.b_g2, threads);
}

Status write_params(const std::string& path, const ParamsRef& p, const WriteOptions& opt) {
  if (auto s = check_params(p, opt); !s) return Error{path + ": " + s.error()};
  return write_file(path, [&](Sink& sink) { emit_params(sink, p, threads_of(opt)); });
}

Status write_params(const std::string& path, const groth16::ProvingKey& pk, const WriteOptions& opt) {
  if (pk.h_basis != groth16::HBasis::kMonomialOverZ) {
    return Error{path + ": cannot write a bellperson .params file from a key in the snarkjs H basis"};
  }
  return write_params(path, ParamsRef::of(pk), opt);
}

Result<std::vector<std::uint8_t>> encode_params(const ParamsRef& p, const WriteOptions& opt) {
  if (auto s = check_params(p, opt); !s) return Error{s.error()};
  std::vector<std::uint8_t> out;
  out.reserve(params_file_size(p));
  VectorSink sink(out);
  emit_params(sink, p, threads_of(opt));
  return out;
}

Status write_vk(const std::string& path, const groth16::VerifyingKey& vk, const WriteOptions& opt) {
  if (auto s = check_vk(vk); !s) return Error{path + ": " + s.error()};
  return write_file(path, [&](Sink& sink) { emit_vk(sink, vk, threads_of(opt)); });
}

Result<std::vector<std::uint8_t>> encode_vk(const groth16::VerifyingKey& vk, const WriteOptions& opt) {
  if (auto s = check_vk(vk); !s) return Error{s.error()};
  std::vector<std::uint8_t> out;
  VectorSink sink(out);
  emit_vk(sink, vk, threads_of(opt));
  return out;
}

std::string encode_meta(const Meta& m) { return "{\"sector_size\":" + std::to_string(m.sector_size) + "}"; }

Status write_meta(const std::string& path, const Meta& m) {
  std::string text = encode_meta(m);
  return write_file(path,
                    [&](Sink& sink) { sink.put(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()); });
}

Result<Meta> parse_meta(std::string_view text, const std::string& name) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) return Error{name + ": not valid JSON"};
  if (!j.is_object()) return Error{name + ": expected a JSON object {\"sector_size\": N}"};
  auto it = j.find("sector_size");
  if (it == j.end()) return Error{name + ": missing \"sector_size\""};
  if (!it->is_number_unsigned()) return Error{name + ": \"sector_size\" is not an unsigned integer"};
  return Meta{it->get<std::uint64_t>()};
}

Result<Meta> read_meta_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open: " + std::strerror(errno)};
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.size() > (1 << 20)) return Error{path + ": too large for a .meta file"};
  return parse_meta(text, path);
}

}  // namespace cuzk::formats::bellperson
