#!/usr/bin/env bash
# One call on the GPU host before the headline run: the device checks, the .params decode rate of
# this host's cores, and a 2 KiB PoRep run of the whole daemon flow on the GPU (key made on the GPU,
# proofs from the CUDA backend, every proof verified with the .vk).
#
#   bench/gpu/device_smoke.sh DIR
#
# DIR holds pack/ (bench/pack_for_gpu_host.sh) and checks/ with gpu_setup_check, gpu_prover_check
# and bench_params_load from a CUDA build (cmake --build B --target gpu_setup_check gpu_prover_check
# bench_params_load). Logs go to DIR/logs; a summary line per step ends the output; the exit status
# is non-zero when any step failed.
set -uo pipefail
DIR=$(realpath "$1")
LOGS=$DIR/logs
mkdir -p "$LOGS"
export LD_LIBRARY_PATH=$DIR/pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
declare -a SUMMARY
fails=0
step() {  # step NAME TIMEOUT_S COMMAND...
  local name=$1 limit=$2
  shift 2
  local t0=$SECONDS
  echo "== $name"
  timeout "$limit" "$@" > "$LOGS/$name.txt" 2>&1
  local rc=$?
  tail -25 "$LOGS/$name.txt"
  SUMMARY+=("$name: rc=$rc, $((SECONDS - t0)) s")
  [ $rc -eq 0 ] || fails=$((fails + 1))
}
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader
grep -m1 -o 'avx512ifma' /proc/cpuinfo || echo "no avx512ifma on this host"
step gpu_setup_check 150 "$DIR/checks/gpu_setup_check"
step gpu_prover_check 200 "$DIR/checks/gpu_prover_check"
step params_load_ifma 90 "$DIR/checks/bench_params_load" --log 22
CUZK_NO_IFMA=1 step params_load_scalar 90 "$DIR/checks/bench_params_load" --log 22
rm -rf /tmp/cuzk-smoke
PROOF=StackedDrg2KiBV1_1 SECTORS=2 COUNT=2 step porep2k_daemon_cuda 240 \
  bash "$(dirname "$0")/../porep_c2_gpu_run.sh" "$DIR/pack" /tmp/cuzk-smoke 1 2
cp /tmp/cuzk-smoke/summary.md "$LOGS/porep2k_summary.md" 2> /dev/null
cp /tmp/cuzk-smoke/daemon.log "$LOGS/porep2k_daemon.log" 2> /dev/null
echo
printf '%s\n' "${SUMMARY[@]}"
exit $((fails > 0))
