#!/bin/bash
# Builds gpu_check and bench_gpu with nvcc/g++ directly (no CMake), into $1 (default build-gpubin).
# Used on the device machine (independent of the rest of the CMake tree) and to prebuild here.
set -e
B=${1:-build-gpubin}
mkdir -p "$B/obj"
F="-std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -lineinfo -Isrc -diag-suppress 1675,550"
pids=()
for f in src/gpu/common src/gpu/ntt src/gpu/msm_g1 src/gpu/msm_g2 tests/gpu/gpu_check bench/gpu/bench_gpu; do
  nvcc $F -c $f.cu -o "$B/obj/$(basename $f).o" & pids+=($!)
done
CPU="src/math/poly/ntt src/math/poly/ntt_ifma src/math/msm/msm src/math/msm/affine_batch_ifma src/math/ff/fp_ifma"
for f in $CPU; do  # CPU references used by gpu_check (with their AVX-512 IFMA paths)
  g++ -std=c++20 -O2 -Isrc -c $f.cpp -o "$B/obj/cpu_$(basename $f).o" & pids+=($!)
done
for p in "${pids[@]}"; do wait $p; done
O="$B/obj"
nvcc -gencode arch=compute_90a,code=sm_90a $O/common.o $O/ntt.o $O/msm_g1.o $O/msm_g2.o $O/gpu_check.o \
  $(for f in $CPU; do echo -n "$O/cpu_$(basename $f).o "; done) -o "$B/gpu_check"
nvcc -gencode arch=compute_90a,code=sm_90a $O/common.o $O/ntt.o $O/msm_g1.o $O/msm_g2.o $O/bench_gpu.o -o "$B/bench_gpu"
echo "built $B/gpu_check $B/bench_gpu"
