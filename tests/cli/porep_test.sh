#!/usr/bin/env bash
# PoRep C2 end to end through the `cuzk` tool, on a sealed 2 KiB sector with TEST-ONLY parameters:
#   seal -> (setup --registered-proof, by the ctest fixture) -> prove-porep -> verify-porep (cuzk and the independent noble
#   verifier, with the public inputs printed by `cuzk porep inputs`), then the failure modes: a
#   tampered proof or other miner is INVALID (exit 1); a corrupted C1 is refused before proving with
#   the failed check named (exit 2); wrong proof sizes and missing parameters are one-line errors.
# Run by ctest as `porep_test.sh CASE` with CUZK, ROOT and WORK set.
set -uo pipefail
CASE=$1
: "${CUZK:?}" "${ROOT:?}" "${WORK:?}" "${PARAMS:?}"  # PARAMS: 2 KiB test parameters (ctest fixture)
NOBLE_BP="$ROOT/tests/peers/noble_verify_bellperson.mjs"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
TICKET=0101010101010101010101010101010101010101010101010101010101010100
SEED=0202020202020202020202020202020202020202020202020202020202020200
P=StackedDrg2KiBV1_1

case "$CASE" in
porep_2kib)
  expect_exit 0 "$CUZK" seal --registered-proof $P --random --rng-seed 5 --ticket $TICKET --seed $SEED \
    --miner-id 1000 --sector-id 3 --out sector
  [ "$(stat -c %s sector/sealed)" -eq 2048 ] || die "sealed replica is not 2048 bytes"
  ok "sealed: $(cat out.txt)"
  # Fast failures first (before any key is loaded): a corrupted C1 is refused before any key is loaded.
  python3 - <<'PY' || die "could not make corrupted C1s"
import base64, json
w = json.load(open('sector/c1.json'))
c1 = json.loads(base64.b64decode(w['Phase1Out']))
proof = c1['vanilla_proofs']['StackedDrg2KiBV1'][0]
def write(name, mutate):
    c = json.loads(json.dumps(c1)); mutate(c)
    v = dict(w); v['Phase1Out'] = base64.b64encode(json.dumps(c, separators=(',', ':')).encode()).decode()
    json.dump(v, open(name, 'w'))
def label(c): c['vanilla_proofs']['StackedDrg2KiBV1'][0][0]['replica_column_proofs']['c_x']['column']['rows'][1][4] ^= 1
def sibling(c): c['vanilla_proofs']['StackedDrg2KiBV1'][0][1]['comm_r_last_proof']['data']['Single']['path']['path'][0]['hashes'][3][2] ^= 1
def comm_r(c): c['comm_r'][0] ^= 1
def challenge(c):
    p = c['vanilla_proofs']['StackedDrg2KiBV1'][0][0]
    for lp in p['labeling_proofs']: lp['node'] ^= 1
    p['encoding_proof']['node'] ^= 1
write('bad_label.json', label); write('bad_sibling.json', sibling)
write('bad_comm_r.json', comm_r); write('bad_challenge.json', challenge)
PY
  for f in bad_label bad_sibling bad_comm_r bad_challenge; do
    expect_exit 2 "$CUZK" prove-porep --c1 $f.json --params params --out x.bin
    ok "$f refused: $(cat err.txt)"
  done
  grep -q . err.txt || die "no error text"
  expect_error "cannot open" "$CUZK" prove-porep --c1 sector/c1.json --params params-missing --out x.bin
  # The shared prove driver: a key from exactly one of --params and --test-key-seed.
  expect_error "give exactly one of --params DIR and --test-key-seed N" "$CUZK" prove-porep --c1 sector/c1.json --out x.bin
  expect_error "give exactly one of --params DIR and --test-key-seed N" "$CUZK" prove-porep --c1 sector/c1.json \
    --params params-missing --test-key-seed 7 --out x.bin
  # Test parameters under the official names (made by the fixture with `cuzk setup`), then the proof.
  ln -s "$PARAMS" params
  ls params/v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params >/dev/null \
    || die "params not under the official 2 KiB PoRep name"
  # --backend cuda on a machine without a GPU (or a CPU-only build) is refused before any key load.
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    expect_error "backend cuda: " "$CUZK" prove-porep --c1 sector/c1.json --params params --out x.bin --backend cuda
    ok "--backend cuda without a GPU: $(cat err.txt)"
  fi
  expect_exit 0 "$CUZK" prove-porep --c1 sector/c1.json --params params --out proof.bin --backend auto
  [ "$(stat -c %s proof.bin)" -eq 192 ] || die "proof is not 192 bytes"
  ok "proved: $(tail -1 err.txt)"
  expect_exit 0 "$CUZK" verify-porep --c1 sector/c1.json --params params --proof proof.bin
  expect_exit 0 "$CUZK" verify-porep --c1 sector/c1.json --params params --proof proof.bin --miner-id 1000
  ok "cuzk verify-porep: $(cat out.txt)"
  # Independent check: noble verifies with the .vk and the inputs `cuzk porep inputs` derives.
  COMM_D=$(python3 -c "import json;print(json.load(open('sector/comm.json'))['comm_d'])")
  COMM_R=$(python3 -c "import json;print(json.load(open('sector/comm.json'))['comm_r'])")
  expect_exit 0 "$CUZK" porep inputs --registered-proof $P --miner-id 1000 --sector-id 3 --ticket $TICKET \
    --seed $SEED --comm-d "$COMM_D" --comm-r "$COMM_R"
  [ "$(grep -vc '^#' out.txt)" -eq 39 ] || die "porep inputs: expected 39 inputs, got $(grep -vc '^#' out.txt)"
  python3 -c "import json,sys;print(json.dumps([l.strip() for l in open('out.txt') if not l.startswith('#')]))" > inputs.json
  node "$NOBLE_BP" params/*.vk proof.bin inputs.json >/dev/null || die "noble rejects the PoRep proof"
  ok "noble verifies the PoRep proof with the derived public inputs"
  # Failure modes of verification.
  expect_exit 1 "$CUZK" verify-porep --c1 sector/c1.json --params params --proof proof.bin --miner-id 1001
  ok "other miner: $(cat out.txt)"
  python3 -c "
b = bytearray(open('proof.bin','rb').read()); c = bytearray(open('proof.bin','rb').read())
b[0:48], b[144:192] = c[144:192], c[0:48]
open('swapped.bin','wb').write(b)"
  expect_exit 1 "$CUZK" verify-porep --c1 sector/c1.json --params params --proof swapped.bin
  ok "A/C swapped: $(cat out.txt)"
  head -c 191 proof.bin > short.bin
  expect_error "192" "$CUZK" verify-porep --c1 sector/c1.json --params params --proof short.bin
  cat proof.bin proof.bin > long.bin
  expect_error "192" "$CUZK" verify-porep --c1 sector/c1.json --params params --proof long.bin
  # Another sector with the same parameters: the proof of one does not verify for the other.
  expect_exit 0 "$CUZK" seal --registered-proof $P --random --rng-seed 6 --ticket $TICKET --seed $SEED \
    --miner-id 1000 --sector-id 4 --out sector2
  expect_exit 1 "$CUZK" verify-porep --c1 sector2/c1.json --params params --proof proof.bin
  ok "a proof does not verify for another sector"
  ;;
*) die "unknown case $CASE" ;;
esac
echo "PASS: $CASE"
