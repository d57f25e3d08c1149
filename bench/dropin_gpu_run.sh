#!/usr/bin/env bash
# The operator's drop-in on a GPU host (issue 26): the packed binaries (bench/pack_for_gpu_host.sh,
# carried as build-pack/pack.tar.xz) run as Curio's unit runs the Rust daemon — `cuzk --config FILE`
# with `gpus.devices = []` and `backend.kind = "auto"` — and this prints what an operator would look
# at: the start-up device check in the log, GetStatus's GPU entries (real name, VRAM), /status's
# `gpus` and the per-device /metrics series, one generic proof proved on the GPU, and a clean SIGTERM.
# Then the same with CUDA_VISIBLE_DEVICES="" (no device): the CPU backend serves, with a log line.
set -uo pipefail
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
P=/tmp/cuzk-pack
rm -rf "$P" && mkdir -p "$P" && tar -xJf build-pack/pack.tar.xz -C "$P" --strip-components=1 || exit 1
export LD_LIBRARY_PATH=$P/lib
FIX=$PWD/tests/fixtures/snarkjs
W=$(mktemp -d)
http_get() {  # host:port path -> body (no curl needed)
  local hp=$1 path=$2
  exec 3<>"/dev/tcp/${hp%:*}/${hp##*:}" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: x\r\n\r\n' "$path" >&3
  sed '1,/^\r$/d' <&3
  exec 3<&-
}
run_once() {  # $1 = label; the environment decides the devices
  local label=$1
  cat > "$W/cuzk.toml" <<TOML
[daemon]
listen = ["unix://$W/cuzk.sock", "127.0.0.1:0"]
status_listen = "127.0.0.1:0"
[gpus]
devices = []
[[srs.circuits]]
id = "bits"
zkey = "$FIX/bits/bits.zkey"
TOML
  "$P/bin/cuzk" --config "$W/cuzk.toml" > "$W/out.txt" 2> "$OUT/daemon-$label.log" &
  local pid=$!
  for _ in $(seq 1 600); do grep -q '^READY' "$W/out.txt" 2>/dev/null && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  grep -q '^READY' "$W/out.txt" || { echo "$label: not ready"; tail -20 "$OUT/daemon-$label.log"; return 1; }
  local tcp http
  tcp=$(sed -n 's/^READY grpc=[^,]*,\([^ ]*\) http=.*/\1/p' "$W/out.txt")
  http=$(sed -n 's/^READY .* http=\(.*\)$/\1/p' "$W/out.txt")
  echo "== $label: start-up log (devices, backend)"
  grep -E 'cuzk: running|CUDA build|GPU [0-9]+:|CUDA backend|CPU backend|no usable|engine:' "$OUT/daemon-$label.log" | cut -c1-200
  echo "== $label: one generic proof"
  "$P/bin/cuzk-bench" -a "$tcp" single -t generic --circuit-id bits --wtns "$FIX/bits/witness.wtns" 2>&1 | tail -3
  echo "== $label: GetStatus gpus"
  "$P/bin/cuzk-bench" -a "$tcp" --json status > "$OUT/getstatus-$label.json" 2>&1
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(" ", g) for g in d.get("gpus",[])]' "$OUT/getstatus-$label.json" 2>/dev/null ||
    grep -o '"gpus":\[[^]]*\]' "$OUT/getstatus-$label.json" | cut -c1-400
  echo "== $label: /status gpus and gpu_workers"
  http_get "$http" /status > "$OUT/status-$label.json"
  grep -o '"gpus":\[[^]]*\]' "$OUT/status-$label.json" | cut -c1-400
  echo "== $label: /metrics per-device series"
  http_get "$http" /metrics > "$OUT/metrics-$label.txt"
  grep -E '^cuzk_gpu_(info|memory_total_bytes|memory_free_bytes|busy)|^cuzk_proofs_completed\{|^cuzk_backend_info' "$OUT/metrics-$label.txt"
  kill -TERM $pid
  local rc=0
  wait $pid || rc=$?
  echo "== $label: exit status after SIGTERM: $rc"
}
nvidia-smi --query-gpu=index,name,compute_cap,memory.total --format=csv,noheader
run_once gpu
CUDA_VISIBLE_DEVICES="" run_once nogpu
rm -rf "$W"
