#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz-corpus.sh BUILD_DIR — writes the fuzzer's seed corpus: small synthetic
# FS2 images from mkfs2, one per structural variant, FS3/FS4 images from mkfs3 and from
# the unit tests' builder (fs3seed), into BUILD_DIR/fuzz/corpus.
set -euo pipefail
B=${1:?usage: fuzz-corpus.sh BUILD_DIR}
M="$B/host/mkfs2"
OUT="$B/fuzz/corpus"
mkdir -p "$OUT"
small=(--ddr 1 --ddr-size 64)
i=0
while read -r opts; do
	# shellcheck disable=SC2086
	"$M" -o "$OUT/seed-$i.bin" "${small[@]}" $opts
	i=$((i + 1))
done <<'LIST'
--chip cx3
--chip cx3 --rev 0 --no-rom
--chip cx3pro --no-failsafe
--chip cx2 --old-guids
--chip cx3 --blank-guids
--chip cx3pro --no-mic --no-fw-conf
--chip cx3 --chunk-log 0 --dump 1 --flash-size 131072 --no-rom
--chip cx2 --chunk-log 0 --dump 0 --flash-size 131072 --no-rom
LIST
# A ROM file by itself (the ROM section's data), for rom_file_check's PCI image walk.
"$M" -o "$OUT/rom-src.tmp" "${small[@]}" --map "$OUT/rom-src.map"
read -r _ off size < <(grep '^sect_ROM ' "$OUT/rom-src.map")
# dd, not tail | head: head stops reading after its count, tail then dies of SIGPIPE and,
# under pipefail, the script exits 141 whenever tail had not yet written everything.
dd if="$OUT/rom-src.tmp" of="$OUT/seed-rom.bin" iflag=skip_bytes,count_bytes \
	skip=$((off + 16)) count=$((size - 20)) status=none
rm -f "$OUT/rom-src.tmp" "$OUT/rom-src.map"
i=$((i + 1))
# FS3/FS4 seeds from the unit tests' builder (burner/tests/fs3seed.c).
for k in fs3 fs4 fs4-hashes fs4-signed; do
	"$B/host/fs3seed" "$k" "$OUT/seed-$k.bin"
	i=$((i + 1))
done
# FS3/FS4 seeds from the generator (sim/mkfs3), under the fuzzer's 140,000-byte inputs: FS4
# ones with --dev-after-image, as an FS4 file is otherwise as large as the flash.
while read -r name opts; do
	# shellcheck disable=SC2086
	"$B/host/mkfs3" -o "$OUT/seed-mkfs3-$name.bin" $opts
	i=$((i + 1))
done <<'LIST'
fs3 --chip cx4lx --no-rom
fs4 --chip cx5 --no-rom --dev-after-image
fs4-signed --chip cx5 --signed --mcc-en --signed-fw --no-rom --dev-after-image
fs4-cx4 --chip cx4 --format fs4 --no-rom --dev-sections mfg,dev --dev-after-image
LIST
echo "fuzz corpus: $i seeds in $OUT"
