#!/bin/bash
# Builds the GPU setup check (tests/gpu/gpu_setup_check.cu: GPU fixed-base products and whole
# TEST-ONLY keys against the CPU, then throughput) with nvcc/g++ directly (no CMake) into $1
# (default build-gpusetup). Only the binary lands in $1 (objects go to $1-obj), so $1 is small enough
# to carry to the device machine. Static cudart (nvcc's default): runs on the GPU host as is.
# Objects are rebuilt only when a file they depend on changed (-MD). J parallel compiles (default 2).
set -e
B=${1:-build-gpusetup}
J=${J:-2}
O="$B-obj"
mkdir -p "$B" "$O"
. "$(dirname "$0")/build_common.sh"

GPU_CU="src/gpu/common src/gpu/fixed_base src/gpu/fixed_base_g1 src/gpu/fixed_base_g2 tests/gpu/gpu_setup_check"
HOST_CPP="$(ls src/math/*/*.cpp src/groth16/*.cpp src/formats/bellperson/*.cpp)"

for f in $GPU_CU; do
  o="$O/$(basename $f).o"
  if stale "$o"; then run nvcc $NVF -MD -MF "${o%.o}.d" -c $f.cu -o "$o"; fi
done
for f in $HOST_CPP; do
  o="$O/host_$(basename ${f%.cpp}).o"
  if stale "$o"; then run g++ $GXF -MMD -MF "${o%.o}.d" -c $f -o "$o"; fi
done
for p in "${pids[@]}"; do wait $p || exit 1; done

OBJS=$(for f in $GPU_CU; do echo -n "$O/$(basename $f).o "; done)
HOST=$(for f in $HOST_CPP; do echo -n "$O/host_$(basename ${f%.cpp}).o "; done)
nvcc $ARCH $OBJS $HOST -o "$B/gpu_setup_check"
echo "built $B/gpu_setup_check"
