#include "engine/srs_manager.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "base/exception_barrier.hpp"
#include "engine/log.hpp"
#include "engine/units.hpp"
#include "formats/snarkjs_zkey.hpp"

namespace cuzk::engine {

using Clock = std::chrono::steady_clock;

namespace detail {

struct SrsEntry {
  enum class St { kCold, kLoading, kLoaded };
  std::string id;
  std::string path;
  const KeyLoader* loader = nullptr;  // null: a registered .zkey
  KeyId kid;                          // the loader's parse of `id`
  St st = St::kCold;
  std::uint64_t generation = 0;  // bumped on re-registration: a load started before is discarded
  std::shared_ptr<const LoadedKey> key;
  std::shared_ptr<const KeyCopies> copies;  // with the pinned charges of streamed copies
  std::vector<Reservation> reservations;
  std::uint32_t refs = 0;
  Clock::time_point last_used = Clock::now();
  std::uint64_t load_ms = 0;
  std::string last_error;
  // Loaded, its copies not yet made (preload_planned() between its loads and its plan's copies):
  // acquire() waits as for a load, so no job proves without the planned copy.
  bool copies_pending = false;
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
    : state_(std::move(o.state_)),
      entry_(std::move(o.entry_)),
      key_(std::move(o.key_)),
      copies_(std::move(o.copies_)) {}

SrsLease& SrsLease::operator=(SrsLease&& o) noexcept {
  if (this != &o) {
    release();
    state_ = std::move(o.state_);
    entry_ = std::move(o.entry_);
    key_ = std::move(o.key_);
    copies_ = std::move(o.copies_);
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
  copies_.reset();
  key_.reset();
}

// ---- helpers

namespace {

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
// sizeof(G1Affine) bytes), so file + 1.25 x file; a loader's key, what its loader says, its decoded
// bases only when `decode` (some backend may prove from host memory).
std::uint64_t load_estimate(const SrsEntry& e, bool decode) {
  if (e.loader) {
    const LoadEstimate est = e.loader->load_estimate(e.kid, e.path);
    return est.load == 0 ? 0 : est.load + (decode ? est.decode : 0);
  }
  std::uint64_t size = file_size_or_zero(e.path);
  return size ? size + size + size / 4 + (1u << 20) : 0;
}

Result<std::shared_ptr<LoadedKey>> load_key(const SrsEntry& e) {
  if (e.loader) {
    auto key = e.loader->load(e.kid, e.path);
    if (!key) return Error{e.id + ": " + key.error()};
    (*key)->id = e.id;
    (*key)->path = e.path;
    return std::move(*key);
  }
  auto key = std::make_shared<LoadedKey>();
  key->id = e.id;
  key->path = e.path;
  auto z = formats::read_zkey(e.path);
  if (!z) return Error{z.error()};
  if (auto st = z->pk.check_consistency(); !st) return Error{e.path + ": " + st.error()};
  key->format = KeyFormat::kZkey;
  key->n_public = z->n_public;
  key->n_vars = z->n_vars;
  key->n_constraints = z->n_constraints;
  key->domain_size = z->domain_size;
  key->pk = std::move(z->pk);
  key->shape = std::move(z->shape);
  return key;
}

}  // namespace

// ---- SrsManager

SrsManager::SrsManager(MemoryBudget& budget, Options options)
    : budget_(budget), options_(std::move(options)), state_(std::make_shared<detail::SrsState>()) {}

SrsManager::~SrsManager() = default;

std::optional<std::pair<const KeyLoader*, KeyId>> SrsManager::served(std::string_view id) const {
  for (const auto& l : options_.loaders)
    if (auto k = l->parse(id)) return std::make_pair(l.get(), std::move(*k));
  return std::nullopt;
}

std::vector<std::string> SrsManager::loader_ids() const {
  std::vector<std::string> out;
  for (const auto& l : options_.loaders)
    for (auto& id : l->ids()) out.push_back(std::move(id));
  return out;
}

Result<std::string> SrsManager::params_path(const std::string& id) const {
  auto s = served(id);
  if (!s) return Error{"no parameter file is known for circuit id \"" + id + "\""};
  auto p = s->first->path(s->second, options_.param_cache);
  if (!p) return Error{id + ": " + p.error()};
  return *p;
}

Result<std::string> SrsManager::key_path(const std::string& id) const {
  {
    std::lock_guard<std::mutex> g(state_->mu);
    auto it = state_->entries.find(id);
    if (it != state_->entries.end()) return it->second->path;
  }
  return params_path(id);
}

Result<std::shared_ptr<SrsEntry>> SrsManager::find_or_create(const std::string& id) {
  auto it = state_->entries.find(id);
  if (it != state_->entries.end()) return it->second;
  auto s = served(id);
  if (!s) {
    std::string known, examples;
    for (auto& [k, _] : state_->entries) known += (known.empty() ? "" : ", ") + k;
    for (const auto& l : options_.loaders) {
      auto ids = l->ids();
      if (!ids.empty()) examples += (examples.empty() ? "" : ", ") + ids.back();
    }
    return Error{"unknown circuit id \"" + id + "\" (registered: " + (known.empty() ? "none" : known) +
                 (examples.empty() ? ")" : "; parameter ids look like " + examples + ")")};
  }
  auto path = s->first->path(s->second, options_.param_cache);
  if (!path) return Error{id + ": " + path.error()};
  auto e = std::make_shared<SrsEntry>();
  e->id = id;
  e->path = *path;
  e->loader = s->first;
  e->kid = std::move(s->second);
  state_->entries.emplace(id, e);
  return e;
}

bool SrsManager::known(const std::string& id) const {
  std::lock_guard<std::mutex> g(state_->mu);
  return state_->entries.count(id) > 0 || served(id).has_value();
}

Status SrsManager::register_zkey(const std::string& id, const std::string& path, bool* replaced, bool allow_replace) {
  if (replaced) *replaced = false;
  if (id.empty()) return Error{"circuit id is empty"};
  if (auto s = served(id)) {
    return Error{"circuit id \"" + id + "\" is reserved for " + s->first->family() + " parameters"};
  }
  for (char c : id) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return Error{"circuit id \"" + id + "\": use letters, digits, '-', '_' and '.' only"};
    }
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Error{"zkey file not found: " + path};
  std::vector<Reservation> dropped;
  std::shared_ptr<const LoadedKey> dropped_key;
  std::shared_ptr<const KeyCopies> dropped_copies;
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
    if (!allow_replace) {
      return Error{"circuit \"" + id + "\" is already registered to another file", ErrorCode::kPermissionDenied};
    }
    if (e.refs > 0) {
      return Error{"circuit \"" + id + "\" is in use by " + std::to_string(e.refs) + " job(s); cannot re-register it"};
    }
    if (e.st == SrsEntry::St::kLoading) return Error{"circuit \"" + id + "\" is being loaded; try again"};
    dropped = std::move(e.reservations);
    e.reservations.clear();
    dropped_key = std::move(e.key);
    e.key.reset();
    dropped_copies = std::move(e.copies);
    e.copies.reset();
    e.st = SrsEntry::St::kCold;
    e.path = path;
    e.generation++;
    e.last_error.clear();
    if (replaced) *replaced = true;
  }
  log::srs()->info("circuit {} re-registered: {}{}", id, path, dropped_key ? " (its loaded key was dropped)" : "");
  dropped_copies.reset();  // the copies first, outside the lock; `dropped` then returns the memory
  return ok_status();
}

Result<std::shared_ptr<const KeyCopies>> SrsManager::place(std::shared_ptr<LoadedKey> key, Reservation& load,
                                                           bool with_copies) {
  const KeyPlacement where = options_.placement ? options_.placement(*key) : KeyPlacement{};
  if (where.host_bases && !key->pk.holds_bases()) {
    const auto t0 = Clock::now();
    if (auto st = key->pk.load_bases(); !st) return Error{key->id + ": " + st.error()};
    log::srs()->debug("proving key {}: bases decoded in {} ms", key->id,
                      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
  }
  if (key->bytes == 0) key->bytes = key_bytes(key->pk, key->shape);
  // The load's peak is over: keep what the key holds, so that the copies' pinned charges find room.
  if (key->bytes < load.bytes()) load.release(load.bytes() - key->bytes);
  if (!with_copies) {
    auto none = std::make_shared<KeyCopies>();
    none->key = key;
    return std::shared_ptr<const KeyCopies>(std::move(none));
  }
  return make_copies(key, where, nullptr);
}

Result<std::shared_ptr<const KeyCopies>> SrsManager::make_copies(std::shared_ptr<const LoadedKey> key,
                                                                 const KeyPlacement& where, const TierPlan* plan) {
  auto copies = std::make_shared<KeyCopies>();
  copies->key = key;
  if (where.copies.empty() || !options_.executor) return std::shared_ptr<const KeyCopies>(std::move(copies));
  const groth16::R1csShape* shape = key->shape.num_constraints() ? &key->shape : nullptr;
  // A streamed copy's pinned memory is the key's memory too: charged to the same budget, held by
  // the copy (and so by this entry) until it is dropped.
  groth16::HostCharge charge = [this](std::uint64_t bytes) { return budget_.charge(bytes, MemoryBudget::kSrs); };
  for (const BackendSlot& slot : where.copies) {
    const auto t0 = Clock::now();
    groth16::CopyRequest request;
    if (const TierChoice* c = plan ? plan->find(key->id, slot.device) : nullptr) request = {c->form, c->reason};
    auto c = options_.executor->upload(slot, key->pk, shape, charge, request);
    if (!c) {
      std::string err = "proving key " + key->id + ": copy for " + (slot.lane ? "the lane of " : "") + "device " +
                        std::to_string(slot.device) + ": " + c.error();
      if (!options_.copy_failed || !options_.copy_failed(slot)) return Error{std::move(err)};
      log::srs()->warn("{}; the key is served without that copy", err);
      continue;
    }
    if (!*c) continue;  // that backend proves from host memory after all
    log::srs()->info("proving key {}{} on device {}{}: {} in {} ms ({} device, {} pinned host memory){}{}", key->id,
                     shape ? " and its shape" : "", slot.device, slot.lane ? " (urgent lane)" : "",
                     (*c)->streamed() ? "streamed" : "resident",
                     std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count(),
                     format_bytes((*c)->device_bytes()), format_bytes((*c)->host_bytes()),
                     (*c)->summary().empty() ? "" : ": ", (*c)->summary());
    if (request.form != groth16::CopyForm::kAny) copies->planned.emplace_back(slot, request.form);
    copies->items.emplace_back(slot, std::move(*c));
  }
  return std::shared_ptr<const KeyCopies>(std::move(copies));
}

Result<SrsLease> SrsManager::acquire(const std::string& id, const std::function<bool()>& cancelled,
                                     std::uint64_t* load_ms) {
  return acquire_impl(id, cancelled, load_ms, true);
}

Result<SrsLease> SrsManager::acquire_impl(const std::string& id, const std::function<bool()>& cancelled,
                                          std::uint64_t* load_ms, bool with_copies) {
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
    if (e->st == SrsEntry::St::kLoaded && !e->copies_pending) {
      e->refs++;
      e->last_used = Clock::now();
      if (load_ms) *load_ms = elapsed_ms();
      return SrsLease(state_, e, e->key, e->copies);
    }
    if (cancelled && cancelled()) return Error{"cancelled while waiting for proving key " + id};
    if (e->st == SrsEntry::St::kLoading || e->copies_pending) {
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
      s.loader = e->loader;
      s.kid = e->kid;
      return s;
    }();
    lk.unlock();

    std::string err;
    std::vector<Reservation> held;
    std::shared_ptr<const LoadedKey> key;
    std::shared_ptr<const KeyCopies> copies;
    const std::uint64_t estimate =
        load_estimate(snapshot_for_load, !options_.may_decode_bases || options_.may_decode_bases());
    if (estimate != 0) {
      log::srs()->info("loading proving key {} from {} ({} file, up to {} while loading)", id, snapshot_for_load.path,
                       format_bytes(file_size_or_zero(snapshot_for_load.path)), format_bytes(estimate));
    }
    if (estimate == 0) {
      err =
          (snapshot_for_load.loader ? "parameter file not found: " : "zkey file not found: ") + snapshot_for_load.path;
    } else {
      auto res = budget_.reserve(estimate, MemoryBudget::kSrs, cancelled);
      if (!res) {
        err = "cannot load proving key " + id + ": " + res.error();
      } else {
        // Behind a barrier: a key file is parsed here, on whichever thread asked (a job's preparer,
        // a gRPC handler, start-up).
        auto loaded = guarded("loading the key", [&] { return load_key(snapshot_for_load); });
        auto placed = loaded ? guarded("placing the key", [&] { return place(*loaded, *res, with_copies); })
                             : Result<std::shared_ptr<const KeyCopies>>(Error{loaded.error()});
        if (!placed) {
          err = placed.error();
        } else {
          key = *loaded;
          copies = std::move(*placed);
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
      copies.reset();
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
      copies.reset();
      held.clear();
      if (cancelled && cancelled()) log::srs()->info("loading proving key {} stopped: {}", id, err);
      else log::srs()->error("loading proving key {} failed after {} ms: {}", id, elapsed_ms(), err);
      return Error{err};
    }
    e->st = SrsEntry::St::kLoaded;
    e->copies_pending = !with_copies;
    e->key = key;
    e->copies = std::move(copies);
    e->reservations = std::move(held);
    e->load_ms = elapsed_ms();
    {
      std::uint64_t charged = 0;
      for (const auto& r : e->reservations) charged += r.bytes();
      log::srs()->info("loaded proving key {} in {} ms ({} in memory)", id, e->load_ms, format_bytes(charged));
    }
    e->last_error.clear();
    e->refs++;
    e->last_used = Clock::now();
    state_->cv.notify_all();
    if (load_ms) *load_ms = elapsed_ms();
    return SrsLease(state_, e, e->key, e->copies);
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

std::vector<std::pair<std::string, Result<SrsManager::PreloadOutcome>>> SrsManager::preload_planned(
    const std::vector<std::string>& ids) {
  std::vector<std::pair<std::string, Result<PreloadOutcome>>> out;
  struct Loading {
    std::size_t at;  // in `out`
    SrsLease lease;
    KeyPlacement where;
  };
  std::vector<Loading> loaded;
  for (const auto& id : ids) {
    {
      std::lock_guard<std::mutex> g(state_->mu);
      auto it = state_->entries.find(id);
      if (it != state_->entries.end() && it->second->st == SrsEntry::St::kLoaded) {
        it->second->last_used = Clock::now();
        out.emplace_back(id, PreloadOutcome{true, 0});
        continue;
      }
    }
    std::uint64_t ms = 0;
    auto lease = acquire_impl(id, {}, &ms, false);
    out.emplace_back(id, lease ? Result<PreloadOutcome>(PreloadOutcome{false, ms}) : Error{lease.error()});
    if (!lease) continue;
    KeyPlacement where = options_.placement ? options_.placement(lease->key()) : KeyPlacement{};
    loaded.push_back({out.size() - 1, std::move(*lease), std::move(where)});
  }

  // The plan: every copy priced by its backend; a key some slot cannot price is left to its backend.
  std::vector<TierKey> keys;
  std::vector<TierDevice> devices;
  for (const auto& l : loaded) {
    if (!options_.executor || l.where.copies.empty()) continue;
    const LoadedKey& key = l.lease.key();
    const groth16::R1csShape* shape = key.shape.num_constraints() ? &key.shape : nullptr;
    TierKey k{key.id, options_.deadline_bound && options_.deadline_bound(key.id), {}, {}};
    bool priced = true;
    for (const BackendSlot& slot : l.where.copies) {
      auto cost = options_.executor->copy_cost(slot, key.pk, shape);
      auto usable = options_.executor->usable_device_bytes(slot.device);
      if (!cost || !usable) {
        priced = false;
        break;
      }
      k.cost = *cost;
      k.devices.push_back(slot.device);
      if (std::none_of(devices.begin(), devices.end(), [&](const TierDevice& d) { return d.device == slot.device; }))
        devices.push_back({slot.device, *usable});
    }
    if (priced) keys.push_back(std::move(k));
  }
  const std::uint64_t pinned_room = budget_.total() - std::min(budget_.total(), budget_.used());
  const TierPlan plan = plan_key_tiers(devices, keys, pinned_room);
  for (const auto& c : plan.choices) log::srs()->info("key tiers: {} on device {}: {}", c.id, c.device, c.reason);

  // The copies, in the plan's order (the keys it did not plan after, in the order asked).
  std::vector<Loading*> order;
  for (const auto& id : plan.key_order())
    for (auto& l : loaded)
      if (l.lease.key().id == id) order.push_back(&l);
  for (auto& l : loaded)
    if (std::find(order.begin(), order.end(), &l) == order.end()) order.push_back(&l);
  for (Loading* l : order) {
    const auto t0 = Clock::now();
    auto key = l->lease.key_;
    auto copies = guarded("placing the key", [&] { return make_copies(key, l->where, &plan); });
    std::shared_ptr<SrsEntry> e = l->lease.entry_;
    l->lease = SrsLease();  // this call's reference
    std::unique_lock<std::mutex> lk(state_->mu);
    e->copies_pending = false;
    if (copies) {
      e->copies = std::move(*copies);
      auto& o = out[l->at].second;
      o->load_ms += std::uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
      state_->cv.notify_all();
      continue;
    }
    // Without its copies the key is not served: it goes back to cold, and its memory with it.
    out[l->at].second = Error{copies.error()};
    e->last_error = copies.error();
    std::vector<Reservation> dropped = std::move(e->reservations);
    e->reservations.clear();
    auto dropped_key = std::move(e->key);
    e->key.reset();
    e->copies.reset();
    e->st = SrsEntry::St::kCold;
    state_->cv.notify_all();
    lk.unlock();
    log::srs()->error("loading proving key {} failed: {}", out[l->at].first, copies.error());
  }
  return out;
}

Result<SrsManager::EvictOutcome> SrsManager::evict(const std::string& id) {
  std::vector<Reservation> dropped;
  std::shared_ptr<const LoadedKey> key;
  std::shared_ptr<const KeyCopies> copies;
  EvictOutcome out;
  {
    std::lock_guard<std::mutex> g(state_->mu);
    auto it = state_->entries.find(id);
    if (it == state_->entries.end()) {
      if (served(id)) return out;  // a loader's id that was never loaded
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
    if (e.copies)
      for (const auto& [_, c] : e.copies->items) out.freed_bytes += c->host_bytes();
    dropped = std::move(e.reservations);
    e.reservations.clear();
    key = std::move(e.key);
    e.key.reset();
    copies = std::move(e.copies);
    e.copies.reset();
    e.st = SrsEntry::St::kCold;
  }
  log::srs()->info("evicted proving key {} on request ({} freed)", id, format_bytes(out.freed_bytes));
  copies.reset();  // device and pinned copies first, outside the lock
  return out;
}

std::uint64_t SrsManager::evict_idle(std::uint64_t needed) {
  std::vector<Reservation> dropped;
  std::vector<std::shared_ptr<const LoadedKey>> keys;
  std::vector<std::shared_ptr<const KeyCopies>> copies;
  struct Evicted {
    std::string id;
    std::uint64_t bytes, idle_s;
  };
  std::vector<Evicted> evicted;
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
      std::uint64_t bytes = 0;
      for (auto& r : e->reservations) {
        bytes += r.bytes();
        dropped.push_back(std::move(r));
      }
      if (e->copies)
        for (const auto& [_, c] : e->copies->items) bytes += c->host_bytes();  // its pinned charges
      copies.push_back(std::move(e->copies));
      e->copies.reset();
      freed += bytes;
      evicted.push_back(
          {e->id, bytes, std::uint64_t(std::chrono::duration_cast<std::chrono::seconds>(now - e->last_used).count())});
      e->reservations.clear();
      keys.push_back(std::move(e->key));
      e->key.reset();
      e->st = SrsEntry::St::kCold;
    }
  }
  for (const auto& v : evicted)
    log::srs()->info("evicted idle proving key {} ({} freed, idle {} s) to make room for {}", v.id,
                     format_bytes(v.bytes), v.idle_s, format_bytes(needed));
  copies.clear();   // device and pinned copies (and their charges) first, outside the lock
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
      i.tier = e->key->pk.holds_bases() ? SrsTier::kHost : SrsTier::kMapped;
      for (auto& r : e->reservations) i.bytes += r.bytes();
      if (e->copies) {
        for (const auto& [slot, c] : e->copies->items) {
          const SrsTier t = c->streamed() ? SrsTier::kPinned : SrsTier::kDevice;
          i.copies.push_back({slot, t, c->from_file(), c->device_bytes(), c->host_bytes(), c->reason()});
          for (const auto& [planned_slot, form] : e->copies->planned)
            if (planned_slot == slot) i.copies.back().planned = form;
          i.bytes += c->host_bytes();
          if (t < i.tier) i.tier = t;
        }
      }
      i.idle_ms =
          e->refs ? 0
                  : std::uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(now - e->last_used).count());
    }
    out.push_back(std::move(i));
  }
  return out;
}

std::uint64_t SrsManager::loaded_bytes() const {
  std::lock_guard<std::mutex> g(state_->mu);
  std::uint64_t b = 0;
  for (auto& [_, e] : state_->entries) {
    for (auto& r : e->reservations) b += r.bytes();
    if (e->copies)
      for (const auto& [_, c] : e->copies->items) b += c->host_bytes();
  }
  return b;
}

}  // namespace cuzk::engine
