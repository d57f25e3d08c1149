#!/usr/bin/env bash
# The operator's drop-in (issue 26), one ctest case per argument:
#   prefix        `cmake --install` into a temp prefix; the installed binaries run; the unit names them
#   deb           cpack builds the .deb; dpkg-deb lists the expected files, the conffile, the unit
#   rust_cmdline  `cuzk --config FILE` with a Rust-cuzk-style config runs the daemon; systemd's
#                 notify socket gets READY=1 then STOPPING=1; the Node client drives every RPC
#   usage_exit    usage errors exit 2 in cuzk, cuzk daemon, cuzk-daemon and cuzk-bench
# Env: CUZK, DAEMON, BENCH, ROOT, BUILD, WORK (tests/install/CMakeLists.txt). Every wait is bounded.
set -euo pipefail
CASE=$1
: "${CUZK:?}" "${DAEMON:?}" "${BENCH:?}" "${ROOT:?}" "${BUILD:?}" "${WORK:?}"
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"
DPID="" NPID=""
cleanup() {
  for p in $DPID $NPID; do kill -KILL "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -f daemon.err ] && { echo "--- daemon log" >&2; tail -30 daemon.err >&2; }; exit 1; }
pass() { echo "ok - $*"; }

case "$CASE" in
prefix)
  P=$WORK/prefix
  cmake --install "$BUILD" --prefix "$P" > install.log || fail "cmake --install: $(tail -3 install.log)"
  for f in bin/cuzk bin/cuzk-daemon bin/cuzk-bench etc/cuzk/cuzk.toml lib/systemd/system/cuzk.service \
           share/doc/cuzk/operator.md share/doc/cuzk/daemon.md share/doc/cuzk/README.md share/doc/cuzk/cuzk.example.toml \
           share/doc/cuzk/grafana/cuzk-dashboard.json share/doc/cuzk/prometheus/cuzk-alerts.yml; do
    [ -e "$P/$f" ] || fail "not installed: $f"
  done
  pass "installed: binaries, config, unit, docs"
  "$P/bin/cuzk" --version | grep -qx 'cuzk [0-9.]*' || fail "installed cuzk --version"
  "$P/bin/cuzk-daemon" --version | grep -qx 'cuzk-daemon [0-9.]*' || fail "installed cuzk-daemon --version"
  "$P/bin/cuzk-bench" --help | grep -q 'cuzk-bench' || fail "installed cuzk-bench --help"
  # The installed config is the example one and the installed daemon accepts it as it is.
  cmp "$P/etc/cuzk/cuzk.toml" "$ROOT/deploy/cuzk.example.toml" || fail "installed config differs from the example"
  "$P/bin/cuzk" --config "$P/etc/cuzk/cuzk.toml" --check-config > check.txt 2> check.err || fail "installed cuzk --config --check-config: $(cat check.err)"
  grep -q '^config ok: ' check.txt || fail "check-config output: $(cat check.txt)"
  pass "installed binaries run; the installed config checks"
  U=$P/lib/systemd/system/cuzk.service
  grep -qx "ExecStart=$P/bin/cuzk --config $P/etc/cuzk/cuzk.toml" "$U" || fail "unit ExecStart: $(grep ExecStart "$U")"
  grep -qx 'Type=notify' "$U" || fail "unit is not Type=notify"
  grep -q '^PrivateTmp' "$U" && fail "unit has PrivateTmp (hides /var/tmp/filecoin-proof-parameters)"
  docs=$(sed -n 's|^Documentation=||p' "$U")
  [ -n "$docs" ] || fail "unit has no Documentation="
  for doc in $docs; do
    [ -f "${doc#file://}" ] || fail "unit Documentation= names a file that is not installed: $doc"
  done
  stop=$(sed -n 's/^TimeoutStopSec=\([0-9]*\)min$/\1/p' "$U")
  drain=$(sed -n 's/^drain_timeout = "\([0-9]*\)m".*/\1/p' "$P/etc/cuzk/cuzk.toml")
  [ -n "$stop" ] && [ -n "$drain" ] && [ "$stop" -gt "$drain" ] || fail "TimeoutStopSec (${stop}min) does not cover drain_timeout (${drain}m)"
  if command -v systemd-analyze >/dev/null; then
    systemd-analyze verify "$U" > verify.txt 2>&1 || fail "systemd-analyze verify: $(cat verify.txt)"
    pass "systemd-analyze verify accepts the unit"
  else
    echo "# systemd-analyze not installed: unit syntax check skipped"
  fi
  pass "unit: Type=notify, ExecStart/Documentation installed, no PrivateTmp, stop timeout ${stop}min > drain ${drain}m"
  ;;

deb)
  cpack --config "$BUILD/CPackConfig.cmake" -G DEB -B "$WORK/out" > cpack.log 2>&1 || fail "cpack: $(tail -5 cpack.log)"
  deb=$(ls "$WORK"/out/*.deb)
  pkg=$(dpkg-deb -f "$deb" Package)
  if grep -q '^CMAKE_CUDA_COMPILER:' "$BUILD/CMakeCache.txt" && [ -n "$(ls "$BUILD"/src/gpu/libcuzk_gpu.a 2>/dev/null)" ]; then want=cuzk-cuda; else want=cuzk-cpu; fi
  [ "$pkg" = "$want" ] || fail "package name $pkg, expected $want"
  dpkg-deb -c "$deb" | awk '{print $6}' > files.txt
  for f in ./usr/bin/cuzk ./usr/bin/cuzk-daemon ./usr/bin/cuzk-bench ./etc/cuzk/cuzk.toml \
           ./usr/lib/systemd/system/cuzk.service ./usr/share/doc/cuzk/daemon.md ./usr/share/doc/cuzk/README.md; do
    grep -qx "$f" files.txt || fail "$f not in the .deb: $(cat files.txt)"
  done
  pass "dpkg-deb -c $pkg: binaries, /etc/cuzk/cuzk.toml, the unit, docs"
  dpkg-deb -e "$deb" control
  grep -qx '/etc/cuzk/cuzk.toml' control/conffiles || fail "/etc/cuzk/cuzk.toml is not a conffile"
  dpkg-deb -f "$deb" Depends | grep -q 'libgrpc++' || fail "Depends lacks gRPC: $(dpkg-deb -f "$deb" Depends)"
  dpkg-deb -f "$deb" Depends | grep -qi 'cuda' && fail "the .deb depends on a CUDA runtime package"
  dpkg-deb -x "$deb" root
  grep -qx 'ExecStart=/usr/bin/cuzk --config /etc/cuzk/cuzk.toml' root/usr/lib/systemd/system/cuzk.service || fail "deb unit ExecStart"
  grep -qx 'Documentation=file:///usr/share/doc/cuzk/operator.md file:///usr/share/doc/cuzk/daemon.md' root/usr/lib/systemd/system/cuzk.service || fail "deb unit Documentation"
  grep -qx './usr/share/doc/cuzk/operator.md' files.txt || fail "operator.md not in the .deb"
  root/usr/bin/cuzk --version | grep -q '^cuzk ' || fail "the packaged cuzk does not run"
  pass "$pkg: conffile, Depends from the binaries (no CUDA runtime package), unit for /usr/bin/cuzk, binary runs"
  ;;

rust_cmdline)
  FIX=$ROOT/tests/fixtures/snarkjs
  SOCK=$(mktemp -u /tmp/cuzk-inst-XXXXXX).sock
  NOTIFY=$(mktemp -u /tmp/cuzk-notify-XXXXXX).sock
  # A Rust-cuzk-style config (the keys of Curio's extern/cuzk/cuzk.example.toml and of its documented
  # minimal config, deprecated ones included), plus our generic circuits for the Node client and our
  # [auth] section (a TCP listener without a token needs insecure; the client registers files there).
  cat > cuzk.toml <<TOML
[auth]
insecure = true
allowed_dirs = ["$FIX", "$WORK"]
[daemon]
listen = ["unix://$SOCK", "127.0.0.1:0"]
status_listen = "127.0.0.1:0"
[srs]
param_cache = "$WORK/params"
[memory]
total_budget = "2GiB"
safety_margin = "5GiB"
eviction_min_idle = "5m"
[gpus]
devices = []
gpu_threads = 2
gpu_workers_per_device = 2
[scheduler]
max_batch_size = 1
max_batch_wait_ms = 10000
sort_by_type = true
[synthesis]
threads = 0
partition_workers = 7
[pipeline]
enabled = true
synthesis_lookahead = 1
synthesis_concurrency = 1
[logging]
level = "info"
[backend]
kind = "cpu"
[[srs.circuits]]
id = "mulchain"
zkey = "$FIX/mulchain/mulchain.zkey"
[[srs.circuits]]
id = "bits"
zkey = "$FIX/bits/bits.zkey"
TOML
  mkdir -p params
  # systemd's side of Type=notify: a datagram socket that records what the daemon sends.
  python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as out:
    while True:
        out.write(s.recv(4096).decode() + "\n---\n")
        out.flush()
' "$NOTIFY" notify.txt &
  NPID=$!
  for _ in $(seq 1 100); do [ -S "$NOTIFY" ] && break; sleep 0.05; done
  [ -S "$NOTIFY" ] || fail "notify socket not created"
  NOTIFY_SOCKET=$NOTIFY "$CUZK" --config cuzk.toml > daemon.out 2> daemon.err &
  DPID=$!
  for _ in $(seq 1 400); do
    grep -q '^READY ' daemon.out 2>/dev/null && break
    kill -0 "$DPID" 2>/dev/null || fail "cuzk --config exited at start-up"
    sleep 0.05
  done
  grep -q '^READY ' daemon.out || fail "cuzk --config: not ready after 20 s"
  for _ in $(seq 1 100); do grep -q '^READY=1$' notify.txt 2>/dev/null && break; sleep 0.05; done
  grep -q '^READY=1$' notify.txt || fail "no READY=1 on NOTIFY_SOCKET: $(cat notify.txt 2>/dev/null)"
  grep -q 'partition_workers' daemon.err || fail "the deprecated Rust key partition_workers is not reported"
  pass "cuzk --config (Rust command line and config keys) serves; READY=1 sent to systemd after READY"
  TCP=$(sed -n 's/^READY grpc=[^,]*,\([^ ]*\) http=.*/\1/p' daemon.out)
  slowdir=$WORK/gen
  "$BENCH" gen-circuit --constraints 8192 --out "$slowdir" --id chain > /dev/null
  (cd "$ROOT" && timeout 240 node tests/daemon/wire_compat.js "unix://$SOCK" "$TCP" "$FIX" "$slowdir/chain.zkey" "$slowdir/chain.wtns") \
    > node.txt 2>&1 || { cat node.txt; fail "Node @grpc/grpc-js client against cuzk --config"; }
  pass "Node client: $(grep -c '^ok' node.txt) checks passed against cuzk --config"
  kill -TERM "$DPID"
  rc=0
  for _ in $(seq 1 600); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.05; done
  wait "$DPID" || rc=$?
  DPID=""
  [ "$rc" = 0 ] || fail "exit status $rc after SIGTERM"
  for _ in $(seq 1 40); do grep -q '^STOPPING=1$' notify.txt && break; sleep 0.05; done
  grep -q '^STOPPING=1$' notify.txt || fail "no STOPPING=1 on NOTIFY_SOCKET"
  pass "SIGTERM: STOPPING=1 sent, exit 0"
  ;;

usage_exit)
  check() {  # $1 = description, rest = command that must exit 2 with one line on stderr
    local d=$1 rc=0; shift
    "$@" > out.txt 2> err.txt < /dev/null || rc=$?
    [ "$rc" = 2 ] || fail "$d: exit $rc, expected 2 ($(head -2 err.txt))"
    [ "$(wc -l < err.txt)" = 1 ] || fail "$d: expected one line on stderr, got: $(cat err.txt)"
    echo "ok - $d: exit 2: $(cat err.txt)"
  }
  check "cuzk without a subcommand's flag" "$CUZK" --no-such-flag
  check "cuzk unknown subcommand" "$CUZK" no-such-command
  check "cuzk prove missing value" "$CUZK" prove --zkey
  check "cuzk verify missing required" "$CUZK" verify
  check "cuzk --config bad flag" "$CUZK" --config x.toml --no-such-flag
  check "cuzk daemon bad flag" "$CUZK" daemon --no-such-flag
  check "cuzk-daemon bad flag" "$DAEMON" --no-such-flag
  check "cuzk-daemon --log-level bad" "$DAEMON" --log-level loud --check-config
  check "cuzk-bench no subcommand" "$BENCH"
  check "cuzk-bench bad flag" "$BENCH" batch --no-such-flag
  for b in "$CUZK" "$DAEMON" "$BENCH"; do
    "$b" --help > /dev/null || fail "$b --help exits $?"
  done
  pass "--help exits 0 for all three"
  ;;
*) fail "unknown case $CASE" ;;
esac
