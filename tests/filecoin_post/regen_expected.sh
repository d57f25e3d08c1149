#!/usr/bin/env bash
# Regenerate tests/filecoin_post/expected/ from post_oracle.py (the C++ PoSt tests read these files
# so they need no Python): cases.txt lists each case's arguments, <name>.txt (or <name>.head.txt for
# 32/64 GiB partitions) holds `post_oracle.py inputs` stdout, digests.txt its line count and SHA-256.
# Cross-checks every written .txt against the `inputs` CLI, then runs the selftest.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$HERE/expected"
rm -rf "$OUT"
python3 "$HERE/post_oracle.py" write-expected "$OUT"
# The CLI must print what the files say (the same code path a C++ test is compared against).
while read -r name code part rand sectors; do
  [[ "$name" == \#* || -z "$name" ]] && continue
  # shellcheck disable=SC2086
  got="$(python3 "$HERE/post_oracle.py" inputs --code "$code" --partition "$part" --randomness "$rand" --sector $sectors | sha256sum | cut -d' ' -f1)"
  want="$(awk -v n="$name" '$1 == n { print $3 }' "$OUT/digests.txt")"
  [[ "$got" == "$want" ]] || { echo "regen_expected: $name: CLI output differs from digests.txt" >&2; exit 1; }
  if [[ -f "$OUT/$name.txt" ]]; then
    echo "$(sha256sum < "$OUT/$name.txt" | cut -d' ' -f1)" | grep -qx "$want" \
      || { echo "regen_expected: $name.txt differs from digests.txt" >&2; exit 1; }
  fi
done < "$OUT/cases.txt"
ls -l "$OUT"
python3 "$HERE/post_oracle.py" selftest | tail -1
