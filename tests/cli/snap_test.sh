#!/usr/bin/env bash
# SnapDeals (EmptySectorUpdate) end to end through the `cuzk` tool, on sectors sealed by `cuzk seal`
# and updated by `cuzk snap-encode`, with TEST-ONLY parameters (the snap_params_2k ctest fixture):
#   snap_stats      `snap stats` rows for the 5 registered update proofs (post-snap.md §4.2: 1,705,039,
#                   10,007,503, 57,450,479, 81,049,499 published or reproduced, 85,006,101 derived),
#                   5 inputs with ONE, the official parameter file names
#   snap_2k         seal → snap-encode → gen-vanilla snap → snap check → prove-snap → verify-snap OK →
#                   the independent noble verifier accepts the proof against `snap inputs`; verify-snap
#                   INVALID for a flipped proof byte and for other commitments
#   snap_tampering  no keys: snap-encode's input rules and folder checks; a changed tree-D leaf, an
#                   apex leaf, comm_c, a wrong comm_d_new / comm_r_old, swapped partitions (8 MiB, P=4)
#                   refused by `snap check` (exit 1, the reason named) and by prove-snap (exit 2,
#                   before any key load); malformed files and usage
#                   errors exit 2 with one line; SYNTHETIC TEST DATA at 32 GiB (both variants) checks
#   snap_8m         8 MiB (P = 4) end to end like snap_2k, with its own TEST-ONLY key (long: see CMake)
# Run by ctest as `snap_test.sh CASE` with CUZK, ROOT, WORK (PARAMS for snap_2k).
set -uo pipefail
CASE=$1
: "${CUZK:?}" "${ROOT:?}" "${WORK:?}"
NOBLE_BP="$ROOT/tests/peers/noble_verify_bellperson.mjs"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
TICKET=0101010101010101010101010101010101010101010101010101010101010100
MINER=1000
FF=ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
# Official SnapDeals parameter stems (filecoin-proofs parameters.json; post-snap.md §5).
STEM_2K=v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194
STEM_8M=v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63

# seal PROOF ID: a sector sealed with random data in folder sID.
seal() {
  expect_exit 0 "$CUZK" seal --registered-proof "$1" --random --rng-seed "$2" --ticket $TICKET --seed $TICKET \
    --miner-id $MINER --sector-id "$2" --out "s$2"
}
# jget FILE KEY
jget() { python3 -c "import json,sys;print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
# comms DIR2: the --comm-* flags of a snap-encode folder (or a --comm-out file).
comms() {
  local f=$1; [ -d "$f" ] && f=$f/comm.json
  echo --comm-r-old "$(jget "$f" comm_r_old)" --comm-r-new "$(jget "$f" comm_r_new)" --comm-d-new "$(jget "$f" comm_d_new)"
}
# vtool CMD ARGS: edits of a JSON vanilla file (array of base64 PartitionProof).
vtool() {
  python3 - "$@" <<'PY'
import base64, json, sys
cmd, src = sys.argv[1], sys.argv[2]
blobs = [bytearray(base64.b64decode(s)) for s in json.load(open(src))]
def out(path, bs): json.dump([base64.b64encode(bytes(b)).decode() for b in bs], open(path, 'w'))
# 2 KiB (post-snap.md §2.3): comm_c (32), u64 A = 8, 8 apex leaves (32 each), u64 C = 10, then 10
# ChallengeProofs of 1,476 bytes: proof_r_old (556: u32 tag, root, leaf, u64 levels, per level u64 7,
# 7 siblings, u64 index), proof_d_new (364: 6 binary levels), proof_r_new (556).
H, CP, RO, DN = 304, 1476, 556, 364
if cmd == 'flip':            # flip SRC DST BLOB OFFSET
    b, off = int(sys.argv[4]), int(sys.argv[5]); blobs[b][off] ^= 1; out(sys.argv[3], blobs)
elif cmd == 'swap':          # swap SRC DST I J: partitions I and J exchanged
    i, j = int(sys.argv[4]), int(sys.argv[5]); blobs[i], blobs[j] = blobs[j], blobs[i]; out(sys.argv[3], blobs)
elif cmd == 'truncate':      # truncate SRC DST: blob 0 one byte short
    blobs[0] = blobs[0][:-1]; out(sys.argv[3], blobs)
elif cmd == 'drop':          # drop SRC DST: the last partition left out
    out(sys.argv[3], blobs[:-1])
elif cmd == 'raw':           # raw SRC DST BLOB: the bincode itself
    open(sys.argv[3], 'wb').write(blobs[int(sys.argv[4])])
elif cmd == 'size':          # size SRC BLOB
    print(len(blobs[int(sys.argv[3])]))
PY
}
# noble_check VK PROOF UPDATE_PROOF P COMMS...: the independent verifier, inputs from `snap inputs`.
noble_check() {
  local vk=$1 proof=$2 up=$3 p=$4; shift 4
  local files=()
  for ((k = 0; k < p; k++)); do
    expect_exit 0 "$CUZK" snap inputs --update-proof "$up" "$@" --partition $k
    cp out.txt "inputs.$k.txt"; files+=("inputs.$k.txt")
  done
  python3 -c "import json,sys;print(json.dumps([[l.strip() for l in open(f)] for f in sys.argv[1:]]))" "${files[@]}" > inputs.json
  node "$NOBLE_BP" "$vk" "$proof" inputs.json >/dev/null || die "noble rejects $proof"
}

# update PROOF ID DATA_BYTES: seal sID, encode DATA_BYTES random bytes into uID, gen-vanilla v_ID.json,
# snap check OK.
update() {
  local proof=$1 id=$2 n=$3
  seal "$proof" "$id"
  python3 -c "import random,sys;random.seed($id);sys.stdout.buffer.write(random.randbytes($n))" > "d$id.bin"
  expect_exit 0 "$CUZK" snap-encode --sector "s$id" --data "d$id.bin" --out "u$id"
  for f in sealed data p_aux comm.json; do [ -s "u$id/$f" ] || die "snap-encode wrote no u$id/$f"; done
  [ "$(jget "u$id/comm.json" comm_r_old)" = "$(jget "s$id/comm.json" comm_r)" ] || die "comm_r_old is not the sealed comm_r"
  expect_exit 0 "$CUZK" gen-vanilla snap --sector "s$id" --updated "u$id" -o "v$id.json" --comm-out "c$id.json"
  for k in comm_r_old comm_r_new comm_d_new; do
    [ "$(jget "c$id.json" $k)" = "$(jget "u$id/comm.json" $k)" ] || die "--comm-out $k differs from snap-encode's"
  done
  # shellcheck disable=SC2046
  expect_exit 0 "$CUZK" snap check --update-proof "$(jget "u$id/comm.json" registered_update_proof)" $(comms "u$id") --vanilla "v$id.json"
  [ "$(cat out.txt)" = OK ] || die "snap check printed '$(cat out.txt)'"
}

# prove_flow NAME UPDATE_PROOF P STEM DIR2 VANILLA: prove-snap -> verify-snap (cuzk) -> noble.
prove_flow() {
  local name=$1 up=$2 p=$3 stem=$4 dir=$5 v=$6
  local c; read -ra c <<< "$(comms "$dir")"
  expect_exit 0 "$CUZK" prove-snap --update-proof "$up" "${c[@]}" --vanilla "$v" --params params --out "$name.bin" --backend auto
  [ "$(stat -c %s "$name.bin")" -eq $((192 * p)) ] || die "$name: proof is not 192 x $p bytes"
  [ "$(grep -c "partition [0-9]*: synthesis" err.txt)" -eq "$p" ] || die "$name: not one progress line per partition: $(cat err.txt)"
  local timing; timing=$(tail -1 err.txt)
  expect_exit 0 "$CUZK" verify-snap --update-proof "$up" "${c[@]}" --params params --proof "$name.bin"
  [ "$(cat out.txt)" = "OK ($up, $p partition proofs)" ] || die "$name: verify-snap printed '$(cat out.txt)'"
  # The issue's form: the same flags as prove-snap (--vanilla checked against the commitments too).
  expect_exit 0 "$CUZK" verify-snap --update-proof "$up" "${c[@]}" --vanilla "$v" --params params --proof "$name.bin"
  [ "$(cat out.txt)" = "OK ($up, $p partition proofs)" ] || die "$name: verify-snap --vanilla printed '$(cat out.txt)'"
  noble_check "params/$stem.vk" "$name.bin" "$up" "$p" "${c[@]}"
  ok "$name ($up, P=$p): proved, verified by cuzk and noble; $timing"
}

need_params() {
  : "${PARAMS:?}"
  ln -s "$PARAMS" params
  for e in params vk meta; do [ -e "params/$STEM_2K.$e" ] || die "params/$STEM_2K.$e: not under the official name"; done
}

case "$CASE" in
snap_stats)
  cat > want.txt <<'EOF'
0 rows=1705039 inputs=5 domain=2^21
1 rows=10007503 inputs=5 domain=2^24
2 rows=57450479 inputs=5 domain=2^26
3 rows=81049499 inputs=5 domain=2^27
4 rows=85006101 inputs=5 domain=2^27
EOF
  "$CUZK" snap list | awk '{print $1, $2}' > names.txt
  [ "$(wc -l < names.txt)" -eq 5 ] || die "snap list: $(wc -l < names.txt) proofs"
  : > got.txt
  while read -r code name; do
    expect_exit 0 "$CUZK" snap stats --update-proof "$name"
    echo "$code $name: $(tr '\n' ' ' < out.txt)"
    echo "$code $(head -1 out.txt | awk '{print $1, $2, $4}')" >> got.txt
    # The code names the same circuit.
    "$CUZK" snap stats --update-proof "$code" > bycode.txt 2>&1 || die "snap stats --update-proof $code failed"
    cmp -s out.txt bycode.txt || die "code $code and $name differ"
  done < names.txt
  diff want.txt got.txt || die "snap stats row counts differ from post-snap.md §4.2"
  # Every code's geometry (post-snap.md §3.5; tree R levels of 8-0-0 / 8-8-0 / 8-8-2) and official file
  # (parameters.json, §5).
  H=v28-empty-sector-update-merkletree-poseidon_hasher
  cat > want_files.txt <<EOF
0 partitions=1 challenges=10 apex_leaves=8 h=1 h_select=1 tree_r_levels=2 params=$H-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params
1 partitions=4 challenges=10 apex_leaves=128 h=10 h_select=8 tree_r_levels=6 params=$H-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.params
2 partitions=16 challenges=86 apex_leaves=128 h=10 h_select=8 tree_r_levels=8 params=$H-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.params
3 partitions=16 challenges=86 apex_leaves=128 h=10 h_select=8 tree_r_levels=10 params=$H-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params
4 partitions=16 challenges=86 apex_leaves=128 h=10 h_select=8 tree_r_levels=11 params=$H-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params
EOF
  for code in 0 1 2 3 4; do
    expect_exit 0 "$CUZK" snap stats --update-proof $code
    echo "$code $(sed -n 2p out.txt | cut -d' ' -f2-) $(grep '^params=' out.txt)" >> got_files.txt
  done
  diff want_files.txt got_files.txt || die "snap stats geometry or parameter names differ from post-snap.md §3.5 / §5"
  expect_exit 0 "$CUZK" snap stats --update-proof StackedDrg2KiBV1
  grep -qx "params=$STEM_2K.params" out.txt || die "2 KiB params file: $(cat out.txt)"
  grep -q "partitions=1 challenges=10 apex_leaves=8 h=1 h_select=1" out.txt || die "2 KiB geometry: $(cat out.txt)"
  expect_exit 0 "$CUZK" snap stats --update-proof StackedDrg8MiBV1
  grep -qx "params=$STEM_8M.params" out.txt || die "8 MiB params file: $(cat out.txt)"
  grep -q "partitions=4 challenges=10 apex_leaves=128 h=10 h_select=8" out.txt || die "8 MiB geometry: $(cat out.txt)"
  expect_exit 0 "$CUZK" snap stats --update-proof StackedDrg32GiBV1 --poseidon
  echo "32 GiB Poseidon: $(tr '\n' ' ' < out.txt)"
  head -1 out.txt | grep -q "^rows=22305906 inputs=5 " || die "32 GiB Poseidon rows: $(head -1 out.txt)"
  grep -q "^params=v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params$" out.txt \
    || die "32 GiB Poseidon params file: $(cat out.txt)"
  ok "snap stats: the 5 codes (2 KiB rows=1705039 … 64 GiB rows=85006101), 32 GiB Poseidon rows=22305906"
  expect_error "registered update proof 5 is unknown" "$CUZK" snap stats --update-proof 5
  expect_error "--update-proof" "$CUZK" snap stats --update-proof StackedDrg4KiBV1
  ;;
snap_2k)
  need_params
  expect_exit 0 "$CUZK" setup --update-proof 0 --out again --seed 7
  [ "$(head -1 out.txt)" = "again/$STEM_2K.params" ] || die "setup wrote $(head -1 out.txt)"
  cmp -s "again/$STEM_2K.vk" "params/$STEM_2K.vk" || die "setup --update-proof 0 differs from the fixture's StackedDrg2KiBV1"
  ok "setup --update-proof 0: the official 2 KiB SnapDeals files, vk = the fixture's"
  update StackedDrg2KiBV1_1 3 2032
  prove_flow snap2k StackedDrg2KiBV1 1 "$STEM_2K" u3 v3.json
  read -ra C <<< "$(comms u3)"
  # Tree D new is the SDR sealer's tree D of the same data: `cuzk seal --data` computes the same comm_d.
  expect_exit 0 "$CUZK" seal --registered-proof StackedDrg2KiBV1_1 --data d3.bin --ticket "$(printf %064x 1)" \
    --seed "$(printf %064x 2)" --out sd
  [ "$(jget sd/comm.json comm_d)" = "$(jget u3/comm.json comm_d_new)" ] || die "comm_d_new differs from seal's comm_d of the data"
  # The inputs: [k_and_h_select = 1, comm_r_old, comm_d_new, comm_r_new] as little-endian integers.
  python3 -c "
import json, sys
got = [int(l) for l in open('inputs.0.txt')]
j = json.load(open('u3/comm.json'))
le = lambda k: int.from_bytes(bytes.fromhex(j[k]), 'little')
sys.exit(got != [1, le('comm_r_old'), le('comm_d_new'), le('comm_r_new')])" \
    || die "snap inputs are not [1, comm_r_old, comm_d_new, comm_r_new]: $(cat inputs.0.txt)"
  ok "comm_d_new = seal's comm_d of the same data; inputs [1, comm_r_old, comm_d_new, comm_r_new]"
  for off in 0 60 150; do
    python3 -c "import sys;b=bytearray(open('snap2k.bin','rb').read());b[$off]^=1;open('flip.bin','wb').write(b)"
    expect_exit 1 "$CUZK" verify-snap --update-proof StackedDrg2KiBV1 "${C[@]}" --params params --proof flip.bin
    [ "$(cat out.txt)" = "INVALID (partition 0 of 1 does not verify)" ] || die "flipped byte $off: '$(cat out.txt)'"
  done
  # Another update of the same sector: its commitments do not verify this proof.
  read -ra C2 <<< "$(comms u3 | sed "s/$(jget u3/comm.json comm_d_new)/$(jget s3/comm.json comm_d)/")"
  expect_exit 1 "$CUZK" verify-snap --update-proof StackedDrg2KiBV1 "${C2[@]}" --params params --proof snap2k.bin
  ok "verify-snap INVALID for flipped proof bytes and another comm_d_new"
  head -c 191 snap2k.bin > short.bin
  expect_error "1 x 192" "$CUZK" verify-snap --update-proof StackedDrg2KiBV1 "${C[@]}" --params params --proof short.bin
  expect_error "cannot open" "$CUZK" verify-snap --update-proof StackedDrg2KiBV1 "${C[@]}" --params missing --proof snap2k.bin
  # Raw bincode vanilla input proves too, and the padded data file encodes to the same update.
  vtool raw v3.json v3.bin 0
  expect_exit 0 "$CUZK" prove-snap --update-proof StackedDrg2KiBV1 "${C[@]}" --vanilla v3.bin --params params --out raw.bin --backend cpu
  expect_exit 0 "$CUZK" verify-snap --update-proof StackedDrg2KiBV1 "${C[@]}" --params params --proof raw.bin
  ok "raw bincode vanilla proves and verifies (cpu backend)"
  # SYNTHETIC TEST DATA proves like a real update.
  expect_exit 0 "$CUZK" gen-vanilla snap --synthetic --update-proof StackedDrg2KiBV1 --seed 5 -o syn.json --comm-out syn.comm
  read -ra CS <<< "$(comms syn.comm)"
  expect_exit 0 "$CUZK" prove-snap --update-proof StackedDrg2KiBV1 "${CS[@]}" --vanilla syn.json --params params --out syn.bin
  expect_exit 0 "$CUZK" verify-snap --update-proof StackedDrg2KiBV1 "${CS[@]}" --params params --proof syn.bin
  noble_check "params/$STEM_2K.vk" syn.bin StackedDrg2KiBV1 1 "${CS[@]}"
  ok "synthetic 2 KiB update proves, verifies (cuzk, noble)"
  ;;
snap_8m)
  T0=$(date +%s)
  expect_exit 0 "$CUZK" setup --update-proof StackedDrg8MiBV1 --out params --seed 7
  ok "setup --update-proof StackedDrg8MiBV1: $(( $(date +%s) - T0 )) s"
  update StackedDrg8MiBV1_1 4 $((8 * 1024 * 1024 / 128 * 127))
  prove_flow snap8m StackedDrg8MiBV1 4 "$STEM_8M" u4 v4.json
  read -ra C <<< "$(comms u4)"
  python3 -c "import sys;b=bytearray(open('snap8m.bin','rb').read());b[2*192+7]^=1;open('flip.bin','wb').write(b)"
  expect_exit 1 "$CUZK" verify-snap --update-proof StackedDrg8MiBV1 "${C[@]}" --params params --proof flip.bin
  [ "$(cat out.txt)" = "INVALID (partition 2 of 4 does not verify)" ] || die "flipped partition 2: '$(cat out.txt)'"
  python3 -c "b=open('snap8m.bin','rb').read();open('sw.bin','wb').write(b[192:384]+b[:192]+b[384:])"
  expect_exit 1 "$CUZK" verify-snap --update-proof StackedDrg8MiBV1 "${C[@]}" --params params --proof sw.bin
  [ "$(cat out.txt)" = "INVALID (partition 0 of 4 does not verify)" ] || die "swapped partitions: '$(cat out.txt)'"
  ok "8 MiB: a flipped byte of partition 2 and swapped partition proofs are INVALID; total $(( $(date +%s) - T0 )) s"
  ;;
snap_tampering)
  # snap-encode's inputs: unpadded (≤ 2032 bytes, zero-filled) or exactly 2048 padded bytes.
  seal StackedDrg2KiBV1_1 3
  head -c 1000 /dev/urandom > d.bin
  expect_exit 0 "$CUZK" snap-encode --sector s3 --data d.bin --out u3
  expect_exit 0 "$CUZK" snap-encode --sector s3 --data u3/data --out u3p
  for k in comm_r_old comm_r_new comm_d_new comm_r_last_new; do
    [ "$(jget u3/comm.json $k)" = "$(jget u3p/comm.json $k)" ] || die "padded data: $k differs"
  done
  cmp -s u3/sealed u3p/sealed || die "padded data: another replica"
  python3 -c "
import json,sys
j=json.load(open('u3/comm.json')); p=open('u3/p_aux','rb').read()
assert len(p)==64 and p.hex()==j['comm_c']+j['comm_r_last_new'], 'p_aux is not comm_c || comm_r_last_new'
assert j['registered_update_proof']=='StackedDrg2KiBV1' and j['registered_update_proof_code']==0 and j['sector_size']==2048
for k in ('comm_r_old','comm_r_new','comm_d_new'): assert len(j[k])==64, k
" || die "u3: comm.json / p_aux"
  ok "snap-encode: unpadded and padded data give the same update; p_aux = comm_c || comm_r_last_new"
  head -c 2033 /dev/zero > big.bin
  expect_error "give at most 2032 unpadded bytes or exactly 2048" "$CUZK" snap-encode --sector s3 --data big.bin --out x
  python3 -c "open('ff.bin','wb').write(b'\xff'*2048)"
  expect_error "node 0 has its top two bits set" "$CUZK" snap-encode --sector s3 --data ff.bin --out x
  cp -r s3 s3bad && python3 -c "b=bytearray(open('s3bad/sealed','rb').read());b[100]^=1;open('s3bad/sealed','wb').write(b)"
  expect_error "tree R's root differs" "$CUZK" snap-encode --sector s3bad --data d.bin --out x
  expect_error "comm_r_last" "$CUZK" gen-vanilla snap --sector s3bad --updated u3 -o x.json
  cp -r u3 u3bad && sed -i "s/$(jget u3/comm.json comm_d_new)/$(jget s3/comm.json comm_d)/" u3bad/comm.json
  expect_error "\"comm_d_new\" differs" "$CUZK" gen-vanilla snap --sector s3 --updated u3bad -o x.json
  expect_exit 0 "$CUZK" gen-vanilla snap --sector s3 --updated u3 -o good.json
  P=StackedDrg2KiBV1
  read -ra C <<< "$(comms u3)"
  [ "$(vtool size good.json 0)" -eq 15064 ] || die "a 2 KiB partition proof is not 15,064 bytes"
  # refused FILE REASON [COMM FLAGS]: snap check exit 1, prove-snap exit 2 (no key loaded), both naming REASON.
  refused() {
    local f=$1 reason=$2; shift 2
    local c=("${C[@]}"); [ $# -gt 0 ] && c=("$@")
    local up=$P; [ "$f" = swapped.json ] && up=StackedDrg8MiBV1
    expect_exit 1 "$CUZK" snap check --update-proof $up "${c[@]}" --vanilla "$f"
    [ "$(cat out.txt)" = INVALID ] || die "$f: snap check printed '$(cat out.txt)'"
    [ "$(wc -l < err.txt)" -eq 1 ] || die "$f: reason is not one line: $(cat err.txt)"
    grep -qF -- "$reason" err.txt || die "$f: snap check reason lacks '$reason': $(cat err.txt)"
    local why; why=$(cat err.txt)
    expect_error "$reason" "$CUZK" prove-snap --update-proof $up "${c[@]}" --vanilla "$f" --params no-such-params --out x.bin
    [ -e x.bin ] && die "$f: a proof was written"
    ok "$f: $why"
  }
  # Challenge 3's tree-D leaf (proof_d_new.leaf at 304 + 3·1476 + 556 + 36), apex leaf 2, comm_c.
  vtool flip good.json leaf.json 0 $((304 + 3 * 1476 + 556 + 36 + 1))
  refused leaf.json "vanilla_proofs[0]: challenge_proofs[3].proof_d_new: the path does not hash to its root"
  vtool flip good.json apex.json 0 $((40 + 2 * 32 + 1))
  refused apex.json "apex_leafs: their apex root does not climb challenge_proofs[0]'s partition path to comm_d_new"
  vtool flip good.json commc.json 0 1
  refused commc.json "comm_r_old is not Poseidon(comm_c"
  # Wrong request commitments.
  refused good.json "partition path to comm_d_new" "${C[0]}" "${C[1]}" "${C[2]}" "${C[3]}" "${C[4]}" "$(jget s3/comm.json comm_d)"
  refused good.json "vanilla_proofs[0]: comm_r_old is not Poseidon(comm_c" "${C[0]}" "$(jget u3/comm.json comm_r_new)" "${C[2]}" "${C[3]}" "${C[4]}" "${C[5]}"
  # Swapped partitions of an 8 MiB update (P = 4, STRUCTURED SYNTHETIC TEST DATA).
  expect_exit 0 "$CUZK" gen-vanilla snap --synthetic --update-proof StackedDrg8MiBV1 --seed 1 -o syn8.json --comm-out syn8.comm
  grep -q "SYNTHETIC TEST DATA" err.txt || die "no SYNTHETIC TEST DATA note: $(cat err.txt)"
  read -ra C8 <<< "$(comms syn8.comm)"
  expect_exit 0 "$CUZK" snap check --update-proof StackedDrg8MiBV1 "${C8[@]}" --vanilla syn8.json
  # k_and_h_select = k | h_select << log2 P (post-snap.md §3.4): 8 MiB k + 32.
  expect_exit 0 "$CUZK" snap inputs --update-proof StackedDrg8MiBV1 "${C8[@]}"
  [ "$(cut -d' ' -f1 out.txt | tr '\n' ' ')" = "32 33 34 35 " ] || die "8 MiB k_and_h_select: $(cut -d' ' -f1 out.txt | tr '\n' ' ')"
  vtool swap syn8.json swapped.json 1 2
  refused swapped.json "vanilla_proofs[1]: challenge_proofs[0].proof_r_old: opens node" "${C8[@]}"
  # Malformed input: exit 2, one line.
  vtool truncate good.json trunc.json
  vtool drop syn8.json three.json
  printf '["@@@not base64"]' > notb64.json
  printf '[' > broken.json
  : > empty.json
  vtool raw good.json raw.bin 0; head -c 5000 raw.bin > rawtrunc.bin
  for f in trunc.json notb64.json broken.json empty.json rawtrunc.bin; do
    expect_exit 2 "$CUZK" snap check --update-proof $P "${C[@]}" --vanilla "$f"
    ok "$f: $(cat err.txt)"
  done
  expect_error "3 partition proofs, StackedDrg8MiBV1 has 4" "$CUZK" snap check --update-proof StackedDrg8MiBV1 "${C8[@]}" --vanilla three.json
  expect_exit 0 "$CUZK" snap check --update-proof $P "${C[@]}" --vanilla raw.bin
  expect_error "vanilla_proofs[0]" "$CUZK" snap check --update-proof StackedDrg8MiBV1 "${C8[@]}" --vanilla good.json good.json good.json good.json
  # Bad commitments and usage errors.
  expect_error "--comm-r-new: must be 64 hex digits" "$CUZK" snap check --update-proof $P "${C[@]:0:2}" --comm-r-new 00ff "${C[@]:4:2}" --vanilla good.json
  expect_error "comm_r_new" "$CUZK" snap inputs --update-proof $P "${C[@]:0:2}" --comm-r-new $FF "${C[@]:4:2}"
  expect_error "--partition 1: StackedDrg2KiBV1 has 1 partitions" "$CUZK" snap inputs --update-proof $P "${C[@]}" --partition 1
  expect_error "registered update proof 7 is unknown" "$CUZK" snap check --update-proof 7 "${C[@]}" --vanilla good.json
  expect_error "--comm-d-new" "$CUZK" snap check --update-proof $P "${C[@]:0:4}" --vanilla good.json
  expect_error "--sector DIR --updated DIR2" "$CUZK" gen-vanilla snap -o x.json
  expect_error "--synthetic needs --update-proof" "$CUZK" gen-vanilla snap --synthetic -o x.json
  expect_error "--data" "$CUZK" snap-encode --sector s3 --out x
  expect_error "cannot open" "$CUZK" prove-snap --update-proof $P "${C[@]}" --vanilla good.json --params no-such-params --out x.bin
  expect_error "--params DIR and --test-key-seed" "$CUZK" prove-snap --update-proof $P "${C[@]}" --vanilla good.json --out x.bin
  expect_error "--proof" "$CUZK" verify-snap --update-proof $P "${C[@]}" --params no-such-params
  # SYNTHETIC TEST DATA at 32 GiB, both variants, passes the checks.
  expect_exit 0 "$CUZK" gen-vanilla snap --synthetic --update-proof StackedDrg32GiBV1 -o syn32.json --comm-out syn32.comm
  [ "$(vtool size syn32.json 15)" -eq 561768 ] || die "a 32 GiB partition proof is not 561,768 bytes"
  read -ra C32 <<< "$(comms syn32.comm)"
  expect_exit 0 "$CUZK" snap check --update-proof StackedDrg32GiBV1 "${C32[@]}" --vanilla syn32.json
  expect_exit 0 "$CUZK" snap inputs --update-proof StackedDrg32GiBV1 "${C32[@]}"
  [ "$(cut -d' ' -f1 out.txt | tr '\n' ' ')" = "$(seq -s ' ' 128 143) " ] || die "32 GiB k_and_h_select: $(cut -d' ' -f1 out.txt | tr '\n' ' ')"
  expect_exit 0 "$CUZK" gen-vanilla snap --synthetic --update-proof 3 --poseidon -o syn32p.json --comm-out syn32p.comm
  read -ra C32P <<< "$(comms syn32p.comm)"
  expect_exit 0 "$CUZK" snap check --update-proof 3 --poseidon "${C32P[@]}" --vanilla syn32p.json
  expect_exit 1 "$CUZK" snap check --update-proof 3 --poseidon "${C32[@]}" --vanilla syn32p.json
  ok "synthetic 32 GiB updates (16 partitions; Poseidon variant: one) check"
  ;;
*) die "unknown case $CASE" ;;
esac
echo "PASS: $CASE"
