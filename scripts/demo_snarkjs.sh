#!/usr/bin/env bash
# The generic Groth16 path on the CPU backend, without the daemon: compile a small circom circuit,
# set it up with snarkjs (a local, test-only powers-of-tau ceremony), prove it with `cuzk prove`,
# and verify the proof with both `cuzk verify` and `snarkjs groth16 verify`. Everything lands in
# out/demo_snarkjs/. (The main command, scripts/demo.sh, proves Filecoin PoRep C2 through the daemon.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test-peers >/dev/null  # snarkjs and circom2 run on Node >= 20.19
source scripts/deps-env.sh
NODE=$(cuzk_node)
PATH="$(dirname "$NODE"):$PATH"
export PATH
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$(cuzk_cuda_archs)" >/dev/null
cmake --build "$BUILD" --target cuzk -j"$(nproc)"
CUZK="$PWD/$BUILD/src/apps/cuzk/cuzk"
SNARKJS="$PWD/node_modules/.bin/snarkjs"
CIRCOM="$PWD/node_modules/.bin/circom2"

OUT=out/demo_snarkjs
mkdir -p "$OUT"
cd "$OUT"
step() { printf '\n== %s\n' "$*"; }

step "compile circuit (circom 2, BLS12-381): MulChain(200), public input a"
cp ../../tests/peers/circuits/mulchain.circom .
"$CIRCOM" mulchain.circom --r1cs --wasm --prime bls12381 -o . >/dev/null
"$SNARKJS" r1cs info mulchain.r1cs | sed 's/^/   /'
echo '{"a": "3", "b": "11"}' > input.json
node mulchain_js/generate_witness.js mulchain_js/mulchain.wasm input.json witness.wtns

step "snarkjs setup (test-only ceremony, power 8; cached in out/demo_snarkjs)"
if [ ! -f pot8_final.ptau ]; then
  "$SNARKJS" powersoftau new bls12-381 8 pot8_0.ptau >/dev/null
  "$SNARKJS" powersoftau contribute pot8_0.ptau pot8_1.ptau --name=demo -e="cuzk demo entropy" >/dev/null
  "$SNARKJS" powersoftau prepare phase2 pot8_1.ptau pot8_final.ptau >/dev/null
fi
"$SNARKJS" groth16 setup mulchain.r1cs pot8_final.ptau mulchain_0.zkey >/dev/null
"$SNARKJS" zkey contribute mulchain_0.zkey mulchain.zkey --name=demo -e="more demo entropy" >/dev/null
"$SNARKJS" zkey export verificationkey mulchain.zkey verification_key.json >/dev/null

step "cuzk prove (CPU backend)"
"$CUZK" prove --zkey mulchain.zkey --wtns witness.wtns --r1cs mulchain.r1cs --proof proof.json --public public.json

step "cuzk verify"
"$CUZK" verify --vk verification_key.json --proof proof.json --public public.json

step "snarkjs groth16 verify (independent implementation)"
"$SNARKJS" groth16 verify verification_key.json public.json proof.json

printf '\ndemo_snarkjs: OK — proof in %s/proof.json verified by cuzk and by snarkjs\n' "$OUT"
