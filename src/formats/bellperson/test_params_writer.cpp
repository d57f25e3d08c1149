#include "formats/bellperson/test_params_writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <limits>
#include <memory>

#include "base/file_commit.hpp"
#include "base/parallel.hpp"
#include "formats/bellperson/params.hpp"
#include "formats/bellperson/writer.hpp"
#include "groth16/setup_scalars.hpp"

namespace cuzk::formats::bellperson {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The .params file being written: a temporary name, renamed into place by commit(), removed on
// failure or when never committed. Appends run on a second thread, one at a time, so the next
// slice can be computed meanwhile.
class TmpParamsFile {
 public:
  ~TmpParamsFile() {
    drain();
    if (f_) std::fclose(f_);
    if (!committed_ && !tmp_.empty()) std::remove(tmp_.c_str());
  }
  Status open(const std::string& path) {
    path_ = path;
    tmp_ = tmp_name_for(path);
    f_ = std::fopen(tmp_.c_str(), "wb");
    if (!f_) return Error{path + ": cannot create " + tmp_ + ": " + std::strerror(errno)};
    std::setvbuf(f_, nullptr, _IOFBF, 1 << 20);
    return ok_status();
  }
  // Queues bytes [p, p + n) (which must stay valid until the next append or drain).
  double append_async(const std::uint8_t* p, std::size_t n) {
    double waited = drain();
    pending_ = std::async(std::launch::async, [this, p, n] {
      if (std::fwrite(p, 1, n, f_) == n) return 0;
      return errno ? errno : EIO;
    });
    return waited;
  }
  double append(const std::uint8_t* p, std::size_t n) {
    double waited = append_async(p, n);
    return waited + drain();
  }
  // Waits for the queued write; returns the seconds waited.
  double drain() {
    if (!pending_.valid()) return 0;
    auto t0 = Clock::now();
    int e = pending_.get();
    if (e && !err_) err_ = e;
    return seconds_since(t0);
  }
  Status commit() {
    drain();
    std::FILE* f = f_;
    f_ = nullptr;
    if (err_) {
      std::fclose(f);
      return Error{path_ + ": write failed: " + std::strerror(err_)};
    }
    // Synced to the disk before the rename (base/file_commit.hpp): after a power loss the name
    // holds the whole key or nothing.
    if (auto st = commit_tmp_file(f, tmp_, path_); !st) return st;
    committed_ = true;
    return ok_status();
  }

 private:
  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
  std::future<int> pending_;
  int err_ = 0;
  bool committed_ = false;
};

void put_u32be(std::uint8_t* p, std::uint32_t v) {
  p[0] = std::uint8_t(v >> 24);
  p[1] = std::uint8_t(v >> 16);
  p[2] = std::uint8_t(v >> 8);
  p[3] = std::uint8_t(v);
}

// One vector section: u32 count, then the points, formed / multiplied / written a slice at a time.
class SectionWriter {
 public:
  SectionWriter(TmpParamsFile& file, groth16::FixedBaseMultiplier& mul, std::size_t chunk, TestParamsReport& rep,
                const TestParamsOptions& opt, std::size_t done, std::size_t total)
      : file_(file), mul_(mul), chunk_(chunk), rep_(rep), opt_(opt), done_(done), total_(total) {}

  template <class Fill>
  Status write(const char* name, std::size_t count, bool g2, Fill&& fill) {
    if (count > std::numeric_limits<std::uint32_t>::max()) {
      return Error{std::string("cannot write section ") + name + ": " + std::to_string(count) +
                   " points do not fit the u32 count"};
    }
    TestParamsReport::Section sec{name, count};
    std::uint8_t cnt[4];
    put_u32be(cnt, std::uint32_t(count));
    rep_.write_wait_s += file_.append(cnt, 4);
    const std::size_t bytes = g2 ? kG2Bytes : kG1Bytes;
    const std::size_t slice = std::min(chunk_, count);
    scalars_.resize(std::max(scalars_.size(), slice));
    for (auto& b : bufs_) {
      if (b.size() < slice * bytes) {
        rep_.write_wait_s += file_.drain();  // a queued write may still read the old buffer
        b.resize(slice * bytes);
      }
    }
    rep_.buffer_bytes = std::max(rep_.buffer_bytes, scalars_.size() * sizeof(math::Fr) + 2 * bufs_[0].size());
    for (std::size_t lo = 0; lo < count; lo += slice) {
      const std::size_t n = std::min(slice, count - lo);
      auto t0 = Clock::now();
      if (auto st = fill(lo, lo + n, scalars_.data()); !st) return st;
      for (std::size_t j = 0; j < n; ++j) {
        if (scalars_[j].is_zero()) {  // k = 0 is the identity, which bellperson's reader rejects
          return Error{std::string("cannot write section ") + name + ": point " + std::to_string(lo + j) +
                       " is the identity, which bellperson's reader rejects"};
        }
      }
      sec.scalars_s += seconds_since(t0);
      t0 = Clock::now();
      // The buffer written two slices ago is free: append_async waited for it before queueing the last.
      std::uint8_t* out = bufs_[cur_].data();
      // One multiplier call per slice, or per progress_points when progress is shown.
      const std::size_t piece = opt_.progress && opt_.progress_points ? opt_.progress_points : n;
      for (std::size_t p = 0; p < n; p += piece) {
        const std::size_t m = std::min(piece, n - p);
        std::span<const math::Fr> ks(scalars_.data() + p, m);
        if (g2) mul_.mul_g2_uncompressed(ks, out + p * bytes);
        else mul_.mul_g1_uncompressed(ks, out + p * bytes);
        done_ += m;
        if (opt_.progress) opt_.progress(name, done_, total_);
      }
      sec.mul_s += seconds_since(t0);
      rep_.write_wait_s += file_.append_async(out, n * bytes);
      cur_ ^= 1;
    }
    rep_.sections.push_back(sec);
    return ok_status();
  }

 private:
  TmpParamsFile& file_;
  groth16::FixedBaseMultiplier& mul_;
  std::size_t chunk_;
  TestParamsReport& rep_;
  const TestParamsOptions& opt_;
  std::size_t done_, total_;  // points multiplied / in all, every section (for opt_.progress)
  std::vector<math::Fr> scalars_;
  std::vector<std::uint8_t> bufs_[2];
  int cur_ = 0;
};

template <class Fn>
auto ok_after(Fn&& fn) {
  return [fn](std::size_t lo, std::size_t hi, math::Fr* out) -> Status {
    fn(lo, hi, out);
    return ok_status();
  };
}

}  // namespace

Status write_test_params(const groth16::R1csShape& shape, const groth16::ToxicWaste& toxic,
                         const std::string& params_path, const std::string& vk_path, const TestParamsOptions& options,
                         TestParamsReport* report) {
  const auto t_start = Clock::now();
  TestParamsReport rep;
  if (options.progress) options.progress("QAP at tau", 0, 0);
  auto sc = groth16::SetupScalars::compute(shape, groth16::HBasis::kMonomialOverZ, toxic, options.threads);
  if (!sc) return Error{sc.error()};
  rep.lagrange_s = sc->timings().lagrange_s;
  rep.accumulate_s = sc->timings().accumulate_s;
  rep.combine_s = sc->timings().combine_s;
  rep.scalars_bytes = sc->memory_bytes();

  std::unique_ptr<groth16::FixedBaseMultiplier> own;
  groth16::FixedBaseMultiplier* mul = options.multiplier;
  if (!mul) {
    own = groth16::make_cpu_fixed_base_multiplier(options.threads);
    mul = own.get();
  }
  rep.multiplier = mul->name();

  // The verifying key (small): its 6 points and ic, encoded by the in-memory writer.
  auto t0 = Clock::now();
  groth16::VerifyingKey vk = groth16::test_vk_elements(toxic, *mul);
  std::vector<math::Fr> ic_s(sc->ic_count());
  sc->fill_ic(0, ic_s.size(), ic_s.data());
  vk.ic.resize(ic_s.size());
  mul->mul_g1(ic_s, vk.ic);
  auto head = encode_vk(vk);
  if (!head) return Error{params_path + ": " + head.error()};
  rep.sections.push_back({"vk", 6 + vk.ic.size(), 0, seconds_since(t0)});
  const std::size_t vk_points = 6 + vk.ic.size();
  const std::size_t total_points = vk_points + sc->h_count() + sc->l_count() + sc->a_count() + 2 * sc->b_count();
  if (options.progress) options.progress("vk", vk_points, total_points);

  TmpParamsFile file;
  if (auto st = file.open(params_path); !st) return st;
  rep.write_wait_s += file.append(head->data(), head->size());
  const std::size_t chunk = std::max<std::size_t>(1, options.chunk);
  SectionWriter sw(file, *mul, chunk, rep, options, vk_points, total_points);
  const groth16::SetupScalars& s = *sc;
  auto fail = [&](const Status& st) { return Error{params_path + ": " + st.error()}; };
  if (auto st = sw.write("h", s.h_count(), false,
                         [&](std::size_t lo, std::size_t hi, math::Fr* out) { return s.fill_h(lo, hi, out); });
      !st) {
    return fail(st);
  }
  if (auto st = sw.write("l", s.l_count(), false, ok_after([&](auto lo, auto hi, auto* o) { s.fill_l(lo, hi, o); }));
      !st) {
    return fail(st);
  }
  if (auto st = sw.write("a", s.a_count(), false, ok_after([&](auto lo, auto hi, auto* o) { s.fill_a(lo, hi, o); }));
      !st) {
    return fail(st);
  }
  if (auto st = sw.write("b_g1", s.b_count(), false, ok_after([&](auto lo, auto hi, auto* o) { s.fill_b(lo, hi, o); }));
      !st) {
    return fail(st);
  }
  if (auto st = sw.write("b_g2", s.b_count(), true, ok_after([&](auto lo, auto hi, auto* o) { s.fill_b(lo, hi, o); }));
      !st) {
    return fail(st);
  }
  auto t_drain = Clock::now();
  if (auto st = file.commit(); !st) return st;
  rep.write_wait_s += seconds_since(t_drain);
  if (!vk_path.empty()) {
    if (auto st = write_vk(vk_path, vk); !st) return st;
  }
  rep.total_s = seconds_since(t_start);
  if (report) *report = std::move(rep);
  return ok_status();
}

}  // namespace cuzk::formats::bellperson
