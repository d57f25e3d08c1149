#!/usr/bin/env bash
# The daemon end to end on the CPU backend, in one command: generate a test circuit (2^14
# constraints, TEST-ONLY keys), start cuzk-daemon, run `cuzk-bench batch`, print the summary, stop
# the daemon with SIGTERM.
#
#   deploy/quickstart.sh [BUILD_DIR] [COUNT] [CONCURRENCY]      (defaults: build, 8, 2)
#
# This proves a generic circuit (seconds); scripts/demo.sh is the same loop for PoRep C2 with TEST-ONLY
# 2 KiB parameters and sealed test sectors.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(realpath "${1:-$ROOT/build}")
COUNT=${2:-8}
J=${3:-2}
DAEMON=$BUILD/src/apps/cuzk-daemon/cuzk-daemon
BENCH=$BUILD/src/apps/cuzk-bench/cuzk-bench
for b in "$DAEMON" "$BENCH"; do
  [ -x "$b" ] || { echo "quickstart: $b not built (cmake --build $BUILD --target cuzk-daemon cuzk-bench)" >&2; exit 2; }
done
WORK=$(mktemp -d /tmp/cuzk-quickstart-XXXXXX)
SOCK=$WORK/cuzk.sock
"$BENCH" gen-circuit --constraints 16384 --out "$WORK" --id chain
cat > "$WORK/cuzk.toml" <<TOML
[daemon]
listen = "unix://$SOCK"
status_listen = "127.0.0.1:0"
[memory]
total_budget = "4GiB"
[[srs.circuits]]
id = "chain"
zkey = "$WORK/chain.zkey"
preload = true
TOML
# A re-run reuses $WORK: drop the last daemon's output, or the wait below could read its READY line.
rm -f "$WORK/daemon.out" "$WORK/daemon.log"
"$DAEMON" --config "$WORK/cuzk.toml" > "$WORK/daemon.out" 2> "$WORK/daemon.log" &
DPID=$!
trap 'kill -TERM $DPID 2>/dev/null || true' EXIT
for _ in $(seq 1 200); do grep -q '^READY' "$WORK/daemon.out" 2>/dev/null && break; sleep 0.05; done
grep -q '^READY' "$WORK/daemon.out" || { cat "$WORK/daemon.log" >&2; exit 1; }
echo "daemon: $(head -1 "$WORK/daemon.out")"
"$BENCH" -a "unix://$SOCK" batch -t generic --circuit-id chain --wtns "$WORK/chain.wtns" -c "$COUNT" -j "$J" \
  --timeline "$WORK/timeline.svg"
kill -TERM $DPID
wait $DPID
trap - EXIT
echo "daemon stopped (exit 0); log, config and timeline.svg in $WORK"
