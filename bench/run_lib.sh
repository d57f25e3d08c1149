# Shared by the end-to-end GPU run scripts (post_gpu_run.sh, snap_gpu_run.sh): sourced after PACK and
# WORK are set. Resolves the binaries of a pack (bench/pack_for_gpu_host.sh: bin/ + lib/) or a build
# dir, enters WORK, and defines:
#   step MSG                       a timestamped section line
#   timed TAG CMD...               runs CMD; "TAG wall S s, peak RSS G GB" to stdout and steps.txt
#   gpu_line                       the GPU's name, memory and driver (or "none")
#   start_daemon CONFIG [WHAT]     cuzk-daemon --config CONFIG in the background until READY (DPID)
#   stop_daemon                    SIGTERM, exit status 0 required
#   lat_stats BATCH_JSON           "n p50 p99 max avg" of a cuzk-bench --json batch's wall_s
if [ -x "$PACK/bin/cuzk" ]; then
  BIN=$PACK/bin
  export LD_LIBRARY_PATH=$PACK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
else
  BIN=$PACK/src/apps
fi
tool() { if [ -f "$BIN/$1" ]; then echo "$BIN/$1"; else echo "$BIN/$1/$1"; fi; }
CUZK=$(tool cuzk)
DAEMON=$(tool cuzk-daemon)
BENCH=$(tool cuzk-bench)
mkdir -p "$WORK"
cd "$WORK"
step() { printf '\n== [%s] %s\n' "$(date -u +%T)" "$*"; }
timed() {
  local tag=$1
  shift
  /usr/bin/time -f "%e %M" -o "$tag.time" "$@"
  read -r wall kb < "$tag.time"
  printf '%s wall %.1f s, peak RSS %.2f GB\n' "$tag" "$wall" "$(awk -v k="$kb" 'BEGIN {print k / 1e6}')" | tee -a steps.txt
}
[ -x /usr/bin/time ] || timed() { shift; "$@"; }
gpu_line() { nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2> /dev/null || echo none; }

DPID=""
cleanup() { [ -n "$DPID" ] && kill -TERM "$DPID" 2> /dev/null; true; }
trap cleanup EXIT
start_daemon() {  # start_daemon CONFIG [WHAT]
  rm -f daemon.out daemon.log  # WORK is reused: a stale READY line must not be read
  local t0
  t0=$(date +%s.%N)
  "$DAEMON" --config "$1" > daemon.out 2> daemon.log &
  DPID=$!
  for _ in $(seq 1 2400); do
    grep -q '^READY' daemon.out 2> /dev/null && break
    kill -0 "$DPID" 2> /dev/null || { tail -20 daemon.log >&2; exit 1; }
    sleep 0.25
  done
  grep -q '^READY' daemon.out || { echo "daemon not ready" >&2; exit 1; }
  printf '   READY after %.1f s (%s)\n' "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')" "${2:-}"
}
stop_daemon() {
  kill -TERM "$DPID"
  wait "$DPID" || { echo "daemon exit status $?" >&2; exit 1; }
  DPID=""
}
lat_stats() {
  python3 - "$1" << 'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
w = sorted(p["wall_s"] for p in d["proofs"] if p["status"] == "COMPLETED")
if not w: print("0 - - - -"); sys.exit()
r = lambda q: w[min(len(w) - 1, max(0, math.ceil(q * len(w)) - 1))]
print(len(w), "%.3f" % r(0.5), "%.3f" % r(0.99), "%.3f" % w[-1], "%.3f" % (sum(w) / len(w)))
PY
}
