// Shared helpers of the formats tests: fixture paths, raw bytes, info.json, a scratch directory, and
// a tiny binfile splitter/joiner to build malformed files section by section.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "formats/binfile.hpp"

namespace cuzk::formats::test {

inline const std::vector<std::string>& circuits() {
  static const std::vector<std::string> c = {"mulchain", "multi_public", "linear", "bits"};
  return c;
}

inline std::string fixture_dir(const std::string& circuit) {
  return std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/snarkjs/" + circuit;
}
inline std::string fixture(const std::string& circuit, const std::string& file) {
  return fixture_dir(circuit) + "/" + file;
}
inline std::string r1cs_path(const std::string& c) { return fixture(c, c + ".r1cs"); }
inline std::string zkey_path(const std::string& c) { return fixture(c, c + ".zkey"); }

inline std::vector<std::uint8_t> bytes_of(const std::string& path) {
  auto b = read_file_bytes(path);
  EXPECT_TRUE(b.ok()) << b.error();
  return b.ok() ? *b : std::vector<std::uint8_t>{};
}
inline std::string text_of(const std::string& path) {
  auto b = bytes_of(path);
  return std::string(b.begin(), b.end());
}

inline nlohmann::json info_of(const std::string& circuit) {
  return nlohmann::json::parse(text_of(fixture(circuit, "info.json")));
}

// A per-process scratch directory under the test temp dir, removed at exit.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    std::string base = ::testing::TempDir();
    if (base.empty()) base = "/tmp/";
    std::string d = base + "cuzk_formats_" + std::to_string(::getpid());
    std::filesystem::create_directories(d);
    static struct Cleanup {
      std::string d;
      ~Cleanup() {
        std::error_code ec;
        std::filesystem::remove_all(d, ec);
      }
    } cleanup{d};
    return d;
  }();
  return dir;
}
inline std::string scratch(const std::string& name) { return scratch_dir() + "/" + name; }

// The container split into sections (payloads copied), and joined back.
struct RawSection {
  std::uint32_t id;
  std::vector<std::uint8_t> payload;
};
struct RawFile {
  std::string magic;
  std::uint32_t version = 0;
  std::vector<RawSection> sections;

  RawSection* find(std::uint32_t id) {
    for (auto& s : sections) {
      if (s.id == id) return &s;
    }
    return nullptr;
  }
  std::vector<std::uint8_t> join() const {
    std::vector<std::uint8_t> out(magic.begin(), magic.end());
    auto put = [&](std::uint64_t v, int n) {
      for (int i = 0; i < n; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
    };
    put(version, 4);
    put(sections.size(), 4);
    for (const auto& s : sections) {
      put(s.id, 4);
      put(s.payload.size(), 8);
      out.insert(out.end(), s.payload.begin(), s.payload.end());
    }
    return out;
  }
};

inline RawFile split(const std::vector<std::uint8_t>& bytes, const std::string& magic) {
  auto f = BinFile::from_span(bytes, "split", magic, 0, 0xffffffffu);
  EXPECT_TRUE(f.ok()) << f.error();
  RawFile r;
  r.magic = magic;
  if (!f.ok()) return r;
  r.version = f->version();
  for (const auto& s : f->sections()) {
    r.sections.push_back({s.id, std::vector<std::uint8_t>(bytes.begin() + std::ptrdiff_t(s.offset),
                                                          bytes.begin() + std::ptrdiff_t(s.offset + s.size))});
  }
  return r;
}

inline void put_u32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + std::size_t(i)] = std::uint8_t(v >> (8 * i));
}
inline std::uint32_t get_u32(const std::vector<std::uint8_t>& b, std::size_t at) { return load_u32le(b.data() + at); }

}  // namespace cuzk::formats::test
