#!/usr/bin/env bash
# Runs every test on a fresh machine: installs the build dependencies and the test peers
# (scripts/install-deps.sh --test-peers: Node >= 20.19 and promtool in .deps when the machine has
# none), builds (CUDA code too when nvcc is present — compiled, not run, without a GPU), then runs
# ctest with that node and promtool first in PATH and passed to CMake. CUDA is built for this machine's
# GPU only, or sm_80 without one (cuzk_cuda_archs in scripts/deps-env.sh; CUDA_ARCHS overrides).
# Tests labelled `extended` (cli.snap_8m: an 8 MiB SnapDeals key and four 2^24 partitions, 30 min on
# 2 cores) run only with --extended. --sanitize then also runs scripts/sanitize.sh (every CPU test under
# ASan + UBSan, the engine and server tests under TSan; CI runs its subset as the ctest test
# sanitize.subset).
set -euo pipefail
EXCLUDE=(-LE extended)
SANITIZE=0
for a in "$@"; do
  case $a in
    --extended) EXCLUDE=() ;;
    --sanitize) SANITIZE=1 ;;
    *) echo "test.sh: unknown argument $a (--extended, --sanitize)" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test-peers
source scripts/deps-env.sh
NODE=$(cuzk_node)
PROMTOOL=$(cuzk_promtool)
PATH="$(dirname "$NODE"):$(dirname "$PROMTOOL"):$PATH"
export PATH
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNODE_EXECUTABLE="$NODE" -DPROMTOOL_EXECUTABLE="$PROMTOOL" \
  -DCMAKE_CUDA_ARCHITECTURES="$(cuzk_cuda_archs)"
cmake --build "$BUILD" -j"$(nproc)"
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)" "${EXCLUDE[@]}"
[ $SANITIZE = 0 ] || scripts/sanitize.sh --build-root "$BUILD-sanitize"
