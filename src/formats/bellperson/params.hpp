// bellperson / Filecoin Groth16 parameter files: readers for `.params` and `.vk`, the lazily decoded
// views of the big query vectors, and the step that turns a `.params` file plus a circuit's density
// bitmaps into the prover's in-memory ProvingKey. Layout (filecoin-formats.md 1.2-1.3):
//
//   vk:  alpha_g1 (96) beta_g1 (96) beta_g2 (192) gamma_g2 (192) delta_g1 (96) delta_g2 (192)  = 864 bytes
//   ic:  u32 count (big-endian), count x G1 (96)              <- a `.vk` file ends here
//   h, l, a, b_g1: u32 count, count x G1 (96)   b_g2: u32 count, count x G2 (192)
//
// No magic, no version, no padding; points are zcash-uncompressed (math/ec/encoding.hpp).
//
// What is checked, and when (bellperson's rules, filecoin-formats.md 1.2):
//   * open():   every count is read and checked against the file size before anything else is
//               trusted; the file must end exactly after b_g2; b_g1 and b_g2 have equal counts;
//               h has 2^k - 1 entries (the prover derives the domain from it). The verifying key is
//               decoded at once, with subgroup checks by default (bellperson: checked
//               from_uncompressed); an identity point in ic is rejected (alpha..delta may be the
//               identity, as bellperson allows; the prover rejects an identity delta).
//   * decode(): the big vectors are decoded on demand, in parallel: encoding flags, field range and
//               the curve equation always; the subgroup only when DecodeOptions asks (bellperson
//               reads them with from_uncompressed_unchecked); identity points are rejected.
//
// The mapping is read-only and private; as with any mmap reader (bellperson's included), a file
// truncated by another process while it is mapped makes later reads of the lost pages fault (SIGBUS).
//
// Every error is one line naming the file, the section and the byte offset, for example
//   "x.params: section b_g2 point 17 at offset 123456: G2 point is not on the curve".
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"
#include "math/ec/encoding.hpp"

namespace cuzk::formats::bellperson {

using math::G1Affine;
using math::G2Affine;

inline constexpr std::size_t kG1Bytes = math::kG1UncompressedBytes;         // 96
inline constexpr std::size_t kG2Bytes = math::kG2UncompressedBytes;         // 192
inline constexpr std::size_t kVkPointsBytes = 3 * kG1Bytes + 3 * kG2Bytes;  // 864
inline constexpr std::size_t kCountBytes = 4;
static_assert(kVkPointsBytes == 864);

// The sections of a .params file, in file order. kVk is the six fixed vk points; the others are
// u32-counted vectors.
enum class Section : std::uint8_t { kVk, kIc, kH, kL, kA, kBG1, kBG2 };
inline constexpr Section kVectorSections[] = {Section::kIc, Section::kH,   Section::kL,
                                              Section::kA,  Section::kBG1, Section::kBG2};
const char* section_name(Section s);  // "vk", "ic", "h", "l", "a", "b_g1", "b_g2"

struct SectionInfo {
  Section section = Section::kVk;
  std::uint64_t count_offset = 0;  // offset of the u32 count (0 for kVk, which has none)
  std::uint64_t offset = 0;        // offset of the first point
  std::uint32_t count = 0;         // number of points (6 for kVk)
  std::uint32_t point_bytes = 0;   // 96 or 192 (kVk: mixed, 0)
  std::uint64_t end = 0;           // offset just past the last point
  std::uint64_t bytes() const { return end - offset; }
};

// Everything about a .params/.vk file that the counts alone determine; reading it touches only the
// count words. `sections` holds kVk, kIc and (for .params) kH..kBG2.
struct Layout {
  std::uint64_t file_size = 0;
  std::vector<SectionInfo> sections;
  const SectionInfo& get(Section s) const;
  std::uint64_t vk_bytes() const { return get(Section::kIc).end; }  // length of the .vk prefix
};

// Parses the section table of a .params image (`data` is the whole file). Fails with a one-line
// error when a count or a vector runs past the end of the file, when bytes follow b_g2, when b_g1
// and b_g2 disagree, or when h does not have 2^k - 1 entries.
Result<Layout> parse_params_layout(std::span<const std::uint8_t> data, const std::string& name);
// Same for a .vk image (vk points + ic; the file must end right after ic).
Result<Layout> parse_vk_layout(std::span<const std::uint8_t> data, const std::string& name);

struct DecodeOptions {
  math::SubgroupCheck subgroup = math::SubgroupCheck::kSkip;  // big vectors: bellperson skips it
  bool allow_identity = false;                                // bellperson rejects identity points
  std::size_t threads = 0;                                    // 0: cuzk::default_threads()
};

struct OpenOptions {
  math::SubgroupCheck vk_subgroup = math::SubgroupCheck::kCheck;  // vk points and ic
};

// Owner of a file image: a read-only mmap of the file, or bytes in memory.
class FileImage;

// A vector section of a file, decoded only when asked. Copies share the file image, which stays
// mapped as long as any view or ParamsFile refers to it.
template <class A>
class PointView {
 public:
  PointView() = default;
  PointView(std::shared_ptr<const FileImage> image, SectionInfo info) : image_(std::move(image)), info_(info) {}

  std::size_t size() const { return info_.count; }
  bool empty() const { return info_.count == 0; }
  const SectionInfo& info() const { return info_; }
  // The encoded bytes of point i (i < size()).
  std::span<const std::uint8_t> raw(std::size_t i) const;
  std::span<const std::uint8_t> raw_all() const;

  // Decodes one point.
  Result<A> at(std::size_t i, const DecodeOptions& opt = {}) const;
  // Decodes points [first, first + out.size()) into out, in parallel. The error (if any) names the
  // lowest-indexed bad point.
  Status decode_into(std::span<A> out, std::size_t first = 0, const DecodeOptions& opt = {}) const;
  Result<HugeVector<A>> decode(const DecodeOptions& opt = {}) const;
  // Gives this process's pages of points [first, first + n) back (they stay in the page cache).
  void release_pages(std::size_t first, std::size_t n) const;

 private:
  std::shared_ptr<const FileImage> image_;
  SectionInfo info_;
};

using G1View = PointView<G1Affine>;
using G2View = PointView<G2Affine>;

// A `.params` file: mapped, its counts checked, its verifying key decoded.
class ParamsFile {
 public:
  // mmaps `path` (read-only). Error messages name the file as `path` was given.
  static Result<ParamsFile> open(const std::string& path, const OpenOptions& opt = {});
  // Over bytes in memory (tests); `name` is used in messages.
  static Result<ParamsFile> from_bytes(std::vector<std::uint8_t> bytes, const std::string& name,
                                       const OpenOptions& opt = {});

  const std::string& name() const;
  std::uint64_t file_size() const { return layout_.file_size; }
  bool mapped() const;
  const Layout& layout() const { return layout_; }
  std::span<const std::uint8_t> bytes() const;     // the whole file
  std::span<const std::uint8_t> vk_bytes() const;  // the prefix that a .vk file holds

  const groth16::VerifyingKey& vk() const { return vk_; }
  std::uint32_t num_inputs() const { return ic().size(); }  // including ONE
  std::uint32_t num_aux() const { return l().size(); }
  std::uint32_t domain_log2() const { return domain_log2_; }  // h has 2^domain_log2 - 1 points

  G1View ic() const { return G1View(image_, layout_.get(Section::kIc)); }
  G1View h() const { return G1View(image_, layout_.get(Section::kH)); }
  G1View l() const { return G1View(image_, layout_.get(Section::kL)); }
  G1View a() const { return G1View(image_, layout_.get(Section::kA)); }
  G1View b_g1() const { return G1View(image_, layout_.get(Section::kBG1)); }
  G2View b_g2() const { return G2View(image_, layout_.get(Section::kBG2)); }

 private:
  static Result<ParamsFile> build(std::shared_ptr<const FileImage> image, const OpenOptions& opt);
  std::shared_ptr<const FileImage> image_;
  Layout layout_;
  groth16::VerifyingKey vk_;
  std::uint32_t domain_log2_ = 0;
};

// A `.vk` file.
struct VkFile {
  groth16::VerifyingKey vk;
  Layout layout;
};
Result<VkFile> read_vk_file(const std::string& path, const OpenOptions& opt = {});
Result<VkFile> parse_vk(std::span<const std::uint8_t> bytes, const std::string& name, const OpenOptions& opt = {});

// Every vector of a .params file decoded (no densities: those come from the circuit).
struct ParamsContents {
  groth16::VerifyingKey vk;
  HugeVector<G1Affine> h, l, a, b_g1;
  HugeVector<G2Affine> b_g2;
};
Result<ParamsContents> decode_all(const ParamsFile& file, const DecodeOptions& opt = {});

// The circuit facts a .params file cannot hold: counts, domain and the density bitmaps.
struct CircuitDensities {
  std::uint32_t num_inputs = 0;  // including ONE
  std::uint32_t num_aux = 0;
  std::uint32_t domain_log2 = 0;
  groth16::Density a_aux, b_input, b_aux;
  // From a shape that already has its input rows (R1csShape::append_input_rows).
  static CircuitDensities from_shape(const groth16::R1csShape& shape);
};

// Checks every count of the file against the circuit without decoding anything:
//   ic = num_inputs, l = num_aux, a = num_inputs + popcount(a_aux),
//   b_g1 = b_g2 = popcount(b_input) + popcount(b_aux), h = 2^domain_log2 - 1.
// The error says that the parameters do not belong to the circuit and which count differs.
Status check_params_match(const ParamsFile& file, const CircuitDensities& circuit);

// Whether a key holds its bases decoded (kDecoded) or reads them from the mapped file when asked
// (kFromFile: groth16::ProvingKey::source; a GPU's upload decodes them piece by piece, and the file's
// pages are given back after each piece, so the host never holds the 45 GB a 32 GiB PoRep key decodes to).
enum class Bases : std::uint8_t { kDecoded, kFromFile };

// check_params_match, then decodes every vector (in parallel) into a kMonomialOverZ ProvingKey, or
// (kFromFile) keeps the file as the key's source.
Result<groth16::ProvingKey> assemble_proving_key(const ParamsFile& file, CircuitDensities circuit,
                                                 const DecodeOptions& opt = {}, Bases bases = Bases::kDecoded);
inline Result<groth16::ProvingKey> assemble_proving_key(const ParamsFile& file, const groth16::R1csShape& shape,
                                                        const DecodeOptions& opt = {}) {
  return assemble_proving_key(file, CircuitDensities::from_shape(shape), opt);
}

// open + assemble_proving_key in one call (what `cuzk prove --params` needs).
Result<groth16::ProvingKey> load_proving_key(const std::string& path, const groth16::R1csShape& shape,
                                             const DecodeOptions& opt = {}, const OpenOptions& open_opt = {},
                                             Bases bases = Bases::kDecoded);

}  // namespace cuzk::formats::bellperson
