#!/usr/bin/env bash
# Installs everything cuzk needs on a fresh Debian 12 machine: C++ build dependencies from apt and the
# independent test peers (snarkjs, circom2, @noble/curves) from npm into ./node_modules.
# Idempotent: re-running it only checks that everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_pkgs=(build-essential cmake ninja-build pkg-config
  libcli11-dev nlohmann-json3-dev libspdlog-dev libfmt-dev libgtest-dev libbenchmark-dev libssl-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libtomlplusplus-dev
  libsimdjson-dev libtbb-dev libsodium-dev
  prometheus jq curl)  # daemon tests: `promtool check metrics`, JSON and HTTP checks
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# Test peers, pinned by package-lock.json.
if [ ! -x node_modules/.bin/snarkjs ] || [ ! -d node_modules/@noble/curves ] || [ ! -d node_modules/@grpc/grpc-js ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
echo "install-deps: ok"
