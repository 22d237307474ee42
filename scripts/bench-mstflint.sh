#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-mstflint.sh BUILD_DIR [PART...] — the baseline cxflash must beat: Debian's
# mstflint burning a ~1 MiB image into a simulated ConnectX-3 (cxsim over FUSE),
# once per flash part (default W25Q16 and M25P16). Reports the model's counters
# and modelled time (config access 1 us + the client's sleeps, sim/core/cxsim.h);
# wall time is FUSE's and means little. Measures, never asserts. Needs root.
set -euo pipefail
B=${1:?usage: bench-mstflint.sh BUILD_DIR [PART...]}
shift
PARTS=("$@")
[ ${#PARTS[@]} -eq 0 ] && PARTS=(W25Q16 M25P16)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d /tmp/cxr-bench-XXXXXX)
trap 'fusermount3 -u "$W/mnt" 2>/dev/null || true; rm -rf "$W"' EXIT
M=$B/host/mkfs2
S=$B/host/cxsim
# 60 DDR sections of 16 KiB: 0.96 MiB, the largest round size that fits a 1 MiB slot.
"$M" -o "$W/old.bin" --chip cx3 --ddr "${BENCH_DDR:-60}" --ddr-size 0x4000 --fw 2.40.7000 >/dev/null
"$M" -o "$W/new.bin" --chip cx3 --ddr "${BENCH_DDR:-60}" --ddr-size 0x4000 --fw 2.42.5000 --seed 2 >/dev/null
echo "image: $(stat -c %s "$W/new.bin") bytes"
for part in "${PARTS[@]}"; do
	"$S" create "$W/$part" --chip cx3 --flash "$part" --image "$W/old.bin" --slot 0 >/dev/null
	"$S" serve "$W/mnt" "$W/$part" >"$W/serve.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do grep -q serving "$W/serve.log" && break; sleep 0.1; done
	t0=$(date +%s.%N)
	"$ROOT/scripts/mstflint-ns" "$W/mnt" -- mstflint -d 0000:01:00.0 -i "$W/new.bin" -y burn >"$W/burn.log" 2>&1 || { cat "$W/burn.log"; exit 1; }
	t1=$(date +%s.%N)
	kill -TERM $pid; wait $pid || true
	boots=$("$S" boot-check "$W/$part" --json | python3 -c 'import json,sys; b=json.load(sys.stdin); print(b.get("fw_version"), "slot", b.get("slot"))')
	python3 - "$W/$part.stats" "$part" "$(echo "$t1 - $t0" | awk '{print $1 - $3}')" "$boots" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["cards"][0]["counters"]
ops = c["gw_by_opcode"]
print(f"{sys.argv[2]}: modelled {c['time_ns']/1e9:.2f} s, wall {float(sys.argv[3]):.0f} s (FUSE)")
print(f"  config reads {c['cfg_reads']}, writes {c['cfg_writes']}; gateway commands {c['gw_cmds']} "
      f"(by opcode: {', '.join(f'{k} {v}' for k, v in sorted(ops.items()))})")
print(f"  programmed {c['bytes_programmed']} B, erased {c['bytes_erased']} B in {c['erases']} erases, "
      f"read {c['bytes_read']} B; after a power cycle the card boots {sys.argv[4]}")
PY
done
