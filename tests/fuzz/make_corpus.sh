#!/usr/bin/env bash
# Regenerates the seed corpora tests/fuzz/corpus/<name>/ (committed; all together ~330 KB) from the
# repository's fixtures and the `cuzk` tool's generators (SYNTHETIC TEST DATA: gen-c1, gen-vanilla,
# TEST-ONLY setup). Deterministic: the same cuzk gives the same files.
#   tests/fuzz/make_corpus.sh [CUZK]     CUZK: the cuzk binary (default build/src/apps/cuzk/cuzk)
# Harnesses whose first byte selects a mode (a registered proof, a variant, a file kind; see each
# fuzz_<name>.cpp) get that byte in front of each seed; the request harnesses (post_request,
# snap_request) take their blobs framed as u32 little-endian length + bytes (fuzz_common.hpp).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cuzk=${1:-$root/build/src/apps/cuzk/cuzk}
[ -x "$cuzk" ] || { echo "make_corpus: no cuzk binary at $cuzk (build first, or pass its path)" >&2; exit 2; }
fx=$root/tests/fixtures/snarkjs
out=$here/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out"

# seed NAME FILE SELECTOR-BYTE(hex, or - for none) SOURCE...: the selector byte, then the sources.
seed() {
  local name=$1 file=$2 sel=$3
  shift 3
  mkdir -p "$out/$name"
  if [ "$sel" = - ]; then : >"$out/$name/$file"; else printf "\\x$sel" >"$out/$name/$file"; fi
  local s
  for s in "$@"; do cat "$s" >>"$out/$name/$file"; done
}
# b64blobs JSON DIR: the base64 blobs of a vanilla-proof JSON array as DIR/0, DIR/1, ...
b64blobs() { python3 -c '
import base64, json, sys
for i, b in enumerate(json.load(open(sys.argv[1]))): open("%s/%d" % (sys.argv[2], i), "wb").write(base64.b64decode(b))
' "$1" "$2"; }
# frame OUT FILE...: each file as u32 LE length + bytes.
frame() { python3 -c '
import struct, sys
with open(sys.argv[1], "wb") as o:
    for p in sys.argv[2:]:
        b = open(p, "rb").read(); o.write(struct.pack("<I", len(b)) + b)
' "$@"; }
hex() { python3 -c 'import sys; open(sys.argv[2], "wb").write(bytes.fromhex(sys.argv[1]))' "$1" "$2"; }

q=(--threads 1)
# run CMD...: quiet unless it fails.
run() { "$@" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; echo "make_corpus: failed: $*" >&2; exit 1; }; }
# ---- PoRep C1: a SYNTHETIC 2 KiB C1 in each form.
run "$cuzk" gen-c1 --registered-proof StackedDrg2KiBV1_1 --format json --out "$tmp/c1.json" -q "${q[@]}"
run "$cuzk" gen-c1 --registered-proof StackedDrg2KiBV1_1 --format bincode --out "$tmp/c1.bin" -q "${q[@]}"
seed c1_json c1-2k.json - "$tmp/c1.json"
printf '{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":{"StackedDrg2KiBV1":[[]]},"comm_r":[]}' >"$tmp/head.json"
seed c1_json head.json - "$tmp/head.json"
seed c1_bincode c1-2k.bin - "$tmp/c1.bin"
# The Curio wrapper's own fields around a small (invalid) C1: the wrapper is what this harness adds;
# the C1 inside is c1_json's.
printf '{"SectorNum":7,"Phase1Out":"%s","SectorSize":2048}' "$(base64 -w0 <"$tmp/head.json")" >"$tmp/curio.json"
seed c1_curio wrapper.json - "$tmp/curio.json"
printf '{"Phase1Out":"e30=","SectorSize":34359738368,"SectorNum":-1}' >"$tmp/curio2.json"
seed c1_curio wrapper-order.json - "$tmp/curio2.json"
seed c1_any c1-2k.bin 00 "$tmp/c1.bin"
seed c1_any head.json 00 "$tmp/head.json"
seed c1_any curio.json 00 "$tmp/curio.json"
seed porep_request c1-2k.bin 00 "$tmp/c1.bin"

# ---- PoSt: SYNTHETIC sectors' FallbackPoStSectorProofs (randomness 11..11 01).
rnd=$(printf '11%.0s' $(seq 31))01
run "$cuzk" gen-vanilla window-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id 1000 --randomness "$rnd" \
  --synthetic 1 --raw -o "$tmp/w2k.raw" "${q[@]}"
run "$cuzk" gen-vanilla window-post --registered-proof StackedDrgWindow64GiBV1_1 --miner-id 1000 --randomness "$rnd" \
  --synthetic 1 --raw -o "$tmp/w64g.raw" "${q[@]}"
run "$cuzk" gen-vanilla window-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id 1000 --randomness "$rnd" \
  --synthetic 2 -o "$tmp/w2k.json" "${q[@]}"
seed post_vanilla window-2k.bin 00 "$tmp/w2k.raw"
seed post_vanilla window-64g.bin 03 "$tmp/w64g.raw"
mkdir -p "$tmp/w2k"
b64blobs "$tmp/w2k.json" "$tmp/w2k"
hex "$rnd" "$tmp/rnd"
frame "$tmp/w2k.framed" "$tmp/w2k/0" "$tmp/w2k/1"
printf '\x00\x00' >"$tmp/sel"
seed post_request window-2k-2sectors.bin - "$tmp/sel" "$tmp/rnd" "$tmp/w2k.framed"
run "$cuzk" gen-vanilla window-post --registered-proof StackedDrgWindow2KiBV1_1 --miner-id 1000 --randomness "$rnd" \
  --synthetic 1 -o "$tmp/w1.json" "${q[@]}"
seed vanilla_file window-2k.json - "$tmp/w1.json"
printf '[]' >"$tmp/empty.json"
seed vanilla_file empty.json - "$tmp/empty.json"

# ---- SnapDeals: SYNTHETIC 2 KiB partition proofs, both variants.
run "$cuzk" gen-vanilla snap --synthetic --update-proof StackedDrg2KiBV1 -o "$tmp/s.json" --comm-out "$tmp/s.comm" "${q[@]}"
run "$cuzk" gen-vanilla snap --synthetic --poseidon --update-proof StackedDrg2KiBV1 -o "$tmp/sp.json" "${q[@]}"
mkdir -p "$tmp/s" "$tmp/sp"
b64blobs "$tmp/s.json" "$tmp/s"
b64blobs "$tmp/sp.json" "$tmp/sp"
seed snap_vanilla partition-2k.bin 00 "$tmp/s/0"
seed snap_vanilla poseidon-2k.bin 01 "$tmp/sp/0"
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
open(sys.argv[2], "wb").write(b"\x00" + b"".join(bytes.fromhex(c[k]) for k in ("comm_r_old", "comm_r_new", "comm_d_new")))
' "$tmp/s.comm" "$tmp/s.head"
frame "$tmp/s.framed" "$tmp/s/0"
seed snap_request partition-2k.bin - "$tmp/s.head" "$tmp/s.framed"

# ---- bellperson: TEST-ONLY parameters of a small circuit, and a .meta.
run "$cuzk" setup --r1cs "$fx/multi_public/multi_public.r1cs" --out "$tmp/mp" --seed 7
seed bellperson_params multi_public.params - "$tmp/mp/multi_public.params"
seed bellperson_vk multi_public.vk 00 "$tmp/mp/multi_public.vk"
printf '{"sector_size":2048}' >"$tmp/meta"
seed bellperson_vk 2k.meta 01 "$tmp/meta"

# ---- snarkjs: the peers' fixtures (tests/peers/make_fixtures.sh).
seed snarkjs_zkey multi_public.zkey 00 "$fx/multi_public/multi_public.zkey"
seed snarkjs_r1cs multi_public.r1cs - "$fx/multi_public/multi_public.r1cs"
seed snarkjs_r1cs linear.r1cs - "$fx/linear/linear.r1cs"
seed snarkjs_wtns multi_public.wtns - "$fx/multi_public/witness.wtns"
seed snarkjs_wtns linear.wtns - "$fx/linear/witness.wtns"
seed snarkjs_json proof.json 00 "$fx/multi_public/proof.json"
seed snarkjs_json public.json 01 "$fx/multi_public/public.json"
seed snarkjs_json verification_key.json 02 "$fx/multi_public/verification_key.json"

# ---- the daemon's TOML configuration.
seed config example.toml 00 "$root/deploy/cuzk.example.toml"
printf '[memory]\ntotal_budget = "auto"\n[backend]\nkind = "auto"\n[gpus]\ndevices = [0, 1]\n' >"$tmp/small.toml"
seed config small-gpus.toml 01 "$tmp/small.toml"

echo "make_corpus: $(find "$out" -type f | wc -l) seeds, $(du -sb "$out" | cut -f1) bytes in $out"
