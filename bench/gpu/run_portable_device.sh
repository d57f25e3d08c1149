#!/bin/bash
# The portable CUDA path on the H200 (issue 26): two GPU-core builds made here, side by side —
#   fat    the default architecture list (SASS for sm_80 sm_86 sm_89 sm_90a sm_100 sm_120, PTX 120)
#   ptx80  PTX for compute_80 only: nothing built for Hopper, every kernel JIT-compiled by the driver
# then, per build: gpu_devices (the start-up check), gpu_prover_check (GPU proofs byte-identical to
# the CPU's, injected r, s), gpu_check --quick, and bench_prover (same sizes, both builds), ending
# with a table. `cuobjdump --list-elf/--list-ptx` shows what each binary holds.
#   PHASE=build   the two builds and cuobjdump (one device call)
#   PHASE=run     the checks and the benchmark on builds already here (a second call)
#   PHASE=all     both (needs more than one call's 600 s at J=16)
# Env: BENCH_ARGS (default --logs 24,26 --reps 3), J (default 16), OUT.
set -u
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
PHASE=${PHASE:-all}
J=${J:-16}
T0=$(date +%s)
t() { echo "$(( $(date +%s) - T0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader
# The JIT cache: big enough for every kernel, kept in the build folder so the second call reuses it.
export CUDA_CACHE_PATH=$PWD/build-ptx80/jit-cache CUDA_CACHE_MAXSIZE=4294967296
FAT="80-real;86-real;89-real;90a-real;100-real;120-real;120-virtual"
TGT="gpu_devices gpu_check gpu_prover_check bench_prover"
if [ "$PHASE" != run ]; then
  echo "== build fat and ptx80 in parallel ($(t))"
  ARCH=$FAT J=$((J * 5 / 8)) TARGETS=$TGT bash bench/gpu/build_prover.sh build-fat > "$OUT/build-fat.txt" 2>&1 &
  p1=$!
  ARCH=80-virtual J=$((J * 3 / 8)) TARGETS=$TGT bash bench/gpu/build_prover.sh build-ptx80 > "$OUT/build-ptx80.txt" 2>&1 &
  p2=$!
  wait $p1; r1=$?; wait $p2; r2=$?
  echo "fat rc=$r1, ptx80 rc=$r2 ($(t))"
  [ $r1 = 0 ] || tail -20 "$OUT/build-fat.txt"
  [ $r2 = 0 ] || tail -20 "$OUT/build-ptx80.txt"
  for b in fat ptx80; do
    echo "-- build-$b/gpu_prover_check: cuobjdump --list-elf / --list-ptx"
    cuobjdump --list-elf "build-$b/gpu_prover_check" 2>&1 | grep -o 'sm_[0-9]*a\?' | sort | uniq -c | tr '\n' ' '; echo
    cuobjdump --list-ptx "build-$b/gpu_prover_check" 2>&1 | grep -o 'sm_[0-9]*a\?' | sort | uniq -c | tr '\n' ' '; echo
  done
fi
[ "$PHASE" = build ] && exit 0
declare -A RC SEC
run() {  # name, then the command
  local name=$1 s
  shift
  s=$(date +%s)
  timeout 400 "$@" > "$OUT/$name.txt" 2>&1
  RC[$name]=$?
  SEC[$name]=$(( $(date +%s) - s ))
  echo "== $name rc=${RC[$name]} ${SEC[$name]} s ($(t))"
  tail -3 "$OUT/$name.txt" | cut -c1-160
}
for b in fat ptx80; do
  run "devices-$b" "build-$b/gpu_devices"
  run "prover_check-$b" "build-$b/gpu_prover_check" --quick
  run "gpu_check-$b" "build-$b/gpu_check" --quick
  # shellcheck disable=SC2086
  run "bench-$b" "build-$b/bench_prover" ${BENCH_ARGS:---logs 24,26 --reps 3}
done
echo
echo "| build | gpu_devices | gpu_prover_check --quick | gpu_check --quick | bench_prover |"
echo "|---|---|---|---|---|"
for b in fat ptx80; do
  res() { [ "${RC[$1]}" = 0 ] && echo "pass (${SEC[$1]} s)" || echo "FAIL rc=${RC[$1]}"; }
  echo "| $b | $(res devices-$b) | $(res prover_check-$b) $(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$OUT/prover_check-$b.txt" | tail -1) | $(res gpu_check-$b) | $(res bench-$b) |"
done
for b in fat ptx80; do
  echo "-- bench_prover $b"
  grep -v " run [0-9]" "$OUT/bench-$b.txt" | tail -8
done
