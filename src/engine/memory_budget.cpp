#include "engine/memory_budget.hpp"

#include <algorithm>

#include "engine/units.hpp"

namespace cuzk::engine {

Reservation& Reservation::operator=(Reservation&& o) noexcept {
  if (this != &o) {
    reset();
    budget_ = o.budget_;
    bytes_ = o.bytes_;
    tag_ = o.tag_;
    o.budget_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

void Reservation::release(std::uint64_t n) {
  if (!budget_) return;
  n = std::min(n, bytes_);
  if (n == 0) return;
  bytes_ -= n;
  budget_->give_back(n, tag_);
}

void Reservation::reset() {
  if (!budget_) return;
  MemoryBudget* b = budget_;
  std::uint64_t n = bytes_;
  budget_ = nullptr;
  bytes_ = 0;
  if (n) b->give_back(n, tag_);
}

MemoryBudget::MemoryBudget(std::uint64_t total_bytes) : total_(total_bytes) {}

void MemoryBudget::set_evictor(std::function<std::uint64_t(std::uint64_t)> evictor) {
  std::lock_guard<std::mutex> g(mu_);
  evictor_ = std::move(evictor);
}

void MemoryBudget::add_listener(std::function<void()> fn) {
  std::lock_guard<std::mutex> g(mu_);
  listeners_.push_back(std::move(fn));
}

void MemoryBudget::detach_callbacks() {
  std::lock_guard<std::mutex> g(mu_);
  evictor_ = nullptr;
  listeners_.clear();
}

std::uint64_t MemoryBudget::used() const {
  std::lock_guard<std::mutex> g(mu_);
  return used_;
}
std::uint64_t MemoryBudget::used(Tag tag) const {
  std::lock_guard<std::mutex> g(mu_);
  return by_tag_[tag];
}
std::uint64_t MemoryBudget::peak() const {
  std::lock_guard<std::mutex> g(mu_);
  return peak_;
}
std::uint32_t MemoryBudget::waiters() const {
  std::lock_guard<std::mutex> g(mu_);
  return static_cast<std::uint32_t>(queue_.size());
}
void MemoryBudget::reset_peak() {
  std::lock_guard<std::mutex> g(mu_);
  peak_ = used_;
}

std::uint64_t MemoryBudget::head_waiter_bytes() const {
  std::lock_guard<std::mutex> g(mu_);
  return queue_.empty() ? 0 : queue_.front().bytes;
}

Result<std::shared_ptr<void>> MemoryBudget::charge(std::uint64_t bytes, Tag tag) {
  auto r = try_reserve(bytes, tag, /*jump_queue=*/true);
  if (!r) {
    const std::uint64_t u = used();
    return Error{"the memory budget has " + format_bytes(u < total_ ? total_ - u : 0) + " free of " +
                 format_bytes(total_) + ", " + format_bytes(bytes) + " needed"};
  }
  return std::shared_ptr<void>(std::make_shared<Reservation>(std::move(*r)));
}

std::optional<Reservation> MemoryBudget::try_reserve(std::uint64_t bytes, Tag tag, bool jump_queue,
                                                     std::uint64_t keep_free) {
  std::function<std::uint64_t(std::uint64_t)> evictor;
  if (bytes > total_ || keep_free > total_ - bytes) return std::nullopt;
  const std::uint64_t need = bytes + keep_free;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::uint64_t shortfall = 0;
    {
      std::lock_guard<std::mutex> g(mu_);
      const bool may = jump_queue || queue_.empty();
      if (may && used_ + need <= total_) {
        used_ += bytes;
        by_tag_[tag] += bytes;
        peak_ = std::max(peak_, used_);
        return Reservation(this, bytes, tag);
      }
      if (!may) return std::nullopt;  // someone is queued first
      shortfall = used_ + need - total_;
      evictor = evictor_;
    }
    if (attempt == 0 && evictor) {
      if (evictor(shortfall) == 0) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Result<Reservation> MemoryBudget::reserve(std::uint64_t bytes, Tag tag, const std::function<bool()>& cancelled,
                                          std::chrono::steady_clock::time_point deadline) {
  if (bytes > total_) {
    return Error{"needs " + format_bytes(bytes) + " but the whole memory budget is " + format_bytes(total_)};
  }
  std::unique_lock<std::mutex> lk(mu_);
  const std::uint64_t ticket = next_ticket_++;
  queue_.push_back(Waiter{ticket, bytes});
  auto leave = [&] {
    queue_.erase(std::find_if(queue_.begin(), queue_.end(), [&](const Waiter& w) { return w.ticket == ticket; }));
    cv_.notify_all();
  };
  std::uint64_t last_evict_shortfall = ~std::uint64_t(0);
  auto last_evict = std::chrono::steady_clock::now();
  while (true) {
    if (queue_.front().ticket == ticket) {
      if (used_ + bytes <= total_) {
        used_ += bytes;
        by_tag_[tag] += bytes;
        peak_ = std::max(peak_, used_);
        leave();
        lk.unlock();
        notify_listeners();  // the next in line (or try_reserve callers) may now proceed
        return Reservation(this, bytes, tag);
      }
      // At the head but short: ask the evictor (without our lock) when the shortfall changed, and
      // every 250 ms (keys become evictable as they pass their minimum idle time).
      std::uint64_t shortfall = used_ + bytes - total_;
      auto now = std::chrono::steady_clock::now();
      if (evictor_ && (shortfall != last_evict_shortfall || now - last_evict >= std::chrono::milliseconds(250))) {
        last_evict_shortfall = shortfall;
        last_evict = now;
        auto evictor = evictor_;
        lk.unlock();
        std::uint64_t freed = evictor(shortfall);
        lk.lock();
        if (freed > 0) last_evict_shortfall = ~std::uint64_t(0);
        continue;
      }
    }
    if (cancelled && cancelled()) {
      leave();
      lk.unlock();
      notify_listeners();
      return Error{"cancelled while waiting for " + format_bytes(bytes) + " of memory"};
    }
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      leave();
      lk.unlock();
      notify_listeners();
      return Error{"timed out waiting for " + format_bytes(bytes) + " of memory"};
    }
    auto slice = std::min<std::chrono::steady_clock::time_point>(deadline, now + std::chrono::milliseconds(5));
    cv_.wait_until(lk, slice);
  }
}

void MemoryBudget::give_back(std::uint64_t bytes, int tag) {
  {
    std::lock_guard<std::mutex> g(mu_);
    used_ -= std::min(used_, bytes);
    by_tag_[tag] -= std::min(by_tag_[tag], bytes);
  }
  cv_.notify_all();
  notify_listeners();
}

void MemoryBudget::notify_listeners() {
  std::vector<std::function<void()>> ls;
  {
    std::lock_guard<std::mutex> g(mu_);
    ls = listeners_;
  }
  for (auto& f : ls) f();
}

}  // namespace cuzk::engine
