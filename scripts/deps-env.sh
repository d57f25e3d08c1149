# shellcheck shell=bash
# Sourced by scripts/install-deps.sh and scripts/test.sh: where the test tools are, and whether the
# machine's Node is new enough. One place for the rules, so that the installer and the test command
# agree on which `node` and `promtool` the tests run.
#   CUZK_DEPS       local tool prefix (default <repo>/.deps): .deps/node (Node from the npm registry),
#                   .deps/prometheus (promtool unpacked from Debian's package)
#   cuzk_node       prints the node the tests run (.deps/node/bin/node first, then `node` on PATH) if
#                   it is at least CUZK_NODE_MIN; else prints on stderr why not, one line, and fails
#   cuzk_promtool   prints .deps/prometheus/usr/bin/promtool, else `promtool` on PATH; fails if neither
# Debian 12's nodejs is 18; @noble/curves and @noble/hashes declare "engines": {"node": ">= 20.19.0"}.

CUZK_ROOT=${CUZK_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
CUZK_DEPS=${CUZK_DEPS:-$CUZK_ROOT/.deps}
CUZK_NODE_MIN=20.19.0
CUZK_NODE_PIN=20.20.2  # the npm registry's node-linux-<arch> package installed when the machine's is older
CUZK_NODE_HOW="run scripts/install-deps.sh --test-peers (installs Node $CUZK_NODE_PIN from the npm registry into .deps/node), or put Node >= $CUZK_NODE_MIN first in PATH"

# cuzk_node_version BIN: "20.20.2", or nothing when BIN does not run.
cuzk_node_version() {
  local v
  v=$("$1" --version 2>/dev/null) || return 0
  v=${v#v}
  case $v in [0-9]*.[0-9]*.[0-9]*) printf '%s\n' "$v" ;; esac
}

# cuzk_version_ge A B: A >= B (dotted numbers).
cuzk_version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]; }

cuzk_node() {
  local bin v found=""
  for bin in "$CUZK_DEPS/node/bin/node" "$(command -v node || true)"; do
    [ -n "$bin" ] && [ -x "$bin" ] || continue
    v=$(cuzk_node_version "$bin")
    if [ -n "$v" ] && cuzk_version_ge "$v" "$CUZK_NODE_MIN"; then
      printf '%s\n' "$bin"
      return 0
    fi
    if [ -z "$found" ]; then
      if [ -n "$v" ]; then found="node v$v at $bin is older than $CUZK_NODE_MIN"; else found="$bin does not run"; fi
    fi
  done
  local me=${0##*/}
  echo "${me%.sh}: ${found:-no node on PATH}; the tests' peers (@noble/curves) need Node >= $CUZK_NODE_MIN: $CUZK_NODE_HOW" >&2
  return 1
}

cuzk_promtool() {
  local bin
  for bin in "$CUZK_DEPS/prometheus/usr/bin/promtool" "$(command -v promtool || true)"; do
    [ -n "$bin" ] && [ -x "$bin" ] && { printf '%s\n' "$bin"; return 0; }
  done
  return 1
}

# cuzk_cuda_archs: the CUDA architectures the scripts build (CMAKE_CUDA_ARCHITECTURES): $CUDA_ARCHS
# when set; else this machine's GPUs (`native`) when nvidia-smi lists one; else 80-real, the oldest
# architecture the fat build covers, compiled to check the CUDA code without a GPU. One architecture
# compiles in ~1/7 of the time of CMake's default list (every card SPs run, cmake/install.cmake), so the
# test command stays within CI's budget; packages and `cmake -S . -B build` keep the full list.
cuzk_cuda_archs() {
  if [ -n "${CUDA_ARCHS:-}" ]; then
    printf '%s\n' "$CUDA_ARCHS"
  elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]'; then
    printf 'native\n'
  else
    printf '80-real\n'
  fi
}

