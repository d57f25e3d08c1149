#include "engine/srs_manager.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "engine/porep_srs.hpp"
#include "engine/units.hpp"
#include "formats/snarkjs_zkey.hpp"

#if CUZK_ENGINE_HAVE_FILECOIN_PARAMS
#include "filecoin/params/cache_names.hpp"
#include "formats/bellperson/params.hpp"
#endif

namespace cuzk::engine {

using Clock = std::chrono::steady_clock;

namespace detail {

struct SrsEntry {
  enum class St { kCold, kLoading, kLoaded };
  std::string id;
  std::string path;
  bool filecoin = false;
  St st = St::kCold;
  std::uint64_t generation = 0;  // bumped on re-registration: a load started before is discarded
  std::shared_ptr<const LoadedKey> key;
  std::vector<Reservation> reservations;
  std::uint32_t refs = 0;
  Clock::time_point last_used = Clock::now();
  std::uint64_t load_ms = 0;
  std::string last_error;
};

struct SrsState {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, std::shared_ptr<SrsEntry>> entries;
};

}  // namespace detail

using detail::SrsEntry;

const char* tier_name(SrsTier t) {
  switch (t) {
    case SrsTier::kDevice: return "device";
    case SrsTier::kPinned: return "pinned";
    case SrsTier::kHost: return "host";
    case SrsTier::kMapped: return "mapped";
    case SrsTier::kCold: return "cold";
  }
  return "cold";
}

// ---- SrsLease

SrsLease::SrsLease(SrsLease&& o) noexcept
    : state_(std::move(o.state_)), entry_(std::move(o.entry_)), key_(std::move(o.key_)) {}

SrsLease& SrsLease::operator=(SrsLease&& o) noexcept {
  if (this != &o) {
    release();
    state_ = std::move(o.state_);
    entry_ = std::move(o.entry_);
    key_ = std::move(o.key_);
  }
  return *this;
}

SrsLease::~SrsLease() { release(); }

void SrsLease::release() {
  if (!state_ || !entry_) return;
  {
    std::lock_guard<std::mutex> g(state_->mu);
    if (entry_->refs > 0) --entry_->refs;
    entry_->last_used = Clock::now();
  }
  state_->cv.notify_all();
  state_.reset();
  entry_.reset();
  key_.reset();
}

// ---- helpers

namespace {

struct FilecoinId {
  std::string family;  // porep, wpost, winning, snap
  std::string size;    // 2k, 8m, 512m, 32g, 64g
};

const char* kFamilies[] = {"porep", "wpost", "winning", "snap"};
const char* kSizes[] = {"2k", "8m", "512m", "32g", "64g"};

std::optional<FilecoinId> parse_filecoin_id(const std::string& id) {
  auto dash = id.rfind('-');
  if (dash == std::string::npos) return std::nullopt;
  std::string fam = id.substr(0, dash), size = id.substr(dash + 1);
  bool fam_ok = std::find_if(std::begin(kFamilies), std::end(kFamilies), [&](const char* f) { return fam == f; }) !=
                std::end(kFamilies);
  bool size_ok =
      std::find_if(std::begin(kSizes), std::end(kSizes), [&](const char* s) { return size == s; }) != std::end(kSizes);
  if (!fam_ok || !size_ok) return std::nullopt;
  return FilecoinId{fam, size};
}

std::uint64_t sector_size_of(const std::string& label) {
  constexpr std::uint64_t KiB = 1024, MiB = KiB << 10, GiB = MiB << 10;
  return label == "2k" ? 2 * KiB : label == "8m" ? 8 * MiB : label == "512m" ? 512 * MiB : label == "32g" ? 32 * GiB : 64 * GiB;
}

// PoRep ids become full proving keys when the circuit layer is built in (porep_srs.hpp).
bool porep_as_proving_key(const std::string& id) {
  auto fid = parse_filecoin_id(id);
  return fid && fid->family == "porep" && porep_srs::available();
}

template <class T>
std::uint64_t vec_bytes(const T& v) {
  return v.size() * sizeof(typename T::value_type);
}

std::uint64_t csr_bytes(const groth16::CsrMatrix& m) { return m.memory_bytes(); }

std::uint64_t key_bytes(const groth16::ProvingKey& pk, const groth16::R1csShape& shape) {
  std::uint64_t b = vec_bytes(pk.h) + vec_bytes(pk.l) + vec_bytes(pk.a) + vec_bytes(pk.b_g1) + vec_bytes(pk.b_g2) +
                    vec_bytes(pk.vk.ic);
  b += (pk.a_aux_density.bits.size() + pk.b_input_density.bits.size() + pk.b_aux_density.bits.size()) / 8;
  b += csr_bytes(shape.a) + csr_bytes(shape.b) + csr_bytes(shape.c);
  return b + 4096;
}

std::uint64_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : n;
}

// What a load may take at its peak: a .zkey is read whole and then decoded (points grow from 96 to
// sizeof(G1Affine) bytes), so file + 1.25 x file; a PoRep .params is mapped, decoded and joined by its
// recorded shape (porep_srs::load_estimate); other .params files are only mapped.
std::uint64_t load_estimate(const SrsEntry& e) {
  std::uint64_t size = file_size_or_zero(e.path);
  if (size && porep_as_proving_key(e.id)) return porep_srs::load_estimate(e.path);
  if (e.filecoin) return size;
  return size + size + size / 4 + (1u << 20);
}

Result<std::shared_ptr<const LoadedKey>> load_key(const SrsEntry& e) {
  auto key = std::make_shared<LoadedKey>();
  key->id = e.id;
  key->path = e.path;
  if (!e.filecoin) {
    auto z = formats::read_zkey(e.path);
    if (!z) return Error{z.error()};
    if (auto st = z->pk.check_consistency(); !st) return Error{e.path + ": " + st.error()};
    key->has_proving_key = true;
    key->n_public = z->n_public;
    key->n_vars = z->n_vars;
    key->n_constraints = z->n_constraints;
    key->domain_size = z->domain_size;
    key->pk = std::move(z->pk);
    key->shape = std::move(z->shape);
    key->bytes = key_bytes(key->pk, key->shape);
    return std::shared_ptr<const LoadedKey>(std::move(key));
  }
  if (porep_as_proving_key(e.id)) {
    if (auto st = porep_srs::load(sector_size_of(parse_filecoin_id(e.id)->size), e.path, *key); !st) {
      return Error{e.id + ": " + st.error()};
    }
    key->bytes = key_bytes(key->pk, key->shape);
    return std::shared_ptr<const LoadedKey>(std::move(key));
  }
#if CUZK_ENGINE_HAVE_FILECOIN_PARAMS
  auto f = formats::bellperson::ParamsFile::open(e.path);
  if (!f) return Error{f.error()};
  auto file = std::make_shared<formats::bellperson::ParamsFile>(std::move(*f));
  key->pk.vk = file->vk();
  key->n_public = file->num_inputs() > 0 ? file->num_inputs() - 1 : 0;
  key->n_vars = file->num_inputs() + file->num_aux();
  key->domain_size = std::uint32_t(1) << file->domain_log2();
  key->bytes = file->file_size();
  key->mapped_file = std::move(file);
  return std::shared_ptr<const LoadedKey>(std::move(key));
#else
  return Error{e.id + ": this build has no bellperson .params support"};
#endif
}

}  // namespace

// ---- SrsManager

SrsManager::SrsManager(MemoryBudget& budget, Options options)
    : budget_(budget), options_(std::move(options)), state_(std::make_shared<detail::SrsState>()) {}

SrsManager::~SrsManager() = default;

std::vector<std::string> SrsManager::filecoin_ids() {
  std::vector<std::string> out;
  for (auto f : kFamilies)
    for (auto s : kSizes) out.push_back(std::string(f) + "-" + s);
  return out;
}

Result<std::string> SrsManager::filecoin_id(const std::string& family, std::uint64_t sector_size) {
  for (auto s : kSizes) {
    if (sector_size_of(s) == sector_size) {
      std::string id = family + "-" + s;
      if (parse_filecoin_id(id)) return id;
      break;
    }
  }
  return Error{"no Filecoin " + family + " parameters for sector size " + std::to_string(sector_size)};
}

Result<std::string> SrsManager::filecoin_params_path(const std::string& id) const {
  auto fid = parse_filecoin_id(id);
  if (!fid) return Error{"not a Filecoin circuit id: " + id};
#if CUZK_ENGINE_HAVE_FILECOIN_PARAMS
  namespace fp = cuzk::filecoin::params;
  const std::string dir = options_.param_cache.empty() ? fp::parameter_cache_dir() : options_.param_cache;
  if (porep_as_proving_key(id)) {
    auto p = porep_srs::params_path(sector_size_of(fid->size), dir);
    if (!p) return Error{id + ": " + p.error()};
    return *p;
  }
  fp::ProofFamily fam = fid->family == "porep"     ? fp::ProofFamily::kPoRep
                        : fid->family == "wpost"   ? fp::ProofFamily::kWindowPoSt
                        : fid->family == "winning" ? fp::ProofFamily::kWinningPoSt
                                                   : fp::ProofFamily::kSnapDeals;
  auto cfg = fp::make_param_config(fam, sector_size_of(fid->size));
  if (!cfg) return Error{"no published parameters for " + id};
  return dir + "/" + cfg->params_file();
#else
  return Error{id + ": this build has no Filecoin parameter support"};
#endif
}

Result<std::shared_ptr<SrsEntry>> SrsManager::find_or_create(const std::string& id) {
  auto it = state_->entries.find(id);
  if (it != state_->entries.end()) return it->second;
  if (!parse_filecoin_id(id)) {
    std::string known;
    for (auto& [k, _] : state_->entries) known += (known.empty() ? "" : ", ") + k;
    return Error{"unknown circuit id \"" + id + "\" (registered: " + (known.empty() ? "none" : known) +
                 "; Filecoin ids look like porep-32g, wpost-2k, winning-512m, snap-64g)"};
  }
  auto path = filecoin_params_path(id);
  if (!path) return Error{path.error()};
  auto e = std::make_shared<SrsEntry>();
  e->id = id;
  e->path = *path;
  e->filecoin = true;
  state_->entries.emplace(id, e);
  return e;
}

bool SrsManager::known(const std::string& id) const {
  std::lock_guard<std::mutex> g(state_->mu);
  return state_->entries.count(id) > 0 || parse_filecoin_id(id).has_value();
}

Status SrsManager::register_zkey(const std::string& id, const std::string& path, bool* replaced) {
  if (replaced) *replaced = false;
  if (id.empty()) return Error{"circuit id is empty"};
  if (parse_filecoin_id(id)) return Error{"circuit id \"" + id + "\" is reserved for Filecoin parameters"};
  for (char c : id) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return Error{"circuit id \"" + id + "\": use letters, digits, '-', '_' and '.' only"};
    }
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Error{"zkey file not found: " + path};
  std::vector<Reservation> dropped;
  std::shared_ptr<const LoadedKey> dropped_key;
  {
    std::lock_guard<std::mutex> g(state_->mu);
    auto it = state_->entries.find(id);
    if (it == state_->entries.end()) {
      auto e = std::make_shared<SrsEntry>();
      e->id = id;
      e->path = path;
      state_->entries.emplace(id, e);
      return ok_status();
    }
    SrsEntry& e = *it->second;
    if (e.path == path) return ok_status();
    if (e.refs > 0) {
      return Error{"circuit \"" + id + "\" is in use by " + std::to_string(e.refs) + " job(s); cannot re-register it"};
    }
    if (e.st == SrsEntry::St::kLoading) return Error{"circuit \"" + id + "\" is being loaded; try again"};
    dropped = std::move(e.reservations);
    e.reservations.clear();
    dropped_key = std::move(e.key);
    e.key.reset();
    e.st = SrsEntry::St::kCold;
    e.path = path;
    e.generation++;
    e.last_error.clear();
    if (replaced) *replaced = true;
  }
  unloaded(dropped_key);
  return ok_status();  // `dropped` returns the memory as it goes out of scope, outside the lock
}

void SrsManager::unloaded(const std::shared_ptr<const LoadedKey>& key) const {
  if (key && options_.on_unload) options_.on_unload(*key);
}

Result<SrsLease> SrsManager::acquire(const std::string& id, const std::function<bool()>& cancelled,
                                     std::uint64_t* load_ms) {
  const auto t0 = Clock::now();
  auto elapsed_ms = [&] {
    return std::uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
  };
  if (load_ms) *load_ms = 0;
  std::unique_lock<std::mutex> lk(state_->mu);
  auto found = find_or_create(id);
  if (!found) return Error{found.error()};
  std::shared_ptr<SrsEntry> e = *found;
  while (true) {
    if (e->st == SrsEntry::St::kLoaded) {
      e->refs++;
      e->last_used = Clock::now();
      if (load_ms) *load_ms = elapsed_ms();
      return SrsLease(state_, e, e->key);
    }
    if (cancelled && cancelled()) return Error{"cancelled while waiting for proving key " + id};
    if (e->st == SrsEntry::St::kLoading) {
      state_->cv.wait_for(lk, std::chrono::milliseconds(10));
      continue;
    }
    // Cold: this caller loads it.
    e->st = SrsEntry::St::kLoading;
    const std::uint64_t gen = e->generation;
    const SrsEntry snapshot_for_load = [&] {
      SrsEntry s;
      s.id = e->id;
      s.path = e->path;
      s.filecoin = e->filecoin;
      return s;
    }();
    lk.unlock();

    std::string err;
    std::vector<Reservation> held;
    std::shared_ptr<const LoadedKey> key;
    const std::uint64_t estimate = load_estimate(snapshot_for_load);
    if (estimate == 0) {
      err = (snapshot_for_load.filecoin ? "parameter file not found: " : "zkey file not found: ") + snapshot_for_load.path;
    } else {
      auto res = budget_.reserve(estimate, MemoryBudget::kSrs, cancelled);
      if (!res) {
        err = "cannot load proving key " + id + ": " + res.error();
      } else {
        auto loaded = load_key(snapshot_for_load);
        if (!loaded) {
          err = loaded.error();
        } else {
          key = *loaded;
          // Keep exactly what the key occupies; charge any excess over the estimate too.
          if (key->bytes <= res->bytes()) {
            res->release(res->bytes() - key->bytes);
          } else if (auto extra = budget_.try_reserve(key->bytes - res->bytes(), MemoryBudget::kSrs)) {
            held.push_back(std::move(*extra));
          }
          held.push_back(std::move(*res));
        }
      }
    }

    lk.lock();
    if (e->generation != gen) {
      // Re-registered while loading: discard and start over with the new file.
      lk.unlock();
      held.clear();
      key.reset();
      lk.lock();
      continue;
    }
    if (!err.empty()) {
      e->st = SrsEntry::St::kCold;
      e->last_error = err;
      state_->cv.notify_all();
      lk.unlock();
      held.clear();
      return Error{err};
    }
    e->st = SrsEntry::St::kLoaded;
    e->key = key;
    e->reservations = std::move(held);
    e->load_ms = elapsed_ms();
    e->last_error.clear();
    e->refs++;
    e->last_used = Clock::now();
    state_->cv.notify_all();
    if (load_ms) *load_ms = elapsed_ms();
    return SrsLease(state_, e, e->key);
  }
}

Result<SrsManager::PreloadOutcome> SrsManager::preload(const std::string& id) {
  {
    std::lock_guard<std::mutex> g(state_->mu);
    auto it = state_->entries.find(id);
    if (it != state_->entries.end() && it->second->st == SrsEntry::St::kLoaded) {
      it->second->last_used = Clock::now();
      return PreloadOutcome{true, 0};
    }
  }
  std::uint64_t ms = 0;
  auto lease = acquire(id, {}, &ms);
  if (!lease) return Error{lease.error()};
  return PreloadOutcome{false, ms};
}

Result<SrsManager::EvictOutcome> SrsManager::evict(const std::string& id) {
  std::vector<Reservation> dropped;
  std::shared_ptr<const LoadedKey> key;
  EvictOutcome out;
  {
    std::lock_guard<std::mutex> g(state_->mu);
    auto it = state_->entries.find(id);
    if (it == state_->entries.end()) {
      if (parse_filecoin_id(id)) return out;  // a known Filecoin id that was never loaded
      return Error{"unknown circuit id \"" + id + "\""};
    }
    SrsEntry& e = *it->second;
    if (e.st == SrsEntry::St::kLoading) return Error{"proving key " + id + " is being loaded; try again"};
    if (e.st != SrsEntry::St::kLoaded) return out;
    if (e.refs > 0) {
      return Error{"proving key " + id + " is in use by " + std::to_string(e.refs) + " job(s); not evicted"};
    }
    out.was_loaded = true;
    for (auto& r : e.reservations) out.freed_bytes += r.bytes();
    dropped = std::move(e.reservations);
    e.reservations.clear();
    key = std::move(e.key);
    e.key.reset();
    e.st = SrsEntry::St::kCold;
  }
  unloaded(key);
  return out;
}

std::uint64_t SrsManager::evict_idle(std::uint64_t needed) {
  std::vector<Reservation> dropped;
  std::vector<std::shared_ptr<const LoadedKey>> keys;
  std::uint64_t freed = 0;
  {
    std::lock_guard<std::mutex> g(state_->mu);
    const auto now = Clock::now();
    std::vector<SrsEntry*> cand;
    for (auto& [_, e] : state_->entries) {
      if (e->st == SrsEntry::St::kLoaded && e->refs == 0 && now - e->last_used >= options_.min_idle) {
        cand.push_back(e.get());
      }
    }
    std::sort(cand.begin(), cand.end(), [](auto* a, auto* b) { return a->last_used < b->last_used; });
    for (SrsEntry* e : cand) {
      if (freed >= needed) break;
      for (auto& r : e->reservations) {
        freed += r.bytes();
        dropped.push_back(std::move(r));
      }
      e->reservations.clear();
      keys.push_back(std::move(e->key));
      e->key.reset();
      e->st = SrsEntry::St::kCold;
    }
  }
  for (const auto& k : keys) unloaded(k);
  dropped.clear();  // returns the memory (and wakes budget waiters) outside the lock
  return freed;
}

std::vector<SrsInfo> SrsManager::list() const {
  std::lock_guard<std::mutex> g(state_->mu);
  std::vector<SrsInfo> out;
  const auto now = Clock::now();
  for (auto& [id, e] : state_->entries) {
    SrsInfo i;
    i.id = id;
    i.path = e->path;
    i.refs = e->refs;
    i.loading = e->st == SrsEntry::St::kLoading;
    i.load_ms = e->load_ms;
    i.last_error = e->last_error;
    if (e->st == SrsEntry::St::kLoaded) {
      i.tier = e->key->has_proving_key ? SrsTier::kHost : SrsTier::kMapped;
      for (auto& r : e->reservations) i.bytes += r.bytes();
      i.idle_ms = e->refs ? 0 : std::uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(now - e->last_used).count());
    }
    out.push_back(std::move(i));
  }
  return out;
}

std::uint64_t SrsManager::loaded_bytes() const {
  std::lock_guard<std::mutex> g(state_->mu);
  std::uint64_t b = 0;
  for (auto& [_, e] : state_->entries)
    for (auto& r : e->reservations) b += r.bytes();
  return b;
}

}  // namespace cuzk::engine
