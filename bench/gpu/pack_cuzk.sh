#!/bin/bash
# Packs the cuzk CLI of a CUDA build ($1, default build/src/apps/cuzk/cuzk) with the shared libraries
# the GPU host lacks (libcrypto, libsimdjson, libsodium, libcudart) into $2 (default build-cuzkpack), to
# be carried to the device machine and run there, e.g. the 32 GiB TEST-ONLY key:
#   LD_LIBRARY_PATH=build-cuzkpack build-cuzkpack/cuzk setup --registered-proof StackedDrg32GiBV1_1 \
#       --out /tmp/p32 --seed 1 --gpu on
set -e
BIN=${1:-build/src/apps/cuzk/cuzk}
D=${2:-build-cuzkpack}
mkdir -p "$D"
cp "$BIN" "$D/cuzk"
for lib in libcrypto.so.3 libsimdjson.so.14 libsodium.so.23 libcudart.so.13; do
  p=$(ldd "$BIN" | awk -v l="$lib" '$1 == l { print $3 }')
  if [ -n "$p" ]; then cp -L "$p" "$D/"; fi
done
ls -la "$D"
