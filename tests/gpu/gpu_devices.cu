// gpu_devices: what the daemon's start-up check sees (gpu::device_infos): each device's name,
// compute capability, memory, and whether this binary's kernels load on it — the build's own
// architecture list decides (SASS for the device, or PTX it can JIT). Prints one line per device and
// the architectures built; exit 0 when every device can run the kernels, 1 when one cannot, 77 when
// there is no device. A PTX-only build for an older architecture (-DCMAKE_CUDA_ARCHITECTURES=80-virtual)
// shows the JIT path; a build for a newer one only (e.g. 100-real on an H200) shows the refusal.
#include <cstdio>

#include "gpu/gpu.hpp"

int main() {
  const auto devices = cuzk::gpu::device_infos();
  std::printf("built for: %s\n", cuzk::gpu::built_architectures().c_str());
  if (devices.empty()) {
    std::printf("no CUDA device\n");
    return 77;
  }
  int bad = 0;
  for (const auto& d : devices) {
    std::printf("GPU %u: %s, compute %d.%d, %d SMs, %.1f GiB (%.1f GiB free): %s%s\n", d.ordinal, d.name.c_str(),
                d.cc_major, d.cc_minor, d.multiprocessors, double(d.total_bytes) / (1ull << 30),
                double(d.free_bytes) / (1ull << 30), d.loadable ? "kernels load" : "NOT usable: ", d.problem.c_str());
    bad += d.loadable ? 0 : 1;
  }
  return bad ? 1 : 0;
}
