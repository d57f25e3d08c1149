#!/bin/bash
# Builds the GPU setup check (tests/gpu/gpu_setup_check.cu: GPU fixed-base products and whole
# TEST-ONLY keys against the CPU, then throughput) with the normal CMake configuration into $1
# (default build-gpusetup), and copies the binary to $1/bin, small enough to carry to the device
# machine. It reads bellperson parameter files (cuzk_formats_bellperson, which needs nlohmann_json),
# so it is not part of the GPU-core build (build_prover.sh). J parallel compiles (default 2).
set -e
B=${1:-build-gpusetup}
J=${J:-2}
GEN=()
[ -f "$B/CMakeCache.txt" ] || ! command -v ninja > /dev/null || GEN=(-G Ninja)
cmake -S "$(dirname "$0")/../.." -B "$B" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${ARCH:-90a}" \
  > "$B.configure.log" 2>&1 || { cat "$B.configure.log"; exit 1; }
cmake --build "$B" -j "$J" --target gpu_setup_check
mkdir -p "$B/bin"
cp "$B/tests/gpu/gpu_setup_check" "$B/bin/"
echo "built $B/bin/gpu_setup_check"
