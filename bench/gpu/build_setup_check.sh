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

compile_objects "$O" "$GPU_CU" "$HOST_CPP"

OBJS=$(for f in $GPU_CU; do echo -n "$O/$(basename $f).o "; done)
HOST=$(host_objects "$O" "$HOST_CPP")
nvcc $ARCH $OBJS $HOST -o "$B/gpu_setup_check"
echo "built $B/gpu_setup_check"
