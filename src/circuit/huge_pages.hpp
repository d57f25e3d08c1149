// Large arrays of a recorded shape (gigabytes at 32 GiB) are filled once, page by page; with 4 KiB
// pages that is millions of page faults, which dominated the system time of recording and loading.
// Asking for transparent huge pages before the first touch cuts them ~500x where the kernel's THP
// mode is "madvise" (the Debian default); elsewhere the advice is harmless.
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <vector>

namespace cuzk::circuit {

// Resizes v to n elements, first reserving the storage (with room for `spare` more, so appends that
// are known to follow do not reallocate gigabytes) and advising huge pages for the part of it not
// yet touched.
template <class T>
void resize_with_huge_pages(std::vector<T>& v, std::size_t n, std::size_t spare = 0) {
  if (n + spare > v.capacity()) {
    v.reserve(n + spare);
    constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data() + v.size());
    const auto end = reinterpret_cast<std::uintptr_t>(v.data() + v.capacity());
    const std::uintptr_t b = (begin + kHuge - 1) & ~(kHuge - 1), e = end & ~(kHuge - 1);
    if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
  }
  v.resize(n);
}

}  // namespace cuzk::circuit
