// The recorded PoRep partition shapes, pinned byte for byte: the shape_io serialization of the 2 KiB
// and 512 MiB partition shapes must keep the SHA-256 they had before the compact CsrMatrix and the
// fast (parallel) recorder, so any change in row order, variable order, coefficients or the file
// format shows up here.
//
// Expected values recorded on 2026-11-29 from the Fr-valued CsrMatrix and the sequential
// ShapeRecorder (commit 6256fa4), with
//   build/bench/shape_record_bench --save /tmp/shape_old StackedDrg2KiBV1_1 StackedDrg512MiBV1_1
//   sha256sum /tmp/shape_old/*.shape
// (151,781,980 and 251,046,460 bytes).
#include <gtest/gtest.h>
#include <csignal>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "circuit/shape_io.hpp"
#include "filecoin/porep/shape.hpp"
#include "filecoin/porep/config.hpp"
#include "filecoin/common/sha.hpp"

namespace cuzk::filecoin::porep {
namespace {

std::string hex(const Bytes32& d) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (auto b : d) {
    s.push_back(digits[b >> 4]);
    s.push_back(digits[b & 15]);
  }
  return s;
}

void expect_serialization(const char* name, std::size_t size, const char* sha) {
  const auto shape = record_porep_shape(porep::porep_config_by_name(name));
  const auto bytes = circuit::serialize_shape(shape);
  EXPECT_EQ(bytes.size(), size) << name;
  EXPECT_EQ(hex(filecoin::sha256(bytes)), sha) << name;
}

TEST(PorepShape, Serialization2KiBUnchanged) {
  expect_serialization("StackedDrg2KiBV1_1", 151'781'980,
                       "a0d3ea5d4fb706989b44693e884ce5b75e276eb29d8a540bbe9d8a495c9ca36f");
}

TEST(PorepShape, Serialization512MiBUnchanged) {
  expect_serialization("StackedDrg512MiBV1_1", 251'046'460,
                       "7147c7a9c4d31dd1125b7cb8701c28f9a697a0bc823d0085c378db2a97554fb8");
}

// The parallel recorder (record_porep_shape) and the plain sequential one agree byte for byte (the
// pinned hashes above come from the sequential recorder of the time).
TEST(PorepShape, ParallelRecordingEqualsSequential) {
  const auto& cfg = porep::porep_config_by_name("StackedDrg8MiBV1_1");
  EXPECT_EQ(circuit::serialize_shape(record_porep_shape(cfg)),
            circuit::serialize_shape(record_porep_shape_sequential(cfg)));
}

class ShapeCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("cuzk_shape_cache_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "v28-stacked-proof-of-replication-test.params.shape").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string path_;
  const porep::PorepConfig& k2_ = porep::porep_config_by_name("StackedDrg2KiBV1_1");
};

TEST_F(ShapeCache, PathIsBesideTheParams) {
  EXPECT_EQ(filecoin::shape_cache_path("/p/v28-x.params"), "/p/v28-x.params.shape");
}

TEST_F(ShapeCache, RecordsAndSavesThenLoads) {
  auto first = load_or_record_porep_shape(k2_, path_);
  EXPECT_EQ(first.source, filecoin::ShapeLoad::Source::kRecordedSaved) << first.note;
  EXPECT_EQ(first.note, "");
  EXPECT_GT(first.record_s, 0.0);
  EXPECT_TRUE(std::filesystem::exists(path_));
  EXPECT_FALSE(std::filesystem::exists(path_ + ".tmp"));
  auto second = load_or_record_porep_shape(k2_, path_);
  EXPECT_EQ(second.source, filecoin::ShapeLoad::Source::kCache) << second.note;
  EXPECT_GT(second.load_s, 0.0);
  EXPECT_EQ(second.record_s, 0.0);
  EXPECT_EQ(second.shape.num_constraints(), 2'687'961u);
  EXPECT_EQ(circuit::serialize_shape(second.shape), circuit::serialize_shape(first.shape));
}

TEST_F(ShapeCache, ACacheOfAnotherCircuitIsReplaced) {
  ASSERT_TRUE(circuit::save_shape(record_porep_shape(k2_), path_).ok());
  const auto& k8 = porep::porep_config_by_name("StackedDrg8MiBV1_1");
  auto r = load_or_record_porep_shape(k8, path_);
  EXPECT_EQ(r.source, filecoin::ShapeLoad::Source::kRecordedSaved);
  EXPECT_EQ(r.note, path_ + ": aux count differs from StackedDrg8MiBV1_1");
  auto again = load_or_record_porep_shape(k8, path_);
  EXPECT_EQ(again.source, filecoin::ShapeLoad::Source::kCache) << again.note;
  EXPECT_EQ(again.shape.num_aux, r.shape.num_aux);
}

TEST_F(ShapeCache, ACorruptCacheIsReportedAndReplaced) {
  ASSERT_EQ(load_or_record_porep_shape(k2_, path_).source, filecoin::ShapeLoad::Source::kRecordedSaved);
  {
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100'000'000);
    f.put('\x5a');
  }
  auto r = load_or_record_porep_shape(k2_, path_);
  EXPECT_EQ(r.source, filecoin::ShapeLoad::Source::kRecordedSaved);
  EXPECT_EQ(r.note.rfind(path_ + ": shape file: ", 0), 0u) << r.note;
  EXPECT_EQ(load_or_record_porep_shape(k2_, path_).source, filecoin::ShapeLoad::Source::kCache);
}

TEST_F(ShapeCache, AnUnwritableCacheIsNotAnError) {
  const std::string nowhere = (dir_ / "missing-dir" / "x.params.shape").string();
  auto r = load_or_record_porep_shape(k2_, nowhere);
  EXPECT_EQ(r.source, filecoin::ShapeLoad::Source::kRecordedUnsaved);
  EXPECT_EQ(r.note, "cannot create " + nowhere + ".tmp: No such file or directory");
  EXPECT_EQ(r.shape.num_constraints(), 2'687'961u);
}

// Issue 41 item 3: a FIFO at the cache path is refused at once (it used to block the daemon's
// start-up for ever) and replaced by the recorded shape.
TEST_F(ShapeCache, AFifoAtTheCachePathIsRefusedNotWaitedFor) {
  ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0);
  auto r = load_or_record_porep_shape(k2_, path_);
  EXPECT_EQ(r.note, path_ + ": not a regular file");
  EXPECT_EQ(r.source, filecoin::ShapeLoad::Source::kRecordedSaved);
  EXPECT_TRUE(std::filesystem::is_regular_file(path_));
  EXPECT_EQ(load_or_record_porep_shape(k2_, path_).source, filecoin::ShapeLoad::Source::kCache);
}

// Under a file-size limit below the cache's size (ulimit -f, with SIGXFSZ ignored as the daemon and
// the tool do), the write fails with its reason, no .tmp is left, and the shape is still served.
// In a child process started afresh (gtest's "threadsafe" death-test style: the shape recorder's
// threads do not survive a bare fork).
TEST_F(ShapeCache, AFileSizeLimitFailsTheWriteWithItsReason) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto child = [this] {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit lim{4u << 20, 4u << 20};
    if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) std::_Exit(3);
    auto r = load_or_record_porep_shape(k2_, path_);
    const bool ok = r.source == filecoin::ShapeLoad::Source::kRecordedUnsaved &&
                    r.note == "cannot write " + path_ + ".tmp: File too large" &&
                    !std::filesystem::exists(path_ + ".tmp") && !std::filesystem::exists(path_) &&
                    r.shape.num_constraints() == 2'687'961u;
    std::fprintf(stderr, "source %d, note \"%s\"\n", int(r.source), r.note.c_str());
    std::filesystem::remove_all(dir_);  // the child's own folder (its TearDown does not run)
    std::_Exit(ok ? 0 : 1);
  };
  EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "note \"cannot write .*File too large\"");
}

TEST_F(ShapeCache, DisabledByPolicy) {
  auto r = load_or_record_porep_shape(k2_, path_, ShapeCachePolicy::kDisabled);
  EXPECT_EQ(r.source, filecoin::ShapeLoad::Source::kRecordedNoCache);
  EXPECT_FALSE(std::filesystem::exists(path_));
  EXPECT_EQ(load_or_record_porep_shape(k2_, "").source, filecoin::ShapeLoad::Source::kRecordedNoCache);
}

}  // namespace
}  // namespace cuzk::filecoin::porep
