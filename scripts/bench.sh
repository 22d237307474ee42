#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench.sh BUILD_DIR — measures, never asserts: the size of the shipped cxflash and
# how long its file commands take on generated images (best of 5 runs).
set -euo pipefail
B=${1:?usage: bench.sh BUILD_DIR}
X=burner/cxflash
M=$B/host/mkfs2
W=$B/bench
mkdir -p "$W"

size=$(stat -c %s "$X")
# The limit for ConnectX-2/3 (Makefile, burner/cxflash): 384 KiB = 393,216 bytes.
limit=393216
printf 'cxflash (static, stripped): %d bytes (%.1f KiB); limit %d KiB (%d bytes)\n' "$size" \
	"$(awk "BEGIN{print $size/1024}")" $((limit / 1024)) "$limit"

"$M" -o "$W/big.bin" --chip cx3pro --ddr 48 --ddr-size 0x4000 >/dev/null
"$M" -o "$W/dump.bin" --chip cx3pro --ddr 48 --ddr-size 0x4000 --dump 1 --flash-size 4194304 >/dev/null
best() {
	local best=999999 t0 t1 ms
	for _ in 1 2 3 4 5; do
		t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
		ms=$(( (t1 - t0) / 1000000 )); [ "$ms" -lt "$best" ] && best=$ms
	done
	echo "$best"
}
printf 'v on a %d-byte image:              %s ms\n' "$(stat -c %s "$W/big.bin")" "$(best "$X" -i "$W/big.bin" v)"
printf 'q full on the same:                 %s ms\n' "$(best "$X" -i "$W/big.bin" q full)"
printf 'v on a 4 MiB striped dump (slot 1): %s ms\n' "$(best "$X" -i "$W/dump.bin" --striped_image v)"
cp "$W/big.bin" "$W/sg.bin"
printf 'sg (patch + rewrite):               %s ms\n' "$(best "$X" -y -i "$W/sg.bin" sg --guid 0002c9030000abc0)"
if command -v mstflint >/dev/null; then
	printf 'mstflint v on the same image:       %s ms\n' "$(best mstflint -i "$W/big.bin" v)"
fi
