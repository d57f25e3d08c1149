#include "formats/base64.hpp"

#include <array>
#include <cstdio>

namespace cuzk::formats {

namespace {
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::array<std::uint8_t, 256> make_b64_decode() {
  std::array<std::uint8_t, 256> t{};
  for (auto& x : t) x = 0xff;
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kB64[i])] = std::uint8_t(i);
  return t;
}
constexpr std::array<std::uint8_t, 256> kB64Dec = make_b64_decode();

std::string char_desc(char c) {
  char b[16];
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) std::snprintf(b, sizeof b, "'%c'", c);
  else std::snprintf(b, sizeof b, "0x%02x", unsigned(u));
  return b;
}
}  // namespace

void base64_encode_into(std::span<const std::uint8_t> in, char* out) {
  std::size_t i = 0, o = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t(in[i]) << 16) | (std::uint32_t(in[i + 1]) << 8) | in[i + 2];
    out[o++] = kB64[v >> 18];
    out[o++] = kB64[(v >> 12) & 63];
    out[o++] = kB64[(v >> 6) & 63];
    out[o++] = kB64[v & 63];
  }
  if (in.size() - i == 1) {
    const std::uint32_t v = std::uint32_t(in[i]) << 16;
    out[o++] = kB64[v >> 18];
    out[o++] = kB64[(v >> 12) & 63];
    out[o++] = '=';
    out[o++] = '=';
  } else if (in.size() - i == 2) {
    const std::uint32_t v = (std::uint32_t(in[i]) << 16) | (std::uint32_t(in[i + 1]) << 8);
    out[o++] = kB64[v >> 18];
    out[o++] = kB64[(v >> 12) & 63];
    out[o++] = kB64[(v >> 6) & 63];
    out[o++] = '=';
  }
}

std::string base64_encode(std::span<const std::uint8_t> in) {
  std::string out((in.size() + 2) / 3 * 4, '=');
  base64_encode_into(in, out.data());
  return out;
}

Result<std::size_t> base64_decoded_size(std::string_view s) {
  if (s.size() % 4 != 0) return Error{"base64: length " + std::to_string(s.size()) + " is not a multiple of 4"};
  std::size_t pad = 0;
  if (!s.empty() && s.back() == '=') pad = (s.size() >= 2 && s[s.size() - 2] == '=') ? 2 : 1;
  return s.size() / 4 * 3 - pad;
}

std::string base64_decode_into(std::string_view s, std::uint8_t* d) {
  std::size_t pad = 0;
  if (!s.empty() && s.back() == '=') pad = (s.size() >= 2 && s[s.size() - 2] == '=') ? 2 : 1;
  const std::size_t full = s.empty() ? 0 : (pad ? s.size() - 4 : s.size());
  const auto* in = reinterpret_cast<const unsigned char*>(s.data());
  for (std::size_t i = 0; i < full; i += 4) {
    const std::uint32_t a = kB64Dec[in[i]], b = kB64Dec[in[i + 1]], c = kB64Dec[in[i + 2]], e = kB64Dec[in[i + 3]];
    if ((a | b | c | e) & 0x80) {
      for (std::size_t k = i; k < i + 4; ++k)
        if (kB64Dec[in[k]] == 0xff)
          return "base64: invalid character " + char_desc(s[k]) + " at offset " + std::to_string(k);
    }
    const std::uint32_t v = (a << 18) | (b << 12) | (c << 6) | e;
    d[0] = std::uint8_t(v >> 16);
    d[1] = std::uint8_t(v >> 8);
    d[2] = std::uint8_t(v);
    d += 3;
  }
  if (pad) {
    const std::size_t i = full;
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4 - pad; ++k) {
      const std::uint8_t x = kB64Dec[in[i + k]];
      if (x == 0xff) return "base64: invalid character " + char_desc(s[i + k]) + " at offset " + std::to_string(i + k);
      v |= std::uint32_t(x) << (18 - 6 * k);
    }
    if (v & (pad == 2 ? 0xffffu : 0xffu))
      return "base64: non-zero unused bits before the padding at offset " + std::to_string(i);
    d[0] = std::uint8_t(v >> 16);
    if (pad == 1) d[1] = std::uint8_t(v >> 8);
  }
  return {};
}

Result<std::vector<std::uint8_t>> base64_decode(std::string_view s, std::size_t extra) {
  auto n = base64_decoded_size(s);
  if (!n) return Error{n.error()};
  std::vector<std::uint8_t> out(*n + extra, 0);
  if (std::string e = base64_decode_into(s, out.data()); !e.empty()) return Error{std::move(e)};
  return out;
}

}  // namespace cuzk::formats
