// Large output vectors on transparent huge pages, faulted in by all threads at once.
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
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "base/parallel.hpp"

namespace cuzk {

template <class T>
void allocate_huge(std::vector<T>& v, std::size_t n, std::size_t threads = default_threads()) {
  v = std::vector<T>();
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
    const std::size_t pieces = (e - b + kHuge - 1) / kHuge;
    parallel_chunks(pieces, threads, [&](std::size_t lo, std::size_t hi, std::size_t) {
      std::uintptr_t pb = b + lo * kHuge, pe = std::min<std::uintptr_t>(e, b + hi * kHuge);
      if (pe > pb) ::madvise(reinterpret_cast<void*>(pb), pe - pb, MADV_POPULATE_WRITE);
    });
#endif
  }
#else
  (void)threads;
#endif
  v.resize(n);
}

}  // namespace cuzk
