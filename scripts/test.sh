#!/usr/bin/env bash
# Runs every test on a fresh machine: installs dependencies, builds (CUDA code too when nvcc is
# present — compiled, not run, without a GPU), then runs ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD" -j"$(nproc)"
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)"
