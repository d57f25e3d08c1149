#!/usr/bin/env bash
# Packs cuzk, cuzk-daemon and cuzk-bench, built here with the CUDA backend, for a GPU host that lacks
# our build dependencies (the H200 host has no gRPC, simdjson, toml++ or libsodium and no apt): the
# three binaries go to OUT/bin and every shared library they need that is not part of the base system
# (glibc, libstdc++, libgcc_s) to OUT/lib. The run script (bench/porep_c2_gpu_run.sh) puts OUT/lib on
# LD_LIBRARY_PATH. Built on Debian 12 (glibc 2.36), it runs on newer glibcs (Ubuntu 24.04: 2.39).
#
#   bench/pack_for_gpu_host.sh BUILD_DIR OUT_DIR [EXTRA_BINARY...]
#
# EXTRA_BINARY: more programs of BUILD_DIR to carry (e.g. bench/device_scaling_bench), with their libraries.
#
# BUILD_DIR must be configured with CUDA (nvcc found, CMAKE_CUDA_ARCHITECTURES 90a by default) and
# have the three targets built (cmake --build BUILD_DIR --target cuzk cuzk-daemon cuzk-bench).
set -euo pipefail
BUILD=$(realpath "$1")
OUT=$(realpath -m "$2")
shift 2
mkdir -p "$OUT/bin" "$OUT/lib"
bins=("$BUILD/src/apps/cuzk/cuzk" "$BUILD/src/apps/cuzk-daemon/cuzk-daemon" "$BUILD/src/apps/cuzk-bench/cuzk-bench")
for extra in "$@"; do bins+=("$BUILD/$extra"); done
for b in "${bins[@]}"; do
  [ -x "$b" ] || { echo "pack: $b is missing (build the cuzk, cuzk-daemon and cuzk-bench targets)" >&2; exit 1; }
  strip -o "$OUT/bin/$(basename "$b")" "$b"
done
# The base system of any glibc distribution; everything else travels.
system='^(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so'
for b in "${bins[@]}"; do
  ldd "$b" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  name=$(basename "$lib")
  [[ $name =~ $system ]] && continue
  cp -L "$lib" "$OUT/lib/$name"
done
# The binaries must link the CUDA backend, or the run would silently use the CPU.
if ! nm -C "$BUILD/src/apps/cuzk-daemon/cuzk-daemon" | grep 'gpu::CudaBackend' > /dev/null; then
  echo "pack: cuzk-daemon was built without the CUDA backend" >&2
  exit 1
fi
du -sh "$OUT/bin" "$OUT/lib"
