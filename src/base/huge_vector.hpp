// Large output vectors on transparent huge pages, faulted in and initialised by all threads at once.
//
// On the development VM a 4 KiB page fault costs far more than the zeroing it does (paravirtualised
// page tables), and a value-initialising resize() faults the whole buffer in on one thread. For
// buffers of 8 MiB and more this asks for huge pages (MADV_HUGEPAGE: the system default is
// "madvise") and populates them in parallel (MADV_POPULATE_WRITE, Linux 5.14+; ignored where
// unsupported), so the resize() that follows runs over resident memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "base/parallel.hpp"

namespace cuzk {

// std::allocator, except that value-initialisation (construct with no arguments) does nothing.
template <class T>
struct UninitAllocator {
  using value_type = T;
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return std::allocator<T>{}.allocate(n); }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>{}.deallocate(p, n); }
  template <class U>
  void construct(U*) noexcept {
    static_assert(std::is_trivially_copyable_v<U> && std::is_trivially_destructible_v<U>,
                  "only for plain data: elements are left as the bytes the memory holds");
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const UninitAllocator&, const UninitAllocator&) noexcept { return true; }
};

template <class T>
using HugeVector = std::vector<T, UninitAllocator<T>>;

template <class T, class A>
void allocate_huge(std::vector<T, A>& v, std::size_t n, std::size_t threads = default_threads()) {
  // HugeVector: the parallel value-initialisation below is also the first touch of every page.
  constexpr bool kInitHere = std::is_same_v<A, UninitAllocator<T>>;
  v = std::vector<T, A>();
  v.reserve(n);
#if defined(__linux__)
  const std::size_t bytes = n * sizeof(T);
  constexpr std::uintptr_t kPage = 4096, kHuge = std::uintptr_t(2) << 20;
  if (bytes >= 4 * kHuge) {
    std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(v.data()) + kPage - 1) & ~(kPage - 1);
    std::uintptr_t e = reinterpret_cast<std::uintptr_t>(v.data() + n) & ~(kPage - 1);
#ifdef MADV_HUGEPAGE
    ::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    if (!kInitHere) {
      const std::size_t pieces = (e - b + kHuge - 1) / kHuge;
      parallel_chunks(pieces, threads, [&](std::size_t lo, std::size_t hi, std::size_t) {
        std::uintptr_t pb = b + lo * kHuge, pe = std::min<std::uintptr_t>(e, b + hi * kHuge);
        if (pe > pb) ::madvise(reinterpret_cast<void*>(pb), pe - pb, MADV_POPULATE_WRITE);
      });
    }
#endif
  }
#endif
  if constexpr (kInitHere) {
    // Value-initialise the reserved storage on every thread; resize() then constructs nothing.
    T* data = v.data();
    parallel_chunks(n, n >= (std::size_t(1) << 16) ? threads : 1, [&](std::size_t lo, std::size_t hi, std::size_t) {
      for (std::size_t i = lo; i < hi; ++i) ::new (static_cast<void*>(data + i)) T();
    });
  } else {
    (void)threads;
  }
  v.resize(n);
}

}  // namespace cuzk
