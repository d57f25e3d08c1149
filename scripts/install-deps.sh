#!/usr/bin/env bash
# Installs what cuzk needs on a fresh Debian 12 machine, split by need, so that building (and the
# demo) never needs Node:
#   scripts/install-deps.sh               the C++ build: compiler, CMake, Ninja, libraries (apt)
#   scripts/install-deps.sh --test-peers  also what the tests run besides cuzk:
#       jq, curl, python3, clang and its libFuzzer runtime (apt; scripts/fuzz.sh);
#       promtool alone (`promtool check metrics` in the daemon tests): unpacked from Debian's prometheus
#         package into .deps/prometheus, never installed, so no Prometheus server, node exporter or
#         service comes with it (installing the package starts both on a systemd machine);
#       Node >= 20.19 (the peers' @noble/curves needs it; Debian 12's nodejs is 18): the machine's when
#         new enough, else the npm registry's node-linux-<arch>@20 package (the official binary) into
#         .deps/node, fetched with npm (Debian's, installed by apt when missing);
#       the independent test peers (snarkjs, circom2, @noble/curves, @grpc/grpc-js): npm ci into
#         ./node_modules, pinned by package-lock.json.
#   scripts/install-deps.sh --check-node  installs nothing: prints the node the tests will run, or one
#       line saying why there is none and how to get it (exit 1).
# Idempotent: re-running it only checks that everything is present. scripts/deps-env.sh says where the
# tools are (scripts/test.sh passes them to CMake); CUZK_DEPS moves .deps elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=deps-env.sh
source scripts/deps-env.sh

mode=build
case "${1:-}" in
  "") ;;
  --test-peers) mode=test-peers ;;
  --check-node) mode=check-node ;;
  *) echo "usage: scripts/install-deps.sh [--test-peers | --check-node]" >&2; exit 2 ;;
esac

if [ "$mode" = check-node ]; then
  node=$(cuzk_node) || exit 1
  echo "install-deps: node v$(cuzk_node_version "$node") at $node"
  exit 0
fi

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
apt_updated=0
# apt_install [--no-install-recommends] PKG...: the Debian packages given that are not installed yet.
apt_install() {
  local opts=() missing=() p
  [ "${1:-}" != --no-install-recommends ] || { opts+=("$1"); shift; }
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -gt 0 ] || return 0
  [ $apt_updated = 1 ] || { $SUDO apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${opts[@]}" "${missing[@]}"
}

apt_install build-essential cmake ninja-build pkg-config \
  libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev libgtest-dev libbenchmark-dev libssl-dev \
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libtomlplusplus-dev \
  libsimdjson-dev libtbb-dev libsodium-dev libsystemd-dev libevent-dev
if [ "$mode" = build ]; then
  echo "install-deps: ok (build)"
  exit 0
fi

# Test tools from apt: JSON and HTTP checks, the tests' Python snippets, the TLS test's CA (openssl);
# clang and the default clang's libFuzzer/sanitizer runtimes (libclang-rt-dev: libclang-rt-14-dev on
# Debian 12) for scripts/fuzz.sh and the fuzz.short test.
apt_install --no-install-recommends jq curl python3 ca-certificates openssl clang libclang-rt-dev

# promtool: unpacked from the .deb (dpkg-deb -x), nothing configured or started.
if ! cuzk_promtool >/dev/null; then
  tmp=$(mktemp -d)
  chown _apt "$tmp" 2>/dev/null || true  # apt-get download runs as _apt when it may
  if ! (cd "$tmp" && apt-get download -qq prometheus 2>/dev/null); then
    $SUDO apt-get update -qq
    apt_updated=1
    (cd "$tmp" && apt-get download -qq prometheus)
  fi
  dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/root"
  mkdir -p "$CUZK_DEPS/prometheus/usr/bin"
  cp "$tmp/root/usr/bin/promtool" "$CUZK_DEPS/prometheus/usr/bin/promtool"
  rm -rf "$tmp"
fi
promtool=$(cuzk_promtool)
"$promtool" --version >/dev/null || { echo "install-deps: $promtool does not run" >&2; exit 1; }

# Node >= CUZK_NODE_MIN: the machine's, else the registry's binary package into .deps/node.
if ! node=$(cuzk_node 2>/dev/null); then
  case $(uname -m) in
    x86_64) arch=x64 ;;
    aarch64) arch=arm64 ;;
    *) echo "install-deps: no Node package of the npm registry for $(uname -m): install Node >= $CUZK_NODE_MIN and put it first in PATH" >&2
       exit 1 ;;
  esac
  command -v npm >/dev/null || apt_install --no-install-recommends npm
  echo "install-deps: $(cuzk_node 2>&1 | sed 's/^[^:]*: //; s/;.*//'): installing node-linux-$arch@$CUZK_NODE_PIN into $CUZK_DEPS/node"
  npm install --global --prefix "$CUZK_DEPS/node" --no-audit --no-fund --loglevel=error "node-linux-$arch@$CUZK_NODE_PIN" ||
    { echo "install-deps: npm install node-linux-$arch@$CUZK_NODE_PIN failed (see above): install Node >= $CUZK_NODE_MIN and put it first in PATH" >&2; exit 1; }
  node=$(cuzk_node) || exit 1
fi

# Test peers, pinned by package-lock.json (npm runs on whatever node it came with; the tests run $node).
if [ ! -x node_modules/.bin/snarkjs ] || [ ! -d node_modules/@noble/curves ] || [ ! -d node_modules/@grpc/grpc-js ]; then
  command -v npm >/dev/null || apt_install --no-install-recommends npm
  npm ci --no-audit --no-fund --loglevel=error
fi
echo "install-deps: ok (build and test peers; node v$(cuzk_node_version "$node") at $node, promtool at $promtool)"
