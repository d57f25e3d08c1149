#include "engine/kinds/filecoin_keys.hpp"

#include <array>
#include <chrono>
#include <filesystem>

#include "engine/log.hpp"
#include "filecoin/common/shape_cache.hpp"
#include "filecoin/params/cache_names.hpp"
#include "filecoin/params/param_files.hpp"
#include "formats/bellperson/params.hpp"

namespace cuzk::engine::kinds {
namespace {

namespace fp = cuzk::filecoin::params;

struct SizeLabel {
  const char* label;
  std::uint64_t bytes;
};
constexpr std::array<SizeLabel, 5> kSizes{{{"2k", 2048},
                                           {"8m", std::uint64_t(8) << 20},
                                           {"512m", std::uint64_t(512) << 20},
                                           {"32g", std::uint64_t(32) << 30},
                                           {"64g", std::uint64_t(64) << 30}}};

}  // namespace

std::string FilecoinLoader::cache_dir(const std::string& param_cache) {
  return param_cache.empty() ? fp::parameter_cache_dir() : param_cache;
}

std::vector<std::string> FilecoinLoader::ids() const {
  std::vector<std::string> out;
  for (const auto& s : kSizes) out.push_back(family_ + "-" + s.label);
  return out;
}

std::optional<KeyId> FilecoinLoader::parse(std::string_view id) const {
  if (id.size() <= family_.size() + 1 || id.substr(0, family_.size()) != family_ || id[family_.size()] != '-')
    return std::nullopt;
  const std::string_view label = id.substr(family_.size() + 1);
  for (const auto& s : kSizes)
    if (label == s.label) return KeyId{std::string(id), family_, s.bytes};
  return std::nullopt;
}

Result<std::string> filecoin_key_id(const std::string& family, std::uint64_t sector_size) {
  for (const auto& s : kSizes)
    if (s.bytes == sector_size) return family + "-" + s.label;
  return Error{"no Filecoin " + family + " parameters for sector size " + std::to_string(sector_size)};
}

LoadEstimate params_load_estimate(const std::string& path, std::uint64_t shape_bytes_per_row) {
  auto f = formats::bellperson::ParamsFile::open(path);
  if (!f) {  // the load reports the error; reserve what the file occupies, 0 when it is absent
    std::error_code ec;
    auto n = std::filesystem::file_size(path, ec);
    return {ec ? 0 : n, 0};
  }
  const std::uint64_t g1 =
      std::uint64_t(f->ic().size()) + f->h().size() + f->l().size() + f->a().size() + f->b_g1().size();
  const std::uint64_t decoded = g1 * sizeof(math::G1Affine) + std::uint64_t(f->b_g2().size()) * sizeof(math::G2Affine);
  const std::uint64_t rows = std::uint64_t(1) << f->domain_log2();
  // Bases left in the file are read a piece at a time and the pages given back (a GPU copy's upload:
  // two pieces of 2^21 points in flight, under 1 GiB); decoding them maps the whole file too.
  return {shape_bytes_per_row * rows + (std::uint64_t(1) << 30), f->file_size() + decoded};
}

void log_shape_load(const std::string& key_id, const std::string& cache_path, const filecoin::ShapeLoad& load) {
  using Source = filecoin::ShapeLoad::Source;
  auto l = log::srs();
  switch (load.source) {
    case Source::kCache:
      l->info("{}: partition shape loaded from {} in {:.1f} s", key_id, cache_path, load.load_s);
      break;
    case Source::kRecordedSaved:
      if (!load.note.empty())
        l->warn("{}: shape cache not used ({}); recorded the shape again in {:.1f} s and rewrote {}", key_id, load.note,
                load.record_s, cache_path);
      else l->info("{}: partition shape recorded in {:.1f} s, cached at {}", key_id, load.record_s, cache_path);
      break;
    case Source::kRecordedUnsaved:
      l->warn("{}: partition shape recorded in {:.1f} s, but the shape cache was not written: {}", key_id,
              load.record_s, load.note);
      break;
    case Source::kRecordedNoCache:
      l->info("{}: partition shape recorded in {:.1f} s (shape cache disabled)", key_id, load.record_s);
      break;
  }
}

std::string default_param_cache(const std::string& env_value) { return fp::parameter_cache_dir(env_value); }

Result<std::shared_ptr<LoadedKey>> load_key_with_shape(const std::string& path, groth16::R1csShape shape) {
  const auto t0 = std::chrono::steady_clock::now();
  // The bases stay in the mapped file: the SrsManager decodes them only for a backend that proves
  // from host memory (KeyPlacement), and a GPU copy reads them piece by piece.
  auto pk = formats::bellperson::load_proving_key(path, shape, {}, {}, formats::bellperson::Bases::kFromFile);
  if (!pk) return Error{pk.error()};
  if (auto st = pk->check_consistency(); !st) return Error{path + ": " + st.error()};
  auto key = std::make_shared<LoadedKey>();
  key->n_public = shape.num_inputs - 1;
  key->n_vars = std::uint32_t(shape.num_variables());
  key->n_constraints = std::uint32_t(shape.num_constraints());
  key->domain_size = std::uint32_t(pk->domain_size());
  key->pk = std::move(*pk);
  key->shape = std::move(shape);
  log::srs()->info(
      "{}: mapped, its counts checked against the shape's densities in {} ms", path,
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
  return key;
}

namespace {

class ShapedParamsLoader final : public FilecoinLoader {
 public:
  ShapedParamsLoader(ShapedParams p, bool shape_cache)
      : FilecoinLoader(p.family), p_(std::move(p)), shape_cache_(shape_cache) {}

  Result<std::string> path(const KeyId& id, const std::string& param_cache) const override {
    auto paths = fp::param_paths(p_.files, id.sector_size, cache_dir(param_cache));
    if (!paths) return Error{paths.error()};
    return paths->params;
  }

  LoadEstimate load_estimate(const KeyId&, const std::string& path) const override {
    return params_load_estimate(path, kShapeBytesPerRow);
  }

  Result<std::shared_ptr<LoadedKey>> load(const KeyId& id, const std::string& path) const override {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return Error{"parameter file not found: " + path};
    // The file's counts are checked against the circuit before anything is decoded (a .params of
    // another circuit fails naming the count that differs); an unwritable cache only costs the
    // recording next time.
    const std::string cache = filecoin::shape_cache_path(path);
    auto shape_load =
        p_.shape(id.sector_size, cache,
                 shape_cache_ ? filecoin::ShapeCachePolicy::kEnabled : filecoin::ShapeCachePolicy::kDisabled);
    if (!shape_load) return Error{shape_load.error()};
    log_shape_load(id.text, cache, *shape_load);
    return load_key_with_shape(path, std::move(shape_load->shape));
  }

 private:
  static constexpr std::uint64_t kShapeBytesPerRow = 80;  // filecoin_keys.hpp says why
  ShapedParams p_;
  bool shape_cache_;
};

}  // namespace

std::shared_ptr<const KeyLoader> shaped_params_loader(ShapedParams family, bool shape_cache) {
  return std::make_shared<ShapedParamsLoader>(std::move(family), shape_cache);
}

Result<SrsLease> acquire_proving_key(PrepareContext& ctx, const std::string& family, std::uint64_t sector_size,
                                     const std::function<Status(const groth16::R1csShape&)>& check_key) {
  auto id = filecoin_key_id(family, sector_size);
  if (!id) return Error{id.error()};
  ctx.parse.reset();  // parsed: a key load waiting for memory must not wait on the parse's reservation
  auto lease = ctx.srs.acquire(*id, ctx.cancel.as_function(), &ctx.srs_load_ms);
  if (!lease) return Error{lease.error()};
  if (auto st = check_key((*lease)->shape); !st) return Error{"proving key " + *id + ": " + st.error()};
  return std::move(*lease);
}

}  // namespace cuzk::engine::kinds
