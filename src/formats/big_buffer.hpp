// Large temporary buffers for parsers. On virtual machines the first touch of fresh memory can cost
// ~6–13 µs per 4 KiB page, more than parsing the page; buffers of 1 MiB and more are mapped with
// MAP_POPULATE, which halves that. Anonymous, zero-filled memory (mmap), unmapped on destruction;
// falls back to the heap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace cuzk::formats {

class BigBuffer {
 public:
  BigBuffer() = default;
  explicit BigBuffer(std::size_t n);
  BigBuffer(BigBuffer&& o) noexcept { *this = std::move(o); }
  BigBuffer& operator=(BigBuffer&& o) noexcept;
  BigBuffer(const BigBuffer&) = delete;
  BigBuffer& operator=(const BigBuffer&) = delete;
  ~BigBuffer();
  std::uint8_t* data() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  std::uint8_t* p_ = nullptr;
  std::size_t n_ = 0;
  bool mapped_ = false;
};

}  // namespace cuzk::formats
