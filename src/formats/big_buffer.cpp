#include "formats/big_buffer.hpp"

#include <sys/mman.h>

namespace cuzk::formats {

BigBuffer::BigBuffer(std::size_t n) : n_(n) {
  if (n == 0) return;
  if (n < (std::size_t(1) << 20)) {
    p_ = new std::uint8_t[n]();
    return;
  }
  void* m = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (m != MAP_FAILED) {
    p_ = static_cast<std::uint8_t*>(m);
    mapped_ = true;
  } else {
    p_ = new std::uint8_t[n]();
  }
}

BigBuffer& BigBuffer::operator=(BigBuffer&& o) noexcept {
  if (this != &o) {
    this->~BigBuffer();
    p_ = std::exchange(o.p_, nullptr);
    n_ = std::exchange(o.n_, 0);
    mapped_ = std::exchange(o.mapped_, false);
  }
  return *this;
}

BigBuffer::~BigBuffer() {
  if (p_ == nullptr) return;
  if (mapped_) ::munmap(p_, n_);
  else delete[] p_;
  p_ = nullptr;
}

}  // namespace cuzk::formats
