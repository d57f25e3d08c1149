#!/usr/bin/env bash
# cuzk prove vs snarkjs groth16 prove on the same circuit, same key, same machine, one run.
#
#   bench/prove_vs_snarkjs.sh [N] [RUNS]     N = MulChain constraints (default 65530 -> domain 2^16)
#
# The key is a TEST-ONLY zkey made by `cuzk setup` (a snarkjs ceremony at 2^16 takes ~1 h on 2 cores);
# snarkjs proves with it and both tools' proofs are checked by `snarkjs groth16 verify`.
# Prints a table of wall times (best and median of RUNS) and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-65530}
RUNS=${2:-3}
BUILD=${BUILD:-build}
cmake --build "$BUILD" --target cuzk >/dev/null
CUZK="$PWD/$BUILD/src/apps/cuzk/cuzk"
SNARKJS="$PWD/node_modules/.bin/snarkjs"
CIRCOM="$PWD/node_modules/.bin/circom2"
W=out/bench_prove_$N
mkdir -p "$W"
cd "$W"

if [ ! -f witness.wtns ]; then
  sed "s/MulChain(200)/MulChain($N)/" ../../tests/peers/circuits/mulchain.circom > mulchain.circom
  "$CIRCOM" mulchain.circom --r1cs --wasm --prime bls12381 -o . >/dev/null
  echo '{"a": "3", "b": "7"}' > input.json
  node mulchain_js/generate_witness.js mulchain_js/mulchain.wasm input.json witness.wtns
fi
if [ ! -f key.zkey ]; then
  /usr/bin/time -f "cuzk setup: %e s" "$CUZK" setup --r1cs mulchain.r1cs --zkey key.zkey --vk-json vk.json --seed 1
fi

now() { date +%s.%N; }
time_runs() {  # label cmd... -> prints "best median" seconds
  local ts=()
  for _ in $(seq "$RUNS"); do
    local t0 t1
    t0=$(now)
    "$@" >/dev/null
    t1=$(now)
    ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')")
  done
  printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f %.3f\n", a[1], a[int((NR+1)/2)]}'
}

read -r cz_best cz_med < <(time_runs "$CUZK" prove --zkey key.zkey --wtns witness.wtns --proof cuzk_proof.json --public cuzk_public.json)
read -r sj_best sj_med < <(time_runs "$SNARKJS" groth16 prove key.zkey witness.wtns snarkjs_proof.json snarkjs_public.json)

"$SNARKJS" groth16 verify vk.json cuzk_public.json cuzk_proof.json | grep -q OK || { echo "cuzk proof rejected by snarkjs"; exit 1; }
"$SNARKJS" groth16 verify vk.json snarkjs_public.json snarkjs_proof.json | grep -q OK || { echo "snarkjs proof rejected"; exit 1; }
"$CUZK" verify --vk vk.json --proof snarkjs_proof.json --public snarkjs_public.json >/dev/null

cores=$(nproc)
printf '\nGroth16 prove, MulChain(%s) on BLS12-381, %s cores, %s runs each (wall seconds, whole CLI)\n' "$N" "$cores" "$RUNS"
printf '| prover | best s | median s |\n|---|---|---|\n'
printf '| cuzk prove (CPU) | %s | %s |\n' "$cz_best" "$cz_med"
printf '| snarkjs 0.7.6 groth16 prove | %s | %s |\n' "$sj_best" "$sj_med"
printf 'ratio snarkjs/cuzk (median): %.1fx   both proofs verified by snarkjs and cuzk\n' "$(awk -v a="$sj_med" -v b="$cz_med" 'BEGIN {print a / b}')"
