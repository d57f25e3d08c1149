#include "formats/snarkjs_wtns.hpp"

#include "formats/binfile.hpp"
#include "formats/snarkjs_common.hpp"

namespace cuzk::formats {
namespace {

constexpr std::uint32_t kSecHeader = 1, kSecValues = 2;
constexpr std::size_t kHeaderBytes = 4 + kFrBytes + 4;

Result<std::vector<Fr>> parse(const BinFile& f) {
  auto hs = f.section(kSecHeader, "header");
  if (!hs) return Error{hs.error()};
  if (hs->size() < 4) return Error{f.expect_size(kSecHeader, "header", hs->size(), kHeaderBytes).error()};
  ByteCursor hc(*hs);
  std::uint32_t n8 = hc.u32();
  if (n8 != kFrBytes) {
    std::string prime = hc.has(n8) ? ", prime " + describe_prime(hc.bytes(n8)) : std::string();
    return f.section_error(
        kSecHeader, "header",
        "has field size n8 = " + std::to_string(n8) + prime + "; expected n8 = 32 and the BLS12-381 scalar field");
  }
  if (auto st = f.expect_size(kSecHeader, "header", hs->size(), kHeaderBytes); !st) return Error{st.error()};
  auto prime = hc.bytes(kFrBytes);
  if (!is_bls12_381_r(prime)) {
    return f.section_error(kSecHeader, "header",
                           "has prime " + describe_prime(prime) + ", expected the BLS12-381 scalar field r");
  }
  std::uint32_t n = hc.u32();
  if (n == 0) return f.section_error(kSecHeader, "header", "declares an empty witness (nWitness = 0)");
  auto vs = f.section(kSecValues, "witness values");
  if (!vs) return Error{vs.error()};
  if (auto st = f.expect_size(kSecValues, "witness values", vs->size(), std::uint64_t(n) * kFrBytes); !st) {
    return Error{st.error()};
  }
  std::vector<Fr> w(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint8_t* p = vs->data() + std::size_t(i) * kFrBytes;
    if (!decode_fr_plain(p, w[i])) {
      return f.section_error(
          kSecValues, "witness values",
          "value " + std::to_string(i) + " = " + le_bytes_to_decimal({p, kFrBytes}) + " is not below r");
    }
  }
  if (!w[0].is_one()) {
    return f.section_error(kSecValues, "witness values", "w[0] = " + w[0].to_decimal() + ", expected 1 (the ONE wire)");
  }
  return w;
}

}  // namespace

Result<std::vector<Fr>> parse_wtns(std::span<const std::uint8_t> bytes, const std::string& name) {
  auto f = BinFile::from_span(bytes, name, "wtns", 1, 2);
  if (!f) return Error{f.error()};
  return parse(*f);
}

Result<std::vector<Fr>> read_wtns(const std::string& path) {
  auto f = BinFile::open(path, "wtns", 1, 2);
  if (!f) return Error{f.error()};
  return parse(*f);
}

Status write_wtns(const std::string& path, std::span<const Fr> witness) {
  if (witness.empty() || !witness[0].is_one()) return Error{path + ": witness must start with w[0] = 1"};
  auto w = BinFileWriter::create(path, "wtns", 2, 2);
  if (!w) return Error{w.error()};
  if (auto st = w->begin_section(kSecHeader, kHeaderBytes); !st) return st;
  w->write_u32(kFrBytes);
  std::uint8_t buf[kFrBytes];
  auto r = Fr::modulus();
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t b = 0; b < 8; ++b) buf[8 * i + b] = std::uint8_t(r[i] >> (8 * b));
  }
  w->write(buf);
  w->write_u32(std::uint32_t(witness.size()));
  if (auto st = w->end_section(); !st) return st;
  if (auto st = w->begin_section(kSecValues, std::uint64_t(witness.size()) * kFrBytes); !st) return st;
  for (const Fr& v : witness) {
    encode_fr_plain(v, buf);
    w->write(buf);
  }
  if (auto st = w->end_section(); !st) return st;
  return w->finish();
}

}  // namespace cuzk::formats
