#!/bin/bash
# Builds the Groth16 GPU prover programs with nvcc/g++ directly (no CMake) into $1 (default
# build-gpubp): gpu_prover_check (tests/gpu), bench_prover (bench/gpu), plus gpu_check and bench_gpu.
# Objects are rebuilt only when a file they depend on changed (-MD dependency files). J parallel
# compiles (default 2). Binaries link cudart statically (nvcc's default), so a build made on the
# development machine runs on the device machine.
set -e
B=${1:-build-gpubp}
J=${J:-2}
O="$B/obj"
mkdir -p "$O"
. "$(dirname "$0")/build_common.sh"

GPU_CU="src/gpu/common src/gpu/ntt src/gpu/msm_g1 src/gpu/msm_g2 src/gpu/groth16_backend"
PROGS_CU="tests/gpu/gpu_prover_check bench/gpu/bench_prover tests/gpu/gpu_check bench/gpu/bench_gpu"
HOST_CPP="$(ls src/math/*/*.cpp src/groth16/*.cpp src/gpu/*.cpp)"

compile_objects "$O" "$GPU_CU $PROGS_CU" "$HOST_CPP"

CORE="$O/common.o $O/ntt.o $O/msm_g1.o $O/msm_g2.o"
HOST=$(host_objects "$O" "$HOST_CPP")
nvcc $ARCH $CORE $O/groth16_backend.o $O/gpu_prover_check.o $HOST -o "$B/gpu_prover_check"
nvcc $ARCH $CORE $O/groth16_backend.o $O/bench_prover.o $HOST -o "$B/bench_prover"
nvcc $ARCH $CORE $O/gpu_check.o $O/host_ntt.o $O/host_ntt_ifma.o $O/host_msm.o $O/host_affine_batch_ifma.o $O/host_fp_ifma.o \
  -o "$B/gpu_check"
nvcc $ARCH $CORE $O/bench_gpu.o -o "$B/bench_gpu"
echo "built $B/gpu_prover_check $B/bench_prover $B/gpu_check $B/bench_gpu"
