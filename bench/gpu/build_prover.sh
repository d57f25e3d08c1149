#!/bin/bash
# Builds the GPU programs with CMake's GPU-core configuration (-DCUZK_GPU_CORE_ONLY=ON: CMake, a C++20
# compiler and nvcc, nothing else) into $1 (default build-gpubp): gpu_check, gpu_prover_check,
# bench_gpu, bench_prover, bench_lane, pipe_rates and fp64_mul_probe, each at the top of $1 (the
# run_*_device.sh scripts take them from there), cudart linked statically so that a build made here
# runs on the device machine. J parallel compiles (default 2); ARCH sets CMAKE_CUDA_ARCHITECTURES (default 90a);
# TARGETS narrows the programs built (default: all of the above);
# NVCC_EXTRA adds nvcc flags (e.g. -DCUZK_FIELD_KARATSUBA=1 for a variant; a new value reconfigures).
set -e
B=${1:-build-gpubp}
J=${J:-2}
GEN=()
[ -f "$B/CMakeCache.txt" ] || ! command -v ninja > /dev/null || GEN=(-G Ninja)
cmake -S "$(dirname "$0")/../.." -B "$B" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DCUZK_GPU_CORE_ONLY=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${ARCH:-90a}" -DCMAKE_CUDA_FLAGS="${NVCC_EXTRA:-}" > "$B.configure.log" 2>&1 ||
  { cat "$B.configure.log"; exit 1; }
TARGETS=${TARGETS:-gpu_devices gpu_check gpu_prover_check bench_gpu bench_prover bench_lane pipe_rates fp64_mul_probe}
# shellcheck disable=SC2086
cmake --build "$B" -j "$J" --target $TARGETS
echo "built in $B: $TARGETS"
