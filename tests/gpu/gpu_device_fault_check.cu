// gpu_device_fault_check: the verdict the engine asks for after a failure on a device
// (gpu::device_fault, behind Executor::device_fault; docs/daemon.md, "Several GPUs"), on a real GPU:
//   * a healthy device: no fault;
//   * an ordinal past the last device: "the device is gone";
//   * a device whose context took a sticky error (a kernel that writes to an illegal address): the
//     CUDA error by name, and the same on every later ask — the engine takes such a device out of
//     service. The fault is provoked in a child process forked before this process touches CUDA
//     (a sticky error ruins the context for the rest of its process).
// Exit 0 when every verdict is right, 1 otherwise, 77 without a device.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <cuda_runtime.h>

#include "gpu/gpu.hpp"

namespace {

__global__ void write_to_nowhere(int* p) { *p = 1; }

int provoke_and_ask() {
  if (cudaSetDevice(0) != cudaSuccess) return 2;
  write_to_nowhere<<<1, 1>>>(reinterpret_cast<int*>(0x10));
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("child: the kernel ended with %s\n", cudaGetErrorName(e));
  int bad = 0;
  for (int ask = 0; ask < 2; ++ask) {
    const auto fault = cuzk::gpu::device_fault(0);
    std::printf("child: device_fault(0), ask %d: %s\n", ask + 1, fault ? fault->c_str() : "none");
    if (!fault || (fault->find("cudaErrorIllegalAddress") == std::string::npos &&
                   fault->find("cudaErrorLaunchFailure") == std::string::npos)) {
      ++bad;
    }
  }
  std::fflush(stdout);  // the child leaves by _exit
  return bad ? 1 : 0;
}

}  // namespace

int main() {
  // Before any CUDA call here: the child owns the only context that is ruined.
  const pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) _exit(provoke_and_ask());
  int status = 0;
  waitpid(pid, &status, 0);
  const int child = WIFEXITED(status) ? WEXITSTATUS(status) : 3;

  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  int bad = 0;
  const auto healthy = cuzk::gpu::device_fault(0);
  std::printf("device_fault(0), healthy: %s\n", healthy ? healthy->c_str() : "none");
  bad += healthy ? 1 : 0;
  const auto gone = cuzk::gpu::device_fault(std::uint32_t(count));
  std::printf("device_fault(%d): %s\n", count, gone ? gone->c_str() : "none");
  bad += gone && gone->find("the device is gone") != std::string::npos ? 0 : 1;
  std::printf("after a sticky error (child): %s\n", child == 0 ? "blamed on the device, twice" : "NOT blamed");
  bad += child == 0 ? 0 : 1;
  std::printf("%s\n", bad ? "FAIL" : "OK");
  return bad ? 1 : 0;
}
