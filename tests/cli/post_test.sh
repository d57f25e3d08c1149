#!/usr/bin/env bash
# WindowPoSt and WinningPoSt end to end through the `cuzk` tool, on 2 KiB sectors sealed by `cuzk seal`
# with TEST-ONLY parameters (the post_params_2k ctest fixture):
#   seal -> gen-vanilla -> post check -> prove-post -> verify-post (cuzk, and the independent noble
#   verifier with the .vk and the inputs of `post inputs`, which equal the Python oracle's byte for
#   byte), for Window V1 (code 5, partitions 0 and 1), V1_1 (code 10) and Winning (code 0); `post
#   stats` for all 15 codes; tampering (a sibling, a leaf, comm_c, the randomness, a challenge
#   index, the sector order) refused by `post check` (exit 1) and `prove-post` (exit 2, before any
#   key load) with the reason named; malformed files exit 2 with one line.
# Run by ctest as `post_test.sh CASE` with CUZK, ROOT, WORK (and PARAMS for the proving cases) set.
set -uo pipefail
CASE=$1
: "${CUZK:?}" "${ROOT:?}" "${WORK:?}"
NOBLE_BP="$ROOT/tests/peers/noble_verify_bellperson.mjs"
ORACLE="$ROOT/tests/filecoin_post/post_oracle.py"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
TICKET=0101010101010101010101010101010101010101010101010101010101010100
RAND=0303030303030303030303030303030303030303030303030303030303030303
RAND2=0404040404040404040404040404040404040404040404040404040404040404
MINER=1000
# Official 2 KiB PoSt parameter stems (filecoin-proofs parameters.json).
WINDOW_STEM=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0
WINNING_STEM=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e

# seal ID: a 2 KiB sector with that id in folder sID.
seal() {
  expect_exit 0 "$CUZK" seal --registered-proof StackedDrg2KiBV1_1 --random --rng-seed "$1" --ticket $TICKET \
    --seed $TICKET --miner-id $MINER --sector-id "$1" --out "s$1"
}
comm_r() { python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['comm_r'])" "$1/comm.json"; }
# vtool CMD ARGS: edits of a JSON vanilla file (array of base64 FallbackPoStSectorProof).
vtool() {
  python3 - "$@" <<'PY'
import base64, json, sys
cmd, src = sys.argv[1], sys.argv[2]
blobs = [bytearray(base64.b64decode(s)) for s in json.load(open(src))]
def out(path, bs): json.dump([base64.b64encode(bytes(b)).decode() for b in bs], open(path, 'w'))
# 2 KiB (8-0-0, Single): 56-byte header, then 10 MerkleProofs of 556 bytes (u32 tag, root, leaf,
# u64 levels, per level u64 7, 7 siblings, u64 index), then comm_c, comm_r_last.
P0, PS = 56, 556
if cmd == 'flip':            # flip SRC DST BLOB OFFSET
    b, off = int(sys.argv[4]), int(sys.argv[5]); blobs[b][off] ^= 1; out(sys.argv[3], blobs)
elif cmd == 'swap-proofs':   # swap-proofs SRC DST: inclusion proofs j, j+1 of blob 0 swapped (two distinct leaves)
    b = blobs[0]
    j = next(j for j in range(9) if b[P0 + j * PS + 36:P0 + j * PS + 68] != b[P0 + (j + 1) * PS + 36:P0 + (j + 1) * PS + 68])
    x, y = b[P0 + j * PS:P0 + (j + 1) * PS], b[P0 + (j + 1) * PS:P0 + (j + 2) * PS]
    b[P0 + j * PS:P0 + (j + 2) * PS] = y + x; out(sys.argv[3], blobs); print(j)
elif cmd == 'swap-sectors':  # swap-sectors SRC DST
    out(sys.argv[3], blobs[::-1])
elif cmd == 'truncate':      # truncate SRC DST: blob 0 one byte short
    blobs[0] = blobs[0][:-1]; out(sys.argv[3], blobs)
elif cmd == 'raw':           # raw SRC DST BLOB: the bincode itself
    open(sys.argv[3], 'wb').write(blobs[int(sys.argv[4])])
PY
}
# noble_check VK PROOF INPUTS_TXT: the independent verifier with the inputs of `post inputs`.
noble_check() {
  python3 -c "import json,sys;print(json.dumps([l.strip() for l in open(sys.argv[1])]))" "$3" > inputs.json
  node "$NOBLE_BP" "$1" "$2" inputs.json >/dev/null || die "noble rejects $2"
}

# flow NAME PROOF PARTITION SECTOR_DIRS...: gen-vanilla -> check -> inputs (= oracle) -> prove -> verify (cuzk, noble).
flow() {
  local name=$1 proof=$2 k=$3; shift 3
  local kind=window-post stem=$WINDOW_STEM part=(--partition "$k")
  case $proof in StackedDrgWinning*) kind=winning-post; stem=$WINNING_STEM; part=() ;; esac
  local code; code=$("$CUZK" post list | awk -v p="$proof" '$2 == p {print $1}')
  local dirs=() sectors=() sorted
  for d in "$@"; do dirs+=(--sector "$d"); done
  # The public sectors in ascending id order (folders sID): the order gen-vanilla writes them in.
  mapfile -t sorted < <(printf '%s\n' "$@" | sort -V)
  for d in "${sorted[@]}"; do
    sectors+=(--sector "$(python3 -c "import json;print(json.load(open('$d/comm.json'))['sector_id'])"):$(comm_r "$d")")
  done
  expect_exit 0 "$CUZK" gen-vanilla $kind --registered-proof "$proof" "${dirs[@]}" --miner-id $MINER --randomness $RAND \
    "${part[@]}" -o "$name.json"
  expect_exit 0 "$CUZK" post check --registered-proof "$proof" --miner-id $MINER --randomness $RAND --vanilla "$name.json" "${part[@]}"
  [ "$(cat out.txt)" = OK ] || die "$name: post check printed '$(cat out.txt)'"
  # The oracle decodes and checks the same vanilla proofs independently (paths, comm_r, leaf indices).
  python3 "$ORACLE" decode --code "$code" --verify --randomness $RAND --partition "$k" "$name.json" >/dev/null \
    || die "$name: the oracle rejects gen-vanilla's proofs"
  expect_exit 0 "$CUZK" post inputs --registered-proof "$proof" --miner-id $MINER --randomness $RAND "${sectors[@]}" "${part[@]}"
  cp out.txt "$name.inputs"
  python3 "$ORACLE" inputs --code "$code" --randomness $RAND --partition "$k" "${sectors[@]}" > "$name.oracle" \
    || die "$name: oracle inputs failed"
  cmp -s "$name.inputs" "$name.oracle" || die "$name: post inputs differ from the oracle's"
  expect_exit 0 "$CUZK" prove-post --registered-proof "$proof" --miner-id $MINER --randomness $RAND --vanilla "$name.json" \
    --params params "${part[@]}" --out "$name.bin" --backend auto
  [ "$(stat -c %s "$name.bin")" -eq 192 ] || die "$name: proof is not 192 bytes"
  local timing; timing=$(tail -1 err.txt)
  expect_exit 0 "$CUZK" verify-post --registered-proof "$proof" --miner-id $MINER --randomness $RAND --vanilla "$name.json" \
    --params params "${part[@]}" --proof "$name.bin"
  [ "$(cat out.txt)" = OK ] || die "$name: verify-post printed '$(cat out.txt)'"
  noble_check "params/$stem.vk" "$name.bin" "$name.inputs"
  ok "$name ($proof, partition $k): checked, inputs = oracle ($(wc -l < "$name.inputs")), proved, verified by cuzk and noble; $timing"
}

need_params() {
  : "${PARAMS:?}"
  ln -s "$PARAMS" params
  for s in $WINDOW_STEM $WINNING_STEM; do
    for e in params vk meta; do [ -e "params/$s.$e" ] || die "params/$s.$e: not under the official name"; done
  done
}

case "$CASE" in
post_stats)
  # Every registered PoSt proof: rows before input rows, inputs with ONE, aux, domain.
  cat > want.txt <<'EOF'
0 rows=90750 inputs=133 aux=91674 domain=2^17
1 rows=230670 inputs=133 aux=233442 domain=2^18
2 rows=300630 inputs=133 aux=304326 domain=2^19
3 rows=370590 inputs=133 aux=375210 domain=2^19
4 rows=391314 inputs=133 aux=396000 domain=2^19
5 rows=21866 inputs=23 aux=22128 domain=2^15
6 rows=64266 inputs=23 aux=65088 domain=2^16
7 rows=85466 inputs=23 aux=86568 domain=2^17
8 rows=125279217 inputs=25840 aux=126902376 domain=2^27
9 rows=129887900 inputs=25301 aux=131500200 domain=2^27
10 rows=21866 inputs=23 aux=22128 domain=2^15
11 rows=64266 inputs=23 aux=65088 domain=2^16
12 rows=85466 inputs=23 aux=86568 domain=2^17
13 rows=125279217 inputs=25840 aux=126902376 domain=2^27
14 rows=129887900 inputs=25301 aux=131500200 domain=2^27
EOF
  "$CUZK" post list | awk '{print $1, $2}' > names.txt
  [ "$(wc -l < names.txt)" -eq 15 ] || die "post list: $(wc -l < names.txt) proofs"
  : > got.txt
  while read -r code name; do
    expect_exit 0 "$CUZK" post stats --registered-proof "$name"
    echo "$code $(cat out.txt)" >> got.txt
  done < names.txt
  diff want.txt got.txt || die "post stats counts differ"
  ok "post stats: all 15 codes (Window 32 GiB rows=125279217 inputs=25840 domain=2^27)"
  # The proofs-api alias and the code name the same circuit.
  expect_exit 0 "$CUZK" post stats --registered-proof StackedDrgWindow2KiBV1_2
  [ "$(cat out.txt)" = "rows=21866 inputs=23 aux=22128 domain=2^15" ] || die "alias: $(cat out.txt)"
  expect_error "unknown registered PoSt proof" "$CUZK" post stats --registered-proof StackedDrgWindow4KiBV1
  expect_error "registered PoSt proof 15 is unknown" "$CUZK" post stats --registered-proof 15
  ;;
post_window)
  need_params
  # `cuzk setup` under the proofs-api alias writes the same official file (seed 7, as the fixture).
  expect_exit 0 "$CUZK" setup --registered-proof StackedDrgWindow2KiBV1_2 --out alias --seed 7
  [ "$(head -1 out.txt)" = "alias/$WINDOW_STEM.params" ] || die "setup wrote $(head -1 out.txt)"
  cmp -s "alias/$WINDOW_STEM.vk" "params/$WINDOW_STEM.vk" || die "the alias' vk differs from the fixture's"
  ok "setup --registered-proof StackedDrgWindow2KiBV1_2: the official 2 KiB WindowPoSt files, vk = the fixture's"
  seal 3; seal 9
  flow w5p0 StackedDrgWindow2KiBV1 0 s9 s3
  flow w5p1 StackedDrgWindow2KiBV1 1 s3 s9
  flow w10 StackedDrgWindow2KiBV1_1 0 s3 s9
  # V1 challenges depend on the partition: partition 1's proofs fail as partition 0, and its proof
  # verifies only as partition 1.
  expect_exit 1 "$CUZK" post check --registered-proof StackedDrgWindow2KiBV1 --miner-id $MINER --randomness $RAND --vanilla w5p1.json
  grep -q "the proof opens leaf" err.txt || die "partition mix-up: $(cat err.txt)"
  expect_exit 1 "$CUZK" verify-post --registered-proof StackedDrgWindow2KiBV1 --miner-id $MINER --randomness $RAND \
    --vanilla w5p1.json --params params --proof w5p1.bin --partition 0
  [ "$(cat out.txt)" = INVALID ] || die "verify-post printed '$(cat out.txt)'"
  ok "partition 1's proofs and proof are not partition 0's"
  # Raw bincode files, several concatenated (the same proofs as the JSON array).
  vtool raw w10.json a.bin 0; vtool raw w10.json b.bin 1
  expect_exit 0 "$CUZK" post check --registered-proof StackedDrgWindow2KiBV1_1 --miner-id $MINER --randomness $RAND --vanilla a.bin b.bin
  expect_exit 0 "$CUZK" verify-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id $MINER --randomness $RAND \
    --vanilla a.bin --vanilla b.bin --params params --proof w10.bin
  expect_exit 0 "$CUZK" gen-vanilla window-post --registered-proof StackedDrgWindow2KiBV1_1 --sector s3 --miner-id $MINER \
    --randomness $RAND --raw -o raw3.bin
  cmp -s raw3.bin a.bin || die "gen-vanilla --raw differs from the JSON array's first blob"
  ok "raw bincode vanilla files, concatenated, check and verify"
  # A short partition (one sector, the circuit repeats it) proves and verifies.
  expect_exit 0 "$CUZK" prove-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id $MINER --randomness $RAND \
    --vanilla a.bin --params params --out one.bin
  expect_exit 0 "$CUZK" verify-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id $MINER --randomness $RAND \
    --vanilla a.bin --params params --proof one.bin
  ok "a one-sector partition proves and verifies"
  # Verification failures: a flipped proof byte, other randomness (exit 1); a wrong size (exit 2).
  for off in 0 60 150; do
    python3 -c "import sys;b=bytearray(open('w10.bin','rb').read());b[$off]^=1;open('flip.bin','wb').write(b)"
    expect_exit 1 "$CUZK" verify-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id $MINER --randomness $RAND \
      --vanilla w10.json --params params --proof flip.bin
    [ "$(cat out.txt)" = INVALID ] || die "flipped byte $off: '$(cat out.txt)'"
  done
  expect_exit 1 "$CUZK" verify-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id $MINER --randomness $RAND2 \
    --vanilla w10.json --params params --proof w10.bin
  ok "verify-post INVALID for flipped proof bytes and other randomness"
  head -c 191 w10.bin > short.bin
  expect_error "192" "$CUZK" verify-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id $MINER --randomness $RAND \
    --vanilla w10.json --params params --proof short.bin
  expect_error "cannot open" "$CUZK" verify-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id $MINER \
    --randomness $RAND --vanilla w10.json --params params-missing --proof w10.bin
  # SYNTHETIC TEST DATA sectors prove like sealed ones.
  expect_exit 0 "$CUZK" gen-vanilla window-post --registered-proof StackedDrgWindow2KiBV1_1 --synthetic 2 \
    --first-sector-id 40 --rng-seed 3 --miner-id $MINER --randomness $RAND -o syn.json
  grep -q "SYNTHETIC TEST DATA" err.txt || die "no SYNTHETIC TEST DATA note: $(cat err.txt)"
  expect_exit 0 "$CUZK" prove-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id $MINER --randomness $RAND \
    --vanilla syn.json --params params --out syn.bin --backend cpu
  expect_exit 0 "$CUZK" verify-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id $MINER --randomness $RAND \
    --vanilla syn.json --params params --proof syn.bin
  ok "synthetic 2 KiB sectors prove and verify"
  ;;
post_winning)
  need_params
  seal 5
  flow win0 StackedDrgWinning2KiBV1 0 s5
  expect_error "WinningPoSt proves exactly one sector" "$CUZK" post check --registered-proof StackedDrgWinning2KiBV1 \
    --miner-id $MINER --randomness $RAND --vanilla win0.json win0.json
  expect_error "exactly one" "$CUZK" gen-vanilla winning-post --registered-proof StackedDrgWinning2KiBV1 --sector s5 \
    --sector s5 --miner-id $MINER --randomness $RAND -o x.json
  expect_error "is a window-post proof" "$CUZK" gen-vanilla winning-post --registered-proof StackedDrgWindow2KiBV1 \
    --sector s5 --miner-id $MINER --randomness $RAND -o x.json
  expect_exit 1 "$CUZK" verify-post --registered-proof StackedDrgWinning2KiBV1 --miner-id $MINER --randomness $RAND2 \
    --vanilla win0.json --params params --proof win0.bin
  ok "winning: other randomness INVALID"
  # SYNTHETIC TEST DATA at production size: a 32 GiB WinningPoSt and a few 32 GiB WindowPoSt sectors check.
  expect_exit 0 "$CUZK" gen-vanilla winning-post --registered-proof StackedDrgWinning32GiBV1 --synthetic 1 \
    --miner-id $MINER --randomness $RAND -o syn_win.json
  grep -q "SYNTHETIC TEST DATA" err.txt || die "no SYNTHETIC TEST DATA note"
  expect_exit 0 "$CUZK" post check --registered-proof StackedDrgWinning32GiBV1 --miner-id $MINER --randomness $RAND --vanilla syn_win.json
  expect_exit 0 "$CUZK" gen-vanilla window-post --registered-proof StackedDrgWindow32GiBV1 --synthetic 4 --partition 3 \
    --miner-id $MINER --randomness $RAND -o syn_w8.json
  expect_exit 0 "$CUZK" post check --registered-proof StackedDrgWindow32GiBV1 --miner-id $MINER --randomness $RAND \
    --partition 3 --vanilla syn_w8.json
  python3 "$ORACLE" decode --code 8 --verify --randomness $RAND --partition 3 syn_w8.json >/dev/null \
    || die "the oracle rejects the synthetic 32 GiB sectors"
  ok "synthetic 32 GiB Winning and Window sectors pass cuzk's and the oracle's checks"
  ;;
post_tampering)
  # Needs no keys: every refusal happens before a key is loaded (--params names no directory).
  seal 3; seal 9
  P=StackedDrgWindow2KiBV1_1
  expect_exit 0 "$CUZK" gen-vanilla window-post --registered-proof $P --sector s3 --sector s9 --miner-id $MINER \
    --randomness $RAND -o good.json
  # refused FILE REASON [RANDOMNESS]: post check exit 1, prove-post exit 2, both naming REASON.
  refused() {
    local f=$1 reason=$2 r=${3:-$RAND}
    expect_exit 1 "$CUZK" post check --registered-proof $P --miner-id $MINER --randomness "$r" --vanilla "$f"
    [ "$(cat out.txt)" = INVALID ] || die "$f: post check printed '$(cat out.txt)'"
    [ "$(wc -l < err.txt)" -eq 1 ] || die "$f: reason is not one line: $(cat err.txt)"
    grep -qF -- "$reason" err.txt || die "$f: post check reason lacks '$reason': $(cat err.txt)"
    local why; why=$(cat err.txt)
    expect_error "$reason" "$CUZK" prove-post --registered-proof $P --miner-id $MINER --randomness "$r" --vanilla "$f" \
      --params no-such-params --out x.bin
    [ -e x.bin ] && die "$f: a proof was written"
    ok "$f: $why"
  }
  vtool flip good.json sibling.json 0 $((56 + 2 * 556 + 84 + 5))
  refused sibling.json "inclusion_proofs[2]: the path does not hash to its root"
  vtool flip good.json leaf.json 1 $((56 + 4 * 556 + 36 + 1))
  refused leaf.json "(sector 9).inclusion_proofs[4]: the path does not hash to its root"
  vtool flip good.json comm_c.json 0 $((5680 - 64 + 2))
  refused comm_c.json "comm_r is not Poseidon(comm_c, comm_r_last)"
  refused good.json "challenge 0: the proof opens leaf" $RAND2
  j=$(vtool swap-proofs good.json swapped.json)
  refused swapped.json "challenge $j: the proof opens leaf"
  vtool swap-sectors good.json order.json
  refused order.json "strictly ascending"
  # Malformed input: exit 2, one line, for post check, prove-post and verify-post alike.
  vtool truncate good.json trunc.json
  printf '["@@@not base64"]' > notb64.json
  printf '[1, 2]' > notstr.json
  printf '[' > broken.json
  : > empty.json
  vtool raw good.json raw.bin 0; head -c 5000 raw.bin > rawtrunc.bin
  for f in trunc.json notb64.json notstr.json broken.json empty.json rawtrunc.bin; do
    for c in "post check" "prove-post --params no-such-params --out x.bin" "verify-post --params no-such-params --proof good.json"; do
      # shellcheck disable=SC2086
      expect_exit 2 "$CUZK" $c --registered-proof $P --miner-id $MINER --randomness $RAND --vanilla "$f"
    done
    ok "$f: $(cat err.txt)"
  done
  # The proofs of a 2 KiB Window sector under another registered proof's shape.
  expect_error "vanilla_proofs[0] (sector 3)" "$CUZK" post check --registered-proof StackedDrgWindow8MiBV1 --miner-id $MINER \
    --randomness $RAND --vanilla good.json
  expect_error "vanilla_proofs[0]" "$CUZK" post check --registered-proof StackedDrgWinning2KiBV1 --miner-id $MINER \
    --randomness $RAND --vanilla raw.bin
  # Bad randomness and arguments.
  expect_error "--randomness: not a field element" "$CUZK" post check --registered-proof $P --miner-id $MINER \
    --randomness ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff --vanilla good.json
  expect_error "--randomness" "$CUZK" prove-post --registered-proof $P --miner-id $MINER --randomness 0303 \
    --vanilla good.json --params no-such-params --out x.bin
  expect_error "--randomness: not a field element" "$CUZK" post inputs --registered-proof $P --miner-id $MINER \
    --randomness ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff --sector "3:$(comm_r s3)"
  expect_error "ID:COMMR_HEX" "$CUZK" post inputs --registered-proof $P --miner-id $MINER --randomness $RAND --sector 3
  expect_error "comm_r" "$CUZK" post inputs --registered-proof $P --miner-id $MINER --randomness $RAND --sector 3:abcd
  expect_error "--partition 1: WinningPoSt" "$CUZK" post inputs --registered-proof StackedDrgWinning2KiBV1 --miner-id $MINER \
    --randomness $RAND --sector "3:$(comm_r s3)" --partition 1
  expect_error "more than the 2" "$CUZK" post inputs --registered-proof $P --miner-id $MINER --randomness $RAND \
    --sector "3:$(comm_r s3)" --sector "4:$(comm_r s3)" --sector "5:$(comm_r s3)"
  expect_error "proves sectors of 8388608" "$CUZK" gen-vanilla window-post --registered-proof StackedDrgWindow8MiBV1 \
    --sector s3 --miner-id $MINER --randomness $RAND -o x.json
  expect_error "--sector DIR" "$CUZK" gen-vanilla window-post --registered-proof $P --miner-id $MINER --randomness $RAND -o x.json
  # --backend cuda on a machine without a GPU (or a CPU-only build) is refused before any key load.
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    expect_error "backend cuda: " "$CUZK" prove-post --registered-proof $P --miner-id $MINER --randomness $RAND \
      --vanilla good.json --params no-such-params --out x.bin --backend cuda
  fi
  expect_error "cannot open" "$CUZK" prove-post --registered-proof $P --miner-id $MINER --randomness $RAND \
    --vanilla good.json --params no-such-params --out x.bin
  ;;
*) die "unknown case $CASE" ;;
esac
echo "PASS: $CASE"
