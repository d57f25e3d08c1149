#include "formats/bellperson/params.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/huge_vector.hpp"
#include "base/parallel.hpp"
#include "formats/bellperson/point_decode.hpp"

namespace cuzk::formats::bellperson {

// ---------------------------------------------------------------------------------------------
// File image

class FileImage {
 public:
  FileImage() = default;
  FileImage(const FileImage&) = delete;
  FileImage& operator=(const FileImage&) = delete;
  ~FileImage() {
    if (map_) ::munmap(map_, map_len_);
  }

  static Result<std::shared_ptr<const FileImage>> map_file(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      int e = errno;
      ::close(fd);
      return Error{path + ": cannot stat: " + std::strerror(e)};
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      return Error{path + ": not a regular file"};
    }
    auto img = std::make_shared<FileImage>();
    img->name_ = path;
    if (st.st_size > 0) {
      void* m = ::mmap(nullptr, std::size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (m == MAP_FAILED) {
        int e = errno;
        ::close(fd);
        return Error{path + ": mmap failed: " + std::strerror(e)};
      }
      img->map_ = m;
      img->map_len_ = std::size_t(st.st_size);
      img->data_ = std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(m), img->map_len_);
    }
    ::close(fd);
    return std::shared_ptr<const FileImage>(std::move(img));
  }

  static std::shared_ptr<const FileImage> from_vector(std::vector<std::uint8_t> bytes, const std::string& name) {
    auto img = std::make_shared<FileImage>();
    img->name_ = name;
    img->owned_ = std::move(bytes);
    img->data_ = std::span<const std::uint8_t>(img->owned_.data(), img->owned_.size());
    return img;
  }

  const std::string& name() const { return name_; }
  std::span<const std::uint8_t> data() const { return data_; }
  bool mapped() const { return map_ != nullptr; }

  // Asks the kernel to read a range ahead (no effect on in-memory images).
  void prefetch(std::uint64_t offset, std::uint64_t len) const {
    if (!map_ || len == 0) return;
    const std::uint64_t page = std::uint64_t(::sysconf(_SC_PAGESIZE));
    std::uint64_t b = offset / page * page;
    std::uint64_t e = std::min<std::uint64_t>(offset + len, map_len_);
    ::madvise(static_cast<std::uint8_t*>(map_) + b, e - b, MADV_WILLNEED);
  }
  // Drops this process's pages of [offset, offset + len) (whole pages inside it); a private read-only
  // mapping reads them again from the page cache if touched later.
  void release(std::uint64_t offset, std::uint64_t len) const {
    if (!map_ || len == 0) return;
    const std::uint64_t page = std::uint64_t(::sysconf(_SC_PAGESIZE));
    const std::uint64_t b = (offset + page - 1) / page * page;
    const std::uint64_t e = std::min<std::uint64_t>(offset + len, map_len_) / page * page;
    if (e > b) ::madvise(static_cast<std::uint8_t*>(map_) + b, e - b, MADV_DONTNEED);
  }

 private:
  std::string name_;
  std::vector<std::uint8_t> owned_;
  void* map_ = nullptr;
  std::size_t map_len_ = 0;
  std::span<const std::uint8_t> data_;
};

// ---------------------------------------------------------------------------------------------
// Layout

namespace {

inline std::uint32_t load_u32be(const std::uint8_t* p) {
  return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | std::uint32_t(p[3]);
}

struct VkPoint {
  const char* name;
  std::uint32_t offset;
  bool g2;
};
constexpr VkPoint kVkPoints[6] = {{"alpha_g1", 0, false},  {"beta_g1", 96, false},   {"beta_g2", 192, true},
                                  {"gamma_g2", 384, true}, {"delta_g1", 576, false}, {"delta_g2", 672, true}};

std::string at_offset(std::uint64_t off) { return " at offset " + std::to_string(off); }

Error section_error(const std::string& name, Section s, const std::string& what, std::uint64_t off,
                    const std::string& reason) {
  return Error{name + ": section " + section_name(s) + (what.empty() ? "" : " " + what) + at_offset(off) + ": " +
               reason};
}

Result<Layout> parse_layout(std::span<const std::uint8_t> data, const std::string& name, bool params) {
  Layout lay;
  lay.file_size = data.size();
  const std::uint64_t size = data.size();
  for (const auto& p : kVkPoints) {
    std::uint64_t end = p.offset + (p.g2 ? kG2Bytes : kG1Bytes);
    if (end > size) {
      return section_error(name, Section::kVk, std::string("point ") + p.name, p.offset,
                           "truncated: the file ends at byte " + std::to_string(size));
    }
  }
  lay.sections.push_back(SectionInfo{Section::kVk, 0, 0, 6, 0, kVkPointsBytes});
  std::uint64_t off = kVkPointsBytes;
  const int last = params ? 6 : 1;
  for (int k = 0; k < last; ++k) {
    Section s = kVectorSections[k];
    const std::uint32_t psize = s == Section::kBG2 ? kG2Bytes : kG1Bytes;
    if (size - off < kCountBytes) {
      return section_error(name, s, "count", off, "truncated: the file ends at byte " + std::to_string(size));
    }
    std::uint32_t count = load_u32be(data.data() + off);
    std::uint64_t need = std::uint64_t(count) * psize;
    std::uint64_t remain = size - off - kCountBytes;
    if (need > remain) {
      return section_error(name, s, "", off + kCountBytes,
                           std::to_string(count) + " points of " + std::to_string(psize) + " bytes need " +
                               std::to_string(need) + " bytes, only " + std::to_string(remain) +
                               " remain (truncated file or corrupt count)");
    }
    SectionInfo si{s, off, off + kCountBytes, count, psize, off + kCountBytes + need};
    lay.sections.push_back(si);
    off = si.end;
  }
  if (off != size) {
    return Error{name + ": " + std::to_string(size - off) + " unexpected bytes after section " +
                 section_name(lay.sections.back().section) + at_offset(off) + " (the file should end there)"};
  }
  if (params) {
    const SectionInfo& bg1 = lay.get(Section::kBG1);
    const SectionInfo& bg2 = lay.get(Section::kBG2);
    if (bg1.count != bg2.count) {
      return section_error(
          name, Section::kBG2, "count", bg2.count_offset,
          std::to_string(bg2.count) + " points, but b_g1 has " + std::to_string(bg1.count) + " (they must match)");
    }
    const SectionInfo& h = lay.get(Section::kH);
    std::uint64_t m = std::uint64_t(h.count) + 1;
    if ((m & (m - 1)) != 0) {
      return section_error(name, Section::kH, "count", h.count_offset,
                           std::to_string(h.count) + " points is not 2^k - 1 (the FFT domain size minus one)");
    }
  }
  return lay;
}

std::uint32_t log2_exact(std::uint64_t m) {
  std::uint32_t k = 0;
  while ((std::uint64_t(1) << k) < m) ++k;
  return k;
}

// Decodes the six vk points and ic (ic identity rejected, as bellperson does).
Result<groth16::VerifyingKey> parse_vk_points(std::span<const std::uint8_t> data, const Layout& lay,
                                              const std::string& name, const OpenOptions& opt) {
  groth16::VerifyingKey vk;
  G1Affine* g1_slots[] = {&vk.alpha_g1, &vk.beta_g1, nullptr, nullptr, &vk.delta_g1, nullptr};
  G2Affine* g2_slots[] = {nullptr, nullptr, &vk.beta_g2, &vk.gamma_g2, nullptr, &vk.delta_g2};
  for (int i = 0; i < 6; ++i) {
    const auto& p = kVkPoints[i];
    std::optional<std::string> why =
        p.g2 ? detail::decode_g2_point(data.data() + p.offset, *g2_slots[i], opt.vk_subgroup, true)
             : detail::decode_g1_point(data.data() + p.offset, *g1_slots[i], opt.vk_subgroup, true);
    if (why) return section_error(name, Section::kVk, std::string("point ") + p.name, p.offset, *why);
  }
  // ic: identity rejected; decoded in parallel since the subgroup checks dominate (328 points for
  // the 32 GiB PoRep).
  const SectionInfo& ic = lay.get(Section::kIc);
  vk.ic.resize(ic.count);
  detail::PointDecodeOptions po;
  po.subgroup = opt.vk_subgroup;
  po.allow_identity = false;
  po.threads = default_threads();
  if (auto bad = detail::decode_g1_points(data.data() + ic.offset, ic.count, vk.ic.data(), po)) {
    return section_error(name, Section::kIc, "point " + std::to_string(bad->index),
                         ic.offset + std::uint64_t(bad->index) * kG1Bytes, bad->reason);
  }
  return vk;
}

}  // namespace

const char* section_name(Section s) {
  switch (s) {
    case Section::kVk: return "vk";
    case Section::kIc: return "ic";
    case Section::kH: return "h";
    case Section::kL: return "l";
    case Section::kA: return "a";
    case Section::kBG1: return "b_g1";
    case Section::kBG2: return "b_g2";
  }
  return "?";
}

const SectionInfo& Layout::get(Section s) const {
  for (const auto& si : sections) {
    if (si.section == s) return si;
  }
  static const SectionInfo kNone{};
  return kNone;
}

Result<Layout> parse_params_layout(std::span<const std::uint8_t> data, const std::string& name) {
  return parse_layout(data, name, true);
}

Result<Layout> parse_vk_layout(std::span<const std::uint8_t> data, const std::string& name) {
  return parse_layout(data, name, false);
}

// ---------------------------------------------------------------------------------------------
// Views

template <class A>
std::span<const std::uint8_t> PointView<A>::raw(std::size_t i) const {
  return image_->data().subspan(info_.offset + i * info_.point_bytes, info_.point_bytes);
}

template <class A>
std::span<const std::uint8_t> PointView<A>::raw_all() const {
  if (!image_) return {};
  return image_->data().subspan(info_.offset, info_.bytes());
}

template <class A>
Result<A> PointView<A>::at(std::size_t i, const DecodeOptions& opt) const {
  A out;
  auto st = decode_into(std::span<A>(&out, 1), i, opt);
  if (!st) return Error{st.error()};
  return out;
}

template <class A>
Status PointView<A>::decode_into(std::span<A> out, std::size_t first, const DecodeOptions& opt) const {
  constexpr bool kG2 = std::is_same_v<A, G2Affine>;
  if (!image_ && out.empty()) return ok_status();
  const std::string& name = image_ ? image_->name() : std::string();
  if (!image_ || first > info_.count || out.size() > info_.count - first) {
    return Error{name + ": section " + section_name(info_.section) + ": points [" + std::to_string(first) + ", " +
                 std::to_string(first + out.size()) + ") are out of range (" + std::to_string(info_.count) +
                 " points)"};
  }
  if (out.empty()) return ok_status();
  const std::uint64_t begin = info_.offset + std::uint64_t(first) * info_.point_bytes;
  image_->prefetch(begin, std::uint64_t(out.size()) * info_.point_bytes);
  detail::PointDecodeOptions po;
  po.subgroup = opt.subgroup;
  po.allow_identity = opt.allow_identity;
  po.threads = opt.threads ? opt.threads : default_threads();
  const std::uint8_t* src = image_->data().data() + begin;
  std::optional<detail::BadPoint> bad;
  if constexpr (kG2) {
    bad = detail::decode_g2_points(src, out.size(), out.data(), po);
  } else {
    bad = detail::decode_g1_points(src, out.size(), out.data(), po);
  }
  if (bad) {
    std::size_t idx = first + bad->index;
    return section_error(name, info_.section, "point " + std::to_string(idx),
                         info_.offset + std::uint64_t(idx) * info_.point_bytes, bad->reason);
  }
  return ok_status();
}

template <class A>
void PointView<A>::release_pages(std::size_t first, std::size_t n) const {
  if (image_ && first <= info_.count && n <= info_.count - first)
    image_->release(info_.offset + std::uint64_t(first) * info_.point_bytes, std::uint64_t(n) * info_.point_bytes);
}

template <class A>
Result<HugeVector<A>> PointView<A>::decode(const DecodeOptions& opt) const {
  HugeVector<A> out;  // huge pages, value-initialised by all threads (base/huge_vector.hpp)
  allocate_huge(out, size(), opt.threads ? opt.threads : default_threads());
  auto st = decode_into(std::span<A>(out), 0, opt);
  if (!st) return Error{st.error()};
  return out;
}

template class PointView<G1Affine>;
template class PointView<G2Affine>;

// ---------------------------------------------------------------------------------------------
// ParamsFile

Result<ParamsFile> ParamsFile::open(const std::string& path, const OpenOptions& opt) {
  auto img = FileImage::map_file(path);
  if (!img) return Error{img.error()};
  return build(std::move(*img), opt);
}

Result<ParamsFile> ParamsFile::from_bytes(std::vector<std::uint8_t> bytes, const std::string& name,
                                          const OpenOptions& opt) {
  return build(FileImage::from_vector(std::move(bytes), name), opt);
}

Result<ParamsFile> ParamsFile::build(std::shared_ptr<const FileImage> image, const OpenOptions& opt) {
  auto lay = parse_params_layout(image->data(), image->name());
  if (!lay) return Error{lay.error()};
  auto vk = parse_vk_points(image->data(), *lay, image->name(), opt);
  if (!vk) return Error{vk.error()};
  ParamsFile f;
  f.image_ = std::move(image);
  f.layout_ = std::move(*lay);
  f.vk_ = std::move(*vk);
  f.domain_log2_ = log2_exact(std::uint64_t(f.layout_.get(Section::kH).count) + 1);
  return f;
}

const std::string& ParamsFile::name() const { return image_->name(); }
bool ParamsFile::mapped() const { return image_->mapped(); }
std::span<const std::uint8_t> ParamsFile::bytes() const { return image_->data(); }
std::span<const std::uint8_t> ParamsFile::vk_bytes() const { return image_->data().first(layout_.vk_bytes()); }

Result<VkFile> parse_vk(std::span<const std::uint8_t> bytes, const std::string& name, const OpenOptions& opt) {
  auto lay = parse_vk_layout(bytes, name);
  if (!lay) return Error{lay.error()};
  auto vk = parse_vk_points(bytes, *lay, name, opt);
  if (!vk) return Error{vk.error()};
  return VkFile{std::move(*vk), std::move(*lay)};
}

Result<VkFile> read_vk_file(const std::string& path, const OpenOptions& opt) {
  auto img = FileImage::map_file(path);
  if (!img) return Error{img.error()};
  return parse_vk((*img)->data(), path, opt);
}

Result<ParamsContents> decode_all(const ParamsFile& file, const DecodeOptions& opt) {
  ParamsContents c;
  c.vk = file.vk();
  auto get = [&](const auto& view, auto& out) -> Status {
    auto r = view.decode(opt);
    if (!r) return Error{r.error()};
    out = std::move(*r);
    return ok_status();
  };
  if (auto s = get(file.h(), c.h); !s) return Error{s.error()};
  if (auto s = get(file.l(), c.l); !s) return Error{s.error()};
  if (auto s = get(file.a(), c.a); !s) return Error{s.error()};
  if (auto s = get(file.b_g1(), c.b_g1); !s) return Error{s.error()};
  if (auto s = get(file.b_g2(), c.b_g2); !s) return Error{s.error()};
  return c;
}

// ---------------------------------------------------------------------------------------------
// Circuit densities and assembly

CircuitDensities CircuitDensities::from_shape(const groth16::R1csShape& shape) {
  CircuitDensities d;
  d.num_inputs = shape.num_inputs;
  d.num_aux = shape.num_aux;
  d.domain_log2 = shape.domain_log2();
  const std::size_t nv = shape.num_variables();
  auto a = groth16::variable_density(shape.a, nv);
  auto b = groth16::variable_density(shape.b, nv);
  d.a_aux = groth16::Density::from_bits({a.begin() + shape.num_inputs, a.end()});
  d.b_input = groth16::Density::from_bits({b.begin(), b.begin() + shape.num_inputs});
  d.b_aux = groth16::Density::from_bits({b.begin() + shape.num_inputs, b.end()});
  return d;
}

Status check_params_match(const ParamsFile& file, const CircuitDensities& c) {
  if (c.a_aux.bits.size() != c.num_aux || c.b_aux.bits.size() != c.num_aux || c.b_input.bits.size() != c.num_inputs) {
    return Error{"circuit densities: bitmap sizes do not match " + std::to_string(c.num_inputs) + " inputs and " +
                 std::to_string(c.num_aux) + " aux variables"};
  }
  const Layout& lay = file.layout();
  auto mismatch = [&](Section s, std::uint64_t want, const std::string& why) -> Status {
    const SectionInfo& si = lay.get(s);
    if (si.count == want) return ok_status();
    return section_error(file.name(), s, "count", si.count_offset,
                         std::to_string(si.count) + " points, but the circuit needs " + std::to_string(want) + " (" +
                             why + "): these parameters do not belong to this circuit");
  };
  const std::uint64_t nb = c.b_input.popcount + c.b_aux.popcount;
  Status checks[] = {
      mismatch(Section::kIc, c.num_inputs, std::to_string(c.num_inputs) + " inputs including ONE"),
      mismatch(Section::kH, (std::uint64_t(1) << c.domain_log2) - 1,
               "domain of 2^" + std::to_string(c.domain_log2) + " rows, minus one"),
      mismatch(Section::kL, c.num_aux, std::to_string(c.num_aux) + " aux variables"),
      mismatch(
          Section::kA, std::uint64_t(c.num_inputs) + c.a_aux.popcount,
          std::to_string(c.num_inputs) + " inputs + " + std::to_string(c.a_aux.popcount) + " aux variables used in A"),
      mismatch(Section::kBG1, nb,
               std::to_string(c.b_input.popcount) + " inputs + " + std::to_string(c.b_aux.popcount) +
                   " aux variables used in B"),
  };
  for (auto& s : checks) {
    if (!s) return s;
  }
  return ok_status();
}

namespace {

// The bases of a mapped .params file, decoded range by range (lazy keys).
class ParamsBaseSource final : public groth16::BaseSource {
 public:
  ParamsBaseSource(const ParamsFile& f, const DecodeOptions& opt)
      : h_(f.h()), l_(f.l()), a_(f.a()), b1_(f.b_g1()), b2_(f.b_g2()), opt_(opt) {}
  std::size_t size(groth16::Query q) const override { return q == groth16::Query::kBG2 ? b2_.size() : g1(q).size(); }
  Status read(groth16::Query q, std::size_t first, std::span<G1Affine> out) const override {
    if (q == groth16::Query::kBG2) return Error{"b_g2 holds G2 points"};
    const G1View& v = g1(q);
    auto st = v.decode_into(out, first, opt_);
    v.release_pages(first, out.size());
    return st;
  }
  Status read_b_g2(std::size_t first, std::span<G2Affine> out) const override {
    auto st = b2_.decode_into(out, first, opt_);
    b2_.release_pages(first, out.size());
    return st;
  }

 private:
  const G1View& g1(groth16::Query q) const {
    switch (q) {
      case groth16::Query::kH: return h_;
      case groth16::Query::kL: return l_;
      case groth16::Query::kA: return a_;
      default: return b1_;
    }
  }
  G1View h_, l_, a_, b1_;
  G2View b2_;
  DecodeOptions opt_;
};

}  // namespace

Result<groth16::ProvingKey> assemble_proving_key(const ParamsFile& file, CircuitDensities c, const DecodeOptions& opt,
                                                 Bases bases) {
  if (auto st = check_params_match(file, c); !st) return Error{st.error()};
  groth16::ProvingKey pk;
  pk.vk = file.vk();
  pk.h_basis = groth16::HBasis::kMonomialOverZ;
  pk.num_inputs = c.num_inputs;
  pk.num_aux = c.num_aux;
  pk.domain_log2 = c.domain_log2;
  pk.a_aux_density = std::move(c.a_aux);
  pk.b_input_density = std::move(c.b_input);
  pk.b_aux_density = std::move(c.b_aux);
  if (bases == Bases::kFromFile) {
    pk.source = std::make_shared<ParamsBaseSource>(file, opt);
    if (auto s = pk.check_consistency(); !s) return Error{file.name() + ": " + s.error()};
    return pk;
  }
  auto get = [&](const auto& view, auto& out) -> Status {
    auto r = view.decode(opt);
    if (!r) return Error{r.error()};
    out = std::move(*r);
    return ok_status();
  };
  if (auto s = get(file.h(), pk.h); !s) return Error{s.error()};
  if (auto s = get(file.l(), pk.l); !s) return Error{s.error()};
  if (auto s = get(file.a(), pk.a); !s) return Error{s.error()};
  if (auto s = get(file.b_g1(), pk.b_g1); !s) return Error{s.error()};
  if (auto s = get(file.b_g2(), pk.b_g2); !s) return Error{s.error()};
  if (auto s = pk.check_consistency(); !s) return Error{file.name() + ": " + s.error()};
  return pk;
}

Result<groth16::ProvingKey> load_proving_key(const std::string& path, const groth16::R1csShape& shape,
                                             const DecodeOptions& opt, const OpenOptions& open_opt, Bases bases) {
  auto f = ParamsFile::open(path, open_opt);
  if (!f) return Error{f.error()};
  return assemble_proving_key(*f, CircuitDensities::from_shape(shape), opt, bases);
}

}  // namespace cuzk::formats::bellperson
