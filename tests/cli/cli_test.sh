#!/usr/bin/env bash
# cuzk CLI end-to-end cases; run by ctest as `cli_test.sh CASE` with CUZK, ROOT and WORK set.
# Each check prints what it did; the first failure exits non-zero with a message.
set -uo pipefail
CASE=$1
: "${CUZK:?}" "${ROOT:?}" "${WORK:?}"
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
NOBLE="$ROOT/tests/peers/noble_verify.mjs"
NOBLE_BP="$ROOT/tests/peers/noble_verify_bellperson.mjs"
FIX="$ROOT/tests/fixtures/snarkjs"
CIRCUITS=(mulchain multi_public linear bits)
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1

source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
snarkjs_ok() { "$SNARKJS" groth16 verify "$1" "$2" "$3" 2>&1 | grep -q "OK!"; }
# patch FILE OFFSET HEXBYTE : overwrite one byte (negative offset counts from the end)
patch() { python3 - "$@" <<'PY'
import sys
path, off, val = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 16)
b = bytearray(open(path, 'rb').read()); b[off] = val; open(path, 'wb').write(b)
PY
}

case "$CASE" in
snarkjs_interop)
  # cuzk proves every fixture circuit; snarkjs and noble accept. cuzk accepts snarkjs' proofs.
  for c in "${CIRCUITS[@]}"; do
    d="$FIX/$c"
    expect_exit 0 "$CUZK" prove --zkey "$d/$c.zkey" --wtns "$d/witness.wtns" --r1cs "$d/$c.r1cs" --proof p.json --public pub.json
    cmp -s pub.json "$d/public.json" || die "$c: public.json differs from snarkjs'"
    snarkjs_ok "$d/verification_key.json" pub.json p.json || die "$c: snarkjs rejects cuzk's proof"
    node "$NOBLE" "$d/verification_key.json" p.json pub.json >/dev/null || die "$c: noble rejects cuzk's proof"
    expect_exit 0 "$CUZK" verify --vk "$d/verification_key.json" --proof "$d/proof.json" --public "$d/public.json"
    expect_exit 0 "$CUZK" verify --vk "$d/verification_key.json" --proof p.json --public pub.json
    ok "$c: cuzk proof accepted by snarkjs and noble; snarkjs proof accepted by cuzk"
  done ;;
tampering)
  for c in "${CIRCUITS[@]}"; do
    d="$FIX/$c"
    expect_exit 1 "$CUZK" verify --vk "$d/verification_key.json" --proof "$d/proof.json" --public "$d/public_other.json"
    expect_exit 1 "$CUZK" verify --vk "$d/verification_key.json" --proof "$d/proof_other.json" --public "$d/public.json"
    # A valid proof of other inputs, then a proof with pi_a and pi_c swapped.
    python3 -c "
import json; p = json.load(open('$d/proof.json')); p['pi_a'], p['pi_c'] = p['pi_c'], p['pi_a']
json.dump(p, open('swapped.json', 'w'))"
    expect_exit 1 "$CUZK" verify --vk "$d/verification_key.json" --proof swapped.json --public "$d/public.json"
    # Public input + 1.
    python3 -c "
import json; v = json.load(open('$d/public.json')); v[-1] = str((int(v[-1]) + 1) % 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001); json.dump(v, open('bumped.json', 'w'))"
    expect_exit 1 "$CUZK" verify --vk "$d/verification_key.json" --proof "$d/proof.json" --public bumped.json
    # A witness for other inputs proves fine, but not against the first public inputs.
    expect_exit 0 "$CUZK" prove --zkey "$d/$c.zkey" --wtns "$d/witness_other.wtns" --proof po.json --public ppo.json
    expect_exit 1 "$CUZK" verify --vk "$d/verification_key.json" --proof po.json --public "$d/public.json"
    snarkjs_ok "$d/verification_key.json" "$d/public.json" po.json && die "$c: snarkjs accepts a proof for other inputs"
    ok "$c: tampered proofs and public inputs rejected"
  done ;;
setup_zkey)
  # cuzk's test-only zkey is usable by snarkjs, and vice versa.
  for c in mulchain bits; do
    d="$FIX/$c"
    expect_exit 0 "$CUZK" setup --r1cs "$d/$c.r1cs" --zkey k.zkey --vk-json vk.json --seed 7
    "$SNARKJS" groth16 prove k.zkey "$d/witness.wtns" sp.json spub.json >/dev/null 2>&1 || die "snarkjs cannot prove with cuzk's zkey"
    snarkjs_ok vk.json spub.json sp.json || die "$c: snarkjs proof with cuzk zkey rejected by snarkjs"
    expect_exit 0 "$CUZK" verify --vk vk.json --proof sp.json --public spub.json
    expect_exit 0 "$CUZK" prove --zkey k.zkey --wtns "$d/witness.wtns" --proof cp.json --public cpub.json
    snarkjs_ok vk.json cpub.json cp.json || die "$c: cuzk proof with cuzk zkey rejected by snarkjs"
    "$SNARKJS" zkey export verificationkey k.zkey vk2.json >/dev/null 2>&1 || die "snarkjs cannot read cuzk's zkey"
    snarkjs_ok vk2.json cpub.json cp.json || die "$c: vk exported by snarkjs rejects the proof"
    ok "$c: cuzk setup zkey works with snarkjs prove/verify/export"
  done ;;
bellperson_params)
  for c in mulchain multi_public; do
    d="$FIX/$c"
    expect_exit 0 "$CUZK" setup --r1cs "$d/$c.r1cs" --out keys --seed 11
    expect_exit 0 "$CUZK" prove --params "keys/$c.params" --r1cs "$d/$c.r1cs" --wtns "$d/witness.wtns" --out proof.bin --public pub.json
    [ "$(stat -c %s proof.bin)" -eq 192 ] || die "proof.bin is not 192 bytes"
    expect_exit 0 "$CUZK" verify --vk "keys/$c.vk" --proof proof.bin --public pub.json
    node "$NOBLE_BP" "keys/$c.vk" proof.bin pub.json >/dev/null || die "$c: noble rejects the bellperson-format proof"
    expect_exit 1 "$CUZK" verify --vk "keys/$c.vk" --proof proof.bin --public "$d/public_other.json"
    python3 -c "import json; print(json.dumps([json.load(open('pub.json'))] * 2))" > inputs2.json
    cat proof.bin proof.bin > proof2.bin
    expect_exit 0 "$CUZK" verify --vk "keys/$c.vk" --proof proof2.bin --inputs inputs2.json
    node "$NOBLE_BP" "keys/$c.vk" proof2.bin inputs2.json >/dev/null || die "$c: noble rejects 2 partitions"
    expect_error "partition" "$CUZK" verify --vk "keys/$c.vk" --proof proof2.bin --public pub.json
    ok "$c: bellperson .params/.vk from cuzk setup prove and verify (cuzk and noble)"
  done ;;
bad_inputs)
  d="$FIX/mulchain"
  cp "$d/mulchain.zkey" z.zkey; head -c 5000 z.zkey > trunc.zkey
  expect_error "trunc.zkey" "$CUZK" prove --zkey trunc.zkey --wtns "$d/witness.wtns" --proof p.json --public pub.json
  head -c 100 "$d/witness.wtns" > trunc.wtns
  expect_error "trunc.wtns" "$CUZK" prove --zkey "$d/mulchain.zkey" --wtns trunc.wtns --proof p.json --public pub.json
  head -c 300 "$d/mulchain.r1cs" > trunc.r1cs
  expect_error "trunc.r1cs" "$CUZK" prove --zkey "$d/mulchain.zkey" --wtns "$d/witness.wtns" --r1cs trunc.r1cs --proof p.json --public pub.json
  cp "$d/mulchain.zkey" magic.zkey; patch magic.zkey 0 41
  expect_error "magic.zkey" "$CUZK" prove --zkey magic.zkey --wtns "$d/witness.wtns" --proof p.json --public pub.json
  expect_error "witness has" "$CUZK" prove --zkey "$d/mulchain.zkey" --wtns "$FIX/bits/witness.wtns" --proof p.json --public pub.json
  expect_error "does not belong" "$CUZK" prove --zkey "$FIX/bits/bits.zkey" --wtns "$FIX/bits/witness.wtns" --r1cs "$FIX/linear/linear.r1cs" --proof p.json --public pub.json
  cp "$d/witness.wtns" bad.wtns; patch bad.wtns -5 7f   # corrupt the last witness value
  expect_error "does not satisfy constraint" "$CUZK" prove --zkey "$d/mulchain.zkey" --wtns bad.wtns --r1cs "$d/mulchain.r1cs" --proof p.json --public pub.json
  expect_error "self-verification" "$CUZK" prove --zkey "$d/mulchain.zkey" --wtns bad.wtns --proof p.json --public pub.json
  [ -e p.json ] && die "a proof was written for an unsatisfying witness"
  # A zkey point off the curve: flip a byte inside the A section's first point. Find it by parsing.
  off=$(python3 - "$d/mulchain.zkey" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read(); pos = 12
while pos < len(b):
    sid, size = struct.unpack_from('<IQ', b, pos); pos += 12
    if sid == 5: print(pos + 100); break
    pos += size
PY
)
  cp "$d/mulchain.zkey" offcurve.zkey; patch offcurve.zkey "$off" 5a
  expect_error "offcurve.zkey" "$CUZK" prove --zkey offcurve.zkey --wtns "$d/witness.wtns" --proof p.json --public pub.json
  echo '{"pi_a": ["1", "2"' > broken.json
  expect_error "broken.json" "$CUZK" verify --vk "$d/verification_key.json" --proof broken.json --public "$d/public.json"
  python3 -c "
import json; p = json.load(open('$d/proof.json')); p['pi_a'][1] = str(int(p['pi_a'][1]) + 1); json.dump(p, open('offcurve.json', 'w'))"
  expect_error "offcurve.json" "$CUZK" verify --vk "$d/verification_key.json" --proof offcurve.json --public "$d/public.json"
  echo '["1"]' > short_pub.json
  expect_error "public inputs" "$CUZK" verify --vk "$d/verification_key.json" --proof "$d/proof.json" --public short_pub.json
  echo '["5243587517512619047944774050818596583769055250052763782260365869993858118451300"]' > big_pub.json
  expect_error "big_pub.json" "$CUZK" verify --vk "$d/verification_key.json" --proof "$d/proof.json" --public big_pub.json
  head -c 100 "$d/verification_key.json" > trunc_vk.json
  expect_error "trunc_vk.json" "$CUZK" verify --vk trunc_vk.json --proof "$d/proof.json" --public "$d/public.json"
  head -c 150 /dev/zero > zero.bin
  expect_error "192" "$CUZK" verify --vk "$d/verification_key.json" --proof zero.bin --public "$d/public.json"
  # Every prefix length class of the zkey gives an error, never a crash.
  size=$(stat -c %s "$d/mulchain.zkey")
  for n in 0 3 11 23 40 200 1000 $((size / 3)) $((size / 2)) $((size - 1)); do
    head -c "$n" "$d/mulchain.zkey" > cut.zkey
    expect_exit 2 "$CUZK" prove --zkey cut.zkey --wtns "$d/witness.wtns" --proof p.json --public pub.json
  done
  ok "truncated zkeys at 10 lengths rejected"
  expect_exit 2 "$CUZK" prove --zkey "$d/mulchain.zkey"
  ok "usage errors exit 2" ;;
params_inspect)
  "$CUZK" params list > stems.txt || die "params list failed"
  [ "$(wc -l < stems.txt)" -eq 22 ] || die "params list: $(wc -l < stems.txt) stems, want 22"
  grep -qx 'v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820' stems.txt \
    || die "32 GiB PoRep stem missing"
  "$CUZK" params list --files > files.txt
  [ "$(wc -l < files.txt)" -eq 44 ] || die "params list --files: want 44 names"
  mkdir -p cache
  expect_exit 0 "$CUZK" params verify cache
  grep -q "44 MISSING" out.txt || die "params verify: $(tail -1 out.txt)"
  # A file with a registered name but garbage content is BAD.
  stem=$(head -1 stems.txt)
  head -c 5000 /dev/urandom > "cache/$stem.vk"
  expect_exit 1 "$CUZK" params verify cache
  grep -q "^BAD" out.txt || die "params verify did not flag the garbage .vk"
  expect_error "not-a-dir" "$CUZK" params verify not-a-dir
  expect_exit 0 "$CUZK" setup --r1cs "$FIX/mulchain/mulchain.r1cs" --out keys --seed 1
  expect_exit 0 "$CUZK" inspect keys/mulchain.params
  grep -q "h" out.txt || die "inspect printed nothing useful"
  for f in "$FIX/mulchain/mulchain.zkey" "$FIX/mulchain/mulchain.r1cs" "$FIX/mulchain/witness.wtns" keys/mulchain.vk; do
    expect_exit 0 "$CUZK" inspect "$f"
  done
  head -c 1000 keys/mulchain.params > cut.params
  expect_error "cut.params" "$CUZK" inspect cut.params
  ok "params list/verify and inspect"
  # PoRep circuit sizes (counting mode), the published numbers (rows before bellperson's input rows).
  [ "$("$CUZK" porep stats --registered-proof StackedDrg2KiBV1)" = "rows=2687921 inputs=40 aux=2685673 domain=2^22" ] \
    || die "porep stats 2KiB"
  [ "$("$CUZK" porep stats --registered-proof StackedDrg32GiBV1_1)" = "rows=130278541 inputs=328 aux=130169893 domain=2^27" ] \
    || die "porep stats 32GiB"
  expect_exit 2 "$CUZK" porep stats --registered-proof NoSuchProof
  ok "porep stats" ;;
*) die "unknown case $CASE" ;;
esac
echo "PASS: $CASE"
